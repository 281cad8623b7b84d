package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/interviews"
)

// designsCommands are the subcommands of viva designs: the design library
// of the configured store, which every worker and web app sharing it uses.
var designsCommands = []command{
	{"add", "add a blueprint (.yaml) or role template (.md) file, or a new version of it: FILE [--name NAME] [--as WHO]", runDesignsAdd},
	{"list", "list the designs new interviews may use, built-in and installed: [--kind blueprint|template]", runDesignsList},
	{"show", "describe a design and its versions: NAME [--kind KIND] [--version V]", runDesignsShow},
	{"remove", "hide a design from new interviews (running and past ones keep it): NAME [--kind KIND]", runDesignsRemove},
	{"export", "write a design's text, built-in ones too, to copy from: NAME [--kind KIND] [--version V] [--out FILE]", runDesignsExport},
}

// runDesigns manages the design library.
func runDesigns(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "designs", designsCommands, args, stdin, stdout, stderr)
}

// designFlags are the flags the designs subcommands share.
type designFlags struct {
	name, kind, version *string
	cfg                 *config.Config
}

// parseDesignFlags reads a subcommand's first argument (the name, or
// for add the file) and its flags; more adds the subcommand's own.
func parseDesignFlags(name string, args []string, stderr io.Writer, more func(*flag.FlagSet)) (designFlags, string, error) {
	var f designFlags
	var positional string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		positional, args = args[0], args[1:]
	}
	cfg, err := loadConfig("designs "+name, args, stderr, func(fs *flag.FlagSet) {
		f.name = fs.String("name", "", "the design's name (default: the first argument)")
		f.kind = fs.String("kind", "", "blueprint or template, when the name has both")
		f.version = fs.String("version", "", "a version (the hash viva designs show lists; default the current one)")
		if more != nil {
			more(fs)
		}
	})
	if err != nil {
		return f, "", err
	}
	f.cfg = cfg
	if *f.kind != "" && !interviews.DesignKind(*f.kind).Valid() {
		return f, "", cli.UsageError("--kind %q: use blueprint or template", *f.kind)
	}
	return f, positional, nil
}

