package interviews

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// DesignKind says what a design is: an interview blueprint (YAML) or a
// role template (markdown).
type DesignKind string

// The kinds of design the library keeps.
const (
	// KindBlueprint is a stages.Blueprint written in YAML (see stages.Parse).
	KindBlueprint DesignKind = "blueprint"
	// KindTemplate is a stages.Template written in markdown (see
	// stages.ParseTemplate).
	KindTemplate DesignKind = "template"
)

// DesignKinds lists the kinds, blueprints first.
var DesignKinds = []DesignKind{KindBlueprint, KindTemplate}

// Valid reports whether k is one of DesignKinds.
func (k DesignKind) Valid() bool { return slices.Contains(DesignKinds, k) }

// Ext is the file extension of k's content: ".yaml" or ".md".
func (k DesignKind) Ext() string {
	if k == KindTemplate {
		return ".md"
	}
	return ".yaml"
}

// KindOfFile says which kind of design a file name holds by its extension
// (.yaml or .yml a blueprint, .md a role template); empty for neither.
func KindOfFile(name string) DesignKind {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return KindBlueprint
	case ".md":
		return KindTemplate
	}
	return ""
}

// BuiltinVersion is the Version of the designs shipped in the binary
// (stages.BuiltinNames, stages.TemplateNames): they change only with viva
// itself.
const BuiltinVersion = "builtin"

// MaxDesignBytes bounds a design's content: the longest shipped design is
// a small fraction of it.
const MaxDesignBytes = 256 << 10

// versionLen is the length of a content hash version: 16 hexadecimal
// digits, 64 bits of SHA-256.
const versionLen = 16

// Design is one version of an interview design in the library: a
// blueprint or a role template, by name. Versions are immutable: adding
// new content under a name makes a new version, and every version stays
// readable for the interviews and records that name it, also once the
// design is removed.
type Design struct {
	// Kind is KindBlueprint or KindTemplate.
	Kind DesignKind `json:"kind"`
	// Name identifies the design within its kind (see ValidDesignName):
	// what the registration form, the API and dispatch metadata name.
	Name string `json:"name"`
	// Version is the content's hash (DesignVersion), or BuiltinVersion.
	Version string `json:"version"`
	// Content is the YAML or markdown text.
	Content string `json:"content"`
	// AddedBy is who added this version (a signed-in user's email, or
	// the operator running viva designs add); empty for built-in designs.
	AddedBy string `json:"added_by,omitempty"`
	// AddedAt is when this version was first added; zero for built-in
	// designs.
	AddedAt time.Time `json:"added_at"`
	// RemovedAt is when the design was removed from the library; nil
	// while new interviews may use it. Set on the versions the store
	// returns, from the design's state, not on the version itself.
	RemovedAt *time.Time `json:"removed_at,omitempty"`
	// Current is true on the version new interviews get (the store sets
	// it when listing versions).
	Current bool `json:"current,omitempty"`
}

// Builtin reports whether d is shipped in the binary.
func (d Design) Builtin() bool { return d.Version == BuiltinVersion }

// ShortVersion is the version as people read it: the first 8 digits of
// the hash, or "built-in".
func (d Design) ShortVersion() string { return ShortVersion(d.Version) }

// ShortVersion shortens a design version for people (see
// Design.ShortVersion).
func ShortVersion(v string) string {
	switch {
	case v == BuiltinVersion:
		return "built-in"
	case len(v) > 8:
		return v[:8]
	}
	return v
}

// Errors of the design library; test with errors.Is.
var (
	// ErrDesignNotFound means the library has no such design (or
	// version), or the design was removed.
	ErrDesignNotFound = errors.New("interviews: no such design in the library")
)

// DesignVersion returns the version of content: the first 16 hexadecimal
// digits of its SHA-256.
func DesignVersion(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])[:versionLen]
}

