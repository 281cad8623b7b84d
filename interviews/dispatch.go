package interviews

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// MaxDispatchBytes bounds the dispatch metadata a worker accepts. The web
// app sends only an interview id; a direct dispatch carries a candidate of
// four short fields and a blueprint name, far below this.
const MaxDispatchBytes = 4 << 10

// dispatchHelp says what dispatch metadata may hold, for error messages.
const dispatchHelp = `send {"interview_id": "…"} or a candidate {"name", "email", "role", "level", "blueprint", "language"}`

// Dispatch is the metadata of an agent dispatch: which interview the
// interviewer joins a room for. The web app writes one into each candidate
// token (with an interview id only: the résumé and job description stay in
// the record) and the worker reads it when it takes the job. A dispatch made
// without registering first (a script, a test) carries the candidate
// instead, and the worker creates the record.
//
// On the wire it is a JSON object: {"interview_id": "…"} or {"name": "…",
// "email": "…", "role": "…", "level": "…", "blueprint": "…"}.
type Dispatch struct {
	// InterviewID names an interview registered beforehand; the worker
	// reads everything else from its record. Empty when Candidate is set.
	InterviewID string
	// Candidate is the candidate of a direct interview; nil when
	// InterviewID is set.
	Candidate *Candidate
	// Blueprint names the blueprint of a direct interview; empty means
	// stages.DefaultName.
	Blueprint string
	// Language is the language of a direct interview (lang.Parse); empty
	// means the blueprint's.
	Language string
}

// dispatchJSON is the wire form of a Dispatch.
type dispatchJSON struct {
	InterviewID string `json:"interview_id,omitempty"`
	Name        string `json:"name,omitempty"`
	Email       string `json:"email,omitempty"`
	Role        string `json:"role,omitempty"`
	Level       string `json:"level,omitempty"`
	Blueprint   string `json:"blueprint,omitempty"`
	Language    string `json:"language,omitempty"`
}

// ParseDispatch reads dispatch metadata: exactly one JSON object of at most
// MaxDispatchBytes with only the fields of Dispatch (an unknown field is
// most likely a misspelt one and is refused, as is anything after the
// object). A direct candidate is normalised (Candidate.Normalize). The
// result has passed Validate.
func ParseDispatch(meta string) (Dispatch, error) {
	if len(meta) > MaxDispatchBytes {
		return Dispatch{}, fmt.Errorf("interviews: dispatch metadata is %d bytes, more than %d: %s", len(meta), MaxDispatchBytes, dispatchHelp)
	}
	if strings.TrimSpace(meta) == "" {
		return Dispatch{}, fmt.Errorf("interviews: dispatch metadata is empty: %s", dispatchHelp)
	}
	var w dispatchJSON
	dec := json.NewDecoder(strings.NewReader(meta))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Dispatch{}, fmt.Errorf("interviews: dispatch metadata is not valid: %w: %s", err, dispatchHelp)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Dispatch{}, fmt.Errorf("interviews: dispatch metadata has more after its JSON object: %s", dispatchHelp)
	}
	d := Dispatch{InterviewID: strings.TrimSpace(w.InterviewID), Blueprint: CleanLine(w.Blueprint), Language: CleanLine(w.Language)}
	if w.Name != "" || w.Email != "" || w.Role != "" || w.Level != "" {
		c := Candidate{Name: w.Name, Email: w.Email, Role: w.Role, Level: w.Level}
		c.Normalize()
		d.Candidate = &c
	}
	if err := d.Validate(); err != nil {
		return Dispatch{}, err
	}
	return d, nil
}

// Validate checks that d names a valid interview id or carries a valid
// candidate (Candidate.Validate), not both, and that a blueprint name is
// given only with a candidate.
func (d Dispatch) Validate() error {
	switch {
	case d.InterviewID != "" && (d.Candidate != nil || d.Blueprint != "" || d.Language != ""):
		return fmt.Errorf("interviews: dispatch metadata names interview %q and also a candidate, blueprint or language: send one or the other", d.InterviewID)
	case d.InterviewID != "":
		if !ValidID(d.InterviewID) {
			return fmt.Errorf("interviews: dispatch metadata names interview %q, which is not a valid id: use the id the web app returned", d.InterviewID)
		}
		return nil
	case d.Candidate == nil:
		return fmt.Errorf("interviews: dispatch metadata names no interview: %s", dispatchHelp)
	}
	if err := d.Candidate.Validate(); err != nil {
		return fmt.Errorf("interviews: dispatch metadata: candidate %w", err)
	}
	if utf8.RuneCountInString(d.Blueprint) > MaxNameLen {
		return fmt.Errorf("interviews: dispatch metadata: blueprint name is longer than %d characters", MaxNameLen)
	}
	if _, err := lang.Parse(d.Language); err != nil {
		return fmt.Errorf("interviews: dispatch metadata: %w", err)
	}
	if d.Blueprint != "" && !ValidBlueprintName(d.Blueprint) {
		// The value is not repeated: it may be a path, and paths are
		// neither read nor echoed.
		return errors.New("interviews: dispatch metadata: blueprint must be the name of a blueprint installed on the worker (letters, digits, '-' and '_', such as default), not a file")
	}
	return nil
}

