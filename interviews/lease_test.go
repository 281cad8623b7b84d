package interviews

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for leases.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func leaseStore(t *testing.T) (*FileStore, *fakeClock) {
	t.Helper()
	s := openStore(t)
	clk := &fakeClock{now: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)}
	s.SetClock(clk.Now)
	return s, clk
}

// TestLeaseAcquireRefuseRenewExpire: one owner at a time; the same owner
// renews; a lapsed lease is taken over and its old owner learns it lost it.
func TestLeaseAcquireRefuseRenewExpire(t *testing.T) {
	s, clk := leaseStore(t)
	const id, ttl = "lease1", 30 * time.Second

	if _, held, err := s.Lease(id); err != nil || held {
		t.Fatalf("Lease before any = %v, %v", held, err)
	}
	got, err := s.AcquireLease(id, "worker-a", ttl)
	if err != nil || got.Owner != "worker-a" || !got.ExpiresAt.Equal(clk.Now().Add(ttl)) {
		t.Fatalf("AcquireLease = %+v, %v", got, err)
	}
	if _, err := s.AcquireLease(id, "worker-b", ttl); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("second owner: %v, want ErrLeaseHeld", err)
	}
	if _, err := s.AcquireLease(id, "worker-a", ttl); err != nil {
		t.Fatalf("same owner again: %v", err)
	}

	// Renewed every 20 s, the lease outlives its first expiry.
	for range 3 {
		clk.Advance(20 * time.Second)
		if _, err := s.RenewLease(id, "worker-a", ttl); err != nil {
			t.Fatalf("RenewLease: %v", err)
		}
	}
	if _, err := s.AcquireLease(id, "worker-b", ttl); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("renewed lease taken: %v", err)
	}
	if _, err := s.RenewLease(id, "worker-b", ttl); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("renewing another's lease: %v, want ErrLeaseLost", err)
	}

	// Its holder stops renewing: once it lapses, another takes it over.
	clk.Advance(ttl)
	if l, held, _ := s.Lease(id); !held || !l.Expired(clk.Now()) {
		t.Fatalf("lease after its ttl = %+v, held %v; want expired", l, held)
	}
	if _, err := s.AcquireLease(id, "worker-b", ttl); err != nil {
		t.Fatalf("take over an expired lease: %v", err)
	}
	if _, err := s.RenewLease(id, "worker-a", ttl); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("old owner renews: %v, want ErrLeaseLost", err)
	}
	// The old owner's release leaves the new owner's lease alone.
	if err := s.ReleaseLease(id, "worker-a"); err != nil {
		t.Fatal(err)
	}
	if l, held, _ := s.Lease(id); !held || l.Owner != "worker-b" {
		t.Fatalf("after the old owner's release: %+v, %v", l, held)
	}
	if err := s.ReleaseLease(id, "worker-b"); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := s.Lease(id); held {
		t.Fatal("lease still held after release")
	}
	if _, err := s.AcquireLease(id, "worker-c", ttl); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	// Lease files are not records.
	if page, err := s.List(ListOptions{}); err != nil || page.Total != 0 {
		t.Errorf("List = %+v, %v", page, err)
	}
}

