package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/viva-interviews/viva/testrig/candidatebot"
)

// verdict says whether a figure meets its target.
func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

// Report prints the latency figures beside their targets.
func (l Latency) Report(w io.Writer) {
	fmt.Fprintf(w, "turn latency: %d answered turns, %d unanswered (endpointing %.0f ms and provider latency %.0f ms subtracted)\n",
		l.Turns, l.Unanswered, l.EndpointingMS, l.ProviderMS)
	fmt.Fprintf(w, "  response  p50 %6.0f  p95 %6.0f  p99 %6.0f ms\n", l.ResponseMS.P50, l.ResponseMS.P95, l.ResponseMS.P99)
	fmt.Fprintf(w, "  overhead  p50 %6.0f  p95 %6.0f  p99 %6.0f ms   target p95 < %d ms: %s\n",
		l.OverheadMS.P50, l.OverheadMS.P95, l.OverheadMS.P99, TargetOverheadP95MS, verdict(l.OverheadMS.N > 0 && l.OverheadMS.P95 < TargetOverheadP95MS))
	fmt.Fprintf(w, "  overhead after a client's %d ms jitter buffer  p50 %6.0f  p95 %6.0f  p99 %6.0f ms\n",
		candidatebot.ClientJitterWait.Milliseconds(), l.OverheadBufferedMS.P50, l.OverheadBufferedMS.P95, l.OverheadBufferedMS.P99)
	l.Split.report(w)
	fmt.Fprintf(w, "  barge-in  p50 %6.0f  p95 %6.0f  p99 %6.0f ms   target p95 < %d ms: %s (%d interruptions, %d not heeded)\n",
		l.BargeInMS.P50, l.BargeInMS.P95, l.BargeInMS.P99, TargetBargeInP95MS,
		verdict(l.BargeInMS.N > 0 && l.BargeInMS.P95 < TargetBargeInP95MS && l.BargeInMissed == 0), l.BargeInMS.N, l.BargeInMissed)
	fmt.Fprintf(w, "  model calls per answered turn %.2f (each adds the model's time to first token)\n", l.ModelCallsPerTurn)
	if l.Turns < minTurnsForPercentiles {
		fmt.Fprintf(w, "  (fewer than %d turns: the percentiles are indicative only)\n", minTurnsForPercentiles)
	}
}

// report prints the split, one line a part.
func (s LatencySplit) report(w io.Writer) {
	fmt.Fprintf(w, "  split over %d turns found in the worker's records:\n", s.Matched)
	for _, p := range []struct {
		name string
		v    Percentiles
	}{
		{"way in (bot's end of voice → worker's)", s.UpstreamMS},
		{"worker (its end of voice → first frame written)", s.WorkerMS},
		{"  of which end of turn decided late", s.DecideMS},
		{"hop (written → packet at the bot)", s.HopMS},
		{"client (packet → out of a jitter buffer)", s.ClientMS},
	} {
		fmt.Fprintf(w, "    %-50s p50 %6.0f  p95 %6.0f  p99 %6.0f ms\n", p.name, p.v.P50, p.v.P95, p.v.P99)
	}
}

// minTurnsForPercentiles is the sample the issue asks p95 and p99 over.
const minTurnsForPercentiles = 50

// Report prints the density runs and the sessions per core beside their
// targets.
func (d Density) Report(w io.Writer) {
	fmt.Fprintf(w, "density: %-10s %8s %12s %10s %8s %6s %10s %8s %8s\n",
		"mode", "sessions", "cpu ms/s/ses", "rss MB/ses", "rss MB", "late", "unanswered", "turns", "machine")
	for _, r := range d.Runs {
		fmt.Fprintf(w, "         %-10s %8d %12.2f %10.2f %8.0f %6d %10d %8d %7.0f%%\n",
			r.Mode, r.Sessions, r.CPUMSPerSessionS, r.RSSMBPerSession, r.RSSMB, r.LateFrames, r.UnansweredTurns, r.Turns, 100*r.MachineCPU)
	}
	fmt.Fprintf(w, "  sessions per core (end to end, nearest 20 sessions): %.1f   target >= %d: %s\n",
		d.SessionsPerCore, 1000/TargetCPUMSPerSessionS, verdict(d.SessionsPerCore >= 1000/TargetCPUMSPerSessionS))
	worstRSS, clean := 0.0, true
	for _, r := range d.Runs {
		worstRSS = max(worstRSS, r.RSSMBPerSession)
		if r.Mode == ModeEndToEnd && (r.LateFrames > 0 || r.UnansweredTurns > 0) {
			clean = false
		}
	}
	fmt.Fprintf(w, "  RSS per session, worst run: %.2f MB   target <= %d MB: %s\n", worstRSS, TargetRSSMBPerSession, verdict(worstRSS <= TargetRSSMBPerSession))
	fmt.Fprintf(w, "  every turn answered, no late frames (end to end): %s\n", verdict(clean))
}

// WriteJSON writes v, indented, to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("bench: write the figures: %w", err)
	}
	return nil
}
