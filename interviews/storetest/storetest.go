// Package storetest is the conformance suite of interviews.Store: the
// behaviour every backend shares (create, get, save, list with its filters,
// orders and pages, updates under concurrency, leases, the crash sweep,
// sealed provider keys). Each backend's tests run it on fresh, empty
// stores; what only one backend does (files on disk, SQL) stays in that
// backend's own tests.
package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// Options are what a test sets on a store it opens.
type Options struct {
	// Now is the store's clock for leases and the sweep; nil is time.Now.
	Now func() time.Time
	// Sealer seals provider keys; nil makes the store refuse them.
	Sealer *interviews.Sealer
}

// Opener opens a store on one backend. Every call returns another handle
// on the same records, as another process sharing the backend would have.
type Opener func(o Options) interviews.Store

// Run runs the suite. newBackend returns an Opener on a fresh, empty
// backend each time it is called (once per test).
func Run(t *testing.T, newBackend func(t *testing.T) Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"Create", testCreate},
		{"SaveGetRoundTrip", testSaveGetRoundTrip},
		{"InvalidIDsAreRejected", testInvalidIDs},
		{"List", testList},
		{"ListPageSizes", testListPageSizes},
		{"ListSortsByScoreAndDecision", testListSorts},
		{"ListSeesChanges", testListSeesChanges},
		{"ConcurrentSave", testConcurrentSave},
		{"UpdateKeepsConcurrentChanges", testUpdateConcurrent},
		{"UpdateRefusals", testUpdateRefusals},
		{"UpdateReturnsCopy", testUpdateReturnsCopy},
		{"LeaseAcquireRefuseRenewExpire", testLease},
		{"LeaseOneWinner", testLeaseOneWinner},
		{"SweepCrashed", testSweepCrashed},
		{"Keys", testKeys},
		{"SweepDeletesKeys", testSweepDeletesKeys},
		{"CheckWritableAndLocate", testCheckWritableAndLocate},
		{"ListByEmailAndAge", testListByEmailAndAge},
		{"DeleteErasesAndLogs", testDelete},
	}
	t.Run("FullRecordSetsEveryField", testFullRecordSetsEveryField)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newBackend(t)) })
	}
}

// sameRecord reports whether a and b are the same record once stored (an
// empty list and no list are stored alike).
func sameRecord(a, b *interviews.Record) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		panic(err)
	}
	return bytes.Equal(ja, jb)
}

func testCreate(t *testing.T, open Opener) {
	s := open(Options{})
	before := time.Now()
	r := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default"}
	if err := s.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if !interviews.ValidID(r.ID) || len(r.ID) != 16 {
		t.Fatalf("Create assigned id %q", r.ID)
	}
	if r.Status != interviews.StatusScheduled {
		t.Fatalf("Create assigned status %q", r.Status)
	}
	if r.CreatedAt.Before(before.Add(-time.Second)) || r.CreatedAt.After(time.Now()) || r.CreatedAt.Location() != time.UTC {
		t.Fatalf("Create assigned CreatedAt %v", r.CreatedAt)
	}
	got, err := s.Get(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, r) {
		t.Fatalf("Get after Create:\n got %+v\nwant %+v", got, r)
	}

	again := &interviews.Record{ID: r.ID, Candidate: interviews.Candidate{Name: "Someone else", Role: "Engineer"}}
	if err := s.Create(t.Context(), again); !errors.Is(err, interviews.ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	if got, _ := s.Get(t.Context(), r.ID); got.Candidate.Name != "Ada" {
		t.Fatalf("failed Create overwrote the record: %+v", got)
	}

	kept := &interviews.Record{ID: "given", Candidate: interviews.Candidate{Name: "B", Role: "Engineer"}, Status: interviews.StatusInProgress, CreatedAt: t0, StartedAt: ptr(t0)}
	if err := s.Create(t.Context(), kept); err != nil {
		t.Fatal(err)
	}
	if kept.ID != "given" || kept.Status != interviews.StatusInProgress || !kept.CreatedAt.Equal(t0) {
		t.Fatalf("Create replaced given fields: %+v", kept)
	}

	invalid := &interviews.Record{Candidate: interviews.Candidate{Name: "", Role: "Engineer"}}
	if err := s.Create(t.Context(), invalid); err == nil || !strings.Contains(err.Error(), "candidate name: Enter the candidate's name") {
		t.Fatalf("Create(invalid) = %v", err)
	}
	if _, err := s.Get(t.Context(), invalid.ID); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("invalid record was stored: %v", err)
	}
}

