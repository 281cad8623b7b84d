package stages

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews/lang"
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
	"{{.RoleFocus}}, {{.LevelExpectations}}, {{.HasJobDescription}}, {{.HasResume}}, " +
	"{{.Problem}}, {{.ProblemStatement}} and {{.ProblemDetails}}"

// sampleProfiles are the profiles every template must render with: one with
// every field filled in and one with only the required ones, so both
// branches of {{if .JobDescription}} are exercised.
var sampleProfiles = []Profile{
	{
		Name: "Sam Example", Role: "Backend engineer", Level: "senior",
		JobDescription: "Build and run the payments API.",
		ResumeSummary:  "Six years of Go and PostgreSQL at a fintech.",
		Problem:        Problem{ID: "sample", Title: "a sample service", Statement: "Design a sample service.", Details: "A thousand users."},
	},
	{Name: "Sam Example", Role: "Designer", Level: "entry"},
}

// Validate checks that the blueprint can run an interview: at least one
// stage; stage names non-empty, lower case ([a-z0-9_-]), unique and not
// "done"; every Limit positive; 0 ≤ MinTime < Limit; MinQuestions ≥ 0;
// every Next naming a stage or "done" without making the interview loop;
// question ids unique and texts non-empty; tools known and listed once; ClosingSafety not negative;
// Mode one of Modes; rubric ids lower case and unique, their stages
// existing and Expect one of ExpectKinds; the exit threshold in [0, 1] (0
// is the default) and MaxTurns and Rounds not negative; question targets
// naming a SkillAttributes attribute, a rubric field and a stage;
// competencies unique, short, at most MaxCompetencies and absent from a
// knowledge capture; candidate_feedback_scores only with
// candidate_feedback; and
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
	l := &problemList{}
	if b.ClosingSafety < 0 {
		l.add("closing_safety", "", "%v is negative; use a positive duration such as 60 (seconds), or leave it out for the default of 60 s", b.ClosingSafety)
	}
	l.checkTemplate("persona", "", b.Persona)
	if b.Mode != "" && !slices.Contains(Modes, b.Mode) {
		msg := fmt.Sprintf("%q is not a mode", b.Mode)
		if sug := suggest(b.Mode, Modes); sug != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sug)
		}
		l.add("mode", "", "%s; use %s, or leave it out for an interview", msg, strings.Join(Modes, " or "))
	}
	l.probs = append(l.probs, b.exitProblems()...)
	l.probs = append(l.probs, b.feedbackProblems()...)
	if _, err := lang.Parse(b.Language); err != nil {
		l.probs = append(l.probs, &FieldError{Field: "language", Msg: err.Error()})
	}
	if len(b.Stages) == 0 {
		l.add("stages", "", "the blueprint has no stages; add at least one stage with a name, instructions and a limit")
		return l.probs
	}

	names, known := b.stageNames()
	questionIDs := map[string]string{}
	badNext := false
	for i, s := range b.Stages {
		if !l.stageProblems(i, s, names, known) {
			badNext = true
		}
		l.questionProblems(i, s, questionIDs)
	}

	l.probs = append(l.probs, b.rubricProblems(names, known)...)
	l.probs = append(l.probs, b.poolProblems(names)...)
	l.probs = append(l.probs, b.targetProblems(names, known)...)
	if !badNext {
		if p := b.loop(); p != nil {
			l.probs = append(l.probs, p)
		}
	}
	return l.probs
}

// problemList collects the problems of one blueprint.
type problemList struct {
	probs []*FieldError
}

func (l *problemList) add(field, stage, format string, args ...any) {
	l.probs = append(l.probs, &FieldError{Field: field, Stage: stage, Msg: fmt.Sprintf(format, args...)})
}

