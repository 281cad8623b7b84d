package bench

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareFlags: viva bench compare takes session counts and a window,
// and the other benchmarks choose their worker with --agent.
func TestCompareFlags(t *testing.T) {
	f, err := parseBenchFlags(benchCompare, []string{"--sessions", "10,5", "--window", "12s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.density.Sessions; len(got) != 2 || got[0] != 5 || got[1] != 10 || f.density.Window.Seconds() != 12 {
		t.Errorf("sessions %v window %v", got, f.density.Window)
	}
	if _, err := parseBenchFlags(benchCompare, []string{"--agent", "viva"}, io.Discard); err == nil {
		t.Error("compare accepted --agent: it always measures both")
	}
	f, err = parseBenchFlags(benchLatency, []string{"--agent", "agents-js"}, io.Discard)
	if err != nil || f.agent != agentAgentsJS {
		t.Errorf("latency --agent agents-js: %+v %v", f, err)
	}
	_, err = parseBenchFlags(benchDensity, []string{"--agent", "pipecat"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "choose viva or agents-js") {
		t.Errorf("an unknown worker: %v", err)
	}
}

// TestFindAgentsJS says what to do when the agents-js worker is missing or
// not installed.
func TestFindAgentsJS(t *testing.T) {
	dir := t.TempDir()
	if _, err := findAgentsJS(dir); err == nil || !strings.Contains(err.Error(), "agent.mjs") {
		t.Errorf("no agent.mjs: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.mjs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := findAgentsJS(dir); err == nil || !strings.Contains(err.Error(), "make bench-agentsjs") {
		t.Errorf("not installed: %v", err)
	}
	// The checkout's own worker is where the default flag points.
	if _, err := os.Stat(filepath.Join(defaultAgentsJSDir[len("bench/"):], "agent.mjs")); err != nil {
		t.Errorf("bench/agentsjs/agent.mjs: %v", err)
	}
}

// TestCompareReportsFailedRuns: a run that could not be measured is
// reported as such, with its reason, beside the measured ones.
func TestCompareReportsFailedRuns(t *testing.T) {
	c := Comparison{Runs: []ComparedRun{
		{Agent: agentViva, DensityRun: DensityRun{Mode: ModeEndToEnd, Sessions: 10, Turns: 25, CPUMSPerSessionS: 14.8}},
		{Agent: agentAgentsJS, Failed: "bench: no greeting", DensityRun: DensityRun{Mode: ModeEndToEnd, Sessions: 10}},
	}}
	var b strings.Builder
	c.Report(&b)
	if !strings.Contains(b.String(), "25/25") || !strings.Contains(b.String(), "not measured: bench: no greeting") {
		t.Errorf("report:\n%s", b.String())
	}
}
