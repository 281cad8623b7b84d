package stages

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// feedbackBlueprint uses every key of the feedback report.
const feedbackBlueprint = `name: practice
competencies: [communication, "system design", " ", trade-offs]
candidate_feedback: true
candidate_feedback_scores: true
stages:
  - name: intro
    instructions: Hello.
    limit: 60
`

func TestParseFeedbackKeys(t *testing.T) {
	b, err := Parse([]byte(feedbackBlueprint), "practice.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"communication", "system design", "trade-offs"}; !slices.Equal(b.Competencies, want) {
		t.Errorf("competencies %q, want %q", b.Competencies, want)
	}
	if !b.CandidateFeedback || !b.FeedbackScores {
		t.Errorf("candidate_feedback %v, scores %v", b.CandidateFeedback, b.FeedbackScores)
	}
	out, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(out, "again.yaml")
	if err != nil {
		t.Fatalf("Parse of marshalled blueprint: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(b, again) {
		t.Errorf("round trip changed the blueprint\n%s", out)
	}
	c := b.Clone()
	c.Competencies[0] = "x"
	if b.Competencies[0] != "communication" {
		t.Error("Clone shares the competencies")
	}

	plain, err := Parse([]byte("name: plain\nstages:\n  - name: intro\n    instructions: Hi.\n    limit: 60\n"), "plain.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err = yaml.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"competencies", "candidate_feedback"} {
		if strings.Contains(string(out), key) {
			t.Errorf("a blueprint without %s writes it:\n%s", key, out)
		}
	}
}

func TestParseFeedbackErrors(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           string // the complete first line of the error
	}{
		{"duplicate competency", `trade-offs]`, `Communication]`,
			`practice.yaml:2: competencies[2]: "Communication" is already competencies[0]; name each competency once`},
		{"long competency", `trade-offs]`, `"` + strings.Repeat("x", MaxCompetencyLen+1) + `"]`,
			`practice.yaml:2: competencies[2]: is 61 characters long; name a competency in at most 60, such as "system design"`},
		{"too many competencies", `trade-offs]`, `a, b, c, d, e, f, g]`,
			`practice.yaml:2: competencies: names 9 competencies; keep at most 8, the ones that decide`},
		{"competencies not a list", `[communication, "system design", " ", trade-offs]`, `communication`,
			`practice.yaml:2: competencies: must be a list of words or phrases`},
		{"knowledge capture scored", "name: practice", "name: practice\nmode: knowledge_capture",
			`practice.yaml:3: competencies: a knowledge capture is not scored: its report is the summary by topic; remove competencies or the mode`},
		{"scores without feedback", "candidate_feedback: true", "candidate_feedback: false",
			`practice.yaml:4: candidate_feedback_scores: shows scores on the candidate's feedback page, which only candidate_feedback: true gives them; set it too, or remove this`},
		{"feedback not a bool", "candidate_feedback: true", "candidate_feedback: sometimes",
			`practice.yaml:3: candidate_feedback: "sometimes" is not true or false`},
		{"unknown key", "candidate_feedback_scores: true", "candidate_feedback_score: true",
			`practice.yaml:4: candidate_feedback_score: unknown field "candidate_feedback_score" in blueprint (did you mean "candidate_feedback_scores"?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(feedbackBlueprint, tc.from, tc.to, 1)
			if src == feedbackBlueprint {
				t.Fatalf("%q is not in the blueprint", tc.from)
			}
			_, err := Parse([]byte(src), "practice.yaml")
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			if first := strings.Split(err.Error(), "\n")[0]; !strings.HasPrefix(first, tc.want) {
				t.Errorf("error:\n got %s\nwant %s", first, tc.want)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error %T is not a *FieldError", err)
			}
		})
	}
}

func TestShippedBlueprintsFeedback(t *testing.T) {
	if got := SystemDesign().Competencies; len(got) < 3 {
		t.Errorf("system-design competencies %q, want at least three", got)
	}
	kc, err := Builtin(KnowledgeCaptureName)
	if err != nil {
		t.Fatal(err)
	}
	if len(kc.Competencies) != 0 || kc.CandidateFeedback {
		t.Errorf("knowledge capture: competencies %q, candidate feedback %v", kc.Competencies, kc.CandidateFeedback)
	}
}
