package interviews

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/internal/atomicfile"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Errors returned by the Store; test with errors.Is.
var (
	// ErrNotFound means no record has the id (or the id is not valid).
	ErrNotFound = errors.New("interviews: no such interview")
	// ErrExists means Create was given an id that already has a record.
	ErrExists = errors.New("interviews: interview already exists")
)

// List page sizes.
const (
	// DefaultListLimit is the page size when ListOptions.Limit is zero.
	DefaultListLimit = 50
	// MaxListLimit is the largest page List returns.
	MaxListLimit = 200
)

// maxIDLen bounds the length of an interview id.
const maxIDLen = 64

// recordExt ends the file name of every record: "<id>.json".
const recordExt = ".json"

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewID returns a new random interview id: 16 lower-case base32 characters
// (80 random bits), safe in URLs and file names.
func NewID() string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// ValidID reports whether id may name an interview: 1 to 64 characters of
// lower-case ASCII letters, digits, '-' and '_', starting with a letter or a
// digit. Every id that names a file passes this check, so no path ever comes
// from user input.
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Store keeps interview records. Two backends implement it: FileStore, one
// JSON file per interview in a data directory (the embedded default for one
// machine), and the PostgreSQL store of interviews/postgres, which workers
// on several machines and the web app share. Every method is safe for
// concurrent use, also across processes sharing the backend.
//
// Every method that reads or writes takes the caller's context: a
// backend that talks to a server (PostgreSQL) stops waiting when ctx ends
// and returns its error; the file store finishes what it starts (its
// operations are local and short). A caller that must write after its own
// context has ended — the record on every exit path — passes
// context.WithoutCancel of it.
type Store interface {
	// Create stores a new record. It assigns r.ID (NewID) when empty,
	// r.CreatedAt when zero and StatusScheduled when r.Status is empty,
	// then validates and writes r. ErrExists when the id is taken.
	Create(ctx context.Context, r *Record) error
	// Save validates and writes the whole record, replacing the stored one.
	Save(ctx context.Context, r *Record) error
	// Get reads one record; ErrNotFound when there is none.
	Get(ctx context.Context, id string) (*Record, error)
	// List returns one page of summaries, filtered and ordered as asked.
	List(ctx context.Context, opts ListOptions) (ListPage, error)
	// Update reads the record, applies change and writes the result, with
	// no other Update or Save of the record in between (in any process).
	// An error from change leaves the record as it was.
	Update(ctx context.Context, id string, change func(*Record) error) (*Record, error)
	// Leaser grants one session at a time the right to run an interview.
	Leaser
	// SweepCrashed ends the interviews whose session died (in_progress
	// with a lapsed lease) and returns their ids.
	SweepCrashed(ctx context.Context) ([]string, error)
	// KeyKeeper keeps the candidate-provided provider keys, sealed.
	KeyKeeper
	// CheckWritable reports, with what to do, why records cannot be
	// written (a read-only or full disk, a database refusing writes).
	CheckWritable(ctx context.Context) error
	// Locate says where the record of id is kept, for people: a file
	// path, or the database and id.
	Locate(id string) string
}

// KeyKeeper keeps provider keys given for one interview, sealed at rest
// (see Sealer); a store without a Sealer refuses them.
type KeyKeeper interface {
	// KeepsKeys reports whether the store can keep keys (has a Sealer).
	KeepsKeys() bool
	// PutKeys seals and stores k for interview id.
	PutKeys(ctx context.Context, id string, k Keys) error
	// Keys returns interview id's keys; ErrNoKeys when there are none.
	Keys(ctx context.Context, id string) (Keys, error)
	// HasKeys reports whether interview id has keys stored.
	HasKeys(ctx context.Context, id string) bool
	// DeleteKeys removes interview id's keys; no keys is not an error.
	DeleteKeys(ctx context.Context, id string) error
}

var _ Store = (*FileStore)(nil)

