package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viva-interviews/viva/interviews"
)

// Delete implements interviews.Store: one transaction logs the erasure and
// removes the record's row, its lease and its keys.
func (s *Store) Delete(ctx context.Context, id string, e interviews.Erasure) error {
	if !interviews.ValidID(id) {
		return fmt.Errorf("interviews: delete %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM interviews WHERE id = $1", id)
		if err != nil {
			return s.writeError("delete "+id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("interviews: delete %s: %w", id, interviews.ErrNotFound)
		}
		for _, q := range []string{"DELETE FROM interview_leases WHERE id = $1", "DELETE FROM interview_keys WHERE id = $1"} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return s.writeError("delete "+id, err)
			}
		}
		if _, err := tx.Exec(ctx, "INSERT INTO interview_erasures (id, at, who, reason, detail) VALUES ($1, $2, $3, $4, $5)",
			id, e.At, e.Who, e.Reason, e.Detail); err != nil {
			return s.writeError("delete "+id+": logging the erasure", err)
		}
		return nil
	})
}

// Erasures implements interviews.Store.
func (s *Store) Erasures(ctx context.Context) ([]interviews.Erasure, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, "SELECT id, at, who, reason, detail FROM interview_erasures ORDER BY seq")
	if err != nil {
		return nil, s.readError("erasure log", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (interviews.Erasure, error) {
		var e interviews.Erasure
		var at time.Time
		err := row.Scan(&e.ID, &at, &e.Who, &e.Reason, &e.Detail)
		e.At = at.UTC()
		return e, err
	})
	if err != nil {
		return nil, s.readError("erasure log", err)
	}
	return out, nil
}
