package typo

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"limit", "min_time", "min_questions", "instructions"}
	for in, want := range map[string]string{
		"limt":          "limit",
		"LIMIT":         "limit",
		"min_tiem":      "min_time",
		"min_question":  "min_questions",
		"colour":        "",
		"instructionss": "instructions",
	} {
		if got := Closest(in, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}
