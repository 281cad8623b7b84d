package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viva-interviews/viva/interviews"
)

// AddDesign implements interviews.DesignStore: one transaction stores the
// version unless it exists and makes it the design's current one.
func (s *Store) AddDesign(ctx context.Context, d *interviews.Design) error {
	if err := d.Check(); err != nil {
		return err
	}
	d.PrepareAdd(time.Now())
	what := fmt.Sprintf("add %s %s", d.Kind, d.Name)
	ctx, cancel := opContext(ctx)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var by string
		var at time.Time
		err := tx.QueryRow(ctx, `INSERT INTO design_versions (kind, name, version, content, added_by, added_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (kind, name, version) DO UPDATE SET version = EXCLUDED.version
			RETURNING added_by, added_at`,
			d.Kind, d.Name, d.Version, d.Content, d.AddedBy, d.AddedAt).Scan(&by, &at)
		if err != nil {
			return s.writeError(what, err)
		}
		d.AddedBy, d.AddedAt = by, at.UTC()
		_, err = tx.Exec(ctx, `INSERT INTO designs (kind, name, current) VALUES ($1, $2, $3)
			ON CONFLICT (kind, name) DO UPDATE SET current = EXCLUDED.current, removed_at = NULL`, d.Kind, d.Name, d.Version)
		if err != nil {
			return s.writeError(what, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.Current = true
	return nil
}

// designColumns are the columns scanDesign reads, of design_versions v
// joined with designs h.
const designColumns = "v.kind, v.name, v.version, v.content, v.added_by, v.added_at, h.removed_at, v.version = h.current"

func scanDesign(row pgx.CollectableRow) (interviews.Design, error) {
	var d interviews.Design
	var at time.Time
	var removed *time.Time
	err := row.Scan(&d.Kind, &d.Name, &d.Version, &d.Content, &d.AddedBy, &at, &removed, &d.Current)
	d.AddedAt = at.UTC()
	if removed != nil {
		r := removed.UTC()
		d.RemovedAt = &r
	}
	return d, err
}

// Design implements interviews.DesignStore.
func (s *Store) Design(ctx context.Context, kind interviews.DesignKind, name, version string) (*interviews.Design, error) {
	if err := interviews.CheckDesignKey(kind, name, version); err != nil {
		return nil, err
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	q := "SELECT " + designColumns + ` FROM design_versions v JOIN designs h USING (kind, name)
		WHERE v.kind = $1 AND v.name = $2 AND v.version = $3`
	args := []any{kind, name, version}
	if version == "" {
		q = "SELECT " + designColumns + ` FROM design_versions v JOIN designs h USING (kind, name)
			WHERE v.kind = $1 AND v.name = $2 AND v.version = h.current AND h.removed_at IS NULL`
		args = args[:2]
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, s.readError(fmt.Sprintf("%s %s", kind, name), err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDesign)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("interviews: no %s %q in the library (or not that version, or removed): %w", kind, name, interviews.ErrDesignNotFound)
	}
	if err != nil {
		return nil, s.readError(fmt.Sprintf("%s %s", kind, name), err)
	}
	return &d, nil
}

// Designs implements interviews.DesignStore.
func (s *Store) Designs(ctx context.Context, kind interviews.DesignKind) ([]interviews.Design, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, "SELECT "+designColumns+` FROM design_versions v JOIN designs h USING (kind, name)
		WHERE v.kind = $1 AND v.version = h.current AND h.removed_at IS NULL ORDER BY v.name`, kind)
	if err != nil {
		return nil, s.readError("the design library", err)
	}
	out, err := pgx.CollectRows(rows, scanDesign)
	if err != nil {
		return nil, s.readError("the design library", err)
	}
	return out, nil
}

// DesignVersions implements interviews.DesignStore.
func (s *Store) DesignVersions(ctx context.Context, kind interviews.DesignKind, name string) ([]interviews.Design, error) {
	if err := interviews.CheckDesignKey(kind, name, ""); err != nil {
		return nil, err
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, "SELECT "+designColumns+` FROM design_versions v JOIN designs h USING (kind, name)
		WHERE v.kind = $1 AND v.name = $2 ORDER BY v.added_at DESC, v.version`, kind, name)
	if err != nil {
		return nil, s.readError(fmt.Sprintf("%s %s", kind, name), err)
	}
	out, err := pgx.CollectRows(rows, scanDesign)
	if err != nil {
		return nil, s.readError(fmt.Sprintf("%s %s", kind, name), err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("interviews: no %s %q in the library: %w", kind, name, interviews.ErrDesignNotFound)
	}
	return out, nil
}

// RemoveDesign implements interviews.DesignStore.
func (s *Store) RemoveDesign(ctx context.Context, kind interviews.DesignKind, name string) error {
	if err := interviews.CheckDesignKey(kind, name, ""); err != nil {
		return err
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, "UPDATE designs SET removed_at = $3 WHERE kind = $1 AND name = $2 AND removed_at IS NULL",
		kind, name, time.Now().UTC().Truncate(time.Microsecond))
	if err != nil {
		return s.writeError(fmt.Sprintf("remove %s %s", kind, name), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("interviews: no %s %q in the library: %w", kind, name, interviews.ErrDesignNotFound)
	}
	return nil
}
