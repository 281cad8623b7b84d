// Package lktest runs a real livekit-server for tests: the binary built into
// the repository's bin directory, in development mode on 127.0.0.1 with free
// ports, one process per test, killed when the test ends.
//
// Tests talk to it exactly as production code talks to LiveKit (signal
// websocket, twirp APIs, the /agent worker protocol), so what passes here is
// what works against a real deployment. Its log is kept in a file under the
// test's temporary directory, can be waited on (WaitLog) to observe what the
// server decided, and its tail is printed when the test fails.
//
// StartCluster runs several servers as the nodes of one multi-node
// deployment, sharing a Redis of their own (StartRedis), to test what
// crosses nodes: signalling, media and agent dispatch.
package lktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/viva-interviews/viva/internal/lklocal"

	"github.com/viva-interviews/viva/internal/linelog"
)

const (
	// DevAPIKey and DevAPISecret are the credentials livekit-server --dev uses.
	DevAPIKey    = "devkey"
	DevAPISecret = "secret"

	// binaryPath is the server binary, relative to the repository root.
	binaryPath = "bin/livekit-server"
	// readyTimeout bounds how long Start waits for the server to answer HTTP.
	readyTimeout = 20 * time.Second
	// startAttempts is how often Start picks new ports when the server cannot
	// bind the ones it was given (another process took them in between).
	startAttempts = 3
	// tailLines and tailWidth bound how much of the server log a failing
	// test prints: the whole log stays in its file, and the test's own
	// failure message must not scroll out of view under it.
	tailLines = 25
	tailWidth = 240
)

// Server is a running livekit-server owned by one test.
type Server struct {
	// URL is the signal endpoint for clients and workers (ws://127.0.0.1:port).
	URL string
	// HTTPURL is the same endpoint for the twirp APIs (http://127.0.0.1:port).
	HTTPURL string
	// APIKey and APISecret sign tokens the server accepts.
	APIKey, APISecret string

	t     testing.TB
	bin   string
	dir   string
	ports ports
	node  *clusterNode // nil for a single development server

	mu    sync.Mutex
	proc  *process   // the running process, nil after Stop
	procs []*process // every process started, for the failure report
}

// ports are the three listening ports a server needs.
type ports struct {
	signal, rtcTCP, rtcUDP int
}

// process is one run of the server binary and its captured log.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
	log     *linelog.Log
}

// Start runs livekit-server for the test and returns once it answers HTTP.
// The process (and its process group) is killed in t.Cleanup. Several
// servers can run at once, each on its own ports.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, nil)
}

// start runs one server, alone (node nil) or as a node of a cluster.
func start(t testing.TB, node *clusterNode) *Server {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("lktest: %v", err)
	}
	bin, err := findBinary(root)
	if err != nil {
		t.Fatalf("lktest: %v", err)
	}
	s := &Server{
		APIKey:    DevAPIKey,
		APISecret: DevAPISecret,
		t:         t,
		bin:       bin,
		dir:       t.TempDir(),
		node:      node,
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			s.reportTail()
		}
	})
	for attempt := 1; ; attempt++ {
		p, err := freePorts()
		if err != nil {
			t.Fatalf("lktest: %v", err)
		}
		s.ports = p
		s.URL = fmt.Sprintf("ws://127.0.0.1:%d", p.signal)
		s.HTTPURL = fmt.Sprintf("http://127.0.0.1:%d", p.signal)
		err = s.launch()
		if err == nil {
			return s
		}
		if attempt >= startAttempts || !errors.Is(err, errAddrInUse) {
			t.Fatalf("lktest: start livekit-server: %v", err)
		}
		t.Logf("lktest: ports taken (%v), retrying with new ports", err)
	}
}

// Stop kills the server now (SIGKILL to its process group), as a crash or
// a lost node would look to clients. It is idempotent.
func (s *Server) Stop() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// Restart kills the server and starts a fresh one on the same ports, so
// clients that reconnect to the same URL find a new server with no state.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	var err error
	// The kernel releases a killed listener at once, but give a slow machine
	// a few tries before calling it a failure.
	for attempt := 0; attempt < 50; attempt++ {
		if err = s.launch(); err == nil || !errors.Is(err, errAddrInUse) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("lktest: restart livekit-server: %v", err)
	}
}

