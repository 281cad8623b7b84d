package stages

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// intelBlueprint uses every field of the rubric, the exit conditions,
// guided stages and question targets.
const intelBlueprint = `name: screen
mode: interview
rubric:
  - id: years_experience
    label: Years of experience
    required: true
    question: How many years have you worked in software?
    stage: intro
    expect: duration
    keywords: [years, experience]
  - id: why_role
exit_conditions:
  required_fields_threshold: 0.8
  max_turns: 20
  graceful_closing: false
  rounds: 4
stages:
  - name: intro
    instructions: Hello {{.Name}}.
    limit: 60
    guided: true
    questions:
      - text: How long have you used Go?
        targets: {skill: Go, attribute: duration, field: years_experience, category: Backend, assesses: [tenure], phase: intro}
  - name: closing
    instructions: Bye.
    limit: 30
`

func TestParseIntelligence(t *testing.T) {
	b, err := Parse([]byte(intelBlueprint), "screen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	no := false
	wantRubric := []RubricField{
		{ID: "years_experience", Label: "Years of experience", Required: true, Question: "How many years have you worked in software?",
			Stage: "intro", Expect: ExpectDuration, Keywords: []string{"years", "experience"}},
		{ID: "why_role", Label: "Why role"},
	}
	if b.Mode != ModeInterview || !reflect.DeepEqual(b.Rubric, wantRubric) {
		t.Errorf("mode %q, rubric %+v", b.Mode, b.Rubric)
	}
	if want := (ExitConditions{RequiredFieldsThreshold: 0.8, MaxTurns: 20, GracefulClosing: &no, Rounds: 4}); !reflect.DeepEqual(b.Exit, want) {
		t.Errorf("exit = %+v, want %+v", b.Exit, want)
	}
	if !b.Guided("intro") || b.Guided("closing") {
		t.Error("guided stages wrong")
	}
	q := b.Stages[0].Questions[0]
	wantTargets := Targets{Skill: "Go", Attribute: "duration", Field: "years_experience", Category: "Backend", Assesses: []string{"tenure"}, Phase: "intro"}
	if q.Context.Kind != "" || !reflect.DeepEqual(q.Context.Targets, wantTargets) {
		t.Errorf("question context = %+v, want kind empty and targets %+v", q.Context, wantTargets)
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
}

func TestParseIntelligenceErrors(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           string // the complete first line of the error
	}{
		{"mode typo", "mode: interview", "mode: knowledge-capture",
			`screen.yaml:2: mode: "knowledge-capture" is not a mode (did you mean "knowledge_capture"?); use interview or knowledge_capture, or leave it out for an interview`},
		{"rubric id upper case", "id: why_role", "id: Why_Role",
			`screen.yaml:11: rubric[1].id: "Why_Role" may only contain lower-case letters, digits, '-' and '_' (for example "years_experience")`},
		{"rubric id duplicate", "id: why_role", "id: years_experience",
			`screen.yaml:11: rubric[1].id: "years_experience" is already the id of rubric[0]; rubric ids must be unique`},
		{"rubric unknown stage", "stage: intro", "stage: intr",
			`screen.yaml:8: rubric[0].stage: "intr" is not a stage of this blueprint; use one of "intro", "closing", or leave stage out to ask for the field in any guided stage`},
		{"rubric expect", "expect: duration", "expect: durations",
			`screen.yaml:9: rubric[0].expect: "durations" is not a kind of value (did you mean "duration"?); use one of duration, number, role, or leave expect out for any substantive answer`},
		{"rubric unknown key", "label: Years of experience", "lable: Years of experience",
			`screen.yaml:5: rubric[0].lable: unknown field "lable" in rubric field (did you mean "label"?); known fields are id, label, required, question, stage, expect, keywords`},
		{"rubric required not a bool", "required: true", "required: always",
			`screen.yaml:6: rubric[0].required: "always" is not true or false`},
		{"threshold above one", "required_fields_threshold: 0.8", "required_fields_threshold: 80",
			`screen.yaml:13: exit_conditions.required_fields_threshold: 80 is not a share between 0 and 1; use 1 to require every required rubric field, 0.8 for four in five`},
		{"threshold not a number", "required_fields_threshold: 0.8", "required_fields_threshold: most",
			`screen.yaml:13: exit_conditions.required_fields_threshold: "most" is not a number; write a decimal such as 0.8`},
		{"negative max turns", "max_turns: 20", "max_turns: -1",
			`screen.yaml:14: exit_conditions.max_turns: -1 is negative; use a number of candidate turns, or leave it out for 30`},
		{"negative rounds", "rounds: 4", "rounds: -4",
			`screen.yaml:16: exit_conditions.rounds: -4 is negative; use a number of questions, or leave it out for 10`},
		{"exit unknown key", "max_turns: 20", "max_turn: 20",
			`screen.yaml:14: exit_conditions.max_turn: unknown field "max_turn" in exit_conditions (did you mean "max_turns"?)`},
		{"guided not a bool", "guided: true", "guided: [yes]",
			`screen.yaml:21: stages[0].guided: a list is not true or false`},
		{"target attribute", "attribute: duration", "attribute: years",
			`screen.yaml:24: stages[0].questions[0].targets.attribute (stage "intro"): "years" is not a skill attribute; use one of duration, depth, scale, autonomy, production_vs_prototype, constraints`},
		{"target field", "field: years_experience", "field: years_experiance",
			`screen.yaml:24: stages[0].questions[0].targets.field (stage "intro"): "years_experiance" is not a rubric field of this blueprint (did you mean "years_experience"?); use one of years_experience, why_role`},
		{"target phase", "phase: intro", "phase: design",
			`screen.yaml:24: stages[0].questions[0].targets.phase (stage "intro"): "design" is not a stage of this blueprint; use one of "intro", "closing"`},
		{"target attribute without skill", "skill: Go, ", "",
			`screen.yaml:24: stages[0].questions[0].targets.skill (stage "intro"): is empty but attribute "duration" is set`},
		{"target unknown key", "category: Backend", "categroy: Backend",
			`screen.yaml:24: stages[0].questions[0].targets.categroy: unknown field "categroy" in targets (did you mean "category"?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(intelBlueprint, tc.from, tc.to, 1)
			if src == intelBlueprint {
				t.Fatalf("%q is not in the blueprint", tc.from)
			}
			_, err := Parse([]byte(src), "screen.yaml")
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

func TestEvaluatePhaseIsOfferedOnlyByName(t *testing.T) {
	if !ToolEvaluatePhase.Known() {
		t.Error("evaluate_phase is not a known tool")
	}
	if (Stage{}).Offers(ToolEvaluatePhase) {
		t.Error("a stage naming no tools offers evaluate_phase")
	}
	s := Stage{Tools: []ToolName{ToolEvaluatePhase, ToolAskQuestion}}
	if got, want := s.OfferedTools(), []ToolName{ToolAskQuestion, ToolEvaluatePhase}; !reflect.DeepEqual(got, want) {
		t.Errorf("OfferedTools() = %v, want %v", got, want)
	}
	if !s.Offers(ToolEvaluatePhase) {
		t.Error("a stage listing evaluate_phase does not offer it")
	}
}

func TestBuiltinsRoundTrip(t *testing.T) {
	for _, name := range BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			b, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			out, err := yaml.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse(out, name+".yaml")
			if err != nil {
				t.Fatalf("Parse of marshalled blueprint: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(b, again) {
				t.Errorf("round trip changed the blueprint\n%s", out)
			}
		})
	}
}

func TestDefaultRubric(t *testing.T) {
	b := Default()
	var ids []string
	for _, f := range b.Rubric {
		ids = append(ids, f.ID)
		if !f.Required || f.Question == "" || len(f.Keywords) == 0 || b.Index(f.Stage) < 0 {
			t.Errorf("rubric field %+v lacks required, a question, keywords or a stage", f)
		}
	}
	want := []string{FieldCurrentRole, FieldYearsExperience, FieldWhyRole, FieldProudProject, FieldHardProblem, FieldImpactNumbers}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("rubric ids %v, want %v", ids, want)
	}
	if e := b.Exit; e.Threshold() != 1 || e.Turns() != DefaultMaxTurns || !e.Graceful() {
		t.Errorf("exit conditions %+v", e)
	}
	if !b.Guided("intro") || !b.Guided("experience") || b.Guided("greeting") || b.Guided("closing") {
		t.Error("intro and experience, and only they, should be guided")
	}
	targets := map[string]string{"intro-1": FieldCurrentRole, "intro-2": FieldWhyRole, "experience-1": FieldProudProject, "experience-2": FieldHardProblem}
	for _, s := range b.Stages {
		for _, q := range s.Questions {
			if q.Context.Targets.Field != targets[q.ID] || q.Context.Kind != "" {
				t.Errorf("%s context %+v, want field %q and no kind", q.ID, q.Context, targets[q.ID])
			}
		}
	}
}

func TestKnowledgeCaptureBlueprint(t *testing.T) {
	b, err := Builtin(KnowledgeCaptureName)
	if err != nil {
		t.Fatal(err)
	}
	if !b.KnowledgeCapture() || len(b.Rubric) != 0 || b.Exit.CaptureRounds() != 10 || !b.Guided("capture") {
		t.Errorf("knowledge capture: mode %q, rubric %d, rounds %d, capture guided %v", b.Mode, len(b.Rubric), b.Exit.CaptureRounds(), b.Guided("capture"))
	}
	if s, _, _ := b.Stage("capture"); s.Limit != 20*time.Minute || s.MinQuestions != 1 {
		t.Errorf("capture stage limit %v, min_questions %d", s.Limit, s.MinQuestions)
	}
	if SystemDesign().KnowledgeCapture() || Default().KnowledgeCapture() {
		t.Error("an interview blueprint claims knowledge capture")
	}
}

// TestSystemDesignOffersPhaseEvaluation: every stage between the
// greeting and the closing is a phase the interviewer evaluates, and for
// every problem of the pool each phase says what a complete one covers.
func TestSystemDesignOffersPhaseEvaluation(t *testing.T) {
	sd := SystemDesign()
	if len(sd.Problems) < 5 {
		t.Fatalf("%d problems in the system-design pool, want at least 5", len(sd.Problems))
	}
	for _, p := range sd.Problems {
		b := sd.WithProblem(p)
		for _, s := range b.Stages {
			phase := s.Name != "greeting" && !b.IsLast(s.Name)
			if s.Offers(ToolEvaluatePhase) != phase {
				t.Errorf("%s: stage %s offers evaluate_phase: %v, want %v", p.ID, s.Name, s.Offers(ToolEvaluatePhase), phase)
			}
			if !phase {
				continue
			}
			for _, n := range Tools {
				if !s.Offers(n) {
					t.Errorf("%s: phase %s lost the default tool %s", p.ID, s.Name, n)
				}
			}
			if len(s.Keywords) < 7 {
				t.Errorf("%s: phase %s has %d keywords; a phase evaluation needs what a complete phase covers", p.ID, s.Name, len(s.Keywords))
			}
		}
	}
}
