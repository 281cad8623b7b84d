package analysis

import "testing"

func TestIsRepeatRequest(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Could you repeat the question?", true},
		{"Sorry, could you repeat that?", true},
		{"sorry can you say that again", true},
		{"Can you say that again, please?", true},
		{"What was the question again?", true},
		{"Would you mind repeating the question?", true},
		{"Could you please rephrase that?", true},
		{"Sorry, I didn't catch that.", true},
		{"i didn't quite hear the question", true},
		{"Pardon?", true},
		{"Pardon me?", true},
		{"Sorry?", true},
		{"Sorry, come again?", true},
		{"What?", true},
		{"Excuse me, what was that?", true},
		{"Repeat that, please.", true},
		{"", false},
		{"I led the migration.", false},
		{"We had to repeat it every quarter.", false},
		{"We did not catch the bug until production.", false},
		{"Sorry, I was thinking about the ledger.", false},
		{"What I did was rewrite the scheduler.", false},
		{"They would never come again after that outage.", false},
		{"We had to repeat that deployment three times because the canary kept failing on the new nodes, which was painful.", false},
	} {
		if got := IsRepeatRequest(tc.text); got != tc.want {
			t.Errorf("IsRepeatRequest(%q) = %t, want %t", tc.text, got, tc.want)
		}
	}
}
