package worker_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/testrig/workertest"
)

// startCrashingWorker starts a worker registered as agentName on lk and
// returns its crash: every running job is cancelled at once and crash
// returns when their handlers have returned and the worker has left the
// server.
func startCrashingWorker(t *testing.T, lk *lktest.Server, agentName string, h lkagent.Handler, log *slog.Logger) (crash func()) {
	t.Helper()
	w, err := lkagent.New(lkagent.Options{URL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret,
		AgentName: agentName, MaxSessions: 2, Logger: log}, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	crash = func() { cancel(); <-done }
	t.Cleanup(crash)
	lk.WaitLog(t, 30*time.Second, "worker registered", agentName)
	return crash
}

// openStore opens another handle on the store in dir whose clock reads at,
// as a process running at that time would see it.
func openStore(t *testing.T, dir string, at time.Time) interviews.Store {
	t.Helper()
	s, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.SetClock(func() time.Time { return at })
	return s
}

// TestResumeAfterWorkerCrash: a worker dies mid-interview, leaving the
// record in progress and its lease held. While that lease is live, a
// dispatch of the same interview is refused and the candidate is told why
// in one sentence. Once the lease has lapsed the crash sweep ends the
// record as crashed, and a new dispatch to a new worker resumes the same
// record: the interviewer opens with the welcome back repeating the last
// question, earlier turns are kept, new ones are appended under new
// question ids, and the record ends valid.
func TestResumeAfterWorkerCrash(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	const leaseTTL = time.Minute
	sessions.LeaseTTL = leaseTTL
	lk := lktest.Start(t)
	dir := t.TempDir()
	store, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	sessions.Store, sessions.Rooms, sessions.Logger = store, lk.RoomClient(), log
	restarted := *sessions // the same configuration, for the worker that starts after the crash

	reg := &interviews.Record{Blueprint: stages.DefaultName, Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}}
	if err := store.Create(t.Context(), reg); err != nil {
		t.Fatal(err)
	}
	dispatch := map[string]string{"interview_id": reg.ID}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// The interview runs until a few turns are saved and the candidate
	// has heard the third question.
	first := &harness{lk: lk, store: store, agent: "viva-test-resume-crashed"}
	crash := startCrashingWorker(t, lk, first.agent, sessions, log)
	bot, room := first.join(t, ctx, dispatch)
	answer(t, ctx, bot, fullAnswers[0])
	answer(t, ctx, bot, fullAnswers[1])
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	left := first.record(t, ctx, room, func(r *interviews.Record) bool {
		n := len(r.Turns)
		return n >= 5 && r.Turns[n-1].Role == interviews.RoleAgent && len(r.Turns[n-1].QuestionIDs) > 0
	})
	lease, held, err := store.Lease(ctx, reg.ID)
	if err != nil || !held || lease.Owner == interviews.SweepOwner {
		t.Fatalf("lease of the running interview: %+v, held %v, %v", lease, held, err)
	}
	var lastAsked string
	for _, q := range left.Questions {
		if q.Spoken() && !q.Withdrawn {
			lastAsked = q.Text
		}
	}
	if left.Status != interviews.StatusInProgress || lastAsked == "" {
		t.Fatalf("before the crash: %s", dump(left))
	}

	// The worker dies. Its cancelled session still saves an ending and
	// lets the lease go, which a killed process never does: put back what
	// a kill leaves, the record as last saved and the lease still live.
	crash()
	bot.Leave()
	if err := store.Save(ctx, left); err != nil {
		t.Fatal(err)
	}
	if _, err := openStore(t, dir, lease.ExpiresAt.Add(-leaseTTL)).AcquireLease(ctx, reg.ID, lease.Owner, leaseTTL); err != nil {
		t.Fatal(err)
	}

	// A new worker starts; while the dead session's lease is live, a
	// dispatch of the interview is refused with one sentence.
	second := &harness{lk: lk, store: store, agent: "viva-test-resume-restarted"}
	jobsDone := make(chan string, 8) // ids of the jobs whose handler returned
	workertest.Run(t, lk, second.agent, lkagent.HandlerFunc(func(ctx context.Context, job lkagent.Job) error {
		defer func() { jobsDone <- job.ID }()
		return restarted.HandleJob(ctx, job)
	}), log)
	refused, _ := second.join(t, ctx, dispatch)
	ev, err := refused.WaitEvent(ctx, string(worker.EventInterviewEnding))
	if err != nil {
		t.Fatalf("the candidate of a refused dispatch got no ending event: %v", err)
	}
	if msg, _ := ev["message"].(string); msg != worker.MsgLeaseHeld {
		t.Errorf("refused dispatch told the candidate %q, want %q", msg, worker.MsgLeaseHeld)
	}
	select {
	case <-refused.Disconnected():
	case <-ctx.Done():
		t.Fatal("the room of the refused dispatch was not closed")
	}
	if got, err := store.Get(ctx, reg.ID); err != nil || got.Status != interviews.StatusInProgress || got.Room != room || len(got.Turns) != len(left.Turns) {
		t.Fatalf("the refused dispatch touched the record (%v): %s", err, dump(got))
	}

	// Past the lease's expiry the crash sweep ends the record as
	// crashed; the interview is dispatched again to a new room.
	swept, err := openStore(t, dir, lease.ExpiresAt.Add(time.Second)).SweepCrashed(ctx)
	if err != nil || len(swept) != 1 || swept[0] != reg.ID {
		t.Fatalf("sweep = %v, %v", swept, err)
	}
	if got, err := store.Get(ctx, reg.ID); err != nil || got.Status != interviews.StatusFailed || got.EndedBy != interviews.EndedWorkerCrashed {
		t.Fatalf("after the sweep (%v): %s", err, dump(got))
	}
	back, _ := second.join(t, ctx, dispatch)
	agentID, err := back.WaitAgent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	welcome, err := back.WaitCaption(ctx, func(c candidatebot.Caption) bool { return c.Final && c.Sender == agentID })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(welcome.Text, "Welcome back, Ada.") || !strings.Contains(welcome.Text, strings.TrimSpace(lastAsked)) {
		t.Errorf("the interviewer resumed with %q, want the welcome back repeating %q", welcome.Text, lastAsked)
	}
	if err := back.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := back.SayText(ctx, fullAnswers[2]); err != nil {
		t.Fatal(err)
	}
	if err := back.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := back.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	resumed := len(left.Turns)
	first.record(t, ctx, room, func(r *interviews.Record) bool {
		n := len(r.Turns)
		return n >= resumed+3 && r.Turns[n-1].Role == interviews.RoleAgent && len(r.Turns[n-1].QuestionIDs) > 0
	})
	resp, err := back.Room().LocalParticipant.PerformRpc(lksdk.PerformRpcParams{DestinationIdentity: agentID, Method: worker.RPCEndInterview})
	if err != nil || resp == nil || *resp != "saved" {
		t.Fatalf("end request: %v, %v", resp, err)
	}
	select {
	case <-back.Disconnected():
	case <-ctx.Done():
		t.Fatal("the room was not deleted after the candidate ended the resumed interview")
	}

	// One record, its earlier turns kept and new ones appended.
	rec, err := store.Get(ctx, reg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if page, err := store.List(ctx, interviews.ListOptions{}); err != nil || page.Total != 1 {
		t.Errorf("records after the resume: %d (%v), want the one registered", page.Total, err)
	}
	if err := rec.Validate(); err != nil {
		t.Errorf("the resumed record is not valid: %v", err)
	}
	if rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedCandidateRequest || rec.Room != room {
		t.Errorf("resumed record ended %s by %s in room %s: %s", rec.Status, rec.EndedBy, rec.Room, dump(rec))
	}
	if len(rec.Turns) < resumed+3 {
		t.Fatalf("%d turns after the resume, want at least %d: %s", len(rec.Turns), resumed+3, dump(rec))
	}
	for i, was := range left.Turns {
		if got := rec.Turns[i]; got.Seq != was.Seq || got.Role != was.Role || got.Text != was.Text {
			t.Errorf("turn %d changed by the resume: %+v, was %+v", i+1, got, was)
		}
	}
	if w := rec.Turns[resumed]; w.Role != interviews.RoleAgent || w.Source != "resume" || w.Text != welcome.Text {
		t.Errorf("the first turn after the resume is not the welcome back: %+v", w)
	}
	if got := rec.Turns[resumed+1]; got.Role != interviews.RoleCandidate || got.Text != fullAnswers[2] {
		t.Errorf("the answer after the resume: %+v, want %q", got, fullAnswers[2])
	}
	seen := map[string]bool{}
	for _, q := range rec.Questions {
		if seen[q.ID] {
			t.Errorf("question id %s is used twice", q.ID)
		}
		seen[q.ID] = true
	}
	for _, q := range left.Questions {
		if !seen[q.ID] {
			t.Errorf("question %s asked before the crash is gone", q.ID)
		}
	}
	if len(rec.Questions) <= len(left.Questions) {
		t.Errorf("no new question after the resume: %d questions, %d before the crash", len(rec.Questions), len(left.Questions))
	}
	if len(rec.Absences) != 1 || rec.Absences[0].BackAt == nil {
		t.Errorf("absences %+v, want the crash's gap", rec.Absences)
	}
	// The session lets the interview go as its job handler returns.
	jobID := strings.TrimPrefix(agentID, "agent-")
	for id := ""; id != jobID; {
		select {
		case id = <-jobsDone:
		case <-ctx.Done():
			t.Fatal("the resumed interview's job never ended")
		}
	}
	if _, held, err := store.Lease(ctx, reg.ID); err != nil || held {
		t.Errorf("lease after the interview ended: held %v, %v", held, err)
	}
}