// checkTemplate adds a problem when text is not a template that parses and
// renders for every sample candidate.
func (l *problemList) checkTemplate(field, stage, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	t, err := parseTemplate(field, text)
	if err != nil {
		l.add(field, stage, "is not a valid template: %s; check that every {{ has a matching }} and every {{if}} or {{with}} its {{end}}",
			strings.TrimPrefix(err.Error(), "template: "))
		return
	}
	for _, p := range sampleProfiles {
		if _, err := execute(t, p); err != nil {
			l.add(field, stage, "template fails for a sample candidate: %s; templates may use %s",
				strings.TrimPrefix(err.Error(), "template: "), templateFields)
			return
		}
	}
}

// stageNames maps each valid stage name to the index of its first stage, and
// lists the names a next may use, quoted, for messages.
func (b *Blueprint) stageNames() (names map[string]int, known []string) {
	names = map[string]int{}
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
	known = make([]string, 0, len(b.Stages))
	for _, s := range b.Stages {
		if s.Name != "" {
			known = append(known, fmt.Sprintf("%q", s.Name))
		}
	}
	known = append(known, fmt.Sprintf("%q", Done))
	return names, known
}

// stageProblems checks stage i's own fields; it reports false when the
// stage's next names no stage (so the loop check would only repeat it).
func (l *problemList) stageProblems(i int, s Stage, names map[string]int, known []string) (nextOK bool) {
	at := func(field string) string { return fmt.Sprintf("stages[%d].%s", i, field) }
	st := s.Name
	switch {
	case s.Name == "":
		l.add(at("name"), "", "is empty; give every stage a lower-case name such as \"intro\"")
	case s.Name == Done:
		l.add(at("name"), "", "%q is reserved for the end of the interview; choose another name such as \"closing\"", Done)
	case !stageNamePattern.MatchString(s.Name):
		l.add(at("name"), "", "%q may only contain lower-case letters, digits, '-' and '_' (for example \"high-level-design\")", s.Name)
	case names[s.Name] != i:
		l.add(at("name"), "", "%q is already the name of stages[%d]; stage names must be unique", s.Name, names[s.Name])
	}

	switch {
	case s.Limit == 0:
		l.add(at("limit"), st, "is missing or zero; every stage needs a deadline, for example limit: 120 (seconds) or limit: 2m")
	case s.Limit < 0:
		l.add(at("limit"), st, "%v is negative; use a positive duration such as 120 (seconds) or 2m", s.Limit)
	}
	switch {
	case s.MinTime < 0:
		l.add(at("min_time"), st, "%v is negative; use 0 for no minimum or a positive duration shorter than the limit", s.MinTime)
	case s.Limit > 0 && s.MinTime >= s.Limit:
		l.add(at("min_time"), st, "%v is not shorter than the limit %v, so the stage could only ever end at its deadline; lower min_time or raise limit", s.MinTime, s.Limit)
	}
	if s.MinQuestions < 0 {
		l.add(at("min_questions"), st, "%d is negative; use 0 for no minimum", s.MinQuestions)
	}
	nextOK = true
	if s.Next != "" && s.Next != Done {
		if _, ok := names[s.Next]; !ok {
			nextOK = false
			l.add(at("next"), st, "%q is not a stage of this blueprint; use one of %s, or leave next out to go to the following stage", s.Next, strings.Join(known, ", "))
		}
	}
	l.toolProblems(i, s)
	l.checkTemplate(at("instructions"), st, s.Instructions)
	l.checkTemplate(at("acknowledgement"), st, s.Acknowledgement)
	return nextOK
}

// toolProblems checks that stage i names known tools, each once.
func (l *problemList) toolProblems(i int, s Stage) {
	seenTools := map[ToolName]bool{}
	for k, name := range s.Tools {
		field := fmt.Sprintf("stages[%d].tools[%d]", i, k)
		switch {
		case !name.Known():
			msg := fmt.Sprintf("%q is not a tool of the interviewer", name)
			if sug := suggest(string(name), ToolStrings(AllTools)); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			l.add(field, s.Name, "%s; use some of %s, or leave tools out to offer the default %s", msg, strings.Join(ToolStrings(AllTools), ", "), strings.Join(ToolStrings(Tools), ", "))
		case seenTools[name]:
			l.add(field, s.Name, "%q is listed twice; list each tool once", name)
		}
		seenTools[name] = true
	}
}

