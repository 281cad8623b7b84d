package stages

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/viva-interviews/viva/internal/typo"
)

// Load reads and parses the blueprint YAML file at path (see Parse for the
// format). Errors name the file, the line and the field.
func Load(path string) (*Blueprint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stages: read blueprint: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes a blueprint from YAML and validates it. filename is used in
// error messages ("blueprint.yaml:12: stages[1].limit: …") and, base name
// without extension, as the blueprint's name when the file has none.
//
// The format (stages/blueprints/system-design.yaml is a full example):
//
//	name: default              # identifier stored in interview records
//	title: Behavioural interview
//	description: One sentence for recruiters.
//	persona: |                 # optional template; empty = DefaultPersona
//	  You are Ava, …
//	mode: interview            # or knowledge_capture; default interview
//	closing_safety: 60         # optional, default 60 s
//	rubric:                    # optional: what the interview must find out
//	  - id: years_experience   # lower case [a-z0-9_-], unique
//	    label: Years of experience
//	    required: true         # counts toward required_fields_threshold
//	    question: How many years have you worked in software?
//	    stage: intro           # optional: only asked in this stage
//	    expect: duration       # optional: duration, number or role
//	    keywords: [years]      # let the rules fill the field unasked
//	exit_conditions:           # optional: when the interview may close early
//	  required_fields_threshold: 1   # share of required fields, (0, 1]
//	  max_turns: 30            # candidate turns that end it
//	  graceful_closing: true   # close through the closing stage
//	  rounds: 10               # knowledge capture: questions asked
//	stages:
//	  - name: intro            # lower case [a-z0-9_-], unique, not "done"
//	    title: Introduction    # optional, default from the name
//	    instructions: |        # text/template with TemplateData
//	      Ask about {{.Name}}'s background. {{.RoleFocus}}
//	    limit: 2m              # required deadline
//	    min_time: 30           # optional gate
//	    min_questions: 2       # optional gate
//	    guided: true           # ask the template, gap, rubric and backlog questions here
//	    next: experience       # optional; default the following stage, "done" ends
//	    acknowledgement: Thanks. Let's begin.   # optional template
//	    keywords: [background, motivation]
//	    tools: [ask_question, assess_response, transition_stage]  # optional; default all (see stages.Tools)
//	    questions:
//	      - id: intro-1        # optional, default <stage>-<position>
//	        text: Tell me about yourself.
//	        purpose: Warm up.
//	        keywords: [current role]
//	        targets: {field: current_role}  # optional: skill, attribute, field, category, assesses, phase
//
// Durations are a number of seconds (90, 7.5) or a Go duration string
// ("90s", "2m", "1m30s"). A question may also be written as a plain string,
// its text. Unknown fields are errors, so a typo never silently drops a
// setting.
func Parse(data []byte, filename string) (*Blueprint, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(filename, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FieldError{File: filename, Field: "stages", Msg: "the file is empty; a blueprint needs at least a name and a list of stages (see stages/blueprints/system-design.yaml)"}
	}
	d := &decoder{file: filename, lines: map[string]int{}}
	b := d.blueprint(doc.Content[0])
	if len(d.errs) > 0 {
		return nil, joinFieldErrors(d.errs)
	}
	if b.Name == "" && filename != "" {
		base := filepath.Base(filename)
		b.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	d.defaults(b)
	if probs := b.problems(); len(probs) > 0 {
		for _, p := range probs {
			p.File = filename
			p.Line = d.line(p.Field)
		}
		return nil, joinFieldErrors(probs)
	}
	return b, nil
}

// UnmarshalYAML decodes a blueprint embedded in another YAML document with
// the same format and checks as Parse (errors carry line numbers but no file
// name).
func (b *Blueprint) UnmarshalYAML(n *yaml.Node) error {
	d := &decoder{lines: map[string]int{}}
	nb := d.blueprint(n)
	if len(d.errs) > 0 {
		return joinFieldErrors(d.errs)
	}
	d.defaults(nb)
	if probs := nb.problems(); len(probs) > 0 {
		for _, p := range probs {
			p.Line = d.line(p.Field)
		}
		return joinFieldErrors(probs)
	}
	*b = *nb
	return nil
}

// MarshalYAML encodes the blueprint in the format Parse reads: durations as
// whole seconds when they are, Go duration strings otherwise, and empty
// optional fields left out. yaml.Marshal of a Blueprint or *Blueprint
// therefore round-trips through Parse.
func (b Blueprint) MarshalYAML() (any, error) {
	root := mapping()
	addString(root, "name", b.Name)
	addString(root, "title", b.Title)
	addString(root, "description", b.Description)
	addString(root, "persona", b.Persona)
	addString(root, "mode", b.Mode)
	if b.ClosingSafety != 0 {
		addPair(root, "closing_safety", durationNode(b.ClosingSafety))
	}
	if len(b.Rubric) > 0 {
		rs := &yaml.Node{Kind: yaml.SequenceNode}
		for _, f := range b.Rubric {
			rn := mapping()
			addString(rn, "id", f.ID)
			addString(rn, "label", f.Label)
			if f.Required {
				addPair(rn, "required", boolNode(true))
			}
			addString(rn, "question", f.Question)
			addString(rn, "stage", f.Stage)
			addString(rn, "expect", f.Expect)
			if len(f.Keywords) > 0 {
				addPair(rn, "keywords", stringList(f.Keywords))
			}
			rs.Content = append(rs.Content, rn)
		}
		addPair(root, "rubric", rs)
	}
	if e := b.Exit; e != (ExitConditions{}) {
		en := mapping()
		if e.RequiredFieldsThreshold != 0 {
			addPair(en, "required_fields_threshold", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(e.RequiredFieldsThreshold, 'g', -1, 64)})
		}
		if e.MaxTurns != 0 {
			addPair(en, "max_turns", intNode(e.MaxTurns))
		}
		if e.GracefulClosing != nil {
			addPair(en, "graceful_closing", boolNode(*e.GracefulClosing))
		}
		if e.Rounds != 0 {
			addPair(en, "rounds", intNode(e.Rounds))
		}
		addPair(root, "exit_conditions", en)
	}
	if len(b.Competencies) > 0 {
		addPair(root, "competencies", stringList(b.Competencies))
	}
	if b.CandidateFeedback {
		addPair(root, "candidate_feedback", boolNode(true))
	}
	if b.FeedbackScores {
		addPair(root, "candidate_feedback_scores", boolNode(true))
	}
	stages := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range b.Stages {
		sn := mapping()
		addString(sn, "name", s.Name)
		addString(sn, "title", s.Title)
		addString(sn, "instructions", s.Instructions)
		addPair(sn, "limit", durationNode(s.Limit))
		if s.MinTime != 0 {
			addPair(sn, "min_time", durationNode(s.MinTime))
		}
		addPair(sn, "min_questions", intNode(s.MinQuestions))
		if s.Guided {
			addPair(sn, "guided", boolNode(true))
		}
		addString(sn, "next", s.Next)
		addString(sn, "acknowledgement", s.Acknowledgement)
		if len(s.Tools) > 0 {
			addPair(sn, "tools", stringList(ToolStrings(s.Tools)))
		}
		if len(s.Keywords) > 0 {
			addPair(sn, "keywords", stringList(s.Keywords))
		}
		if len(s.Questions) > 0 {
			qs := &yaml.Node{Kind: yaml.SequenceNode}
			for _, q := range s.Questions {
				qn := mapping()
				addString(qn, "id", q.ID)
				addString(qn, "text", q.Text)
				addString(qn, "purpose", q.Purpose)
				if len(q.Keywords) > 0 {
					addPair(qn, "keywords", stringList(q.Keywords))
				}
				if t := q.Context.Targets; !t.IsZero() {
					tn := mapping()
					addString(tn, "skill", t.Skill)
					addString(tn, "attribute", t.Attribute)
					addString(tn, "field", t.Field)
					addString(tn, "category", t.Category)
					if len(t.Assesses) > 0 {
						addPair(tn, "assesses", stringList(t.Assesses))
					}
					addString(tn, "phase", t.Phase)
					tn.Style = yaml.FlowStyle
					addPair(qn, "targets", tn)
				}
				qs.Content = append(qs.Content, qn)
			}
			addPair(sn, "questions", qs)
		}
		stages.Content = append(stages.Content, sn)
	}
	addPair(root, "stages", stages)
	return root, nil
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

func boolNode(v bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
}

func addPair(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// addString adds a non-empty string, as a literal block when it spans lines.
func addString(m *yaml.Node, key, v string) {
	if v == "" {
		return
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	if strings.Contains(v, "\n") {
		n.Style = yaml.LiteralStyle
	}
	addPair(m, key, n)
}

func stringList(vs []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vs {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
	}
	return n
}

func durationNode(d time.Duration) *yaml.Node {
	if d%time.Second == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(d/time.Second), 10)}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: d.String()}
}

var yamlLineError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 syntax error ("yaml: line 3: …") into
// "file:3: …".
func syntaxError(file string, err error) error {
	if m := yamlLineError.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FieldError{File: file, Line: line, Field: "yaml", Msg: m[2] + "; check the indentation and quoting around this line"}
	}
	return fmt.Errorf("stages: %s: %w", file, err)
}

