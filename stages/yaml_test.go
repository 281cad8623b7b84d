package stages

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestShippedExampleRoundTrip(t *testing.T) {
	data, err := blueprintFiles.ReadFile("blueprints/system-design.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		bp   func(t *testing.T) *Blueprint
	}{
		{"system-design file", func(t *testing.T) *Blueprint {
			b, err := Parse(data, "system-design.yaml")
			if err != nil {
				t.Fatalf("Parse shipped example: %v", err)
			}
			return b
		}},
		{"default", func(*testing.T) *Blueprint { return Default() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.bp(t)
			out, err := yaml.Marshal(b)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			again, err := Parse(out, "roundtrip.yaml")
			if err != nil {
				t.Fatalf("Parse of marshalled blueprint: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(b, again) {
				t.Errorf("round trip changed the blueprint\nbefore: %+v\nafter:  %+v", b, again)
			}
			// A value marshals the same way as a pointer.
			outValue, err := yaml.Marshal(*b)
			if err != nil || string(outValue) != string(out) {
				t.Errorf("Marshal(value) = %q, %v; want the pointer's encoding", outValue, err)
			}
		})
	}
}

func TestParseDurations(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"90", 90 * time.Second},
		{"7.5", 7500 * time.Millisecond},
		{`"90"`, 90 * time.Second},
		{"90s", 90 * time.Second},
		{`"2m"`, 2 * time.Minute},
		{"1m30s", 90 * time.Second},
		{"1500ms", 1500 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			src := "name: t\nclosing_safety: " + tc.value + "\nstages:\n  - name: only\n    limit: " + tc.value + "\n"
			b, err := Parse([]byte(src), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if b.Stages[0].Limit != tc.want || b.ClosingSafety != tc.want {
				t.Errorf("limit %v, closing_safety %v; want %v", b.Stages[0].Limit, b.ClosingSafety, tc.want)
			}
			out, err := yaml.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse(out, "again.yaml")
			if err != nil || again.Stages[0].Limit != tc.want {
				t.Errorf("re-parsed %q: limit %v, %v; want %v", out, again.Stages[0].Limit, err, tc.want)
			}
		})
	}
}

func TestParseAliases(t *testing.T) {
	src := `name: t
stages:
  - name: a
    limit: &limit 45
    keywords: &kw [design, trade-off]
  - name: b
    limit: *limit
    keywords: *kw
`
	b, err := Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if b.Stages[1].Limit != 45*time.Second || !reflect.DeepEqual(b.Stages[1].Keywords, []string{"design", "trade-off"}) {
		t.Errorf("aliases not resolved: %+v", b.Stages[1])
	}
}

func TestParseDefaults(t *testing.T) {
	src := `stages:
  - name: problem-clarification
    limit: 60
    questions:
      - First question?
      - text: Second question?
      - id: custom
        text: Third question?
  - name: wrap_up
    title: Goodbye
    limit: 30
`
	b, err := Parse([]byte(src), filepath.Join("dir", "my-interview.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what     string
		got, wnt any
	}{
		{"blueprint name from file", b.Name, "my-interview"},
		{"blueprint title from name", b.Title, "My interview"},
		{"closing safety default", b.ClosingSafety, 60 * time.Second},
		{"stage title from name", b.Stages[0].Title, "Problem clarification"},
		{"explicit title kept", b.Stages[1].Title, "Goodbye"},
		{"plain string question", b.Stages[0].Questions[0], Question{ID: "problem-clarification-1", Text: "First question?"}},
		{"generated id", b.Stages[0].Questions[1].ID, "problem-clarification-2"},
		{"explicit id kept", b.Stages[0].Questions[2].ID, "custom"},
		{"min time default", b.Stages[0].MinTime, time.Duration(0)},
		{"keywords absent", b.Stages[0].Keywords, []string(nil)},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.wnt) {
			t.Errorf("%s: got %#v, want %#v", c.what, c.got, c.wnt)
		}
	}
}

