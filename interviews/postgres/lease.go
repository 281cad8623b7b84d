package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/viva-interviews/viva/interviews"
)

// leaseTime is the expiry of a lease taken at now for ttl, as the
// database keeps it (microseconds), so what a call returns and what Lease
// reads agree.
func leaseTime(now time.Time, ttl time.Duration) time.Time {
	return now.Add(ttl).UTC().Truncate(time.Microsecond)
}

// AcquireLease implements interviews.Leaser in one statement: the lease is
// taken when there is none, when owner holds it, or when it has expired,
// so two sessions on any machines never both win.
func (s *Store) AcquireLease(ctx context.Context, id, owner string, ttl time.Duration) (interviews.LeaseInfo, error) {
	if !interviews.ValidID(id) {
		return interviews.LeaseInfo{}, fmt.Errorf("interviews: lease of %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	now := s.clock()
	got := interviews.LeaseInfo{Owner: owner, ExpiresAt: leaseTime(now, ttl)}
	tag, err := s.pool.Exec(ctx, `INSERT INTO interview_leases (id, owner, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
		WHERE interview_leases.owner = EXCLUDED.owner OR interview_leases.expires_at <= $4`,
		id, owner, got.ExpiresAt, now)
	if err != nil {
		return interviews.LeaseInfo{}, s.writeError("lease of "+id, err)
	}
	if tag.RowsAffected() == 0 {
		cur, held, err := s.Lease(ctx, id)
		if err != nil || !held {
			return interviews.LeaseInfo{}, fmt.Errorf("interviews: lease of %s: %w", id, interviews.ErrLeaseHeld)
		}
		return interviews.LeaseInfo{}, fmt.Errorf("interviews: lease of %s: %w: held by %s until %s", id, interviews.ErrLeaseHeld, cur.Owner, cur.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return got, nil
}

// RenewLease implements interviews.Leaser.
func (s *Store) RenewLease(ctx context.Context, id, owner string, ttl time.Duration) (interviews.LeaseInfo, error) {
	if !interviews.ValidID(id) {
		return interviews.LeaseInfo{}, fmt.Errorf("interviews: renewing the lease of %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	got := interviews.LeaseInfo{Owner: owner, ExpiresAt: leaseTime(s.clock(), ttl)}
	tag, err := s.pool.Exec(ctx, "UPDATE interview_leases SET expires_at = $3 WHERE id = $1 AND owner = $2", id, owner, got.ExpiresAt)
	if err != nil {
		return interviews.LeaseInfo{}, s.writeError("renewing the lease of "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return interviews.LeaseInfo{}, fmt.Errorf("interviews: renewing the lease of %s: %w", id, interviews.ErrLeaseLost)
	}
	return got, nil
}

// ReleaseLease implements interviews.Leaser.
func (s *Store) ReleaseLease(ctx context.Context, id, owner string) error {
	if !interviews.ValidID(id) {
		return fmt.Errorf("interviews: releasing the lease of %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "DELETE FROM interview_leases WHERE id = $1 AND owner = $2", id, owner); err != nil {
		return s.writeError("releasing the lease of "+id, err)
	}
	return nil
}

// Lease implements interviews.Leaser.
func (s *Store) Lease(ctx context.Context, id string) (interviews.LeaseInfo, bool, error) {
	if !interviews.ValidID(id) {
		return interviews.LeaseInfo{}, false, fmt.Errorf("interviews: lease of %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	var l interviews.LeaseInfo
	err := s.pool.QueryRow(ctx, "SELECT owner, expires_at FROM interview_leases WHERE id = $1", id).Scan(&l.Owner, &l.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return interviews.LeaseInfo{}, false, nil
	}
	if err != nil {
		return interviews.LeaseInfo{}, false, fmt.Errorf("interviews: lease of %s: %w", id, err)
	}
	l.ExpiresAt = l.ExpiresAt.UTC()
	return l, true, nil
}

// SweepCrashed implements interviews.Store: every interview in progress
// whose lease is absent or expired is ended by interviews.EndCrashed.
func (s *Store) SweepCrashed(ctx context.Context) ([]string, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT i.id FROM interviews i LEFT JOIN interview_leases l ON l.id = i.id
		WHERE i.status = $1 AND (l.id IS NULL OR l.expires_at <= $2) ORDER BY i.id`, string(interviews.StatusInProgress), s.clock())
	if err != nil {
		return nil, fmt.Errorf("interviews: sweep: %s: %w", s.where, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("interviews: sweep: %s: %w", s.where, err)
	}
	var ended []string
	var errs []error
	for _, id := range ids {
		ok, err := interviews.EndCrashed(ctx, s, id)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			ended = append(ended, id)
		}
	}
	return ended, errors.Join(errs...)
}

// SetSealer gives the store the secrets key's Sealer, so that it can keep
// provider keys; without one they are refused with ErrNoSecretsKey. Call it
// before the store is shared.
func (s *Store) SetSealer(sl *interviews.Sealer) { s.sealer = sl }

// KeepsKeys implements interviews.KeyKeeper.
func (s *Store) KeepsKeys() bool { return s.sealer != nil }

// PutKeys implements interviews.KeyKeeper: the keys are sealed for the id
// before they leave this process; empty keys delete them.
func (s *Store) PutKeys(ctx context.Context, id string, k interviews.Keys) error {
	return interviews.PutSealedKeys(s.sealer, id, k, func(sealed []byte) error {
		ctx, cancel := opContext(ctx)
		defer cancel()
		if _, err := s.pool.Exec(ctx, `INSERT INTO interview_keys (id, sealed) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET sealed = EXCLUDED.sealed`, id, sealed); err != nil {
			return s.writeError("put keys of "+id, err)
		}
		return nil
	}, func() error { return s.DeleteKeys(ctx, id) })
}

// Keys implements interviews.KeyKeeper: ErrNoKeys, ErrNoSecretsKey and
// ErrSealBroken as the file store.
func (s *Store) Keys(ctx context.Context, id string) (interviews.Keys, error) {
	return interviews.OpenStoredKeys(s.sealer, id, func() ([]byte, bool, error) {
		ctx, cancel := opContext(ctx)
		defer cancel()
		var sealed []byte
		err := s.pool.QueryRow(ctx, "SELECT sealed FROM interview_keys WHERE id = $1", id).Scan(&sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, false, nil
		}
		return sealed, err == nil, err
	})
}

// HasKeys implements interviews.KeyKeeper; a database error counts as no
// keys.
func (s *Store) HasKeys(ctx context.Context, id string) bool {
	if !interviews.ValidID(id) {
		return false
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	var has bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM interview_keys WHERE id = $1)", id).Scan(&has)
	return err == nil && has
}

// DeleteKeys implements interviews.KeyKeeper.
func (s *Store) DeleteKeys(ctx context.Context, id string) error {
	if !interviews.ValidID(id) {
		return fmt.Errorf("interviews: delete keys of %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "DELETE FROM interview_keys WHERE id = $1", id); err != nil {
		return s.writeError("delete keys of "+id, err)
	}
	return nil
}

// writeCheckID names the lease row CheckWritable writes and rolls back: not
// a valid interview id, so it never meets a real one.
const writeCheckID = ".write-check"

// CheckWritable implements interviews.Store: it writes a row in a
// transaction that it rolls back, so a read-only database (a standby, a
// read-only user or transaction), missing privileges or a full disk stop
// viva at start with what to do. Its errors wrap interviews.ErrNotWritable
// or interviews.ErrFull.
func (s *Store) CheckWritable(ctx context.Context) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.writeError("checking that records can be written", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "INSERT INTO interview_leases (id, owner, expires_at) VALUES ($1, $1, now())", writeCheckID)
	if err != nil {
		return s.writeError("checking that records can be written", err)
	}
	return nil
}

// writeError explains a failed write: the database refusing writes, its
// disk full, or the server unreachable.
func (s *Store) writeError(what string, err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "25006": // read_only_sql_transaction
			return fmt.Errorf("interviews: %s: %w: %s refuses writes (%s): point the database URL at the primary server, or turn off default_transaction_read_only for the user",
				what, interviews.ErrNotWritable, s.where, pg.Message)
		case "42501": // insufficient_privilege
			return fmt.Errorf("interviews: %s: %w: %s refuses writes (%s): grant the user INSERT, UPDATE and DELETE on viva's tables, or connect as their owner",
				what, interviews.ErrNotWritable, s.where, pg.Message)
		case "53100": // disk_full
			return fmt.Errorf("interviews: %s: %w: %s (%s): free space on the database server", what, interviews.ErrFull, s.where, pg.Message)
		}
	}
	var conn *pgconn.ConnectError
	if errors.As(err, &conn) {
		return fmt.Errorf("interviews: %s: cannot reach %s: %w: check that PostgreSQL runs", what, s.where, err)
	}
	return fmt.Errorf("interviews: %s: %s: %w", what, s.where, err)
}
