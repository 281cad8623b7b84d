package stages

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
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
