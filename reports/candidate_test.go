package reports

import "testing"

// TestForCandidate: a point about "the candidate" reads as addressed to
// them, the basic report's fixed endings in their own wording.
func TestForCandidate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Clear ownership: the answer to “Why Go?”" + ownershipEnding, "Clear ownership: the answer to “Why Go?” says what you did yourself."},
		{"A detailed answer: an answer" + detailedEnding, "A detailed answer: an answer gave context in your own words."},
		{"Stayed general: an answer" + generalEnding, "Stayed general: an answer gave no example, no part of your own and no outcome; an example of what you did and how it ended would make it stronger."},
		{"The candidate's migration cut latency by 40%.", "Your migration cut latency by 40%."},
		{"The candidate has led a team; the candidate is calm and the candidate explained why.", "You have led a team; you are calm and you explained why."},
		{"Concrete figures: an answer put numbers on the work and its outcome.", "Concrete figures: an answer put numbers on the work and its outcome."},
		{"The candidates' list", "The candidates' list"},
	} {
		if got := ForCandidate(tc.in); got != tc.want {
			t.Errorf("ForCandidate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
