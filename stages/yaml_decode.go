package stages

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/viva-interviews/viva/internal/typo"
)

// decoder walks a yaml.Node tree into a Blueprint, collecting every problem
// with its line and remembering the line of every field path so validation
// errors can be located too.
type decoder struct {
	file  string
	errs  []*FieldError
	lines map[string]int
}

func (d *decoder) fail(n *yaml.Node, field, format string, args ...any) {
	fe := &FieldError{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		fe.Line = n.Line
	}
	d.errs = append(d.errs, fe)
}

// line returns the line of field, or of its closest recorded parent
// ("stages[1].limit" falls back to "stages[1]" when limit is missing).
func (d *decoder) line(field string) int {
	for f := field; f != ""; {
		if l, ok := d.lines[f]; ok {
			return l
		}
		i := strings.LastIndexAny(f, ".[")
		if i <= 0 {
			break
		}
		f = f[:i]
	}
	return 0
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields iterates the key/value pairs of a mapping node, reporting
// duplicate and unknown keys, and calls fn with each known field's path.
func (d *decoder) fields(n *yaml.Node, path, what string, known []string, fn func(key string, field string, v *yaml.Node)) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping of %s fields (%s), not %s", what, strings.Join(known, ", "), kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		field := k.Value
		if path != "" {
			field = path + "." + k.Value
		}
		if !slices.Contains(known, k.Value) {
			msg := fmt.Sprintf("unknown field %q in %s", k.Value, what)
			if s := suggest(k.Value, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			d.fail(k, field, "%s; known fields are %s", msg, strings.Join(known, ", "))
			continue
		}
		if seen[k.Value] {
			d.fail(k, field, "%q appears twice in the same %s; keep one", k.Value, what)
			continue
		}
		seen[k.Value] = true
		d.lines[field] = k.Line
		fn(k.Value, field, v)
	}
}

var (
	blueprintFields = []string{"name", "title", "description", "persona", "mode", "language", "closing_safety", "rubric", "exit_conditions",
		"competencies", "candidate_feedback", "candidate_feedback_scores", "problems", "stages"}
	stageFields    = []string{"name", "title", "instructions", "limit", "min_time", "min_questions", "guided", "questions", "keywords", "next", "acknowledgement", "tools"}
	questionFields = []string{"id", "text", "purpose", "keywords", "targets"}
	rubricFields   = []string{"id", "label", "required", "question", "stage", "expect", "keywords"}
	exitFields     = []string{"required_fields_threshold", "max_turns", "graceful_closing", "rounds"}
	targetsFields  = []string{"skill", "attribute", "field", "category", "assesses", "phase"}
)

// list decodes the list v at field entry by entry: item gets each entry,
// aliases resolved, with its path ("field[i]"), whose line is recorded for
// later errors. A null value is an empty list; any other non-list fails,
// naming what the list should hold.
func (d *decoder) list(v *yaml.Node, field, what string, item func(n *yaml.Node, path string)) {
	if v.Kind != yaml.SequenceNode {
		if !isNull(v) {
			d.fail(v, field, "must be a list of %s, not %s", what, kindName(v))
		}
		return
	}
	for i, n := range v.Content {
		path := fmt.Sprintf("%s[%d]", field, i)
		n = resolve(n)
		d.lines[path] = n.Line
		item(n, path)
	}
}

// listOf decodes the list v at field (of what, for the error) with item.
func listOf[T any](d *decoder, v *yaml.Node, field, what string, item func(n *yaml.Node, path string) T) []T {
	var out []T
	d.list(v, field, what, func(n *yaml.Node, path string) { out = append(out, item(n, path)) })
	return out
}

