package interviews_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
)

func TestDispatchOpen(t *testing.T) {
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	registered := &interviews.Record{Candidate: interviews.Candidate{Name: "Grace Hopper", Role: "Compiler engineer"}, Blueprint: "system-design"}
	finished := &interviews.Record{Candidate: interviews.Candidate{Name: "Done", Role: "Engineer"}, Blueprint: stages.DefaultName}
	revoked := &interviews.Record{Candidate: interviews.Candidate{Name: "Withdrawn", Role: "Engineer"}, Blueprint: stages.DefaultName}
	crashedRevoked := &interviews.Record{Candidate: interviews.Candidate{Name: "Crashed", Role: "Engineer"}, Blueprint: stages.DefaultName}
	for _, r := range []*interviews.Record{registered, finished, revoked, crashedRevoked} {
		if err := store.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	finished.Start(finished.CreatedAt)
	finished.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, finished.CreatedAt)
	if err := store.Save(t.Context(), finished); err != nil {
		t.Fatal(err)
	}
	revoked.Revoke("recruiter@example.com", revoked.CreatedAt)
	// A resumable interview (its worker crashed) revoked meanwhile is not
	// resumed either.
	crashedRevoked.Start(crashedRevoked.CreatedAt)
	crashedRevoked.Finish(interviews.StatusFailed, interviews.EndedWorkerCrashed, crashedRevoked.CreatedAt)
	crashedRevoked.Revoke("recruiter@example.com", crashedRevoked.CreatedAt)
	for _, r := range []*interviews.Record{revoked, crashedRevoked} {
		if err := store.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("registered", func(t *testing.T) {
		o, err := interviews.Dispatch{InterviewID: registered.ID}.Open(t.Context(), store, "room-1", nil)
		if err != nil || o.Record.ID != registered.ID || o.Record.Room != "room-1" || o.Blueprint.Name != "system-design" || o.Record.BlueprintVersion != interviews.BuiltinVersion {
			t.Fatalf("Open = %+v, %v", o, err)
		}
	})
	t.Run("direct candidate, default blueprint", func(t *testing.T) {
		d, err := interviews.ParseDispatch(`{"name":"Ada Lovelace","role":"Backend engineer","level":"Senior"}`)
		if err != nil {
			t.Fatal(err)
		}
		o, err := d.Open(t.Context(), store, "room-2", nil)
		if err != nil {
			t.Fatal(err)
		}
		rec, bp := o.Record, o.Blueprint
		want := interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}
		if rec.Candidate != want || rec.Room != "room-2" || bp.Name != stages.DefaultName || rec.Blueprint != stages.DefaultName || rec.Status != interviews.StatusScheduled {
			t.Errorf("Open = %+v, blueprint %s", rec, bp.Name)
		}
		if saved, err := store.Get(t.Context(), rec.ID); err != nil || saved.Candidate != want {
			t.Errorf("stored %+v, %v", saved, err)
		}
	})
	for _, tc := range []struct {
		name string
		d    interviews.Dispatch
		err  string
	}{
		{"unknown interview", interviews.Dispatch{InterviewID: "nosuchinterview"}, "no such interview"},
		{"finished interview", interviews.Dispatch{InterviewID: finished.ID}, "already over (completed)"},
		{"revoked interview", interviews.Dispatch{InterviewID: revoked.ID}, "link was withdrawn"},
		{"revoked crashed interview", interviews.Dispatch{InterviewID: crashedRevoked.ID}, "link was withdrawn"},
		{"unknown blueprint", interviews.Dispatch{Candidate: &interviews.Candidate{Name: "Ada", Role: "x"}, Blueprint: "nope"}, "no blueprint"},
		{"unknown template", interviews.Dispatch{Candidate: &interviews.Candidate{Name: "Ada", Role: "x"}, Template: "nope"}, "no template"},
		{"other designs than the record", interviews.Dispatch{InterviewID: registered.ID, Blueprint: stages.DefaultName}, "other designs"},
		{"invalid", interviews.Dispatch{}, "names no interview"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := store.List(t.Context(), interviews.ListOptions{})
			_, err := tc.d.Open(t.Context(), store, "room-x", nil)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Open = %v, want an error containing %q", err, tc.err)
			}
			if after, _ := store.List(t.Context(), interviews.ListOptions{}); after.Total != before.Total {
				t.Errorf("a refused dispatch stored a record: %d → %d", before.Total, after.Total)
			}
		})
	}
	if _, err := (interviews.Dispatch{InterviewID: "nosuchinterview"}).Open(t.Context(), store, "r", nil); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("unknown interview: %v, want it to wrap interviews.ErrNotFound", err)
	}
	if _, err := (interviews.Dispatch{InterviewID: revoked.ID}).Open(t.Context(), store, "r", nil); !errors.Is(err, interviews.ErrRevoked) {
		t.Errorf("revoked interview: %v, want it to wrap interviews.ErrRevoked", err)
	}
}
