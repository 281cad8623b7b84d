// Package filestore is the interview store of one machine: an
// interviews.Store that keeps one JSON file per interview in a data
// directory, beside its lease ("<id>.lease") and its sealed provider keys
// ("<id>.keys"). Every write is atomic (a synced temporary file renamed
// into place), so a crash or kill never leaves a half-written or missing
// record, and reviewers can read an interview while it is in progress.
// Processes sharing the directory (viva web and viva agent) serialise
// their updates and leases with advisory file locks.
//
// interviews/postgres is the other backend, for several machines; both
// pass the contract suite of interviews/storetest.
package filestore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/internal/atomicfile"
	"github.com/viva-interviews/viva/interviews"
)

// recordExt ends the file name of every record: "<id>.json".
const recordExt = ".json"

var _ interviews.Store = (*Store)(nil)

// Store keeps one JSON file per interview, <id>.json, in a directory.
// Every write goes to a temporary file in the same directory that is synced
// and then renamed over the record, so readers — in this process or another
// — always see a whole record, old or new, and a crash never leaves a
// half-written one. A Store is safe for concurrent use.
type Store struct {
	dir string
	vol volume           // the file system under dir, for CheckWritable
	now func() time.Time // the clock of leases and the sweep; nil is time.Now
	// sealer seals provider keys (see PutKeys); nil refuses them.
	sealer *interviews.Sealer

	mu    sync.Mutex         // guards locks
	locks map[string]*idLock // per-id write locks, dropped when unused

	cacheMu sync.Mutex
	cache   map[string]cachedSummary // by file name; see List
	// listed is the last scan's summaries, newest first, reused while
	// the directory is unchanged (see summaries): listedDir is the
	// directory as it was then, listedAt when the scan began.
	listed    []interviews.Summary
	listedDir fs.FileInfo
	listedAt  time.Time
}

type idLock struct {
	mu   sync.Mutex
	refs int
}

// cachedSummary is List's memory of a file it has read, reused while the
// file is unchanged.
type cachedSummary struct {
	info    fs.FileInfo
	summary interviews.Summary
	corrupt bool
}

// Open returns a Store on dir, creating the directory (mode 0750) if needed.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("interviews: open store: no directory given: set the data directory (--data-dir or VIVA_DATA_DIR)")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("interviews: open store: cannot create the data directory %s: %w: create it, or choose another with --data-dir or VIVA_DATA_DIR", dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("interviews: open store: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("interviews: open store: %s is not a directory: choose another data directory", dir)
	}
	return &Store{dir: dir, vol: osVolume{}, locks: map[string]*idLock{}, cache: map[string]cachedSummary{}}, nil
}

// Locate returns the record's file path (see Path), or the id when it is
// not valid.
func (s *Store) Locate(id string) string {
	p, err := s.Path(id)
	if err != nil {
		return id
	}
	return p
}

// Dir returns the directory the store keeps its records in.
func (s *Store) Dir() string { return s.dir }

// Path returns the file that holds (or will hold) the record with the given
// id, to tell a user where their record is.
func (s *Store) Path(id string) (string, error) {
	if !interviews.ValidID(id) {
		return "", fmt.Errorf("interviews: path of %q: %w", id, interviews.ErrNotFound)
	}
	return filepath.Join(s.dir, id+recordExt), nil
}

// Create stores a new record. It assigns r.ID (NewID) when empty, r.CreatedAt
// when zero and StatusScheduled when r.Status is empty, then validates and
// writes r. It fails with ErrExists when a record with r's id is present.
func (s *Store) Create(ctx context.Context, r *interviews.Record) error {
	r.PrepareCreate(time.Now())
	data, err := encode(r)
	if err != nil {
		return fmt.Errorf("interviews: create: %w", err)
	}
	unlock := s.lock(r.ID)
	defer unlock()
	switch _, err := os.Lstat(filepath.Join(s.dir, r.ID+recordExt)); {
	case err == nil:
		return fmt.Errorf("interviews: create %s: %w", r.ID, interviews.ErrExists)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("interviews: create %s: %w", r.ID, err)
	}
	if err := s.write(r.ID, data); err != nil {
		return fmt.Errorf("interviews: create %s: %w", r.ID, err)
	}
	return nil
}

// Save validates r and writes it whole, replacing the stored record with the
// same id (or creating it). The write is atomic and durable: a temporary
// file in the same directory is written and synced, renamed over
// <id>.json, and the directory is synced. Saves of one id are serialised;
// the last one wins whole. Save only reads r: a record shared between
// goroutines should be saved as a Clone taken under the owner's lock.
func (s *Store) Save(ctx context.Context, r *interviews.Record) error {
	data, err := encode(r)
	if err != nil {
		return fmt.Errorf("interviews: save: %w", err)
	}
	unlock := s.lock(r.ID)
	defer unlock()
	if err := s.write(r.ID, data); err != nil {
		return fmt.Errorf("interviews: save %s: %w", r.ID, err)
	}
	return nil
}

