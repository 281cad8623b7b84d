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
	f, err := parseBenchFlags(args[0], args[1:], stderr)
	if err != nil {
		return err
	}
	bin, err := findBenchLiveKit(f.lkBin)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary to run the worker: %w", err)
	}
	workDir := f.dir
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "viva-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(workDir)
	} else if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	lksdk.SetLogger(worker.SDKLogger(log, ""))
	rigOpts := bench.RigOptions{LiveKitBinary: bin, Worker: self, ProviderLatency: f.latency, Dir: workDir, Logger: log}
	if f.which == benchLatency {
		return benchLatencyRun(ctx, rigOpts, f, stdout)
	}
	return benchDensityRun(ctx, rigOpts, f, stdout)
}

// benchFlags are the flags of viva bench latency or density.
type benchFlags struct {
	which, lkBin, out, dir string
	latency                time.Duration
	verbose                bool
	turns, rooms           int
	density                bench.DensityOptions
	chart                  string
}

// parseBenchFlags parses the flags of viva bench which; help goes to
// stderr (which run points at stdout when help was asked for).
func parseBenchFlags(which string, args []string, stderr io.Writer) (*benchFlags, error) {
	f := &benchFlags{which: which}
	fs := newFlagSet("bench " + which)
	fs.StringVar(&f.lkBin, "livekit-server", "", "path of the livekit-server binary (default: bin/livekit-server next to viva or in the working directory, then $PATH)")
	fs.DurationVar(&f.latency, "provider-latency", 0, "fixed latency of every provider request (recognition, model, speech), such as 200ms")
	fs.StringVar(&f.out, "out", "", "write the figures as JSON to this file")
	fs.StringVar(&f.dir, "dir", "", "directory for the servers' logs and records (default: a temporary directory, removed at the end)")
	fs.BoolVar(&f.verbose, "verbose", false, "log progress on stderr")
	sessions, modes := "5,10,20,40,80", bench.ModeEndToEnd
	switch which {
	case benchLatency:
		fs.IntVar(&f.turns, "turns", 50, "candidate turns to measure in all")
		fs.IntVar(&f.rooms, "rooms", 5, "interviews held at once")
	case benchDensity:
		fs.StringVar(&sessions, "sessions", sessions, "end-to-end session counts to climb through, until the machine saturates")
		fs.DurationVar(&f.density.Window, "window", 20*time.Second, "measured window of each run, after every room has been greeted")
		fs.StringVar(&modes, "mode", modes, "comma-separated modes: "+strings.Join(densityModes(), ", "))
		fs.StringVar(&f.chart, "chart", "", "write an SVG chart of CPU and memory per session against sessions to this file")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "Usage: viva bench %s [flags]\n", which)
			printGroup(stderr, "Flags", sortedFlags(fs))
			return nil, err
		}
		return nil, flagError("bench "+which, err)
	}
	if which != benchDensity {
		return f, nil
	}
	counts, err := parseCounts(sessions)
	if err != nil {
		return nil, usageError("--sessions: %v", err)
	}
	f.density.Sessions = counts
	for _, m := range strings.Split(modes, ",") {
		switch m = strings.TrimSpace(m); {
		case m == bench.ModeEndToEnd:
			f.density.EndToEnd = true
		case m == bench.ModeInProcess && inProcessDensity != nil:
			f.density.InProcess = inProcessDensity
		default:
			return nil, usageError("--mode %q: choose from %s", m, strings.Join(densityModes(), ", "))
		}
	}
	return f, nil
}

// benchLatencyRun runs the latency benchmark and reports it.
func benchLatencyRun(ctx context.Context, rigOpts bench.RigOptions, f *benchFlags, stdout io.Writer) error {
	l, err := bench.RunLatency(ctx, bench.LatencyOptions{RigOptions: rigOpts, Turns: f.turns, Rooms: f.rooms})
	if err != nil && l.Turns == 0 {
		return err
	}
	l.Report(stdout)
	if f.out != "" {
		if werr := bench.WriteJSON(f.out, l); werr != nil {
			return werr
		}
	}
	return err
}

// benchDensityRun runs the density benchmark and reports it.
func benchDensityRun(ctx context.Context, rigOpts bench.RigOptions, f *benchFlags, stdout io.Writer) error {
	dopts := f.density
	dopts.RigOptions = rigOpts
	d, err := bench.RunDensity(ctx, dopts)
	if err != nil && len(d.Runs) == 0 {
		return err
	}
	d.Report(stdout)
	if f.out != "" {
		if werr := bench.WriteJSON(f.out, d); werr != nil {
			return werr
		}
	}
	if f.chart != "" {
		if werr := os.WriteFile(f.chart, bench.Chart(d), 0o644); werr != nil {
			return fmt.Errorf("writing the chart: %w", werr)
		}
	}
	return err
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

// sortedFlags are the flags of fs in name order.
func sortedFlags(fs *flag.FlagSet) []*flag.Flag {
	var out []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	return out
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
