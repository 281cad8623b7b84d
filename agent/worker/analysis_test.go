package worker_test

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/interviews"
)

// heldAnalyzer is the offline rules with every answer's analysis held
// back until release is closed: while it is held, nothing the interview
// does can have waited for analysis.
type heldAnalyzer struct {
	analysis.Rules
	release chan struct{}
}

func (a heldAnalyzer) Answer(ctx context.Context, in analysis.AnswerInput) (analysis.AnswerResult, error) {
	select {
	case <-a.release:
	case <-ctx.Done():
		return analysis.AnswerResult{}, ctx.Err()
	}
	return a.Rules.Answer(ctx, in)
}

// TestAnalysisAddsNoLatencyToTurns holds two spoken interviews against the
// provider fakes: one whose answer analysis is held back for the whole
// conversation, one analysed by the rules as it goes. Every answer is
// answered in both, the held one with no analysis finished (so no reply
// waited for one), and the analyses are all recorded once released. The
// turn figures of both are logged side by side.
func TestAnalysisAddsNoLatencyToTurns(t *testing.T) {
	answers := fullAnswers[:4]
	run := func(name string, an analysis.Analyzer, release func()) (e2e, firstToken []float64) {
		_, sessions := startFakes(t, answers, interviewerPolicy("Hello Ada, welcome to your interview."))
		sessions.Analyzer = an
		h := startHarness(t, sessions)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "level": "senior"})
		for _, a := range answers {
			answer(t, ctx, bot, a)
		}
		if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
			t.Fatalf("%s: the last answer got no reply: %v", name, err)
		}
		rec := h.record(t, ctx, room, func(r *interviews.Record) bool {
			n := 0
			for _, turn := range r.Turns {
				if turn.Role == interviews.RoleAgent && turn.Metrics != nil && turn.Metrics.EndToEndMs > 0 {
					n++
				}
			}
			return n >= len(answers)
		})
		if release != nil {
			if len(rec.Answers) != 0 {
				t.Fatalf("%s: %d analyses finished while they were held", name, len(rec.Answers))
			}
			release()
		}
		rec = h.record(t, ctx, room, func(r *interviews.Record) bool { return len(r.Answers) >= len(answers) })
		var full []float64
		for _, turn := range rec.Turns {
			if m := turn.Metrics; turn.Role == interviews.RoleAgent && m != nil && m.EndToEndMs > 0 {
				e2e = append(e2e, m.EndToEndMs-m.EndOfUtteranceMs)
				full = append(full, m.EndToEndMs)
				firstToken = append(firstToken, m.LLMFirstTokenMs)
			}
		}
		tt := interviews.TurnTaking{}
		if rec.TurnTaking != nil {
			tt = *rec.TurnTaking
		}
		t.Logf("%s: end of speech → first audio p50 %.0f ms over %d turns; cut-offs %d, false interruptions resumed %d, backchannels ignored %d",
			name, median(full), len(full), tt.CutOffs, tt.FalseInterruptionsResumed, tt.BackchannelsIgnored)
		bot.Leave()
		return e2e, firstToken
	}
	release := make(chan struct{})
	heldE2E, heldFirst := run("analysis held", heldAnalyzer{release: release}, func() { close(release) })
	onE2E, onFirst := run("analysis on", analysis.Rules{}, nil)
	t.Logf("reply after the end of speech, endpointing excluded: p50 %.0f ms with analysis held back, %.0f ms with analysis on (%d and %d turns)",
		median(heldE2E), median(onE2E), len(heldE2E), len(onE2E))
	t.Logf("model first token: p50 %.1f ms held back, %.1f ms on", median(heldFirst), median(onFirst))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}
