package interviews

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// ReportStatus is where a feedback report is in its life.
type ReportStatus string

// The statuses of a report: pending while it is being written (or waiting
// for a retry), then ready, or failed once every attempt has failed.
const (
	ReportPending ReportStatus = "pending"
	ReportReady   ReportStatus = "ready"
	ReportFailed  ReportStatus = "failed"
)

// Report is the feedback report on a finished interview: it advises,
// people decide (see Decision). With a model it is a structured answer
// validated against a schema; offline it is the basic report, computed
// from the analyses, the rubric and the transcript and labelled Basic.
// A knowledge capture's report carries its Topics instead of scores.
type Report struct {
	// Status is pending, ready or failed.
	Status ReportStatus `json:"status"`
	// Attempts counts the generations tried; Error says why the last one
	// failed (never a key or a transcript); NextAttempt is when a pending
	// report is tried again.
	Attempts    int        `json:"attempts,omitempty"`
	Error       string     `json:"error,omitempty"`
	NextAttempt *time.Time `json:"next_attempt,omitempty"`
	// Version numbers the reports of this interview: 1 for the first,
	// one more for each regeneration.
	Version int `json:"version"`
	// Basic is true for the offline report.
	Basic bool `json:"basic,omitempty"`
	// Model and PromptVersion say what wrote a model's report
	// ("openai:gpt-4o-mini", "report-v1"); empty for the basic report.
	Model         string `json:"model,omitempty"`
	PromptVersion string `json:"prompt_version,omitempty"`
	// GeneratedAt is when the report became ready.
	GeneratedAt *time.Time `json:"generated_at,omitempty"`

	// OverallScore is 0–100; Headline says it in one line.
	OverallScore float64 `json:"overall_score"`
	Headline     string  `json:"headline,omitempty"`
	// Competencies are scored 0–100 with a rationale each (the
	// blueprint names them; default: communication, technical depth,
	// structure of answers, role fit).
	Competencies []Competency `json:"competencies,omitempty"`
	// Strengths and Improvements, two or three each, quote the
	// candidate's own words.
	Strengths    []Point `json:"strengths,omitempty"`
	Improvements []Point `json:"improvements,omitempty"`
	// KeyQuestions is feedback on the questions that mattered most.
	KeyQuestions []QuestionFeedback `json:"key_questions,omitempty"`
	// STAR is the structure of each behavioural answer.
	STAR []STAR `json:"star,omitempty"`
	// Stats are the transcript's figures.
	Stats TranscriptStats `json:"stats"`
	// Stages is the coverage of each stage visited.
	Stages []StageCoverage `json:"stages,omitempty"`
	// RubricCoverage is the share (0–1) of required rubric fields
	// covered; UnresolvedGaps the gaps left open or unknown ("Python —
	// scale").
	RubricCoverage float64  `json:"rubric_coverage"`
	UnresolvedGaps []string `json:"unresolved_gaps,omitempty"`
	// Topics is a knowledge capture's summary, in place of scores.
	Topics []SummaryTopic `json:"topics,omitempty"`
	// UnclearTurns are the candidate's turns whose transcript the speech
	// recogniser was unsure of (Turn.Heard): flagged for the reviewer to
	// listen to, never quoted nor judged.
	UnclearTurns []int `json:"unclear_turns,omitempty"`
}

// Competency is one scored competency of a report.
type Competency struct {
	Name string `json:"name"`
	// Score is 0–100.
	Score     float64 `json:"score"`
	Rationale string  `json:"rationale"`
}

// Point is a strength or an improvement, with the candidate's words it
// rests on.
type Point struct {
	Text  string `json:"text"`
	Quote string `json:"quote,omitempty"`
	// QuestionID is the question the quote answers, when known.
	QuestionID string `json:"question_id,omitempty"`
}

// QuestionFeedback is feedback on one key question.
type QuestionFeedback struct {
	QuestionID string `json:"question_id"`
	Question   string `json:"question"`
	Good       string `json:"good,omitempty"`
	Missing    string `json:"missing,omitempty"`
	// Quote is the candidate's own words from their answer, verbatim;
	// empty when no answer was clear enough to quote.
	Quote string `json:"quote,omitempty"`
}

// STAR says which parts of the Situation–Task–Action–Result structure a
// behavioural answer had.
type STAR struct {
	QuestionID string `json:"question_id"`
	Situation  bool   `json:"situation"`
	Task       bool   `json:"task"`
	Action     bool   `json:"action"`
	Result     bool   `json:"result"`
}