// withLibrary opens the configured store and runs use with its library.
func withLibrary(ctx context.Context, cfg *config.Config, stderr io.Writer, use func(store interviews.Store, lib interviews.Library) error) error {
	store, err := openStore(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	if err != nil {
		return err
	}
	defer closeStore(store)
	return use(store, interviews.Library{Store: store})
}

func runDesignsAdd(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var as *string
	f, file, err := parseDesignFlags("add", args, stderr, func(fs *flag.FlagSet) {
		as = fs.String("as", interviews.AuditSystem, "who adds it, as the library names them (such as your email)")
	})
	if err != nil {
		return err
	}
	if file == "" {
		return cli.UsageError("name the file to add: viva designs add backend.yaml (a blueprint) or backend.md (a role template)")
	}
	kind := interviews.KindOfFile(file)
	if kind == "" {
		return cli.UsageError("%s: a design is a blueprint (.yaml, .yml) or a role template (.md)", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the design: %w", err)
	}
	name := *f.name
	if name == "" {
		base := filepath.Base(file)
		name = strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	d := interviews.Design{Kind: kind, Name: name, Content: string(data), AddedBy: interviews.CleanLine(*as)}
	return withLibrary(ctx, f.cfg, stderr, func(store interviews.Store, _ interviews.Library) error {
		if err := store.AddDesign(ctx, &d); err != nil {
			return fmt.Errorf("%s was not added: %w", file, err)
		}
		fmt.Fprintf(stdout, "%s %s is at version %s (added %s by %s)\n", d.Kind, d.Name, d.Version,
			d.AddedAt.Format(time.RFC3339), orDash(d.AddedBy))
		return nil
	})
}

func runDesignsList(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f, extra, err := parseDesignFlags("list", args, stderr, nil)
	if err != nil {
		return err
	}
	if extra != "" {
		return cli.UsageError("takes no name: viva designs list [--kind blueprint|template]")
	}
	return withLibrary(ctx, f.cfg, stderr, func(_ interviews.Store, lib interviews.Library) error {
		p := &errWriter{w: stdout}
		p.printf("%-10s %-24s %-10s %-26s %s\n", "KIND", "NAME", "VERSION", "ADDED", "TITLE")
		for _, k := range interviews.DesignKinds {
			if *f.kind != "" && k != interviews.DesignKind(*f.kind) {
				continue
			}
			list, err := lib.Choices(ctx, k)
			if err != nil {
				return err
			}
			for _, c := range list {
				added := "built in"
				if d, err := lib.Design(ctx, k, c.Name, c.Version); err == nil && !d.Builtin() {
					added = d.AddedAt.Format("2006-01-02 15:04") + " " + orDash(d.AddedBy)
				}
				p.printf("%-10s %-24s %-10s %-26s %s\n", k, c.Name, interviews.ShortVersion(c.Version), added, c.Title)
			}
		}
		return p.err
	})
}

func runDesignsShow(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f, name, err := parseDesignFlags("show", args, stderr, nil)
	if err != nil {
		return err
	}
	if name = firstOf(*f.name, name); name == "" {
		return cli.UsageError("name the design: viva designs show backend")
	}
	return withLibrary(ctx, f.cfg, stderr, func(store interviews.Store, lib interviews.Library) error {
		d, err := lib.Find(ctx, interviews.DesignKind(*f.kind), name, *f.version)
		if errors.Is(err, interviews.ErrDesignNotFound) && *f.version == "" {
			d, err = removedDesign(ctx, store, interviews.DesignKind(*f.kind), name, err)
		}
		if err != nil {
			return err
		}
		pv, err := interviews.PreviewDesign(d)
		if err != nil {
			return fmt.Errorf("%s %s version %s no longer reads: %w", d.Kind, d.Name, d.ShortVersion(), err)
		}
		p := &errWriter{w: stdout}
		printPreview(p, pv)
		if !d.Builtin() {
			vs, err := store.DesignVersions(ctx, d.Kind, d.Name)
			if err != nil {
				return err
			}
			printVersions(p, vs)
		}
		return p.err
	})
}

// removedDesign returns the newest version of a removed design called
// name, or notFound when there is none.
func removedDesign(ctx context.Context, store interviews.Store, kind interviews.DesignKind, name string, notFound error) (*interviews.Design, error) {
	for _, k := range interviews.DesignKinds {
		if kind != "" && k != kind {
			continue
		}
		if vs, err := store.DesignVersions(ctx, k, name); err == nil && len(vs) > 0 {
			return &vs[0], nil
		}
	}
	return nil, notFound
}

func runDesignsRemove(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f, name, err := parseDesignFlags("remove", args, stderr, nil)
	if err != nil {
		return err
	}
	if name = firstOf(*f.name, name); name == "" {
		return cli.UsageError("name the design: viva designs remove backend")
	}
	return withLibrary(ctx, f.cfg, stderr, func(store interviews.Store, lib interviews.Library) error {
		d, err := lib.Find(ctx, interviews.DesignKind(*f.kind), name, "")
		if err != nil {
			return err
		}
		if d.Builtin() {
			return fmt.Errorf("%s %s is built in and cannot be removed", d.Kind, d.Name)
		}
		if err := store.RemoveDesign(ctx, d.Kind, d.Name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s %s: new interviews cannot choose it; interviews that use it keep it\n", d.Kind, d.Name)
		return nil
	})
}

func runDesignsExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var out *string
	f, name, err := parseDesignFlags("export", args, stderr, func(fs *flag.FlagSet) {
		out = fs.String("out", "", "the file to write (default: standard output)")
	})
	if err != nil {
		return err
	}
	if name = firstOf(*f.name, name); name == "" {
		return cli.UsageError("name the design: viva designs export default --out my-plan.yaml")
	}
	return withLibrary(ctx, f.cfg, stderr, func(_ interviews.Store, lib interviews.Library) error {
		d, err := lib.Find(ctx, interviews.DesignKind(*f.kind), name, *f.version)
		if err != nil {
			return err
		}
		if *out == "" {
			_, err := io.WriteString(stdout, d.Content)
			return err
		}
		if err := os.WriteFile(*out, []byte(d.Content), 0o640); err != nil {
			return fmt.Errorf("writing the design: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s %s version %s to %s\n", d.Kind, d.Name, d.ShortVersion(), *out)
		return nil
	})
}

// printPreview writes a design's preview as text.
func printPreview(p *errWriter, pv interviews.Preview) {
	p.printf("%s %s (version %s): %s\n", pv.Kind, pv.Name, interviews.ShortVersion(pv.Version), pv.Title)
	if pv.Description != "" {
		p.printf("  %s\n", pv.Description)
	}
	for i, st := range pv.Stages {
		p.printf("\n%d. %s (%s): up to %s", i+1, st.Title, st.Name, st.Limit)
		if st.MinTime > 0 || st.MinQuestions > 0 {
			p.printf(", at least %s and %d questions", st.MinTime, st.MinQuestions)
		}
		if st.Guided {
			p.printf(", asks the role template's questions")
		}
		p.printf("\n")
		for _, q := range st.Questions {
			p.printf("   - %s\n", q)
		}
	}
	if pv.Kind == interviews.KindBlueprint {
		p.printf("\nExpected length: %s. Candidate feedback page: %s.\n", pv.Length, yesNo(pv.Feedback, pv.FeedbackScores))
	}
	for _, r := range pv.Rubric {
		p.printf("Rubric: %s (required: %t) %s\n", r.Label, r.Required, r.Question)
	}
	for _, c := range pv.Categories {
		p.printf("\n## %s\n", c.Name)
		for _, q := range c.Questions {
			p.printf("   - %s\n", q.Text)
		}
	}
}

// printVersions writes a design's versions, newest first.
func printVersions(p *errWriter, vs []interviews.Design) {
	p.printf("\nVersions (newest first):\n")
	for _, v := range vs {
		mark := " "
		if v.Current {
			mark = "*"
		}
		p.printf(" %s %s  %s  %s\n", mark, v.Version, v.AddedAt.Format(time.RFC3339), orDash(v.AddedBy))
	}
	if len(vs) > 0 && vs[0].RemovedAt != nil {
		p.printf("Removed %s: new interviews cannot choose it.\n", vs[0].RemovedAt.Format(time.RFC3339))
	}
}

func yesNo(page, scores bool) string {
	switch {
	case page && scores:
		return "yes, with scores"
	case page:
		return "yes, without scores"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