func testSaveGetRoundTrip(t *testing.T, open Opener) {
	s := open(Options{})
	r := fullRecord()
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("Get after Save:\n got %+v\nwant %+v", got, r)
	}
	// Another handle on the backend reads the same record.
	if got, err := open(Options{}).Get(t.Context(), r.ID); err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("Get from another handle = %+v, %v", got, err)
	}
	if _, err := s.Get(t.Context(), "unknown"); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("Get(unknown) = %v, want ErrNotFound", err)
	}

	bad := r.Clone()
	bad.Assessments[0].DepthScore = 9
	if err := s.Save(t.Context(), bad); err == nil {
		t.Fatal("Save of an invalid record succeeded")
	}
	if got, _ := s.Get(t.Context(), r.ID); got.Assessments[0].DepthScore != 2 {
		t.Fatal("a refused Save changed the stored record")
	}
}

func testInvalidIDs(t *testing.T, open Opener) {
	s := open(Options{})
	for _, id := range []string{"../x", "", "X", "ABC", "a/b", "..", ".x"} {
		if _, err := s.Get(t.Context(), id); !errors.Is(err, interviews.ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
		}
		r := NewRecord("x", "A", "r", interviews.StatusScheduled, t0)
		r.ID = id
		if id != "" { // Create assigns an id when empty
			if err := s.Create(t.Context(), r); err == nil {
				t.Errorf("Create with id %q succeeded", id)
			}
		}
		if err := s.Save(t.Context(), r); err == nil || !strings.Contains(err.Error(), "invalid id") {
			t.Errorf("Save with id %q = %v, want an invalid id error", id, err)
		}
		if _, err := s.Update(t.Context(), id, func(*interviews.Record) error { return nil }); !errors.Is(err, interviews.ErrNotFound) {
			t.Errorf("Update(%q) = %v, want ErrNotFound", id, err)
		}
		if _, err := s.AcquireLease(t.Context(), id, "w", time.Minute); !errors.Is(err, interviews.ErrNotFound) {
			t.Errorf("AcquireLease(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 0 {
		t.Fatalf("rejected ids were stored: %+v, %v", page, err)
	}
}

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

func testConcurrentSave(t *testing.T, open Opener) {
	s := open(Options{})
	base := NewRecord("shared", "A", "Engineer", interviews.StatusInProgress, t0)
	if err := s.Save(t.Context(), base); err != nil {
		t.Fatal(err)
	}
	const writers, saves = 4, 25
	versions := make([]*interviews.Record, writers)
	for w := range writers {
		v := base.Clone()
		for i := range w + 1 {
			v.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: fmt.Sprintf("writer %d turn %d", w, i)})
		}
		versions[w] = v
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	var readErrs []error
	var readMu sync.Mutex
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Get(t.Context(), "shared"); err != nil {
					readMu.Lock()
					readErrs = append(readErrs, err)
					readMu.Unlock()
				}
				if _, err := s.List(t.Context(), interviews.ListOptions{}); err != nil {
					readMu.Lock()
					readErrs = append(readErrs, err)
					readMu.Unlock()
				}
			}
		})
	}
	other := open(Options{})
	var wg sync.WaitGroup
	for w := range writers {
		st := s
		if w%2 == 1 {
			st = other
		}
		wg.Go(func() {
			for range saves {
				if err := st.Save(t.Context(), versions[w]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if len(readErrs) > 0 {
		t.Fatalf("reads during saves failed (%d), first: %v", len(readErrs), readErrs[0])
	}
	got, err := s.Get(t.Context(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	whole := false
	for _, v := range versions {
		whole = whole || sameRecord(got, v)
	}
	if !whole {
		t.Fatalf("stored record is not one whole version: %+v", got)
	}
}

// testUpdateConcurrent: updates of one record from many goroutines, on two
// handles, each append a decision and an audit entry; none is lost.
func testUpdateConcurrent(t *testing.T, open Opener) {
	s, other := open(Options{}), open(Options{})
	if err := s.Save(t.Context(), NewRecord("upd", "Ada", "Engineer", interviews.StatusCompleted, t0)); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var wg sync.WaitGroup
	for w := range writers {
		st := s
		if w%2 == 1 {
			st = other
		}
		wg.Go(func() {
			who := fmt.Sprintf("reviewer%d@example.com", w)
			_, err := st.Update(t.Context(), "upd", func(r *interviews.Record) error {
				r.Decisions = append(r.Decisions, interviews.Decision{Decision: interviews.DecisionHold, By: who, At: t0})
				r.Audit = append(r.Audit, interviews.AuditEntry{At: t0, Who: who, Action: interviews.AuditDecision})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Get(t.Context(), "upd")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Decisions) != writers || len(got.Audit) != writers {
		t.Fatalf("after %d concurrent updates: %d decisions, %d audit entries", writers, len(got.Decisions), len(got.Audit))
	}
	seen := map[string]bool{}
	for _, d := range got.Decisions {
		seen[d.By] = true
	}
	if len(seen) != writers {
		t.Errorf("decisions by %d distinct reviewers, want %d: %+v", len(seen), writers, got.Decisions)
	}
}

// testUpdateRefusals: a failing change, an invalid result, a renamed
// record and an unknown id write nothing.
func testUpdateRefusals(t *testing.T, open Opener) {
	s := open(Options{})
	orig := NewRecord("upd", "Ada", "Engineer", interviews.StatusCompleted, t0)
	if err := s.Save(t.Context(), orig); err != nil {
		t.Fatal(err)
	}
	errNo := errors.New("no thanks")
	cases := []struct {
		name   string
		id     string
		change func(*interviews.Record) error
		want   error
	}{
		{"change fails", "upd", func(r *interviews.Record) error { r.Candidate.Name = "Changed"; return errNo }, errNo},
		{"invalid result", "upd", func(r *interviews.Record) error {
			r.Decisions = append(r.Decisions, interviews.Decision{Decision: "maybe"})
			return nil
		}, nil},
		{"renamed", "upd", func(r *interviews.Record) error { r.ID = "other"; return nil }, nil},
		{"unknown id", "nope", func(r *interviews.Record) error { return nil }, interviews.ErrNotFound},
		{"invalid id", "../x", func(r *interviews.Record) error { return nil }, interviews.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Update(t.Context(), c.id, c.change)
			if err == nil || got != nil {
				t.Fatalf("Update = %v, %v; want an error", got, err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			stored, err := s.Get(t.Context(), "upd")
			if err != nil {
				t.Fatal(err)
			}
			if !sameRecord(stored, orig) {
				t.Errorf("the stored record changed")
			}
		})
	}
	if _, err := s.Get(t.Context(), "other"); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("a renaming update stored %q: %v", "other", err)
	}
}

// testUpdateReturnsCopy: the record Update returns is what was stored.
func testUpdateReturnsCopy(t *testing.T, open Opener) {
	s := open(Options{})
	if err := s.Save(t.Context(), NewRecord("upd", "Ada", "Engineer", interviews.StatusCompleted, t0)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Update(t.Context(), "upd", func(r *interviews.Record) error {
		r.Report = &interviews.Report{Status: interviews.ReportPending, Version: 1}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get(t.Context(), "upd")
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, stored) {
		t.Errorf("Update returned a record other than the stored one")
	}
}

// Clock is a clock tests move by hand (Options.Now takes its Now), safe
// for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock showing at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newClock() *Clock { return NewClock(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) }

// testLease: one owner at a time; the same owner renews; a lapsed lease is
// taken over and its old owner learns it lost it.
func testLease(t *testing.T, open Opener) {
	clk := newClock()
	s := open(Options{Now: clk.Now})
	const id, ttl = "lease1", 30 * time.Second

	if _, held, err := s.Lease(t.Context(), id); err != nil || held {
		t.Fatalf("Lease before any = %v, %v", held, err)
	}
	got, err := s.AcquireLease(t.Context(), id, "worker-a", ttl)
	if err != nil || got.Owner != "worker-a" || !got.ExpiresAt.Equal(clk.Now().Add(ttl)) {
		t.Fatalf("AcquireLease = %+v, %v", got, err)
	}
	if l, held, err := s.Lease(t.Context(), id); err != nil || !held || l != got {
		t.Fatalf("Lease = %+v, %v, %v; want %+v", l, held, err, got)
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-b", ttl); !errors.Is(err, interviews.ErrLeaseHeld) {
		t.Fatalf("second owner: %v, want ErrLeaseHeld", err)
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-a", ttl); err != nil {
		t.Fatalf("same owner again: %v", err)
	}

	// Renewed every 20 s, the lease outlives its first expiry.
	for range 3 {
		clk.Advance(20 * time.Second)
		if _, err := s.RenewLease(t.Context(), id, "worker-a", ttl); err != nil {
			t.Fatalf("RenewLease: %v", err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-b", ttl); !errors.Is(err, interviews.ErrLeaseHeld) {
		t.Fatalf("renewed lease taken: %v", err)
	}
	if _, err := s.RenewLease(t.Context(), id, "worker-b", ttl); !errors.Is(err, interviews.ErrLeaseLost) {
		t.Fatalf("renewing another's lease: %v, want ErrLeaseLost", err)
	}

	// Its holder stops renewing: once it lapses, another takes it over.
	clk.Advance(ttl)
	if l, held, _ := s.Lease(t.Context(), id); !held || !l.Expired(clk.Now()) {
		t.Fatalf("lease after its ttl = %+v, held %v; want expired", l, held)
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-b", ttl); err != nil {
		t.Fatalf("take over an expired lease: %v", err)
	}
	if _, err := s.RenewLease(t.Context(), id, "worker-a", ttl); !errors.Is(err, interviews.ErrLeaseLost) {
		t.Fatalf("old owner renews: %v, want ErrLeaseLost", err)
	}
	// The old owner's release leaves the new owner's lease alone.
	if err := s.ReleaseLease(t.Context(), id, "worker-a"); err != nil {
		t.Fatal(err)
	}
	if l, held, _ := s.Lease(t.Context(), id); !held || l.Owner != "worker-b" {
		t.Fatalf("after the old owner's release: %+v, %v", l, held)
	}
	if err := s.ReleaseLease(t.Context(), id, "worker-b"); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := s.Lease(t.Context(), id); held {
		t.Fatal("lease still held after release")
	}
	if _, err := s.AcquireLease(t.Context(), id, "worker-c", ttl); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	// Leases are not records.
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 0 {
		t.Errorf("List = %+v, %v", page, err)
	}
}

// testLeaseOneWinner: of many sessions acquiring at once through two
// handles, exactly one wins.
func testLeaseOneWinner(t *testing.T, open Opener) {
	clk := newClock()
	s, other := open(Options{Now: clk.Now}), open(Options{Now: clk.Now})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 16 {
		st := s
		if i%2 == 1 {
			st = other
		}
		wg.Go(func() {
			if _, err := st.AcquireLease(t.Context(), "race", interviews.LeaseOwner(string(rune('a'+i))), time.Minute); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !errors.Is(err, interviews.ErrLeaseHeld) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d sessions acquired the lease, want 1", wins)
	}
}

// testSweepCrashed: records left in progress with no live lease are saved
// failed by worker_crashed, dated by their last activity; a record a live
// lease holds, and records in other states, are left alone.
func testSweepCrashed(t *testing.T, open Opener) {
	clk := newClock()
	s := open(Options{Now: clk.Now})
	created := clk.Now().Add(-time.Hour)
	crashed := NewRecord("crashed", "Ada", "x", interviews.StatusInProgress, created)
	crashed.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "greeting", Text: "Hello", StartedAt: created.Add(2 * time.Minute), EndedAt: created.Add(3 * time.Minute)})
	expired := NewRecord("expired", "Bob", "x", interviews.StatusInProgress, created)
	live := NewRecord("live", "Cy", "x", interviews.StatusInProgress, created)
	done := NewRecord("done", "Di", "x", interviews.StatusCompleted, created)
	sched := NewRecord("sched", "Ed", "x", interviews.StatusScheduled, created)
	for _, r := range []*interviews.Record{crashed, expired, live, done, sched} {
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), "expired", "dead-worker", time.Second); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	if _, err := s.AcquireLease(t.Context(), "live", "running-worker", time.Minute); err != nil {
		t.Fatal(err)
	}

	ended, err := s.SweepCrashed(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 2 {
		t.Fatalf("swept %v, want crashed and expired", ended)
	}
	for _, id := range []string{"crashed", "expired"} {
		r, err := s.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != interviews.StatusFailed || r.EndedBy != interviews.EndedWorkerCrashed || r.EndedAt == nil || r.Error == "" {
			t.Errorf("%s after the sweep: status %s, ended_by %s, ended_at %v, error %q", id, r.Status, r.EndedBy, r.EndedAt, r.Error)
		}
		if !r.Resumable() {
			t.Errorf("%s is not resumable after the sweep", id)
		}
		if _, held, _ := s.Lease(t.Context(), id); held && id == "crashed" {
			t.Errorf("the sweep kept the lease of %s", id)
		}
	}
	if r, _ := s.Get(t.Context(), "crashed"); !r.EndedAt.Equal(created.Add(3 * time.Minute)) {
		t.Errorf("crashed ended at %v, want its last turn's end", r.EndedAt)
	}
	for id, want := range map[string]interviews.Status{"live": interviews.StatusInProgress, "done": interviews.StatusCompleted, "sched": interviews.StatusScheduled} {
		if r, _ := s.Get(t.Context(), id); r.Status != want {
			t.Errorf("%s = %s after the sweep, want %s", id, r.Status, want)
		}
	}
	if page, _ := s.List(t.Context(), interviews.ListOptions{Status: interviews.StatusFailed}); page.Total != 2 {
		t.Errorf("failed interviews listed = %d, want 2", page.Total)
	}
	if again, err := s.SweepCrashed(t.Context()); err != nil || len(again) != 0 {
		t.Errorf("second sweep = %v, %v", again, err)
	}
}

func sealer(t *testing.T, fill byte) *interviews.Sealer {
	t.Helper()
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{fill}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// testKeys: keys are stored sealed, never in the record, read back whole
// and deleted; without a secrets key they are refused, and under another
// secrets key they do not open.
func testKeys(t *testing.T, open Opener) {
	plain := open(Options{})
	r := NewRecord("iv1", "Ada", "x", interviews.StatusScheduled, time.Now().UTC())
	if err := plain.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	k := interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij", Deepgram: "0123456789abcdef0123456789abcdef01234567"}
	if err := plain.PutKeys(t.Context(), "iv1", k); !errors.Is(err, interviews.ErrNoSecretsKey) {
		t.Fatalf("PutKeys without a secrets key = %v, want ErrNoSecretsKey", err)
	}
	if plain.KeepsKeys() {
		t.Error("KeepsKeys without a secrets key")
	}
	s := open(Options{Sealer: sealer(t, 7)})
	if !s.KeepsKeys() {
		t.Error("KeepsKeys with a secrets key = false")
	}
	if _, err := s.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrNoKeys) {
		t.Fatalf("Keys before PutKeys = %v, want ErrNoKeys", err)
	}
	if s.HasKeys(t.Context(), "iv1") {
		t.Error("HasKeys before PutKeys")
	}
	if err := s.PutKeys(t.Context(), "iv1", k); err != nil {
		t.Fatal(err)
	}
	if !s.HasKeys(t.Context(), "iv1") {
		t.Error("HasKeys after PutKeys = false")
	}
	got, err := s.Keys(t.Context(), "iv1")
	if err != nil || got != k {
		t.Fatalf("Keys = %v, %v", got, err)
	}
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get(t.Context(), "iv1")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(stored)
	for _, secret := range []string{k.OpenAI, k.Deepgram} {
		if bytes.Contains(data, []byte(secret)) {
			t.Error("the record holds a key")
		}
	}
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 1 {
		t.Errorf("List with keys stored = %+v, %v; want the one record", page, err)
	}
	if _, err := plain.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrNoSecretsKey) {
		t.Errorf("Keys without a secrets key = %v, want ErrNoSecretsKey", err)
	}
	if _, err := open(Options{Sealer: sealer(t, 8)}).Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrSealBroken) {
		t.Errorf("Keys under another secrets key = %v, want ErrSealBroken", err)
	}
	// Replacing keys keeps only the new ones.
	k2 := interviews.Keys{OpenAI: "sk-proj-replacement-0123456789"}
	if err := s.PutKeys(t.Context(), "iv1", k2); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Keys(t.Context(), "iv1"); err != nil || got != k2 {
		t.Fatalf("Keys after replacing = %v, %v", got, err)
	}

	if err := s.DeleteKeys(t.Context(), "iv1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrNoKeys) {
		t.Errorf("Keys after DeleteKeys = %v, want ErrNoKeys", err)
	}
	if err := s.DeleteKeys(t.Context(), "iv1"); err != nil {
		t.Errorf("deleting absent keys = %v", err)
	}
	if err := s.PutKeys(t.Context(), "iv1", k); err != nil {
		t.Fatal(err)
	}
	if err := s.PutKeys(t.Context(), "iv1", interviews.Keys{}); err != nil || s.HasKeys(t.Context(), "iv1") {
		t.Errorf("PutKeys of empty keys = %v, keys left: %v", err, s.HasKeys(t.Context(), "iv1"))
	}
	if err := s.PutKeys(t.Context(), "../etc", k); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("PutKeys with a bad id = %v", err)
	}
}

// testSweepDeletesKeys: an interview the sweep ends as crashed loses its
// keys; one a live session holds keeps them.
func testSweepDeletesKeys(t *testing.T, open Opener) {
	clk := newClock()
	s := open(Options{Now: clk.Now, Sealer: sealer(t, 3)})
	created := clk.Now().Add(-time.Hour)
	for _, id := range []string{"crashed", "live"} {
		if err := s.Create(t.Context(), NewRecord(id, "Ada", "x", interviews.StatusInProgress, created)); err != nil {
			t.Fatal(err)
		}
		if err := s.PutKeys(t.Context(), id, interviews.Keys{OpenAI: "sk-0123456789abcdefghij"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), "live", "running-worker", time.Minute); err != nil {
		t.Fatal(err)
	}
	if ended, err := s.SweepCrashed(t.Context()); err != nil || len(ended) != 1 {
		t.Fatalf("sweep = %v, %v", ended, err)
	}
	if s.HasKeys(t.Context(), "crashed") {
		t.Error("the swept interview kept its keys")
	}
	if !s.HasKeys(t.Context(), "live") {
		t.Error("the live interview lost its keys")
	}
}

// testCheckWritableAndLocate: a fresh store is writable, and says where a
// record is kept.
func testCheckWritableAndLocate(t *testing.T, open Opener) {
	s := open(Options{})
	if err := s.CheckWritable(t.Context()); err != nil {
		t.Fatalf("CheckWritable on a fresh store = %v", err)
	}
	if err := s.Create(t.Context(), NewRecord("here", "Ada", "x", interviews.StatusScheduled, t0)); err != nil {
		t.Fatal(err)
	}
	if where := s.Locate("here"); !strings.Contains(where, "here") {
		t.Errorf("Locate = %q, want it to name the record", where)
	}
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 1 {
		t.Errorf("CheckWritable left records behind: %+v, %v", page, err)
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
	tests := []struct {
		name string
		opts interviews.ListOptions
		want []string
	}{
		{"email ignoring case", interviews.ListOptions{Email: "Ada@EXAMPLE.com "}, []string{"c3", "a1", "f6"}},
		{"email matches whole", interviews.ListOptions{Email: "example.com"}, []string{}},
		{"email and status", interviews.ListOptions{Email: "ada@example.com", Status: interviews.StatusCompleted}, []string{"a1", "f6"}},
		{"created before", interviews.ListOptions{CreatedBefore: at(200)}, []string{"a1", "f6"}},
		{"created before is strict", interviews.ListOptions{CreatedBefore: at(100)}, []string{"f6"}},
		{"email and age", interviews.ListOptions{Email: "ada@example.com", CreatedBefore: at(300)}, []string{"c3", "a1", "f6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.List(t.Context(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page); !reflect.DeepEqual(got, tt.want) || page.Total != len(tt.want) {
				t.Fatalf("List(%+v) = %v total %d, want %v", tt.opts, got, page.Total, tt.want)
			}
		})
	}
}

// testDelete: Delete removes the record, its lease and its keys, logs the
// erasure with the id, leaves other records alone, and refuses an unknown
// id without logging anything.
func testDelete(t *testing.T, open Opener) {
	clock := newClock()
	s := open(Options{Sealer: sealer(t, 9), Now: clock.Now})
	gone := NewRecord("gone1", "Ada", "x", interviews.StatusCompleted, at(0))
	kept := NewRecord("kept1", "Alan", "x", interviews.StatusCompleted, at(0))
	for _, r := range []*interviews.Record{gone, kept} {
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if err := s.PutKeys(t.Context(), r.ID, interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), "gone1", "eraser", time.Minute); err != nil {
		t.Fatal(err)
	}
	e := interviews.Erasure{At: at(1000).UTC(), Who: "operator", Reason: interviews.ErasureRequested, Detail: "record, provider keys"}
	if err := s.Delete(t.Context(), "gone1", e); err != nil {
		t.Fatal(err)
	}
	other := open(Options{Sealer: sealer(t, 9), Now: clock.Now})
	if _, err := other.Get(t.Context(), "gone1"); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("Get after Delete = %v, want ErrNotFound", err)
	}
	if other.HasKeys(t.Context(), "gone1") {
		t.Error("the erased record's keys are still stored")
	}
	if _, held, err := other.Lease(t.Context(), "gone1"); err != nil || held {
		t.Errorf("the erased record's lease: held %v, err %v", held, err)
	}
	if page, err := other.List(t.Context(), interviews.ListOptions{}); err != nil || !reflect.DeepEqual(ids(page), []string{"kept1"}) {
		t.Errorf("List after Delete = %v, %v; want only kept1", ids(page), err)
	}
	if !other.HasKeys(t.Context(), "kept1") {
		t.Error("Delete removed another record's keys")
	}
	if err := other.Delete(t.Context(), "gone1", e); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("Delete of an erased record = %v, want ErrNotFound", err)
	}
	if err := other.Delete(t.Context(), "../x", e); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("Delete of an invalid id = %v, want ErrNotFound", err)
	}
	log, err := other.Erasures(t.Context())
	e.ID = "gone1"
	if err != nil || len(log) != 1 || !reflect.DeepEqual(log[0], e) {
		t.Fatalf("Erasures = %+v, %v; want one entry %+v", log, err, e)
	}
}
