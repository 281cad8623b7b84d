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
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/viva-interviews/viva/internal/lklocal"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/web"
)

// Development credentials of livekit-server --dev.
const (
	devAPIKey    = "devkey"
	devAPISecret = "secret"
)

// devDrainTimeout is how long viva dev lets running interviews finish
// after Ctrl-C, unless --drain-timeout says otherwise: on one's own machine
// a stop should be quick, and a second Ctrl-C does not wait at all.
const devDrainTimeout = 5 * time.Second

// The drain timeout setting, as a flag and an environment variable.
const (
	flagDrainTimeout = "drain-timeout"
	envDrainTimeout  = "VIVA_DRAIN_TIMEOUT"
)

// errStoppedAtOnce is viva dev's error when a second Ctrl-C cut the drain
// short.
var errStoppedAtOnce = errors.New("stopped at once by a second interrupt; interviews still running are saved as interrupted by a crash at the next start, and a new dispatch resumes them")

// runDev runs the whole system on one machine: a LiveKit server in dev mode
// (unless LIVEKIT_URL is set), one interviewer worker and the web app, all
// stopped together on Ctrl-C; a second Ctrl-C stops them at once.
func runDev(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var lkBin *string
	var lkPort *int
	var allowNoRoomPage *bool
	var flags *flag.FlagSet
	cfg, err := loadConfig("dev", args, stderr, func(fs *flag.FlagSet) {
		flags = fs
		allowNoRoomPage = roomPageFlag(fs)
		lkBin = fs.String("livekit-server", "", "path of the livekit-server binary (default: bin/livekit-server next to viva, then $PATH)")
		lkPort = fs.Int("livekit-port", 7880, "signal port of the dev LiveKit server (WebRTC uses the next two: TCP and UDP)")
	})
	if err != nil {
		return err
	}
	if !settingGiven(flags, flagDrainTimeout, envDrainTimeout) {
		cfg.DrainTimeout = devDrainTimeout
	}
	log := newLogger(stderr, cfg.LogLevel)
	if err := checkRoomPage(web.CheckRoomBundle, *allowNoRoomPage, log); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stoppedAtOnce := false

	if cfg.LiveKitURL == "" {
		bin, err := findLiveKit(*lkBin)
		if err != nil {
			return err
		}
		body := lklocal.Config(lklocal.Ports{Signal: *lkPort, RTCTCP: *lkPort + 1, RTCUDP: *lkPort + 2}, "")
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
			sig := syscall.SIGTERM
			if stoppedAtOnce {
				sig = syscall.SIGKILL
			}
			_ = syscall.Kill(-cmd.Process.Pid, sig)
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
	// The worker and the web app share one process, so one registry: the
	// web app's /metrics and the health listener's show both.
	reg := metrics.NewRegistry()
	w, side, healthAddr, err := startWorker(ctx, cfg, log, reg)
	if err != nil {
		return err
	}
	defer side.stop()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (choose another address with --addr)", cfg.Addr, err)
	}
	errc := make(chan error, 2)
	go func() { errc <- runWorker(ctx, w, cfg, log) }()
	go func() { errc <- serveWeb(ctx, ln, cfg, log, reg) }()

	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "\nviva is running.\n\n  Register a candidate:  %s/\n  Reviewer pages:        %s/review\n", url, url)
	if generated {
		fmt.Fprintf(stdout, "  Reviewer password:     %s   (sign in with no email; set VIVA_REVIEWER_TOKEN to choose one)\n", cfg.ReviewerToken)
	} else {
		fmt.Fprintf(stdout, "  Reviewer password:     the VIVA_REVIEWER_TOKEN you set\n")
	}
	fmt.Fprintf(stdout, "  Metrics:               %s%s\n", url, web.MetricsPath)
	if healthAddr != "" {
		fmt.Fprintf(stdout, "  Worker health:         http://%s/\n", healthAddr)
	}
	fmt.Fprintf(stdout, "  Engines:               llm=%s stt=%s tts=%s\n  LiveKit:               %s\n\nPress Ctrl-C to stop.\n\n",
		cfg.ResolvedLLM(), cfg.ResolvedSTT(), cfg.ResolvedTTS(), cfg.LiveKitURL)

	// The first interrupt starts the drain; a second one ends it.
	interrupts := make(chan os.Signal, 1)
	defer signal.Stop(interrupts)
	first, atOnce := awaitStop(ctx, cancel, errc, 2, func() <-chan os.Signal {
		signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
		fmt.Fprintf(stderr, "\nStopping: running interviews have %s to finish. Press Ctrl-C again to stop at once.\n", cfg.DrainTimeout)
		return interrupts
	})
	if atOnce {
		stoppedAtOnce = true
		return errStoppedAtOnce
	}
	if errors.Is(first, context.Canceled) || errors.Is(first, http.ErrServerClosed) {
		first = nil
	}
	return first
}

// awaitStop waits for the running parts of viva dev to return their
// errors on errc, and returns the first. When ctx ends (the first
// interrupt) or a part fails (then it cancels the others), the stop has
// begun: it calls draining, which announces the stop and returns the
// interrupts that arrive from then on. Such an interrupt ends the wait at
// once: atOnce is then true.
func awaitStop(ctx context.Context, cancel func(), errc <-chan error, running int, draining func() <-chan os.Signal) (first error, atOnce bool) {
	select {
	case first = <-errc:
		running--
		cancel()
	case <-ctx.Done():
	}
	interrupts := draining()
	for ; running > 0; running-- {
		select {
		case err := <-errc:
			if first == nil {
				first = err
			}
		case <-interrupts:
			return first, true
		}
	}
	return first, false
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