// errAddrInUse reports that the server could not bind a port.
var errAddrInUse = errors.New("address already in use")

// launch starts one process on s.ports and waits until it answers.
func (s *Server) launch() error {
	s.mu.Lock()
	n := len(s.procs)
	s.mu.Unlock()
	logPath := filepath.Join(s.dir, fmt.Sprintf("livekit-server-%d.log", n))
	sink, err := linelog.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "--dev", "--bind", "127.0.0.1", "--config-body", s.config())
	cmd.Stdout = sink
	cmd.Stderr = sink
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		sink.Close()
		return fmt.Errorf("run %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{}), log: sink}
	go func() {
		p.waitErr = cmd.Wait()
		sink.Close()
		close(p.exited)
	}()
	s.mu.Lock()
	s.proc = p
	s.procs = append(s.procs, p)
	s.mu.Unlock()

	if err := waitReady(s.HTTPURL, p); err != nil {
		s.Stop()
		if strings.Contains(strings.Join(p.log.Lines(), "\n"), "address already in use") {
			return fmt.Errorf("%w: %v", errAddrInUse, err)
		}
		return fmt.Errorf("%w; log %s:\n%s", err, logPath, strings.Join(tail(p.log.Lines(), 20), "\n"))
	}
	return nil
}

// config is the server's YAML: fixed local ports, loopback media, no TURN,
// no external IP discovery, no STUN server to look up by name (see
// lklocal), info-level logs; for a cluster node also Redis, the shared
// keys and room placement (see clusterNode.config).
func (s *Server) config() string {
	p := lklocal.Ports{Signal: s.ports.signal, RTCTCP: s.ports.rtcTCP, RTCUDP: s.ports.rtcUDP}
	return lklocal.Config(p, "info") + s.node.config()
}

// waitReady polls the health endpoint until it answers 200 or the process dies.
func waitReady(httpURL string, p *process) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("livekit-server exited before answering: %v", p.waitErr)
		default:
		}
		resp, err := client.Get(httpURL + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("livekit-server did not answer on %s within %s", httpURL, readyTimeout)
}

// reportTail prints the end of every log this server wrote.
func (s *Server) reportTail() {
	s.mu.Lock()
	procs := append([]*process(nil), s.procs...)
	s.mu.Unlock()
	for i, p := range procs {
		s.t.Logf("lktest: livekit-server run %d log (%s), last %d lines, cut at %d characters:\n%s",
			i, p.log.Path(), tailLines, tailWidth, strings.Join(tail(p.log.Lines(), tailLines), "\n"))
	}
}

// LogPath is the file the current (or last) server process logs to.
func (s *Server) LogPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.procs) == 0 {
		return ""
	}
	return s.procs[len(s.procs)-1].log.Path()
}

// LogLines is a snapshot of the current (or last) process's log lines.
func (s *Server) LogLines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.procs) == 0 {
		return nil
	}
	return s.procs[len(s.procs)-1].log.Lines()
}

