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
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/internal/lklocal"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/web"
	"log/slog"
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
// stopped together on Ctrl-C; a second Ctrl-C stops them at once. When its
// LiveKit server cannot start (a port is taken) or stops, viva dev stops
// with the reason: it never talks to another LiveKit server by accident.
func runDev(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var lkBin *string
	var allowNoRoomPage *bool
	var flags *flag.FlagSet
	cfg, err := loadConfig("dev", args, stderr, func(fs *flag.FlagSet) {
		flags = fs
		allowNoRoomPage = roomPageFlag(fs)
		lkBin = fs.String("livekit-server", "", "path of the livekit-server binary (default: bin/livekit-server next to viva, then $PATH)")
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
	lk, err := startDevLiveKit(ctx, cfg, *lkBin, log)
	if err != nil {
		return err
	}
	stoppedAtOnce := false
	lkStopped := make(chan error, 1)
	if lk != nil {
		defer func() { lk.Stop(stoppedAtOnce) }()
		go func() {
			select {
			case <-lk.Exited():
				lkStopped <- fmt.Errorf("%w (log: %s): viva dev stopped with it", lk.Err(), lk.LogPath)
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	err = runDevParts(ctx, cancel, cfg, log, stdout, stderr)
	if errors.Is(err, errStoppedAtOnce) {
		stoppedAtOnce = true
	}
	select {
	case stopped := <-lkStopped:
		if err == nil {
			return stopped
		}
	default:
	}
	return err
}

// startDevLiveKit starts viva dev's own LiveKit server, on the port of
// --livekit-port, and points cfg at it; with LIVEKIT_URL set it starts
// nothing and returns nil.
func startDevLiveKit(ctx context.Context, cfg *config.Config, explicitBin string, log *slog.Logger) (*lklocal.Server, error) {
	if cfg.LiveKitURL != "" {
		return nil, nil
	}
	bin, err := lklocal.Find(explicitBin)
	if err != nil {
		return nil, fmt.Errorf("%w; or set LIVEKIT_URL to use a running LiveKit server", err)
	}
	lk, err := lklocal.Start(ctx, lklocal.StartOptions{Binary: bin, Ports: lklocal.PortsFrom(cfg.LiveKitPort),
		LogPath: filepath.Join(os.TempDir(), fmt.Sprintf("viva-livekit-server-%d.log", cfg.LiveKitPort)), PortHint: "--livekit-port or VIVA_LIVEKIT_PORT"})
	if err != nil {
		return nil, err
	}
	cfg.LiveKitURL = lk.URL
	cfg.LiveKitAPIKey, cfg.LiveKitAPISecret = lklocal.DevAPIKey, lklocal.DevAPISecret
	log.Info("livekit-server started in dev mode", "url", cfg.LiveKitURL, "log", lk.LogPath)
	return lk, nil
}

// runDevParts runs the worker and the web app until ctx ends or one of
// them fails, then drains; it returns errStoppedAtOnce when a second
// interrupt cut the drain short.
func runDevParts(ctx context.Context, cancel func(), cfg *config.Config, log *slog.Logger, stdout, stderr io.Writer) error {
	if err := cfg.RequireLiveKit(); err != nil {
		return cli.UsageError("%v", err)
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
	defer side.Stop()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (choose another address with --addr or VIVA_ADDR)", cfg.Addr, err)
	}
	errc := make(chan error, 2)
	go func() { errc <- runWorker(ctx, w, cfg, log) }()
	go func() { errc <- serveWeb(ctx, ln, cfg, log, reg) }()
	printRunning(stdout, cfg, "http://"+ln.Addr().String(), healthAddr, generated)

	// The first interrupt starts the drain; a second one ends it.
	interrupts := make(chan os.Signal, 1)
	defer signal.Stop(interrupts)
	first, atOnce := awaitStop(ctx, cancel, errc, 2, func() <-chan os.Signal {
		signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
		fmt.Fprintf(stderr, "\nStopping: running interviews have %s to finish. Press Ctrl-C again to stop at once.\n", cfg.DrainTimeout)
		return interrupts
	})
	if atOnce {
		return errStoppedAtOnce
	}
	if errors.Is(first, context.Canceled) || errors.Is(first, http.ErrServerClosed) {
		first = nil
	}
	return first
}

// printRunning tells the operator where viva dev serves what.
func printRunning(stdout io.Writer, cfg *config.Config, url, healthAddr string, generated bool) {
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
