package stages

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDefaultTimings(t *testing.T) {
	b := Default()
	if b.Name != "default" || b.ClosingSafety != 60*time.Second {
		t.Fatalf("Default() name %q closing safety %v; want default, 60s", b.Name, b.ClosingSafety)
	}
	want := []struct {
		name         string
		limit        time.Duration
		minTime      time.Duration
		minQuestions int
		minBank      int
	}{
		{"greeting", 60 * time.Second, 0, 1, 2},
		{"intro", 120 * time.Second, 30 * time.Second, 2, 5},
		{"experience", 240 * time.Second, 45 * time.Second, 5, 9},
		{"closing", 90 * time.Second, 0, 0, 0},
	}
	if len(b.Stages) != len(want) {
		t.Fatalf("Default() has %d stages; want %d", len(b.Stages), len(want))
	}
	for i, w := range want {
		s := b.Stages[i]
		if s.Name != w.name || s.Limit != w.limit || s.MinTime != w.minTime || s.MinQuestions != w.minQuestions {
			t.Errorf("stage %d = %s limit %v min_time %v min_questions %d; want %s %v %v %d",
				i, s.Name, s.Limit, s.MinTime, s.MinQuestions, w.name, w.limit, w.minTime, w.minQuestions)
		}
		if len(s.Questions) < w.minBank {
			t.Errorf("stage %s has %d questions; want at least %d", s.Name, len(s.Questions), w.minBank)
		}
		if len(s.Keywords) == 0 || s.Title == "" || s.Instructions == "" {
			t.Errorf("stage %s lacks keywords, title or instructions", s.Name)
		}
	}
	if got := b.Path(); !reflect.DeepEqual(got, []string{"greeting", "intro", "experience", "closing"}) {
		t.Errorf("Path() = %v", got)
	}
	if err := b.Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
}

func TestBuiltinBlueprints(t *testing.T) {
	if got := BuiltinNames(); !reflect.DeepEqual(got, []string{"default", "knowledge-capture", "system-design"}) {
		t.Fatalf("BuiltinNames() = %v", got)
	}
	wantStages := map[string][]string{
		"default":           {"greeting", "intro", "experience", "closing"},
		"knowledge-capture": {"greeting", "capture", "closing"},
		"system-design":     {"greeting", "clarification", "requirements", "data-design", "api-design", "high-level-design", "closing"},
	}
	for _, name := range BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			b, err := Builtin(" " + strings.ToUpper(name) + " ")
			if err != nil {
				t.Fatal(err)
			}
			if b.Name != name {
				t.Errorf("Builtin(%q).Name = %q", name, b.Name)
			}
			if got := b.Path(); !reflect.DeepEqual(got, wantStages[name]) {
				t.Errorf("stages %v; want %v", got, wantStages[name])
			}
			if err := b.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			// A blueprint with a pool of problems runs set for one of them:
			// each must give every stage its bank.
			runs := []*Blueprint{b}
			if len(b.Problems) > 0 {
				runs = nil
				for _, p := range b.Problems {
					runs = append(runs, b.WithProblem(p))
				}
			}
			for _, b := range runs {
				checkBanks(t, b)
			}
		})
	}
	if _, err := Builtin("behavioural"); err == nil || !strings.Contains(err.Error(), "default, knowledge-capture, system-design") {
		t.Errorf("Builtin(unknown) error = %v; want it to list the known names", err)
	}
	if !IsBuiltin("System-Design") || IsBuiltin("nope") {
		t.Error("IsBuiltin disagrees with BuiltinNames")
	}
}

// checkBanks checks every stage of b has keywords, instructions, a limit
// and, but the last, a bank of questions with ids, purposes and keywords.
func checkBanks(t *testing.T, b *Blueprint) {
	t.Helper()
	for _, s := range b.Stages {
		if len(s.Keywords) == 0 || s.Instructions == "" || s.Limit <= 0 {
			t.Errorf("stage %s lacks keywords, instructions or limit", s.Name)
		}
		if !b.IsLast(s.Name) && len(s.Questions) < max(2, s.MinQuestions) {
			t.Errorf("stage %s has %d questions; want a bank of at least max(2, min_questions=%d)", s.Name, len(s.Questions), s.MinQuestions)
		}
		for _, q := range s.Questions {
			if q.ID == "" || q.Purpose == "" || len(q.Keywords) == 0 {
				t.Errorf("question %q lacks an id, purpose or keywords", q.ID)
			}
		}
	}
}

// snapshot prints a blueprint with its pointers followed, so two equal
// blueprints print the same.
func snapshot(b *Blueprint) string {
	c := *b
	graceful := "<nil>"
	if g := c.Exit.GracefulClosing; g != nil {
		graceful = fmt.Sprint(*g)
	}
	c.Exit.GracefulClosing = nil
	return fmt.Sprintf("%+v graceful_closing=%s", c, graceful)
}

