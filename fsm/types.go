package fsm

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// Errors returned by the Machine. They are sentinel values so callers can
// test for them with errors.Is; their text says what to do next.
var (
	// ErrNotStarted is returned by operations that need a current stage
	// before Start was called.
	ErrNotStarted = errors.New("fsm: the interview has not started: call Start first")
	// ErrDone is returned by operations that need a current stage after the
	// interview reached stages.Done.
	ErrDone = errors.New("fsm: the interview is over: there is no stage left to move to or ask in")
	// ErrEmptyQuestion is returned by Ask for a question with no text.
	ErrEmptyQuestion = errors.New("fsm: empty question: pass the question's text as it will be spoken")
	// ErrUnknownQuestion is returned by MarkSpoken for an id Ask never gave out.
	ErrUnknownQuestion = errors.New("fsm: unknown question id: pass an id returned by Ask")
)

// Transition is one move of the interview from one stage to another.
type Transition struct {
	// From is the stage left; "" for the transition made by Start.
	From string `json:"from"`
	// To is the stage entered, or stages.Done at the end.
	To string `json:"to"`
	// Forced is true when the transition skipped the gates: a deadline, an
	// explicit Force (the candidate asked to stop). False when requested
	// through Advance, and for Start.
	Forced bool `json:"forced"`
	// Reason says why the transition happened ("deadline", or the text the
	// caller gave).
	Reason string `json:"reason,omitempty"`
	// At is when the transition happened, on the machine's clock.
	At time.Time `json:"at"`
	// Ack is the acknowledgement queued for the stage entered (see
	// Machine.TakeAck); empty for the transition to Done.
	Ack string `json:"ack,omitempty"`
}

// IsZero reports whether t is the zero Transition (no transition happened).
func (t Transition) IsZero() bool { return t.To == "" }

// TimeStatus is a snapshot of the current stage's clock and gates, for
// prompts ("time remaining 40%"), the room page and the record.
type TimeStatus struct {
	Stage        string        `json:"stage"`         // current stage, "" before Start, stages.Done at the end
	Index        int           `json:"index"`         // as Machine.Index
	Count        int           `json:"count"`         // as Machine.Count
	Entered      time.Time     `json:"entered"`       // when the stage was entered
	Deadline     time.Time     `json:"deadline"`      // Entered + Limit
	Elapsed      time.Duration `json:"elapsed"`       // time spent in the stage so far
	Remaining    time.Duration `json:"remaining"`     // time left before the deadline, never negative
	Limit        time.Duration `json:"limit"`         // the stage's scaled limit
	MinTime      time.Duration `json:"min_time"`      // the stage's scaled minimum time
	RemainingPct float64       `json:"remaining_pct"` // Remaining as a percentage of Limit, 0..100

	Spoken          int  `json:"spoken"`            // questions spoken in the stage
	MinQuestions    int  `json:"min_questions"`     // questions required before a requested transition
	MinTimeMet      bool `json:"min_time_met"`      // Elapsed ≥ MinTime
	MinQuestionsMet bool `json:"min_questions_met"` // Spoken ≥ MinQuestions
	Overrun         bool `json:"overrun"`           // the deadline has been reached and not yet acted on
}

// GateError is returned when a requested transition (Advance, Gate) is not
// allowed yet. Its message is written for the LLM: it says what is missing
// and what to do instead.
type GateError struct {
	Stage        string        // the stage that cannot be left yet
	Spoken       int           // questions spoken in it so far
	MinQuestions int           // questions it requires
	Elapsed      time.Duration // time spent in it so far
	MinTime      time.Duration // time it requires
}

// QuestionsMet reports whether the question minimum is reached.
func (e *GateError) QuestionsMet() bool { return e.Spoken >= e.MinQuestions }

// TimeMet reports whether the minimum time is reached.
func (e *GateError) TimeMet() bool { return e.Elapsed >= e.MinTime }

