package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// TestRevokedAndFinishedRefused: a token minted before the link was
// withdrawn, and an old token of an interview that is over, each dispatch
// the interviewer, which refuses the job before any greeting: the
// candidate is told why in one sentence (no speech), the room is closed,
// and the record is left as it was.
func TestRevokedAndFinishedRefused(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	at := time.Now().UTC().Round(0)

	revoked := &interviews.Record{Blueprint: stages.DefaultName, Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer"}}
	completed := &interviews.Record{Blueprint: stages.DefaultName, Candidate: interviews.Candidate{Name: "Grace Hopper", Role: "Backend engineer"}}
	for _, r := range []*interviews.Record{revoked, completed} {
		if err := h.store.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	revoked.Revoke("recruiter@example.com", at)
	completed.Start(at)
	completed.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, at)
	for _, r := range []*interviews.Record{revoked, completed} {
		if err := h.store.Save(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name string
		rec  *interviews.Record
		msg  string
	}{
		{"revoked", revoked, worker.MsgRevoked},
		{"completed", completed, worker.MsgFinished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := h.store.Get(ctx, tc.rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			bot, _ := h.join(t, ctx, map[string]string{"interview_id": tc.rec.ID})
			ev, err := bot.WaitEvent(ctx, string(worker.EventInterviewEnding))
			if err != nil {
				t.Fatalf("the candidate got no ending event: %v", err)
			}
			if msg, _ := ev["message"].(string); msg != tc.msg {
				t.Errorf("the candidate was told %q, want %q", msg, tc.msg)
			}
			select {
			case <-bot.Disconnected():
			case <-ctx.Done():
				t.Fatal("the room of the refused job was not closed")
			}
			if voiced := bot.AgentAudio().Voiced; voiced != 0 {
				t.Errorf("the candidate heard %s of the interviewer; want no greeting", voiced)
			}
			after, err := h.store.Get(ctx, tc.rec.ID)
			if err != nil || after.Status != before.Status || len(after.Turns) != 0 || after.StartedAt != nil && !after.StartedAt.Equal(*before.StartedAt) {
				t.Errorf("the refused job touched the record (%v): status %s → %s, %d turns", err, before.Status, after.Status, len(after.Turns))
			}
		})
	}
}
