package fsm

import (
	"math"
	"testing"
)

func TestSimilarityParaphrases(t *testing.T) {
	tests := []struct {
		a, b   string
		repeat bool
	}{
		// Paraphrases that must be caught.
		{"Tell me about a challenging project you worked on", "Could you tell me about a project that was challenging for you?", true},
		{"What are your greatest strengths?", "What would you say your biggest strengths are?", true},
		{"Why do you want to work here?", "Why do you want to work at our company?", true},
		{"How do you handle conflict within your team?", "How do you deal with conflicts in a team?", true},
		{"Tell me a bit about your background.", "Could you walk me through your background?", true},
		{"What motivates you in your work?", "What motivates you at work?", true},
		{"Describe a time you failed and what you learned.", "Tell me about a time when you failed. What did you learn from it?", true},
		{"Where do you see yourself in five years?", "Where do you see yourself five years from now?", true},
		{"What technologies did you use on that project?", "Which technologies were used in that project?", true},
		{"How did you measure the success of the launch?", "How was the launch's success measured?", true},
		{"Why are you leaving your current job?", "What is making you leave your current role?", true},
		{"WHAT IS YOUR BIGGEST WEAKNESS", "what's your greatest weakness?", true},
		// Different questions that must be allowed.
		{"What did you enjoy most about your last role?", "What are you hoping to learn in your next role?", false},
		{"Tell me about a challenging project you worked on", "Tell me about a project you are proud of", false},
		{"What is your current role?", "What are you hoping to learn in your next role?", false},
		{"How do you handle conflict within your team?", "How big is your team?", false},
		{"What technologies did you use on that project?", "What was the hardest bug in that project?", false},
		{"Why do you want to work here?", "Why did you leave your last job?", false},
		{"Tell me about a time you failed.", "Tell me about a time you succeeded.", false},
		{"Which databases have you worked with?", "How did you design the database schema?", false},
		{"What did you learn from that project?", "What did you learn from your last manager?", false},
		{"How do you prioritise work?", "How do you prioritise bugs versus features?", false},
		{"What is your current role?", "Tell me about your current role and the team you work with.", false},
		{"Why?", "How?", false},
	}
	for _, tt := range tests {
		ab, ba := Similarity(tt.a, tt.b), Similarity(tt.b, tt.a)
		t.Logf("%.3f %q / %q", ab, tt.a, tt.b)
		if math.Abs(ab-ba) > 1e-12 {
			t.Errorf("Similarity not symmetric: %q/%q = %.3f, reversed %.3f", tt.a, tt.b, ab, ba)
		}
		if got := ab >= RepeatThreshold; got != tt.repeat {
			t.Errorf("Similarity(%q, %q) = %.3f; repeat = %v, want %v (threshold %.2f)", tt.a, tt.b, ab, got, tt.repeat, RepeatThreshold)
		}
	}
}

func TestSimilarityValues(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"Tell me about yourself", "tell me about YOURSELF.", 1},
		{"Why?", "why", 1},  // only filler left: compared as normalised text
		{"Why?", "How?", 0}, // only filler, different
		{"", "", 0},         // nothing to compare
		{"What is your role?", "", 0},
		{"Which databases do you use?", "What's your favourite colour?", 0},
		{"challenging projects", "a project that challenged you", 1},   // stems meet
		{"What is your current role?", "What is your current job?", 1}, // synonyms meet
		{"Tell me about a challenging project you worked on", "Could you tell me about a project that was challenging for you?", 2 / math.Sqrt(6)},
	}
	for _, tt := range tests {
		if got := Similarity(tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Similarity(%q, %q) = %.4f, want %.4f", tt.a, tt.b, got, tt.want)
		}
	}
}
