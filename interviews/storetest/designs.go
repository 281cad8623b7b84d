package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// BlueprintYAML returns a small valid blueprint called name whose only
// question is question: tests install it to see their design, and no
// built-in one, run.
func BlueprintYAML(name, question string) string {
	return fmt.Sprintf(`name: %s
title: Test design %s
stages:
  - name: warmup
    title: Warm-up
    instructions: |
      Greet {{.Name}} and ask the question.
    limit: 2m
    questions:
      - %q
  - name: wrapup
    title: Wrap-up
    instructions: Thank {{.Name}} and say goodbye.
    limit: 1m
`, name, name, question)
}

// TemplateMarkdown returns a small valid role template whose one
// question is question.
func TemplateMarkdown(title, question string) string {
	return fmt.Sprintf(`# %s

## Delivery

### Question
%s

### What this assesses
- planning, estimation

### Expected answer (in general)
Splits the work, names the risks first.
`, title, question)
}

// RunDesigns runs the design library's part of the contract
// (interviews.DesignStore) on fresh backends, as Run does the records'.
func RunDesigns(t *testing.T, newBackend func(t *testing.T) Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"AddGetList", testDesignAdd},
		{"RefusesBadDesignsSavingNothing", testDesignRefusals},
		{"VersionsAreImmutable", testDesignVersions},
		{"RemoveHidesButKeepsVersions", testDesignRemove},
		{"NamesNeverPaths", testDesignKeys},
		{"ConcurrentAdds", testDesignConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newBackend(t)) })
	}
}

func add(t *testing.T, s interviews.DesignStore, kind interviews.DesignKind, name, content, by string) interviews.Design {
	t.Helper()
	d := interviews.Design{Kind: kind, Name: name, Content: content, AddedBy: by}
	if err := s.AddDesign(t.Context(), &d); err != nil {
		t.Fatalf("AddDesign %s %s: %v", kind, name, err)
	}
	return d
}

func testDesignAdd(t *testing.T, open Opener) {
	s := open(Options{})
	bp := add(t, s, interviews.KindBlueprint, "backend", BlueprintYAML("backend", "What did you ship last?"), "ada@example.com")
	if bp.Version != interviews.DesignVersion(bp.Content) || !bp.Current || bp.AddedAt.IsZero() {
		t.Fatalf("AddDesign assigned %+v", bp)
	}
	tpl := add(t, s, interviews.KindTemplate, "backend", TemplateMarkdown("Backend", "How do you plan a migration?"), "ada@example.com")

	other := open(Options{}) // another process
	got, err := other.Design(t.Context(), interviews.KindBlueprint, "backend", "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != bp.Content || got.Version != bp.Version || got.AddedBy != "ada@example.com" || !got.AddedAt.Equal(bp.AddedAt) || !got.Current || got.RemovedAt != nil {
		t.Fatalf("Design = %+v, want %+v", got, bp)
	}
	b, err := got.Blueprint()
	if err != nil || b.Name != "backend" || b.Stages[0].Questions[0].Text != "What did you ship last?" {
		t.Fatalf("stored blueprint = %+v, %v", b, err)
	}
	gt, err := other.Design(t.Context(), interviews.KindTemplate, "backend", tpl.Version)
	if err != nil || gt.Kind != interviews.KindTemplate || gt.Content != tpl.Content {
		t.Fatalf("template = %+v, %v", gt, err)
	}
	list, err := other.Designs(t.Context(), interviews.KindBlueprint)
	if err != nil || len(list) != 1 || list[0].Name != "backend" || list[0].Content != bp.Content {
		t.Fatalf("Designs(blueprint) = %+v, %v", list, err)
	}
	add(t, s, interviews.KindBlueprint, "alpha", BlueprintYAML("alpha", "Why?"), "")
	list, _ = other.Designs(t.Context(), interviews.KindBlueprint)
	if len(list) != 2 || list[0].Name != "alpha" || list[1].Name != "backend" {
		t.Fatalf("Designs not by name: %+v", list)
	}
	if _, err := other.Design(t.Context(), interviews.KindBlueprint, "missing", ""); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Fatalf("Design(missing) = %v, want ErrDesignNotFound", err)
	}
}

