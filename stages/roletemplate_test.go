package stages

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const goodTemplate = `<!--
A comment, with ## headings that are not read:
## Not a category
### Question
-->
# Backend engineer

Prose for people.

## APIs & Backend

Prose about the category.

### Question
How would you design
a rate limiter?

### What this assesses
- API design
- fairness, under load
  and burst handling

### Expected answer (in general)
Token bucket per client,
stored in a shared cache.

- mentions limits per key

### Skip if
They built one before.
- covered: proud_project
- known: Go.scale
- mentioned: token bucket
- Note: free text with a colon is fine

### Question
Which database would you pick?
### What this assesses
data modelling, consistency; cost.
### Expected answer
Relational by default.

## Data
### question:
How do you back up data?
### What this assesses
backups
### Expected answer (in general)
` + "```" + `
### not a heading in a fence
` + "```" + `
`

func TestParseTemplateGood(t *testing.T) {
	tpl, err := ParseTemplate([]byte(goodTemplate), "dir/backend.md")
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Name != "backend" || tpl.Title != "Backend engineer" {
		t.Errorf("name, title = %q, %q", tpl.Name, tpl.Title)
	}
	want := []Question{
		{
			ID: "apis-backend-1", Text: "How would you design a rate limiter?",
			Purpose:  "Assesses API design, fairness, under load and burst handling.",
			Keywords: []string{"api", "design", "fairness", "load", "burst", "handling"},
			Expected: "Token bucket per client, stored in a shared cache.\n\n- mentions limits per key",
			SkipIf:   "They built one before.\n- covered: proud_project\n- known: Go.scale\n- mentioned: token bucket\n- Note: free text with a colon is fine",
			Context: QuestionContext{Kind: KindTemplate, Targets: Targets{Category: "APIs & Backend",
				Assesses: []string{"API design", "fairness, under load and burst handling"}}},
		},
		{
			ID: "apis-backend-2", Text: "Which database would you pick?",
			Purpose:  "Assesses data modelling, consistency, cost.",
			Keywords: []string{"data", "modelling", "consistency", "cost"},
			Expected: "Relational by default.",
			Context: QuestionContext{Kind: KindTemplate, Targets: Targets{Category: "APIs & Backend",
				Assesses: []string{"data modelling", "consistency", "cost"}}},
		},
		{
			ID: "data-1", Text: "How do you back up data?",
			Purpose: "Assesses backups.", Keywords: []string{"backups"},
			Expected: "```\n### not a heading in a fence\n```",
			Context:  QuestionContext{Kind: KindTemplate, Targets: Targets{Category: "Data", Assesses: []string{"backups"}}},
		},
	}
	if !reflect.DeepEqual(tpl.Questions, want) {
		t.Errorf("questions:\n got %#v\nwant %#v", tpl.Questions, want)
	}
	if got := tpl.Categories(); !slices.Equal(got, []string{"APIs & Backend", "Data"}) {
		t.Errorf("Categories() = %q", got)
	}
	wantSkip := []SkipCondition{
		{Kind: SkipCovered, Field: "proud_project"},
		{Kind: SkipKnown, Skill: "Go", Attribute: "scale"},
		{Kind: SkipMentioned, Word: "token bucket"},
	}
	if got := SkipConditions(tpl.Questions[0].SkipIf); !reflect.DeepEqual(got, wantSkip) {
		t.Errorf("SkipConditions = %+v, want %+v", got, wantSkip)
	}
}

