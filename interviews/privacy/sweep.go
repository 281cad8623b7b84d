package privacy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/viva-interviews/viva/internal/every"
	"github.com/viva-interviews/viva/interviews"
)

// DefaultSweepInterval is how often Sweeper.Run sweeps.
const DefaultSweepInterval = time.Hour

// Sweeper erases the records older than the record retention, with their
// recordings, as the recordings' Sweeper deletes old audio: every record
// registered longer ago than Retention is erased by the Eraser, on the
// word of the system (interviews.AuditSystem) for
// interviews.ErasureRetention. A running interview is left for a later
// sweep.
type Sweeper struct {
	// Eraser erases each record; its clock is the sweep's. Required.
	Eraser *Eraser
	// Retention is how long a record is kept after it was registered;
	// zero keeps records forever (Sweep does nothing).
	Retention time.Duration
	// Logger receives what was erased (counts and ids, never a
	// candidate's data) and what failed.
	Logger *slog.Logger
}

func (s *Sweeper) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Run sweeps every interval (DefaultSweepInterval when zero), first at
// once, until ctx ends. With no retention it returns at once.
func (s *Sweeper) Run(ctx context.Context, interval time.Duration) {
	if s.Retention <= 0 {
		return
	}
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	every.Run(ctx, interval, func(ctx context.Context) {
		if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.log().Error("erasing the records past their retention failed; will try again", "err", err)
		}
	})
}

// Sweep erases every record registered longer ago than Retention and
// returns what it erased. A running interview is skipped (logged, tried
// at the next sweep); other failures are returned, joined, after the
// rest were tried.
func (s *Sweeper) Sweep(ctx context.Context) ([]Erased, error) {
	if s.Retention <= 0 {
		return nil, nil
	}
	cutoff := s.Eraser.now().Add(-s.Retention)
	due, err := interviews.ListAll(ctx, s.Eraser.Store, interviews.ListOptions{CreatedBefore: cutoff})
	if err != nil {
		return nil, fmt.Errorf("privacy: listing the records past their retention: %w", err)
	}
	var erased []Erased
	var errs []error
	for _, sum := range due {
		if ctx.Err() != nil {
			break
		}
		d, err := s.Eraser.Erase(ctx, sum.ID, interviews.AuditSystem, interviews.ErasureRetention)
		switch {
		case errors.Is(err, ErrRunning):
			s.log().Info("a record past its retention is running; it is erased at a later sweep", "interview_id", sum.ID)
		case errors.Is(err, interviews.ErrNotFound):
			// erased meanwhile
		case err != nil:
			errs = append(errs, err)
		default:
			erased = append(erased, d)
		}
	}
	if len(erased) > 0 {
		ids := make([]string, len(erased))
		for i, d := range erased {
			ids[i] = d.ID
		}
		s.log().Info("records past their retention erased", "erased", len(erased), "retention", s.Retention, "interview_ids", ids)
	}
	return erased, errors.Join(errs...)
}
