package stages

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// FieldError is one problem in a blueprint, located by the field's path in
// the YAML format ("stages[1].limit") and, for blueprints read from a file,
// by file and line. Validate, Parse and Load return these (joined with
// errors.Join when there are several); use errors.As to inspect one.
type FieldError struct {
	// File is the file the blueprint came from; empty for Go blueprints.
	File string
	// Line is the 1-based line of the field in File; 0 when unknown.
	Line int
	// Field is the path of the field ("stages[1].limit", "closing_safety").
	Field string
	// Stage is the name of the stage the field belongs to, when known.
	Stage string
	// Msg says what is wrong and what to do about it.
	Msg string
}

// Error formats the problem as "file:line: field (stage "x"): message"; a
// problem with the whole document (Field empty) reads "file:line: message".
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" || e.Stage != "" {
		b.WriteString(e.Field)
		if e.Stage != "" {
			fmt.Fprintf(&b, " (stage %q)", e.Stage)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var stageNamePattern = regexp.MustCompile(`^[a-z0-9_-]+$`)

// templateFields lists the fields a template may use, for error messages.
const templateFields = "{{.Name}}, {{.Role}}, {{.Level}}, {{.JobDescription}}, {{.ResumeSummary}}, " +
	"{{.RoleFocus}}, {{.LevelExpectations}}, {{.HasJobDescription}} and {{.HasResume}}"

// sampleProfiles are the profiles every template must render with: one with
// every field filled in and one with only the required ones, so both
// branches of {{if .JobDescription}} are exercised.
var sampleProfiles = []Profile{
	{
		Name: "Sam Example", Role: "Backend engineer", Level: "senior",
		JobDescription: "Build and run the payments API.",
		ResumeSummary:  "Six years of Go and PostgreSQL at a fintech.",
	},
	{Name: "Sam Example", Role: "Designer", Level: "entry"},
}

// Validate checks that the blueprint can run an interview: at least one
// stage; stage names non-empty, lower case ([a-z0-9_-]), unique and not
// "done"; every Limit positive; 0 ≤ MinTime < Limit; MinQuestions ≥ 0;
// every Next naming a stage or "done" without making the interview loop;
// question ids unique and texts non-empty; tools known and listed once; ClosingSafety not negative; and
// every template (persona, instructions, acknowledgements, question texts)
// parsing and rendering with sample profiles. Each problem is a *FieldError
// saying which stage and field and what to do; several are joined with
// errors.Join.
func (b *Blueprint) Validate() error {
	probs := b.problems()
	if len(probs) == 0 {
		return nil
	}
	errs := make([]error, len(probs))
	for i, p := range probs {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// problems lists everything Validate objects to, in field order.
func (b *Blueprint) problems() []*FieldError {
	var probs []*FieldError
	add := func(field, stage, format string, args ...any) {
		probs = append(probs, &FieldError{Field: field, Stage: stage, Msg: fmt.Sprintf(format, args...)})
	}
	checkTemplate := func(field, stage, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		t, err := parseTemplate(field, text)
		if err != nil {
			add(field, stage, "is not a valid template: %s; check that every {{ has a matching }} and every {{if}} or {{with}} its {{end}}",
				strings.TrimPrefix(err.Error(), "template: "))
			return
		}
		for _, p := range sampleProfiles {
			if _, err := execute(t, p); err != nil {
				add(field, stage, "template fails for a sample candidate: %s; templates may use %s",
					strings.TrimPrefix(err.Error(), "template: "), templateFields)
				return
			}
		}
	}

	if b.ClosingSafety < 0 {
		add("closing_safety", "", "%v is negative; use a positive duration such as 60 (seconds), or leave it out for the default of 60 s", b.ClosingSafety)
	}
	checkTemplate("persona", "", b.Persona)
	if len(b.Stages) == 0 {
		add("stages", "", "the blueprint has no stages; add at least one stage with a name, instructions and a limit")
		return probs
	}

	names := map[string]int{}
	for i, s := range b.Stages {
		switch {
		case s.Name == "":
		case s.Name == Done:
		case stageNamePattern.MatchString(s.Name):
			if _, dup := names[s.Name]; !dup {
				names[s.Name] = i
			}
		}
	}
	known := make([]string, 0, len(b.Stages))
	for _, s := range b.Stages {
		if s.Name != "" {
			known = append(known, fmt.Sprintf("%q", s.Name))
		}
	}
	known = append(known, fmt.Sprintf("%q", Done))

	questionIDs := map[string]string{}
	badNext := false
	for i, s := range b.Stages {
		at := func(field string) string { return fmt.Sprintf("stages[%d].%s", i, field) }
		st := s.Name
		switch {
		case s.Name == "":
			add(at("name"), "", "is empty; give every stage a lower-case name such as \"intro\"")
		case s.Name == Done:
			add(at("name"), "", "%q is reserved for the end of the interview; choose another name such as \"closing\"", Done)
		case !stageNamePattern.MatchString(s.Name):
			add(at("name"), "", "%q may only contain lower-case letters, digits, '-' and '_' (for example \"high-level-design\")", s.Name)
		case names[s.Name] != i:
			add(at("name"), "", "%q is already the name of stages[%d]; stage names must be unique", s.Name, names[s.Name])
		}

		switch {
		case s.Limit == 0:
			add(at("limit"), st, "is missing or zero; every stage needs a deadline, for example limit: 120 (seconds) or limit: 2m")
		case s.Limit < 0:
			add(at("limit"), st, "%v is negative; use a positive duration such as 120 (seconds) or 2m", s.Limit)
		}
		switch {
		case s.MinTime < 0:
			add(at("min_time"), st, "%v is negative; use 0 for no minimum or a positive duration shorter than the limit", s.MinTime)
		case s.Limit > 0 && s.MinTime >= s.Limit:
			add(at("min_time"), st, "%v is not shorter than the limit %v, so the stage could only ever end at its deadline; lower min_time or raise limit", s.MinTime, s.Limit)
		}
		if s.MinQuestions < 0 {
			add(at("min_questions"), st, "%d is negative; use 0 for no minimum", s.MinQuestions)
		}
		if s.Next != "" && s.Next != Done {
			if _, ok := names[s.Next]; !ok {
				badNext = true
				add(at("next"), st, "%q is not a stage of this blueprint; use one of %s, or leave next out to go to the following stage", s.Next, strings.Join(known, ", "))
			}
		}

		seenTools := map[ToolName]bool{}
		for k, name := range s.Tools {
			switch {
			case !name.Known():
				msg := fmt.Sprintf("%q is not a tool of the interviewer", name)
				if sug := suggest(string(name), ToolStrings(Tools)); sug != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", sug)
				}
				add(at(fmt.Sprintf("tools[%d]", k)), st, "%s; use some of %s, or leave tools out to offer them all", msg, strings.Join(ToolStrings(Tools), ", "))
			case seenTools[name]:
				add(at(fmt.Sprintf("tools[%d]", k)), st, "%q is listed twice; list each tool once", name)
			}
			seenTools[name] = true
		}

		checkTemplate(at("instructions"), st, s.Instructions)
		checkTemplate(at("acknowledgement"), st, s.Acknowledgement)

		for j, q := range s.Questions {
			qat := func(field string) string { return fmt.Sprintf("stages[%d].questions[%d].%s", i, j, field) }
			switch {
			case q.ID == "":
				add(qat("id"), st, "is empty; give every question an id such as %q", fmt.Sprintf("%s-%d", s.Name, j+1))
			case questionIDs[q.ID] != "":
				add(qat("id"), st, "%q is already used by %s; question ids must be unique within the blueprint", q.ID, questionIDs[q.ID])
			default:
				questionIDs[q.ID] = qat("id")
			}
			if strings.TrimSpace(q.Text) == "" {
				add(qat("text"), st, "is empty; write the question as it should be spoken, or remove it")
			} else {
				checkTemplate(qat("text"), st, q.Text)
			}
		}
	}

	if !badNext {
		if p := b.loop(); p != nil {
			probs = append(probs, p)
		}
	}
	return probs
}

// loop finds a cycle on the interview's path (First, then NextStage until
// Done) and blames the last explicit Next inside it, since such an interview
// would never reach Done.
func (b *Blueprint) loop() *FieldError {
	var path []string
	pos := map[string]int{}
	for name := b.First(); name != Done; name = b.NextStage(name) {
		if b.Index(name) < 0 {
			return nil
		}
		if start, seen := pos[name]; seen {
			cycle := append(append([]string{}, path[start:]...), name)
			for k := len(path) - 1; k >= start; k-- {
				i := b.Index(path[k])
				if s := b.Stages[i]; s.Next != "" {
					return &FieldError{
						Field: fmt.Sprintf("stages[%d].next", i),
						Stage: s.Name,
						Msg: fmt.Sprintf("%q makes the interview loop (%s) so it would never reach %q; point next at a later stage or %q",
							s.Next, strings.Join(cycle, " → "), Done, Done),
					}
				}
			}
			return nil // unreachable: a loop needs an explicit next
		}
		pos[name] = len(path)
		path = append(path, name)
	}
	return nil
}
