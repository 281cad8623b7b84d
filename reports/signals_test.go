package reports

import (
	"reflect"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// TestSignalsNeverScored: integrity signals are context for a reviewer,
// never a verdict. The same interview with and without every kind of
// signal beside its answers gets the same basic report, and the model is
// given the same prompt.
func TestSignalsNeverScored(t *testing.T) {
	plain := fixture()
	flagged := fixture()
	for _, turn := range flagged.Turns {
		if turn.Role != interviews.RoleCandidate {
			continue
		}
		for _, s := range []interviews.Signal{
			{Kind: interviews.SignalFocusLost, Ms: 60_000},
			{Kind: interviews.SignalPaste, Chars: 900},
			{Kind: interviews.SignalLongSilence, Ms: 20_000, Words: 80},
			{Kind: interviews.SignalReadingPace, Words: 80, WPM: 170},
		} {
			s.At, s.Turn = turn.StartedAt, turn.Seq
			flagged.AddSignal(s)
		}
	}
	if len(flagged.Signals) == 0 {
		t.Fatal("the fixture has no candidate turn to flag")
	}
	bp := stages.Default()
	if a, b := generate(t, plain, bp), generate(t, flagged, bp); !reflect.DeepEqual(a, b) {
		t.Errorf("signals changed the basic report:\nwithout %+v\n   with %+v", a, b)
	}
	names := []string{"Communication"}
	if a, b := prompt(newView(Input{Record: plain, Blueprint: bp}), names, nil), prompt(newView(Input{Record: flagged, Blueprint: bp}), names, nil); a != b {
		t.Errorf("signals reached the model's prompt:\nwithout %s\n   with %s", a, b)
	}
}
