package interviews

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// Store keeps interview records. Two backends implement it, each in a
// package of its own: interviews/filestore, one JSON file per interview in
// a data directory (the embedded default for one machine), and
// interviews/postgres, which workers on several machines and the web app
// share. Every method is safe for concurrent use, also across processes
// sharing the backend.
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
	// Walk calls fn with every summary matching opts' filters, in opts'
	// order, from the first (Offset and Limit are ignored), holding only
	// a few at a time: exports of any size stream through it in bounded
	// memory. An error from fn stops the walk and is returned.
	Walk(ctx context.Context, opts ListOptions, fn func(Summary) error) error
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
	// Delete erases the record of id with its lease and its provider
	// keys, and keeps e (its ID set to id) in the store's erasure log, in
	// one step: the log never misses a record that is gone. ErrNotFound
	// when there is no such record (nothing is logged then). Recordings
	// are files beside the store: the caller removes them first.
	Delete(ctx context.Context, id string, e Erasure) error
	// Erasures returns the erasure log, oldest first.
	Erasures(ctx context.Context) ([]Erasure, error)
	// DesignStore keeps the library of installed interview designs.
	DesignStore
}

// Erasure is the entry an erased record leaves in the store's erasure
// log: what went, when, why and on whose word, and nothing of the
// candidate. The interview id is kept: it is random, names nothing once
// the record is gone, and lets an operator erase the record again from a
// backup restored later.
type Erasure struct {
	// ID is the erased interview's id.
	ID string `json:"id"`
	// At is when the record was erased.
	At time.Time `json:"at"`
	// Who asked: the operator who ran viva erase, or AuditSystem for the
	// retention sweep. Never the candidate.
	Who string `json:"who"`
	// Reason is ErasureRequested or ErasureRetention.
	Reason string `json:"reason"`
	// Detail says what went, in words without personal data ("record,
	// 2 recordings, provider keys, report version 1").
	Detail string `json:"detail,omitempty"`
}

// The reasons a record is erased (Erasure.Reason).
const (
	// ErasureRequested: the candidate asked for their data to be erased
	// (viva erase).
	ErasureRequested = "erasure_requested"
	// ErasureRetention: the record outlived the record retention.
	ErasureRetention = "retention_expired"
)

