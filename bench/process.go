package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/viva-interviews/viva/internal/linelog"
	"github.com/viva-interviews/viva/internal/lklocal"
)

const (
	// liveKitReadyTimeout bounds how long the server may take to answer.
	liveKitReadyTimeout = 30 * time.Second
	// stopGrace is how long a stopped process has to exit after SIGTERM
	// before it is killed.
	stopGrace = 5 * time.Second
	// registeredLine is what livekit-server logs when a worker registers.
	registeredLine = "worker registered"
)

// child is a process the benchmark started, in its own process group, with
// its output kept in a log file and in memory to wait for its lines.
type child struct {
	cmd    *exec.Cmd
	log    *linelog.Log
	exited chan struct{}
	err    error
}

// startChild runs argv with env added to this process's environment,
// logging to logPath. The child is killed if this process dies.
func startChild(argv []string, env []string, logPath string) (*child, error) {
	log, err := linelog.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	c := &child{cmd: cmd, log: log, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		log.Close()
		close(c.exited)
	}()
	return c, nil
}

// pid is the child's process id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// stop asks the child's process group to stop (SIGTERM), kills it after
// stopGrace, and waits for it to exit. It is idempotent.
func (c *child) stop() {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = syscall.Kill(-c.pid(), syscall.SIGTERM)
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-c.exited:
	case <-timer.C:
		_ = syscall.Kill(-c.pid(), syscall.SIGKILL)
		<-c.exited
	}
}

// liveKit is a livekit-server in development mode on 127.0.0.1.
type liveKit struct {
	*child
	// url is the signal URL (ws://), httpURL the same for the twirp APIs.
	url, httpURL string
}

// startLiveKit runs the server binary on free local ports and returns once
// it answers HTTP.
func startLiveKit(ctx context.Context, bin, logPath string) (*liveKit, error) {
	signal, rtcTCP, rtcUDP, err := freePorts()
	if err != nil {
		return nil, err
	}
	body := lklocal.Config(lklocal.Ports{Signal: signal, RTCTCP: rtcTCP, RTCUDP: rtcUDP}, "info")
	c, err := startChild([]string{bin, "--dev", "--bind", "127.0.0.1", "--config-body", body}, nil, logPath)
	if err != nil {
		return nil, fmt.Errorf("livekit-server: %w", err)
	}
	lk := &liveKit{child: c, url: fmt.Sprintf("ws://127.0.0.1:%d", signal), httpURL: fmt.Sprintf("http://127.0.0.1:%d", signal)}
	if err := waitHTTP(ctx, lk.httpURL, c.exited); err != nil {
		c.stop()
		return nil, fmt.Errorf("livekit-server did not start (log %s): %w", logPath, err)
	}
	return lk, nil
}

// waitHTTP polls url until it answers 200, the process exits or the
// server's start-up time is over.
func waitHTTP(ctx context.Context, url string, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, liveKitReadyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("it exited before answering")
		case <-ctx.Done():
			return fmt.Errorf("no answer on %s: %w", url, ctx.Err())
		case <-tick.C:
		}
	}
}

// freePorts picks two free TCP ports and one free UDP port on 127.0.0.1.
func freePorts() (signal, rtcTCP, rtcUDP int, err error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for _, dst := range []*int{&signal, &rtcTCP} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, 0, fmt.Errorf("pick a free TCP port: %w", err)
		}
		ls = append(ls, l)
		*dst = l.Addr().(*net.TCPAddr).Port
	}
	u, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, fmt.Errorf("pick a free UDP port: %w", err)
	}
	rtcUDP = u.LocalAddr().(*net.UDPAddr).Port
	u.Close()
	return signal, rtcTCP, rtcUDP, nil
}