// Error says what blocks the transition and what to do next, e.g.
// "cannot leave intro yet: 1 of 2 required questions asked and 12s of the
// 30s minimum spent; ask another question, and spend about 18s more in this
// stage, before transitioning".
func (e *GateError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot leave %s yet: %d of %d required questions asked", e.Stage, e.Spoken, e.MinQuestions)
	if e.MinTime > 0 {
		fmt.Fprintf(&b, " and %s of the %s minimum spent", fmtDur(e.Elapsed), fmtDur(e.MinTime))
	}
	more := fmtDur(e.MinTime - e.Elapsed)
	switch missing := e.MinQuestions - e.Spoken; {
	case !e.QuestionsMet() && !e.TimeMet():
		fmt.Fprintf(&b, "; ask %s, and spend about %s more in this stage, before transitioning", questionsWord(missing), more)
	case !e.QuestionsMet():
		fmt.Fprintf(&b, "; ask %s before transitioning", questionsWord(missing))
	default:
		fmt.Fprintf(&b, "; keep the conversation going in this stage for about %s more (a follow-up question on the last answer works well) before transitioning", more)
	}
	return b.String()
}

func questionsWord(n int) string {
	if n == 1 {
		return "another question"
	}
	return fmt.Sprintf("%d more questions", n)
}

// fmtDur prints a duration the way a person would say it: "450ms", "1.5s",
// "12s", "1m30s", "2m".
func fmtDur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	var s string
	switch {
	case d < time.Second:
		s = d.Round(10 * time.Millisecond).String()
	case d < 10*time.Second:
		s = d.Round(100 * time.Millisecond).String()
	default:
		s = d.Round(time.Second).String()
	}
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}

// RepeatError is returned by Ask when a question is too similar to one
// already asked anywhere in the interview.
type RepeatError struct {
	// Previous is the earlier question it repeats (the most similar one).
	Previous stages.Question
	// Similarity is Similarity(new, Previous.Text), at least RepeatThreshold.
	Similarity float64
}

// Error tells the LLM which question is repeated and to ask something else.
func (e *RepeatError) Error() string {
	return fmt.Sprintf("this repeats an earlier question (%s in %s: %q, similarity %.2f): ask something different, about a topic not covered yet or a follow-up on the candidate's last answer",
		e.Previous.ID, e.Previous.Stage, e.Previous.Text, e.Similarity)
}

// EventKind names what an Event reports.
type EventKind string

// The kinds of Event a Machine emits.
const (
	// EventStageEntered: a stage was entered (Transition set).
	EventStageEntered EventKind = "stage_entered"
	// EventStageLeft: a stage was left (Transition set); it precedes the
	// stage_entered or done event of the same transition.
	EventStageLeft EventKind = "stage_left"
	// EventMilestone: the stage reached Milestone percent of its limit.
	EventMilestone EventKind = "milestone"
	// EventQuestionAsked: Ask registered a question (Question set).
	EventQuestionAsked EventKind = "question_asked"
	// EventQuestionSpoken: MarkSpoken confirmed a question (Question set).
	EventQuestionSpoken EventKind = "question_spoken"
	// EventDone: the interview reached stages.Done (Transition set).
	EventDone EventKind = "done"
)

// milestones are the percentages of a stage's limit at which a milestone
// event is emitted, in order; 100 is the deadline itself.
var milestones = [...]int{50, 75, 90, 100}

// Event is something that happened in the machine, reported to
// Options.OnEvent.
type Event struct {
	Kind       EventKind        `json:"kind"`
	Stage      string           `json:"stage"`                // the stage concerned (left, entered, of the milestone or question)
	Transition *Transition      `json:"transition,omitempty"` // for stage_entered, stage_left and done
	Milestone  int              `json:"milestone,omitempty"`  // 50, 75, 90 or 100 for milestone
	Question   *stages.Question `json:"question,omitempty"`   // for question_asked and question_spoken
	At         time.Time        `json:"at"`                   // when it happened, on the machine's clock
}