func TestBuiltinReturnsDeepCopies(t *testing.T) {
	constructors := map[string]func() *Blueprint{
		"Builtin(default)": func() *Blueprint { b, _ := Builtin("default"); return b },
		"Builtin(system-design)": func() *Blueprint {
			b, _ := Builtin("system-design")
			return b
		},
		"Builtin(knowledge-capture)": func() *Blueprint {
			b, _ := Builtin("knowledge-capture")
			return b
		},
		"SystemDesign": SystemDesign,
		"Default":      Default,
		"Clone":        func() *Blueprint { return SystemDesign().Clone() },
	}
	for name, mk := range constructors {
		t.Run(name, func(t *testing.T) {
			// A printed snapshot shares no memory with any copy.
			pristine := snapshot(mk())
			first := mk()
			first.Name = "changed"
			first.Stages[0].Limit = time.Hour
			first.Stages[0].Keywords[0] = "changed"
			first.Stages[0].Questions[0].Text = "changed"
			first.Stages[0].Questions[0].Keywords = append(first.Stages[0].Questions[0].Keywords[:0], "changed")
			first.Stages[1].Questions = first.Stages[1].Questions[:1]
			first.Stages = append(first.Stages[:1], first.Stages[2:]...)
			if len(first.Rubric) > 0 {
				first.Rubric[0].Keywords[0] = "changed"
				first.Rubric = first.Rubric[:1]
			}
			if first.Exit.GracefulClosing != nil {
				*first.Exit.GracefulClosing = !*first.Exit.GracefulClosing
			}
			if again := snapshot(mk()); again != pristine {
				t.Errorf("mutating one copy changed the next one:\n%s", again)
			}
		})
	}
}

func TestNavigation(t *testing.T) {
	b := &Blueprint{Name: "nav", Stages: []Stage{
		{Name: "a", Limit: time.Second, Next: "c"},
		{Name: "b", Limit: time.Second},
		{Name: "c", Limit: time.Second},
		{Name: "d", Limit: time.Second, Next: Done},
		{Name: "e", Limit: time.Second},
	}}
	if err := b.Validate(); err != nil {
		t.Fatalf("a blueprint that skips stages with next is valid: %v", err)
	}
	tests := []struct {
		name      string
		next      string
		index     int
		found     bool
		last      bool
		wantTitle string
	}{
		{"a", "c", 0, true, false, ""},
		{"b", "c", 1, true, false, ""},
		{"c", "d", 2, true, false, ""},
		{"d", Done, 3, true, true, ""},
		{"e", Done, 4, true, true, ""},
		{Done, Done, -1, false, false, ""},
		{"zzz", Done, -1, false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.NextStage(tc.name); got != tc.next {
				t.Errorf("NextStage = %q; want %q", got, tc.next)
			}
			if got := b.Index(tc.name); got != tc.index {
				t.Errorf("Index = %d; want %d", got, tc.index)
			}
			s, i, ok := b.Stage(tc.name)
			if ok != tc.found || i != tc.index || (ok && s.Name != tc.name) {
				t.Errorf("Stage = %q, %d, %v; want %q, %d, %v", s.Name, i, ok, tc.name, tc.index, tc.found)
			}
			if got := b.IsLast(tc.name); got != tc.last {
				t.Errorf("IsLast = %v; want %v", got, tc.last)
			}
		})
	}
	if got := b.Path(); !reflect.DeepEqual(got, []string{"a", "c", "d"}) {
		t.Errorf("Path() = %v; want [a c d]", got)
	}
	if b.First() != "a" || (&Blueprint{}).First() != Done {
		t.Errorf("First() wrong")
	}
	s, _, _ := b.Stage("a")
	s.Name = "mutated"
	if b.Stages[0].Name != "a" {
		t.Error("Stage returned the blueprint's own stage, not a copy")
	}
	if (&Blueprint{}).ClosingSafetyTimeout() != DefaultClosingSafety || (&Blueprint{ClosingSafety: time.Second}).ClosingSafetyTimeout() != time.Second {
		t.Error("ClosingSafetyTimeout does not default zero to DefaultClosingSafety")
	}
}

