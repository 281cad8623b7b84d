// Package recordings keeps the interviews' audio recordings as files in one
// directory, beside the records: "<id>-<part>.ogg", one per session of an
// interview. Files are written to a temporary name and renamed when the
// session ends, so a reader never sees half a recording; a crash leaves at
// most a temporary file, which the Sweeper removes. The Sweeper also deletes
// recordings whose retention ran out and marks them deleted in the record.
// With an object store (WithObjects), a recording is uploaded when its
// session ends, and the worker's Uploader puts there any the directory
// still holds (a failed upload, a stopped worker's).
package recordings

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/viva-interviews/viva/internal/every"
	"github.com/viva-interviews/viva/interviews"
)

// Ext ends every recording's file name.
const Ext = ".ogg"

// partialExt ends the temporary file of a recording being written.
const partialExt = ".partial"

// Name returns the name of part (from 1) of interview id's recording.
func Name(id string, part int) string { return id + "-" + strconv.Itoa(part) + Ext }

// Parse splits a recording's name into the interview id and part number;
// ok is false for any name Name could not have made, so a name that passes
// never holds a path separator or "..".
func Parse(name string) (id string, part int, ok bool) {
	base, found := strings.CutSuffix(name, Ext)
	i := strings.LastIndexByte(base, '-')
	if !found || i <= 0 {
		return "", 0, false
	}
	id, num := base[:i], base[i+1:]
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || strconv.Itoa(n) != num || !interviews.ValidID(id) {
		return "", 0, false
	}
	return id, n, true
}

// Dir is a directory of recordings, and the object store they are
// uploaded to when one is configured (see WithObjects).
type Dir struct {
	path    string
	objects Objects // nil: recordings stay in the directory
	uploads *uploads
}

// Open returns the recordings directory at path, creating it when missing.
func Open(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("recordings: no directory given: set --recordings-dir (VIVA_RECORDINGS_DIR)")
	}
	if err := os.MkdirAll(path, 0o750); err != nil {
		return nil, fmt.Errorf("recordings: creating directory %s (check its permissions or choose another with --recordings-dir): %w", path, err)
	}
	return &Dir{path: path}, nil
}

// At returns the recordings directory at path without creating it: for
// readers (the web app), which find nothing while it is missing.
func At(path string) *Dir { return &Dir{path: path} }

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// File returns the path of the recording called name; an error when name is
// not a recording's name (it never comes from a path in the input).
func (d *Dir) File(name string) (string, error) {
	if _, _, ok := Parse(name); !ok {
		return "", fmt.Errorf("recordings: %q is not a recording's name", name)
	}
	return filepath.Join(d.path, name), nil
}

// Create starts writing the recording called name: the bytes go to a
// temporary file in the directory until Commit renames it.
func (d *Dir) Create(name string) (*File, error) {
	final, err := d.File(name)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(d.path, "."+name+".*"+partialExt)
	if err != nil {
		return nil, fmt.Errorf("recordings: creating %s: %w", name, err)
	}
	return &File{f: f, final: final, dir: d}, nil
}

// Remove deletes the recording called name from the directory and the
// object store; a missing recording is not an error.
func (d *Dir) Remove(ctx context.Context, name string) error {
	p, err := d.File(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("recordings: removing %s: %w", name, err)
	}
	if d.objects != nil {
		if err := d.objects.Remove(ctx, name); err != nil {
			return fmt.Errorf("recordings: removing %s from %s: %w", name, d.objects.Where(), err)
		}
	}
	return nil
}

// Of returns the names of interview id's recordings in the directory and
// the object store, in part order: what a record lists and what a crashed
// session left unlisted. A missing directory holds none.
func (d *Dir) Of(ctx context.Context, id string) ([]string, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("recordings: reading %s: %w", d.path, err)
	}
	var names []string
	for _, e := range entries {
		if rid, _, ok := Parse(e.Name()); ok && rid == id && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	if d.objects != nil {
		stored, err := d.objects.List(ctx, id+"-")
		if err != nil {
			return nil, fmt.Errorf("recordings: listing %s's recordings in %s: %w", id, d.objects.Where(), err)
		}
		for _, o := range stored {
			if rid, _, ok := Parse(o.Name); ok && rid == id && !slices.Contains(names, o.Name) {
				names = append(names, o.Name)
			}
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		_, pa, _ := Parse(a)
		_, pb, _ := Parse(b)
		return pa - pb
	})
	return names, nil
}

// File is a recording being written.
type File struct {
	f     *os.File
	final string
	n     int64
	dir   *Dir
}

// Write appends p to the recording.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	f.n += int64(n)
	return n, err
}

