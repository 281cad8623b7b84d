package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/viva-interviews/viva/internal/cli"
)

// benchBinary is the benchmarks' own program, which "viva bench" runs.
const benchBinary = "viva-bench"

// runBench is "viva bench latency|density|compare": it runs viva-bench (found next
// to this binary, then on $PATH) with this binary as the worker it
// measures. The benchmarks live in a program of their own because they
// need a fake OpenAI server and candidate bots, test rigs that the viva
// binary does not link.
func runBench(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary to run the worker: %w", err)
	}
	bin := filepath.Join(filepath.Dir(self), benchBinary)
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath(benchBinary); err != nil {
			return errors.New("viva bench runs viva-bench, the benchmarks' own program (the viva binary ships without their fake providers and bots), and there is none next to viva or on $PATH: build it with make build (bin/viva-bench) or go build -o bin/viva-bench ./cmd/viva-bench")
		}
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(), cli.BenchWorkerEnv+"="+self)
	// Ctrl-C reaches viva-bench too; a stop from elsewhere asks it to
	// stop its servers and bots as an interrupt does.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return cli.ExitCode(exit.ExitCode())
	}
	return err
}
