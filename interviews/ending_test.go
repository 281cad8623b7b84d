package interviews

import (
	"strings"
	"testing"
	"time"
)

// TestEndReasonInWords: every ending has words, for the candidate and
// about them, and pressing End is the candidate ending the interview.
func TestEndReasonInWords(t *testing.T) {
	for _, e := range append(EndReasons, EndedByProviderError("llm"), EndedByProviderError("acme"), "") {
		for _, who := range []string{CandidateYou, CandidateThird} {
			if w := e.InWords(who); w == "" || strings.Contains(w, "_") || (e != "" && w == string(e)) {
				t.Errorf("%q for %q: %q", e, who, w)
			}
		}
		if !e.Valid() && e != "" && !e.ProviderError() {
			t.Errorf("%q in EndReasons is not valid", e)
		}
	}
	if got := EndedCandidateRequest.InWords(CandidateThird); got != "the candidate ended the interview" {
		t.Errorf("End pressed: %q", got)
	}
	if got := EndedByProviderError("llm").InWords(CandidateThird); got != "the language model failed" {
		t.Errorf("provider error: %q", got)
	}
}

// TestTurnsInOrder: turns sorted by start, ties and untimed turns kept in
// recorded order.
func TestTurnsInOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 47, 0, 0, time.UTC)
	r := &Record{}
	r.AppendTurn(Turn{Text: "a", StartedAt: t0})
	r.AppendTurn(Turn{Text: "c", StartedAt: t0.Add(14 * time.Second)})
	r.AppendTurn(Turn{Text: "b", StartedAt: t0.Add(13 * time.Second)})
	r.AppendTurn(Turn{Text: "b2"}) // no time: stays after b
	r.AppendTurn(Turn{Text: "c2", StartedAt: t0.Add(14 * time.Second)})
	var got []string
	for _, tr := range r.TurnsInOrder() {
		got = append(got, tr.Text)
	}
	if strings.Join(got, " ") != "a b b2 c c2" {
		t.Errorf("order %v", got)
	}
	if r.Turns[1].Text != "c" {
		t.Error("TurnsInOrder changed the record")
	}
}

// TestSummaryInvitation: a summary's invitation state is the record's.
func TestSummaryInvitation(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	past := now.Add(-time.Hour)
	for _, r := range []*Record{
		{Status: StatusScheduled},
		{Status: StatusScheduled, OpenedAt: &past},
		{Status: StatusScheduled, ExpiresAt: &past},
		{Status: StatusScheduled, RevokedAt: &past},
		{Status: StatusInProgress, StartedAt: &past, ExpiresAt: &past},
	} {
		s := Summarize(r)
		if got, want := s.Invitation(now), r.Invitation(now); got != want {
			t.Errorf("summary %s, record %s", got, want)
		}
	}
}
