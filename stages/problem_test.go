package stages

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestProblemPool: an interview draws its problem by its id, the same
// every time, every problem of the pool drawn for some interview; a named
// problem is found or refused with the pool listed; the chosen problem's
// banks and keywords replace the stages' own, on a copy.
func TestProblemPool(t *testing.T) {
	b := SystemDesign()
	drawn := map[string]bool{}
	for i := range 200 {
		seed := fmt.Sprintf("interview-%d", i)
		p, ok := b.PickProblem(seed)
		again, _ := b.PickProblem(seed)
		if !ok || p.ID != again.ID {
			t.Fatalf("PickProblem(%q) = %q then %q", seed, p.ID, again.ID)
		}
		drawn[p.ID] = true
	}
	if len(drawn) != len(b.Problems) {
		t.Errorf("drew %v of %d problems", drawn, len(b.Problems))
	}
	p, err := b.FindProblem(" Chat ")
	if err != nil || p.ID != "chat" || p.Title != "a chat service" {
		t.Fatalf("FindProblem(Chat) = %+v, %v", p, err)
	}
	if _, err := b.FindProblem("elevator"); err == nil || !strings.Contains(err.Error(), "ticketing, ride-hailing, chat, url-shortener, notifications") {
		t.Errorf("FindProblem(elevator) error %v, want the pool listed", err)
	}
	if _, err := Default().FindProblem("chat"); err == nil || !strings.Contains(err.Error(), "leave the problem out") {
		t.Errorf("a problem for the default blueprint: %v", err)
	}
	if _, ok := Default().PickProblem("x"); ok {
		t.Error("the default blueprint drew a problem")
	}

	set := b.WithProblem(p)
	st, _, _ := set.Stage("data-design")
	want := p.Stages[0]
	if !reflect.DeepEqual(st.Keywords, want.Keywords) || len(st.Questions) != len(want.Questions) || st.Questions[0].ID != "data-design-1" || st.Questions[0].Text != want.Questions[0].Text {
		t.Errorf("data design set for chat: %+v", st)
	}
	if orig, _, _ := b.Stage("data-design"); len(orig.Questions) != 0 {
		t.Error("WithProblem changed the blueprint it copied")
	}
	prompt, err := set.PersonaPrompt(Profile{Name: "Ada", Problem: p})
	if err != nil || !strings.Contains(prompt, "The problem is a chat service: I'd like you to design a chat service like WhatsApp") || !strings.Contains(prompt, "groups of up to five hundred people") {
		t.Errorf("persona for chat: %v\n%s", err, prompt)
	}
	q, _ := set.Stages[set.Index("clarification")].Questions[0].Render(Profile{Name: "Ada", Problem: p})
	if !strings.HasPrefix(q, "I'd like you to design a chat service") || !strings.HasSuffix(q, "What would you like to know before you start?") {
		t.Errorf("first clarification question %q", q)
	}
}

// TestProblemsRoundTripAndValidate: a pool survives writing and reading
// back; its mistakes are refused with the line and what to do.
func TestProblemsRoundTripAndValidate(t *testing.T) {
	b := SystemDesign()
	data, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "sd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Problems, b.Problems) {
		t.Errorf("problems after a round trip differ")
	}
	bad := `name: pool
problems:
  - id: one
    statement: Design one.
    stages:
      - name: nowhere
        questions: ["Why?"]
  - id: one
    statement: ""
stages:
  - name: talk
    instructions: Talk.
    limit: 60
`
	_, err = Parse([]byte(bad), "pool.yaml")
	for _, want := range []string{
		`pool.yaml:6: problems[0].stages[0].name: "nowhere" is not a stage of this blueprint`,
		`pool.yaml:8: problems[1].id: "one" is already the id of problems[0]`,
		`pool.yaml:9: problems[1].statement: is empty; write how the interviewer presents the problem`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to contain %q", err, want)
		}
	}
}
