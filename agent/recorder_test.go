package agent

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// fakeSaver is a RecordSaver that keeps what it saved, can hold every save
// until released, can fail a number of saves and can take time per save.
type fakeSaver struct {
	release chan struct{} // when not nil, Save waits until it is closed
	entered chan struct{} // when not nil, receives once per Save call
	delay   time.Duration // how long each Save takes
	fail    int           // how many of the next saves fail (-1: all)

	mu    sync.Mutex
	calls int
	saved []*interviews.Record
}

var errDiskFull = errors.New("disk full")

func (f *fakeSaver) Save(_ context.Context, rec *interviews.Record) error {
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.release != nil {
		<-f.release
	}
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail != 0 {
		if f.fail > 0 {
			f.fail--
		}
		return errDiskFull
	}
	f.saved = append(f.saved, rec.Clone())
	return nil
}

func (f *fakeSaver) records() []*interviews.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*interviews.Record(nil), f.saved...)
}

func newSaverInterview(t *testing.T, saver RecordSaver, log *slog.Logger) *Conductor {
	t.Helper()
	rec := &interviews.Record{ID: "rec1", CreatedAt: time.Now(), Status: interviews.StatusScheduled,
		Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}}
	c, err := NewInterview(Setup{Blueprint: stages.Default(), Record: rec, Store: saver, Models: Models{NewLLM: scriptedLLM}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBlockedStoreDoesNotDelayTurns: while the store cannot write at all,
// the greeting and the answer to the candidate still start streaming; once
// the store is back, Finish leaves the finished record saved, and the
// snapshots that piled up meanwhile were saved as one (the latest).
func TestBlockedStoreDoesNotDelayTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		saver := &fakeSaver{release: make(chan struct{}), entered: make(chan struct{}, 64)}
		c := newSaverInterview(t, saver, nil)
		ctx := t.Context()

		greet := c.Greet(ctx)
		if _, ok := <-greet.Deltas(); !ok {
			t.Fatal("the greeting said nothing")
		}
		<-saver.entered // the first save is under way, and stuck
		deliver(t, greet)
		reply := c.Respond(ctx, CandidateTurn{Text: answers[0], Source: "voice"})
		if _, ok := <-reply.Deltas(); !ok {
			t.Fatal("the answer said nothing while the store was blocked")
		}
		deliver(t, reply)
		if n := len(saver.records()); n != 0 {
			t.Fatalf("%d saves finished while the store was blocked", n)
		}

		close(saver.release)
		c.Finish(interviews.StatusCandidateLeft, interviews.EndedEndOfInput)
		saved := saver.records()
		if len(saved) == 0 {
			t.Fatal("nothing saved after Finish")
		}
		last, want := saved[len(saved)-1], c.Recorder().Snapshot()
		if last.Status != interviews.StatusCandidateLeft || len(last.Turns) != len(want.Turns) || len(last.Questions) != len(want.Questions) {
			t.Errorf("last save: status %s, %d turns, %d questions; want %s, %d, %d",
				last.Status, len(last.Turns), len(last.Questions), want.Status, len(want.Turns), len(want.Questions))
		}
		// The blocked save, the latest snapshot queued behind it, and
		// perhaps Finish's own and the exit's the guide adds after it:
		// never one per change.
		if len(saved) > 4 {
			t.Errorf("%d saves; the snapshots queued behind the blocked one should have been saved as one", len(saved))
		}
	})
}

// TestSavesInOrder: with a slow store and a change after every turn, every
// save holds at least as much as the one before, and the last holds all.
func TestSavesInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		saver := &fakeSaver{delay: 700 * time.Millisecond}
		c := newSaverInterview(t, saver, nil)
		ctx := t.Context()
		deliver(t, c.Greet(ctx))
		for _, a := range answers[:6] {
			time.Sleep(300 * time.Millisecond)
			deliver(t, c.Respond(ctx, CandidateTurn{Text: a}))
		}
		if err := c.Recorder().Flush(); err != nil {
			t.Fatal(err)
		}
		saved := saver.records()
		for i := 1; i < len(saved); i++ {
			if len(saved[i].Turns) < len(saved[i-1].Turns) || len(saved[i].Questions) < len(saved[i-1].Questions) {
				t.Fatalf("save %d (%d turns) is older than save %d (%d turns)", i, len(saved[i].Turns), i-1, len(saved[i-1].Turns))
			}
		}
		if got, want := len(saved[len(saved)-1].Turns), 13; got != want {
			t.Errorf("last save holds %d turns, want %d", got, want)
		}
		if err := saved[len(saved)-1].Validate(); err != nil {
			t.Errorf("last save is not a valid record: %v", err)
		}
	})
}

// TestFailedSaveRetried: a save that fails is logged at error level and
// retried with backoff until it succeeds; one that keeps failing is given
// up after saveAttempts, reported by Flush, and counted by Close; the next
// change saves again.
func TestFailedSaveRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))
		saver := &fakeSaver{fail: 2}
		r := NewRecorder(saver, &interviews.Record{ID: "rec1"}, log)

		start := time.Now()
		r.Update(func(rec *interviews.Record) { rec.Room = "room-1" })
		if err := r.Flush(); err != nil {
			t.Fatalf("Flush after two failures: %v", err)
		}
		if saver.calls != 3 || len(saver.records()) != 1 || saver.records()[0].Room != "room-1" {
			t.Errorf("%d calls, saved %d records; want 3 calls and the record saved once", saver.calls, len(saver.records()))
		}
		if got, want := time.Since(start), saveBackoff.First+2*saveBackoff.First; got != want {
			t.Errorf("retries took %v, want %v (backoff doubling)", got, want)
		}
		if n := strings.Count(logs.String(), "saving the interview record failed"); n != 2 {
			t.Errorf("%d failures logged, want 2:\n%s", n, logs.String())
		}

		saver.fail = -1
		if err := r.Save(); !errors.Is(err, errDiskFull) {
			t.Errorf("Save on a broken store = %v, want %v", err, errDiskFull)
		}
		logs.Reset()
		if err := r.Close(); !errors.Is(err, errDiskFull) {
			t.Errorf("Close = %v, want %v", err, errDiskFull)
		}
		if want := "msg=\"7 saves of the interview record failed\""; !strings.Contains(logs.String(), want) {
			t.Errorf("Close logged %q, want %s", logs.String(), want)
		}

		saver.fail = 0
		r.Update(func(rec *interviews.Record) { rec.Room = "room-2" })
		if err := r.Flush(); err != nil {
			t.Errorf("Flush once the store works again: %v", err)
		}
		if s := saver.records(); s[len(s)-1].Room != "room-2" {
			t.Errorf("latest save has room %q", s[len(s)-1].Room)
		}
	})
}
