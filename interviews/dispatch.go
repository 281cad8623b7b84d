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
const dispatchHelp = `send {"interview_id": "…"} or a candidate {"name", "email", "role", "level", "blueprint", "template", "language"}`

// Dispatch is the metadata of an agent dispatch: which interview the
// interviewer joins a room for. The web app writes one into each candidate
// token (with an interview id only: the résumé and job description stay in
// the record) and the worker reads it when it takes the job. A dispatch made
// without registering first (a script, a test) carries the candidate
// instead, and the worker creates the record.
//
// On the wire it is a JSON object: {"interview_id": "…"} or {"name": "…",
// "email": "…", "role": "…", "level": "…", "blueprint": "…", "template":
// "…"}, either with the designs' versions ("blueprint_version",
// "template_version"). The web app's dispatch names the registered
// interview's designs and versions too, which the worker checks against
// the record.
type Dispatch struct {
	// InterviewID names an interview registered beforehand; the worker
	// reads everything else from its record. Empty when Candidate is set.
	InterviewID string
	// Candidate is the candidate of a direct interview; nil when
	// InterviewID is set.
	Candidate *Candidate
	// Blueprint names the blueprint of a direct interview; empty means
	// stages.DefaultName.
	// Blueprint names the blueprint, a design of the library: of a direct
	// interview (empty means stages.DefaultName), or the one a
	// registered interview's record names. Template names a role template
	// likewise (empty for none).
	Blueprint, Template string
	// BlueprintVersion and TemplateVersion are the designs' versions
	// (Design.Version); empty means the current one for a direct
	// interview, the record's for a registered one.
	BlueprintVersion, TemplateVersion string
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
	BlueprintV  string `json:"blueprint_version,omitempty"`
	Template    string `json:"template,omitempty"`
	TemplateV   string `json:"template_version,omitempty"`
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
	d := Dispatch{InterviewID: strings.TrimSpace(w.InterviewID), Blueprint: CleanLine(w.Blueprint), Template: CleanLine(w.Template),
		BlueprintVersion: strings.TrimSpace(w.BlueprintV), TemplateVersion: strings.TrimSpace(w.TemplateV), Language: CleanLine(w.Language)}
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
// candidate (Candidate.Validate), not both, and that its design names and
// versions could name designs of the library (never a file).
func (d Dispatch) Validate() error {
	switch {
	case d.InterviewID != "" && (d.Candidate != nil || d.Language != ""):
		return fmt.Errorf("interviews: dispatch metadata names interview %q and also a candidate or language: send one or the other", d.InterviewID)
	case d.InterviewID != "":
		if !ValidID(d.InterviewID) {
			return fmt.Errorf("interviews: dispatch metadata names interview %q, which is not a valid id: use the id the web app returned", d.InterviewID)
		}
	case d.Candidate == nil:
		return fmt.Errorf("interviews: dispatch metadata names no interview: %s", dispatchHelp)
	default:
		if err := d.Candidate.Validate(); err != nil {
			return fmt.Errorf("interviews: dispatch metadata: candidate %w", err)
		}
	}
	for _, n := range []struct{ what, name, version string }{{"blueprint", d.Blueprint, d.BlueprintVersion}, {"template", d.Template, d.TemplateVersion}} {
		if utf8.RuneCountInString(n.name) > MaxNameLen {
			return fmt.Errorf("interviews: dispatch metadata: %s name is longer than %d characters", n.what, MaxNameLen)
		}
		if n.name != "" && !ValidBlueprintName(n.name) {
			// The value is not repeated: it may be a path, and paths are
			// neither read nor echoed.
			return fmt.Errorf("interviews: dispatch metadata: %s must be the name of a design in the library (letters, digits, '-' and '_', such as default), not a file", n.what)
		}
		if n.version != "" && (n.name == "" || !ValidDesignVersion(n.version)) {
			return fmt.Errorf("interviews: dispatch metadata: %s_version must be the version of the named %s (16 hexadecimal digits, or %s): %s", n.what, n.what, BuiltinVersion, dispatchHelp)
		}
	}
	if _, err := lang.Parse(d.Language); err != nil {
		return fmt.Errorf("interviews: dispatch metadata: %w", err)
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
	w := dispatchJSON{InterviewID: d.InterviewID, Blueprint: d.Blueprint, BlueprintV: d.BlueprintVersion, Template: d.Template, TemplateV: d.TemplateVersion, Language: d.Language}
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

// Designs is what Dispatch.Open needs of the design library (Library
// has it): designs by name and version, never a file.
type Designs interface {
	// Blueprint returns the blueprint called name at version ("" for the
	// current one) and the version it is; an error wrapping
	// ErrDesignNotFound when the library has none.
	Blueprint(ctx context.Context, name, version string) (*stages.Blueprint, string, error)
	// Template does the same for role templates.
	Template(ctx context.Context, name, version string) (*stages.Template, string, error)
}

// Opened is the interview a dispatch asks for, ready to run.
type Opened struct {
	// Record is the interview's record, not started.
	Record *Record
	// Blueprint is the version of the blueprint the record names, with the
	// record's Options applied.
	Blueprint *stages.Blueprint
	// Template is the role template the record names; nil for none.
	Template *stages.Template
}

// Open returns the interview d asks for, held in room: the registered
// interview d.InterviewID, which must not have been revoked (ErrRevoked)
// nor have finished (ErrFinished) unless its worker crashed
// (Record.Resumable: the caller resumes it; it is given room when it has
// none yet), or a new record for d.Candidate created in store. The designs
// come from lib by the names and versions the record (or d) gives; a
// design not in the library, or a dispatch naming other designs than the
// record, is an error wrapping ErrDesignNotFound, and no record is
// created.
func (d Dispatch) Open(ctx context.Context, store RecordSource, room string, lib Designs) (*Opened, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if d.InterviewID == "" {
		return d.openDirect(ctx, store, room, lib)
	}
	rec, err := store.Get(ctx, d.InterviewID)
	if err != nil {
		return nil, fmt.Errorf("interviews: dispatched interview %q: %w", d.InterviewID, err)
	}
	if rec.RevokedAt != nil {
		return nil, fmt.Errorf("interviews: dispatched interview %s: %w", rec.ID, ErrRevoked)
	}
	if rec.Status.Finished() && !rec.Resumable() {
		return nil, fmt.Errorf("interviews: dispatched interview %s: %w (%s)", rec.ID, ErrFinished, rec.Status)
	}
	if !d.matches(rec) {
		return nil, fmt.Errorf("interviews: dispatched interview %s: the dispatch names other designs than its record: %w", rec.ID, ErrDesignNotFound)
	}
	o, err := OpenDesigns(ctx, lib, rec)
	if err != nil {
		return nil, fmt.Errorf("interviews: dispatched interview %s: %w", rec.ID, err)
	}
	if rec.Room == "" {
		rec.Room = room
	}
	return o, nil
}

// matches reports whether the designs d names, if any, are rec's.
func (d Dispatch) matches(rec *Record) bool {
	same := func(given, recorded string) bool { return given == "" || recorded == "" || given == recorded }
	return same(d.Blueprint, rec.Blueprint) && same(d.BlueprintVersion, rec.BlueprintVersion) &&
		same(d.Template, rec.Template) && same(d.TemplateVersion, rec.TemplateVersion)
}

// openDirect creates the record of a direct dispatch's candidate.
func (d Dispatch) openDirect(ctx context.Context, store RecordSource, room string, lib Designs) (*Opened, error) {
	name := d.Blueprint
	if name == "" {
		name = stages.DefaultName
	}
	language, _ := lang.Parse(d.Language) // checked by Validate
	rec := &Record{Room: room, Blueprint: name, BlueprintVersion: d.BlueprintVersion, Template: d.Template, TemplateVersion: d.TemplateVersion, Language: language, Candidate: *d.Candidate}
	o, err := OpenDesigns(ctx, lib, rec)
	if err != nil {
		return nil, fmt.Errorf("interviews: dispatch metadata: %w", err)
	}
	if err := store.Create(ctx, rec); err != nil {
		return nil, fmt.Errorf("interviews: creating the dispatched interview's record: %w", err)
	}
	return o, nil
}

// RecordBlueprint returns the blueprint rec follows, from lib: its design
// at the record's version (the current one when it names none), with the
// record's Options applied, and the version it is. The web app's pages
// (the candidate's plan and feedback, the reviewer's) read it as the
// worker runs it.
func RecordBlueprint(ctx context.Context, lib Designs, rec *Record) (*stages.Blueprint, string, error) {
	bp, v, err := lib.Blueprint(ctx, rec.Blueprint, rec.BlueprintVersion)
	if err != nil {
		return nil, "", err
	}
	if rec.Options != nil {
		rec.Options.Apply(bp)
	}
	return bp, v, nil
}

// OpenDesigns loads the designs rec names from lib, at the record's
// versions (the current ones when it names none, which it then records),
// and applies its Options to the blueprint. Whether the template fits
// the blueprint is the caller's check (stages.Blueprint.TakesTemplate).
func OpenDesigns(ctx context.Context, lib Designs, rec *Record) (*Opened, error) {
	if lib == nil {
		lib = Library{}
	}
	bp, v, err := RecordBlueprint(ctx, lib, rec)
	if err != nil {
		return nil, err
	}
	rec.Blueprint, rec.BlueprintVersion = bp.Name, v
	o := &Opened{Record: rec, Blueprint: bp}
	if rec.Template == "" {
		return o, nil
	}
	o.Template, v, err = lib.Template(ctx, rec.Template, rec.TemplateVersion)
	if err != nil {
		return nil, err
	}
	rec.TemplateVersion = v
	return o, nil
}
