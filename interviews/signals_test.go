package interviews

import (
	"strings"
	"testing"
	"time"
)

// TestSignalsConcernTheNextAnswer: signals reported before an answer
// concern it once it is given; later ones wait for the next answer.
func TestSignalsConcernTheNextAnswer(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	r := &Record{}
	r.AddSignal(Signal{Kind: SignalFocusLost, At: at, Ms: 42_000})
	seq := r.AppendTurn(Turn{Role: RoleCandidate, Text: "An answer"}).Seq
	r.AttachSignals(seq)
	r.AddSignal(Signal{Kind: SignalPaste, At: at.Add(time.Minute), Chars: 230})
	if got := r.SignalsOf(seq); len(got) != 1 || got[0].Kind != SignalFocusLost {
		t.Fatalf("signals of turn %d = %+v, want the focus loss", seq, got)
	}
	if got := r.SignalsOf(0); len(got) != 1 || got[0].Kind != SignalPaste {
		t.Fatalf("waiting signals = %+v, want the paste", got)
	}
	if err := r.validateSignals(); err != nil {
		t.Fatal(err)
	}
	c := r.Clone()
	c.Signals[0].Ms = 1
	if r.Signals[0].Ms != 42_000 {
		t.Error("a clone shares its signals with the original")
	}
}

// TestSignalsAreBounded: a record keeps at most MaxSignals, and counts the rest.
func TestSignalsAreBounded(t *testing.T) {
	r := &Record{}
	for range MaxSignals + 5 {
		r.AddSignal(Signal{Kind: SignalPaste, At: time.Now(), Chars: 1})
	}
	if len(r.Signals) != MaxSignals || r.SignalsDropped != 5 {
		t.Fatalf("kept %d, dropped %d; want %d and 5", len(r.Signals), r.SignalsDropped, MaxSignals)
	}
}

func TestSignalValidate(t *testing.T) {
	at := time.Now()
	for _, tc := range []struct {
		s    Signal
		want string
	}{
		{Signal{Kind: "verdict", At: at}, "not one of"},
		{Signal{Kind: SignalPaste}, "no time"},
		{Signal{Kind: SignalFocusLost, At: at, Ms: -1}, "between 0"},
		{Signal{Kind: SignalFocusLost, At: at, Ms: MaxSignalMs + 1}, "between 0"},
		{Signal{Kind: SignalPaste, At: at, Chars: MaxSignalChars + 1}, "characters"},
		{Signal{Kind: SignalPaste, At: at, Chars: 12}, ""},
	} {
		err := tc.s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.s, err, tc.want)
		}
	}
}

func TestSignalDescribe(t *testing.T) {
	for _, tc := range []struct {
		s    Signal
		want string
	}{
		{Signal{Kind: SignalFocusLost, Ms: 42_400}, "lost focus for 42 s"},
		{Signal{Kind: SignalFocusLost, Ms: 95_000}, "1 min 35 s"},
		{Signal{Kind: SignalPaste, Chars: 230}, "230 characters was pasted"},
		{Signal{Kind: SignalLongSilence, Ms: 12_000, Words: 60}, "silence of 12 s came before a fluent answer of 60 words"},
		{Signal{Kind: SignalReadingPace, Words: 80, WPM: 165}, "about 165 words a minute"},
	} {
		if got := tc.s.Describe(); !strings.Contains(got, tc.want) {
			t.Errorf("Describe(%+v) = %q, want %q in it", tc.s, got, tc.want)
		}
	}
}
