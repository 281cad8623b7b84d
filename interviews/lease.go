package interviews

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// ErrLeaseHeld means another live session holds the interview's lease.
var ErrLeaseHeld = errors.New("interviews: another session is running this interview")

// ErrLeaseLost means the lease being renewed or released is no longer the
// caller's: it expired and another session took it over.
var ErrLeaseLost = errors.New("interviews: the interview's lease was taken over by another session")

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

// SweepOwner is the lease owner a sweep uses while it ends a crashed
// interview's record.
const SweepOwner = "sweep"

// sweepLeaseTTL bounds how long a sweep holds a record it is ending.
const sweepLeaseTTL = time.Minute

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
	defer func() { _ = s.ReleaseLease(context.WithoutCancel(ctx), id, SweepOwner) }()
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
