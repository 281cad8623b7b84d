package agent

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/internal/retry"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// RecordSaver writes a whole record atomically, so a crash never leaves a
// half-written one; interviews.Store is one. Save may be slow (it syncs to
// disk): the Recorder never calls it on a turn's path, and calls it with a
// context that is never cancelled (see writer.save).
type RecordSaver interface {
	Save(ctx context.Context, rec *interviews.Record) error
}

// Retry policy of a failing save: the snapshot is tried saveAttempts times,
// waiting 100 ms, then twice as long each time up to 2 s, unless a newer
// snapshot replaces it first.
const saveAttempts = 5

var saveBackoff = retry.Backoff{First: 100 * time.Millisecond, Max: 2 * time.Second}

// Recorder keeps one interview's record and saves it after every change
// that matters: every turn, every stage change, every assessment and every
// ending. Changes only take a snapshot and hand it to an ordered writer, so
// a turn never waits for the disk: the writer saves snapshots one at a
// time, in the order they were taken, skipping to the latest when several
// are waiting (each one holds the whole record). A failing save is logged
// and retried with backoff; it never stops the interview. Flush (and Finish,
// Save, Close) wait until what was changed so far is saved.
//
// The questions of the record are the state machine's question log,
// attached with QuestionsFrom: each snapshot carries the log as it stands,
// so there is no second copy to keep in step.
type Recorder struct {
	mu        sync.Mutex
	rec       *interviews.Record
	questions func() []stages.Question
	log       *slog.Logger
	w         *writer
	reported  atomic.Int64 // failed saves already reported by Close
}

// NewRecorder returns a recorder of rec that saves to saver (nil keeps the
// record in memory only).
func NewRecorder(saver RecordSaver, rec *interviews.Record, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.Default()
	}
	if s, ok := saver.(interviews.Store); ok && s == nil {
		saver = nil
	}
	r := &Recorder{rec: rec, log: log}
	if saver != nil {
		r.w = newWriter(saver, log)
	}
	return r
}

// QuestionsFrom makes questions (the state machine's Questions) the source
// of the record's question list from now on.
func (r *Recorder) QuestionsFrom(questions func() []stages.Question) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.questions = questions
}

// Update changes the record under the recorder's lock and queues it for
// saving; it does not wait for the save. It returns the error of the last
// snapshot whose save failed every attempt, or nil when the last one
// finished was saved.
func (r *Recorder) Update(change func(rec *interviews.Record)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	change(r.rec)
	r.queueLocked()
	if r.w == nil {
		return nil
	}
	return r.w.err()
}

// View lets read look at the record under the recorder's lock, without
// copying it; read must not keep references into it.
func (r *Recorder) View(read func(rec *interviews.Record)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	read(r.rec)
}

// Save writes the record as it is and waits until it is saved; it returns
// the error of the last attempt when every attempt failed.
func (r *Recorder) Save() error {
	r.mu.Lock()
	r.queueLocked()
	r.mu.Unlock()
	return r.Flush()
}

// Flush waits until every change made so far is saved, or its save has
// failed every attempt (that error is returned).
func (r *Recorder) Flush() error {
	if r.w == nil {
		return nil
	}
	return r.w.flush()
}

// Close flushes and reports the saves' final state: an error-level log
// line "N saves failed" when any failed since the last Close. The recorder
// stays usable (a late change is saved as usual).
func (r *Recorder) Close() error {
	if r.w == nil {
		return nil
	}
	err := r.w.flush()
	if n := r.w.failures(); int64(n) > r.reported.Swap(int64(n)) {
		r.log.Error(fmt.Sprintf("%d saves of the interview record failed", n), "last_save_ok", err == nil, "err", err)
	}
	return err
}

// Failures returns how many save attempts have failed so far (each was
// logged and retried).
func (r *Recorder) Failures() int {
	if r.w == nil {
		return 0
	}
	return r.w.failures()
}

// queueLocked hands a snapshot of the record to the writer.
func (r *Recorder) queueLocked() {
	if r.w == nil {
		return
	}
	r.w.queue(r.snapshotLocked())
}

func (r *Recorder) snapshotLocked() *interviews.Record {
	c := r.rec.Clone()
	if r.questions != nil {
		c.Questions = r.questions()
	}
	return c
}

// Snapshot returns a deep copy of the record.
func (r *Recorder) Snapshot() *interviews.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked()
}

