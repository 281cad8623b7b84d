package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/testrig/candidatebot"
)

const (
	// bargeInEvery is how often the bot talks over the agent's reply
	// instead of waiting for it to end: every third turn.
	bargeInEvery = 3
	// bargeInAfter is how much of the reply the bot hears before talking
	// over it: past the cut-off window, within which the agent takes the
	// candidate's voice as going on with their answer and stops at once,
	// so the figure measures a barge-in, not a cut-off.
	bargeInAfter = agent.DefaultCutOffWindow + 500*time.Millisecond
	// InterruptThreshold is the worker's barge-in setting in the
	// benchmarks (the product's default); the barge-in figure is counted
	// from the candidate's onset plus it.
	InterruptThreshold = config.DefaultInterruptThreshold
	// providerCallsPerTurn are the provider requests on a turn's path:
	// recognition, the model's first token, the first speech bytes.
	providerCallsPerTurn = 3
)

// LatencyOptions configure RunLatency.
type LatencyOptions struct {
	RigOptions
	// Turns is how many candidate turns to measure in all, spread over
	// Rooms interviews held at once.
	Turns, Rooms int
}

// RunLatency measures turn latency and barge-in over a real livekit-server
// with one worker process: each room's bot answers every reply of the
// agent with the same spoken sentence, and every third time talks over
// the reply instead of waiting for its end.
//
// A turn's response is the time from the end of the bot's voice (the last
// voiced 20 ms frame of its utterance leaving its microphone) to the
// arrival at the bot of the first voiced frame of the agent's reply. The
// overhead is the response minus the endpointing delay after a finished
// sentence (FinishedEndpointing) and the provider latencies injected on
// the turn's path (three requests: recognition, model, speech). The
// barge-in figure is, for each reply the bot talked over, the arrival of
// the agent's last voiced frame before it fell silent (no voice for
// 700 ms) minus the onset of the bot's voice and InterruptThreshold.
func RunLatency(ctx context.Context, opts LatencyOptions) (Latency, error) {
	if opts.Turns < 1 || opts.Rooms < 1 {
		return Latency{}, errors.New("bench: latency needs at least one turn and one room")
	}
	r, err := startRig(ctx, opts.RigOptions)
	if err != nil {
		return Latency{}, err
	}
	defer r.close()
	w, err := r.startWorker(ctx)
	if err != nil {
		return Latency{}, err
	}
	defer w.stop()

	var (
		mu  sync.Mutex
		all roomFigures
	)
	rooms := min(opts.Rooms, opts.Turns)
	errs := make([]error, rooms)
	var wg sync.WaitGroup
	for i := range rooms {
		turns := opts.Turns / rooms
		if i < opts.Turns%rooms {
			turns++
		}
		wg.Go(func() {
			f, err := latencyRoom(ctx, r, w, fmt.Sprintf("bench-latency-%d-%d", time.Now().UnixNano(), i), turns)
			errs[i] = err
			mu.Lock()
			all.add(f)
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil && all.turns == 0 {
		return Latency{}, err
	}
	provider := time.Duration(providerCallsPerTurn) * opts.ProviderLatency
	overhead := make([]float64, len(all.heard))
	var buffered []float64
	for i, h := range all.heard {
		overhead[i] = ms(h.arrived.Sub(h.end) - FinishedEndpointing() - provider)
		if !h.buffered.IsZero() {
			buffered = append(buffered, ms(h.buffered.Sub(h.end)-FinishedEndpointing()-provider))
		}
	}
	split, err := splitLatency(ctx, w.data, all.heard, FinishedEndpointing(), provider)
	if err != nil {
		errs = append(errs, err)
	}
	calls := 0
	for _, req := range r.prov.fake.ChatRequests() {
		if req.SchemaName() == "" {
			calls++
		}
	}
	perTurn := 0.0
	if n := len(all.responseMS); n > 0 {
		// The greetings are model calls that answer no turn.
		perTurn = float64(max(calls-rooms, 0)) / float64(n)
	}
	return Latency{
		OverheadMS: Summarize(overhead), OverheadBufferedMS: Summarize(buffered), Split: split,
		BargeInMS: Summarize(all.bargeInMS), ResponseMS: Summarize(all.responseMS),
		Turns: len(all.responseMS), Unanswered: all.unanswered, BargeInMissed: all.bargeInMissed,
		EndpointingMS: ms(FinishedEndpointing()), ProviderMS: ms(provider), ModelCallsPerTurn: perTurn,
	}, errors.Join(errs...)
}

// roomFigures are one room's measurements.
type roomFigures struct {
	turns                     int
	responseMS, bargeInMS     []float64
	heard                     []heardTurn
	unanswered, bargeInMissed int
}

func (f *roomFigures) add(o roomFigures) {
	f.turns += o.turns
	f.responseMS = append(f.responseMS, o.responseMS...)
	f.bargeInMS = append(f.bargeInMS, o.bargeInMS...)
	f.heard = append(f.heard, o.heard...)
	f.unanswered += o.unanswered
	f.bargeInMissed += o.bargeInMissed
}

// latencyRoom runs one bot for turns turns and returns what it measured,
// also when it fails part way.
func latencyRoom(ctx context.Context, r *rig, w *worker, room string, turns int) (roomFigures, error) {
	var f roomFigures
	bot, err := r.joinBot(ctx, w, room)
	if err != nil {
		return f, err
	}
	defer bot.Leave()
	u, err := r.utterance(ctx, bot)
	if err != nil {
		return f, err
	}
	if err := waitGreeting(ctx, bot); err != nil {
		return f, fmt.Errorf("%s: %w", room, err)
	}
	timeout := replyTimeout + time.Duration(providerCallsPerTurn)*r.opts.ProviderLatency
	bargeIn := false
	for i := range turns {
		if bargeIn {
			if err := bot.WaitAgentSpeech(ctx, bargeInAfter); err != nil {
				return f, fmt.Errorf("%s: turn %d: %w", room, i, err)
			}
		} else if err := waitQuiet(ctx, bot); err != nil {
			return f, err
		}
		s, err := say(ctx, bot, u)
		if err != nil {
			return f, fmt.Errorf("%s: turn %d: %w", room, i, err)
		}
		f.turns++
		reply, ok, err := waitReplySpan(ctx, bot, s.end, timeout)
		if err != nil {
			return f, fmt.Errorf("%s: turn %d: %w", room, i, err)
		}
		if bargeIn {
			if at, stopped := silencedAt(bot.VoicedSpans(), s.onset, s.end); stopped {
				f.bargeInMS = append(f.bargeInMS, ms(at.Sub(s.onset)-InterruptThreshold))
			} else {
				f.bargeInMissed++
			}
		}
		if !ok {
			f.unanswered++
			bargeIn = false
			continue
		}
		f.responseMS = append(f.responseMS, ms(reply.Start.Sub(s.end)))
		f.heard = append(f.heard, heardTurn{room: room, afterCut: bargeIn, onset: s.onset, end: s.end, arrived: reply.Start, buffered: reply.Buffered})
		bargeIn = (i+1)%bargeInEvery == 0
	}
	return f, nil
}

// utterance is the benchmark's answer, spoken by flite once per rig.
func (r *rig) utterance(ctx context.Context, bot *candidatebot.Bot) (utterance, error) {
	r.uttMu.Lock()
	defer r.uttMu.Unlock()
	if r.utt.pcm16kHz != nil {
		return r.utt, nil
	}
	pcm, err := bot.Speech(ctx, candidateAnswer)
	if err != nil {
		return utterance{}, err
	}
	u, err := newUtterance(pcm)
	if err == nil {
		r.utt = u
	}
	return u, err
}
