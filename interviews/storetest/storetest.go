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
	"reflect"
	"strings"
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
		{"KeysReplaceDelete", testKeysReplaceDelete},
		{"SweepDeletesKeys", testSweepDeletesKeys},
		{"CheckWritableAndLocate", testCheckWritableAndLocate},
		{"ListByEmailAndAge", testListByEmailAndAge},
		{"ListInvitationsByCreatorAndState", testListInvitations},
		{"WalkStreamsInListOrder", testWalk},
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
