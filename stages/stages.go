// Package stages defines interview blueprints: the ordered stages of an
// interview, each with its instructions, timings, gates and question bank.
// Blueprints come from Go (Default), from YAML files shipped in the binary
// (SystemDesign, Builtin) or from YAML files on disk (Load, Parse).
//
// Instructions, the persona, acknowledgements and question texts are
// text/template templates rendered with TemplateData, built from a Profile;
// RoleFocus and LevelExpectations adapt them to the role and level applied
// for.
//
// Role templates (Template, ParseTemplate) are markdown files of the
// questions worth asking for one role, shipped in the binary
// (BuiltinTemplate) or read from disk (LoadTemplate, FindTemplate).
package stages

import (
	"slices"
	"time"
)

// Done is the name of the terminal state that follows the last stage. It is
// not a stage of any blueprint and has no instructions.
const Done = "done"

// Blueprint is a whole interview plan.
type Blueprint struct {
	// Name identifies the blueprint ("default", "system-design"); it is
	// stored in every interview record.
	Name string `yaml:"name" json:"name"`
	// Title is a human name shown to recruiters ("Behavioural interview").
	Title string `yaml:"title" json:"title"`
	// Description says in one sentence what the interview is for.
	Description string `yaml:"description" json:"description"`
	// Persona is the interviewer's system-prompt preamble (a template, see
	// Profile for the fields it may use). Empty means the built-in persona.
	Persona string `yaml:"persona" json:"persona,omitempty"`
	// Mode is ModeInterview (empty means it) or ModeKnowledgeCapture.
	Mode string `yaml:"mode" json:"mode,omitempty"`
	// Language is the language the interview is held in, a BCP 47 tag of
	// a shipped language (lang.Languages: en, es, de, optionally with a
	// region such as es-MX); empty means English. The registration form
	// may choose another for one interview. The blueprint's own sentences
	// (acknowledgements) are said only in an interview of this language;
	// in another, the interviewer says the catalogue's.
	Language string `yaml:"language" json:"language,omitempty"`
	// Stages run in order unless a stage names its Next stage.
	Stages []Stage `yaml:"stages" json:"stages"`
	// Rubric lists what the interview must find out; with Exit it lets
	// the interview close once it has what it needs.
	Rubric []RubricField `yaml:"rubric" json:"rubric,omitempty"`
	// Exit says when the interview may close early.
	Exit ExitConditions `yaml:"exit_conditions" json:"exit_conditions,omitzero"`
	// Competencies are what the feedback report scores (0–100 each);
	// empty means the report's defaults (communication, technical depth,
	// structure of answers, role fit).
	Competencies []string `yaml:"competencies" json:"competencies,omitempty"`
	// CandidateFeedback, when true, gives the candidate a link to their
	// own feedback page at the end (a practice interview);
	// FeedbackScores shows them the scores too.
	CandidateFeedback bool `yaml:"candidate_feedback" json:"candidate_feedback,omitempty"`
	FeedbackScores    bool `yaml:"candidate_feedback_scores" json:"candidate_feedback_scores,omitempty"`
	// Problems is a design interview's pool of problems: each interview
	// works on one (see Problem); empty for an interview without.
	Problems []Problem `yaml:"problems" json:"problems,omitempty"`
	// ClosingSafety bounds how long a voice session waits, after entering the
	// last stage, for the closing utterance to finish before it ends the
	// interview anyway. Zero means DefaultClosingSafety (60 s); see
	// ClosingSafetyTimeout.
	ClosingSafety time.Duration `yaml:"-" json:"closing_safety"`
}

// Stage is one node of the interview: what the interviewer does there, for
// how long, and what must happen before it may move on.
type Stage struct {
	// Name is the stage id, lower case, unique within the blueprint
	// ("greeting", "intro", "experience", "closing").
	Name string `yaml:"name" json:"name"`
	// Title is the human name shown in the room page ("Your experience").
	Title string `yaml:"title" json:"title"`
	// Instructions is a text/template rendered with a Profile and put in the
	// system prompt while the stage is current.
	Instructions string `yaml:"instructions" json:"instructions"`
	// Limit is the stage's deadline measured from entering it; past it the
	// machine forces the next stage whatever the gates say. Every stage has
	// one.
	Limit time.Duration `yaml:"-" json:"limit"`
	// MinTime must pass in the stage before a requested transition is allowed.
	MinTime time.Duration `yaml:"-" json:"min_time"`
	// MinQuestions is how many questions must have been spoken in the stage
	// before a requested transition is allowed.
	MinQuestions int `yaml:"min_questions" json:"min_questions"`
	// Questions is the stage's optional question bank, asked in order by the
	// offline interviewer and offered to an LLM as suggestions.
	Questions []Question `yaml:"questions" json:"questions,omitempty"`
	// Keywords are topics an answer in this stage is expected to touch; the
	// offline interviewer uses them to judge depth.
	Keywords []string `yaml:"keywords" json:"keywords,omitempty"`
	// Next optionally names the stage that follows; empty means the next one
	// in the blueprint's list (or Done after the last).
	Next string `yaml:"next" json:"next,omitempty"`
	// Acknowledgement is spoken once when the interview enters this stage
	// (a template with the Profile fields). Empty means a built-in sentence
	// naming the stage's Title.
	Acknowledgement string `yaml:"acknowledgement" json:"acknowledgement,omitempty"`
	// Tools are the tools the interviewer model is offered in this stage,
	// as pipecat-flows' nodes own their functions. Empty means
	// all of Tools; see OfferedTools.
	Tools []ToolName `yaml:"tools" json:"tools,omitempty"`
	// Guided stages ask the guide's questions: the role template's, gap
	// probes, open rubric fields and the backlog (follow-ups, discovered
	// and brief questions), before their own bank.
	Guided bool `yaml:"guided" json:"guided,omitempty"`
}

