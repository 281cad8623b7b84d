package interviews

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrLeaseHeld means another live session holds the interview's lease.
var ErrLeaseHeld = errors.New("interviews: another session is running this interview")

// ErrLeaseLost means the lease being renewed or released is no longer the
// caller's: it expired and another session took it over.
var ErrLeaseLost = errors.New("interviews: the interview's lease was taken over by another session")

// leaseExt ends the file name of a lease: "<id>.lease", beside the record.
const leaseExt = ".lease"

// leaseLockName is the file whose advisory lock serialises lease changes
// among the processes that share the data directory.
const leaseLockName = ".leases.lock"

// LeaseInfo says which session holds an interview and until when.
type LeaseInfo struct {
	// Owner identifies the session: worker id, process id and host.
	Owner string `json:"owner"`
	// ExpiresAt is when the lease lapses unless renewed.
	ExpiresAt time.Time `json:"expires_at"`
}

// Expired reports whether the lease has lapsed at now.
func (l LeaseInfo) Expired(now time.Time) bool { return !now.Before(l.ExpiresAt) }

// Leaser grants one session at a time the right to run an interview. A
// session acquires the lease before it touches the record, renews it well
// within its time to live while it runs, and releases it at the end; a
// lease whose holder died lapses and may be taken over. The JSON file store
// keeps a lease file beside each record; a database store keeps an owner
// and an expiry column updated in one statement.
type Leaser interface {
	// AcquireLease gives owner the lease of interview id for ttl. It fails
	// with ErrLeaseHeld when another owner's lease has not expired; the
	// same owner acquiring again renews.
	AcquireLease(ctx context.Context, id, owner string, ttl time.Duration) (LeaseInfo, error)
	// RenewLease extends owner's lease by ttl from now; ErrLeaseLost when
	// the lease is no longer owner's.
	RenewLease(ctx context.Context, id, owner string, ttl time.Duration) (LeaseInfo, error)
	// ReleaseLease gives the lease up; releasing a lease no longer held
	// by owner does nothing.
	ReleaseLease(ctx context.Context, id, owner string) error
	// Lease returns the interview's lease, and false when it has none.
	Lease(ctx context.Context, id string) (LeaseInfo, bool, error)
}

var _ Leaser = (*FileStore)(nil)

// SetClock makes the store read the time from now (leases and the sweep):
// tests pass a fake clock. Call it before the store is shared.
func (s *FileStore) SetClock(now func() time.Time) { s.now = now }

func (s *FileStore) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// AcquireLease implements Leaser. The lease file is written whole and
// renamed into place while an advisory lock on the data directory's lock
// file is held, so two processes on the host never both win.
func (s *FileStore) AcquireLease(ctx context.Context, id, owner string, ttl time.Duration) (LeaseInfo, error) {
	var got LeaseInfo
	err := s.withLease(id, func(cur LeaseInfo, held bool) (*LeaseInfo, error) {
		now := s.clock()
		if held && cur.Owner != owner && !cur.Expired(now) {
			return nil, fmt.Errorf("%w: held by %s until %s", ErrLeaseHeld, cur.Owner, cur.ExpiresAt.UTC().Format(time.RFC3339))
		}
		got = LeaseInfo{Owner: owner, ExpiresAt: now.Add(ttl).UTC().Round(0)}
		return &got, nil
	})
	if err != nil {
		return LeaseInfo{}, fmt.Errorf("interviews: lease of %s: %w", id, err)
	}
	return got, nil
}

// RenewLease implements Leaser.
func (s *FileStore) RenewLease(ctx context.Context, id, owner string, ttl time.Duration) (LeaseInfo, error) {
	var got LeaseInfo
	err := s.withLease(id, func(cur LeaseInfo, held bool) (*LeaseInfo, error) {
		if !held || cur.Owner != owner {
			return nil, ErrLeaseLost
		}
		got = LeaseInfo{Owner: owner, ExpiresAt: s.clock().Add(ttl).UTC().Round(0)}
		return &got, nil
	})
	if err != nil {
		return LeaseInfo{}, fmt.Errorf("interviews: renewing the lease of %s: %w", id, err)
	}
	return got, nil
}

