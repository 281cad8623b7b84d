package main

import (
	"context"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/internal/cli"
)

// TestWorkerBinary: the worker is the viva binary viva names; alone, with
// no viva beside it, viva-bench says how to give it one.
func TestWorkerBinary(t *testing.T) {
	env := map[string]string{cli.BenchWorkerEnv: "/opt/viva/bin/viva"}
	if got, err := workerBinary(func(k string) string { return env[k] }); err != nil || got != "/opt/viva/bin/viva" {
		t.Errorf("worker from %s: %q, %v", cli.BenchWorkerEnv, got, err)
	}
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"latency"}, func(string) string { return "" }, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no viva binary to run the worker") || !strings.Contains(stderr.String(), cli.BenchWorkerEnv) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestHelpOnStdout: asked for, the benchmarks' help goes to stdout.
func TestHelpOnStdout(t *testing.T) {
	var stdout, stderr strings.Builder
	getenv := func(string) string { return "viva" }
	if code := run(context.Background(), []string{"density", "-h"}, getenv, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "--sessions") || stderr.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