// FileStore keeps one JSON file per interview, <id>.json, in a directory.
// Every write goes to a temporary file in the same directory that is synced
// and then renamed over the record, so readers — in this process or another
// — always see a whole record, old or new, and a crash never leaves a
// half-written one. A FileStore is safe for concurrent use.
type FileStore struct {
	dir string
	vol volume           // the file system under dir, for CheckWritable
	now func() time.Time // the clock of leases and the sweep; nil is time.Now
	// sealer seals provider keys (see PutKeys); nil refuses them.
	sealer *Sealer

	mu    sync.Mutex         // guards locks
	locks map[string]*idLock // per-id write locks, dropped when unused

	cacheMu sync.Mutex
	cache   map[string]cachedSummary // by file name; see List
}

type idLock struct {
	mu   sync.Mutex
	refs int
}

// cachedSummary is List's memory of a file it has read, reused while the
// file is unchanged.
type cachedSummary struct {
	info    fs.FileInfo
	summary Summary
	corrupt bool
}

// Open returns a Store on dir, creating the directory (mode 0750) if needed.
func Open(dir string) (*FileStore, error) {
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
	return &FileStore{dir: dir, vol: osVolume{}, locks: map[string]*idLock{}, cache: map[string]cachedSummary{}}, nil
}

// Locate returns the record's file path (see Path), or the id when it is
// not valid.
func (s *FileStore) Locate(id string) string {
	p, err := s.Path(id)
	if err != nil {
		return id
	}
	return p
}

// Dir returns the directory the store keeps its records in.
func (s *FileStore) Dir() string { return s.dir }

// Path returns the file that holds (or will hold) the record with the given
// id, to tell a user where their record is.
func (s *FileStore) Path(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("interviews: path of %q: %w", id, ErrNotFound)
	}
	return filepath.Join(s.dir, id+recordExt), nil
}

