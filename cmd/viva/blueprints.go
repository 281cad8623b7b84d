package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"errors"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/stages"
)

// runBlueprints lists the blueprints and role templates installed in this
// binary: what --blueprint and --template accept by name, and what
// dispatch metadata and the web form may name.
func runBlueprints(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("viva blueprints")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: viva blueprints\n\nLists the installed interview blueprints and role templates.")
			return err
		}
		return cli.FlagError("viva blueprints", err)
	}
	if fs.NArg() > 0 {
		return cli.UsageError("takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	return listInstalled(stdout)
}

// listInstalled writes the installed blueprints (name, title, stages,
// problems, description) and role templates (name, title, categories, number of
// questions).
func listInstalled(w io.Writer) error {
	const indent = "                            "
	p := &errWriter{w: w}
	p.printf("Blueprints (viva chat --blueprint NAME, or a YAML file):\n")
	for _, name := range stages.BuiltinNames() {
		b, err := stages.Builtin(name)
		if err != nil {
			return err
		}
		p.printf("  %-25s %s\n", name, b.Title)
		p.printf("%sstages: %s\n", indent, strings.Join(b.Path(), " → "))
		if len(b.Problems) > 0 {
			p.printf("%sproblems (--problem ID): %s\n", indent, strings.Join(b.ProblemIDs(), ", "))
		}
		if b.Description != "" {
			p.printf("%s%s\n", indent, b.Description)
		}
	}
	p.printf("\nRole templates (viva chat --template NAME, or a markdown file):\n")
	for _, name := range stages.TemplateNames() {
		t, err := stages.BuiltinTemplate(name)
		if err != nil {
			return err
		}
		p.printf("  %-25s %s, %d questions\n", name, t.Title, len(t.Questions))
		p.printf("%scategories: %s\n", indent, strings.Join(t.Categories(), ", "))
	}
	return p.err
}

// errWriter writes until the first error and keeps it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