// ReleaseLease implements Leaser.
func (s *FileStore) ReleaseLease(ctx context.Context, id, owner string) error {
	err := s.withLease(id, func(cur LeaseInfo, held bool) (*LeaseInfo, error) {
		if !held || cur.Owner != owner {
			return nil, nil
		}
		return nil, os.Remove(s.leasePath(id))
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("interviews: releasing the lease of %s: %w", id, err)
	}
	return nil
}

// Lease implements Leaser.
func (s *FileStore) Lease(ctx context.Context, id string) (LeaseInfo, bool, error) {
	if !ValidID(id) {
		return LeaseInfo{}, false, fmt.Errorf("interviews: lease of %q: %w", id, ErrNotFound)
	}
	l, held, err := s.readLease(id)
	if err != nil {
		return LeaseInfo{}, false, fmt.Errorf("interviews: lease of %s: %w", id, err)
	}
	return l, held, nil
}

func (s *FileStore) leasePath(id string) string { return filepath.Join(s.dir, id+leaseExt) }

// readLease reads the lease file of id; an unreadable file counts as no
// lease (its writer died mid-way, which the atomic rename rules out, or it
// was damaged by hand).
func (s *FileStore) readLease(id string) (LeaseInfo, bool, error) {
	data, err := os.ReadFile(s.leasePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return LeaseInfo{}, false, nil
	}
	if err != nil {
		return LeaseInfo{}, false, err
	}
	var l LeaseInfo
	if err := json.Unmarshal(data, &l); err != nil || l.Owner == "" {
		return LeaseInfo{}, false, nil
	}
	return l, true, nil
}

// withLease runs change on id's current lease with the lease lock held (in
// this process and, through flock, among processes): change returns the
// lease to write, or nil to leave the file as it is (or as change left it).
func (s *FileStore) withLease(id string, change func(cur LeaseInfo, held bool) (*LeaseInfo, error)) error {
	if !ValidID(id) {
		return ErrNotFound
	}
	unlock := s.lock(id + leaseExt)
	defer unlock()
	unlockFile, err := atomicfile.Lock(filepath.Join(s.dir, leaseLockName), 0o640)
	if err != nil {
		return fmt.Errorf("locking the leases: %w", err)
	}
	defer unlockFile()
	cur, held, err := s.readLease(id)
	if err != nil {
		return err
	}
	next, err := change(cur, held)
	if err != nil || next == nil {
		return err
	}
	data, err := json.Marshal(next)
	if err != nil {
		return err
	}
	return atomicfile.Write(s.leasePath(id), append(data, '\n'), atomicfile.Options{Perm: 0o640})
}

// SweepOwner is the lease owner a sweep uses while it ends a crashed
// interview's record.
const SweepOwner = "sweep"

// sweepLeaseTTL bounds how long a sweep holds a record it is ending.
const sweepLeaseTTL = time.Minute

// SweepCrashed ends the records that a dead process left in progress: each
// in-progress record whose lease is absent or expired is saved failed with
// ended_by worker_crashed, dated by its last activity. A record a live
// lease holds is left alone. It returns the ids it ended; viva agent and
// viva web call it at start.
func (s *FileStore) SweepCrashed(ctx context.Context) ([]string, error) {
	all, err := s.summaries()
	if err != nil {
		return nil, fmt.Errorf("interviews: sweep: %w", err)
	}
	var ended []string
	var errs []error
	for _, sum := range all {
		if sum.Status != StatusInProgress {
			continue
		}
		ok, err := EndCrashed(ctx, s, sum.ID)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			ended = append(ended, sum.ID)
		}
	}
	return ended, errors.Join(errs...)
}

// EndCrashed ends the interview id if a dead session left it in progress:
// under a lease of the sweep's own (SweepOwner), so a session that starts
// meanwhile and the sweep never both change it, the record is saved failed
// with ended_by worker_crashed, dated by its last activity, and its
// provider keys are deleted. It reports whether it ended the interview; a
// live lease or another status leaves it alone. Every Store's SweepCrashed
// calls it for each interview in progress.
func EndCrashed(ctx context.Context, s Store, id string) (bool, error) {
	if _, err := s.AcquireLease(ctx, id, SweepOwner, sweepLeaseTTL); err != nil {
		if errors.Is(err, ErrLeaseHeld) {
			return false, nil // a live session holds it
		}
		return false, fmt.Errorf("interviews: sweep %s: %w", id, err)
	}
	defer func() { _ = s.ReleaseLease(ctx, id, SweepOwner) }()
	rec, err := s.Get(ctx, id)
	if err != nil {
		return false, fmt.Errorf("interviews: sweep: %w", err)
	}
	if rec.Status != StatusInProgress {
		return false, nil
	}
	rec.Finish(StatusFailed, EndedWorkerCrashed, rec.LastActivity())
	rec.Error = "the process running the interview stopped without saving an ending"
	if err := s.Save(ctx, rec); err != nil {
		return false, fmt.Errorf("interviews: sweep: %w", err)
	}
	// The interview is over: its own provider keys go with it.
	if err := s.DeleteKeys(ctx, id); err != nil {
		return true, fmt.Errorf("interviews: sweep: %w", err)
	}
	return true, nil
}

// LeaseOwner returns a lease owner naming this process: worker, process id
// and host, so a log line or a lease file says who holds an interview.
func LeaseOwner(worker string) string {
	host, _ := os.Hostname()
	parts := []string{}
	if worker != "" {
		parts = append(parts, worker)
	}
	parts = append(parts, fmt.Sprintf("pid %d", os.Getpid()))
	if host != "" {
		parts = append(parts, "host "+host)
	}
	return strings.Join(parts, ", ")
}