// into returns a field handler for fields: it decodes each key of ptrs
// into the value it points at, by that value's type, and hands any other
// key to other (nil: none).
func (d *decoder) into(ptrs map[string]any, other func(key, field string, v *yaml.Node)) func(key, field string, v *yaml.Node) {
	return func(key, field string, v *yaml.Node) {
		switch p := ptrs[key].(type) {
		case nil:
			if other != nil {
				other(key, field, v)
			}
		case *string:
			*p = d.str(v, field)
		case *bool:
			*p = d.boolean(v, field)
		case **bool:
			b := d.boolean(v, field)
			*p = &b
		case *int:
			*p = d.integer(v, field)
		case *float64:
			*p = d.number(v, field)
		case *time.Duration:
			*p = d.duration(v, field)
		case *[]string:
			*p = d.words(v, field)
		default:
			panic(fmt.Sprintf("stages: no YAML decoding into %T", p))
		}
	}
}

// indexedWords decodes the list of words v at field. Blank entries are
// skipped, so each word's line is recorded under its index among those
// kept, the index validation reports.
func (d *decoder) indexedWords(v *yaml.Node, field string) []string {
	var out []string
	for _, n := range d.wordNodes(v, field) {
		d.lines[fmt.Sprintf("%s[%d]", field, len(out))] = n.Line
		out = append(out, strings.TrimSpace(n.Value))
	}
	return out
}

func (d *decoder) blueprint(n *yaml.Node) *Blueprint {
	b := &Blueprint{}
	d.fields(n, "", "blueprint", blueprintFields, d.into(map[string]any{
		"name": &b.Name, "title": &b.Title, "description": &b.Description, "persona": &b.Persona, "mode": &b.Mode, "language": &b.Language,
		"candidate_feedback": &b.CandidateFeedback, "candidate_feedback_scores": &b.FeedbackScores, "closing_safety": &b.ClosingSafety,
	}, func(key, field string, v *yaml.Node) {
		switch key {
		case "rubric":
			b.Rubric = listOf(d, v, field, "rubric fields (lines starting with \"- id: …\")", d.rubricField)
		case "exit_conditions":
			b.Exit = d.exitConditions(v, field)
		case "competencies":
			b.Competencies = d.indexedWords(v, field)
		case "problems":
			b.Problems = listOf(d, v, field, "problems (lines starting with \"- id: …\")", d.problem)
		case "stages":
			b.Stages = listOf(d, v, field, "stages (lines starting with \"- name: …\")", d.stage)
		}
	}))
	return b
}

func (d *decoder) stage(n *yaml.Node, path string) Stage {
	var s Stage
	d.fields(n, path, "stage", stageFields, d.into(map[string]any{
		"name": &s.Name, "title": &s.Title, "instructions": &s.Instructions, "limit": &s.Limit, "min_time": &s.MinTime,
		"min_questions": &s.MinQuestions, "guided": &s.Guided, "keywords": &s.Keywords, "next": &s.Next, "acknowledgement": &s.Acknowledgement,
	}, func(key, field string, v *yaml.Node) {
		switch key {
		case "tools":
			for _, t := range d.indexedWords(v, field) {
				s.Tools = append(s.Tools, ToolName(t))
			}
		case "questions":
			s.Questions = listOf(d, v, field, "questions", d.question)
		}
	}))
	return s
}

func (d *decoder) question(n *yaml.Node, path string) Question {
	var q Question
	if n.Kind == yaml.ScalarNode {
		q.Text = d.str(n, path+".text")
		return q
	}
	d.fields(n, path, "question", questionFields, d.into(map[string]any{
		"id": &q.ID, "text": &q.Text, "purpose": &q.Purpose, "keywords": &q.Keywords,
	}, func(key, field string, v *yaml.Node) {
		if key == "targets" {
			q.Context.Targets = d.targets(v, field)
		}
	}))
	return q
}

func (d *decoder) rubricField(n *yaml.Node, path string) RubricField {
	var f RubricField
	d.fields(n, path, "rubric field", rubricFields, d.into(map[string]any{
		"id": &f.ID, "label": &f.Label, "required": &f.Required, "question": &f.Question, "stage": &f.Stage,
		"expect": &f.Expect, "keywords": &f.Keywords,
	}, nil))
	return f
}

