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
	// Context says where an asked question comes from and what it is for.
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
	if q.SpokenAt != nil {
		at := *q.SpokenAt
		q.SpokenAt = &at
	}
	return q
}

// QuestionKind says where an asked question comes from.
type QuestionKind string

// The kinds of question the interviewer asks.
const (
	// KindBank is a question from the stage's question bank; Ref is its id.
	KindBank QuestionKind = "bank"
	// KindModel is a question the language model made up.
	KindModel QuestionKind = "model"
	// KindFollowUp follows up an earlier question; Ref is that question's id.
	KindFollowUp QuestionKind = "follow_up"
)

// QuestionContext says what an asked question is for, so the record, the
// reviewer and later analysis know why it was asked. It is the place for
// what a question targets (skills, gaps) and its priority.
type QuestionContext struct {
	// Kind is where the question comes from (KindBank, KindModel,
	// KindFollowUp, or any other label).
	Kind QuestionKind `json:"kind,omitempty"`
	// Ref is the bank question's id for KindBank, or the id of the question
	// followed up for KindFollowUp.
	Ref string `json:"ref,omitempty"`
	// Note is free text ("answer lacked specifics", the purpose given).
	Note string `json:"note,omitempty"`
}