// Path is where the record is stored, as the store says it (a file
// path, or the database and id); "" without a store.
func (r *Recorder) Path() string {
	if r.w == nil {
		return ""
	}
	s, ok := r.w.saver.(interface{ Locate(id string) string })
	if !ok {
		return ""
	}
	return s.Locate(r.rec.ID)
}

// Finish ends the interview with status unless it has already ended, saves
// and waits for the save. It reports whether this call ended it.
func (r *Recorder) Finish(status interviews.Status, endedBy interviews.EndReason, at time.Time) bool {
	r.mu.Lock()
	ended := false
	switch {
	case !r.rec.Status.Finished():
		r.rec.Finish(status, endedBy, at)
		r.queueLocked()
		ended = true
	case r.rec.RejoinUntil != nil:
		// A candidate who left may no longer come back.
		r.rec.CloseRejoin()
		r.queueLocked()
	}
	r.mu.Unlock()
	_ = r.Flush()
	return ended
}

// Finished reports whether the record has reached a final status.
func (r *Recorder) Finished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rec.Status.Finished()
}

// MachineEvent mirrors the state machine's stage changes into the record;
// it is meant as fsm.Options.OnEvent. (Questions need no mirroring: see
// QuestionsFrom.)
func (r *Recorder) MachineEvent(bpTitle func(stage string) string) func(ev fsm.Event) {
	return func(ev fsm.Event) {
		if ev.Kind != fsm.EventStageEntered {
			return
		}
		t := ev.Transition
		r.Update(func(rec *interviews.Record) {
			rec.EnterStage(t.To, bpTitle(t.To), t.At, t.Forced, t.Reason)
		})
	}
}

// writer saves record snapshots in order on a goroutine of its own, which
// runs while there is something to save and stops when there is not.
type writer struct {
	saver RecordSaver
	log   *slog.Logger

	mu      sync.Mutex
	idle    *sync.Cond // signalled when saved changes
	pending *interviews.Record
	queued  uint64 // snapshots queued so far; the pending one is number queued
	saved   uint64 // number of the last snapshot saved or given up on
	lastErr error  // error of the last snapshot given up on; nil after a save
	failed  int    // failed save attempts so far
	running bool
}

func newWriter(saver RecordSaver, log *slog.Logger) *writer {
	w := &writer{saver: saver, log: log}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// queue makes rec the next snapshot to save, replacing one still waiting,
// and starts the writing goroutine when it is not running.
func (w *writer) queue(rec *interviews.Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = rec
	w.queued++
	if !w.running {
		w.running = true
		go w.run()
	}
}

// run saves pending snapshots until there are none.
func (w *writer) run() {
	w.mu.Lock()
	for w.pending != nil {
		rec, n := w.pending, w.queued
		w.pending = nil
		w.mu.Unlock()
		err := w.save(rec)
		w.mu.Lock()
		w.saved, w.lastErr = n, err
		w.idle.Broadcast()
	}
	w.running = false
	w.mu.Unlock()
}

// save writes rec, retrying with backoff up to saveAttempts times; it
// stops early, returning nil, when a newer snapshot is waiting (that one is
// saved next and holds everything rec does).
func (w *writer) save(rec *interviews.Record) error {
	var err error
	for attempt := 1; attempt <= saveAttempts; attempt++ {
		if attempt > 1 && w.superseded() {
			return nil
		}
		// Its own context: the record is saved on every way out, also
		// after the session's context has ended; the store bounds a save.
		if err = w.saver.Save(context.Background(), rec); err == nil {
			return nil
		}
		w.mu.Lock()
		w.failed++
		w.mu.Unlock()
		w.log.Error("saving the interview record failed", "interview_id", rec.ID, "attempt", attempt, "of", saveAttempts, "err", err)
		if w.superseded() {
			return nil
		}
		if attempt < saveAttempts {
			time.Sleep(saveBackoff.Delay(attempt - 1))
		}
	}
	w.log.Error("gave up saving the interview record; the next change will try again", "interview_id", rec.ID, "err", err)
	return err
}

// flush waits until the snapshots queued before the call are saved or
// given up on, and returns the last one's error.
func (w *writer) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.queued
	for w.saved < target {
		w.idle.Wait()
	}
	return w.lastErr
}

// superseded reports whether a newer snapshot is waiting.
func (w *writer) superseded() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending != nil
}

// err returns the error of the last snapshot finished: nil when it was
// saved.
func (w *writer) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastErr
}

// failures returns how many save attempts have failed so far.
func (w *writer) failures() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}
