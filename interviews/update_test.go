package interviews

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestUpdateKeepsConcurrentChanges: updates of one record from many
// goroutines each append a decision and an audit entry; none is lost.
func TestUpdateKeepsConcurrentChanges(t *testing.T) {
	s := openStore(t)
	if err := s.Save(newRecord("upd", "Ada", "Engineer", StatusCompleted, t0)); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			who := fmt.Sprintf("reviewer%d@example.com", w)
			_, err := s.Update("upd", func(r *Record) error {
				r.Decisions = append(r.Decisions, Decision{Decision: DecisionHold, By: who, At: t0})
				r.Audit = append(r.Audit, AuditEntry{At: t0, Who: who, Action: AuditDecision})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Get("upd")
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

// TestUpdateRefusals: a failing change, an invalid result, a renamed record
// and an unknown id write nothing.
func TestUpdateRefusals(t *testing.T) {
	s := openStore(t)
	orig := newRecord("upd", "Ada", "Engineer", StatusCompleted, t0)
	if err := s.Save(orig); err != nil {
		t.Fatal(err)
	}
	errNo := errors.New("no thanks")
	cases := []struct {
		name   string
		id     string
		change func(*Record) error
		want   error
	}{
		{"change fails", "upd", func(r *Record) error { r.Candidate.Name = "Changed"; return errNo }, errNo},
		{"invalid result", "upd", func(r *Record) error {
			r.Decisions = append(r.Decisions, Decision{Decision: "maybe"})
			return nil
		}, nil},
		{"renamed", "upd", func(r *Record) error { r.ID = "other"; return nil }, nil},
		{"unknown id", "nope", func(r *Record) error { return nil }, ErrNotFound},
		{"invalid id", "../x", func(r *Record) error { return nil }, ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Update(c.id, c.change)
			if err == nil || got != nil {
				t.Fatalf("Update = %v, %v; want an error", got, err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			stored, err := s.Get("upd")
			if err != nil {
				t.Fatal(err)
			}
			if !sameRecord(stored, orig) {
				t.Errorf("the stored record changed")
			}
		})
	}
}

// TestUpdateReturnsCopy: the record Update returns is what was stored and
// shares nothing with the store's later state.
func TestUpdateReturnsCopy(t *testing.T) {
	s := openStore(t)
	if err := s.Save(newRecord("upd", "Ada", "Engineer", StatusCompleted, t0)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Update("upd", func(r *Record) error {
		r.Report = &Report{Status: ReportPending, Version: 1}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get("upd")
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, stored) {
		t.Errorf("Update returned a record other than the stored one")
	}
}
