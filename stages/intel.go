package stages

import (
	"slices"
)

// What an interview is for: a blueprint's Mode.
const (
	// ModeInterview is an assessment of a candidate (the default).
	ModeInterview = "interview"
	// ModeKnowledgeCapture records what a person knows, from a brief of
	// topics, and ends with a summary organised by topic instead of
	// scores.
	ModeKnowledgeCapture = "knowledge_capture"
)

// Modes lists the valid Blueprint.Mode values ("" means ModeInterview).
var Modes = []string{ModeInterview, ModeKnowledgeCapture}

// SkillAttributes are the six things worth knowing about each of the
// candidate's skills, in the order the guide probes them.
var SkillAttributes = []string{"duration", "depth", "scale", "autonomy", "production_vs_prototype", "constraints"}

// RubricField is one thing the interview must find out about the
// candidate ("years of experience"). A field is covered when an answer
// fills it, with the candidate's words as evidence.
type RubricField struct {
	// ID is the field's id, lower case ("years_experience").
	ID string `yaml:"id" json:"id"`
	// Label is the human name ("Years of experience").
	Label string `yaml:"label" json:"label"`
	// Required fields count toward ExitConditions.RequiredFieldsThreshold.
	Required bool `yaml:"required" json:"required,omitempty"`
	// Question is how the guide asks for the field when no other question
	// has filled it.
	Question string `yaml:"question" json:"question,omitempty"`
	// Stage, when set, is the only stage the field is asked for in; empty
	// means any guided stage.
	Stage string `yaml:"stage" json:"stage,omitempty"`
	// Expect says what kind of value fills the field for the offline
	// rules: one of ExpectKinds ("" = any substantive answer).
	Expect string `yaml:"expect" json:"expect,omitempty"`
	// Keywords, when an answer to any question mentions them and has the
	// expected kind of value, let the rules fill the field unasked.
	Keywords []string `yaml:"keywords" json:"keywords,omitempty"`
}

// The kinds of value a rubric field expects (RubricField.Expect).
const (
	ExpectAny      = ""
	ExpectDuration = "duration" // "three years", "since 2019"
	ExpectNumber   = "number"   // a count, money, a percentage
	ExpectRole     = "role"     // a job title or current position
)

// ExpectKinds lists the valid RubricField.Expect values.
var ExpectKinds = []string{ExpectAny, ExpectDuration, ExpectNumber, ExpectRole}

// ExitConditions say when the interview has what it needs and may close
// early (always through the closing stage; stage deadlines still apply).
type ExitConditions struct {
	// RequiredFieldsThreshold is the share (0–1) of required rubric
	// fields that must be covered or unknown before the interview may
	// end early. Zero means DefaultRequiredFieldsThreshold.
	RequiredFieldsThreshold float64 `yaml:"required_fields_threshold" json:"required_fields_threshold,omitempty"`
	// MaxTurns is how many candidate turns end the interview once the
	// threshold is met. Zero means DefaultMaxTurns.
	MaxTurns int `yaml:"max_turns" json:"max_turns,omitempty"`
	// GracefulClosing, when true (the default), closes through the
	// closing stage; false ends at once. A nil pointer means true.
	GracefulClosing *bool `yaml:"graceful_closing" json:"graceful_closing,omitempty"`
	// Rounds caps the questions of a knowledge-capture interview's guided
	// stages. Zero means DefaultCaptureRounds.
	Rounds int `yaml:"rounds" json:"rounds,omitempty"`
}

// Defaults of ExitConditions and of the guide.
const (
	DefaultRequiredFieldsThreshold = 1.0
	DefaultMaxTurns                = 30
	DefaultCaptureRounds           = 10
	// DefaultGapProbes is how many questions probe one skill attribute
	// before it is recorded unknown.
	DefaultGapProbes = 2
	// DefaultFollowUps is how many follow-ups one question may get.
	DefaultFollowUps = 1
	// DefaultPhasePass is the share of a phase's keywords the candidate
	// must cover for the offline phase evaluation to move on.
	DefaultPhasePass = 0.6
)

// Threshold returns RequiredFieldsThreshold or its default.
func (e ExitConditions) Threshold() float64 {
	if e.RequiredFieldsThreshold <= 0 {
		return DefaultRequiredFieldsThreshold
	}
	return min(e.RequiredFieldsThreshold, 1)
}

// Turns returns MaxTurns or its default.
func (e ExitConditions) Turns() int {
	if e.MaxTurns <= 0 {
		return DefaultMaxTurns
	}
	return e.MaxTurns
}

// Graceful reports whether an early exit goes through the closing stage.
func (e ExitConditions) Graceful() bool { return e.GracefulClosing == nil || *e.GracefulClosing }

// CaptureRounds returns Rounds or its default.
func (e ExitConditions) CaptureRounds() int {
	if e.Rounds <= 0 {
		return DefaultCaptureRounds
	}
	return e.Rounds
}

// KnowledgeCapture reports whether the blueprint records knowledge rather
// than assessing a candidate.
func (b *Blueprint) KnowledgeCapture() bool { return b.Mode == ModeKnowledgeCapture }

// RubricFor returns the rubric fields that may be asked in stage: those
// with no Stage and those of that stage.
func (b *Blueprint) RubricFor(stage string) []RubricField {
	var out []RubricField
	for _, f := range b.Rubric {
		if f.Stage == "" || f.Stage == stage {
			out = append(out, f)
		}
	}
	return out
}

// Guided reports whether the guide's questions (template, gaps, rubric,
// backlog) are asked in the stage called name.
func (b *Blueprint) Guided(name string) bool {
	i := b.Index(name)
	return i >= 0 && b.Stages[i].Guided
}

func cloneRubric(r []RubricField) []RubricField {
	if r == nil {
		return nil
	}
	out := slices.Clone(r)
	for i := range out {
		out[i].Keywords = slices.Clone(r[i].Keywords)
	}
	return out
}
