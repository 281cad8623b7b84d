package filestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/viva-interviews/viva/internal/atomicfile"
	"github.com/viva-interviews/viva/interviews"
)

// leaseExt ends the file name of a lease: "<id>.lease", beside the record.
const leaseExt = ".lease"

// leaseLockName is the file whose advisory lock serialises lease changes
// among the processes that share the data directory.
const leaseLockName = ".leases.lock"

var _ interviews.Leaser = (*Store)(nil)

// SetClock makes the store read the time from now (leases and the sweep):
// tests pass a fake clock. Call it before the store is shared.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// AcquireLease implements Leaser. The lease file is written whole and
// renamed into place while an advisory lock on the data directory's lock
// file is held, so two processes on the host never both win.
func (s *Store) AcquireLease(ctx context.Context, id, owner string, ttl time.Duration) (interviews.LeaseInfo, error) {
	var got interviews.LeaseInfo
	err := s.withLease(id, func(cur interviews.LeaseInfo, held bool) (*interviews.LeaseInfo, error) {
		now := s.clock()
		if held && cur.Owner != owner && !cur.Expired(now) {
			return nil, fmt.Errorf("%w: held by %s until %s", interviews.ErrLeaseHeld, cur.Owner, cur.ExpiresAt.UTC().Format(time.RFC3339))
		}
		got = interviews.LeaseInfo{Owner: owner, ExpiresAt: now.Add(ttl).UTC().Round(0)}
		return &got, nil
	})
	if err != nil {
		return interviews.LeaseInfo{}, fmt.Errorf("interviews: lease of %s: %w", id, err)
	}
	return got, nil
}

// RenewLease implements Leaser.
func (s *Store) RenewLease(ctx context.Context, id, owner string, ttl time.Duration) (interviews.LeaseInfo, error) {
	var got interviews.LeaseInfo
	err := s.withLease(id, func(cur interviews.LeaseInfo, held bool) (*interviews.LeaseInfo, error) {
		if !held || cur.Owner != owner {
			return nil, interviews.ErrLeaseLost
		}
		got = interviews.LeaseInfo{Owner: owner, ExpiresAt: s.clock().Add(ttl).UTC().Round(0)}
		return &got, nil
	})
	if err != nil {
		return interviews.LeaseInfo{}, fmt.Errorf("interviews: renewing the lease of %s: %w", id, err)
	}
	return got, nil
}

// ReleaseLease implements Leaser.
func (s *Store) ReleaseLease(ctx context.Context, id, owner string) error {
	err := s.withLease(id, func(cur interviews.LeaseInfo, held bool) (*interviews.LeaseInfo, error) {
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
func (s *Store) Lease(ctx context.Context, id string) (interviews.LeaseInfo, bool, error) {
	if !interviews.ValidID(id) {
		return interviews.LeaseInfo{}, false, fmt.Errorf("interviews: lease of %q: %w", id, interviews.ErrNotFound)
	}
	l, held, err := s.readLease(id)
	if err != nil {
		return interviews.LeaseInfo{}, false, fmt.Errorf("interviews: lease of %s: %w", id, err)
	}
	return l, held, nil
}

func (s *Store) leasePath(id string) string { return filepath.Join(s.dir, id+leaseExt) }

// readLease reads the lease file of id; an unreadable file counts as no
// lease (its writer died mid-way, which the atomic rename rules out, or it
// was damaged by hand).
func (s *Store) readLease(id string) (interviews.LeaseInfo, bool, error) {
	data, err := os.ReadFile(s.leasePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return interviews.LeaseInfo{}, false, nil
	}
	if err != nil {
		return interviews.LeaseInfo{}, false, err
	}
	var l interviews.LeaseInfo
	if err := json.Unmarshal(data, &l); err != nil || l.Owner == "" {
		return interviews.LeaseInfo{}, false, nil
	}
	return l, true, nil
}

// withLease runs change on id's current lease with the lease lock held (in
// this process and, through flock, among processes): change returns the
// lease to write, or nil to leave the file as it is (or as change left it).
func (s *Store) withLease(id string, change func(cur interviews.LeaseInfo, held bool) (*interviews.LeaseInfo, error)) error {
	if !interviews.ValidID(id) {
		return interviews.ErrNotFound
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
	// A lease outlives no crash of the machine: it has expired by the time
	// the machine is back.
	return atomicfile.Write(s.leasePath(id), append(data, '\n'), atomicfile.Options{Perm: 0o640, Volatile: true})
}

// SweepCrashed ends the records that a dead process left in progress: each
// in-progress record whose lease is absent or expired is saved failed with
// ended_by worker_crashed, dated by its last activity. A record a live
// lease holds is left alone. It returns the ids it ended; viva agent and
// viva web call it at start.
func (s *Store) SweepCrashed(ctx context.Context) ([]string, error) {
	all, err := s.summaries()
	if err != nil {
		return nil, fmt.Errorf("interviews: sweep: %w", err)
	}
	var ended []string
	var errs []error
	for _, sum := range all {
		if sum.Status != interviews.StatusInProgress {
			continue
		}
		ok, err := interviews.EndCrashed(ctx, s, sum.ID)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			ended = append(ended, sum.ID)
		}
	}
	return ended, errors.Join(errs...)
}