// ValidBlueprintName reports whether name may name an installed blueprint
// in dispatch metadata: ASCII letters, digits, '-' and '_'. A file path
// ("/etc/passwd", "../x.yaml") never passes: dispatch metadata is data, and
// blueprint files are for the operator's own flags.
func ValidBlueprintName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// Encode returns d as dispatch metadata for a token or a dispatch request,
// after checking it with Validate. ParseDispatch reads it back.
func (d Dispatch) Encode() (string, error) {
	if err := d.Validate(); err != nil {
		return "", err
	}
	w := dispatchJSON{InterviewID: d.InterviewID, Blueprint: d.Blueprint, Language: d.Language}
	if c := d.Candidate; c != nil {
		w.Name, w.Email, w.Role, w.Level = c.Name, c.Email, c.Role, c.Level
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return "", fmt.Errorf("interviews: encoding dispatch metadata: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// RecordSource is what Dispatch.Open needs of a store: reading a
// registered interview and creating a new one.
type RecordSource interface {
	// Get returns the record with the given id, or an error wrapping
	// ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Create stores a new record, assigning its id.
	Create(ctx context.Context, r *Record) error
}

// ErrFinished means a dispatched interview has already ended and cannot be
// run again.
var ErrFinished = errors.New("the interview is already over")

// ErrRevoked means a dispatched interview's link was withdrawn: a token
// minted before the revocation gets no interview.
var ErrRevoked = errors.New("the interview's link was withdrawn")

// Open returns the record and blueprint of the interview d asks for, held
// in room: the registered interview d.InterviewID, which must not have
// been revoked (ErrRevoked) nor have finished (ErrFinished) unless its
// worker crashed (Record.Resumable: the caller resumes
// it; it is given room when it has none yet), or a new record for
// d.Candidate created in store. blueprint returns an installed blueprint
// by name (stages.Builtin when nil); it is given names from dispatch
// metadata and records, so it must never read a file they name. The record
// is not started.
func (d Dispatch) Open(ctx context.Context, store RecordSource, room string, blueprint func(name string) (*stages.Blueprint, error)) (*Record, *stages.Blueprint, error) {
	if err := d.Validate(); err != nil {
		return nil, nil, err
	}
	if blueprint == nil {
		blueprint = stages.Builtin
	}
	if d.InterviewID != "" {
		rec, err := store.Get(ctx, d.InterviewID)
		if err != nil {
			return nil, nil, fmt.Errorf("interviews: dispatched interview %q: %w", d.InterviewID, err)
		}
		if rec.RevokedAt != nil {
			return nil, nil, fmt.Errorf("interviews: dispatched interview %s: %w", rec.ID, ErrRevoked)
		}
		if rec.Status.Finished() && !rec.Resumable() {
			return nil, nil, fmt.Errorf("interviews: dispatched interview %s: %w (%s)", rec.ID, ErrFinished, rec.Status)
		}
		bp, err := blueprint(rec.Blueprint)
		if err != nil {
			return nil, nil, fmt.Errorf("interviews: dispatched interview %s: %w", rec.ID, err)
		}
		if rec.Room == "" {
			rec.Room = room
		}
		return rec, bp, nil
	}
	name := d.Blueprint
	if name == "" {
		name = stages.DefaultName
	}
	bp, err := blueprint(name)
	if err != nil {
		return nil, nil, fmt.Errorf("interviews: dispatch metadata: %w", err)
	}
	language, _ := lang.Parse(d.Language) // checked by Validate
	rec := &Record{Room: room, Blueprint: bp.Name, Language: language, Candidate: *d.Candidate}
	if err := store.Create(ctx, rec); err != nil {
		return nil, nil, fmt.Errorf("interviews: creating the dispatched interview's record: %w", err)
	}
	return rec, bp, nil
}
