package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

func testConcurrentSave(t *testing.T, open Opener) {
	s := open(Options{})
	base := NewRecord("shared", "A", "Engineer", interviews.StatusInProgress, t0)
	if err := s.Save(t.Context(), base); err != nil {
		t.Fatal(err)
	}
	const writers, saves = 4, 25
	versions := make([]*interviews.Record, writers)
	for w := range writers {
		v := base.Clone()
		for i := range w + 1 {
			v.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: fmt.Sprintf("writer %d turn %d", w, i)})
		}
		versions[w] = v
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	var readErrs []error
	var readMu sync.Mutex
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Get(t.Context(), "shared"); err != nil {
					readMu.Lock()
					readErrs = append(readErrs, err)
					readMu.Unlock()
				}
				if _, err := s.List(t.Context(), interviews.ListOptions{}); err != nil {
					readMu.Lock()
					readErrs = append(readErrs, err)
					readMu.Unlock()
				}
			}
		})
	}
	other := open(Options{})
	var wg sync.WaitGroup
	for w := range writers {
		st := alternate(w, s, other)
		wg.Go(func() {
			for range saves {
				if err := st.Save(t.Context(), versions[w]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if len(readErrs) > 0 {
		t.Fatalf("reads during saves failed (%d), first: %v", len(readErrs), readErrs[0])
	}
	got, err := s.Get(t.Context(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	whole := false
	for _, v := range versions {
		whole = whole || sameRecord(got, v)
	}
	if !whole {
		t.Fatalf("stored record is not one whole version: %+v", got)
	}
}

// testUpdateConcurrent: updates of one record from many goroutines, on two
// handles, each append a decision and an audit entry; none is lost.
func testUpdateConcurrent(t *testing.T, open Opener) {
	s, other := open(Options{}), open(Options{})
	if err := s.Save(t.Context(), NewRecord("upd", "Ada", "Engineer", interviews.StatusCompleted, t0)); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var wg sync.WaitGroup
	for w := range writers {
		st := alternate(w, s, other)
		wg.Go(func() {
			who := fmt.Sprintf("reviewer%d@example.com", w)
			_, err := st.Update(t.Context(), "upd", func(r *interviews.Record) error {
				r.Decisions = append(r.Decisions, interviews.Decision{Decision: interviews.DecisionHold, By: who, At: t0})
				r.Audit = append(r.Audit, interviews.AuditEntry{At: t0, Who: who, Action: interviews.AuditDecision})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Get(t.Context(), "upd")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Decisions) != writers || len(got.Audit) != writers {
		t.Fatalf("after %d concurrent updates: %d decisions, %d audit entries", writers, len(got.Decisions), len(got.Audit))
	}
	seen := map[string]bool{}
	for _, d := range got.Decisions {
		seen[d.By] = true
	}
	if len(seen) != writers {
		t.Errorf("decisions by %d distinct reviewers, want %d: %+v", len(seen), writers, got.Decisions)
	}
}

// testUpdateRefusals: a failing change, an invalid result, a renamed
// record and an unknown id write nothing.
func testUpdateRefusals(t *testing.T, open Opener) {
	s := open(Options{})
	orig := NewRecord("upd", "Ada", "Engineer", interviews.StatusCompleted, t0)
	if err := s.Save(t.Context(), orig); err != nil {
		t.Fatal(err)
	}
	errNo := errors.New("no thanks")
	cases := []struct {
		name   string
		id     string
		change func(*interviews.Record) error
		want   error
	}{
		{"change fails", "upd", func(r *interviews.Record) error { r.Candidate.Name = "Changed"; return errNo }, errNo},
		{"invalid result", "upd", func(r *interviews.Record) error {
			r.Decisions = append(r.Decisions, interviews.Decision{Decision: "maybe"})
			return nil
		}, nil},
		{"renamed", "upd", func(r *interviews.Record) error { r.ID = "other"; return nil }, nil},
		{"unknown id", "nope", func(r *interviews.Record) error { return nil }, interviews.ErrNotFound},
		{"invalid id", "../x", func(r *interviews.Record) error { return nil }, interviews.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Update(t.Context(), c.id, c.change)
			if err == nil || got != nil {
				t.Fatalf("Update = %v, %v; want an error", got, err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			stored, err := s.Get(t.Context(), "upd")
			if err != nil {
				t.Fatal(err)
			}
			if !sameRecord(stored, orig) {
				t.Errorf("the stored record changed")
			}
		})
	}
	if _, err := s.Get(t.Context(), "other"); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("a renaming update stored %q: %v", "other", err)
	}
}

// testUpdateReturnsCopy: the record Update returns is what was stored.
func testUpdateReturnsCopy(t *testing.T, open Opener) {
	s := open(Options{})
	if err := s.Save(t.Context(), NewRecord("upd", "Ada", "Engineer", interviews.StatusCompleted, t0)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Update(t.Context(), "upd", func(r *interviews.Record) error {
		r.Report = &interviews.Report{Status: interviews.ReportPending, Version: 1}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get(t.Context(), "upd")
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, stored) {
		t.Errorf("Update returned a record other than the stored one")
	}
}
