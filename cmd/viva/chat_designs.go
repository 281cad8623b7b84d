package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/agent/engines"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// flagLanguage is viva chat's flag choosing the interview's language.
const flagLanguage = "language"

// chatDesigns finds the designs viva chat's flags name: a built-in one,
// a file of the operator's, or a design of the library of the configured
// store (the file store's data directory or PostgreSQL), by NAME or
// NAME@VERSION. Files are for the operator's own flags only, never for
// names from dispatch metadata or records (see interviews.Library).
type chatDesigns struct{ lib interviews.Library }

// blueprint returns the blueprint arg names and the library version it
// is ("" for a built-in one or a file).
func (c chatDesigns) blueprint(ctx context.Context, arg string) (*stages.Blueprint, string, error) {
	if stages.IsBuiltin(arg) {
		bp, err := stages.Builtin(arg)
		return bp, "", err
	}
	if isFile(arg) {
		bp, err := stages.Load(arg)
		return bp, "", err
	}
	return fromLibrary(ctx, c, interviews.KindBlueprint, arg, "a YAML file", c.lib.Blueprint)
}

// template returns the role template arg names and the library version
// it is ("" for a built-in one or a file).
func (c chatDesigns) template(ctx context.Context, arg string) (*stages.Template, string, error) {
	if slices.Contains(stages.TemplateNames(), strings.ToLower(strings.TrimSpace(arg))) || isFile(arg) {
		t, err := stages.FindTemplate(arg)
		if err != nil {
			return nil, "", errors.New(strings.TrimPrefix(err.Error(), "stages: "))
		}
		return t, "", nil
	}
	return fromLibrary(ctx, c, interviews.KindTemplate, arg, "a .md file", c.lib.Template)
}

// fromLibrary reads the design of kind arg names (NAME or NAME@VERSION)
// with get, one of the library's readers; a design not in the library is
// refused saying what may be chosen instead (file says which file).
func fromLibrary[T any](ctx context.Context, c chatDesigns, kind interviews.DesignKind, arg, file string,
	get func(ctx context.Context, name, version string) (T, string, error)) (T, string, error) {
	name, version, _ := strings.Cut(arg, "@")
	d, v, err := get(ctx, name, version)
	if errors.Is(err, interviews.ErrDesignNotFound) {
		return d, "", c.notFound(ctx, kind, arg, file)
	}
	return d, v, err
}

// notFound says that arg names no design of kind and what may be chosen:
// the versions of the design when only the version is wrong, else the
// designs of the library (built-in and installed) or a file.
func (c chatDesigns) notFound(ctx context.Context, kind interviews.DesignKind, arg, file string) error {
	what := map[interviews.DesignKind]string{interviews.KindBlueprint: "blueprint", interviews.KindTemplate: "role template"}[kind]
	name, version, _ := strings.Cut(arg, "@")
	if version != "" && c.lib.Store != nil && interviews.ValidDesignName(name) {
		if vs, err := c.lib.Store.DesignVersions(ctx, kind, name); err == nil {
			short := make([]string, len(vs))
			for i, v := range vs {
				short[i] = v.Version
			}
			return fmt.Errorf("%s %s has no version %q in the library: choose one of %s, or leave the version out for the current one",
				what, name, version, strings.Join(short, ", "))
		}
	}
	var names []string
	if list, err := c.lib.List(ctx, kind); err == nil {
		for _, d := range list {
			names = append(names, d.Name)
		}
	}
	return fmt.Errorf("%q is neither a built-in %s, a %s of the library nor a readable file: choose one of %s, or give %s",
		arg, what, what, strings.Join(names, ", "), file)
}

// isFile reports whether path names a file (not a directory).
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// designs reads the blueprint (bpArg), role template, design problem and
// language the flags name into rec and returns the blueprint and the
// template (nil when none). The language is the flag's, else the
// blueprint's; engines that cannot speak it (the offline ones speak
// English only) are refused with the web app's registration message.
// Every error is a usage error naming the flag.
func (in chatInputs) designs(ctx context.Context, cfg *config.Config, lib chatDesigns, rec *interviews.Record, bpArg string) (*stages.Blueprint, *stages.Template, error) {
	bp, version, err := lib.blueprint(ctx, bpArg)
	if err != nil {
		return nil, nil, cli.UsageError("--blueprint %v", err)
	}
	rec.Blueprint, rec.BlueprintVersion = bp.Name, version
	if version != "" {
		rec.Blueprint, _, _ = strings.Cut(bpArg, "@")
	}
	var tpl *stages.Template
	if *in.template != "" {
		t, version, err := lib.template(ctx, *in.template)
		if err != nil {
			return nil, nil, cli.UsageError("--%s: %v", flagTemplate, err)
		}
		if err := bp.TakesTemplate(); err != nil {
			return nil, nil, cli.UsageError("--%s %s: %v", flagTemplate, *in.template, err)
		}
		tpl, rec.Template, rec.TemplateVersion = t, t.Name, version
	}
	if *in.problem != "" {
		p, err := bp.FindProblem(*in.problem)
		if err != nil {
			return nil, nil, cli.UsageError("--%s %s: %v", flagProblem, *in.problem, err)
		}
		rec.Problem = p.ID
	}
	tag, err := lang.Parse(*in.language)
	if err != nil {
		return nil, nil, cli.UsageError("--%s: %v", flagLanguage, err)
	}
	rec.Language = tag
	if tag == "" {
		tag, _ = lang.Parse(bp.Language)
	}
	if err := engines.CheckLanguage(cfg, tag, interviews.Keys{}); err != nil {
		return nil, nil, cli.UsageError("--%s %s: %v", flagLanguage, tag, err)
	}
	return bp, tpl, nil
}
