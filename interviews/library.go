package interviews

import (
	"context"
	"errors"
	"fmt"

	"github.com/viva-interviews/viva/stages"
)

// Library is the design library as interviews use it: the designs
// shipped in the binary (version BuiltinVersion) beside those installed in
// a DesignStore. Names come from forms, the API, dispatch metadata and
// records, so a Library never reads a file: a name is a built-in design's
// or a row of the store, or it is refused.
type Library struct {
	// Store keeps the installed designs; nil has the built-in ones only.
	Store DesignStore
}

// Builtin returns the built-in design of kind called name, with its
// content (to copy from); ErrDesignNotFound when there is none.
func (l Library) Builtin(kind DesignKind, name string) (*Design, error) {
	if !IsBuiltinDesign(kind, name) {
		return nil, fmt.Errorf("interviews: no built-in %s %q: %w", kind, name, ErrDesignNotFound)
	}
	src := stages.BuiltinSource
	if kind == KindTemplate {
		src = stages.BuiltinTemplateSource
	}
	data, err := src(name)
	if err != nil {
		return nil, err
	}
	return &Design{Kind: kind, Name: name, Version: BuiltinVersion, Content: string(data)}, nil
}

// Design returns a design by kind, name and version ("" for the current
// one, BuiltinVersion or "" for a built-in one). ErrDesignNotFound when
// the library has no such design or version; the error does not repeat a
// name that is not a valid one.
func (l Library) Design(ctx context.Context, kind DesignKind, name, version string) (*Design, error) {
	if IsBuiltinDesign(kind, name) {
		if version != "" && version != BuiltinVersion {
			return nil, fmt.Errorf("interviews: %s %q is built in and has no version %s: %w", kind, name, ShortVersion(version), ErrDesignNotFound)
		}
		return l.Builtin(kind, name)
	}
	if err := CheckDesignKey(kind, name, version); err != nil {
		return nil, err
	}
	if l.Store == nil {
		return nil, fmt.Errorf("interviews: no %s %q is installed: %w", kind, name, ErrDesignNotFound)
	}
	return l.Store.Design(ctx, kind, name, version)
}

// List returns the designs of kind new interviews may use: the built-in
// ones first, then the installed ones by name.
func (l Library) List(ctx context.Context, kind DesignKind) ([]Design, error) {
	names := stages.BuiltinNames()
	if kind == KindTemplate {
		names = stages.TemplateNames()
	}
	var out []Design
	for _, n := range names {
		d, err := l.Builtin(kind, n)
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	if l.Store == nil {
		return out, nil
	}
	installed, err := l.Store.Designs(ctx, kind)
	if err != nil {
		return nil, err
	}
	return append(out, installed...), nil
}

// Blueprint returns the blueprint called name at version ("" for the
// current one) and the version it is.
func (l Library) Blueprint(ctx context.Context, name, version string) (*stages.Blueprint, string, error) {
	d, err := l.Design(ctx, KindBlueprint, name, version)
	if err != nil {
		return nil, "", err
	}
	if d.Builtin() {
		b, err := stages.Builtin(name)
		return b, BuiltinVersion, err
	}
	b, err := d.Blueprint()
	if err != nil {
		return nil, "", fmt.Errorf("interviews: blueprint %q version %s: %w", name, d.ShortVersion(), err)
	}
	return b, d.Version, nil
}

// Template returns the role template called name at version ("" for the
// current one) and the version it is.
func (l Library) Template(ctx context.Context, name, version string) (*stages.Template, string, error) {
	d, err := l.Design(ctx, KindTemplate, name, version)
	if err != nil {
		return nil, "", err
	}
	t, err := d.Template()
	if err != nil {
		return nil, "", fmt.Errorf("interviews: role template %q version %s: %w", name, d.ShortVersion(), err)
	}
	return t, d.Version, nil
}

// Choice is a design as a form offers it: its name, title and current
// version, and for a blueprint why it takes no role template (empty when
// it does).
type Choice struct {
	Name, Title, Version string
	// NoTemplate is stages.Blueprint.TakesTemplate's refusal, for a
	// blueprint that asks no template's questions.
	NoTemplate string
}

// Choices lists the designs of kind new interviews may use, as a form
// offers them. A design that no longer parses (a newer viva refusing an
// old one) is left out rather than failing the list.
func (l Library) Choices(ctx context.Context, kind DesignKind) ([]Choice, error) {
	list, err := l.List(ctx, kind)
	if err != nil {
		return nil, err
	}
	out := make([]Choice, 0, len(list))
	for _, d := range list {
		c := Choice{Name: d.Name, Version: d.Version}
		if kind == KindTemplate {
			t, err := d.Template()
			if err != nil {
				continue
			}
			c.Title = t.Title
		} else {
			b, _, err := l.Blueprint(ctx, d.Name, d.Version)
			if err != nil {
				continue
			}
			c.Title = b.Title
			if err := b.TakesTemplate(); err != nil {
				c.NoTemplate = err.Error()
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// Find returns a design by name and version ("" for the current one), of
// kind or, when kind is empty, of whichever kind has it: a name that both
// kinds have needs its kind.
func (l Library) Find(ctx context.Context, kind DesignKind, name, version string) (*Design, error) {
	if kind != "" {
		return l.Design(ctx, kind, name, version)
	}
	var found []*Design
	for _, k := range DesignKinds {
		d, err := l.Design(ctx, k, name, version)
		switch {
		case err == nil:
			found = append(found, d)
		case !errors.Is(err, ErrDesignNotFound):
			return nil, err
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("interviews: no blueprint or role template %q in the library: %w", name, ErrDesignNotFound)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("interviews: both a blueprint and a role template are called %q: say which (kind %s or %s)", name, KindBlueprint, KindTemplate)
}
