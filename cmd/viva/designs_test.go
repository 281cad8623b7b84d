package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// TestDesignsCommands: an operator copies a built-in blueprint, adds a
// broken one (refused with the line), adds and edits their own, lists,
// shows and removes it; every version stays in the store.
func TestDesignsCommands(t *testing.T) {
	dir := t.TempDir()
	viva := vivaIn(dir)
	file := func(name, content string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	copyTo := filepath.Join(t.TempDir(), "copy.yaml")
	if code, out, errs := viva("", "designs", "export", "default", "--out", copyTo); code != 0 || !strings.Contains(out, "wrote blueprint default") {
		t.Fatalf("export default: %d %s %s", code, out, errs)
	}
	if data, err := os.ReadFile(copyTo); err != nil || !strings.Contains(string(data), "name: default") {
		t.Fatalf("exported %q, %v", data, err)
	}
	broken := file("broken.yaml", "name: broken\nstages:\n  - name: a\n    limit: forever\n")
	if code, _, errs := viva("", "designs", "add", broken); code != 1 || !strings.Contains(errs, "broken.yaml:4:") {
		t.Fatalf("add broken: %d %s", code, errs)
	}
	if code, _, errs := viva("", "designs", "add", file("notes.txt", "x")); code != 2 || !strings.Contains(errs, ".yaml") {
		t.Fatalf("add a .txt: %d %s", code, errs)
	}

	plan := file("billing.yaml", storetest.BlueprintYAML("billing", "What did you ship?"))
	code, out, errs := viva("", "designs", "add", plan, "--as", "ada@example.com")
	if code != 0 || !strings.Contains(out, "blueprint billing is at version") {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	v1 := interviews.DesignVersion(storetest.BlueprintYAML("billing", "What did you ship?"))
	if err := os.WriteFile(plan, []byte(storetest.BlueprintYAML("billing", "What did you ship this year?")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := viva("", "designs", "add", plan); code != 0 {
		t.Fatalf("add v2: %s", errs)
	}
	code, out, _ = viva("", "designs", "list")
	if code != 0 || !strings.Contains(out, "billing") || !strings.Contains(out, "fullstack-senior") || !strings.Contains(out, "built-in") {
		t.Fatalf("list:\n%s", out)
	}
	code, out, _ = viva("", "designs", "show", "billing")
	if code != 0 || !strings.Contains(out, "What did you ship this year?") || !strings.Contains(out, v1) || !strings.Contains(out, "Warm-up (warmup): up to 2m0s") {
		t.Fatalf("show:\n%s", out)
	}
	if code, out, _ = viva("", "designs", "export", "billing", "--version", v1); code != 0 || !strings.Contains(out, "What did you ship?") {
		t.Fatalf("export v1:\n%s", out)
	}
	if code, out, _ = viva("", "designs", "remove", "billing"); code != 0 || !strings.Contains(out, "removed blueprint billing") {
		t.Fatalf("remove: %s", out)
	}
	if code, out, _ = viva("", "designs", "list"); strings.Contains(out, "billing") {
		t.Fatalf("list after remove:\n%s", out)
	}
	if code, _, errs = viva("", "designs", "remove", "default"); code != 1 || !strings.Contains(errs, "built in") {
		t.Fatalf("remove default: %d %s", code, errs)
	}

	store, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := store.Design(t.Context(), interviews.KindBlueprint, "billing", v1); err != nil || d.AddedBy != "ada@example.com" {
		t.Fatalf("version 1 after removal: %+v, %v", d, err)
	}
}
