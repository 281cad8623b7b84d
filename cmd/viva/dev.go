package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/viva-interviews/viva/web"
)

// Development credentials of livekit-server --dev.
const (
	devAPIKey    = "devkey"
	devAPISecret = "secret"
)

// runDev runs the whole system on one machine: a LiveKit server in dev mode
// (unless LIVEKIT_URL is set), one interviewer worker and the web app, all
// stopped together on Ctrl-C.
func runDev(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var lkBin *string
	var lkPort *int
	var allowNoRoomPage *bool
	cfg, err := loadConfig("dev", args, stderr, func(fs *flag.FlagSet) {
		allowNoRoomPage = roomPageFlag(fs)
		lkBin = fs.String("livekit-server", "", "path of the livekit-server binary (default: bin/livekit-server next to viva, then $PATH)")
		lkPort = fs.Int("livekit-port", 7880, "signal port of the dev LiveKit server (WebRTC uses the next two: TCP and UDP)")
	})
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	if err := checkRoomPage(web.CheckRoomBundle, *allowNoRoomPage, log); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if cfg.LiveKitURL == "" {
		bin, err := findLiveKit(*lkBin)
		if err != nil {
			return err
		}
		body := fmt.Sprintf("port: %d\nrtc:\n  tcp_port: %d\n  udp_port: %d\n  node_ip: 127.0.0.1\n  use_external_ip: false\n  enable_loopback_candidate: true\nturn:\n  enabled: false\n",
			*lkPort, *lkPort+1, *lkPort+2)
		cmd := exec.Command(bin, "--dev", "--bind", "127.0.0.1", "--config-body", body)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		logPath := filepath.Join(os.TempDir(), "viva-livekit-server.log")
		logFile, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer logFile.Close()
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting %s: %w", bin, err)
		}
		defer func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			_ = cmd.Wait()
		}()
		cfg.LiveKitURL = fmt.Sprintf("ws://127.0.0.1:%d", *lkPort)
		cfg.LiveKitAPIKey, cfg.LiveKitAPISecret = devAPIKey, devAPISecret
		if err := waitHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d", *lkPort), time.Minute); err != nil {
			return fmt.Errorf("livekit-server did not start (log: %s): %w", logPath, err)
		}
		log.Info("livekit-server started in dev mode", "url", cfg.LiveKitURL, "log", logPath)
	}
	if err := cfg.RequireLiveKit(); err != nil {
		return usageError("%v", err)
	}
	generated := false
	if cfg.ReviewerToken == "" {
		cfg.ReviewerToken = randomToken(12)
		generated = true
	}
	w, err := newWorker(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (choose another address with --addr)", cfg.Addr, err)
	}
	errc := make(chan error, 2)
	go func() { errc <- runWorker(ctx, w, cfg, log) }()
	go func() { errc <- serveWeb(ctx, ln, cfg, log) }()

	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "\nviva is running.\n\n  Register a candidate:  %s/\n  Reviewer pages:        %s/review\n", url, url)
	if generated {
		fmt.Fprintf(stdout, "  Reviewer password:     %s   (sign in with no email; set VIVA_REVIEWER_TOKEN to choose one)\n", cfg.ReviewerToken)
	} else {
		fmt.Fprintf(stdout, "  Reviewer password:     the VIVA_REVIEWER_TOKEN you set\n")
	}
	fmt.Fprintf(stdout, "  Engines:               llm=%s stt=%s tts=%s\n  LiveKit:               %s\n\nPress Ctrl-C to stop.\n\n",
		cfg.ResolvedLLM(), cfg.ResolvedSTT(), cfg.ResolvedTTS(), cfg.LiveKitURL)

	var first error
	select {
	case first = <-errc:
		cancel()
	case <-ctx.Done():
	}
	second := <-errc
	if first == nil {
		first = second
	}
	if errors.Is(first, context.Canceled) || errors.Is(first, http.ErrServerClosed) {
		first = nil
	}
	return first
}

// findLiveKit locates the livekit-server binary.
func findLiveKit(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "livekit-server")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("livekit-server"); err == nil {
		return p, nil
	}
	return "", errors.New("livekit-server not found: run `make run` (it builds bin/livekit-server), pass --livekit-server PATH, or set LIVEKIT_URL to use a running server")
}

// waitHTTP waits until url answers.
func waitHTTP(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
