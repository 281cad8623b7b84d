package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// Clock is a clock tests move by hand (Options.Now takes its Now), safe
// for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock showing at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newClock() *Clock { return NewClock(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) }

// testLease: one owner at a time; the same owner renews; a lapsed lease is
// taken over and its old owner learns it lost it.
func testLease(t *testing.T, open Opener) {
	clk := newClock()
	s := open(Options{Now: clk.Now})
	const id, ttl = "lease1", 30 * time.Second

	if _, held, err := s.Lease(t.Context(), id); err != nil || held {
		t.Fatalf("Lease before any = %v, %v", held, err)
	}
	got, err := s.AcquireLease(t.Context(), id, "worker-a", ttl)
	if err != nil || got.Owner != "worker-a" || !got.ExpiresAt.Equal(clk.Now().Add(ttl)) {
		t.Fatalf("AcquireLease = %+v, %v", got, err)
	}
	if l, held, err := s.Lease(t.Context(), id); err != nil || !held || l != got {
		t.Fatalf("Lease = %+v, %v, %v; want %+v", l, held, err, got)
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-b", ttl); !errors.Is(err, interviews.ErrLeaseHeld) {
		t.Fatalf("second owner: %v, want ErrLeaseHeld", err)
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-a", ttl); err != nil {
		t.Fatalf("same owner again: %v", err)
	}

	// Renewed every 20 s, the lease outlives its first expiry.
	for range 3 {
		clk.Advance(20 * time.Second)
		if _, err := s.RenewLease(t.Context(), id, "worker-a", ttl); err != nil {
			t.Fatalf("RenewLease: %v", err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-b", ttl); !errors.Is(err, interviews.ErrLeaseHeld) {
		t.Fatalf("renewed lease taken: %v", err)
	}
	if _, err := s.RenewLease(t.Context(), id, "worker-b", ttl); !errors.Is(err, interviews.ErrLeaseLost) {
		t.Fatalf("renewing another's lease: %v, want ErrLeaseLost", err)
	}

	// Its holder stops renewing: once it lapses, another takes it over.
	clk.Advance(ttl)
	if l, held, _ := s.Lease(t.Context(), id); !held || !l.Expired(clk.Now()) {
		t.Fatalf("lease after its ttl = %+v, held %v; want expired", l, held)
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-b", ttl); err != nil {
		t.Fatalf("take over an expired lease: %v", err)
	}
	if _, err := s.RenewLease(t.Context(), id, "worker-a", ttl); !errors.Is(err, interviews.ErrLeaseLost) {
		t.Fatalf("old owner renews: %v, want ErrLeaseLost", err)
	}
	// The old owner's release leaves the new owner's lease alone.
	if err := s.ReleaseLease(t.Context(), id, "worker-a"); err != nil {
		t.Fatal(err)
	}
	if l, held, _ := s.Lease(t.Context(), id); !held || l.Owner != "worker-b" {
		t.Fatalf("after the old owner's release: %+v, %v", l, held)
	}
	if err := s.ReleaseLease(t.Context(), id, "worker-b"); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := s.Lease(t.Context(), id); held {
		t.Fatal("lease still held after release")
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-c", ttl); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	// Leases are not records.
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 0 {
		t.Errorf("List = %+v, %v", page, err)
	}
}

// testLeaseOneWinner: of many sessions acquiring at once through two
// handles, exactly one wins.
func testLeaseOneWinner(t *testing.T, open Opener) {
	clk := newClock()
	s, other := open(Options{Now: clk.Now}), open(Options{Now: clk.Now})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 16 {
		st := alternate(i, s, other)
		wg.Go(func() {
			if _, err := st.AcquireLease(t.Context(), "race", interviews.LeaseOwner(string(rune('a'+i))), time.Minute); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !errors.Is(err, interviews.ErrLeaseHeld) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d sessions acquired the lease, want 1", wins)
	}
}

// testSweepCrashed: records left in progress with no live lease are saved
// failed by worker_crashed, dated by their last activity; a record a live
// lease holds, and records in other states, are left alone.
func testSweepCrashed(t *testing.T, open Opener) {
	clk := newClock()
	s := open(Options{Now: clk.Now})
	created := clk.Now().Add(-time.Hour)
	crashed := NewRecord("crashed", "Ada", "x", interviews.StatusInProgress, created)
	crashed.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "greeting", Text: "Hello", StartedAt: created.Add(2 * time.Minute), EndedAt: created.Add(3 * time.Minute)})
	expired := NewRecord("expired", "Bob", "x", interviews.StatusInProgress, created)
	live := NewRecord("live", "Cy", "x", interviews.StatusInProgress, created)
	done := NewRecord("done", "Di", "x", interviews.StatusCompleted, created)
	sched := NewRecord("sched", "Ed", "x", interviews.StatusScheduled, created)
	for _, r := range []*interviews.Record{crashed, expired, live, done, sched} {
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), "expired", "dead-worker", time.Second); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	if _, err := s.AcquireLease(t.Context(), "live", "running-worker", time.Minute); err != nil {
		t.Fatal(err)
	}

	ended, err := s.SweepCrashed(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 2 {
		t.Fatalf("swept %v, want crashed and expired", ended)
	}
	for _, id := range []string{"crashed", "expired"} {
		r, err := s.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != interviews.StatusFailed || r.EndedBy != interviews.EndedWorkerCrashed || r.EndedAt == nil || r.Error == "" {
			t.Errorf("%s after the sweep: status %s, ended_by %s, ended_at %v, error %q", id, r.Status, r.EndedBy, r.EndedAt, r.Error)
		}
		if !r.Resumable() {
			t.Errorf("%s is not resumable after the sweep", id)
		}
		if _, held, _ := s.Lease(t.Context(), id); held && id == "crashed" {
			t.Errorf("the sweep kept the lease of %s", id)
		}
	}
	if r, _ := s.Get(t.Context(), "crashed"); !r.EndedAt.Equal(created.Add(3 * time.Minute)) {
		t.Errorf("crashed ended at %v, want its last turn's end", r.EndedAt)
	}
	for id, want := range map[string]interviews.Status{"live": interviews.StatusInProgress, "done": interviews.StatusCompleted, "sched": interviews.StatusScheduled} {
		if r, _ := s.Get(t.Context(), id); r.Status != want {
			t.Errorf("%s = %s after the sweep, want %s", id, r.Status, want)
		}
	}
	if page, _ := s.List(t.Context(), interviews.ListOptions{Status: interviews.StatusFailed}); page.Total != 2 {
		t.Errorf("failed interviews listed = %d, want 2", page.Total)
	}
	if again, err := s.SweepCrashed(t.Context()); err != nil || len(again) != 0 {
		t.Errorf("second sweep = %v, %v", again, err)
	}
}
