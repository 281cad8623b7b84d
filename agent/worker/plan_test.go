package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
)

// TestPlanThatCannotRunIsRefused: an interview whose role template its
// blueprint asks no questions of, or whose design problem the pool lacks,
// is refused before any greeting: the record is saved failed with the
// reason in words, and the lease freed.
func TestPlanThatCannotRunIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name              string
		template, problem string
		want              string
	}{
		{"template", "backend-senior", "", `role template "backend-senior": blueprint "system-design" follows its own stages and has no guided stage`},
		{"problem", "", "elevator", `blueprint "system-design" has no problem "elevator"; choose one of ticketing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := filestore.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Engineer"}, Blueprint: "system-design",
				Template: tc.template, Problem: tc.problem, Room: "room-plan"}
			if err := store.Create(t.Context(), rec); err != nil {
				t.Fatal(err)
			}
			s := &worker.Sessions{Store: store, Logger: testLogger(t)}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.HandleJob(ctx, keysJob(t, rec)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("HandleJob = %v, want a refusal saying %q", err, tc.want)
			}
			after, err := store.Get(ctx, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if after.Status != interviews.StatusFailed || after.EndedBy != interviews.EndedPlanRefused || !strings.Contains(after.Error, tc.want) {
				t.Errorf("record after the refusal: status %s, ended_by %s, error %q", after.Status, after.EndedBy, after.Error)
			}
			if _, held, _ := store.Lease(ctx, rec.ID); held {
				t.Error("the lease was kept")
			}
		})
	}
}