func testDesignRefusals(t *testing.T, open Opener) {
	s := open(Options{})
	for _, tc := range []struct {
		d    interviews.Design
		want string
	}{
		{interviews.Design{Kind: interviews.KindBlueprint, Name: "broken", Content: "name: broken\nstages:\n  - name: a\n    limit: forever\n"}, "broken.yaml:4:"},
		{interviews.Design{Kind: interviews.KindBlueprint, Name: "other", Content: BlueprintYAML("backend", "Why?")}, `calls itself "backend"`},
		{interviews.Design{Kind: interviews.KindTemplate, Name: "role", Content: "# Role\n\n## A\n\n### What this assesses\n- x\n"}, "role.md:"},
		{interviews.Design{Kind: interviews.KindBlueprint, Name: stages.DefaultName, Content: BlueprintYAML(stages.DefaultName, "Why?")}, "built-in"},
		{interviews.Design{Kind: interviews.KindBlueprint, Name: "../etc", Content: BlueprintYAML("x", "Why?")}, "not valid"},
		{interviews.Design{Kind: "script", Name: "x", Content: "x"}, "kind"},
		{interviews.Design{Kind: interviews.KindTemplate, Name: "big", Content: strings.Repeat("a", interviews.MaxDesignBytes+1)}, "more than"},
	} {
		err := s.AddDesign(t.Context(), &tc.d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddDesign(%s %q) = %v, want an error with %q", tc.d.Kind, tc.d.Name, err, tc.want)
		}
	}
	for _, k := range interviews.DesignKinds {
		if list, err := s.Designs(t.Context(), k); err != nil || len(list) != 0 {
			t.Errorf("refused designs were kept: %+v, %v", list, err)
		}
	}
}

func testDesignVersions(t *testing.T, open Opener) {
	s := open(Options{})
	v1 := interviews.Design{Kind: interviews.KindBlueprint, Name: "backend", Content: BlueprintYAML("backend", "First?"), AddedBy: "ada@example.com", AddedAt: at(0)}
	if err := s.AddDesign(t.Context(), &v1); err != nil {
		t.Fatal(err)
	}
	v2 := interviews.Design{Kind: interviews.KindBlueprint, Name: "backend", Content: BlueprintYAML("backend", "Second?"), AddedBy: "bob@example.com", AddedAt: at(60)}
	if err := s.AddDesign(t.Context(), &v2); err != nil {
		t.Fatal(err)
	}
	if v1.Version == v2.Version {
		t.Fatal("new content kept the old version")
	}
	cur, err := s.Design(t.Context(), interviews.KindBlueprint, "backend", "")
	if err != nil || cur.Version != v2.Version {
		t.Fatalf("current = %+v, %v; want version %s", cur, err, v2.Version)
	}
	old, err := s.Design(t.Context(), interviews.KindBlueprint, "backend", v1.Version)
	if err != nil || old.Content != v1.Content || old.Current || old.AddedBy != "ada@example.com" {
		t.Fatalf("old version = %+v, %v", old, err)
	}
	vs, err := s.DesignVersions(t.Context(), interviews.KindBlueprint, "backend")
	if err != nil || len(vs) != 2 || vs[0].Version != v2.Version || !vs[0].Current || vs[1].Version != v1.Version || vs[1].Current {
		t.Fatalf("DesignVersions = %+v, %v; want v2 (current) then v1", vs, err)
	}

	// The old content again: the old version, as it was added, is current.
	again := interviews.Design{Kind: interviews.KindBlueprint, Name: "backend", Content: v1.Content, AddedBy: "carol@example.com"}
	if err := s.AddDesign(t.Context(), &again); err != nil {
		t.Fatal(err)
	}
	if again.Version != v1.Version || again.AddedBy != "ada@example.com" || !again.AddedAt.Equal(at(0)) {
		t.Fatalf("re-added content = %+v, want version 1 as first added", again)
	}
	cur, _ = s.Design(t.Context(), interviews.KindBlueprint, "backend", "")
	if cur.Version != v1.Version {
		t.Fatalf("current after re-adding = %s, want %s", cur.Version, v1.Version)
	}
	if vs, _ := s.DesignVersions(t.Context(), interviews.KindBlueprint, "backend"); len(vs) != 2 {
		t.Fatalf("re-adding made another version: %+v", vs)
	}
}

