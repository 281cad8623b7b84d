// Package postgres keeps the web app's accounts in PostgreSQL — users and
// their API tokens, sessions and rate limits — so that any number of viva
// web processes on any number of machines serve the same users: a
// sign-in on one is a session on all, a token revoked on one is refused
// by all, and a client's requests count against one limit wherever they
// land.
//
// Its tables live in the database of the interview store
// (interviews/postgres), on that store's connections, with migrations of
// their own (recorded in accounts_schema_migrations) applied by Open.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/viva-interviews/viva/accounts"
	ipostgres "github.com/viva-interviews/viva/interviews/postgres"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationsTable records which of this package's migrations were applied.
const migrationsTable = "accounts_schema_migrations"

// DB is the database the accounts share with the interview store. Its
// Store, Sessions and limiters are safe for concurrent use, also by
// processes on other machines.
type DB struct {
	pool  *pgxpool.Pool
	where string
	now   func() time.Time
}

// Open applies the accounts' migrations to the interview store's database
// and returns it. now is the clock of sessions, tokens and rate limits
// (time.Now when nil).
func Open(ctx context.Context, db *ipostgres.Store, now func() time.Time) (*DB, error) {
	if now == nil {
		now = time.Now
	}
	if err := db.Migrate(ctx, migrationsTable, migrations); err != nil {
		return nil, fmt.Errorf("accounts: %w", err)
	}
	return &DB{pool: db.Pool(), where: db.Where(), now: now}, nil
}

// Store returns the users kept in the database.
func (d *DB) Store() *Store { return &Store{d} }

// Store keeps users in PostgreSQL; it implements accounts.Store.
type Store struct{ d *DB }

var _ accounts.Store = (*Store)(nil)

// fail wraps a database error of what with where the database is.
func (d *DB) fail(what string, err error) error {
	return fmt.Errorf("accounts: %s in %s: %w", what, d.where, err)
}

// opContext bounds one operation by the interview store's OpTimeout.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, ipostgres.OpTimeout)
}

// decode reads a stored account.
func decode(data []byte) (*accounts.User, error) {
	var u accounts.User
	if err := json.Unmarshal(data, &u); err != nil {
		return nil, fmt.Errorf("accounts: a stored user is unreadable: %w", err)
	}
	if u.Tokens == nil {
		u.Tokens = []accounts.Token{}
	}
	return &u, nil
}

// Get implements accounts.Store.
func (s *Store) Get(ctx context.Context, email string) (*accounts.User, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	var data []byte
	err := s.d.pool.QueryRow(ctx, "SELECT account FROM accounts_users WHERE email = $1", email).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("accounts: %s: %w", email, accounts.ErrNotFound)
	}
	if err != nil {
		return nil, s.d.fail("reading user "+email, err)
	}
	return decode(data)
}

// List implements accounts.Store.
func (s *Store) List(ctx context.Context) ([]accounts.User, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	rows, err := s.d.pool.Query(ctx, "SELECT account FROM accounts_users ORDER BY email")
	if err != nil {
		return nil, s.d.fail("listing users", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (accounts.User, error) {
		var data []byte
		if err := row.Scan(&data); err != nil {
			return accounts.User{}, err
		}
		u, err := decode(data)
		if err != nil {
			return accounts.User{}, err
		}
		return *u, nil
	})
	if err != nil {
		return nil, s.d.fail("listing users", err)
	}
	return out, nil
}

// FindToken implements accounts.Store.
func (s *Store) FindToken(ctx context.Context, hash string) (*accounts.User, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	var data []byte
	err := s.d.pool.QueryRow(ctx, `SELECT u.account FROM accounts_tokens t JOIN accounts_users u ON u.email = t.email
		WHERE t.hash = $1`, hash).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("accounts: token: %w", accounts.ErrNotFound)
	}
	if err != nil {
		return nil, s.d.fail("checking a token", err)
	}
	return decode(data)
}

// Add implements accounts.Store.
func (s *Store) Add(ctx context.Context, u *accounts.User) error {
	if err := u.Validate(); err != nil {
		return err
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "INSERT INTO accounts_users (email, account) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING", u.Email, u)
		if err != nil {
			return s.d.fail("adding user "+u.Email, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("accounts: %s: %w", u.Email, accounts.ErrExists)
		}
		return s.d.putTokens(ctx, tx, u)
	})
}

// putTokens makes accounts_tokens hold exactly u's tokens.
func (d *DB) putTokens(ctx context.Context, tx pgx.Tx, u *accounts.User) error {
	if _, err := tx.Exec(ctx, "DELETE FROM accounts_tokens WHERE email = $1", u.Email); err != nil {
		return d.fail("writing the tokens of "+u.Email, err)
	}
	for _, t := range u.Tokens {
		if _, err := tx.Exec(ctx, "INSERT INTO accounts_tokens (hash, email) VALUES ($1, $2)", t.Hash, u.Email); err != nil {
			return d.fail("writing the tokens of "+u.Email, err)
		}
	}
	return nil
}

// Update implements accounts.Store: the row is locked from the read to
// the write, so concurrent updates from any process apply one after the
// other.
func (s *Store) Update(ctx context.Context, email string, fn func(*accounts.User) error) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		var data []byte
		err := tx.QueryRow(ctx, "SELECT account FROM accounts_users WHERE email = $1 FOR UPDATE", email).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("accounts: %s: %w", email, accounts.ErrNotFound)
		}
		if err != nil {
			return s.d.fail("reading user "+email, err)
		}
		u, err := decode(data)
		if err != nil {
			return err
		}
		if err := fn(u); err != nil {
			return err
		}
		if u.Email != email {
			return fmt.Errorf("accounts: update %s: the email address cannot change", email)
		}
		if err := u.Validate(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE accounts_users SET account = $2 WHERE email = $1", email, u); err != nil {
			return s.d.fail("writing user "+email, err)
		}
		return s.d.putTokens(ctx, tx, u)
	})
}

// Remove implements accounts.Store; the user's tokens and sessions go
// with them.
func (s *Store) Remove(ctx context.Context, email string) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM accounts_users WHERE email = $1", email)
		if err != nil {
			return s.d.fail("removing user "+email, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("accounts: %s: %w", email, accounts.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM accounts_sessions WHERE email = $1", email); err != nil {
			return s.d.fail("ending the sessions of "+email, err)
		}
		return nil
	})
}