// base is a valid two-stage blueprint; cases edit it. Line numbers:
//
//	1 name: t
//	2 stages:
//	3   - name: intro
//	4     instructions: Hello {{.Name}}.
//	5     limit: 60
//	6   - name: closing
//	7     instructions: Bye.
//	8     limit: 30
const base = `name: t
stages:
  - name: intro
    instructions: Hello {{.Name}}.
    limit: 60
  - name: closing
    instructions: Bye.
    limit: 30
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		want      string // the complete message of the first problem
		wantLine  int
		wantField string
	}{
		{
			name:      "bad duration",
			src:       strings.Replace(base, "limit: 60", "limit: abc", 1),
			want:      `bp.yaml:5: stages[0].limit: "abc" is not a duration (use seconds like 90 or a duration like "1m30s")`,
			wantLine:  5,
			wantField: "stages[0].limit",
		},
		{
			name:      "unknown stage field with suggestion",
			src:       strings.Replace(base, "limit: 30", "limt: 30", 1),
			want:      `bp.yaml:8: stages[1].limt: unknown field "limt" in stage (did you mean "limit"?); known fields are name, title, instructions, limit, min_time, min_questions, guided, questions, keywords, next, acknowledgement, tools`,
			wantLine:  8,
			wantField: "stages[1].limt",
		},
		{
			name:      "unknown top-level field",
			src:       "colour: blue\n" + base,
			want:      `bp.yaml:1: colour: unknown field "colour" in blueprint; known fields are name, title, description, persona, mode, language, closing_safety, rubric, exit_conditions, competencies, candidate_feedback, candidate_feedback_scores, problems, stages`,
			wantLine:  1,
			wantField: "colour",
		},
		{
			name:      "unknown question field",
			src:       base + "    questions:\n      - text: Why?\n        answer: Because.\n",
			want:      `bp.yaml:11: stages[1].questions[0].answer: unknown field "answer" in question; known fields are id, text, purpose, keywords`,
			wantLine:  11,
			wantField: "stages[1].questions[0].answer",
		},
		{
			name:      "unknown tool with suggestion",
			src:       strings.Replace(base, "limit: 60", "limit: 60\n    tools:\n      - ask_question\n      - transition_stag", 1),
			want:      `bp.yaml:8: stages[0].tools[1] (stage "intro"): "transition_stag" is not a tool of the interviewer (did you mean "transition_stage"?); use some of transition_stage, ask_question, assess_response, end_interview, evaluate_phase, or leave tools out to offer the default transition_stage, ask_question, assess_response, end_interview`,
			wantLine:  8,
			wantField: "stages[0].tools[1]",
		},
		{
			name:      "tool listed twice",
			src:       strings.Replace(base, "limit: 60", "limit: 60\n    tools: [ask_question, ask_question]", 1),
			want:      `bp.yaml:6: stages[0].tools[1] (stage "intro"): "ask_question" is listed twice; list each tool once`,
			wantLine:  6,
			wantField: "stages[0].tools[1]",
		},
		{
			name:      "duplicate stage names",
			src:       strings.Replace(base, "name: closing", "name: intro", 1),
			want:      `bp.yaml:6: stages[1].name: "intro" is already the name of stages[0]; stage names must be unique`,
			wantLine:  6,
			wantField: "stages[1].name",
		},
		{
			name:      "next pointing nowhere",
			src:       strings.Replace(base, "limit: 60", "limit: 60\n    next: nowhere", 1),
			want:      `bp.yaml:6: stages[0].next (stage "intro"): "nowhere" is not a stage of this blueprint; use one of "intro", "closing", "done", or leave next out to go to the following stage`,
			wantLine:  6,
			wantField: "stages[0].next",
		},
		{
			name:      "missing limit",
			src:       strings.Replace(base, "    limit: 30\n", "", 1),
			want:      `bp.yaml:6: stages[1].limit (stage "closing"): is missing or zero; every stage needs a deadline, for example limit: 120 (seconds) or limit: 2m`,
			wantLine:  6,
			wantField: "stages[1].limit",
		},
		{
			name:      "template that does not parse",
			src:       strings.Replace(base, "Hello {{.Name}}.", "Hello {{.Name}.", 1),
			want:      `bp.yaml:4: stages[0].instructions (stage "intro"): is not a valid template: stages[0].instructions:1: bad character U+007D '}'; check that every {{ has a matching }}`,
			wantLine:  4,
			wantField: "stages[0].instructions",
		},
		{
			name:      "template with an unknown field",
			src:       strings.Replace(base, "Bye.", "Bye {{.Surname}}.", 1),
			want:      `bp.yaml:7: stages[1].instructions (stage "closing"): template fails for a sample candidate: stages[1].instructions:1:6: executing "stages[1].instructions" at <.Surname>: can't evaluate field Surname in type stages.TemplateData; templates may use {{.Name}}`,
			wantLine:  7,
			wantField: "stages[1].instructions",
		},
		{
			name:      "min_time not below limit",
			src:       strings.Replace(base, "limit: 60", "limit: 60\n    min_time: 1m", 1),
			want:      `bp.yaml:6: stages[0].min_time (stage "intro"): 1m0s is not shorter than the limit 1m0s, so the stage could only ever end at its deadline; lower min_time or raise limit`,
			wantLine:  6,
			wantField: "stages[0].min_time",
		},
		{
			name:      "min_questions not a number",
			src:       strings.Replace(base, "limit: 30", "limit: 30\n    min_questions: two", 1),
			want:      `bp.yaml:9: stages[1].min_questions: "two" is not a whole number; write a count such as 3`,
			wantLine:  9,
			wantField: "stages[1].min_questions",
		},
		{
			name:      "keywords not a list",
			src:       strings.Replace(base, "limit: 30", "limit: 30\n    keywords: caching", 1),
			want:      `bp.yaml:9: stages[1].keywords: must be a list of words or phrases, like [caching, "data model"], not "caching"`,
			wantLine:  9,
			wantField: "stages[1].keywords",
		},
		{
			name:      "duplicate key",
			src:       strings.Replace(base, "limit: 30", "limit: 30\n    limit: 40", 1),
			want:      `bp.yaml:9: stages[1].limit: "limit" appears twice in the same stage; keep one`,
			wantLine:  9,
			wantField: "stages[1].limit",
		},
		{
			name:      "reserved stage name",
			src:       strings.Replace(base, "name: closing", "name: done", 1),
			want:      `bp.yaml:6: stages[1].name: "done" is reserved for the end of the interview; choose another name such as "closing"`,
			wantLine:  6,
			wantField: "stages[1].name",
		},
		{
			name:      "upper-case stage name",
			src:       strings.Replace(base, "name: closing", "name: Closing", 1),
			want:      `bp.yaml:6: stages[1].name: "Closing" may only contain lower-case letters, digits, '-' and '_' (for example "high-level-design")`,
			wantLine:  6,
			wantField: "stages[1].name",
		},
		{
			name:      "duplicate question ids",
			src:       base + "    questions:\n      - id: q\n        text: One?\n      - id: q\n        text: Two?\n",
			want:      `bp.yaml:12: stages[1].questions[1].id (stage "closing"): "q" is already used by stages[1].questions[0].id; question ids must be unique within the blueprint`,
			wantLine:  12,
			wantField: "stages[1].questions[1].id",
		},
		{
			name:      "next making a loop",
			src:       strings.Replace(base, "limit: 30", "limit: 30\n    next: intro", 1),
			want:      `bp.yaml:9: stages[1].next (stage "closing"): "intro" makes the interview loop (intro → closing → intro) so it would never reach "done"; point next at a later stage or "done"`,
			wantLine:  9,
			wantField: "stages[1].next",
		},
		{
			name:      "negative closing safety",
			src:       "closing_safety: -5\n" + base,
			want:      `bp.yaml:1: closing_safety: -5s is negative; use a positive duration such as 60 (seconds), or leave it out for the default of 60 s`,
			wantLine:  1,
			wantField: "closing_safety",
		},
		{
			name:      "no stages",
			src:       "name: t\nstages: []\n",
			want:      `bp.yaml:2: stages: the blueprint has no stages; add at least one stage with a name, instructions and a limit`,
			wantLine:  2,
			wantField: "stages",
		},
		{
			name:      "stages not a list",
			src:       "name: t\nstages:\n  intro: {}\n",
			want:      `bp.yaml:3: stages: must be a list of stages (lines starting with "- name: …"), not a mapping`,
			wantLine:  3,
			wantField: "stages",
		},
		{
			name:      "yaml syntax error",
			src:       "name: t\nstages:\n  - name: intro\n   limit: 60\n",
			want:      `bp.yaml:2: yaml: did not find expected '-' indicator; check the indentation and quoting around this line`,
			wantLine:  2,
			wantField: "yaml",
		},
		{
			name:      "empty file",
			src:       "",
			want:      `bp.yaml: stages: the file is empty; a blueprint needs at least a name and a list of stages (see stages/blueprints/system-design.yaml)`,
			wantField: "stages",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.src), "bp.yaml")
			if err == nil {
				t.Fatalf("Parse succeeded with %+v; want an error", b)
			}
			first := strings.Split(err.Error(), "\n")[0]
			if !strings.HasPrefix(first, tc.want) {
				t.Errorf("error:\n got %s\nwant %s", first, tc.want)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FieldError", err)
			}
			if fe.File != "bp.yaml" || fe.Line != tc.wantLine || fe.Field != tc.wantField {
				t.Errorf("FieldError at %s:%d %s; want bp.yaml:%d %s", fe.File, fe.Line, fe.Field, tc.wantLine, tc.wantField)
			}
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	src := strings.Replace(strings.Replace(base, "limit: 60", "limit: soon", 1), "limit: 30", "limit: later", 1)
	_, err := Parse([]byte(src), "bp.yaml")
	if err == nil {
		t.Fatal("Parse succeeded; want errors")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "bp.yaml:5: stages[0].limit") || !strings.HasPrefix(lines[1], "bp.yaml:8: stages[1].limit") {
		t.Errorf("error = %q; want one line per bad limit, in file order", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte(base), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(base, "limit: 60", "limit: x", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := Load(good)
	if err != nil || b.Name != "t" || len(b.Stages) != 2 {
		t.Fatalf("Load(good) = %+v, %v", b, err)
	}
	if _, err := Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":5: stages[0].limit:") {
		t.Errorf("Load(bad) error = %v; want it to start with %s:5: stages[0].limit:", err, bad)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) error = %v; want a wrapped not-exist error", err)
	}
}

