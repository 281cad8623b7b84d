package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// nWords is an answer of n words.
func nWords(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }

func TestTimingSignals(t *testing.T) {
	asked := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		a    answerTiming
		want []interviews.SignalKind
	}{
		{"a prompt, thought-out answer", answerTiming{QuestionEnded: asked, Started: asked.Add(2 * time.Second),
			Ended: asked.Add(32 * time.Second), Bursts: 8, Text: nWords(70)}, nil},
		{"a long silence, then a fluent answer", answerTiming{QuestionEnded: asked, Started: asked.Add(12 * time.Second),
			Ended: asked.Add(27 * time.Second), Bursts: 2, Text: nWords(35)}, []interviews.SignalKind{interviews.SignalLongSilence}},
		{"a long silence, then a halting answer", answerTiming{QuestionEnded: asked, Started: asked.Add(12 * time.Second),
			Ended: asked.Add(42 * time.Second), Bursts: 6, Text: nWords(35)}, nil},
		{"a long silence before a short answer", answerTiming{QuestionEnded: asked, Started: asked.Add(15 * time.Second),
			Ended: asked.Add(18 * time.Second), Bursts: 1, Text: nWords(8)}, nil},
		{"read aloud in one breath after a silence", answerTiming{QuestionEnded: asked, Started: asked.Add(10 * time.Second),
			Ended: asked.Add(40 * time.Second), Bursts: 2, Text: nWords(85)},
			[]interviews.SignalKind{interviews.SignalLongSilence, interviews.SignalReadingPace}},
		{"a steady pace with no question before", answerTiming{Started: asked, Ended: asked.Add(30 * time.Second), Bursts: 1, Text: nWords(80)},
			[]interviews.SignalKind{interviews.SignalReadingPace}},
		{"too fast to be read", answerTiming{Started: asked, Ended: asked.Add(15 * time.Second), Bursts: 1, Text: nWords(80)}, nil},
		{"no speech measured", answerTiming{QuestionEnded: asked, Text: nWords(80)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []interviews.SignalKind
			for _, s := range timingSignals(tc.a) {
				if err := s.Validate(); err != nil {
					t.Errorf("signal %+v: %v", s, err)
				}
				got = append(got, s.Kind)
			}
			if strings.Join(kinds(got), ",") != strings.Join(kinds(tc.want), ",") {
				t.Errorf("signals %v, want %v", got, tc.want)
			}
		})
	}
}

func kinds(ks []interviews.SignalKind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return out
}

// TestRespondFilesSignals: a room page's report waiting for the answer
// concerns it once given, and a spoken answer after a long silence is
// noted beside it; a typed answer gets no timing signal.
func TestRespondFilesSignals(t *testing.T) {
	c, _ := newTestInterview(t, 1, scriptedLLM)
	ctx := t.Context()
	deliver(t, c.Greet(ctx))
	asked := flushed(t, c).Turns[0].EndedAt
	_ = c.Recorder().Update(func(r *interviews.Record) {
		r.AddSignal(interviews.Signal{Kind: interviews.SignalFocusLost, At: asked.Add(time.Second), Ms: 9000})
	})
	deliver(t, c.Respond(ctx, CandidateTurn{Text: nWords(30), Source: SourceVoice,
		StartedAt: asked.Add(11 * time.Second), EndedAt: asked.Add(26 * time.Second), Bursts: 1}))
	deliver(t, c.Respond(ctx, CandidateTurn{Text: nWords(40), Source: SourceText}))
	rec := flushed(t, c)
	first, second := rec.Turns[1], rec.Turns[3]
	if first.Role != interviews.RoleCandidate || second.Role != interviews.RoleCandidate {
		t.Fatalf("turns %+v: want candidate turns at 2 and 4", rec.Turns)
	}
	var got []string
	for _, s := range rec.SignalsOf(first.Seq) {
		got = append(got, string(s.Kind))
	}
	if strings.Join(got, ",") != "focus_lost,long_silence" {
		t.Errorf("signals of the spoken answer = %v, want focus_lost,long_silence", got)
	}
	if s := rec.SignalsOf(second.Seq); len(s) != 0 {
		t.Errorf("the typed answer has signals %+v, want none", s)
	}
}
