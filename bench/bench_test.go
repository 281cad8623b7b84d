package bench

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viva-interviews/viva/testrig/candidatebot"
)

// keys returns the sorted keys of a JSON object.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(m))
}

// TestJSONShape: the figures' JSON has the fields the issue names.
func TestJSONShape(t *testing.T) {
	l := Latency{OverheadMS: Summarize([]float64{1, 2, 3}), Turns: 3}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	got := keys(t, b)
	for _, want := range []string{"overhead_ms", "barge_in_ms", "response_ms", "turns"} {
		if !slices.Contains(got, want) {
			t.Errorf("latency JSON lacks %s: %s", want, b)
		}
	}
	var l2 struct {
		Overhead map[string]float64 `json:"overhead_ms"`
	}
	_ = json.Unmarshal(b, &l2)
	for _, p := range []string{"p50", "p95", "p99"} {
		if _, ok := l2.Overhead[p]; !ok {
			t.Errorf("overhead_ms lacks %s: %s", p, b)
		}
	}

	d := Density{Runs: []DensityRun{{Mode: ModeEndToEnd, Sessions: 20, CPUMSPerSessionS: 25}}}
	d.SessionsPerCore = d.SessionsPerCoreAt(sessionsPerCoreAt)
	b, err = json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(t, b); !slices.Equal(got, []string{"runs", "sessions_per_core"}) {
		t.Errorf("density keys %v", got)
	}
	var runs struct{ Runs []json.RawMessage }
	_ = json.Unmarshal(b, &runs)
	got = keys(t, runs.Runs[0])
	for _, want := range []string{"mode", "sessions", "cpu_ms_per_session_s", "rss_mb_per_session", "late_frames", "unanswered_turns"} {
		if !slices.Contains(got, want) {
			t.Errorf("run JSON lacks %s: %s", want, runs.Runs[0])
		}
	}
	if d.SessionsPerCore != 40 {
		t.Errorf("sessions per core %v, want 1000/25", d.SessionsPerCore)
	}
}

// TestChartIsSVG: the chart is well-formed SVG with a series per mode
// and a point per run.
func TestChartIsSVG(t *testing.T) {
	d := Density{Runs: []DensityRun{
		{Mode: ModeEndToEnd, Sessions: 5, CPUMSPerSessionS: 30, RSSMBPerSession: 2},
		{Mode: ModeEndToEnd, Sessions: 10, CPUMSPerSessionS: 25, RSSMBPerSession: 1.5},
		{Mode: ModeInProcess, Sessions: 50, CPUMSPerSessionS: 5, RSSMBPerSession: 0.5},
		{Mode: ModeInProcess, Sessions: 400, CPUMSPerSessionS: 4, RSSMBPerSession: 0.4},
	}}
	svg := Chart(d)
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	counts := map[string]int{}
	var root string
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			counts[se.Name.Local]++
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q", root)
	}
	// Two panels, each with a polyline per mode and a point per run.
	if counts["polyline"] != 4 || counts["circle"] != 8 {
		t.Errorf("polylines %d, circles %d; want 4 and 8", counts["polyline"], counts["circle"])
	}
	for _, want := range []string{"CPU ms per session-second", "RSS MB per session", ModeEndToEnd, ModeInProcess} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if empty := Chart(Density{}); !strings.HasPrefix(string(empty), "<svg") {
		t.Errorf("empty chart %q", empty)
	}
}

// TestProcessTreeCounts: a worker's CPU time and memory include the
// processes it started (agents-js runs each interview in its own).
func TestProcessTreeCounts(t *testing.T) {
	sh := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & wait")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL); _ = sh.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		tree, err := processTree(sh.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		own, err := readProc(sh.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		cpu, err := processCPU(sh.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		// The outer shell only waits; the busy child's time is the tree's.
		if len(tree) >= 2 && cpu >= 100*time.Millisecond && cpu > own.cpu {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tree %+v, cpu %v: the busy child is not counted", tree, cpu)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rss, err := processRSSBytes(sh.Process.Pid)
	if err != nil || rss <= 0 {
		t.Errorf("tree rss %v %v", rss, err)
	}
}

func TestProcParsers(t *testing.T) {
	p, err := parseStat(1234, []byte("1234 (viva agent) S 77 2 3 4 5 6 7 8 9 10 250 150 30 20 20 0 12 0"))
	if err != nil || p.cpu != 4500*time.Millisecond || p.ppid != 77 {
		t.Errorf("proc %+v %v, want parent 77 and 4.5s (450 ticks, waited-for children included)", p, err)
	}
	rss, err := parseVmRSS([]byte("Name:\tviva\nVmPeak:\t  9000 kB\nVmRSS:\t  2048 kB\n"))
	if err != nil || rss != 2048<<10 {
		t.Errorf("rss %v %v", rss, err)
	}
	m0, err := parseMachineTimes([]byte("cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	m1, _ := parseMachineTimes([]byte("cpu  200 0 200 800 100 0 0 0 0 0\n"))
	if got := busyFraction(m0, m1); got < 0.66 || got > 0.67 {
		t.Errorf("busy %v, want 2/3", got)
	}
	// This process's own figures are readable.
	if rss, err := processRSSBytes(os.Getpid()); err != nil || rss <= 0 {
		t.Errorf("own rss %v %v", rss, err)
	}
	if _, err := processCPU(os.Getpid()); err != nil {
		t.Error(err)
	}
	if _, err := readMachineTimes(); err != nil {
		t.Error(err)
	}
}

// TestTurnMeasures: the reply is the first voiced span from the end of
// speech; the barge-in silence is the end of the run of agent speech that
// held the candidate's onset.
func TestTurnMeasures(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	spans := []candidatebot.VoicedSpan{
		{Start: at(0), End: at(1000)},
		{Start: at(1400), End: at(2600)}, // a pause between sentences
		{Start: at(5000), End: at(6000)}, // the next reply
	}
	if s, ok := firstSpanFrom(spans, at(3000)); !ok || !s.Equal(at(5000)) {
		t.Errorf("reply %v %v", s.Sub(t0), ok)
	}
	if _, ok := firstSpanFrom(spans, at(6500)); ok {
		t.Error("a reply after the last span")
	}
	if s, ok := silencedAt(spans, at(1800), at(4000)); !ok || !s.Equal(at(2600)) {
		t.Errorf("silenced %v %v, want 2.6 s", s.Sub(t0), ok)
	}
	if _, ok := silencedAt(spans, at(1800), at(2000)); ok {
		t.Error("silence decided before the agent stopped")
	}
	if _, ok := silencedAt(spans, at(3000), at(4000)); ok {
		t.Error("an onset after the agent stopped counts as a barge-in")
	}
}

func TestNewUtterance(t *testing.T) {
	pcm := make([]int16, 16000)     // 1 s
	for i := 3200; i < 12800; i++ { // voiced from 200 ms to 800 ms
		pcm[i] = int16(3000 * (1 - 2*(i%2)))
	}
	u, err := newUtterance(pcm)
	if err != nil {
		t.Fatal(err)
	}
	if u.lead != 200*time.Millisecond || u.trail != 200*time.Millisecond || u.speech() != 600*time.Millisecond {
		t.Errorf("lead %v trail %v speech %v", u.lead, u.trail, u.speech())
	}
	if _, err := newUtterance(make([]int16, 1600)); err == nil {
		t.Error("silence is no utterance")
	}
}
