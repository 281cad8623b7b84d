package stages

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// fuzzFile is the file name the blueprint fuzz target parses under.
const fuzzFile = "fuzz.yaml"

// FuzzParseBlueprint feeds arbitrary YAML to Parse. It must never panic: a
// blueprint it accepts passes Validate and survives a round trip through
// yaml.Marshal unchanged; a blueprint it refuses is refused with errors that
// name the file, and the line wherever the problem has one.
func FuzzParseBlueprint(f *testing.F) {
	if data, err := blueprintFiles.ReadFile("blueprints/system-design.yaml"); err == nil {
		f.Add(data)
	}
	if data, err := blueprintFiles.ReadFile("blueprints/knowledge-capture.yaml"); err == nil {
		f.Add(data)
	}
	if out, err := yaml.Marshal(Default()); err == nil {
		f.Add(out)
	}
	f.Add([]byte(intelBlueprint))
	seeds := []string{
		"",
		"name: t\nstages:\n  - name: a\n    instructions: Ask.\n    limit: 60\n",
		"stages:\n  - name: a\n    instructions: Ask {{.Name}}.\n    limit: 1m30s\n    min_time: 7.5\n    questions: [Tell me about yourself., {id: q, text: Why?, keywords: [why]}]\n",
		"stages:\n  - name: a\n    limit: 60\n    next: a\n",
		"stages:\n  - name: a\n    limit: 60\n  - name: a\n    limit: 1e300\n",
		"stages:\n  - name: a\n    limit: NaN\n    min_time: -Inf\n    min_questions: 99999999999999999999\n",
		"stages:\n  - name: a\n    instructions: '{{if .Name}}'\n    limit: 60\n",
		"stages:\n  - name: a\n    instructions: '{{.Nope}}'\n    limit: 60\n",
		"stages: &s\n  - *s\n",
		"a: &a [*a, *a]\nstages: *a\n",
		// A billion laughs: aliases that multiply.
		"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nstages: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
		"stages:\n- {name: a, limit: 60, tools: [ask_question, ask_question, nope]}\n",
		"name: t\nname: u\nstages: []\n",
		"- just\n- a list\n",
		"\"unterminated\n",
		"stages:\n  - name: a\n\tlimit: 60\n",
		"---\nname: a\n---\nname: b\n",
		"!!binary AAAA",
		"stages:\n  - name: a\n    limit: !!float 60\n    questions:\n      - !!map {text: x}\n",
		"\xff\xfe\x00s",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(data, fuzzFile)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("Parse accepted a blueprint that Validate refuses: %v", err)
		}
		out, err := yaml.Marshal(b)
		if err != nil {
			t.Fatalf("Marshal of an accepted blueprint: %v", err)
		}
		again, err := Parse(out, fuzzFile)
		if err != nil {
			t.Fatalf("Parse of the marshalled blueprint: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(b, again) {
			t.Fatalf("round trip changed the blueprint\nbefore: %#v\nafter:  %#v\nyaml:\n%s", b, again, out)
		}
	})
}

// checkFuzzError checks that every problem in err is a *FieldError naming
// fuzzFile and saying what is wrong, or a YAML error naming fuzzFile.
func checkFuzzError(t *testing.T, err error) {
	t.Helper()
	var leaves []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		leaves = j.Unwrap()
	} else {
		leaves = []error{err}
	}
	for _, e := range leaves {
		msg := e.Error()
		if !strings.HasPrefix(msg, fuzzFile+":") && !strings.Contains(msg, " "+fuzzFile+": ") {
			t.Fatalf("error does not name the file: %q", msg)
		}
		var fe *FieldError
		if !errors.As(e, &fe) {
			continue
		}
		if fe.Msg == "" || strings.Contains(msg, ": :") {
			t.Fatalf("error without a message: %q", msg)
		}
	}
}

// TestParseWholeDocumentError checks that a file that is not a mapping is
// refused with its line and no empty field name.
func TestParseWholeDocumentError(t *testing.T) {
	_, err := Parse([]byte("- just\n- a list\n"), "list.yaml")
	want := "list.yaml:1: must be a mapping of blueprint fields"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Parse(list) = %v, want an error starting %q", err, want)
	}
}
