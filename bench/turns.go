package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/viva-interviews/viva/testrig/candidatebot"
)

const (
	// frame20ms is the unit in which the candidate's speech is analysed.
	frame20ms = 20 * time.Millisecond
	// samplesPer20ms16kHz is one such frame of the bot's microphone audio.
	samplesPer20ms16kHz = candidatebot.MicSampleRateHz / 50
	// replyTimeout is how long after the end of the candidate's speech a
	// reply may start before the turn counts as unanswered (the provider
	// latencies are added to it).
	replyTimeout = 8 * time.Second
	// greetingTimeout bounds the wait for the agent's greeting.
	greetingTimeout = 60 * time.Second
	// greetingHeard is how much of the greeting the bot waits to hear.
	greetingHeard = 300 * time.Millisecond
	// quietBeforeTurn is how long the agent must have been silent before
	// the bot answers (its reply is over).
	quietBeforeTurn = 700 * time.Millisecond
	// quietTimeout bounds that wait: an agent that keeps talking is talked
	// over.
	quietTimeout = 20 * time.Second
	// silenceGap is the agent silence that ends its speech for the
	// barge-in measure: longer than the pauses between its sentences,
	// shorter than the rest of the candidate's interrupting utterance.
	silenceGap = 700 * time.Millisecond
)

// utterance is the candidate's recorded answer: 16 kHz mono speech and
// where the voice in it starts and ends.
type utterance struct {
	pcm16kHz []int16
	// lead is the silence before the first voiced frame, trail the
	// silence after the last one.
	lead, trail time.Duration
}

// newUtterance finds the voiced part of pcm16kHz with the bot's own
// measure (20 ms frames at or above candidatebot.DefaultVoicedRMS).
func newUtterance(pcm16kHz []int16) (utterance, error) {
	first, last := -1, -1
	for i := 0; (i+1)*samplesPer20ms16kHz <= len(pcm16kHz); i++ {
		if rms(pcm16kHz[i*samplesPer20ms16kHz:(i+1)*samplesPer20ms16kHz]) >= candidatebot.DefaultVoicedRMS {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return utterance{}, errors.New("bench: the candidate's utterance has no voiced frame")
	}
	total := time.Duration(len(pcm16kHz)) * time.Second / candidatebot.MicSampleRateHz
	lead := time.Duration(first) * frame20ms
	return utterance{pcm16kHz: pcm16kHz, lead: lead, trail: total - time.Duration(last+1)*frame20ms}, nil
}

// speech is how long the voiced part lasts.
func (u utterance) speech() time.Duration {
	return time.Duration(len(u.pcm16kHz))*time.Second/candidatebot.MicSampleRateHz - u.lead - u.trail
}

func rms(pcm []int16) float64 {
	var sum float64
	for _, v := range pcm {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(pcm)))
}

// said is when an utterance's voice left the bot.
type said struct {
	onset, end time.Time
}

// say plays u into the bot's microphone and returns when its voice
// started and ended as the bot spoke it (when the utterance was spoken, and
// the voice's position in it, give both).
func say(ctx context.Context, bot *candidatebot.Bot, u utterance) (said, error) {
	spoken, err := bot.SayTimed(ctx, u.pcm16kHz)
	if err != nil {
		return said{}, err
	}
	return said{onset: spoken.Start.Add(u.lead), end: spoken.End.Add(-u.trail)}, nil
}

// waitReply waits for agent speech that starts at or after t and returns
// its start; ok is false when none starts within timeout.
func waitReply(ctx context.Context, bot *candidatebot.Bot, t time.Time, timeout time.Duration) (start time.Time, ok bool, err error) {
	reply, ok, err := waitReplySpan(ctx, bot, t, timeout)
	return reply.Start, ok, err
}

// waitReplySpan is waitReply returning the reply's first voiced span.
func waitReplySpan(ctx context.Context, bot *candidatebot.Bot, t time.Time, timeout time.Duration) (reply candidatebot.VoicedSpan, ok bool, err error) {
	ctx, cancel := context.WithDeadline(ctx, t.Add(timeout))
	defer cancel()
	for {
		if s, found := firstSpanFrom(bot.VoicedSpans(), t); found {
			return s, true, nil
		}
		if err := bot.WaitAgentSpeech(ctx, frame20ms); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
				if s, found := firstSpanFrom(bot.VoicedSpans(), t); found {
					return s, true, nil
				}
				return candidatebot.VoicedSpan{}, false, nil
			}
			return candidatebot.VoicedSpan{}, false, err
		}
	}
}

// firstSpanFrom is the first voiced span starting at or after t.
func firstSpanFrom(spans []candidatebot.VoicedSpan, t time.Time) (candidatebot.VoicedSpan, bool) {
	for i := len(spans) - 1; i >= 0; i-- {
		if spans[i].Start.Before(t) {
			if i+1 < len(spans) {
				return spans[i+1], true
			}
			return candidatebot.VoicedSpan{}, false
		}
	}
	if len(spans) > 0 {
		return spans[0], true
	}
	return candidatebot.VoicedSpan{}, false
}

// silencedAt is when the agent speech going on at onset went silent at the
// bot: the end of the last voiced span of the run, bridging pauses shorter
// than silenceGap, that holds onset. ok is false when the agent was not
// speaking at onset (its last voiced frame came before it), or had not
// fallen silent by before.
func silencedAt(spans []candidatebot.VoicedSpan, onset, before time.Time) (time.Time, bool) {
	var runStart, runEnd time.Time
	for i, s := range spans {
		if i == 0 || s.Start.Sub(runEnd) > silenceGap {
			if !runStart.IsZero() && !runStart.After(onset) && runEnd.Add(silenceGap).After(onset) {
				break // the run holding onset is complete
			}
			runStart = s.Start
		}
		runEnd = s.End
	}
	if runStart.IsZero() || runStart.After(onset) || runEnd.Before(onset) {
		return time.Time{}, false
	}
	if runEnd.After(before) {
		return time.Time{}, false
	}
	return runEnd, true
}

// waitGreeting waits until the bot has heard the agent's greeting and the
// agent has gone quiet.
func waitGreeting(ctx context.Context, bot *candidatebot.Bot) error {
	ctx, cancel := context.WithTimeout(ctx, greetingTimeout)
	defer cancel()
	if err := bot.WaitAgentSpeech(ctx, greetingHeard); err != nil {
		return fmt.Errorf("bench: no greeting: %w", err)
	}
	return waitQuiet(ctx, bot)
}

// waitQuiet waits until the agent has been silent for quietBeforeTurn, or
// quietTimeout has passed (then the bot talks over it).
func waitQuiet(ctx context.Context, bot *candidatebot.Bot) error {
	qctx, cancel := context.WithTimeout(ctx, quietTimeout)
	defer cancel()
	err := bot.WaitAgentSilence(qctx, quietBeforeTurn)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