// questionProblems checks stage i's questions: ids unique across the
// blueprint (questionIDs maps those seen to where), texts present and valid
// templates.
func (l *problemList) questionProblems(i int, s Stage, questionIDs map[string]string) {
	st := s.Name
	for j, q := range s.Questions {
		qat := func(field string) string { return fmt.Sprintf("stages[%d].questions[%d].%s", i, j, field) }
		switch {
		case q.ID == "":
			l.add(qat("id"), st, "is empty; give every question an id such as %q", fmt.Sprintf("%s-%d", s.Name, j+1))
		case questionIDs[q.ID] != "":
			l.add(qat("id"), st, "%q is already used by %s; question ids must be unique within the blueprint", q.ID, questionIDs[q.ID])
		default:
			questionIDs[q.ID] = qat("id")
		}
		if strings.TrimSpace(q.Text) == "" {
			l.add(qat("text"), st, "is empty; write the question as it should be spoken, or remove it")
		} else {
			l.checkTemplate(qat("text"), st, q.Text)
		}
	}
}

// MaxCompetencies bounds how many competencies a blueprint may name: a
// report scoring more reads as a form, not feedback.
const MaxCompetencies = 8

// MaxCompetencyLen bounds a competency's name, in characters.
const MaxCompetencyLen = 60

// feedbackProblems checks what the feedback report scores and shows:
// competencies named once each (ignoring case), short, and none for a
// knowledge capture (its report is a summary by topic, without scores);
// candidate_feedback_scores only with candidate_feedback.
func (b *Blueprint) feedbackProblems() []*FieldError {
	var probs []*FieldError
	if b.KnowledgeCapture() && len(b.Competencies) > 0 {
		probs = append(probs, &FieldError{Field: "competencies",
			Msg: "a knowledge capture is not scored: its report is the summary by topic; remove competencies or the mode"})
	}
	if len(b.Competencies) > MaxCompetencies {
		probs = append(probs, &FieldError{Field: "competencies",
			Msg: fmt.Sprintf("names %d competencies; keep at most %d, the ones that decide", len(b.Competencies), MaxCompetencies)})
	}
	seen := map[string]int{}
	for i, c := range b.Competencies {
		field := fmt.Sprintf("competencies[%d]", i)
		key := strings.ToLower(c)
		switch j, dup := seen[key]; {
		case utf8.RuneCountInString(c) > MaxCompetencyLen:
			probs = append(probs, &FieldError{Field: field,
				Msg: fmt.Sprintf("is %d characters long; name a competency in at most %d, such as \"system design\"", utf8.RuneCountInString(c), MaxCompetencyLen)})
		case dup:
			probs = append(probs, &FieldError{Field: field,
				Msg: fmt.Sprintf("%q is already competencies[%d]; name each competency once", c, j)})
		default:
			seen[key] = i
		}
	}
	if b.FeedbackScores && !b.CandidateFeedback {
		probs = append(probs, &FieldError{Field: "candidate_feedback_scores",
			Msg: "shows scores on the candidate's feedback page, which only candidate_feedback: true gives them; set it too, or remove this"})
	}
	return probs
}

// exitProblems checks the exit conditions: a threshold in (0, 1] (0 is
// the default) and counts that are not negative.
func (b *Blueprint) exitProblems() []*FieldError {
	var probs []*FieldError
	e := b.Exit
	if t := e.RequiredFieldsThreshold; t < 0 || t > 1 || math.IsNaN(t) {
		probs = append(probs, &FieldError{Field: "exit_conditions.required_fields_threshold",
			Msg: fmt.Sprintf("%v is not a share between 0 and 1; use 1 to require every required rubric field, 0.8 for four in five", t)})
	}
	if e.MaxTurns < 0 {
		probs = append(probs, &FieldError{Field: "exit_conditions.max_turns",
			Msg: fmt.Sprintf("%d is negative; use a number of candidate turns, or leave it out for %d", e.MaxTurns, DefaultMaxTurns)})
	}
	if e.Rounds < 0 {
		probs = append(probs, &FieldError{Field: "exit_conditions.rounds",
			Msg: fmt.Sprintf("%d is negative; use a number of questions, or leave it out for %d", e.Rounds, DefaultCaptureRounds)})
	}
	return probs
}