func TestParseTemplateErrors(t *testing.T) {
	const okQuestion = "### Question\nWhy?\n### What this assesses\nmotivation\n### Expected answer (in general)\nA reason.\n"
	tests := []struct {
		name, src string
		want      []string // every error, in order
	}{
		{"assesses before question", "# T\n## Cat\n### What this assesses\nx\n",
			[]string{`t.md:3: "What this assesses" must follow a "### Question" block`}},
		{"unknown block with typo", "# T\n## Cat\n### Question\nWhy?\n### What this asseses\nx\n### Expected answer (in general)\ny\n",
			[]string{`t.md:5: unknown block "### What this asseses" (did you mean "### What this assesses"?)`}},
		{"unknown block by first word", "# T\n## Cat\n" + okQuestion + "### Skip when they said so\nx\n",
			[]string{`t.md:9: unknown block "### Skip when they said so" (did you mean "### Skip if"?)`}},
		{"question before category", "# T\n" + okQuestion + "## Cat\n" + okQuestion,
			[]string{`t.md:2: "### Question" comes before any "## CATEGORY" heading`}},
		{"empty block", "# T\n## Cat\n### Question\n\n### What this assesses\nx\n### Expected answer (in general)\ny\n",
			[]string{`t.md:3: the "### Question" block is empty; write the question`}},
		{"missing expected", "# T\n## Cat\n### Question\nWhy?\n### What this assesses\nx\n",
			[]string{`t.md:3: the question of line 3 has no "### Expected answer (in general)" block`}},
		{"no questions", "# T\n\nJust prose.\n", []string{`t.md:1: the template has no questions`}},
		{"empty file", "", []string{`t.md:1: the template has no questions`}},
		{"block twice", "# T\n## Cat\n" + okQuestion + "### What this assesses\ny\n",
			[]string{`t.md:9: "### What this assesses" appears twice in the question of line 3 (first at line 5)`}},
		{"second title", "# T\n## Cat\n" + okQuestion + "# Again\n",
			[]string{`t.md:9: a second "# " heading`}},
		{"duplicate category", "# T\n## Cat\n" + okQuestion + "## cat\n" + okQuestion,
			[]string{`t.md:9: category "cat" repeats the category at line 2`}},
		{"empty category", "# T\n##\n" + okQuestion,
			[]string{`t.md:2: the "## " category heading is empty`}},
		{"bad skip attribute", "# T\n## Cat\n" + okQuestion + "### Skip if\n- known: Go.years\n",
			[]string{`t.md:10: "known: Go.years": "years" is not a skill attribute; use one of duration`}},
		{"skip attribute typo", "# T\n## Cat\n" + okQuestion + "### Skip if\nText.\n- known: Python.duraton\n",
			[]string{`t.md:11: "known: Python.duraton": "duraton" is not a skill attribute (did you mean "duration"?)`}},
		{"skip known without attribute", "# T\n## Cat\n" + okQuestion + "### Skip if\n- known: Python\n",
			[]string{`t.md:10: "known: Python" needs a skill and an attribute`}},
		{"skip kind typo", "# T\n## Cat\n" + okQuestion + "### Skip if\n- coverd: why_role\n",
			[]string{`t.md:10: unknown condition "coverd" (did you mean "covered"?)`}},
		{"skip covered not an id", "# T\n## Cat\n" + okQuestion + "### Skip if\n- covered: Why Role\n",
			[]string{`t.md:10: "covered: Why Role" needs a rubric field id in lower case`}},
		{"skip mentioned empty", "# T\n## Cat\n" + okQuestion + "### Skip if\n- mentioned:\n",
			[]string{`t.md:10: "mentioned:" needs a word or phrase`}},
		{"every problem of the file", "# T\n### Question\nx\n## Cat\n### Expected answer\ny\n### Question\n### Skip if\n- known: a.b\n",
			[]string{
				`t.md:2: "### Question" comes before any "## CATEGORY" heading`,
				`t.md:5: "Expected answer (in general)" must follow a "### Question" block`,
				`t.md:7: the "### Question" block is empty`,
				`t.md:7: the question of line 7 has no "### What this assesses" block`,
				`t.md:7: the question of line 7 has no "### Expected answer (in general)" block`,
				`t.md:9: "known: a.b": "b" is not a skill attribute`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := ParseTemplate([]byte(tc.src), "t.md")
			if err == nil {
				t.Fatalf("ParseTemplate accepted it: %+v", tpl)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("%d errors, want %d:\n%v", len(got), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("error %d = %q\nwant prefix %q", i, got[i], w)
				}
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.File != "t.md" {
				t.Errorf("error %v is not a *FieldError naming the file", err)
			}
		})
	}
}

func TestParseTemplateDefaultsTitle(t *testing.T) {
	tpl, err := ParseTemplate([]byte("## Cat\n### Question\nWhy?\n### What this assesses\nx\n### Expected answer\ny\n"), "data-engineer.md")
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Title != "Data engineer" {
		t.Errorf("title = %q, want one from the file name", tpl.Title)
	}
}

func TestSkipConditionsIgnoresOtherLines(t *testing.T) {
	got := SkipConditions("They said so.\n* Known: Node.js.depth\n- coverd: x\n- known: nodot\n- mentioned:   kafka streams  \n")
	want := []SkipCondition{{Kind: SkipKnown, Skill: "Node.js", Attribute: "depth"}, {Kind: SkipMentioned, Word: "kafka streams"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SkipConditions = %+v, want %+v", got, want)
	}
}

func TestBuiltinTemplates(t *testing.T) {
	if got := TemplateNames(); !slices.Contains(got, "fullstack-senior") {
		t.Fatalf("TemplateNames() = %q, want fullstack-senior among them", got)
	}
	for _, name := range TemplateNames() {
		tpl, err := BuiltinTemplate(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tpl.Name != name || tpl.Title == "" {
			t.Errorf("%s: name %q, title %q", name, tpl.Name, tpl.Title)
		}
		cats := tpl.Categories()
		if len(cats) < 5 || len(cats) > 6 {
			t.Errorf("%s: %d categories, want 5–6", name, len(cats))
		}
		if n := len(tpl.Questions); n < 10 || n > 12 {
			t.Errorf("%s: %d questions, want 10–12: enough for a role, few enough to ask", name, n)
		}
		for _, q := range tpl.Questions {
			body := strings.TrimRight(q.Text, "?.")
			if strings.ContainsAny(body, "?!\n:;") || strings.Contains(body, ". ") || len(body) == len(q.Text) {
				t.Errorf("%s: %s is not one spoken question: %q", name, q.ID, q.Text)
			}
			if q.Expected == "" || len(q.Keywords) == 0 || len(q.Context.Targets.Assesses) == 0 {
				t.Errorf("%s: %s lacks expected answer, keywords or assesses", name, q.ID)
			}
			if q.SkipIf == "" {
				t.Errorf("%s: %s has no Skip if block", name, q.ID)
			}
			// A "mentioned:" word is found inside other words: it must be
			// a phrase no everyday answer contains by accident.
			for _, c := range SkipConditions(q.SkipIf) {
				if c.Kind == SkipMentioned && len(c.Word) < 6 {
					t.Errorf("%s: %s skips on %q, too short a word to mean the topic was covered", name, q.ID, c.Word)
				}
			}
		}
	}
	for _, name := range []string{"backend-senior", "frontend-senior", "fullstack-senior", "mobile-mid", "data-engineer-senior",
		"ml-engineer-senior", "sre-senior", "engineering-manager", "product-manager-senior", "customer-success-manager"} {
		if !slices.Contains(TemplateNames(), name) {
			t.Errorf("no built-in role template %q", name)
		}
	}
	fs, err := BuiltinTemplate(" FullStack-Senior ")
	if err != nil || len(fs.Questions) != 12 {
		t.Fatalf("BuiltinTemplate(mixed case) = %v questions, %v; want 12", fs, err)
	}
	fs.Questions[0].Text = "changed"
	again, _ := BuiltinTemplate("fullstack-senior")
	if again.Questions[0].Text == "changed" {
		t.Error("BuiltinTemplate returned shared memory")
	}
	if _, err := BuiltinTemplate("nope"); err == nil || !strings.Contains(err.Error(), "fullstack-senior") {
		t.Errorf("BuiltinTemplate(nope) error %v does not list the names", err)
	}
}

func TestFindTemplate(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "mine.md")
	if err := os.WriteFile(own, []byte("# Mine\n## Cat\n### Question\nWhy?\n### What this assesses\nx\n### Expected answer\ny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notMD := filepath.Join(dir, "mine.txt")
	if err := os.WriteFile(notMD, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tpl, err := FindTemplate("fullstack-senior"); err != nil || tpl.Name != "fullstack-senior" {
		t.Errorf("FindTemplate(builtin) = %v, %v", tpl, err)
	}
	if tpl, err := FindTemplate(own); err != nil || tpl.Name != "mine" {
		t.Errorf("FindTemplate(file) = %v, %v", tpl, err)
	}
	for _, bad := range []string{"nope", filepath.Join(dir, "missing.md"), notMD, dir} {
		if _, err := FindTemplate(bad); err == nil || !strings.Contains(err.Error(), "fullstack-senior") {
			t.Errorf("FindTemplate(%q) error %v does not list the built-in names", bad, err)
		}
	}
}

// FuzzParseTemplate feeds arbitrary markdown to ParseTemplate. It must
// never panic; a template it accepts has questions with unique ids, text,
// assesses and expected answers; a refused one is refused with errors
// naming the file.
func FuzzParseTemplate(f *testing.F) {
	if data, err := templateFiles.ReadFile("templates/fullstack-senior.md"); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		goodTemplate, "", "#", "##", "###", "# T\n## C\n### Question\n", "<!--", "```\n## C\n",
		"## C\n### Question\nq?\n### What this assesses\n- \n### Expected answer\n.\n",
		"## C\n### Question\nq?\n### What this assesses\n,,;\n### Expected answer\ne\n",
		"## ★\n### Question\nq\n### What this assesses\na\n### Expected answer\ne\n### Skip if\n- known: .depth\n",
		"\xef\xbb\xbf## C\r\n### Question\r\nq\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tpl, err := ParseTemplate(data, "fuzz.md")
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.md") {
					t.Fatalf("error line %q does not name the file", line)
				}
			}
			return
		}
		if len(tpl.Questions) == 0 {
			t.Fatal("accepted a template without questions")
		}
		ids := map[string]bool{}
		for _, q := range tpl.Questions {
			if ids[q.ID] || q.ID == "" || strings.TrimSpace(q.Text) == "" || q.Expected == "" || q.Context.Kind != KindTemplate {
				t.Fatalf("accepted a broken question %+v", q)
			}
			ids[q.ID] = true
		}
	})
}