// TestValidateGoBlueprints checks Validate on blueprints built in Go, where
// errors name the stage and field without a file.
func TestValidateGoBlueprints(t *testing.T) {
	ok := func() *Blueprint {
		return &Blueprint{Name: "v", Stages: []Stage{
			{Name: "one", Instructions: "Hi {{.Name}}", Limit: time.Minute, MinTime: time.Second, MinQuestions: 1,
				Questions: []Question{{ID: "one-1", Text: "Why?"}}},
			{Name: "two", Limit: time.Minute},
		}}
	}
	tests := []struct {
		name   string
		change func(b *Blueprint)
		want   []string // every line of the error, in order
	}{
		{"valid", func(*Blueprint) {}, nil},
		{"no stages", func(b *Blueprint) { b.Stages = nil },
			[]string{"stages: the blueprint has no stages; add at least one stage with a name, instructions and a limit"}},
		{"empty name", func(b *Blueprint) { b.Stages[1].Name = "" },
			[]string{`stages[1].name: is empty; give every stage a lower-case name such as "intro"`}},
		{"negative limit and min questions", func(b *Blueprint) { b.Stages[1].Limit = -time.Second; b.Stages[1].MinQuestions = -1 },
			[]string{
				`stages[1].limit (stage "two"): -1s is negative; use a positive duration such as 120 (seconds) or 2m`,
				`stages[1].min_questions (stage "two"): -1 is negative; use 0 for no minimum`,
			}},
		{"negative min time", func(b *Blueprint) { b.Stages[0].MinTime = -time.Second },
			[]string{`stages[0].min_time (stage "one"): -1s is negative; use 0 for no minimum or a positive duration shorter than the limit`}},
		{"min time above limit", func(b *Blueprint) { b.Stages[0].MinTime = 2 * time.Minute },
			[]string{`stages[0].min_time (stage "one"): 2m0s is not shorter than the limit 1m0s, so the stage could only ever end at its deadline; lower min_time or raise limit`}},
		{"empty question", func(b *Blueprint) { b.Stages[0].Questions = append(b.Stages[0].Questions, Question{}) },
			[]string{
				`stages[0].questions[1].id (stage "one"): is empty; give every question an id such as "one-2"`,
				`stages[0].questions[1].text (stage "one"): is empty; write the question as it should be spoken, or remove it`,
			}},
		{"bad persona", func(b *Blueprint) { b.Persona = "{{if .Name}}unclosed" },
			[]string{`persona: is not a valid template: persona:1: unexpected EOF; check that every {{ has a matching }} and every {{if}} or {{with}} its {{end}}`}},
		{"bad acknowledgement", func(b *Blueprint) { b.Stages[1].Acknowledgement = "{{.Nme}}" },
			[]string{`stages[1].acknowledgement (stage "two"): template fails for a sample candidate: stages[1].acknowledgement:1:2: executing "stages[1].acknowledgement" at <.Nme>: can't evaluate field Nme in type stages.TemplateData; templates may use {{.Name}}, {{.Role}}, {{.Level}}, {{.JobDescription}}, {{.ResumeSummary}}, {{.RoleFocus}}, {{.LevelExpectations}}, {{.HasJobDescription}}, {{.HasResume}}, {{.Problem}}, {{.ProblemStatement}} and {{.ProblemDetails}}`}},
		{"bad question template", func(b *Blueprint) { b.Stages[0].Questions[0].Text = "Why {{.Why}}?" },
			[]string{`stages[0].questions[0].text (stage "one"): template fails for a sample candidate`}},
		{"self loop", func(b *Blueprint) { b.Stages[1].Next = "two" },
			[]string{`stages[1].next (stage "two"): "two" makes the interview loop (two → two) so it would never reach "done"; point next at a later stage or "done"`}},
		{"negative closing safety", func(b *Blueprint) { b.ClosingSafety = -time.Second },
			[]string{`closing_safety: -1s is negative`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := ok()
			tc.change(b)
			err := b.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil; want %q", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("Validate() = %d problems:\n%v\nwant %d", len(lines), err, len(tc.want))
			}
			for i := range lines {
				if !strings.HasPrefix(lines[i], tc.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s", i, lines[i], tc.want[i])
				}
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.File != "" || fe.Line != 0 {
				t.Errorf("Validate error %#v; want *FieldErrors without file or line", err)
			}
		})
	}
}