// rubricProblems checks the rubric fields: ids present, lower case and
// unique; stages that exist; expect one of ExpectKinds. names maps stage
// names to their index; known lists them quoted, for messages.
func (b *Blueprint) rubricProblems(names map[string]int, known []string) []*FieldError {
	var probs []*FieldError
	ids := map[string]int{}
	for i, f := range b.Rubric {
		add := func(field, format string, args ...any) {
			probs = append(probs, &FieldError{Field: fmt.Sprintf("rubric[%d].%s", i, field), Msg: fmt.Sprintf(format, args...)})
		}
		switch first, dup := ids[f.ID]; {
		case f.ID == "":
			add("id", "is empty; give every rubric field a lower-case id such as \"years_experience\"")
		case !stageNamePattern.MatchString(f.ID):
			add("id", "%q may only contain lower-case letters, digits, '-' and '_' (for example \"years_experience\")", f.ID)
		case dup:
			add("id", "%q is already the id of rubric[%d]; rubric ids must be unique", f.ID, first)
		default:
			ids[f.ID] = i
		}
		if f.Stage != "" {
			if _, ok := names[f.Stage]; !ok {
				add("stage", "%q is not a stage of this blueprint; use one of %s, or leave stage out to ask for the field in any guided stage",
					f.Stage, strings.Join(known[:len(known)-1], ", "))
			}
		}
		if !slices.Contains(ExpectKinds, f.Expect) {
			msg := fmt.Sprintf("%q is not a kind of value", f.Expect)
			if sug := suggest(f.Expect, ExpectKinds[1:]); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			add("expect", "%s; use one of %s, or leave expect out for any substantive answer", msg, strings.Join(ExpectKinds[1:], ", "))
		}
	}
	return probs
}

// targetProblems checks the targets of bank questions: an attribute is
// one of SkillAttributes, a field names a rubric field and a phase a
// stage.
func (b *Blueprint) targetProblems(names map[string]int, known []string) []*FieldError {
	var probs []*FieldError
	var fields []string
	for _, f := range b.Rubric {
		fields = append(fields, f.ID)
	}
	for i, s := range b.Stages {
		for j, q := range s.Questions {
			t := q.Context.Targets
			add := func(field, format string, args ...any) {
				probs = append(probs, &FieldError{Field: fmt.Sprintf("stages[%d].questions[%d].targets.%s", i, j, field), Stage: s.Name, Msg: fmt.Sprintf(format, args...)})
			}
			if t.Attribute != "" && !slices.Contains(SkillAttributes, t.Attribute) {
				msg := fmt.Sprintf("%q is not a skill attribute", t.Attribute)
				if sug := suggest(t.Attribute, SkillAttributes); sug != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", sug)
				}
				add("attribute", "%s; use one of %s", msg, strings.Join(SkillAttributes, ", "))
			}
			if t.Attribute != "" && t.Skill == "" {
				add("skill", "is empty but attribute %q is set; name the skill whose %s the question asks about", t.Attribute, t.Attribute)
			}
			if t.Field != "" && !slices.Contains(fields, t.Field) {
				msg := fmt.Sprintf("%q is not a rubric field of this blueprint", t.Field)
				switch sug := suggest(t.Field, fields); {
				case sug != "":
					msg += fmt.Sprintf(" (did you mean %q?)", sug)
				case len(fields) == 0:
					msg += "; add it to the blueprint's rubric"
				}
				if len(fields) > 0 {
					msg += "; use one of " + strings.Join(fields, ", ")
				}
				add("field", "%s", msg)
			}
			if t.Phase != "" {
				if _, ok := names[t.Phase]; !ok {
					add("phase", "%q is not a stage of this blueprint; use one of %s", t.Phase, strings.Join(known[:len(known)-1], ", "))
				}
			}
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