// TestLeaseOneWinner: of many sessions acquiring at once, exactly one wins.
func TestLeaseOneWinner(t *testing.T) {
	s, clk := leaseStore(t)
	other, err := Open(s.Dir()) // a second store on the same directory, as another process has
	if err != nil {
		t.Fatal(err)
	}
	other.SetClock(clk.Now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 16 {
		st := s
		if i%2 == 1 {
			st = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.AcquireLease("race", LeaseOwner(string(rune('a'+i))), time.Minute); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !errors.Is(err, ErrLeaseHeld) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d sessions acquired the lease, want 1", wins)
	}
}

// TestSweepCrashed: records left in progress with no live lease are saved
// failed by worker_crashed, dated by their last activity; a record a live
// lease holds, and records in other states, are left alone.
func TestSweepCrashed(t *testing.T) {
	s, clk := leaseStore(t)
	created := clk.Now().Add(-time.Hour)
	crashed := newRecord("crashed", "Ada", "x", StatusInProgress, created)
	crashed.AppendTurn(Turn{Role: RoleAgent, Stage: "greeting", Text: "Hello", StartedAt: created.Add(2 * time.Minute), EndedAt: created.Add(3 * time.Minute)})
	expired := newRecord("expired", "Bob", "x", StatusInProgress, created)
	live := newRecord("live", "Cy", "x", StatusInProgress, created)
	done := newRecord("done", "Di", "x", StatusCompleted, created)
	sched := newRecord("sched", "Ed", "x", StatusScheduled, created)
	for _, r := range []*Record{crashed, expired, live, done, sched} {
		if err := s.Create(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease("expired", "dead-worker", time.Second); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	if _, err := s.AcquireLease("live", "running-worker", time.Minute); err != nil {
		t.Fatal(err)
	}

	ended, err := s.SweepCrashed()
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 2 {
		t.Fatalf("swept %v, want crashed and expired", ended)
	}
	for _, id := range []string{"crashed", "expired"} {
		r, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusFailed || r.EndedBy != EndedWorkerCrashed || r.EndedAt == nil || r.Error == "" {
			t.Errorf("%s after the sweep: status %s, ended_by %s, ended_at %v, error %q", id, r.Status, r.EndedBy, r.EndedAt, r.Error)
		}
		if !r.Resumable() {
			t.Errorf("%s is not resumable after the sweep", id)
		}
		if _, held, _ := s.Lease(id); held && id == "crashed" {
			t.Errorf("the sweep kept the lease of %s", id)
		}
	}
	if r, _ := s.Get("crashed"); !r.EndedAt.Equal(created.Add(3 * time.Minute)) {
		t.Errorf("crashed ended at %v, want its last turn's end", r.EndedAt)
	}
	for id, want := range map[string]Status{"live": StatusInProgress, "done": StatusCompleted, "sched": StatusScheduled} {
		if r, _ := s.Get(id); r.Status != want {
			t.Errorf("%s = %s after the sweep, want %s", id, r.Status, want)
		}
	}
	if page, _ := s.List(ListOptions{Status: StatusFailed}); page.Total != 2 {
		t.Errorf("failed interviews listed = %d, want 2", page.Total)
	}
	if again, err := s.SweepCrashed(); err != nil || len(again) != 0 {
		t.Errorf("second sweep = %v, %v", again, err)
	}
}

// TestRecordResume: a crashed interview reopens in its stage, keeps its
// turns and records the gap; a completed one does not.
func TestRecordResume(t *testing.T) {
	created := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	r := newRecord("resume", "Ada", "x", StatusInProgress, created)
	r.AppendTurn(Turn{Role: RoleAgent, Stage: "greeting", Text: "Hello", StartedAt: created.Add(2 * time.Minute), EndedAt: created.Add(3 * time.Minute)})
	r.Finish(StatusFailed, EndedWorkerCrashed, r.LastActivity())
	back := created.Add(time.Hour)
	if err := r.Resume(back); err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInProgress || r.EndedBy != "" || r.EndedAt != nil || r.Stages[len(r.Stages)-1].LeftAt != nil || len(r.Turns) != 1 {
		t.Fatalf("after Resume: %+v", r)
	}
	if n := len(r.Absences); n != 1 || !r.Absences[0].LeftAt.Equal(created.Add(3*time.Minute)) || !r.Absences[0].BackAt.Equal(back) {
		t.Errorf("absences = %+v", r.Absences)
	}
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
	if c := newRecord("c", "Ada", "x", StatusCompleted, created); c.Resumable() || c.Resume(back) == nil {
		t.Error("a completed interview was resumable")
	}
	if c := newRecord("s", "Ada", "x", StatusScheduled, created); c.Resumable() {
		t.Error("a scheduled interview was resumable")
	}
}
