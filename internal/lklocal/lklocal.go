// Package lklocal writes the configuration of a livekit-server that serves
// this machine only: viva dev's server, the test rigs' and the benchmark's.
//
// Such a server must never make its clients look anything up on the
// network. livekit-server hands every participant ICE servers in its join
// response and, when none are configured, public STUN servers by name
// (stun.l.google.com and the like): each client (the worker, a test's
// participant, the browser) then resolves those names while gathering
// candidates. On a machine without DNS the lookups hang for seconds, cannot
// be cancelled, and outlive the connection. The server written here names a
// STUN server by address instead: its own RTC UDP port on 127.0.0.1, so a
// client resolves nothing and its loopback binding request is answered or
// dropped on this machine at once.
package lklocal

import (
	"fmt"
	"strings"
)

// Ports are the ports a local server listens on, all on 127.0.0.1.
type Ports struct {
	// Signal serves the signal websocket and the twirp APIs.
	Signal int
	// RTCTCP and RTCUDP carry media (ICE over TCP and over UDP).
	RTCTCP, RTCUDP int
}

// Config is the YAML body (for --config-body) of a server on ports that
// serves loopback media: no external IP discovery, no TURN, a STUN server
// given by address, and info-level logs unless logLevel says otherwise
// ("" keeps the server's default).
func Config(p Ports, logLevel string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "port: %d\n", p.Signal)
	fmt.Fprintf(&b, "rtc:\n  tcp_port: %d\n  udp_port: %d\n", p.RTCTCP, p.RTCUDP)
	b.WriteString("  node_ip: 127.0.0.1\n  use_external_ip: false\n  enable_loopback_candidate: true\n")
	fmt.Fprintf(&b, "  stun_servers:\n    - %s\n", STUNServer(p))
	b.WriteString("turn:\n  enabled: false\n")
	if logLevel != "" {
		fmt.Fprintf(&b, "logging:\n  level: %s\n", logLevel)
	}
	return b.String()
}

// STUNServer is the host:port a server configured by Config hands its
// clients as their one STUN server: an address, never a name.
func STUNServer(p Ports) string {
	return fmt.Sprintf("127.0.0.1:%d", p.RTCUDP)
}

// PortsFrom are the ports of a server whose signal port is signal: media
// on the next two, TCP then UDP.
func PortsFrom(signal int) Ports {
	return Ports{Signal: signal, RTCTCP: signal + 1, RTCUDP: signal + 2}
}
