// Package privacy keeps candidates' data only as long as it should be: it
// erases one interview whole (its recordings, then the record with its
// lease, provider keys and report, leaving an erasure log entry without
// personal data), finds and exports everything held about one candidate
// by their email address (a data subject's access and erasure requests),
// and sweeps away the records older than the record retention.
package privacy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// ErrRunning means the interview is running (a live session holds its
// lease), so it is not erased now.
var ErrRunning = errors.New("privacy: the interview is running: wait until it has ended (or stop its worker), then erase again")

// eraseOwner holds an interview's lease while it is erased, so no session
// starts or writes it meanwhile.
const eraseOwner = "erase"

// eraseLeaseTTL bounds how long an erasure holds the lease should it die
// midway.
const eraseLeaseTTL = 5 * time.Minute

// Eraser erases interviews: their recordings, then the record with its
// lease and provider keys, in the store's erasure log.
type Eraser struct {
	// Store holds the records. Required.
	Store interviews.Store
	// Recordings holds the audio; nil when none is kept.
	Recordings *recordings.Dir
	// Now is the clock of the erasure log (default time.Now).
	Now func() time.Time
}

func (e *Eraser) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Erased says what one erasure removed.
type Erased struct {
	// ID is the interview's id.
	ID string
	// Recordings counts the recording files removed.
	Recordings int
	// Keys is true when the interview had provider keys of its own.
	Keys bool
	// Report is the version of the report removed with the record; 0 for
	// none.
	Report int
}

// String says what went, without personal data: the erasure log's detail.
func (d Erased) String() string {
	parts := []string{"record", plural(d.Recordings, "recording")}
	if d.Keys {
		parts = append(parts, "provider keys")
	}
	if d.Report > 0 {
		parts = append(parts, fmt.Sprintf("report version %d", d.Report))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Erase erases interview id on who's word for reason (an
// interviews.Erasure* reason). It takes the interview's lease first:
// ErrRunning when a session holds it. The recordings go first, so a
// failure leaves the record to erase again; interviews.ErrNotFound when
// there is no such record.
func (e *Eraser) Erase(ctx context.Context, id, who, reason string) (Erased, error) {
	if _, err := e.Store.AcquireLease(ctx, id, eraseOwner, eraseLeaseTTL); err != nil {
		if errors.Is(err, interviews.ErrLeaseHeld) {
			return Erased{}, fmt.Errorf("erasing %s: %w", id, ErrRunning)
		}
		return Erased{}, fmt.Errorf("erasing %s: %w", id, err)
	}
	done := false
	defer func() {
		if !done { // the record stays: so does nothing else of this erasure
			_ = e.Store.ReleaseLease(context.WithoutCancel(ctx), id, eraseOwner)
		}
	}()
	rec, err := e.Store.Get(ctx, id)
	if err != nil {
		return Erased{}, fmt.Errorf("erasing %s: %w", id, err)
	}
	out := Erased{ID: id, Keys: e.Store.HasKeys(ctx, id)}
	if rec.Report != nil {
		out.Report = rec.Report.Version
	}
	if e.Recordings != nil {
		names, err := e.Recordings.Of(ctx, id)
		if err != nil {
			return Erased{}, fmt.Errorf("erasing %s: %w", id, err)
		}
		for _, name := range names {
			if err := e.Recordings.Remove(ctx, name); err != nil {
				return out, fmt.Errorf("erasing %s: %w", id, err)
			}
			out.Recordings++
		}
	}
	entry := interviews.Erasure{At: e.now().UTC().Truncate(time.Microsecond), Who: who, Reason: reason, Detail: out.String()}
	if err := e.Store.Delete(ctx, id, entry); err != nil {
		return out, fmt.Errorf("erasing %s: %w", id, err)
	}
	done = true // Delete removed the lease with the record
	return out, nil
}

// Find returns the summaries of every interview of the candidate with
// this email address (any case), newest first.
func Find(ctx context.Context, store interviews.Store, email string) ([]interviews.Summary, error) {
	if strings.TrimSpace(email) == "" {
		return nil, errors.New("privacy: no email address given")
	}
	return interviews.ListAll(ctx, store, interviews.ListOptions{Email: email})
}

// Saver writes a record: the file store an export writes to.
type Saver interface {
	Save(ctx context.Context, r *interviews.Record) error
}

// RecordingsDirName is the directory of an export, beside the records,
// that holds the exported interviews' recordings.
const RecordingsDirName = "recordings"

// Exported says what Export wrote.
type Exported struct {
	// Records counts the records written.
	Records int
	// Recordings counts the recordings copied.
	Recordings int
}

// Export copies the records of src that opts selects to dst, whole (the
// server-side texts included: everything held), newest first, a page at
// a time. With rec and recOut set it also copies each record's
// recordings from rec into recOut. A record erased meanwhile is skipped;
// one that changes is written as read. Provider keys are never exported.
func Export(ctx context.Context, src interviews.Store, dst Saver, opts interviews.ListOptions, rec *recordings.Dir, recOut string) (Exported, error) {
	var n Exported
	sums, err := interviews.ListAll(ctx, src, opts)
	if err != nil {
		return n, err
	}
	for _, sum := range sums {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		r, err := src.Get(ctx, sum.ID)
		if errors.Is(err, interviews.ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		if err := dst.Save(ctx, r); err != nil {
			return n, err
		}
		n.Records++
		if rec == nil || recOut == "" {
			continue
		}
		names, err := rec.Of(ctx, r.ID)
		if err != nil {
			return n, err
		}
		for _, name := range names {
			if err := copyRecording(ctx, rec, name, recOut); err != nil {
				return n, err
			}
			n.Recordings++
		}
	}
	return n, nil
}

// copyRecording copies the recording name from rec (its directory or
// object store) into the directory out, creating it when missing.
func copyRecording(ctx context.Context, rec *recordings.Dir, name, out string) error {
	if err := os.MkdirAll(out, 0o750); err != nil {
		return fmt.Errorf("privacy: creating %s: %w", out, err)
	}
	in, err := rec.Open(ctx, name)
	if err != nil {
		return fmt.Errorf("privacy: reading recording %s: %w", name, err)
	}
	defer in.Close()
	f, err := os.OpenFile(filepath.Join(out, name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("privacy: writing recording %s: %w", name, err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("privacy: writing recording %s: %w", name, err)
	}
	return nil
}
