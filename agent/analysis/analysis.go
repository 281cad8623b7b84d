// Package analysis reads what the candidate said and turns it into what an
// interviewer keeps in mind: how well an answer answered its question
// (confidence), the facts it stated, the skill attributes and rubric
// fields it filled, the follow-up a weak answer needs and the questions an
// answer opened up. It also reads the résumé and job description for
// skills, turns a knowledge-capture brief into questions, evaluates a
// design phase, judges whether anything important is still missing and
// writes a knowledge capture's summary.
//
// Two engines serve the one Analyzer interface: Rules, offline and
// deterministic (keyword lists and patterns for durations, team sizes,
// user counts, money, percentages and numbers written as words), and
// Model, a language model answering in JSON against a schema (structured
// output), retried on malformed output. Every value produced says which
// engine produced it (interviews.ByRules or interviews.ByLLM).
//
// Analysis never sits between the candidate's last word and the
// interviewer's reply: the conductor runs it beside the reply and folds
// the result into the next turn.
package analysis

import (
	"context"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Analyzer is an analysis engine. Its methods may be called from several
// goroutines at once; each returns an error only when it produced nothing
// usable (a model that kept failing), never a partial result.
type Analyzer interface {
	// Answer analyses one answer in the context of the question it
	// answers.
	Answer(ctx context.Context, in AnswerInput) (AnswerResult, error)
	// Skills reads the résumé and the job description: the skills each
	// names, with any attribute the résumé states ("five years of Go")
	// and the job's required and preferred skills (Sources "resume",
	// "job_required", "job_preferred").
	Skills(ctx context.Context, resume, jobDescription string) ([]interviews.Skill, error)
	// Backlog turns a knowledge-capture brief (markdown) into questions,
	// each with a Topic (the heading it came under) and a priority.
	Backlog(ctx context.Context, brief string) ([]interviews.BacklogItem, error)
	// Phase evaluates a design phase from what the candidate said since
	// it began.
	Phase(ctx context.Context, in PhaseInput) (interviews.Phase, error)
	// Missing is the light assessment before an early exit: what
	// important thing, if any, is still unknown. Empty means nothing.
	Missing(ctx context.Context, in MissingInput) ([]string, error)
	// Summarize writes a knowledge capture's summary by topic.
	Summarize(ctx context.Context, in SummaryInput) (interviews.TopicSummary, error)
}

// AnswerInput is one answer and what it answers.
type AnswerInput struct {
	// Question is the question answered, with its Context (kind and
	// targets): the skill and attribute or rubric field an answer fills
	// come from here, never guessed from the answer. Zero when no question
	// was open.
	Question stages.Question
	// Answer is what the candidate said.
	Answer string
	// Stage is the stage the answer was given in; Keywords are the topics
	// an answer there is expected to touch (the stage's and question's).
	Stage    string
	Keywords []string
	// Rubric are the rubric fields still open, which any answer may fill.
	Rubric []stages.RubricField
	// Skills are the skills known so far (names), which an answer may add
	// to.
	Skills []string
	// Recent is the conversation just before the answer, oldest first
	// ("Interviewer: …", "Candidate: …"), for a model's memory.
	Recent []string
}

// AnswerResult is what an answer gave.
type AnswerResult struct {
	// Confidence says how well the answer answered its question.
	Confidence interviews.Confidence
	// Facts are what the answer stated, each a sentence that stands alone
	// ("Has used Python for three years.").
	Facts []string
	// Fills are the skill attributes and rubric fields the answer filled.
	Fills []Fill
	// Declined is true when the candidate could not or would not answer
	// ("I'd rather not go into that, it's under NDA", "I don't know",
	// "pass"): the question is answered as far as it will be and is not
	// to be pressed.
	Declined bool
	// RepeatRequest is true when the turn asked to hear the question
	// again ("Could you repeat the question?", "Pardon?"): it is no
	// answer, fills nothing and leaves the question open (see
	// IsRepeatRequest).
	RepeatRequest bool
	// Absent are the skills the candidate said they lack ("I haven't used
	// Rust", "no PCI-DSS experience", "never worked with Kafka"), by name
	// (a known skill's spelling when it is one). They are not in Skills
	// and no attribute of theirs is filled: the record should mark them
	// absent, never as skills the candidate has.
	Absent []string
	// FollowUp is a follow-up question from a different angle, when the
	// confidence is not high; empty otherwise.
	FollowUp string
	// Discovered are questions the answer opened up: a person, a system or
	// a decision worth asking about.
	Discovered []Discovered
	// Skills are skills the answer mentioned (names).
	Skills []string
	// By is the engine that produced the result.
	By interviews.By
}

// Fill is one value an answer gave: a skill's attribute (Skill and
// Attribute set) or a rubric field (Field set).
type Fill struct {
	Skill     string
	Attribute string
	Field     string
	// Value is what was learned, short ("3 years", "team of 6").
	Value string
	// Evidence quotes the candidate's words it came from.
	Evidence string
}

// Discovered is a question an answer opened up.
type Discovered struct {
	// Text is the question as it would be asked.
	Text string
	// Priority is P0 (must ask) or P1 (worth asking).
	Priority stages.Priority
	// About is what the answer revealed ("the billing migration").
	About string
}

// PhaseInput is a design phase to evaluate.
type PhaseInput struct {
	// Stage is the phase's stage: its name, title, instructions and
	// Keywords (what a complete phase covers).
	Stage stages.Stage
	// Turns are the candidate's turns since the phase began.
	Turns []string
	// Problem is the design problem as the candidate was given it, with
	// the facts they could ask for; empty for an interview without one.
	Problem string
	// Pass is the keyword coverage (0–1) the offline evaluation needs to
	// advance (stages.DefaultPhasePass when zero).
	Pass float64
}

// MissingInput is what an interview knows when it could end early.
type MissingInput struct {
	Blueprint string
	Rubric    []interviews.RubricItem
	Gaps      []interviews.Gap
	// Facts are the facts of every answer so far.
	Facts []string
}

// SummaryInput is a finished knowledge capture.
type SummaryInput struct {
	// Brief is the brief the capture started from.
	Brief string
	// Items are the questions asked with their topic, answer and facts,
	// in order.
	Items []SummaryItem
}

// SummaryItem is one question of a knowledge capture and what came of it.
type SummaryItem struct {
	Topic    string
	Question string
	Answer   string
	Facts    []string
}