// encode validates r and returns its file contents.
func encode(r *interviews.Record) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode record %s: %w", r.ID, err)
	}
	return append(data, '\n'), nil
}

// write replaces the file of id with data atomically. The caller holds the
// id's lock and has validated id.
func (s *Store) write(id string, data []byte) error {
	return atomicfile.Write(filepath.Join(s.dir, id+recordExt), data,
		atomicfile.Options{Perm: 0o640, BeforeRename: testHookBeforeRename})
}

// testHookBeforeRename, set only by tests, runs when a new version of a
// record is written and synced but not yet renamed into place: the moment a
// crash would leave a temporary file beside the previous version.
var testHookBeforeRename func(tmp string)

// lock takes the write lock of id and returns its release.
func (s *Store) lock(id string) (unlock func()) {
	s.mu.Lock()
	l := s.locks[id]
	if l == nil {
		l = &idLock{}
		s.locks[id] = l
	}
	l.refs++
	s.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(s.locks, id)
		}
		s.mu.Unlock()
	}
}

// Get reads the record with the given id. It fails with ErrNotFound when
// the id is unknown or not valid, and with an error naming the file when
// the file cannot be decoded. A record may be read while its interview is
// in progress: Get sees the last complete Save.
func (s *Store) Get(ctx context.Context, id string) (*interviews.Record, error) {
	if !interviews.ValidID(id) {
		return nil, fmt.Errorf("interviews: get %q: %w", id, interviews.ErrNotFound)
	}
	path := filepath.Join(s.dir, id+recordExt)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("interviews: get %s: %w", id, interviews.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("interviews: get %s: %w", id, err)
	}
	r, err := decode(data, id)
	if err != nil {
		return nil, fmt.Errorf("interviews: get %s: record file %s is unreadable: %w: restore it from a backup or remove it", id, path, err)
	}
	return r, nil
}

// decode parses a record file and checks it holds the record its name says.
func decode(data []byte, id string) (*interviews.Record, error) {
	var r interviews.Record
	if err := json.Unmarshal(bytes.TrimSpace(data), &r); err != nil {
		return nil, err
	}
	if r.ID != id {
		return nil, fmt.Errorf("it holds id %q", r.ID)
	}
	return &r, nil
}

// List returns the interviews that match opts, newest first (by CreatedAt,
// then by id), one page at a time. Files that cannot be decoded are skipped
// and logged by file name; temporary files left by a crash are ignored.
func (s *Store) List(ctx context.Context, opts interviews.ListOptions) (interviews.ListPage, error) {
	limit, err := opts.PageSize()
	if err != nil {
		return interviews.ListPage{}, err
	}
	matched, err := s.matching(opts)
	if err != nil {
		return interviews.ListPage{}, err
	}
	page := interviews.ListPage{Items: []interviews.Summary{}, Total: len(matched)}
	if opts.Offset < len(matched) {
		page.Items = append(page.Items, matched[opts.Offset:min(opts.Offset+limit, len(matched))]...)
	}
	for i := range page.Items {
		page.Items[i].Measure()
	}
	return page, nil
}

// Walk implements interviews.Store. The summaries are those List reads,
// kept in memory beside the directory whatever the walk.
func (s *Store) Walk(ctx context.Context, opts interviews.ListOptions, fn func(interviews.Summary) error) error {
	if _, err := opts.PageSize(); err != nil {
		return err
	}
	matched, err := s.matching(opts)
	if err != nil {
		return err
	}
	for _, sum := range matched {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interviews: walk: %w", err)
		}
		sum.Measure()
		if err := fn(sum); err != nil {
			return err
		}
	}
	return nil
}

// matching returns the summaries that pass opts' filters, in its order.
func (s *Store) matching(opts interviews.ListOptions) ([]interviews.Summary, error) {
	opts = opts.ResolveAt(time.Now())
	all, err := s.summaries() // newest first, shared
	if err != nil {
		return nil, err
	}
	var matched []interviews.Summary
	for _, sum := range all {
		if opts.Matches(sum) {
			matched = append(matched, sum)
		}
	}
	if opts.Sort != interviews.SortNewest {
		slices.SortStableFunc(matched, func(a, b interviews.Summary) int { return compareSummaries(opts.Sort, a, b) })
	}
	return matched, nil
}