func TestUnmarshalEmbedded(t *testing.T) {
	indented := "  " + strings.ReplaceAll(strings.TrimSuffix(base, "\n"), "\n", "\n  ") + "\n"
	var cfg struct {
		Blueprint *Blueprint `yaml:"blueprint"`
	}
	if err := yaml.Unmarshal([]byte("blueprint:\n"+indented), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Blueprint.Name != "t" || cfg.Blueprint.Stages[1].Limit != 30*time.Second || cfg.Blueprint.ClosingSafety != DefaultClosingSafety {
		t.Errorf("embedded blueprint = %+v", cfg.Blueprint)
	}
	bad := strings.Replace(indented, "limit: 60", "limit: nope", 1)
	err := yaml.Unmarshal([]byte("blueprint:\n"+bad), &cfg)
	if err == nil || !strings.Contains(err.Error(), `stages[0].limit: "nope" is not a duration`) {
		t.Errorf("embedded bad blueprint error = %v", err)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Line != 6 {
		t.Errorf("embedded error %#v; want a FieldError on line 6", err)
	}
	invalid := strings.Replace(indented, "    limit: 30\n", "", 1)
	err = yaml.Unmarshal([]byte("blueprint:\n"+invalid), &cfg)
	if !errors.As(err, &fe) || fe.Line != 7 || fe.Field != "stages[1].limit" {
		t.Errorf("embedded blueprint without a limit: error %v; want stages[1].limit on line 7", err)
	}
}

// TestParseTools: a stage offers the tools it lists, in the order of
// stages.Tools; a stage that lists none offers the default set; the list
// round-trips through MarshalYAML.
func TestParseTools(t *testing.T) {
	src := strings.Replace(base, "limit: 60", "limit: 60\n    tools: [ask_question, transition_stage]", 1)
	b, err := Parse([]byte(src), "bp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Stages[0].OfferedTools(), []ToolName{ToolTransitionStage, ToolAskQuestion}; !reflect.DeepEqual(got, want) {
		t.Errorf("intro offers %v, want %v", got, want)
	}
	if b.Stages[0].Offers(ToolEndInterview) {
		t.Error("intro offers end_interview, which it does not list")
	}
	if got := b.Stages[1].OfferedTools(); !reflect.DeepEqual(got, Tools) {
		t.Errorf("closing offers %v, want the default %v", got, Tools)
	}
	out, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(out, "again.yaml")
	if err != nil {
		t.Fatalf("re-parsing %s: %v", out, err)
	}
	if !reflect.DeepEqual(again.Stages[0].Tools, b.Stages[0].Tools) {
		t.Errorf("tools after a round trip %v, want %v", again.Stages[0].Tools, b.Stages[0].Tools)
	}
}