// Create stores a new record. It assigns r.ID (NewID) when empty, r.CreatedAt
// when zero and StatusScheduled when r.Status is empty, then validates and
// writes r. It fails with ErrExists when a record with r's id is present.
func (s *FileStore) Create(ctx context.Context, r *Record) error {
	if r.ID == "" {
		r.ID = NewID()
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now().UTC().Round(0)
	}
	if r.Status == "" {
		r.Status = StatusScheduled
	}
	data, err := encode(r)
	if err != nil {
		return fmt.Errorf("interviews: create: %w", err)
	}
	unlock := s.lock(r.ID)
	defer unlock()
	switch _, err := os.Lstat(filepath.Join(s.dir, r.ID+recordExt)); {
	case err == nil:
		return fmt.Errorf("interviews: create %s: %w", r.ID, ErrExists)
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
func (s *FileStore) Save(ctx context.Context, r *Record) error {
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
func encode(r *Record) ([]byte, error) {
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
func (s *FileStore) write(id string, data []byte) error {
	return atomicfile.Write(filepath.Join(s.dir, id+recordExt), data,
		atomicfile.Options{Perm: 0o640, BeforeRename: testHookBeforeRename})
}

// testHookBeforeRename, set only by tests, runs when a new version of a
// record is written and synced but not yet renamed into place: the moment a
// crash would leave a temporary file beside the previous version.
var testHookBeforeRename func(tmp string)

// lock takes the write lock of id and returns its release.
func (s *FileStore) lock(id string) (unlock func()) {
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
func (s *FileStore) Get(ctx context.Context, id string) (*Record, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("interviews: get %q: %w", id, ErrNotFound)
	}
	path := filepath.Join(s.dir, id+recordExt)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("interviews: get %s: %w", id, ErrNotFound)
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
func decode(data []byte, id string) (*Record, error) {
	var r Record
	if err := json.Unmarshal(bytes.TrimSpace(data), &r); err != nil {
		return nil, err
	}
	if r.ID != id {
		return nil, fmt.Errorf("it holds id %q", r.ID)
	}
	return &r, nil
}

// ListOptions selects and pages the interviews List returns. The zero value
// lists the newest DefaultListLimit interviews.
type ListOptions struct {
	// Status keeps only interviews with this status; empty keeps all.
	Status Status
	// Role keeps only candidates whose role contains this text, ignoring case.
	Role string
	// Query keeps only candidates whose name contains this text, ignoring case.
	Query string
	// Offset skips this many matching interviews (for later pages).
	Offset int
	// Limit is the page size: 0 means DefaultListLimit, larger than
	// MaxListLimit means MaxListLimit.
	Limit int
	// Sort orders the interviews: SortNewest (empty), SortScore or
	// SortDecision.
	Sort string
}

// The orders of List (ListOptions.Sort). Ties, and interviews without a
// score or a decision, keep the newest-first order after the others.
const (
	// SortNewest lists the newest registered first.
	SortNewest = ""
	// SortScore lists the highest report score first.
	SortScore = "score"
	// SortDecision lists advance, then hold, then reject.
	SortDecision = "decision"
)

// ListPage is one page of List's result.
type ListPage struct {
	// Items are the page's interviews, newest first.
	Items []Summary `json:"items"`
	// Total is how many interviews match the options, over all pages.
	Total int `json:"total"`
}

// Summary is what a reviewer's list shows of one interview.
type Summary struct {
	// ID identifies the interview.
	ID string `json:"id"`
	// Room is the interview's LiveKit room.
	Room string `json:"room"`
	// Candidate is who was interviewed.
	Candidate Candidate `json:"candidate"`
	// Blueprint is the interview plan followed.
	Blueprint string `json:"blueprint"`
	// Status is where the interview is in its life.
	Status Status `json:"status"`
	// FinalStage is the stage the interview ended in.
	FinalStage string `json:"final_stage,omitempty"`
	// CreatedAt is when the interview was registered.
	CreatedAt time.Time `json:"created_at"`
	// StartedAt is when it started; nil while scheduled.
	StartedAt *time.Time `json:"started_at,omitempty"`
	// EndedAt is when it ended; nil until it has.
	EndedAt *time.Time `json:"ended_at,omitempty"`
	// Duration is how long it ran (so far, while in progress); nanoseconds
	// in JSON.
	Duration time.Duration `json:"duration_ns"`
	// Turns is how many turns were recorded.
	Turns int `json:"turns"`
	// Score is the ready report's overall score (0–100); nil without a
	// ready report or for a knowledge capture's report.
	Score *float64 `json:"score,omitempty"`
	// Decision is the latest reviewer decision; empty when none.
	Decision DecisionKind `json:"decision,omitempty"`
	// EndedBy says what ended the interview; empty while it runs.
	EndedBy EndReason `json:"ended_by,omitempty"`
	// ExpiresAt, OpenedAt and RevokedAt are the link's expiry, first
	// opening and withdrawal (see Record); ReissuedAs and ReissuedFrom link
	// a re-issued invitation to its replacement and back.
	ExpiresAt    *time.Time `json:"expires_at,omitempty"`
	OpenedAt     *time.Time `json:"opened_at,omitempty"`
	RevokedAt    *time.Time `json:"revoked_at,omitempty"`
	ReissuedAs   string     `json:"reissued_as,omitempty"`
	ReissuedFrom string     `json:"reissued_from,omitempty"`
	// Revision changes whenever the stored record changes (a file's size
	// and time, a database row's version), so a poller can skip records it
	// has seen. Opaque; not sent to clients.
	Revision string `json:"-"`
}

// Summarize returns the summary of r that a store keeps for List, without
// the Revision (the store's) and the Duration (see Measure).
func Summarize(r *Record) Summary {
	s := Summary{
		ID: r.ID, Room: r.Room, Candidate: r.Candidate, Blueprint: r.Blueprint,
		Status: r.Status, FinalStage: r.FinalStage, CreatedAt: r.CreatedAt,
		StartedAt: r.StartedAt, EndedAt: r.EndedAt, Turns: len(r.Turns),
		EndedBy: r.EndedBy, ExpiresAt: r.ExpiresAt, OpenedAt: r.OpenedAt, RevokedAt: r.RevokedAt,
		ReissuedAs: r.ReissuedAs, ReissuedFrom: r.ReissuedFrom,
	}
	if rep := r.Report; rep != nil && rep.Status == ReportReady && len(rep.Topics) == 0 {
		v := rep.OverallScore
		s.Score = &v
	}
	if n := len(r.Decisions); n > 0 {
		s.Decision = r.Decisions[n-1].Decision
	}
	return s
}

// DecisionRank orders decisions as SortDecision lists them: advance (0),
// hold, reject, then none (3).
func DecisionRank(d DecisionKind) int {
	switch d {
	case DecisionAdvance:
		return 0
	case DecisionHold:
		return 1
	case DecisionReject:
		return 2
	}
	return 3
}

// List returns the interviews that match opts, newest first (by CreatedAt,
// then by id), one page at a time. Files that cannot be decoded are skipped
// and logged by file name; temporary files left by a crash are ignored.
func (s *FileStore) List(ctx context.Context, opts ListOptions) (ListPage, error) {
	limit, err := opts.PageSize()
	if err != nil {
		return ListPage{}, err
	}
	all, err := s.summaries()
	if err != nil {
		return ListPage{}, err
	}
	role, query := strings.ToLower(opts.Role), strings.ToLower(opts.Query)
	matched := all[:0]
	for _, sum := range all {
		if opts.Status != "" && sum.Status != opts.Status {
			continue
		}
		if role != "" && !strings.Contains(strings.ToLower(sum.Candidate.Role), role) {
			continue
		}
		if query != "" && !strings.Contains(strings.ToLower(sum.Candidate.Name), query) {
			continue
		}
		matched = append(matched, sum)
	}
	slices.SortFunc(matched, func(a, b Summary) int {
		switch opts.Sort {
		case SortScore:
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
		case SortDecision:
			if c := cmp.Compare(DecisionRank(a.Decision), DecisionRank(b.Decision)); c != 0 {
				return c
			}
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	page := ListPage{Items: []Summary{}, Total: len(matched)}
	if opts.Offset < len(matched) {
		page.Items = append(page.Items, matched[opts.Offset:min(opts.Offset+limit, len(matched))]...)
	}
	for i := range page.Items {
		page.Items[i].Measure()
	}
	return page, nil
}

// PageSize checks opts as every Store's List does and returns the page
// size to use: Limit, DefaultListLimit for 0, at most MaxListLimit.
func (opts ListOptions) PageSize() (int, error) {
	if opts.Status != "" && !opts.Status.Valid() {
		return 0, fmt.Errorf("interviews: list: unknown status %q: use one of %s", opts.Status, joinStatuses())
	}
	if opts.Sort != SortNewest && opts.Sort != SortScore && opts.Sort != SortDecision {
		return 0, fmt.Errorf("interviews: list: unknown order %q: use %q, %q or none", opts.Sort, SortScore, SortDecision)
	}
	if opts.Offset < 0 || opts.Limit < 0 {
		return 0, fmt.Errorf("interviews: list: offset %d and limit %d must not be negative", opts.Offset, opts.Limit)
	}
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	return min(limit, MaxListLimit), nil
}

// Measure sets s.Duration to how long the interview ran, up to now while
// it is in progress: List calls it on every summary it returns.
func (s *Summary) Measure() { s.Duration = duration(s.Status, s.StartedAt, s.EndedAt) }

// summaries returns a summary of every readable record in the directory,
// reading only the files that changed since the last call.
func (s *FileStore) summaries() ([]Summary, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("interviews: list: %w", err)
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	seen := make(map[string]bool, len(entries))
	out := make([]Summary, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, recordExt)
		if !ok || !ValidID(id) || !e.Type().IsRegular() {
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

func (s *FileStore) readSummary(name, id string) (Summary, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		return Summary{}, err
	}
	r, err := decode(data, id)
	if err != nil {
		return Summary{}, err
	}
	return Summarize(r), nil
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
func (s *FileStore) Update(ctx context.Context, id string, change func(*Record) error) (*Record, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("interviews: update %q: %w", id, ErrNotFound)
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

// AuditSystem is the AuditEntry.Who of what viva does by itself: reports
// generated, webhooks delivered.
const AuditSystem = "viva"
