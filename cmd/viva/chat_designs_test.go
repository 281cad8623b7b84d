package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/engines"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/interviews/storetest"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

// chatQuestion is the question of the blueprint the chat tests install.
const chatQuestion = "Which release of the billing service did you ship last?"

// addDesign installs a design of kind called name in store.
func addDesign(t *testing.T, store interviews.DesignStore, kind interviews.DesignKind, name, content string) *interviews.Design {
	t.Helper()
	d := &interviews.Design{Kind: kind, Name: name, Content: content, AddedBy: "admin@example.com"}
	if err := store.AddDesign(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestChatLibraryDesignFromDataDir: viva chat runs a blueprint installed
// in the data directory's library by name, asking its question, and the
// record names its version; an older version runs by NAME@VERSION.
func TestChatLibraryDesignFromDataDir(t *testing.T) {
	t.Setenv("VIVA_DATABASE_URL", "")
	dir := t.TempDir()
	store, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v1 := addDesign(t, store, interviews.KindBlueprint, "billing", storetest.BlueprintYAML("billing", chatQuestion))
	addDesign(t, store, interviews.KindBlueprint, "billing", storetest.BlueprintYAML("billing", "What did you learn from the last outage?"))

	out := runChatIn(t, dir, pipedAnswers[:1], 50*time.Millisecond, "--blueprint", "billing@"+v1.Version)
	if !strings.Contains(out, chatQuestion) {
		t.Errorf("the interviewer did not ask the installed version's question:\n%s", out)
	}
	rec := onlyRecord(t, dir)
	if rec.Blueprint != "billing" || rec.BlueprintVersion != v1.Version {
		t.Errorf("the record names %s@%s, want billing@%s", rec.Blueprint, rec.BlueprintVersion, v1.Version)
	}
}

// TestChatLibraryTemplateFromPostgres: with VIVA_DATABASE_URL set, viva
// chat takes a role template installed in PostgreSQL's library, and the
// record, saved there, names its version.
func TestChatLibraryTemplateFromPostgres(t *testing.T) {
	dbURL := pgtest.Database(t)
	t.Setenv("VIVA_DATABASE_URL", dbURL)
	store, err := postgres.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	tpl := addDesign(t, store, interviews.KindTemplate, "payments", storetest.TemplateMarkdown("Payments engineer", "How would you plan the ledger's migration?"))

	runChatIn(t, t.TempDir(), pipedAnswers[:1], 50*time.Millisecond, "--template", "payments")
	page, err := store.List(t.Context(), interviews.ListOptions{})
	if err != nil || page.Total != 1 {
		t.Fatalf("%d records in PostgreSQL (%v), want 1", page.Total, err)
	}
	rec, err := store.Get(t.Context(), page.Items[0].ID)
	if err != nil || rec.Template != "payments" || rec.TemplateVersion != tpl.Version {
		t.Errorf("the record names template %s@%s (%v), want payments@%s", rec.Template, rec.TemplateVersion, err, tpl.Version)
	}
}

// TestChatDesignAndLanguageErrors: a design in neither the built-in ones,
// the library nor a file is refused naming the choices; a version the
// design lacks names its versions; the offline engines refuse another
// language than English, asked for or the blueprint's, with the message
// registration gives.
func TestChatDesignAndLanguageErrors(t *testing.T) {
	t.Setenv("VIVA_DATABASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("VIVA_LLM", "")
	dir := t.TempDir()
	store, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := addDesign(t, store, interviews.KindBlueprint, "billing", storetest.BlueprintYAML("billing", chatQuestion))
	addDesign(t, store, interviews.KindBlueprint, "spanish", strings.Replace(storetest.BlueprintYAML("spanish", chatQuestion), "stages:", "language: es\nstages:", 1))
	offline := engines.CheckLanguage(config.Default(), "es", interviews.Keys{}).Error()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--blueprint", "nope"}, `--blueprint "nope" is neither a built-in blueprint, a blueprint of the library nor a readable file: choose one of default, knowledge-capture, system-design, billing, spanish, or give a YAML file`},
		{[]string{"--blueprint", "billing@0123456789abcdef"}, `--blueprint blueprint billing has no version "0123456789abcdef" in the library: choose one of ` + v.Version},
		{[]string{"--language", "fr"}, "--language: "},
		{[]string{"--language", "es"}, "--language es: " + offline},
		{[]string{"--blueprint", "spanish"}, "--language es: " + offline},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"chat", "--name", "Ada", "--data-dir", dir}, tc.args...)
		code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	if page, _ := store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Errorf("refused chats made %d records", page.Total)
	}
}