// TranscriptStats are figures of the transcript.
type TranscriptStats struct {
	// FillerWords counts "um", "uh", "like", "you know", … in the
	// candidate's turns.
	FillerWords int `json:"filler_words"`
	// TalkTimeRatio is the candidate's share (0–1) of the time either
	// speaker spoke, counting their spoken answers only; 0 when they
	// typed every answer (SpokenAnswers is 0), when it means nothing.
	TalkTimeRatio float64 `json:"talk_time_ratio"`
	// Answers is the number of candidate turns, of which SpokenAnswers
	// were spoken and TypedAnswers typed, and the answer lengths in
	// words: mean, median and longest.
	Answers          int     `json:"answers"`
	SpokenAnswers    int     `json:"spoken_answers,omitempty"`
	TypedAnswers     int     `json:"typed_answers,omitempty"`
	MeanAnswerWords  float64 `json:"mean_answer_words"`
	MedianAnswerWord float64 `json:"median_answer_words"`
	MaxAnswerWords   int     `json:"max_answer_words"`
}

// StageCoverage is how one stage went.
type StageCoverage struct {
	Stage     string `json:"stage"`
	Title     string `json:"title,omitempty"`
	Questions int    `json:"questions"`
	// Forced is true when the stage's deadline moved the interview on.
	Forced bool `json:"forced,omitempty"`
}

// Clone returns a deep copy of r (nil for nil).
func (r *Report) Clone() *Report {
	if r == nil {
		return nil
	}
	c := *r
	if r.NextAttempt != nil {
		t := *r.NextAttempt
		c.NextAttempt = &t
	}
	if r.GeneratedAt != nil {
		t := *r.GeneratedAt
		c.GeneratedAt = &t
	}
	c.Competencies = slices.Clone(r.Competencies)
	c.Strengths = slices.Clone(r.Strengths)
	c.Improvements = slices.Clone(r.Improvements)
	c.KeyQuestions = slices.Clone(r.KeyQuestions)
	c.STAR = slices.Clone(r.STAR)
	c.Stages = slices.Clone(r.Stages)
	c.UnresolvedGaps = slices.Clone(r.UnresolvedGaps)
	c.UnclearTurns = slices.Clone(r.UnclearTurns)
	c.Topics = cloneEach(r.Topics, func(t *SummaryTopic) { t.Points = slices.Clone(t.Points) })
	return &c
}

// Validate checks a report's status and that its scores are finite and in
// range.
func (r *Report) Validate() error {
	switch r.Status {
	case ReportPending, ReportReady, ReportFailed:
	default:
		return fmt.Errorf("status %q is not pending, ready or failed", r.Status)
	}
	score := func(what string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 100 {
			return fmt.Errorf("%s %v is not a number from 0 to 100", what, v)
		}
		return nil
	}
	if err := score("overall_score", r.OverallScore); err != nil {
		return err
	}
	for _, c := range r.Competencies {
		if err := score("competency "+c.Name, c.Score); err != nil {
			return err
		}
	}
	if v := r.RubricCoverage; math.IsNaN(v) || v < 0 || v > 1 {
		return fmt.Errorf("rubric_coverage %v is not from 0 to 1", v)
	}
	return nil
}

// DecisionKind is a reviewer's decision on a candidate.
type DecisionKind string

// The decisions a reviewer records.
const (
	DecisionAdvance DecisionKind = "advance"
	DecisionHold    DecisionKind = "hold"
	DecisionReject  DecisionKind = "reject"
)

// Valid reports whether d is advance, hold or reject.
func (d DecisionKind) Valid() bool {
	return d == DecisionAdvance || d == DecisionHold || d == DecisionReject
}

// Decision is one reviewer's decision, with their note.
type Decision struct {
	Decision DecisionKind `json:"decision"`
	Note     string       `json:"note,omitempty"`
	// By is the reviewer: their email, or "shared-password".
	By string    `json:"by"`
	At time.Time `json:"at"`
	// ReportVersion is the report the reviewer had in front of them.
	ReportVersion int `json:"report_version,omitempty"`
}

// Audit actions (AuditEntry.Action).
const (
	AuditDecision          = "decision.recorded"
	AuditReportGenerated   = "report.generated"
	AuditReportRegenerate  = "report.regenerate_requested"
	AuditReportFailed      = "report.failed"
	AuditWebhookDelivered  = "webhook.delivered"
	AuditWebhookFailed     = "webhook.failed"
	AuditFeedbackEmailed   = "feedback.emailed"
	AuditFeedbackEmailFail = "feedback.email_failed"
	AuditTextsDropped      = "texts.dropped"
)

// AuditEntry is one thing done to the record after the interview.
type AuditEntry struct {
	At time.Time `json:"at"`
	// Who did it: a reviewer's email, "shared-password", or "viva" for
	// the system.
	Who string `json:"who"`
	// Action is one of the Audit* values.
	Action string `json:"action"`
	// Detail says more, in words ("advance: strong system design",
	// "https://hr.example/hook: HTTP 200 after 2 attempts").
	Detail string `json:"detail,omitempty"`
	// ReportVersion and Model identify the report concerned.
	ReportVersion int    `json:"report_version,omitempty"`
	Model         string `json:"model,omitempty"`
}
