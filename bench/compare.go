package bench

import (
	"context"
	"fmt"
	"io"
	"time"
)

// ComparedRun is one density run of one worker in a comparison.
type ComparedRun struct {
	// Agent is the worker measured: "viva" or "agents-js".
	Agent string `json:"agent"`
	// Failed says why the run could not be measured (a room never
	// greeted, say); the worker's climb ends there.
	Failed string `json:"failed,omitempty"`
	DensityRun
}

// Comparison is what viva bench compare measures, as its JSON says: the
// same session counts held by viva's worker and by LiveKit's agents-js,
// one after the other, over one livekit-server with the same bots and the
// same fake providers.
type Comparison struct {
	Runs []ComparedRun `json:"runs"`
}

// CompareOptions configure RunCompare.
type CompareOptions struct {
	// RigOptions.AgentsJS must name the agents-js worker's directory.
	RigOptions
	// Sessions are the session counts each worker holds, ascending.
	Sessions []int
	// Window is how long each run is measured.
	Window time.Duration
}

// RunCompare holds each of opts.Sessions interviews at once with viva's
// worker, then with agents-js's, each run on a fresh worker process, and
// measures both as viva bench density does (the worker's processes' CPU
// and memory, late frames, unanswered turns, response times). Unlike
// density it does not stop at the first unanswered turn: how a worker
// fails under load is what is compared. A run that fails outright (the
// worker never greets, say) ends that worker's climb.
func RunCompare(ctx context.Context, opts CompareOptions) (Comparison, error) {
	var c Comparison
	if opts.AgentsJS == "" || opts.Window <= 0 {
		return c, fmt.Errorf("bench: compare needs the agents-js worker's directory and a measured window")
	}
	agentsJS := opts.AgentsJS
	opts.AgentsJS = ""
	r, err := startRig(ctx, opts.RigOptions)
	if err != nil {
		return c, err
	}
	defer r.close()
	for _, agent := range []string{agentViva, agentAgentsJS} {
		r.opts.AgentsJS = ""
		if agent == agentAgentsJS {
			r.opts.AgentsJS = agentsJS
		}
		for _, n := range opts.Sessions {
			run, err := densityRun(ctx, r, n, opts.Window)
			if ctx.Err() != nil {
				return c, ctx.Err()
			}
			if err != nil {
				r.log.Warn("compare run failed", "agent", agent, "sessions", n, "err", err)
				c.Runs = append(c.Runs, ComparedRun{Agent: agent, Failed: err.Error(), DensityRun: DensityRun{Mode: ModeEndToEnd, Sessions: n}})
				break
			}
			c.Runs = append(c.Runs, ComparedRun{Agent: agent, DensityRun: run})
			r.log.Info("compare run", "agent", agent, "sessions", n, "cpu_ms_per_session_s", run.CPUMSPerSessionS,
				"unanswered", run.UnansweredTurns)
		}
	}
	return c, nil
}

// Report prints the comparison, a line per worker and session count.
func (c Comparison) Report(w io.Writer) {
	fmt.Fprintf(w, "compare: %-9s %8s %9s %13s %13s %14s %12s %6s %8s\n",
		"worker", "sessions", "answered", "response p50", "response p95", "cores/session", "RSS MB/ses", "late", "machine")
	for _, r := range c.Runs {
		if r.Failed != "" {
			fmt.Fprintf(w, "         %-9s %8d   not measured: %s\n", r.Agent, r.Sessions, r.Failed)
			continue
		}
		p50, p95 := 0.0, 0.0
		if r.ResponseMS != nil {
			p50, p95 = r.ResponseMS.P50, r.ResponseMS.P95
		}
		fmt.Fprintf(w, "         %-9s %8d %4d/%-4d %10.0f ms %10.0f ms %14.4f %12.1f %6d %7.0f%%\n",
			r.Agent, r.Sessions, r.Turns-r.UnansweredTurns, r.Turns, p50, p95,
			r.CPUMSPerSessionS/1000, r.RSSMBPerSession, r.LateFrames, 100*r.MachineCPU)
	}
	fmt.Fprintln(w, "  (each worker at its own defaults; response = end of the bot's voice → the reply's first voiced audio at the bot)")
}
