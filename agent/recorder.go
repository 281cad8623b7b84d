package agent

import (
	"log/slog"
	"sync"
	"time"

	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
)

// Recorder keeps one interview's record and saves it to the store after
// every change that matters: every turn, every stage change, every question
// spoken, every assessment and every ending. A save failure is logged and
// retried with the next change; it never stops the interview.
type Recorder struct {
	mu    sync.Mutex
	rec   *interviews.Record
	store *interviews.Store
	log   *slog.Logger
	// saveErr is the last save error, nil after a successful save.
	saveErr error
}

// NewRecorder returns a recorder of rec that saves to store (store may be
// nil for a record kept only in memory).
func NewRecorder(store *interviews.Store, rec *interviews.Record, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.Default()
	}
	return &Recorder{rec: rec, store: store, log: log}
}

// Update changes the record under the recorder's lock and saves it.
func (r *Recorder) Update(change func(rec *interviews.Record)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	change(r.rec)
	return r.saveLocked()
}

// Save writes the record as it is.
func (r *Recorder) Save() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.saveLocked()
}

func (r *Recorder) saveLocked() error {
	if r.store == nil {
		return nil
	}
	err := r.store.Save(r.rec)
	if err != nil && r.saveErr == nil {
		r.log.Error("saving the interview record failed; will retry on the next change", "err", err)
	}
	r.saveErr = err
	return err
}

// Snapshot returns a deep copy of the record.
func (r *Recorder) Snapshot() *interviews.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rec.Clone()
}

// Path is where the record is stored ("" without a store).
func (r *Recorder) Path() string {
	if r.store == nil {
		return ""
	}
	p, _ := r.store.Path(r.rec.ID)
	return p
}

// Finish ends the interview with status unless it has already ended, and
// saves. It reports whether this call ended it.
func (r *Recorder) Finish(status interviews.Status, endedBy string, at time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rec.Status.Finished() {
		// A candidate who left may no longer come back.
		if r.rec.RejoinUntil != nil {
			r.rec.CloseRejoin()
			_ = r.saveLocked()
		}
		return false
	}
	r.rec.Finish(status, endedBy, at)
	_ = r.saveLocked()
	return true
}

// Finished reports whether the record has reached a final status.
func (r *Recorder) Finished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rec.Status.Finished()
}

// MachineEvent mirrors the state machine into the record; it is meant as
// fsm.Options.OnEvent.
func (r *Recorder) MachineEvent(bpTitle func(stage string) string) func(ev fsm.Event) {
	return func(ev fsm.Event) {
		switch ev.Kind {
		case fsm.EventStageEntered:
			t := ev.Transition
			_ = r.Update(func(rec *interviews.Record) {
				rec.EnterStage(t.To, bpTitle(t.To), t.At, t.Forced, t.Reason)
			})
		case fsm.EventQuestionAsked:
			q := ev.Question
			_ = r.Update(func(rec *interviews.Record) {
				rec.Questions = append(rec.Questions, interviews.Question{
					ID: q.ID, Stage: q.Stage, Text: q.Text, AskedAt: q.AskedAt,
					Context: interviews.QuestionContext(q.Context),
				})
			})
		case fsm.EventQuestionSpoken:
			q := ev.Question
			_ = r.Update(func(rec *interviews.Record) {
				for i := range rec.Questions {
					if rec.Questions[i].ID == q.ID {
						at := q.SpokenAt
						rec.Questions[i].SpokenAt = &at
					}
				}
			})
		}
	}
}