func joinFieldErrors(fes []*FieldError) error {
	if len(fes) == 1 {
		return fes[0]
	}
	errs := make([]error, len(fes))
	for i, fe := range fes {
		errs[i] = fe
	}
	return errors.Join(errs...)
}

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
	blueprintFields = []string{"name", "title", "description", "persona", "mode", "closing_safety", "rubric", "exit_conditions",
		"competencies", "candidate_feedback", "candidate_feedback_scores", "stages"}
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

func (d *decoder) blueprint(n *yaml.Node) *Blueprint {
	b := &Blueprint{}
	d.fields(n, "", "blueprint", blueprintFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "name":
			b.Name = d.str(v, field)
		case "title":
			b.Title = d.str(v, field)
		case "description":
			b.Description = d.str(v, field)
		case "persona":
			b.Persona = d.str(v, field)
		case "mode":
			b.Mode = d.str(v, field)
		case "rubric":
			d.list(v, field, "rubric fields (lines starting with \"- id: …\")", func(rn *yaml.Node, rf string) {
				b.Rubric = append(b.Rubric, d.rubricField(rn, rf))
			})
		case "exit_conditions":
			b.Exit = d.exitConditions(v, field)
		case "competencies":
			// Blank entries are skipped, so a competency's line is recorded
			// under its index in b.Competencies, the index validation reports.
			for _, n := range d.wordNodes(v, field) {
				d.lines[fmt.Sprintf("%s[%d]", field, len(b.Competencies))] = n.Line
				b.Competencies = append(b.Competencies, strings.TrimSpace(n.Value))
			}
		case "candidate_feedback":
			b.CandidateFeedback = d.boolean(v, field)
		case "candidate_feedback_scores":
			b.FeedbackScores = d.boolean(v, field)
		case "closing_safety":
			b.ClosingSafety = d.duration(v, field)
		case "stages":
			d.list(v, field, "stages (lines starting with \"- name: …\")", func(sn *yaml.Node, sf string) {
				b.Stages = append(b.Stages, d.stage(sn, sf))
			})
		}
	})
	return b
}

