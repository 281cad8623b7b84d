package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/web"
)

// TestBlueprintsLists: viva blueprints lists every installed blueprint
// with its title, stages and description, and every role template with
// its title, categories and number of questions.
func TestBlueprintsLists(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"blueprints"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := out.String()
	for _, name := range stages.BuiltinNames() {
		b, _ := stages.Builtin(name)
		for _, want := range []string{"  " + name + " ", b.Title, strings.Join(b.Path(), " → "), b.Description} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	}
	for _, want := range []string{"default", "system-design", "knowledge-capture", "fullstack-senior",
		"Senior full-stack engineer, 12 questions", "categories: Frontend, APIs and backend, Data and storage",
		"problems (--problem ID): ticketing, ride-hailing, chat, url-shortener, notifications",
		"  customer-success-manager  Customer success manager, 10 questions"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	var usage bytes.Buffer
	run(context.Background(), nil, strings.NewReader(""), &usage, &errOut)
	if !strings.Contains(usage.String(), "blueprints") {
		t.Errorf("viva's usage does not list the blueprints command:\n%s", usage.String())
	}
}

func TestBlueprintsUsageError(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"blueprints", "extra"}, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "takes no arguments") {
		t.Errorf("exit %d, stderr %q; want 2 and a usage error", code, errOut.String())
	}
	if code := run(context.Background(), []string{"blueprints", "-h"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Errorf("-h exit %d", code)
	}
}

// TestInstalledTemplatesOffered: the web form is offered every shipped
// role template, with its title.
func TestInstalledTemplatesOffered(t *testing.T) {
	got, err := installedTemplates()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(got, func(c web.TemplateChoice) bool { return c.Name == "fullstack-senior" })
	if len(got) != len(stages.TemplateNames()) || i < 0 || got[i].Title != "Senior full-stack engineer" {
		t.Errorf("installedTemplates() = %+v", got)
	}
}
