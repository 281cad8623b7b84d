package lklocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultReadyTimeout is how long Start waits for the server to answer.
const DefaultReadyTimeout = time.Minute

// stopGrace is how long Stop lets the server end before it is killed.
const stopGrace = 5 * time.Second

// StartOptions say which server to start and where.
type StartOptions struct {
	// Binary is the livekit-server executable.
	Binary string
	// Ports are the ports to serve on 127.0.0.1; each must be free.
	Ports Ports
	// LogPath is the file that receives the server's output.
	LogPath string
	// LogLevel is the server's log level ("" keeps its default).
	LogLevel string
	// ReadyTimeout bounds the wait for the server to answer
	// (DefaultReadyTimeout when zero).
	ReadyTimeout time.Duration
	// PortHint names the setting that moves Ports.Signal, for the error
	// when a port is taken ("--livekit-port or VIVA_LIVEKIT_PORT").
	PortHint string
}

// Server is a livekit-server in development mode (key devkey, secret
// secret) that Start started on 127.0.0.1, in a process group of its own.
type Server struct {
	// URL is the signal URL (ws://127.0.0.1:port).
	URL string
	// HTTPURL is the same address for the server's HTTP APIs.
	HTTPURL string
	// LogPath is the file with the server's output.
	LogPath string

	cmd    *exec.Cmd
	exited chan struct{}
	err    error // how the process ended, once exited is closed
}

// DevAPIKey and DevAPISecret are the credentials of a server in
// development mode.
const (
	DevAPIKey    = "devkey"
	DevAPISecret = "secret"
)

// Start starts a server on opts.Ports and returns once that server, and
// no other, answers HTTP. It refuses to start when one of the ports is
// already taken (most often by another LiveKit server, which a client
// would otherwise reach instead), and it fails, with the end of the
// server's log, when the server exits before it answers.
func Start(ctx context.Context, opts StartOptions) (*Server, error) {
	if err := portsFree(opts.Ports, opts.PortHint); err != nil {
		return nil, err
	}
	logFile, err := os.Create(opts.LogPath)
	if err != nil {
		return nil, fmt.Errorf("livekit-server log: %w", err)
	}
	cmd := exec.Command(opts.Binary, "--dev", "--bind", "127.0.0.1", "--config-body", Config(opts.Ports, opts.LogLevel))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", opts.Binary, err)
	}
	s := &Server{URL: "ws://127.0.0.1:" + strconv.Itoa(opts.Ports.Signal), HTTPURL: "http://127.0.0.1:" + strconv.Itoa(opts.Ports.Signal),
		LogPath: opts.LogPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		logFile.Close()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, orDefault(opts.ReadyTimeout, DefaultReadyTimeout)); err != nil {
		s.Stop(true)
		return nil, err
	}
	return s, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// portsFree checks that each port of p can be bound on 127.0.0.1.
func portsFree(p Ports, hint string) error {
	for _, port := range []struct {
		network string
		n       int
	}{{"tcp", p.Signal}, {"tcp", p.RTCTCP}, {"udp", p.RTCUDP}} {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port.n))
		var err error
		if port.network == "udp" {
			var c net.PacketConn
			if c, err = net.ListenPacket("udp", addr); err == nil {
				c.Close()
			}
		} else {
			var l net.Listener
			if l, err = net.Listen("tcp", addr); err == nil {
				l.Close()
			}
		}
		if err != nil {
			move := "choose other ports"
			if hint != "" {
				move = "choose another port with " + hint + " (the next two must be free as well)"
			}
			return fmt.Errorf("LiveKit cannot use %s port %d on 127.0.0.1, it is taken (another LiveKit server, or another viva dev?): stop what uses it, %s, or set LIVEKIT_URL to use a running LiveKit server on purpose",
				strings.ToUpper(port.network), port.n, move)
		}
	}
	return nil
}

// waitReady polls the server until it answers, it exits, or timeout is
// over.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.HTTPURL, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			select {
			case <-s.exited: // someone else answered: ours is gone
			default:
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("livekit-server stopped before it was ready (%v); its log %s ends: %s", s.err, s.LogPath, logTail(s.LogPath))
		case <-ctx.Done():
			return fmt.Errorf("livekit-server did not answer on %s (log: %s): %w", s.HTTPURL, s.LogPath, ctx.Err())
		case <-tick.C:
		}
	}
}

// logTail is the last lines of the log at path, on one line.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(unreadable)"
	}
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(data, nil))), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], " / ")
}

// Exited is closed when the server's process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Err says how the process ended, once Exited is closed.
func (s *Server) Err() error {
	select {
	case <-s.exited:
		if s.err == nil {
			return errors.New("livekit-server exited")
		}
		return fmt.Errorf("livekit-server exited: %w", s.err)
	default:
		return nil
	}
}

// Stop ends the server's process group and waits for it: SIGTERM, then
// SIGKILL after a grace period; at once with SIGKILL when now is true. It
// may be called more than once.
func (s *Server) Stop(now bool) {
	select {
	case <-s.exited:
		return
	default:
	}
	sig := syscall.SIGTERM
	if now {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, sig)
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-timer.C:
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}

// Find locates the livekit-server binary: explicit when given, else next
// to this program, in ./bin, then on $PATH.
func Find(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if bin, err := filepath.Abs("bin"); err == nil {
		dirs = append(dirs, bin)
	}
	for _, d := range dirs {
		p := filepath.Join(d, "livekit-server")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("livekit-server"); err == nil {
		return p, nil
	}
	return "", errors.New("livekit-server not found next to this program, in ./bin or on $PATH: build it with make deps (it writes bin/livekit-server), or pass --livekit-server PATH")
}