// WaitLog waits until the current server process has logged a line that
// contains every one of substrings and returns that line; it fails the test
// after timeout. Lines logged before the call count, so there is no race
// with the event being waited for.
func (s *Server) WaitLog(t testing.TB, timeout time.Duration, substrings ...string) string {
	t.Helper()
	s.mu.Lock()
	var log *linelog.Log
	if len(s.procs) > 0 {
		log = s.procs[len(s.procs)-1].log
	}
	s.mu.Unlock()
	if log == nil {
		t.Fatalf("lktest: WaitLog before Start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	line, err := log.Wait(ctx, linelog.ContainsAll(substrings...))
	if err != nil {
		t.Fatalf("lktest: no server log line with %q within %s: %v", substrings, timeout, err)
	}
	return line
}

// TokenOption adjusts a participant token made by Token.
type TokenOption func(*auth.AccessToken, *auth.VideoGrant)

// WithAgentDispatch asks the server to dispatch the named agent, with this
// dispatch metadata, when the room is created by this participant's join
// (RoomConfiguration.Agents in the token).
func WithAgentDispatch(agentName, metadata string) TokenOption {
	return func(at *auth.AccessToken, _ *auth.VideoGrant) {
		at.SetRoomConfig(&livekit.RoomConfiguration{
			Agents: []*livekit.RoomAgentDispatch{{AgentName: agentName, Metadata: metadata}},
		})
	}
}

// WithKind sets the participant kind (for example AGENT, which lets the
// participant send transcriptions and speak on behalf of others).
func WithKind(kind livekit.ParticipantInfo_Kind) TokenOption {
	return func(at *auth.AccessToken, _ *auth.VideoGrant) { at.SetKind(kind) }
}

// WithName sets the participant's display name.
func WithName(name string) TokenOption {
	return func(at *auth.AccessToken, _ *auth.VideoGrant) { at.SetName(name) }
}

// WithAttributes sets the participant's initial attributes.
func WithAttributes(attrs map[string]string) TokenOption {
	return func(at *auth.AccessToken, _ *auth.VideoGrant) { at.SetAttributes(attrs) }
}

// WithGrant edits the video grant (for example to allow metadata updates).
func WithGrant(edit func(*auth.VideoGrant)) TokenOption {
	return func(_ *auth.AccessToken, g *auth.VideoGrant) { edit(g) }
}

// Token signs a one-hour join token for identity in room. It panics only if
// signing fails, which cannot happen with the server's fixed credentials.
func (s *Server) Token(identity, room string, opts ...TokenOption) string {
	grant := &auth.VideoGrant{RoomJoin: true, Room: room}
	at := auth.NewAccessToken(s.APIKey, s.APISecret).SetIdentity(identity).SetValidFor(time.Hour)
	for _, o := range opts {
		o(at, grant)
	}
	at.SetVideoGrant(grant)
	jwt, err := at.ToJWT()
	if err != nil {
		panic(fmt.Sprintf("lktest: sign token: %v", err))
	}
	return jwt
}

// RoomClient is a RoomService client for this server.
func (s *Server) RoomClient() *lksdk.RoomServiceClient {
	return lksdk.NewRoomServiceClient(s.HTTPURL, s.APIKey, s.APISecret)
}

// DispatchClient is an AgentDispatchService client for this server.
func (s *Server) DispatchClient() *lksdk.AgentDispatchClient {
	return lksdk.NewAgentDispatchServiceClient(s.HTTPURL, s.APIKey, s.APISecret)
}

// Connect joins room as identity with the SDK (a stand-in for a browser
// participant), without subscribing to tracks automatically, and
// disconnects when the test ends.
func (s *Server) Connect(t testing.TB, identity, room string, cb *lksdk.RoomCallback, opts ...TokenOption) *lksdk.Room {
	t.Helper()
	if cb == nil {
		cb = &lksdk.RoomCallback{}
	}
	r, err := lksdk.ConnectToRoomWithToken(s.URL, s.Token(identity, room, opts...), cb, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatalf("lktest: %s joins %s: %v", identity, room, err)
	}
	t.Cleanup(r.Disconnect)
	return r
}

// findBinary returns the server binary under root, or an error saying how to
// build it.
func findBinary(root string) (string, error) {
	bin := filepath.Join(root, binaryPath)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("bin/livekit-server missing: run `make bin/livekit-server` (looked for %s)", bin)
	}
	return bin, nil
}

// repoRoot walks up from the working directory to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// freePorts asks the kernel for two free TCP ports and one free UDP port on
// 127.0.0.1. They are released before the server binds them; Start retries
// with new ports in the rare case another process takes one in between.
func freePorts() (ports, error) {
	var p ports
	var tcp []net.Listener
	defer func() {
		for _, l := range tcp {
			l.Close()
		}
	}()
	for _, dst := range []*int{&p.signal, &p.rtcTCP} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return p, fmt.Errorf("pick free tcp port: %w", err)
		}
		tcp = append(tcp, l)
		*dst = l.Addr().(*net.TCPAddr).Port
	}
	u, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return p, fmt.Errorf("pick free udp port: %w", err)
	}
	p.rtcUDP = u.LocalAddr().(*net.UDPAddr).Port
	u.Close()
	return p, nil
}

// tail returns the last n lines.
func tail(lines []string, n int) []string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > tailWidth {
			l = l[:tailWidth] + " …"
		}
		out[i] = l
	}
	return out
}