func (d *decoder) stage(n *yaml.Node, path string) Stage {
	var s Stage
	d.fields(n, path, "stage", stageFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "name":
			s.Name = d.str(v, field)
		case "title":
			s.Title = d.str(v, field)
		case "instructions":
			s.Instructions = d.str(v, field)
		case "limit":
			s.Limit = d.duration(v, field)
		case "min_time":
			s.MinTime = d.duration(v, field)
		case "min_questions":
			s.MinQuestions = d.integer(v, field)
		case "guided":
			s.Guided = d.boolean(v, field)
		case "keywords":
			s.Keywords = d.words(v, field)
		case "next":
			s.Next = d.str(v, field)
		case "acknowledgement":
			s.Acknowledgement = d.str(v, field)
		case "tools":
			// Blank entries are skipped, so a tool's line is recorded under
			// its index in s.Tools, the index validation reports.
			for _, n := range d.wordNodes(v, field) {
				d.lines[fmt.Sprintf("%s[%d]", field, len(s.Tools))] = n.Line
				s.Tools = append(s.Tools, ToolName(strings.TrimSpace(n.Value)))
			}
		case "questions":
			d.list(v, field, "questions", func(qn *yaml.Node, qf string) {
				s.Questions = append(s.Questions, d.question(qn, qf))
			})
		}
	})
	return s
}

func (d *decoder) question(n *yaml.Node, path string) Question {
	var q Question
	if n.Kind == yaml.ScalarNode {
		q.Text = d.str(n, path+".text")
		return q
	}
	d.fields(n, path, "question", questionFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "id":
			q.ID = d.str(v, field)
		case "text":
			q.Text = d.str(v, field)
		case "purpose":
			q.Purpose = d.str(v, field)
		case "keywords":
			q.Keywords = d.words(v, field)
		case "targets":
			q.Context.Targets = d.targets(v, field)
		}
	})
	return q
}

func (d *decoder) rubricField(n *yaml.Node, path string) RubricField {
	var f RubricField
	d.fields(n, path, "rubric field", rubricFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "id":
			f.ID = d.str(v, field)
		case "label":
			f.Label = d.str(v, field)
		case "required":
			f.Required = d.boolean(v, field)
		case "question":
			f.Question = d.str(v, field)
		case "stage":
			f.Stage = d.str(v, field)
		case "expect":
			f.Expect = d.str(v, field)
		case "keywords":
			f.Keywords = d.words(v, field)
		}
	})
	return f
}

func (d *decoder) exitConditions(n *yaml.Node, path string) ExitConditions {
	var e ExitConditions
	d.fields(n, path, "exit_conditions", exitFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "required_fields_threshold":
			e.RequiredFieldsThreshold = d.number(v, field)
		case "max_turns":
			e.MaxTurns = d.integer(v, field)
		case "graceful_closing":
			g := d.boolean(v, field)
			e.GracefulClosing = &g
		case "rounds":
			e.Rounds = d.integer(v, field)
		}
	})
	return e
}

func (d *decoder) targets(n *yaml.Node, path string) Targets {
	var t Targets
	d.fields(n, path, "targets", targetsFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "skill":
			t.Skill = d.str(v, field)
		case "attribute":
			t.Attribute = d.str(v, field)
		case "field":
			t.Field = d.str(v, field)
		case "category":
			t.Category = d.str(v, field)
		case "assesses":
			t.Assesses = d.words(v, field)
		case "phase":
			t.Phase = d.str(v, field)
		}
	})
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
