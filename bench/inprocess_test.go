package bench

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunInProcess runs a few interviews for a short window: every
// answer is answered and the figures are filled in. Late frames are
// logged, not checked: on a machine busy with other work the pacing clock
// may be held up.
func TestRunInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs interviews in real time")
	}
	// A window long enough for every session to answer on a machine busy
	// with other tests.
	run, err := RunInProcess(t.Context(), InProcessOptions{Sessions: 3, Warmup: 4 * time.Second, Window: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", run)
	switch {
	case run.Mode != ModeInProcess || run.Sessions != 3:
		t.Errorf("run is %s with %d sessions, want %s with 3", run.Mode, run.Sessions, ModeInProcess)
	case run.Turns < 3:
		t.Errorf("%d turns in the window, want at least one per session", run.Turns)
	case run.UnansweredTurns != 0:
		t.Errorf("%d of %d turns unanswered", run.UnansweredTurns, run.Turns)
	case run.CPUMSPerSessionS <= 0 || run.RSSMB <= 0:
		t.Errorf("CPU %.2f ms/s, RSS %.1f MB: not measured", run.CPUMSPerSessionS, run.RSSMB)
	}
}

// TestInProcessDensity measures the session counts in
// VIVA_BENCH_SESSIONS (comma-separated), for profiling by hand; the
// candidates pause as DTX senders do, or with coded silence when
// VIVA_BENCH_CODED_SILENCE is set:
//
//	VIVA_BENCH_SESSIONS=50,100 go test ./bench -run InProcessDensity -v -cpuprofile cpu.out
func TestInProcessDensity(t *testing.T) {
	list := os.Getenv("VIVA_BENCH_SESSIONS")
	if list == "" {
		t.Skip("set VIVA_BENCH_SESSIONS to run")
	}
	coded := os.Getenv("VIVA_BENCH_CODED_SILENCE") != ""
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		run, err := RunInProcess(t.Context(), InProcessOptions{Sessions: n, CodedSilence: coded})
		if err != nil {
			t.Fatal(err)
		}
		p50 := 0.0
		if run.ResponseMS != nil {
			p50 = run.ResponseMS.P50
		}
		t.Logf("N=%d coded silence=%v: %.2f ms CPU per session-second, %.2f MB RSS per session (%.0f MB), %d late frames, %d/%d turns unanswered, response p50 %.0f ms, machine %.0f%%",
			n, coded, run.CPUMSPerSessionS, run.RSSMBPerSession, run.RSSMB, run.LateFrames, run.UnansweredTurns, run.Turns, p50, 100*run.MachineCPU)
	}
}
