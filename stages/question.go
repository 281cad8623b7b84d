package stages

import (
	"slices"
	"time"
)

// Question is a question of the interview, the one value every part uses:
// a stage's question bank lists questions not yet asked (ID, Text, Purpose,
// Keywords), and the state machine's question log, which is the interview
// record's question list, holds the questions asked, with the stage they
// were asked in, their context and when they were asked and spoken.
type Question struct {
	// ID is unique within its list: within the blueprint for a bank
	// question ("intro-1", generated from the stage name and position when a
	// YAML file leaves it out); "q1", "q2", … in asking order for a question
	// asked.
	ID string `yaml:"id" json:"id"`
	// Stage is the stage that was current when the question was asked; a
	// bank question belongs to the stage that lists it and leaves it empty.
	Stage string `yaml:"-" json:"stage,omitempty"`
	// Text is the question as it is spoken (a bank question's text is a
	// template that may use Profile fields).
	Text string `yaml:"text" json:"text"`
	// Purpose says what the question is meant to find out.
	Purpose string `yaml:"purpose" json:"purpose,omitempty"`
	// Keywords are what a good answer mentions.
	Keywords []string `yaml:"keywords" json:"keywords,omitempty"`
	// Expected is what a good answer says, in general (a role template's
	// "Expected answer" block); analysis and reports compare answers to it.
	Expected string `yaml:"-" json:"expected,omitempty"`
	// SkipIf says when a template question is not worth asking (its "Skip
	// if" block): the guide skips it when what is already known matches.
	SkipIf string `yaml:"-" json:"skip_if,omitempty"`
	// Context says where an asked question comes from and what it is for.
	// A bank or template question carries its kind and targets here too,
	// and the question asked from it inherits them.
	Context QuestionContext `yaml:"-" json:"context,omitzero"`
	// AskedAt is when the interviewer registered the question; zero for a
	// bank question.
	AskedAt time.Time `yaml:"-" json:"asked_at,omitzero"`
	// SpokenAt is when its text was delivered to the candidate; nil until
	// then. Only spoken questions count toward a stage's MinQuestions.
	SpokenAt *time.Time `yaml:"-" json:"spoken_at,omitempty"`
	// Withdrawn is true when the question was never delivered (the reply
	// carrying it was cut off first): it does not block asking it again.
	Withdrawn bool `yaml:"-" json:"withdrawn,omitempty"`
}

// Spoken reports whether the question was delivered to the candidate.
func (q Question) Spoken() bool { return q.SpokenAt != nil }

// Clone returns a copy of q that shares no memory with it.
func (q Question) Clone() Question {
	q.Keywords = slices.Clone(q.Keywords)
	q.Context = q.Context.Clone()
	if q.SpokenAt != nil {
		at := *q.SpokenAt
		q.SpokenAt = &at
	}
	return q
}

// QuestionKind says where an asked question comes from.
type QuestionKind string

// The kinds of question the interviewer asks. Every question asked carries
// one, in its Context, so the record, the reviewer and answer analysis know
// what it was for.
const (
	// KindBank is a question from the stage's question bank; Ref is its id.
	KindBank QuestionKind = "bank"
	// KindTemplate is a question of the role template; Ref is its id and
	// Targets name its category and what it assesses.
	KindTemplate QuestionKind = "template"
	// KindGap probes a skill attribute the résumé or job description left
	// unknown; Targets name the skill and attribute, Ref the gap's id.
	KindGap QuestionKind = "gap"
	// KindRubric asks for a rubric field still open; Targets.Field names it.
	KindRubric QuestionKind = "rubric"
	// KindFollowUp follows up an earlier answer from a different angle;
	// FollowsUp is the earlier question's id.
	KindFollowUp QuestionKind = "follow_up"
	// KindDiscovered asks about something an answer revealed (a person, a
	// system, a decision); Priority says how much it matters, Ref is the
	// backlog item's id.
	KindDiscovered QuestionKind = "discovered"
	// KindBrief is a question from a knowledge-capture brief; Ref is the
	// backlog item's id.
	KindBrief QuestionKind = "brief"
	// KindPhase works on what a phase evaluation found missing;
	// Targets.Phase names the phase (the stage).
	KindPhase QuestionKind = "phase"
	// KindFree is a question the interviewer made up, tied to nothing.
	KindFree QuestionKind = "free"
)

// QuestionKinds lists every kind, in the order the guide prefers them when
// all else is equal.
var QuestionKinds = []QuestionKind{KindFollowUp, KindDiscovered, KindBrief, KindGap, KindRubric, KindTemplate, KindPhase, KindBank, KindFree}

// Priority ranks a backlog question: P0 must be asked, P1 should be.
type Priority string

// The priorities of backlog questions.
const (
	P0 Priority = "P0"
	P1 Priority = "P1"
)

// Targets say what a question means to find out. Analysis of the answer
// reads them from the question, never from the answer: "3 years" answers
// the duration of the skill the question named.
type Targets struct {
	// Skill and Attribute (one of SkillAttributes) for a gap probe.
	Skill     string `json:"skill,omitempty"`
	Attribute string `json:"attribute,omitempty"`
	// Field is the rubric field's id ("years_experience").
	Field string `json:"field,omitempty"`
	// Category and Assesses come from a role template's section and its
	// "What this assesses" block.
	Category string   `json:"category,omitempty"`
	Assesses []string `json:"assesses,omitempty"`
	// Phase is the stage whose phase evaluation asked for this.
	Phase string `json:"phase,omitempty"`
}

// IsZero reports whether t targets nothing.
func (t Targets) IsZero() bool {
	return t.Skill == "" && t.Attribute == "" && t.Field == "" && t.Category == "" && len(t.Assesses) == 0 && t.Phase == ""
}

// QuestionContext says what an asked question is for, so the record, the
// reviewer and answer analysis know why it was asked.
type QuestionContext struct {
	// Kind is where the question comes from (one of QuestionKinds).
	Kind QuestionKind `json:"kind,omitempty"`
	// Targets are what the question means to find out.
	Targets Targets `json:"targets,omitzero"`
	// FollowsUp is the id of the question a follow-up follows up.
	FollowsUp string `json:"follows_up,omitempty"`
	// Priority is a discovered or brief question's priority.
	Priority Priority `json:"priority,omitempty"`
	// Ref is the id of what the question was taken from: a bank or
	// template question's id, a gap's or a backlog item's id.
	Ref string `json:"ref,omitempty"`
	// Note is free text: the purpose given, why a follow-up was needed.
	Note string `json:"note,omitempty"`
}

// Clone returns a copy of c that shares no memory with it.
func (c QuestionContext) Clone() QuestionContext {
	c.Targets.Assesses = slices.Clone(c.Targets.Assesses)
	return c
}
