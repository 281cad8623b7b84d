// Package bench holds what viva's benchmarks measure and report: the
// latency of a turn over a real LiveKit server (viva bench latency) and the
// cost of each interview a worker holds (viva bench density), as figures
// printed for people and JSON for machines. The runners that produce them
// live beside these types, and Main is their command line, which the
// viva-bench program runs ("viva bench" runs viva-bench): the benchmarks
// need the fake providers and candidate bots of testrig/, which the viva
// binary does not link.
package bench

import (
	"cmp"
	"math"
	"slices"
)

// Targets are the figures viva is held to. A benchmark prints each beside
// its measure and says whether it is met.
const (
	// TargetOverheadP95MS bounds the agent's own share of a turn at p95:
	// end of speech to first agent audio, minus endpointing and the
	// providers' latencies.
	TargetOverheadP95MS = 30
	// TargetBargeInP95MS bounds the time from the candidate's interrupting
	// speech (past the interrupt threshold) to the agent's audio stopping.
	TargetBargeInP95MS = 150
	// TargetCPUMSPerSessionS is the CPU a worker may spend per interview
	// per second: 10 ms, that is 100 interviews per core.
	TargetCPUMSPerSessionS = 10
	// TargetRSSMBPerSession bounds the memory each added interview costs.
	TargetRSSMBPerSession = 3
)

// Modes of a density run.
const (
	// ModeEndToEnd runs candidate bots against a real livekit-server and a
	// worker process; the worker's own CPU and memory are measured.
	ModeEndToEnd = "end_to_end"
	// ModeInProcess runs the session pipeline without WebRTC (opus decode,
	// VAD, endpointing, conductor, TTS, opus encode, pacing) on recorded
	// audio, to measure viva's own cost past what bots can drive.
	ModeInProcess = "in_process"
)

// Percentiles summarise a sample of durations in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	// N is the sample's size.
	N int `json:"n"`
}

// Summarize returns the 50th, 95th and 99th percentiles of ms (nearest
// rank); the zero value for an empty sample.
func Summarize(ms []float64) Percentiles {
	if len(ms) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(ms)
	slices.SortFunc(s, cmp.Compare[float64])
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Percentiles{P50: rank(50), P95: rank(95), P99: rank(99), N: len(s)}
}

// Latency is what viva bench latency measures, as its JSON says.
type Latency struct {
	// OverheadMS is the agent's own share of each turn: end of candidate
	// speech → arrival at the bot of the first voiced packet of the reply,
	// minus the endpointing delay and the providers' injected latencies.
	OverheadMS Percentiles `json:"overhead_ms"`
	// OverheadBufferedMS is the same to that packet's leaving a jitter
	// buffer like a LiveKit client's: what a client that buffers hears.
	OverheadBufferedMS Percentiles `json:"overhead_buffered_ms"`
	// Split is where the overhead goes: the way in, the worker, the hop to
	// the bot and the client's buffer.
	Split LatencySplit `json:"split"`
	// BargeInMS is the candidate's speech onset (past the interrupt
	// threshold) → agent audio silent at the bot.
	BargeInMS Percentiles `json:"barge_in_ms"`
	// ResponseMS is end of candidate speech → arrival of the reply's first
	// voiced packet, whole.
	ResponseMS Percentiles `json:"response_ms"`
	// Turns is how many answered turns were measured.
	Turns int `json:"turns"`
	// Unanswered counts candidate turns that got no reply.
	Unanswered int `json:"unanswered"`
	// BargeInMissed counts the replies the bot talked over that went on
	// playing to the end of its utterance (not in BargeInMS).
	BargeInMissed int `json:"barge_in_missed"`
	// EndpointingMS and ProviderMS are what was subtracted from each turn.
	EndpointingMS float64 `json:"endpointing_ms"`
	ProviderMS    float64 `json:"provider_ms"`
	// ModelCallsPerTurn is the interviewer model's requests (answer
	// analysis aside) per answered turn: each one adds the model's time to
	// first token to the candidate's wait.
	ModelCallsPerTurn float64 `json:"model_calls_per_turn"`
}

// DensityRun is one density measurement: N interviews held at once.
type DensityRun struct {
	// Mode is ModeEndToEnd or ModeInProcess.
	Mode string `json:"mode"`
	// Sessions is how many interviews ran at once.
	Sessions int `json:"sessions"`
	// Seconds is how long the measured window lasted.
	Seconds float64 `json:"seconds"`
	// CPUMSPerSessionS is the worker process's CPU (user + system) per
	// interview per second of the window, in milliseconds.
	CPUMSPerSessionS float64 `json:"cpu_ms_per_session_s"`
	// RSSMBPerSession is the worker's resident memory per interview: the
	// growth over an idle worker, divided by Sessions.
	RSSMBPerSession float64 `json:"rss_mb_per_session"`
	// RSSMB is the worker's resident memory at the end of the window.
	RSSMB float64 `json:"rss_mb"`
	// LateFrames counts agent audio frames that left later than their
	// playout time (a pacing miss the candidate would hear as a gap).
	LateFrames int `json:"late_frames"`
	// Turns and UnansweredTurns count the candidate turns in the window
	// and those that got no reply.
	Turns           int `json:"turns"`
	UnansweredTurns int `json:"unanswered_turns"`
	// ResponseMS is end of speech → first agent audio over the window's
	// turns (end to end only).
	ResponseMS *Percentiles `json:"response_ms,omitempty"`
	// MachineCPU is the whole machine's busy fraction (0–1) during the
	// window: near 1, the figures measure the machine, not the worker.
	MachineCPU float64 `json:"machine_cpu"`
}

// Density is what viva bench density measures, as its JSON says.
type Density struct {
	// Runs are the measurements, in the order they ran.
	Runs []DensityRun `json:"runs"`
	// SessionsPerCore is 1000 / CPUMSPerSessionS of the end-to-end run
	// with 20 sessions (the nearest end-to-end run when there is none).
	SessionsPerCore float64 `json:"sessions_per_core"`
}

// SessionsPerCoreAt returns 1000 / CPUMSPerSessionS of the end-to-end run
// whose session count is nearest to n, or 0 without one.
func (d *Density) SessionsPerCoreAt(n int) float64 {
	var best *DensityRun
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Mode != ModeEndToEnd || r.CPUMSPerSessionS <= 0 {
			continue
		}
		if best == nil || abs(r.Sessions-n) < abs(best.Sessions-n) {
			best = r
		}
	}
	if best == nil {
		return 0
	}
	return 1000 / best.CPUMSPerSessionS
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