// Profile is what the instruction templates know about the candidate. The
// templates see it through TemplateData (see NewTemplateData).
type Profile struct {
	// Name is the candidate's name as registered.
	Name string
	// Role is the role applied for, free text ("Backend engineer").
	Role string
	// Level is one of Levels (see NormalizeLevel).
	Level string
	// JobDescription is the optional job description text.
	JobDescription string
	// ResumeSummary is an optional short summary of the résumé.
	ResumeSummary string
	// Language is the language the interview is held in (a tag checked
	// with lang.Parse); empty means the blueprint's, then English.
	Language string
	// Problem is the design problem of the interview, from its
	// blueprint's pool; zero for none.
	Problem Problem
}

// Levels are the accepted seniority levels, most junior first.
var Levels = []string{"entry", "junior", "mid", "senior", "lead", "staff"}

// DefaultClosingSafety is the closing safety timeout used when a blueprint
// leaves ClosingSafety at zero.
const DefaultClosingSafety = 60 * time.Second

// ClosingSafetyTimeout returns ClosingSafety, or DefaultClosingSafety when it
// is zero, so callers never wait forever on a closing utterance.
func (b *Blueprint) ClosingSafetyTimeout() time.Duration {
	if b.ClosingSafety <= 0 {
		return DefaultClosingSafety
	}
	return b.ClosingSafety
}

// Clone returns a deep copy of the blueprint: mutating the copy's stages,
// questions or keywords never changes the original.
func (b *Blueprint) Clone() *Blueprint {
	if b == nil {
		return nil
	}
	c := *b
	c.Rubric = cloneRubric(b.Rubric)
	c.Competencies = slices.Clone(b.Competencies)
	if g := b.Exit.GracefulClosing; g != nil {
		v := *g
		c.Exit.GracefulClosing = &v
	}
	c.Stages = make([]Stage, len(b.Stages))
	for i, s := range b.Stages {
		c.Stages[i] = s.clone()
	}
	if b.Stages == nil {
		c.Stages = nil
	}
	if b.Problems != nil {
		c.Problems = make([]Problem, len(b.Problems))
		for i, p := range b.Problems {
			c.Problems[i] = p.clone()
		}
	}
	return &c
}

func (s Stage) clone() Stage {
	c := s
	c.Keywords = slices.Clone(s.Keywords)
	c.Tools = slices.Clone(s.Tools)
	if s.Questions != nil {
		c.Questions = make([]Question, len(s.Questions))
		for i, q := range s.Questions {
			c.Questions[i] = q.Clone()
		}
	}
	return c
}

// Stage returns a copy of the stage called name and its position in
// Stages; ok is false when the blueprint has no such stage (Done included).
func (b *Blueprint) Stage(name string) (s Stage, index int, ok bool) {
	i := b.Index(name)
	if i < 0 {
		return Stage{}, -1, false
	}
	return b.Stages[i].clone(), i, true
}

// Index returns the position of the stage called name in Stages, or -1 when
// there is none.
func (b *Blueprint) Index(name string) int {
	for i := range b.Stages {
		if b.Stages[i].Name == name {
			return i
		}
	}
	return -1
}

// First returns the name of the stage an interview starts in, or Done when
// the blueprint has no stages.
func (b *Blueprint) First() string {
	if len(b.Stages) == 0 {
		return Done
	}
	return b.Stages[0].Name
}

// NextStage returns the stage that follows name: the stage's Next when set,
// otherwise the following stage in the list, or Done after the last one.
// It returns Done for Done itself and for names that are not stages, so a
// caller walking the interview always reaches the end.
func (b *Blueprint) NextStage(name string) string {
	i := b.Index(name)
	if i < 0 {
		return Done
	}
	if next := b.Stages[i].Next; next != "" {
		return next
	}
	if i+1 < len(b.Stages) {
		return b.Stages[i+1].Name
	}
	return Done
}

// IsLast reports whether name is a stage that leads straight to Done, the
// closing stage of the interview.
func (b *Blueprint) IsLast(name string) bool {
	return b.Index(name) >= 0 && b.NextStage(name) == Done
}

// Path returns the stage names in the order an interview visits them, from
// First following NextStage until Done (stages skipped by Next are left
// out). It stops at the first repeated stage, so it is safe on blueprints
// that have not been validated.
func (b *Blueprint) Path() []string {
	var path []string
	seen := map[string]bool{}
	for name := b.First(); name != Done && !seen[name] && b.Index(name) >= 0; name = b.NextStage(name) {
		seen[name] = true
		path = append(path, name)
	}
	return path
}