// Commit syncs the file and gives it its final name, then uploads it
// when the directory has an object store; it returns the size in bytes.
// A failed upload is no error: the file stays in the directory, where
// the recording plays from meanwhile, and the Uploader is woken to try
// again.
func (f *File) Commit() (int64, error) {
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.f.Name(), f.final)
	}
	if err != nil {
		_ = os.Remove(f.f.Name())
		return 0, fmt.Errorf("recordings: saving %s: %w", filepath.Base(f.final), err)
	}
	if f.dir.objects != nil {
		ctx, cancel := context.WithTimeout(context.Background(), uploadTimeout)
		defer cancel()
		if _, err := f.dir.upload(ctx, filepath.Base(f.final)); err != nil {
			f.dir.uploads.failed(err)
		}
	}
	return f.n, nil
}

// Abort drops the recording.
func (f *File) Abort() {
	_ = f.f.Close()
	_ = os.Remove(f.f.Name())
}

// StalePartialAge is how long a temporary file may go unwritten before the
// Sweeper takes it for a crashed session's and removes it: a session in
// progress writes to its file every second.
const StalePartialAge = time.Hour

// DefaultSweepInterval is how often Sweeper.Run sweeps.
const DefaultSweepInterval = time.Hour

// Sweeper deletes recordings past their retention and the temporary files
// crashed sessions left behind.
type Sweeper struct {
	// Dir holds the recordings. Required.
	Dir *Dir
	// Store holds the records whose entries are marked deleted. Required.
	Store interviews.Store
	// Retention is how long a recording is kept after it started; zero
	// keeps recordings forever (temporary files are still swept).
	Retention time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives what was deleted and what failed.
	Logger *slog.Logger
}

func (s *Sweeper) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sweeper) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Run sweeps every interval (DefaultSweepInterval when zero), first at
// once, until ctx ends.
func (s *Sweeper) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	every.Run(ctx, interval, func(ctx context.Context) {
		if _, err := s.Sweep(ctx); err != nil {
			s.log().Error("sweeping the recordings failed; will try again", "dir", s.Dir.Path(), "err", err)
		}
	})
}

// Sweep removes stale temporary files and, with a retention, every
// recording that started longer ago than it, in the directory and the
// object store: the recording is deleted and the record's entry gets
// DeletedAt. A recording with no entry in a record counts from when it
// was last written. It returns the names removed.
func (s *Sweeper) Sweep(ctx context.Context) ([]string, error) {
	now := s.now()
	stored, removed, err := s.sweepDir(now)
	errs := []error{err}
	if o := s.Dir.objects; o != nil && s.Retention > 0 {
		list, err := o.List(ctx, "")
		if err != nil {
			errs = append(errs, fmt.Errorf("recordings: listing %s: %w", o.Where(), err))
		}
		stored = append(stored, list...)
	}
	for _, info := range stored {
		id, _, ok := Parse(info.Name)
		// Retention counts from the start; the file's time is its end,
		// later than the start, so nothing it spares is due yet.
		if !ok || s.Retention <= 0 || now.Sub(info.ModTime) <= s.Retention {
			continue
		}
		due, err := s.expire(ctx, id, info.Name, now)
		if err != nil {
			errs = append(errs, err)
		}
		if due && err == nil {
			removed = append(removed, info.Name)
		}
	}
	if len(removed) > 0 {
		s.log().Info("recordings swept", "removed", len(removed), "retention", s.Retention)
	}
	return removed, errors.Join(errs...)
}

// sweepDir removes the directory's stale temporary files and returns
// them with the recordings the directory holds.
func (s *Sweeper) sweepDir(now time.Time) (stored []Info, removed []string, err error) {
	entries, err := os.ReadDir(s.Dir.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil // nothing recorded yet
	}
	if err != nil {
		return nil, nil, fmt.Errorf("recordings: reading %s: %w", s.Dir.Path(), err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, partialExt) {
			stored = append(stored, Info{Name: name, Size: info.Size(), ModTime: info.ModTime()})
			continue
		}
		if now.Sub(info.ModTime()) > StalePartialAge {
			if err := os.Remove(filepath.Join(s.Dir.Path(), name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, name)
		}
	}
	return stored, removed, errors.Join(errs...)
}

// expire deletes the recording name of interview id and marks its entry,
// unless the entry says it is not due yet.
func (s *Sweeper) expire(ctx context.Context, id, name string, now time.Time) (due bool, err error) {
	_, err = s.Store.Update(ctx, id, func(rec *interviews.Record) error {
		for i := range rec.Recordings {
			r := &rec.Recordings[i]
			if r.Name != name || r.DeletedAt != nil {
				continue
			}
			if now.Sub(r.StartedAt) <= s.Retention {
				return errNotDue
			}
			at := now.UTC()
			r.DeletedAt = &at
		}
		return nil
	})
	switch {
	case errors.Is(err, errNotDue):
		return false, nil
	case err != nil && !errors.Is(err, interviews.ErrNotFound):
		return false, fmt.Errorf("recordings: marking %s deleted: %w", name, err)
	}
	return true, s.Dir.Remove(ctx, name)
}

// errNotDue leaves a record unchanged: its recording is not due yet.
var errNotDue = errors.New("recording not due for deletion")