// similarity is the Jaccard similarity of two questions' normalised token
// sets: lower case, letters and digits only, apostrophes dropped
// ("you're" → "youre"). When contentOnly is set, common function words are
// left out too, which is how a paraphrase detector sees a question.
func similarity(a, b string, contentOnly bool) float64 {
	sa, sb := tokenSet(a, contentOnly), tokenSet(b, contentOnly)
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

var nonWord = regexp.MustCompile(`[^a-z0-9 ]+`)

var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at for with from by about into as is are was were be been
		do did does you your youre yours i me my we our us it its this that these those what which who how when where why
		would could can should will have has had there here some any so if then than just like up out over more most`) {
		functionWords[w] = true
	}
}

func tokenSet(s string, contentOnly bool) map[string]bool {
	set := map[string]bool{}
	s = strings.ReplaceAll(strings.ToLower(s), "'", "")
	s = strings.ReplaceAll(s, "’", "")
	for _, w := range strings.Fields(nonWord.ReplaceAllString(s, " ")) {
		if contentOnly && functionWords[w] {
			continue
		}
		set[w] = true
	}
	return set
}

func TestSimilarityHelper(t *testing.T) {
	tests := []struct {
		a, b string
		min  float64
		max  float64
	}{
		{"Tell me about yourself.", "tell me about YOURSELF?", 1, 1},
		{"What drew you to this role?", "What drew you to the role?", 0.6, 0.9},
		{"How do you test your code?", "Describe your favourite holiday.", 0, 0.2},
	}
	for _, tc := range tests {
		if got := similarity(tc.a, tc.b, false); got < tc.min || got > tc.max {
			t.Errorf("similarity(%q, %q) = %.2f; want in [%.2f, %.2f]", tc.a, tc.b, got, tc.min, tc.max)
		}
	}
}

func TestQuestionBanksAreDistinct(t *testing.T) {
	const threshold = 0.6
	for _, name := range BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			b, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			var qs []Question
			for _, s := range b.Stages {
				qs = append(qs, s.Questions...)
			}
			worst := 0.0
			for i := range qs {
				for j := i + 1; j < len(qs); j++ {
					for _, contentOnly := range []bool{false, true} {
						sim := similarity(qs[i].Text, qs[j].Text, contentOnly)
						worst = max(worst, sim)
						if sim >= threshold {
							t.Errorf("%s and %s are near-duplicates (Jaccard %.2f, content words only %v):\n  %s\n  %s",
								qs[i].ID, qs[j].ID, sim, contentOnly, qs[i].Text, qs[j].Text)
						}
					}
				}
			}
			t.Logf("%d questions, highest pairwise similarity %.2f", len(qs), worst)
		})
	}
}

func ExampleBlueprint_NextStage() {
	b := Default()
	for s := b.First(); s != Done; s = b.NextStage(s) {
		fmt.Print(s, " → ")
	}
	fmt.Println(Done)
	// Output: greeting → intro → experience → closing → done
}

// TestTakesTemplate: a role template fits a blueprint with a guided stage;
// system design and knowledge capture refuse it, saying what to do.
func TestTakesTemplate(t *testing.T) {
	if err := Default().TakesTemplate(); err != nil {
		t.Errorf("default: %v", err)
	}
	for _, name := range []string{SystemDesignName, KnowledgeCaptureName} {
		b, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.TakesTemplate(); err == nil || !strings.Contains(err.Error(), "leave the template out") {
			t.Errorf("%s: %v, want a refusal saying what to do", name, err)
		}
	}
}

// TestWithTemplate: a role template gives the main stage two minutes a
// question and the exit as many more turns, on a copy; a blueprint that
// cannot ask it refuses it, naming the template and saying why.
func TestWithTemplate(t *testing.T) {
	tpl, err := BuiltinTemplate("backend-senior")
	if err != nil {
		t.Fatal(err)
	}
	b := Default()
	got, err := b.WithTemplate(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if main := got.MainStage(); main != "experience" {
		t.Fatalf("main stage %q, want experience", main)
	}
	st, _, _ := got.Stage("experience")
	orig, _, _ := b.Stage("experience")
	if want := orig.Limit + time.Duration(len(tpl.Questions))*TemplateQuestionTime; st.Limit != want {
		t.Errorf("experience limit %v, want %v", st.Limit, want)
	}
	if intro, _, _ := got.Stage("intro"); intro.Limit != 120*time.Second {
		t.Errorf("intro limit %v, want it unchanged", intro.Limit)
	}
	if got.Exit.Turns() != DefaultMaxTurns+len(tpl.Questions) || b.Exit.Turns() != DefaultMaxTurns {
		t.Errorf("max turns %d (original %d), want %d", got.Exit.Turns(), b.Exit.Turns(), DefaultMaxTurns+len(tpl.Questions))
	}
	if plain, err := b.WithTemplate(nil); err != nil || !reflect.DeepEqual(plain, b) || plain == b {
		t.Errorf("WithTemplate(nil) = %v, %v; want an equal copy", plain, err)
	}
	_, err = SystemDesign().WithTemplate(tpl)
	if err == nil || !strings.Contains(err.Error(), `role template "backend-senior"`) || !strings.Contains(err.Error(), "no guided stage") {
		t.Errorf("system design with a template: %v, want a refusal naming the template and why", err)
	}
}
