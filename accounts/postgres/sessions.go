package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/viva-interviews/viva/accounts"
)

// sessionsLock is the advisory lock key held while a session is started,
// so the caps hold across processes: any number shared by viva.
const sessionsLock = 0x76697673 // "vivs"

// Sessions keeps signed-in browsers' sessions in the database; it
// implements accounts.Sessions for every web app sharing it.
type Sessions struct {
	d      *DB
	limits accounts.SessionLimits
}

var _ accounts.Sessions = (*Sessions)(nil)

// Sessions returns the sessions kept in the database, under limits (the
// defaults for zero fields).
func (d *DB) Sessions(limits accounts.SessionLimits) *Sessions {
	return &Sessions{d: d, limits: limits.OrDefaults()}
}

// Create implements accounts.Sessions. Sessions are started one at a
// time across every process, so the caps hold.
func (s *Sessions) Create(ctx context.Context, account accounts.User) (string, error) {
	id, hash := accounts.NewSessionID()
	now := s.d.now()
	ctx, cancel := opContext(ctx)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", sessionsLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM accounts_sessions WHERE expires_at <= $1", now); err != nil {
			return err
		}
		var own, all int
		if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE email = $1), count(*) FROM accounts_sessions`,
			account.Email).Scan(&own, &all); err != nil {
			return err
		}
		switch {
		case own >= s.limits.PerUser: // the account's own session closest to expiry
			if _, err := tx.Exec(ctx, `DELETE FROM accounts_sessions WHERE hash = (SELECT hash FROM accounts_sessions
				WHERE email = $1 ORDER BY expires_at LIMIT 1)`, account.Email); err != nil {
				return err
			}
		case all >= s.limits.Max:
			return accounts.ErrSessionsFull
		}
		_, err := tx.Exec(ctx, `INSERT INTO accounts_sessions (hash, email, user_id, generation, expires_at)
			VALUES ($1, $2, $3, $4, $5)`, hash[:], account.Email, account.ID, account.Generation, now.Add(s.limits.TTL))
		return err
	})
	switch {
	case errors.Is(err, accounts.ErrSessionsFull):
		return "", err
	case err != nil:
		return "", s.d.fail("starting a session for "+account.Email, err)
	}
	return id, nil
}

// Lookup implements accounts.Sessions.
func (s *Sessions) Lookup(ctx context.Context, id string) (accounts.User, error) {
	if id == "" {
		return accounts.User{}, accounts.ErrNoSession
	}
	hash := accounts.SessionHash(id)
	ctx, cancel := opContext(ctx)
	defer cancel()
	var u accounts.User
	err := s.d.pool.QueryRow(ctx, `SELECT email, user_id, generation FROM accounts_sessions
		WHERE hash = $1 AND expires_at > $2`, hash[:], s.d.now()).Scan(&u.Email, &u.ID, &u.Generation)
	if errors.Is(err, pgx.ErrNoRows) {
		return accounts.User{}, accounts.ErrNoSession
	}
	if err != nil {
		return accounts.User{}, s.d.fail("reading a session", err)
	}
	return u, nil
}

// End implements accounts.Sessions.
func (s *Sessions) End(ctx context.Context, id string) error {
	hash := accounts.SessionHash(id)
	ctx, cancel := opContext(ctx)
	defer cancel()
	if _, err := s.d.pool.Exec(ctx, "DELETE FROM accounts_sessions WHERE hash = $1", hash[:]); err != nil {
		return s.d.fail("ending a session", err)
	}
	return nil
}

// Len returns how many sessions are held, expired ones included until
// the next Create drops them.
func (s *Sessions) Len(ctx context.Context) (int, error) {
	var n int
	if err := s.d.pool.QueryRow(ctx, "SELECT count(*) FROM accounts_sessions").Scan(&n); err != nil {
		return 0, fmt.Errorf("accounts: counting sessions: %w", err)
	}
	return n, nil
}
