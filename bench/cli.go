package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	vivaworker "github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/internal/lklocal"
)

// The benchmarks Main runs.
const (
	benchLatency = "latency"
	benchDensity = "density"
	benchCompare = "compare"
)

// Main is the command line of the benchmarks ("viva-bench latency|density
// [flags]", which "viva bench" runs): they run over a real livekit-server,
// fake providers and a worker process, worker being the viva binary whose
// "agent" command runs it. Figures are printed on stdout beside their
// targets and written as JSON; help, when asked for, goes to stderr.
func Main(ctx context.Context, args []string, worker string, stdout, stderr io.Writer) error {
	if len(args) == 0 || !slices.Contains([]string{benchLatency, benchDensity, benchCompare}, args[0]) {
		if cli.WantsHelp(args) {
			fmt.Fprintln(stderr, benchUsage)
			return flag.ErrHelp
		}
		return cli.UsageError("say which benchmark: viva bench latency, density or compare (-h for their flags)")
	}
	f, err := parseBenchFlags(args[0], args[1:], stderr)
	if err != nil {
		return err
	}
	bin, err := lklocal.Find(f.lkBin)
	if err != nil {
		return err
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
	lksdk.SetLogger(vivaworker.SDKLogger(log, ""))
	rigOpts := RigOptions{LiveKitBinary: bin, Worker: worker, ProviderLatency: f.latency, Dir: workDir, Logger: log}
	if f.agent == agentAgentsJS || f.which == benchCompare {
		if rigOpts.AgentsJS, err = findAgentsJS(f.agentsJSDir); err != nil {
			return err
		}
	}
	switch f.which {
	case benchLatency:
		return benchLatencyRun(ctx, rigOpts, f, stdout)
	case benchCompare:
		return benchCompareRun(ctx, rigOpts, f, stdout)
	}
	return benchDensityRun(ctx, rigOpts, f, stdout)
}

// benchFlags are the flags of viva bench latency or density.
type benchFlags struct {
	which, lkBin, out, dir string
	agent, agentsJSDir     string
	latency                time.Duration
	verbose                bool
	turns, rooms           int
	density                DensityOptions
	chart                  string
}

// parseBenchFlags parses the flags of viva bench which; help goes to
// stderr (which run points at stdout when help was asked for).
func parseBenchFlags(which string, args []string, stderr io.Writer) (*benchFlags, error) {
	f := &benchFlags{which: which}
	fs := cli.NewFlagSet("viva bench " + which)
	fs.StringVar(&f.lkBin, "livekit-server", "", "path of the livekit-server binary (default: bin/livekit-server next to viva or in the working directory, then $PATH)")
	fs.DurationVar(&f.latency, "provider-latency", 0, "fixed latency of every provider request (recognition, model, speech), such as 200ms")
	fs.StringVar(&f.out, "out", "", "write the figures as JSON to this file")
	fs.StringVar(&f.dir, "dir", "", "directory for the servers' logs and records (default: a temporary directory, removed at the end)")
	fs.BoolVar(&f.verbose, "verbose", false, "log progress on stderr")
	f.agent = agentViva
	if which != benchCompare {
		fs.StringVar(&f.agent, "agent", agentViva, "the worker measured: "+agentViva+", or "+agentAgentsJS+" (LiveKit's agents-js voice pipeline, for comparison; make bench-agentsjs installs it)")
	}
	fs.StringVar(&f.agentsJSDir, "agents-js-dir", defaultAgentsJSDir, "directory of the agents-js worker (agent.mjs and its node_modules)")
	sessions, modes := "5,10,20,40,80", ModeEndToEnd
	switch which {
	case benchCompare:
		sessions = "5,10"
		fs.StringVar(&sessions, "sessions", sessions, "session counts each worker holds at once, one run each")
		fs.DurationVar(&f.density.Window, "window", 30*time.Second, "measured window of each run, after every room has been greeted")
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
			cli.PrintFlags(stderr, "Flags", cli.AllFlags(fs))
			return nil, err
		}
		return nil, cli.FlagError("viva bench "+which, err)
	}
	if f.agent != agentViva && f.agent != agentAgentsJS {
		return nil, cli.UsageError("--agent %q: choose %s or %s", f.agent, agentViva, agentAgentsJS)
	}
	if which == benchLatency {
		return f, nil
	}
	counts, err := parseCounts(sessions)
	if err != nil {
		return nil, cli.UsageError("--sessions: %v", err)
	}
	f.density.Sessions = counts
	if which == benchCompare {
		return f, nil
	}
	for _, m := range strings.Split(modes, ",") {
		switch m = strings.TrimSpace(m); {
		case m == ModeEndToEnd:
			f.density.EndToEnd = true
		case m == ModeInProcess:
			f.density.InProcess = InProcess
		default:
			return nil, cli.UsageError("--mode %q: choose from %s", m, strings.Join(densityModes(), ", "))
		}
	}
	return f, nil
}

// benchLatencyRun runs the latency benchmark and reports it.
func benchLatencyRun(ctx context.Context, rigOpts RigOptions, f *benchFlags, stdout io.Writer) error {
	l, err := RunLatency(ctx, LatencyOptions{RigOptions: rigOpts, Turns: f.turns, Rooms: f.rooms})
	if err != nil && l.Turns == 0 {
		return err
	}
	l.Report(stdout)
	if f.out != "" {
		if werr := WriteJSON(f.out, l); werr != nil {
			return werr
		}
	}
	return err
}

// benchDensityRun runs the density benchmark and reports it.
func benchDensityRun(ctx context.Context, rigOpts RigOptions, f *benchFlags, stdout io.Writer) error {
	dopts := f.density
	dopts.RigOptions = rigOpts
	d, err := RunDensity(ctx, dopts)
	if err != nil && len(d.Runs) == 0 {
		return err
	}
	d.Report(stdout)
	if f.out != "" {
		if werr := WriteJSON(f.out, d); werr != nil {
			return werr
		}
	}
	if f.chart != "" {
		if werr := os.WriteFile(f.chart, Chart(d), 0o644); werr != nil {
			return fmt.Errorf("writing the chart: %w", werr)
		}
	}
	return err
}

// benchCompareRun runs the comparison with agents-js and reports it.
func benchCompareRun(ctx context.Context, rigOpts RigOptions, f *benchFlags, stdout io.Writer) error {
	c, err := RunCompare(ctx, CompareOptions{RigOptions: rigOpts, Sessions: f.density.Sessions, Window: f.density.Window})
	if err != nil && len(c.Runs) == 0 {
		return err
	}
	c.Report(stdout)
	if f.out != "" {
		if werr := WriteJSON(f.out, c); werr != nil {
			return werr
		}
	}
	return err
}

// benchUsage is viva bench's help without a subcommand.
const benchUsage = `Usage: viva bench latency|density|compare [flags]

  latency   turn latency and barge-in over a real livekit-server, fake providers and one worker process
  density   the worker process's CPU and memory per interview as bots are added, until the machine saturates
  compare   viva's worker and LiveKit's agents-js holding the same interviews, one after the other

Run 'viva bench latency -h' (or density, compare) for their flags.`

// densityModes are the density modes Main offers.
func densityModes() []string { return []string{ModeEndToEnd, ModeInProcess} }

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
