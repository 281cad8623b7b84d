package storetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// listFixture is the records of the List tests.
func listFixture() []*interviews.Record {
	return []*interviews.Record{
		NewRecord("a1", "Ada Lovelace", "Backend Engineer", interviews.StatusCompleted, at(100)),
		NewRecord("b2", "Alan Turing", "Data Scientist", interviews.StatusCandidateLeft, at(300)),
		NewRecord("c3", "Grace Hopper", "Engineering Manager", interviews.StatusInProgress, at(200)),
		NewRecord("d4", "Linus", "backend engineer", interviews.StatusScheduled, at(400)),
		NewRecord("e5", "Barbara Liskov", "Staff Engineer", interviews.StatusFailed, at(200)), // same time as c3
		NewRecord("f6", "Ada Yonath", "Chemist", interviews.StatusCompleted, at(50)),
	}
}

func ids(p interviews.ListPage) []string {
	out := []string{}
	for _, it := range p.Items {
		out = append(out, it.ID)
	}
	return out
}

func testList(t *testing.T, open Opener) {
	s := open(Options{})
	recs := listFixture()
	// Names and roles with LIKE's wildcards are matched as text.
	recs = append(recs,
		NewRecord("g7", "Per%cent", "R_D", interviews.StatusScheduled, at(10)),
		NewRecord("h8", `Back\slash`, "RxD", interviews.StatusScheduled, at(5)))
	for _, r := range recs {
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{"d4", "b2", "c3", "e5", "a1", "f6", "g7", "h8"}
	tests := []struct {
		name  string
		opts  interviews.ListOptions
		want  []string
		total int
	}{
		{"all newest first, id breaks ties", interviews.ListOptions{}, all, 8},
		{"status", interviews.ListOptions{Status: interviews.StatusCompleted}, []string{"a1", "f6"}, 2},
		{"role substring ignoring case", interviews.ListOptions{Role: "ENGINEER"}, []string{"d4", "c3", "e5", "a1"}, 4},
		{"role and status", interviews.ListOptions{Role: "engineer", Status: interviews.StatusFailed}, []string{"e5"}, 1},
		{"name search", interviews.ListOptions{Query: "ada"}, []string{"a1", "f6"}, 2},
		{"name search inside a word", interviews.ListOptions{Query: "URIN"}, []string{"b2"}, 1},
		{"search matches the name only", interviews.ListOptions{Query: "chemist"}, []string{}, 0},
		{"percent is text", interviews.ListOptions{Query: "%"}, []string{"g7"}, 1},
		{"underscore is text", interviews.ListOptions{Role: "r_d"}, []string{"g7"}, 1},
		{"backslash is text", interviews.ListOptions{Query: `k\s`}, []string{"h8"}, 1},
		{"page 1", interviews.ListOptions{Limit: 2}, []string{"d4", "b2"}, 8},
		{"page 2", interviews.ListOptions{Limit: 2, Offset: 2}, []string{"c3", "e5"}, 8},
		{"last short page", interviews.ListOptions{Limit: 4, Offset: 6}, []string{"g7", "h8"}, 8},
		{"past the end", interviews.ListOptions{Offset: 10}, []string{}, 8},
		{"filtered page", interviews.ListOptions{Role: "engineer", Limit: 2, Offset: 1}, []string{"c3", "e5"}, 4},
		{"limit above max", interviews.ListOptions{Limit: 10_000}, all, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.List(t.Context(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page); !reflect.DeepEqual(got, tt.want) || page.Total != tt.total {
				t.Fatalf("List(%+v) = %v total %d, want %v total %d", tt.opts, got, page.Total, tt.want, tt.total)
			}
		})
	}

	t.Run("summary fields", func(t *testing.T) {
		page, err := s.List(t.Context(), interviews.ListOptions{Query: "Lovelace"})
		if err != nil {
			t.Fatal(err)
		}
		r := recs[0]
		want := interviews.Summary{ID: "a1", Candidate: r.Candidate, Blueprint: "default", Status: interviews.StatusCompleted, FinalStage: "greeting", FinalStageTitle: "Welcome",
			CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, EndedAt: r.EndedAt, Duration: 10 * time.Minute, EndedBy: r.EndedBy}
		if page.Items[0].Revision == "" {
			t.Fatal("the summary has no revision")
		}
		page.Items[0].Revision = ""
		if !reflect.DeepEqual(page.Items[0], want) {
			t.Fatalf("summary:\n got %+v\nwant %+v", page.Items[0], want)
		}
	})

	t.Run("bad options", func(t *testing.T) {
		for _, opts := range []interviews.ListOptions{{Status: "nope"}, {Offset: -1}, {Limit: -5}, {Sort: "name"}} {
			if _, err := s.List(t.Context(), opts); err == nil {
				t.Errorf("List(%+v) succeeded", opts)
			}
		}
	})
}

func testListPageSizes(t *testing.T, open Opener) {
	big := open(Options{})
	for i := range interviews.MaxListLimit + 5 {
		if err := big.Save(t.Context(), NewRecord(fmt.Sprintf("r%03d", i), "N", "R", interviews.StatusScheduled, at(i))); err != nil {
			t.Fatal(err)
		}
	}
	page, err := big.List(t.Context(), interviews.ListOptions{})
	if err != nil || len(page.Items) != interviews.DefaultListLimit || page.Total != interviews.MaxListLimit+5 || page.Items[0].ID != "r204" {
		t.Fatalf("default page: %d items, total %d, err %v", len(page.Items), page.Total, err)
	}
	page, err = big.List(t.Context(), interviews.ListOptions{Limit: interviews.MaxListLimit + 1})
	if err != nil || len(page.Items) != interviews.MaxListLimit {
		t.Fatalf("oversized page: %d items, err %v", len(page.Items), err)
	}
}

func testListSorts(t *testing.T, open Opener) {
	s := open(Options{})
	add := func(name string, minute int, score float64, ready bool, d interviews.DecisionKind) {
		r := &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Engineer"}, Blueprint: "default", CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
		if ready {
			r.Report = &interviews.Report{Status: interviews.ReportReady, Version: 1, OverallScore: score}
		}
		if d != "" {
			r.Decisions = []interviews.Decision{{Decision: interviews.DecisionHold, By: "a@example.com", At: t0}, {Decision: d, By: "a@example.com", At: t0}}
		}
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	add("Low", 1, 40, true, interviews.DecisionReject)
	add("High", 2, 90, true, "")
	add("None", 3, 0, false, interviews.DecisionAdvance)
	add("Held", 4, 40, true, interviews.DecisionHold)
	add("Pending", 5, 0, false, "")
	names := func(sort string) string {
		page, err := s.List(t.Context(), interviews.ListOptions{Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range page.Items {
			out = append(out, it.Candidate.Name)
		}
		return strings.Join(out, ",")
	}
	for sort, want := range map[string]string{
		interviews.SortNewest:   "Pending,Held,None,High,Low",
		interviews.SortScore:    "High,Held,Low,Pending,None",
		interviews.SortDecision: "None,Held,Low,Pending,High",
	} {
		if got := names(sort); got != want {
			t.Errorf("sort %q: %s, want %s", sort, got, want)
		}
	}
	page, _ := s.List(t.Context(), interviews.ListOptions{Sort: interviews.SortScore, Limit: 1})
	if it := page.Items[0]; it.Score == nil || *it.Score != 90 || it.Decision != "" {
		t.Errorf("summary score %v, decision %q", it.Score, it.Decision)
	}
}

// testListSeesChanges: a saved change shows in the next List, with a new
// revision; an unchanged record keeps its revision.
func testListSeesChanges(t *testing.T, open Opener) {
	s := open(Options{})
	for _, r := range listFixture() {
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	revisions := func() map[string]interviews.Summary {
		page, err := s.List(t.Context(), interviews.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]interviews.Summary{}
		for _, it := range page.Items {
			out[it.ID] = it
		}
		return out
	}
	before := revisions()
	r := listFixture()[2]
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Text: "hello"})
	if err := open(Options{}).Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	after := revisions()
	if after["c3"].Turns != 1 {
		t.Fatalf("List did not see the new turn: %+v", after["c3"])
	}
	if after["c3"].Revision == before["c3"].Revision {
		t.Errorf("the revision of a changed record stayed %q", after["c3"].Revision)
	}
	if after["a1"].Revision != before["a1"].Revision {
		t.Errorf("the revision of an unchanged record changed: %q → %q", before["a1"].Revision, after["a1"].Revision)
	}
	if _, err := s.Update(t.Context(), "a1", func(r *interviews.Record) error { r.Error = "x"; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := revisions()["a1"].Revision; got == after["a1"].Revision {
		t.Errorf("the revision of an updated record stayed %q", got)
	}
}

// testListByEmailAndAge: Email finds every interview of one address,
// whatever its case and spaces, and nobody else's; CreatedBefore keeps the
// interviews registered before a time.
func testListByEmailAndAge(t *testing.T, open Opener) {
	s := open(Options{})
	recs := listFixture()
	emails := []string{"ada@example.com", "alan@example.com", "ADA@Example.com", "", "ada@example.co", "Ada@example.com"}
	for i, r := range recs {
		r.Candidate.Email = emails[i]
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	checkLists(t, s, []listCase{
		{"email ignoring case", interviews.ListOptions{Email: "Ada@EXAMPLE.com "}, []string{"c3", "a1", "f6"}},
		{"email matches whole", interviews.ListOptions{Email: "example.com"}, []string{}},
		{"email and status", interviews.ListOptions{Email: "ada@example.com", Status: interviews.StatusCompleted}, []string{"a1", "f6"}},
		{"created before", interviews.ListOptions{CreatedBefore: at(200)}, []string{"a1", "f6"}},
		{"created before is strict", interviews.ListOptions{CreatedBefore: at(100)}, []string{"f6"}},
		{"email and age", interviews.ListOptions{Email: "ada@example.com", CreatedBefore: at(300)}, []string{"c3", "a1", "f6"}},
	})
}