// compareSummaries orders a and b as List's order sort does.
func compareSummaries(sort string, a, b interviews.Summary) int {
	switch sort {
	case interviews.SortScore:
		if a.Score != nil && b.Score != nil {
			if c := cmp.Compare(*b.Score, *a.Score); c != 0 {
				return c
			}
		} else if a.Score != nil || b.Score != nil {
			if a.Score != nil {
				return -1
			}
			return 1
		}
	case interviews.SortDecision:
		if c := cmp.Compare(interviews.DecisionRank(a.Decision), interviews.DecisionRank(b.Decision)); c != 0 {
			return c
		}
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Reusing a scan of the directory (see summaries).
const (
	// scanRacyWindow is how long after the directory last changed a scan
	// must begin for a later, unchanged modification time to prove that
	// nothing changed since: file systems stamp times from a coarse clock.
	scanRacyWindow = time.Second
	// maxScanAge bounds how long one scan is reused, whatever the clocks
	// of a directory shared over the network say.
	maxScanAge = 30 * time.Second
)

// summaries returns a summary of every readable record in the directory,
// newest first (by CreatedAt, then by id), reading only the files that
// changed since the last call. Every write renames a file into the
// directory, which changes its modification time: while that time is
// unchanged (and was old enough when the last scan began), the last scan
// is returned without reading the directory at all (a record file edited
// in place by hand, which changes no directory entry, shows within
// maxScanAge). The slice returned is shared: callers copy what they change.
func (s *Store) summaries() ([]interviews.Summary, error) {
	began := time.Now()
	dirInfo, err := os.Stat(s.dir)
	if err != nil {
		return nil, fmt.Errorf("interviews: list: %w", err)
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.listedDir != nil && sameFile(s.listedDir, dirInfo) && s.listedAt.Sub(dirInfo.ModTime()) > scanRacyWindow && began.Sub(s.listedAt) < maxScanAge {
		return s.listed, nil
	}
	out, err := s.scan()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b interviews.Summary) int { return compareSummaries(interviews.SortNewest, a, b) })
	s.listed, s.listedDir, s.listedAt = out, dirInfo, began
	return out, nil
}

// scan reads the directory and returns a summary of every readable
// record, reading only the files that changed since the last scan. The
// caller holds cacheMu.
func (s *Store) scan() ([]interviews.Summary, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("interviews: list: %w", err)
	}
	seen := make(map[string]bool, len(entries))
	out := make([]interviews.Summary, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, recordExt)
		if !ok || !interviews.ValidID(id) || !e.Type().IsRegular() {
			continue // temporary files start with '.', so they never match
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("interviews: list: %w", err)
		}
		seen[name] = true
		c, ok := s.cache[name]
		if !ok || !sameFile(c.info, info) {
			c = cachedSummary{info: info}
			r, err := s.readSummary(name, id)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err != nil:
				c.corrupt = true
				slog.Warn("interviews: skipping unreadable record file", "file", name, "err", err)
			default:
				c.summary = r
				c.summary.Revision = fmt.Sprintf("%d-%d", info.Size(), info.ModTime().UnixNano())
			}
			s.cache[name] = c
		}
		if !c.corrupt {
			out = append(out, c.summary)
		}
	}
	for name := range s.cache {
		if !seen[name] {
			delete(s.cache, name)
		}
	}
	return out, nil
}

func (s *Store) readSummary(name, id string) (interviews.Summary, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		return interviews.Summary{}, err
	}
	r, err := decode(data, id)
	if err != nil {
		return interviews.Summary{}, err
	}
	return interviews.Summarize(r), nil
}

// sameFile reports whether b is the file a was: every Save renames a new
// file into place, so a changed record has a new identity, size or time.
func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// updateLockName is the file whose advisory lock serialises Update among
// the processes that share the data directory (viva web and viva agent).
const updateLockName = ".update.lock"

// Update changes the stored record of id safely: it reads the record,
// passes it to change and writes the result, all under the id's write
// lock in this process and an advisory lock on the data directory among
// processes, so two updates of one record never lose each other's
// changes (two reviewers' decisions, a decision and a report being
// written). When change returns an error nothing is written and Update
// returns that error, wrapped. The record is validated before it is
// written; the id cannot be changed. It returns a copy of the record as
// written. A Save from a session that holds the interview's lease still
// replaces the record whole: update only records no live session writes.
func (s *Store) Update(ctx context.Context, id string, change func(*interviews.Record) error) (*interviews.Record, error) {
	if !interviews.ValidID(id) {
		return nil, fmt.Errorf("interviews: update %q: %w", id, interviews.ErrNotFound)
	}
	unlock := s.lock(id)
	defer unlock()
	unlockFile, err := atomicfile.Lock(filepath.Join(s.dir, updateLockName), 0o640)
	if err != nil {
		return nil, fmt.Errorf("interviews: update %s: locking the records: %w", id, err)
	}
	defer unlockFile()
	r, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("interviews: update: %w", err)
	}
	if err := change(r); err != nil {
		return nil, fmt.Errorf("interviews: update %s: %w", id, err)
	}
	if r.ID != id {
		return nil, fmt.Errorf("interviews: update %s: the change renamed the record to %q: ids never change", id, r.ID)
	}
	data, err := encode(r)
	if err != nil {
		return nil, fmt.Errorf("interviews: update %s: %w", id, err)
	}
	if err := s.write(id, data); err != nil {
		return nil, fmt.Errorf("interviews: update %s: %w", id, err)
	}
	return r.Clone(), nil
}
