package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/bench"
	"github.com/viva-interviews/viva/internal/cli"
)

// liveKitForTest is the repository's livekit-server binary.
func liveKitForTest(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin", "livekit-server"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("bin/livekit-server missing: run `make bin/livekit-server` (%v)", err)
	}
	return bin
}

// TestBenchLatencyShortRun runs viva bench latency for a few turns in one
// room over a real livekit-server, with this test binary as the worker
// process: every turn is counted, answered or not, and the figures and
// their JSON are plausible. No wall-clock target is asserted. The worker's
// default health port is taken, as another program on the machine may
// hold it: the bench's workers take no fixed port.
func TestBenchLatencyShortRun(t *testing.T) {
	const turns = 6
	if l, err := net.Listen("tcp", ":8081"); err == nil { // else something holds it already
		t.Cleanup(func() { l.Close() })
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "latency.json")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := runBenchHere(ctx, []string{"latency", "--turns", "6", "--rooms", "1", "--livekit-server", liveKitForTest(t),
		"--dir", filepath.Join(dir, "run"), "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var l bench.Latency
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	t.Logf("figures:\n%s", stdout.String())
	if l.Turns+l.Unanswered != turns || l.Turns == 0 || l.ResponseMS.N != l.Turns {
		t.Errorf("turns %d + unanswered %d, want %d in all with some answered; %s", l.Turns, l.Unanswered, turns, b)
	}
	if l.ResponseMS.P50 <= 0 || l.EndpointingMS <= 0 {
		t.Errorf("implausible figures: %s", b)
	}
	if !strings.Contains(stdout.String(), "overhead") || !strings.Contains(stdout.String(), "target p95") {
		t.Errorf("the figures are not printed beside their targets:\n%s", stdout.String())
	}
}

// TestBenchDensityShortRun runs viva bench density end to end with two
// sessions and a 10 s window: the worker's CPU and memory are measured.
func TestBenchDensityShortRun(t *testing.T) {
	dir := t.TempDir()
	out, chart := filepath.Join(dir, "density.json"), filepath.Join(dir, "density.svg")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := runBenchHere(ctx, []string{"density", "--sessions", "2", "--window", "10s", "--livekit-server", liveKitForTest(t),
		"--dir", filepath.Join(dir, "run"), "--out", out, "--chart", chart}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var d bench.Density
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	t.Logf("figures:\n%s", stdout.String())
	if len(d.Runs) != 1 {
		t.Fatalf("runs %s", b)
	}
	r := d.Runs[0]
	if r.Mode != bench.ModeEndToEnd || r.Sessions != 2 || r.CPUMSPerSessionS <= 0 || r.RSSMB <= 0 || r.Seconds < 10 || d.SessionsPerCore <= 0 {
		t.Errorf("implausible run: %s", b)
	}
	if svg, err := os.ReadFile(chart); err != nil || !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Errorf("chart: %v %.40q", err, svg)
	}
}

// runBenchHere runs the benchmarks' command line as viva-bench does, with
// this test binary as the worker: it runs viva's command line (TestMain).
func runBenchHere(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		return cli.Exit(stderr, "viva bench", err)
	}
	return cli.Exit(stderr, "viva bench", bench.Main(ctx, args, self, stdout, stderr))
}

// TestBenchUsage: the benchmarks without a name, or with a mode they do
// not have, are usage errors that say what to choose.
func TestBenchUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runBenchHere(context.Background(), nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "latency") {
		t.Errorf("exit %d, want 2; stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := runBenchHere(context.Background(), []string{"density", "--mode", "warp"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), bench.ModeEndToEnd) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestBenchNeedsItsProgram: the viva binary ships without the benchmarks;
// viva bench without viva-bench beside it says how to build it.
func TestBenchNeedsItsProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"bench", "latency"}, strings.NewReader(""), &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "go build -o bin/viva-bench ./cmd/viva-bench") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