func (d *decoder) exitConditions(n *yaml.Node, path string) ExitConditions {
	var e ExitConditions
	d.fields(n, path, "exit_conditions", exitFields, d.into(map[string]any{
		"required_fields_threshold": &e.RequiredFieldsThreshold, "max_turns": &e.MaxTurns,
		"graceful_closing": &e.GracefulClosing, "rounds": &e.Rounds,
	}, nil))
	return e
}

func (d *decoder) targets(n *yaml.Node, path string) Targets {
	var t Targets
	d.fields(n, path, "targets", targetsFields, d.into(map[string]any{
		"skill": &t.Skill, "attribute": &t.Attribute, "field": &t.Field, "category": &t.Category,
		"assesses": &t.Assesses, "phase": &t.Phase,
	}, nil))
	return t
}

// defaults fills what a file may leave out: titles from names, question ids
// from stage name and position, and the closing safety timeout.
func (d *decoder) defaults(b *Blueprint) {
	if b.Title == "" {
		b.Title = titleFromName(b.Name)
	}
	if b.ClosingSafety == 0 {
		b.ClosingSafety = DefaultClosingSafety
	}
	for i := range b.Rubric {
		if b.Rubric[i].Label == "" {
			b.Rubric[i].Label = titleFromName(b.Rubric[i].ID)
		}
	}
	for i := range b.Stages {
		s := &b.Stages[i]
		if s.Title == "" {
			s.Title = titleFromName(s.Name)
		}
		for j := range s.Questions {
			if s.Questions[j].ID == "" {
				s.Questions[j].ID = fmt.Sprintf("%s-%d", s.Name, j+1)
			}
		}
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "empty"
}

func (d *decoder) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, field, "must be text, not %s", kindName(n))
		return ""
	}
	if isNull(n) {
		return ""
	}
	return n.Value
}

func (d *decoder) words(n *yaml.Node, field string) []string {
	var out []string
	for _, item := range d.wordNodes(n, field) {
		out = append(out, strings.TrimSpace(item.Value))
	}
	return out
}

// wordNodes returns the non-blank string items of a list of words, each
// checked to be a string.
func (d *decoder) wordNodes(n *yaml.Node, field string) []*yaml.Node {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, field, "must be a list of words or phrases, like [caching, \"data model\"], not %s", kindName(n))
		return nil
	}
	var out []*yaml.Node
	for i, item := range n.Content {
		item = resolve(item)
		if strings.TrimSpace(d.str(item, fmt.Sprintf("%s[%d]", field, i))) != "" {
			out = append(out, item)
		}
	}
	return out
}

func (d *decoder) boolean(n *yaml.Node, field string) bool {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "true", "yes", "on":
			return true
		case "false", "no", "off":
			return false
		}
	}
	d.fail(n, field, "%s is not true or false", kindName(n))
	return false
}

// number reads a finite decimal number.
func (d *decoder) number(n *yaml.Node, field string) float64 {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		if f, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
	d.fail(n, field, "%s is not a number; write a decimal such as 0.8", kindName(n))
	return 0
}

func (d *decoder) integer(n *yaml.Node, field string) int {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		if i, err := strconv.Atoi(strings.TrimSpace(n.Value)); err == nil {
			return i
		}
	}
	d.fail(n, field, "%s is not a whole number; write a count such as 3", kindName(n))
	return 0
}

// duration reads a number of seconds (90, 7.5) or a Go duration ("90s").
func (d *decoder) duration(n *yaml.Node, field string) time.Duration {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		v := strings.TrimSpace(n.Value)
		if secs, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(secs) && !math.IsInf(secs, 0) && math.Abs(secs) < 1e9 {
			return time.Duration(math.Round(secs * float64(time.Second)))
		}
		if dur, err := time.ParseDuration(v); err == nil {
			return dur
		}
	}
	d.fail(n, field, `%s is not a duration (use seconds like 90 or a duration like "1m30s")`, kindName(n))
	return 0
}

// suggest returns the known name closest to s when it is a likely typo.
func suggest(s string, known []string) string { return typo.Closest(s, known) }
