package agent

import (
	"context"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// What a transport gives the loop (candidate input) and takes from it
// (replies to play, stage changes, the ending).

// Input is something the candidate did, as a transport saw it:
// SpeechStarted, SpeechEnded, BargeIn, CandidateTurn, Joined, Left,
// EndRequested, InputEnded or Closed.
type Input interface{ isInput() }

// SpeechStarted is the candidate starting to speak: an acknowledgement of
// a stage change waits while they speak, and the first SpeechStarted of a
// turn dates the turn.
type SpeechStarted struct {
	// At is when the speech started.
	At time.Time
}

// SpeechEnded is the candidate pausing; the turn may go on.
type SpeechEnded struct{}

// Heard is words recognised in the candidate's speech before the turn is
// over (an interim or final transcript): they tell a real interruption
// from a cough.
type Heard struct {
	// Text is the transcript so far.
	Text string
}

// TurnLikely is the candidate having stopped on a finished answer while
// the endpointing delay runs: Text is the turn that ends unless they go
// on. A model may start on the reply (preemptive generation); nothing is
// said before the CandidateTurn.
type TurnLikely struct {
	Text string
}

// Hearing is the candidate receiving the interviewer's audio (subscribed
// to its track): the greeting waits for it (LoopOptions.HearingTimeout).
type Hearing struct{}

// BargeIn is the candidate speaking over the interviewer: the reply being
// delivered is cut where it is.
type BargeIn struct{}

// Joined is the candidate being present: arriving first, or coming back
// after Left.
type Joined struct{}

// Left is the candidate leaving; they may come back within
// LoopOptions.RejoinGrace.
type Left struct{}

// EndRequested is the candidate ending the interview themselves. Saved,
// when not nil, is closed once the record says so.
type EndRequested struct {
	// Saved is closed when the ending is saved.
	Saved chan<- struct{}
}

// InputEnded is the end of the candidate's input (the terminal's input
// closed): the reply being delivered finishes, then the interview ends as
// candidate_left by end_of_input. A transport's input channel closing
// means the same.
type InputEnded struct{}

// Closed is the transport no longer able to carry the interview (the room
// is gone, the speech recogniser failed): the reply being delivered is cut
// and the interview ends as its Ending says.
type Closed Ending

func (SpeechStarted) isInput() {}
func (SpeechEnded) isInput()   {}
func (Heard) isInput()         {}
func (TurnLikely) isInput()    {}
func (Hearing) isInput()       {}
func (BargeIn) isInput()       {}
func (CandidateTurn) isInput() {}
func (Joined) isInput()        {}
func (Left) isInput()          {}
func (EndRequested) isInput()  {}
func (InputEnded) isInput()    {}
func (Closed) isInput()        {}

// Transport carries one interview between the loop and the candidate: a
// LiveKit room (speech and typed text), a terminal. It holds no
// turn-taking of its own: the loop decides who speaks and when.
type Transport interface {
	// Inputs yields what the candidate does, in order. The loop reads it
	// until the interview ends; a closed channel means InputEnded.
	Inputs() <-chan Input
	// Say starts delivering r, its text as it is generated, and returns at
	// once.
	Say(ctx context.Context, r *Reply) Playback
	// Listening shows that the interviewer waits for the candidate.
	Listening()
	// StageEntered shows the stage the interview has just entered.
	StageEntered(StageChange)
}

// Playback is one reply on its way to the candidate.
type Playback interface {
	// Done is closed when the reply has been delivered whole or cut.
	Done() <-chan struct{}
	// Interrupt cuts the reply where it is; Done closes soon after. A
	// reply already delivered is left as it was.
	Interrupt()
	// Wait blocks until Done and returns what reached the candidate:
	// StartedAt is zero when nothing did. The loop fills EndToEnd.
	Wait() Delivery
}

// StageChange is the interview entering a stage, as shown to the
// candidate.
type StageChange struct {
	// Name is the stage's machine name; Title its human title.
	Name, Title string
	// Index is the stage's zero-based position; Count the number of stages.
	Index, Count int
	// Deadline is when the stage must end; zero means none.
	Deadline time.Time
	// Forced is true when the stage's predecessor ran out of time.
	Forced bool
}

// Ending is how an interview ends: the record's final status and why.
type Ending struct {
	// Status is the record's final status.
	Status interviews.Status
	// Reason is what ended the interview.
	Reason interviews.EndReason
}