func testDesignRemove(t *testing.T, open Opener) {
	s := open(Options{})
	d := add(t, s, interviews.KindTemplate, "sre", TemplateMarkdown("SRE", "How do you run an incident?"), "")
	if err := s.RemoveDesign(t.Context(), interviews.KindTemplate, "sre"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Design(t.Context(), interviews.KindTemplate, "sre", ""); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Fatalf("current of a removed design = %v, want ErrDesignNotFound", err)
	}
	if list, _ := s.Designs(t.Context(), interviews.KindTemplate); len(list) != 0 {
		t.Fatalf("removed design listed: %+v", list)
	}
	got, err := s.Design(t.Context(), interviews.KindTemplate, "sre", d.Version)
	if err != nil || got.Content != d.Content || got.RemovedAt == nil {
		t.Fatalf("a removed design's version = %+v, %v; want it readable, marked removed", got, err)
	}
	if err := s.RemoveDesign(t.Context(), interviews.KindTemplate, "sre"); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Fatalf("second remove = %v, want ErrDesignNotFound", err)
	}
	if err := s.RemoveDesign(t.Context(), interviews.KindTemplate, "never"); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Fatalf("remove of an unknown design = %v, want ErrDesignNotFound", err)
	}
	add(t, s, interviews.KindTemplate, "sre", d.Content, "")
	if got, err := s.Design(t.Context(), interviews.KindTemplate, "sre", ""); err != nil || got.RemovedAt != nil {
		t.Fatalf("added again = %+v, %v; want it back in the library", got, err)
	}
}

func testDesignKeys(t *testing.T, open Opener) {
	s := open(Options{})
	d := add(t, s, interviews.KindBlueprint, "backend", BlueprintYAML("backend", "Why?"), "")
	for _, tc := range []struct {
		kind          interviews.DesignKind
		name, version string
	}{
		{interviews.KindBlueprint, "../backend", ""},
		{interviews.KindBlueprint, "/etc/passwd", ""},
		{interviews.KindBlueprint, "backend", "../../state"},
		{interviews.KindBlueprint, "backend", interviews.BuiltinVersion},
		{interviews.KindBlueprint, "backend", strings.Repeat("0", 16)},
		{interviews.KindTemplate, "backend", ""},
		{"../blueprint", "backend", d.Version},
	} {
		if _, err := s.Design(t.Context(), tc.kind, tc.name, tc.version); !errors.Is(err, interviews.ErrDesignNotFound) {
			t.Errorf("Design(%q, %q, %q) = %v, want ErrDesignNotFound", tc.kind, tc.name, tc.version, err)
		}
	}
	if _, err := s.DesignVersions(t.Context(), interviews.KindBlueprint, "../backend"); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Errorf("DesignVersions(../backend) = %v, want ErrDesignNotFound", err)
	}
	if err := s.RemoveDesign(t.Context(), interviews.KindBlueprint, "../backend"); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Errorf("RemoveDesign(../backend) = %v, want ErrDesignNotFound", err)
	}
}

func testDesignConcurrent(t *testing.T, open Opener) {
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		s := open(Options{})
		wg.Go(func() {
			d := interviews.Design{Kind: interviews.KindBlueprint, Name: "shared", Content: BlueprintYAML("shared", fmt.Sprintf("Question %d?", i))}
			if err := s.AddDesign(t.Context(), &d); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s := open(Options{})
	vs, err := s.DesignVersions(t.Context(), interviews.KindBlueprint, "shared")
	if err != nil || len(vs) != n {
		t.Fatalf("%d concurrent adds left %d versions (%v)", n, len(vs), err)
	}
	cur, err := s.Design(t.Context(), interviews.KindBlueprint, "shared", "")
	if err != nil || !cur.Current {
		t.Fatalf("no current version after concurrent adds: %+v, %v", cur, err)
	}
}
