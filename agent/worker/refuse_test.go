package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/testrig/workertest"
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

// TestSecondDispatchIntoRunningRoom: a second dispatch of an interview into
// the room where it already runs (the room's own dispatch and a rescue's,
// or two web apps' rescues) leaves without joining: the room stays open,
// the candidate keeps one interviewer, who goes on talking.
func TestSecondDispatchIntoRunningRoom(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	lk := lktest.Start(t)
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	sessions.Store, sessions.Rooms, sessions.Logger = store, lk.RoomClient(), log
	h := &harness{lk: lk, store: store, agent: "viva-test-second-dispatch"}
	jobsDone := make(chan string, 4)
	workertest.Run(t, lk, h.agent, lkagent.HandlerFunc(func(ctx context.Context, job lkagent.Job) error {
		defer func() { jobsDone <- job.ID }()
		return sessions.HandleJob(ctx, job)
	}), log)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	reg := &interviews.Record{Blueprint: stages.DefaultName, Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer"}}
	if err := store.Create(ctx, reg); err != nil {
		t.Fatal(err)
	}
	bot, room := h.join(t, ctx, map[string]string{"interview_id": reg.ID})
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	first := bot.AgentIdentity()
	h.record(t, ctx, room, func(r *interviews.Record) bool { return r.Status == interviews.StatusInProgress })

	meta, err := interviews.Dispatch{InterviewID: reg.ID}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lk.DispatchClient().CreateDispatch(ctx, &livekit.CreateAgentDispatchRequest{AgentName: h.agent, Room: room, Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-jobsDone:
	case <-ctx.Done():
		t.Fatal("the second job never ended")
	}
	select {
	case <-bot.Disconnected():
		t.Fatal("the second dispatch closed the room")
	default:
	}
	agents := 0
	for _, p := range bot.Room().GetRemoteParticipants() {
		if candidatebot.IsInterviewer(p) {
			agents++
		}
	}
	if agents != 1 || bot.AgentIdentity() != first {
		t.Errorf("%d interviewers in the room (first %s, now %s), want the first one alone", agents, first, bot.AgentIdentity())
	}
	if err := bot.SayText(ctx, fullAnswers[0]); err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatalf("the interviewer stopped talking after the second dispatch: %v", err)
	}
}
