// Command viva-bench runs viva's benchmarks over a real livekit-server:
//
//	viva-bench latency   turn latency and barge-in, measured at the candidate
//	viva-bench density   the worker's CPU and memory per interview as bots are added
//
// "viva bench" runs it. It is a binary of its own because the benchmarks
// need a fake OpenAI server and candidate bots (testrig/fakeopenai,
// testrig/candidatebot), and the viva binary that is shipped links no
// test rig. The worker it measures is a viva binary: the one named by
// VIVA_BENCH_WORKER (viva sets it to itself), else viva next to this
// program.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/viva-interviews/viva/bench"
	"github.com/viva-interviews/viva/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run runs the benchmark args name and returns the exit code; help asked
// for goes to stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	helpOut := stderr
	if cli.WantsHelp(args) {
		helpOut = stdout
	}
	worker, err := workerBinary(getenv)
	if err == nil {
		err = bench.Main(ctx, args, worker, stdout, helpOut)
	}
	return cli.Exit(stderr, "viva bench", err)
}

// workerBinary is the viva binary that runs the measured worker.
func workerBinary(getenv func(string) string) (string, error) {
	if p := getenv(cli.BenchWorkerEnv); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "viva")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no viva binary to run the worker: put viva-bench next to viva (make build writes both to bin/), run it as viva bench, or set " + cli.BenchWorkerEnv + " to viva's path")
}
