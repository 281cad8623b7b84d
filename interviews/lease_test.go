package interviews

import (
	"testing"
	"time"
)

// TestRecordResume: a crashed interview reopens in its stage, keeps its
// turns and records the gap; a completed one does not.
func TestRecordResume(t *testing.T) {
	created := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	r := newRecord("resume", "Ada", "x", StatusInProgress, created)
	r.AppendTurn(Turn{Role: RoleAgent, Stage: "greeting", Text: "Hello", StartedAt: created.Add(2 * time.Minute), EndedAt: created.Add(3 * time.Minute)})
	r.Finish(StatusFailed, EndedWorkerCrashed, r.LastActivity())
	back := created.Add(time.Hour)
	if err := r.Resume(back); err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInProgress || r.EndedBy != "" || r.EndedAt != nil || r.Stages[len(r.Stages)-1].LeftAt != nil || len(r.Turns) != 1 {
		t.Fatalf("after Resume: %+v", r)
	}
	if n := len(r.Absences); n != 1 || !r.Absences[0].LeftAt.Equal(created.Add(3*time.Minute)) || !r.Absences[0].BackAt.Equal(back) {
		t.Errorf("absences = %+v", r.Absences)
	}
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
	if c := newRecord("c", "Ada", "x", StatusCompleted, created); c.Resumable() || c.Resume(back) == nil {
		t.Error("a completed interview was resumable")
	}
	if c := newRecord("s", "Ada", "x", StatusScheduled, created); c.Resumable() {
		t.Error("a scheduled interview was resumable")
	}
}