// PrepareCreate gives r what Store.Create assigns before it validates and
// stores a record: a new id (NewID) when it has none, now as CreatedAt
// when that is zero, and StatusScheduled when Status is empty.
func (r *Record) PrepareCreate(now time.Time) {
	if r.ID == "" {
		r.ID = NewID()
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now.UTC().Round(0)
	}
	if r.Status == "" {
		r.Status = StatusScheduled
	}
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

// ListOptions selects and pages the interviews List returns. The zero value
// lists the newest DefaultListLimit interviews.
type ListOptions struct {
	// Status keeps only interviews with this status; empty keeps all.
	Status Status
	// Role keeps only candidates whose role contains this text, ignoring case.
	Role string
	// Query keeps only candidates whose name contains this text, ignoring case.
	Query string
	// Email keeps only candidates whose email address is this one,
	// ignoring case and surrounding spaces: every interview of one person.
	Email string
	// CreatedBefore, when not zero, keeps only interviews registered
	// before it.
	CreatedBefore time.Time
	// CreatedBy keeps only interviews registered by this user (their
	// email address, ignoring case): a recruiter's own invitations.
	CreatedBy string
	// Invitations keeps only interviews whose link is in one of these
	// states at the moment At (see Record.Invitation); empty keeps all.
	Invitations []InvitationState
	// At is the moment Invitations are judged at; the zero time is the
	// moment of the call.
	At time.Time
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
	// Language is the language the interview is held in (Record.Language);
	// empty for English.
	Language string `json:"language,omitempty"`
	// Status is where the interview is in its life.
	Status Status `json:"status"`
	// FinalStage is the stage the interview ended in; FinalStageTitle its
	// title, as the record's visits give it (Record.StageTitle).
	FinalStage      string `json:"final_stage,omitempty"`
	FinalStageTitle string `json:"final_stage_title,omitempty"`
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
	// Competencies are the ready report's competency scores, without
	// their rationales; nil without a scored report.
	Competencies []Competency `json:"competencies,omitempty"`
	// Decision is the latest reviewer decision and DecisionNote its note;
	// empty when none.
	Decision     DecisionKind `json:"decision,omitempty"`
	DecisionNote string       `json:"decision_note,omitempty"`
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
	// CreatedBy is who registered the interview (Record.CreatedBy).
	CreatedBy string `json:"created_by,omitempty"`
	// Revision changes whenever the stored record changes (a file's size
	// and time, a database row's version), so a poller can skip records it
	// has seen. Opaque; not sent to clients.
	Revision string `json:"-"`
}

// Summarize returns the summary of r that a store keeps for List, without
// the Revision (the store's) and the Duration (see Measure).
func Summarize(r *Record) Summary {
	s := Summary{
		ID: r.ID, Room: r.Room, Candidate: r.Candidate, Blueprint: r.Blueprint, Language: r.Language,
		Status: r.Status, FinalStage: r.FinalStage, CreatedAt: r.CreatedAt,
		StartedAt: r.StartedAt, EndedAt: r.EndedAt, Turns: len(r.Turns),
		EndedBy: r.EndedBy, ExpiresAt: r.ExpiresAt, OpenedAt: r.OpenedAt, RevokedAt: r.RevokedAt,
		ReissuedAs: r.ReissuedAs, ReissuedFrom: r.ReissuedFrom, CreatedBy: r.CreatedBy,
	}
	if s.FinalStage != "" {
		s.FinalStageTitle = r.StageTitle(s.FinalStage)
	}
	if rep := r.Report; rep != nil && rep.Status == ReportReady && len(rep.Topics) == 0 {
		v := rep.OverallScore
		s.Score = &v
		for _, c := range rep.Competencies {
			s.Competencies = append(s.Competencies, Competency{Name: c.Name, Score: c.Score})
		}
	}
	if n := len(r.Decisions); n > 0 {
		s.Decision, s.DecisionNote = r.Decisions[n-1].Decision, r.Decisions[n-1].Note
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

// PageSize checks opts as every Store's List does and returns the page
// size to use: Limit, DefaultListLimit for 0, at most MaxListLimit.
func (opts ListOptions) PageSize() (int, error) {
	if opts.Status != "" && !opts.Status.Valid() {
		return 0, fmt.Errorf("interviews: list: unknown status %q: use one of %s", opts.Status, joinStatuses())
	}
	if opts.Sort != SortNewest && opts.Sort != SortScore && opts.Sort != SortDecision {
		return 0, fmt.Errorf("interviews: list: unknown order %q: use %q, %q or none", opts.Sort, SortScore, SortDecision)
	}
	for _, st := range opts.Invitations {
		if !slices.Contains(InvitationStates, st) {
			return 0, fmt.Errorf("interviews: list: unknown invitation state %q: use one of %s", st, joinInvitationStates())
		}
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

// Matches reports whether s passes opts' filters (status, role, name,
// email, creation time and creator, the invitation's state at At): the
// file store filters with it, and the database's query says the same in
// SQL.
func (opts ListOptions) Matches(s Summary) bool {
	switch {
	case opts.CreatedBy != "" && !strings.EqualFold(s.CreatedBy, opts.CreatedBy):
		return false
	case len(opts.Invitations) > 0 && !slices.Contains(opts.Invitations, s.Invitation(opts.at())):
		return false
	case opts.Status != "" && s.Status != opts.Status:
		return false
	case opts.Role != "" && !strings.Contains(strings.ToLower(s.Candidate.Role), strings.ToLower(opts.Role)):
		return false
	case opts.Query != "" && !strings.Contains(strings.ToLower(s.Candidate.Name), strings.ToLower(opts.Query)):
		return false
	case opts.Email != "" && NormalizeEmail(s.Candidate.Email) != NormalizeEmail(opts.Email):
		return false
	case !opts.CreatedBefore.IsZero() && !s.CreatedAt.Before(opts.CreatedBefore):
		return false
	}
	return true
}

// at is the moment the invitation filter is judged at.
func (opts ListOptions) at() time.Time {
	if opts.At.IsZero() {
		return time.Now()
	}
	return opts.At
}

// ResolveAt returns opts with At set to now when it is zero, so one
// moment judges every interview of a call.
func (opts ListOptions) ResolveAt(now time.Time) ListOptions {
	if opts.At.IsZero() {
		opts.At = now
	}
	return opts
}

// joinInvitationStates lists the invitation states for messages.
func joinInvitationStates() string {
	s := make([]string, len(InvitationStates))
	for i, st := range InvitationStates {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}

// NormalizeEmail is the form in which email addresses are compared:
// trimmed and lower-cased.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Measure sets s.Duration to how long the interview ran, up to now while
// it is in progress: List calls it on every summary it returns.
func (s *Summary) Measure() { s.Duration = duration(s.Status, s.StartedAt, s.EndedAt) }

// AuditSystem is the AuditEntry.Who of what viva does by itself: reports
// generated, webhooks delivered.
const AuditSystem = "viva"
