package voice

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
)

// endpointStep is one input to an endpointer at a time, in ms from the
// start: "start", "end" (of the last voiced frame), "final" with text, or
// "decide", whose outcome the test records.
type endpointStep struct {
	op   string
	atMs int
	text string
}

func TestEndpointer(t *testing.T) {
	ms := func(n int) time.Time { return time.Unix(0, 0).Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name  string
		steps []endpointStep
		want  []string // per decide: "none", "wait D" or the committed turn
	}{
		{
			name:  "final then silence",
			steps: []endpointStep{{"start", 0, ""}, {"end", 1000, ""}, {"final", 1100, "I worked on payments"}, {"decide", 1100, ""}, {"decide", 1500, ""}, {"decide", 2000, ""}},
			want:  []string{"wait 400ms", `"I worked on payments" ended 1000 final 1100 eou 500ms stt 100ms`, "none"},
		},
		{
			name:  "nothing while speech is active",
			steps: []endpointStep{{"start", 0, ""}, {"final", 500, "I led"}, {"decide", 500, ""}, {"decide", 5000, ""}},
			want:  []string{"none", "none"},
		},
		{
			name: "speech resuming joins the finals into one turn (a dangling \"on\" waits longer)",
			steps: []endpointStep{{"start", 0, ""}, {"end", 1000, ""}, {"final", 1100, "I worked on"}, {"decide", 1100, ""},
				{"start", 1300, ""}, {"decide", 1500, ""}, {"end", 2000, ""}, {"final", 2100, "the payments team"}, {"decide", 2500, ""}},
			want: []string{"wait 900ms", "none", `"I worked on the payments team" ended 2000 final 2100 eou 500ms stt 100ms`},
		},
		{
			name:  "no final, no turn",
			steps: []endpointStep{{"start", 0, ""}, {"end", 1000, ""}, {"decide", 9000, ""}},
			want:  []string{"none"},
		},
		{
			name:  "late final commits at once",
			steps: []endpointStep{{"start", 0, ""}, {"end", 1000, ""}, {"decide", 2000, ""}, {"final", 2000, "Sure"}, {"decide", 2000, ""}},
			want:  []string{"none", `"Sure" ended 1000 final 2000 eou 1s stt 1s`},
		},
		{
			name:  "a final before the end of speech",
			steps: []endpointStep{{"start", 0, ""}, {"final", 900, "Yes."}, {"end", 1000, ""}, {"decide", 1000, ""}, {"decide", 1300, ""}},
			want:  []string{"wait 300ms", `"Yes." ended 1000 final 900 eou 300ms stt 0s`},
		},
		{
			name:  "finals with no voice activity count from the first",
			steps: []endpointStep{{"final", 0, "Sure"}, {"final", 200, "thing"}, {"decide", 200, ""}, {"decide", 500, ""}},
			want:  []string{"wait 300ms", `"Sure thing" final 200`},
		},
		{
			name: "trailing conjunction waits longer, a question less",
			steps: []endpointStep{{"start", 0, ""}, {"end", 1000, ""}, {"final", 1000, "I built the API and"}, {"decide", 1000, ""}, {"decide", 2000, ""},
				{"start", 3000, ""}, {"end", 4000, ""}, {"final", 4000, "What does the team use?"}, {"decide", 4000, ""}, {"decide", 4300, ""}},
			want: []string{"wait 1s", `"I built the API and" ended 1000 final 1000 eou 1s stt 0s`,
				"wait 300ms", `"What does the team use?" ended 4000 final 4000 eou 300ms stt 0s`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := endpointer{baseDelay: config.DefaultEndpointingDelay, minDelay: config.DefaultEndpointingMin, maxDelay: config.DefaultEndpointingMax}
			var got []string
			for _, st := range tc.steps {
				at := ms(st.atMs)
				switch st.op {
				case "start":
					e.speechStarted()
				case "end":
					e.speechEnded(at)
				case "final":
					e.final(st.text, at, 0)
				case "decide":
					turn, commit, wait := e.decide(at)
					switch {
					case commit:
						s := fmt.Sprintf("%q", turn.Text)
						if !turn.SpeechEndedAt.IsZero() {
							s += fmt.Sprintf(" ended %d", turn.SpeechEndedAt.Sub(ms(0)).Milliseconds())
						}
						s += fmt.Sprintf(" final %d", turn.FinalAt.Sub(ms(0)).Milliseconds())
						if !turn.SpeechEndedAt.IsZero() {
							s += fmt.Sprintf(" eou %v stt %v", turn.Metrics.EndOfUtterance, turn.Metrics.STTFinal)
						} else if turn.Metrics.EndOfUtterance != 0 || turn.Metrics.STTFinal != 0 {
							t.Errorf("turn without speech has metrics %+v", turn.Metrics)
						}
						if !turn.CommittedAt.Equal(at) {
							t.Errorf("CommittedAt %v, want %v", turn.CommittedAt, at)
						}
						got = append(got, s)
					case wait > 0:
						got = append(got, fmt.Sprintf("wait %v", wait))
					default:
						got = append(got, "none")
					}
				default:
					t.Fatalf("bad op %q", st.op)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("decisions\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestClassifyEnding: how a transcript ends, with the realistic
// outputs of pocketsphinx (lower case, no punctuation, "um" written as
// "m" or "mm") and of punctuating engines. A hesitation or a trailing
// conjunction is someone thinking, whatever the punctuation.
func TestClassifyEnding(t *testing.T) {
	for _, tc := range []struct {
		text string
		want ending
	}{
		// Hesitations, as pocketsphinx writes them and as others do.
		{"a ledger service and m.", endingUnfinished},
		{"a ledger service and m", endingUnfinished},
		{"we built a ledger service and um", endingUnfinished},
		{"we built a ledger service and um.", endingUnfinished},
		{"the main thing was m m", endingUnfinished},
		{"the main thing was mm.", endingUnfinished},
		{"i think uh", endingUnfinished},
		{"I think, uh...", endingUnfinished},
		{"It was, er.", endingUnfinished},
		{"Erm.", endingUnfinished},
		{"Um, um, um.", endingUnfinished},
		{"UM.", endingUnfinished},
		{"hmm", endingUnfinished},
		{"Hmm?", endingUnfinished},
		{"Hm!", endingUnfinished},
		{"Ah.", endingUnfinished},
		{`so the reason was "um."`, endingUnfinished},
		// Trailing conjunctions.
		{"I built the API and.", endingUnfinished},
		{"we moved to kafka but", endingUnfinished},
		{"We moved to Kafka, but.", endingUnfinished},
		{"It was slow so.", endingUnfinished},
		{"We rewrote it because.", endingUnfinished},
		{"and so.", endingUnfinished},
		{"We could shard it or.", endingUnfinished},
		{"We used Go, 'cause.", endingUnfinished},
		// Finished sentences that end in a look-alike.
		{"I think so.", endingFinished},
		{"If so.", endingFinished},
		{"I hope so!", endingFinished},
		{"Should I talk about the backend, or?", endingFinished},
		{"Mm-hm.", endingFinished},
		{"It was latency.", endingFinished},
		{"Is that right?", endingFinished},
		{"We shipped it in March.", endingFinished},
		// Other unfinished endings.
		{"the main reason was", endingUnfinished},
		{"we used Go,", endingUnfinished},
		{"well…", endingUnfinished},
		// No hint.
		{"i think so", endingNeutral},
		{"i worked on payments", endingNeutral},
		{"mm-hm", endingNeutral},
		{"", endingNeutral},
	} {
		if got := classifyEnding(tc.text); got != tc.want {
			t.Errorf("classifyEnding(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestEndpointingDelayRule(t *testing.T) {
	const base, lo, hi = 500 * time.Millisecond, 200 * time.Millisecond, 3 * time.Second
	for _, tc := range []struct {
		text string
		want time.Duration
	}{
		{"I worked on payments", 500 * time.Millisecond},
		{"I worked on payments.", 300 * time.Millisecond},
		{"Is that right?", 300 * time.Millisecond},
		{"Yes!", 300 * time.Millisecond},
		{`He said "done."`, 300 * time.Millisecond},
		{"I think so.", 300 * time.Millisecond},
		{"I built the API and", time.Second},
		{"I built the API and.", time.Second},
		{"so", time.Second},
		{"we used, um", time.Second},
		{"we used Go,", time.Second},
		{"well...", time.Second},
		{"well…", time.Second},
		{"the options were:", time.Second},
		{"", 500 * time.Millisecond},
	} {
		if got := endpointingDelay(tc.text, base, lo, hi); got != tc.want {
			t.Errorf("endpointingDelay(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	// Clamping.
	if got := endpointingDelay("done.", 200*time.Millisecond, 200*time.Millisecond, time.Second); got != 200*time.Millisecond {
		t.Errorf("clamp to min: got %v", got)
	}
	if got := endpointingDelay("and", 2*time.Second, 200*time.Millisecond, 3*time.Second); got != 3*time.Second {
		t.Errorf("clamp to max: got %v", got)
	}
}

// TestEndpointerThinkingPause: an unfinished clause waits the thinking
// pause, says so while it waits and names the rule; a finished answer
// takes the fast path.
func TestEndpointerThinkingPause(t *testing.T) {
	t0 := time.Unix(0, 0)
	e := endpointer{baseDelay: config.DefaultEndpointingDelay, minDelay: config.DefaultEndpointingMin, maxDelay: config.DefaultEndpointingMax, thinkingPause: config.DefaultThinkingPause}
	e.speechStarted()
	e.final("and the main reason was", t0, 0)
	e.speechEnded(t0)
	if _, commit, wait := e.decide(t0); commit || wait != config.DefaultThinkingPause || !e.thinking {
		t.Fatalf("unfinished: commit %v wait %v thinking %v", commit, wait, e.thinking)
	}
	turn, commit, _ := e.decide(t0.Add(config.DefaultThinkingPause))
	if !commit || turn.Metrics.Rule != interviews.EndpointingThinking || turn.Metrics.Delay != config.DefaultThinkingPause || e.thinking {
		t.Fatalf("unfinished: commit %v metrics %+v", commit, turn.Metrics)
	}
	e.speechStarted()
	e.final("It was latency.", t0, 0)
	e.speechEnded(t0)
	turn, commit, _ = e.decide(t0.Add(300 * time.Millisecond))
	if !commit || turn.Metrics.Rule != interviews.EndpointingFinished || turn.Metrics.Delay != 300*time.Millisecond {
		t.Fatalf("finished: commit %v metrics %+v", commit, turn.Metrics)
	}
}

// TestEndpointerConfidence: a turn carries the lowest confidence of its
// finals, none when one final came without any, and the next turn starts
// afresh.
func TestEndpointerConfidence(t *testing.T) {
	t0 := time.Unix(0, 0)
	e := endpointer{baseDelay: config.DefaultEndpointingDelay, minDelay: config.DefaultEndpointingMin, maxDelay: config.DefaultEndpointingMax}
	for _, c := range []struct {
		finals []float64
		want   float64
	}{{[]float64{0.93, 0.58, 0.9}, 0.58}, {[]float64{0.95}, 0.95}, {[]float64{0.9, 0}, 0}, {[]float64{0.81}, 0.81}} {
		for _, conf := range c.finals {
			e.final("It was latency.", t0, conf)
		}
		turn, commit, _ := e.decide(t0.Add(time.Hour))
		if !commit || turn.STTConfidence != c.want {
			t.Errorf("finals %v: commit %v confidence %v, want %v", c.finals, commit, turn.STTConfidence, c.want)
		}
	}
}