// ValidDesignVersion reports whether v may be a version: BuiltinVersion
// or 16 lower-case hexadecimal digits.
func ValidDesignVersion(v string) bool {
	if v == BuiltinVersion {
		return true
	}
	if len(v) != versionLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ValidDesignName reports whether name may name a design: the rule of
// interview ids (ValidID: 1 to 64 lower-case letters, digits, '-' and
// '_'). Every design name also names files in the file store, so no path
// ever comes from user input.
func ValidDesignName(name string) bool { return ValidID(name) }

// designNameHelp says what a design name may be, for error messages.
const designNameHelp = "use 1 to 64 lower-case letters, digits, '-' and '_', such as backend-senior"

// IsBuiltinDesign reports whether name is a design of kind shipped in the
// binary.
func IsBuiltinDesign(kind DesignKind, name string) bool {
	if kind == KindTemplate {
		return slices.Contains(stages.TemplateNames(), name)
	}
	return stages.IsBuiltin(name)
}

// Check validates d before it is added to the library: a known kind, a
// valid name that is not a built-in one, content of at most
// MaxDesignBytes that parses (a blueprint's own name, if it gives one,
// must be d.Name). Parse problems are *stages.FieldError values with the
// line numbers, in a file named after the design ("backend.yaml:12:
// …"). Check sets nothing.
func (d *Design) Check() error {
	if !d.Kind.Valid() {
		return fmt.Errorf("interviews: design kind %q is not one of %s", d.Kind, joinKinds())
	}
	if !ValidDesignName(d.Name) {
		return fmt.Errorf("interviews: design name %q is not valid: %s", d.Name, designNameHelp)
	}
	if IsBuiltinDesign(d.Kind, d.Name) {
		return fmt.Errorf("interviews: %q is the name of a built-in %s: add your copy under another name", d.Name, d.Kind)
	}
	if len(d.Content) > MaxDesignBytes {
		return fmt.Errorf("interviews: %s %q is %d bytes, more than %d: shorten it", d.Kind, d.Name, len(d.Content), MaxDesignBytes)
	}
	if strings.TrimSpace(d.Content) == "" {
		return fmt.Errorf("interviews: %s %q is empty", d.Kind, d.Name)
	}
	_, _, err := d.parse()
	return err
}

// parse parses d's content as its kind: exactly one of the results is set
// without an error.
func (d *Design) parse() (*stages.Blueprint, *stages.Template, error) {
	file := d.Name + d.Kind.Ext()
	if d.Kind == KindTemplate {
		t, err := stages.ParseTemplate([]byte(d.Content), file)
		return nil, t, err
	}
	b, err := stages.Parse([]byte(d.Content), file)
	if err != nil {
		return nil, nil, err
	}
	if b.Name != d.Name {
		return nil, nil, &stages.FieldError{File: file, Line: 1, Field: "name",
			Msg: fmt.Sprintf("the blueprint calls itself %q but is added as %q: make them the same, or remove its name line", b.Name, d.Name)}
	}
	return b, nil, nil
}

// Blueprint parses d as a blueprint.
func (d *Design) Blueprint() (*stages.Blueprint, error) {
	if d.Kind != KindBlueprint {
		return nil, fmt.Errorf("interviews: %q is a %s, not a blueprint", d.Name, d.Kind)
	}
	b, _, err := d.parse()
	return b, err
}

// Template parses d as a role template; its Name is d.Name.
func (d *Design) Template() (*stages.Template, error) {
	if d.Kind != KindTemplate {
		return nil, fmt.Errorf("interviews: %q is a %s, not a role template", d.Name, d.Kind)
	}
	_, t, err := d.parse()
	if err != nil {
		return nil, err
	}
	t.Name = d.Name
	return t, nil
}

func joinKinds() string {
	s := make([]string, len(DesignKinds))
	for i, k := range DesignKinds {
		s[i] = string(k)
	}
	return strings.Join(s, " or ")
}

// PrepareAdd gives d what DesignStore.AddDesign assigns before it checks
// and stores a version: its Version from the content, and now as AddedAt
// when that is zero. Stores call it.
func (d *Design) PrepareAdd(now time.Time) {
	d.Version = DesignVersion(d.Content)
	if d.AddedAt.IsZero() {
		d.AddedAt = now.UTC().Round(0).Truncate(time.Microsecond)
	}
	d.RemovedAt, d.Current = nil, false
}

// DesignStore keeps the design library beside the records: the file store
// in the data directory, PostgreSQL in tables, so every worker and web app
// of a deployment sees one library. It holds the installed designs only;
// Library adds the built-in ones.
type DesignStore interface {
	// AddDesign checks d (Design.Check), assigns its Version and AddedAt
	// (PrepareAdd) and makes it the design's current version. Content
	// already stored as a version of the design keeps that version (and
	// its AddedBy and AddedAt, which d then carries) and becomes current
	// again; a removed design is back in the library.
	AddDesign(ctx context.Context, d *Design) error
	// Design returns one version of a design; version "" means the
	// current one. ErrDesignNotFound when there is no such version, or
	// when version is "" and the design was removed. A named version is
	// returned also after removal, with RemovedAt set.
	Design(ctx context.Context, kind DesignKind, name, version string) (*Design, error)
	// Designs returns the current version of every design of kind that
	// is not removed, by name.
	Designs(ctx context.Context, kind DesignKind) ([]Design, error)
	// DesignVersions returns every version of a design, newest first,
	// the current one marked; ErrDesignNotFound when it has none.
	DesignVersions(ctx context.Context, kind DesignKind, name string) ([]Design, error)
	// RemoveDesign hides a design from new interviews; its versions stay
	// readable. ErrDesignNotFound when it is not in the library.
	RemoveDesign(ctx context.Context, kind DesignKind, name string) error
}

// CheckDesignKey checks a kind, name and version asked of a store, so no
// store reads a file or row from anything else; version may be empty.
func CheckDesignKey(kind DesignKind, name, version string) error {
	switch {
	case !kind.Valid():
		return fmt.Errorf("interviews: design kind %q is not one of %s: %w", kind, joinKinds(), ErrDesignNotFound)
	case !ValidDesignName(name):
		return fmt.Errorf("interviews: %s name is not valid (%s): %w", kind, designNameHelp, ErrDesignNotFound)
	case version != "" && (version == BuiltinVersion || !ValidDesignVersion(version)):
		return fmt.Errorf("interviews: %s %q: the version asked for is not a version of an installed design (16 hexadecimal digits): %w", kind, name, ErrDesignNotFound)
	}
	return nil
}
