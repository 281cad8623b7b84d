package interviews

import (
	"fmt"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// Start marks the interview in progress from at. It does nothing if the
// interview has already started.
func (r *Record) Start(at time.Time) {
	if r.StartedAt != nil {
		return
	}
	r.StartedAt = &at
	if !r.Status.Finished() {
		r.Status = StatusInProgress
	}
}

// AppendTurn adds t at the end of the turn list, numbering it one past the
// last turn (Seq 1 for the first), and returns a pointer to the stored turn
// so the caller can fill in its end time and metrics later. The pointer is
// valid until the next AppendTurn. A turn whose end comes before its
// start (times taken from different events, late on a busy worker) is
// stored as ending when it starts: one such turn would otherwise make
// every later save of the record fail its validation.
func (r *Record) AppendTurn(t Turn) *Turn {
	if !t.EndedAt.IsZero() && t.EndedAt.Before(t.StartedAt) {
		t.EndedAt = t.StartedAt
	}
	t.Seq = 1
	if n := len(r.Turns); n > 0 {
		t.Seq = r.Turns[n-1].Seq + 1
	}
	r.Turns = append(r.Turns, t)
	return &r.Turns[len(r.Turns)-1]
}

// EnterStage records entering stage name at the given time, closing the
// visit to the previous stage. forced marks a transition made by a deadline;
// reason says why the stage was entered.
func (r *Record) EnterStage(name, title string, at time.Time, forced bool, reason string) {
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt == nil {
		r.Stages[n-1].LeftAt = &at
		r.Stages[n-1].ExitReason = reason
	}
	r.Stages = append(r.Stages, StageVisit{Name: name, Title: title, EnteredAt: at, Forced: forced, Reason: reason})
}

// CandidateTurns counts the candidate's turns: the answers given.
func (r *Record) CandidateTurns() int {
	n := 0
	for _, t := range r.Turns {
		if t.Role == RoleCandidate {
			n++
		}
	}
	return n
}

// AnswerTurns counts the candidate's turns that answered a question: asides
// (a request to repeat, their own questions at the closing) left out.
func (r *Record) AnswerTurns() int {
	n := 0
	for _, t := range r.Turns {
		if t.Role == RoleCandidate && t.Aside == "" {
			n++
		}
	}
	return n
}

// CurrentStage returns the name of the stage the interview is in (the last
// one entered), or "" before the first.
func (r *Record) CurrentStage() string {
	if n := len(r.Stages); n > 0 {
		return r.Stages[n-1].Name
	}
	return ""
}

// Finish ends the interview at the given time with status (one of the
// finished statuses) and what ended it: it sets EndedAt, closes the open
// stage visit and sets FinalStage to the last stage entered (the terminal
// "done" state does not count). A record already finished keeps its first
// ending, so every exit path may call Finish safely.
func (r *Record) Finish(status Status, endedBy EndReason, at time.Time) {
	if r.Status.Finished() {
		return
	}
	r.Status = status
	r.EndedBy = endedBy
	r.EndedAt = &at
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt == nil {
		r.Stages[n-1].LeftAt = &at
	}
	for i := len(r.Stages) - 1; i >= 0; i-- {
		if r.Stages[i].Name != stages.Done {
			r.FinalStage = r.Stages[i].Name
			break
		}
	}
}

// Leave ends the interview as candidate_left at the given time, like
// Finish, and keeps it open for the candidate to rejoin until until (no
// window when until is not after at).
func (r *Record) Leave(at, until time.Time) {
	if r.Status.Finished() {
		return
	}
	r.Finish(StatusCandidateLeft, EndedCandidateLeft, at)
	if until.After(at) {
		r.RejoinUntil = &until
	}
	r.Absences = append(r.Absences, Absence{LeftAt: at})
}

// CanRejoin reports whether the candidate, having left, may still come
// back at now.
func (r *Record) CanRejoin(now time.Time) bool {
	return r.Status == StatusCandidateLeft && r.RejoinUntil != nil && now.Before(*r.RejoinUntil)
}

// Rejoin undoes Leave when the candidate has come back: the interview is in
// progress again, in the stage it was in, and the absence is closed. The
// session that keeps the window decides when it has passed, so only a
// closed window (CloseRejoin) makes Rejoin fail.
func (r *Record) Rejoin(at time.Time) error {
	if r.Status != StatusCandidateLeft || r.RejoinUntil == nil || r.EndedAt == nil {
		return fmt.Errorf("interview %s cannot be rejoined: it is %s", r.ID, r.Status)
	}
	left := *r.EndedAt
	r.Status = StatusInProgress
	r.EndedBy, r.EndedAt, r.FinalStage, r.RejoinUntil = "", nil, "", nil
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt != nil && r.Stages[n-1].LeftAt.Equal(left) {
		r.Stages[n-1].LeftAt = nil
	}
	if n := len(r.Absences); n > 0 && r.Absences[n-1].BackAt == nil {
		r.Absences[n-1].BackAt = &at
	}
	return nil
}

// Resumable reports whether a new session may continue the interview from
// its saved state: it started and its worker died (still in progress with
// no live lease, or failed by worker_crashed after a sweep), and it has not
// reached its end.
func (r *Record) Resumable() bool {
	if r.StartedAt == nil || len(r.Stages) == 0 || r.CurrentStage() == stages.Done {
		return false
	}
	return r.Status == StatusInProgress || (r.Status == StatusFailed && r.EndedBy == EndedWorkerCrashed)
}

// LastActivity is the latest time the record shows anything happening: the
// end of the last turn, the last stage entered, or the start; zero before
// the interview started. A sweep dates a crashed interview's end with it.
func (r *Record) LastActivity() time.Time {
	var last time.Time
	if r.StartedAt != nil {
		last = *r.StartedAt
	}
	if n := len(r.Turns); n > 0 {
		last = latest(last, r.Turns[n-1].StartedAt, r.Turns[n-1].EndedAt)
	}
	if n := len(r.Stages); n > 0 {
		last = latest(last, r.Stages[n-1].EnteredAt)
	}
	return last
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// Resume reopens an interview whose worker died (see Resumable) so a new
// session continues it at at: the record is in progress again in the
// stage it was in, and the time the interview stood still is kept as an
// absence. It fails when the record is not resumable.
func (r *Record) Resume(at time.Time) error {
	if !r.Resumable() {
		return fmt.Errorf("interview %s cannot be resumed: it is %s", r.ID, r.Status)
	}
	left := r.LastActivity()
	if r.EndedAt != nil {
		left = *r.EndedAt
	}
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt != nil && r.Stages[n-1].LeftAt.Equal(left) {
		r.Stages[n-1].LeftAt = nil
	}
	r.Status = StatusInProgress
	r.EndedBy, r.EndedAt, r.FinalStage, r.Error = "", nil, "", ""
	back := latest(at, left)
	r.Absences = append(r.Absences, Absence{LeftAt: left, BackAt: &back})
	return nil
}

// CloseRejoin ends the window in which a candidate who left may come back.
func (r *Record) CloseRejoin() { r.RejoinUntil = nil }

// Duration is how long the interview has run: from StartedAt to EndedAt,
// or to now while it is in progress; zero before it started.
func (r *Record) Duration() time.Duration {
	return duration(r.Status, r.StartedAt, r.EndedAt)
}

func duration(s Status, started, ended *time.Time) time.Duration {
	switch {
	case started == nil:
		return 0
	case ended != nil:
		return max(ended.Sub(*started), 0)
	case s == StatusInProgress:
		return max(time.Since(*started), 0)
	}
	return 0
}
