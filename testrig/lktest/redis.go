package lktest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viva-interviews/viva/internal/linelog"
)

const (
	// redisBinary is Debian's redis-server, installed by `make deps`.
	redisBinary = "redis-server"
	// redisReadyTimeout bounds how long StartRedis waits for PONG.
	redisReadyTimeout = 10 * time.Second
	// redisStopTimeout is how long a stopped Redis may take to exit on
	// SIGTERM before it is killed.
	redisStopTimeout = 5 * time.Second
)

// Redis is a redis-server owned by one test: in memory only (no snapshots,
// no append-only file), listening on 127.0.0.1, stopped when the test ends.
// livekit-server nodes that share it form one cluster.
type Redis struct {
	// Addr is host:port, as livekit-server's redis.address takes it.
	Addr string

	proc *process
}

// StartRedis runs redis-server for the test in a temporary directory on a
// free port and returns once it answers PING. It fails the test with the
// setup hint when redis-server is not installed.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	bin, err := findRedis()
	if err != nil {
		t.Fatalf("lktest: %v", err)
	}
	dir := t.TempDir()
	for attempt := 1; ; attempt++ {
		r, err := launchRedis(bin, dir, attempt)
		if err == nil {
			t.Cleanup(r.stop)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("lktest: redis-server log (%s), last %d lines:\n%s", r.proc.log.Path(), tailLines, strings.Join(tail(r.proc.log.Lines(), tailLines), "\n"))
				}
			})
			return r
		}
		if attempt >= startAttempts || !errors.Is(err, errAddrInUse) {
			t.Fatalf("lktest: start redis-server: %v", err)
		}
		t.Logf("lktest: redis port taken (%v), retrying with a new port", err)
	}
}

// findRedis returns the redis-server binary, or an error saying how to
// install it.
func findRedis() (string, error) {
	bin, err := exec.LookPath(redisBinary)
	if err != nil {
		return "", fmt.Errorf("redis-server missing: run `make deps` (it installs Debian's redis-server): %w", err)
	}
	return bin, nil
}

// launchRedis starts one redis-server on a free port and waits for PONG.
func launchRedis(bin, dir string, attempt int) (*Redis, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pick free tcp port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	sink, err := linelog.Create(filepath.Join(dir, fmt.Sprintf("redis-%d.log", attempt)))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir)
	cmd.Stdout = sink
	cmd.Stderr = sink
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		sink.Close()
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{}), log: sink}
	go func() {
		p.waitErr = cmd.Wait()
		sink.Close()
		close(p.exited)
	}()
	r := &Redis{Addr: fmt.Sprintf("127.0.0.1:%d", port), proc: p}
	if err := r.waitReady(); err != nil {
		r.stop()
		if strings.Contains(strings.Join(sink.Lines(), "\n"), "Address already in use") {
			return nil, fmt.Errorf("%w: %v", errAddrInUse, err)
		}
		return nil, fmt.Errorf("%w; log:\n%s", err, strings.Join(tail(sink.Lines(), 20), "\n"))
	}
	return r, nil
}

// waitReady sends PING until the server answers PONG or the process dies.
func (r *Redis) waitReady() error {
	deadline := time.Now().Add(redisReadyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-r.proc.exited:
			return fmt.Errorf("redis-server exited before answering: %v", r.proc.waitErr)
		default:
		}
		if r.Ping() == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("redis-server did not answer PING on %s within %s", r.Addr, redisReadyTimeout)
}

// Ping sends one PING over a fresh connection and returns nil on PONG.
func (r *Redis) Ping() error {
	c, err := net.DialTimeout("tcp", r.Addr, time.Second)
	if err != nil {
		return fmt.Errorf("redis %s: %w", r.Addr, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return fmt.Errorf("redis %s: ping: %w", r.Addr, err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("redis %s: ping: %w", r.Addr, err)
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("redis %s: ping answered %q", r.Addr, strings.TrimSpace(line))
	}
	return nil
}

// stop ends the server with SIGTERM, or SIGKILL when it does not exit in
// time, and waits for it. It is idempotent.
func (r *Redis) stop() {
	select {
	case <-r.proc.exited:
		return
	default:
	}
	pid := r.proc.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-r.proc.exited:
	case <-time.After(redisStopTimeout):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-r.proc.exited
	}
}
