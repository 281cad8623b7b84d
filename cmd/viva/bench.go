package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/bench"
)

// inProcessDensity runs the density benchmark's in-process mode (the
// session pipeline without WebRTC); nil leaves the mode out.
var inProcessDensity bench.InProcessFunc = bench.InProcess

// Subcommands of viva bench.
const (
	benchLatency = "latency"
	benchDensity = "density"
)

// runBench is "viva bench latency|density": the benchmarks over a real
// livekit-server, fake providers and a worker process started from this
// binary. Figures are printed beside their targets and written as JSON.
func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != benchLatency && args[0] != benchDensity) {
		if wantsHelp(args) {
			fmt.Fprintln(stderr, benchUsage)
			return flag.ErrHelp
		}
		return usageError("say which benchmark: viva bench latency or viva bench density (-h for their flags)")
	}
	which := args[0]
	fs := flag.NewFlagSet("viva bench "+which, flag.ContinueOnError)
	fs.SetOutput(stderr)
	lkBin := fs.String("livekit-server", "", "path of the livekit-server binary (default: bin/livekit-server next to viva or in the working directory, then $PATH)")
	latency := fs.Duration("provider-latency", 0, "fixed latency of every provider request (recognition, model, speech), such as 200ms")
	out := fs.String("out", "", "write the figures as JSON to this file")
	dir := fs.String("dir", "", "directory for the servers' logs and records (default: a temporary directory, removed at the end)")
	verbose := fs.Bool("v", false, "log progress on stderr")
	var turns, rooms *int
	var sessions, modes *string
	var window *time.Duration
	var chart *string
	switch which {
	case benchLatency:
		turns = fs.Int("turns", 50, "candidate turns to measure in all")
		rooms = fs.Int("rooms", 5, "interviews held at once")
	case benchDensity:
		sessions = fs.String("sessions", "5,10,20,40,80", "end-to-end session counts to climb through, until the machine saturates")
		window = fs.Duration("window", 20*time.Second, "measured window of each run, after every room has been greeted")
		modes = fs.String("mode", bench.ModeEndToEnd, "comma-separated modes: "+strings.Join(densityModes(), ", "))
		chart = fs.String("chart", "", "write an SVG chart of CPU and memory per session against sessions to this file")
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: viva bench %s [flags]\n\n", which)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError("%v", err)
	}
	var dopts bench.DensityOptions
	if which == benchDensity {
		counts, err := parseCounts(*sessions)
		if err != nil {
			return usageError("--sessions: %v", err)
		}
		dopts = bench.DensityOptions{Sessions: counts, Window: *window}
		for _, m := range strings.Split(*modes, ",") {
			switch m = strings.TrimSpace(m); {
			case m == bench.ModeEndToEnd:
				dopts.EndToEnd = true
			case m == bench.ModeInProcess && inProcessDensity != nil:
				dopts.InProcess = inProcessDensity
			default:
				return usageError("--mode %q: choose from %s", m, strings.Join(densityModes(), ", "))
			}
		}
	}
	bin, err := findBenchLiveKit(*lkBin)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary to run the worker: %w", err)
	}
	workDir := *dir
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "viva-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(workDir)
	} else if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	lksdk.SetLogger(worker.SDKLogger(log, ""))
	rigOpts := bench.RigOptions{LiveKitBinary: bin, Worker: self, ProviderLatency: *latency, Dir: workDir, Logger: log}

	switch which {
	case benchLatency:
		l, err := bench.RunLatency(ctx, bench.LatencyOptions{RigOptions: rigOpts, Turns: *turns, Rooms: *rooms})
		if err != nil && l.Turns == 0 {
			return err
		}
		l.Report(stdout)
		if *out != "" {
			if werr := bench.WriteJSON(*out, l); werr != nil {
				return werr
			}
		}
		return err
	default:
		dopts.RigOptions = rigOpts
		d, err := bench.RunDensity(ctx, dopts)
		if err != nil && len(d.Runs) == 0 {
			return err
		}
		d.Report(stdout)
		if *out != "" {
			if werr := bench.WriteJSON(*out, d); werr != nil {
				return werr
			}
		}
		if *chart != "" {
			if werr := os.WriteFile(*chart, bench.Chart(d), 0o644); werr != nil {
				return fmt.Errorf("writing the chart: %w", werr)
			}
		}
		return err
	}
}

// benchUsage is viva bench's help without a subcommand.
const benchUsage = `Usage: viva bench latency|density [flags]

  latency   turn latency and barge-in over a real livekit-server, fake providers and one worker process
  density   the worker process's CPU and memory per interview as bots are added, until the machine saturates

Run 'viva bench latency -h' or 'viva bench density -h' for their flags.`

// densityModes are the density modes this binary offers.
func densityModes() []string {
	if inProcessDensity == nil {
		return []string{bench.ModeEndToEnd}
	}
	return []string{bench.ModeEndToEnd, bench.ModeInProcess}
}

// parseCounts reads a comma-separated list of positive session counts.
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive whole number", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// findBenchLiveKit locates livekit-server as viva dev does, then in the
// working directory's bin.
func findBenchLiveKit(explicit string) (string, error) {
	if p, err := findLiveKit(explicit); err == nil {
		return p, nil
	}
	p, err := filepath.Abs(filepath.Join("bin", "livekit-server"))
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("livekit-server not found: run `make bin/livekit-server` or pass --livekit-server PATH")
}
