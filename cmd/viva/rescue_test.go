package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viva-interviews/viva/bench"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/rescue"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/web"
)

// rescueAgentName is the agent name the workers of the crash test register.
const rescueAgentName = "viva-rescue-test"

// startAgentProcess runs "viva agent" (this test binary standing in for
// viva) as a separate process against lk, keeping records in data, and
// returns once it has registered, with the path of its log; env adds to
// its environment (VIVA_DATABASE_URL for PostgreSQL). The process is
// killed when the test ends.
func startAgentProcess(t *testing.T, lk *lktest.Server, data, name string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "agent", "--livekit-url", lk.URL, "--livekit-api-key", lk.APIKey,
		"--agent-name", rescueAgentName, "--data-dir", data, "--health-addr", "off", "--log-level", "info",
		"--llm", "scripted", "--stt", "sphinx", "--tts", "flite", "--drain-timeout", "0s")
	cmd.Env = append(os.Environ(), bench.WorkerEnv+"=1", "LIVEKIT_API_SECRET="+lk.APISecret, "OPENAI_API_KEY=", "DEEPGRAM_API_KEY=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		if t.Failed() {
			out, _ := os.ReadFile(logf.Name())
			t.Logf("%s's log:\n%s", name, tailLines(string(out), 40))
		}
	})
	before := strings.Count(strings.Join(lk.LogLines(), "\n"), "worker registered")
	deadline := time.Now().Add(90 * time.Second)
	for strings.Count(strings.Join(lk.LogLines(), "\n"), "worker registered") == before {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not register with livekit-server", name)
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logf.Name())
			t.Fatalf("%s exited before registering:\n%s", name, tailLines(string(out), 40))
		case <-time.After(100 * time.Millisecond):
		}
	}
	return cmd, logf.Name()
}

// tailLines is the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > timeout {
			t.Fatalf("waited %s for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start)
}

// processRig is a livekit-server, a data directory the worker processes
// share and the store on it, and one registered interview.
type processRig struct {
	lk    *lktest.Server
	data  string
	store *filestore.Store
	rec   *interviews.Record
}

// startProcessRig starts livekit-server and registers an interview with
// candidate name.
func startProcessRig(t *testing.T, ctx context.Context, name string) *processRig {
	t.Helper()
	r := &processRig{lk: lktest.Start(t), data: t.TempDir()}
	var err error
	if r.store, err = filestore.Open(r.data); err != nil {
		t.Fatal(err)
	}
	r.rec = &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Backend engineer"}, Room: web.RoomName(name), Blueprint: stages.DefaultName}
	if err := r.store.Create(ctx, r.rec); err != nil {
		t.Fatal(err)
	}
	return r
}

// join brings the candidate into the interview's room with a token that
// dispatches the interviewer, as the web app's does.
func (r *processRig) join(t *testing.T, ctx context.Context) *candidatebot.Bot {
	t.Helper()
	meta, err := interviews.Dispatch{InterviewID: r.rec.ID}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	bot, err := candidatebot.Join(ctx, candidatebot.Options{URL: r.lk.URL,
		Token: r.lk.Token(web.CandidateIdentity(r.rec.ID), r.rec.Room, lktest.WithAgentDispatch(rescueAgentName, meta))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bot.Leave)
	return bot
}

// TestCrashedWorkerCandidateServedAgain: a real "viva agent" process is
// killed (SIGKILL) mid-interview while the candidate stays in the room,
// and a new worker process is started at once. The watchdog the web app
// runs sweeps the dead session's record once its lease lapses and
// dispatches the interviewer again: the candidate hears a new interviewer,
// and the same record continues, resumed by the new session, its earlier
// turns kept.
func TestCrashedWorkerCandidateServedAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts livekit-server and two worker processes")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	r := startProcessRig(t, ctx, "Ada Lovelace")
	lk, data, store, rec := r.lk, r.data, r.store, r.rec
	first, _ := startAgentProcess(t, lk, data, "worker-1")
	bot := r.join(t, ctx)
	firstAgent, err := bot.WaitAgent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitAgentSpeech(ctx, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the record to be in progress", time.Minute, func() bool {
		r, err := store.Get(ctx, rec.ID)
		return err == nil && r.Status == interviews.StatusInProgress && len(r.Turns) > 0
	})
	before, err := store.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}

	// The worker dies without a word; a new one starts at once.
	if err := syscall.Kill(-first.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	startAgentProcess(t, lk, data, "worker-2")
	watchdog := &rescue.Watchdog{Store: store, Rooms: lk.RoomClient(), Dispatcher: lk.DispatchClient(),
		AgentName: rescueAgentName, CandidateIdentity: web.CandidateIdentity}
	wctx, stopWatchdog := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { defer close(watched); watchdog.Run(wctx, 250*time.Millisecond) }()
	defer func() { stopWatchdog(); <-watched }()

	heard := bot.AgentAudio().Voiced
	waitFor(t, "a new interviewer in the room", 2*time.Minute, func() bool {
		id := bot.AgentIdentity()
		return id != "" && id != firstAgent
	})
	joined := time.Since(killed)
	if err := bot.WaitAgentSpeech(ctx, 500*time.Millisecond); err != nil {
		t.Fatalf("the candidate heard no interviewer after the crash: %v", err)
	}
	spoke := time.Since(killed)
	t.Logf("after the kill: a new interviewer joined in %s and spoke in %s (voiced audio %s before, %s after)",
		joined.Round(100*time.Millisecond), spoke.Round(100*time.Millisecond), heard, bot.AgentAudio().Voiced)

	// The new session's welcome back is saved after the earlier turns.
	var after *interviews.Record
	waitFor(t, "the resumed session to save a turn", time.Minute, func() bool {
		after, err = store.Get(ctx, rec.ID)
		return err == nil && len(after.Turns) > len(before.Turns)
	})
	if after.Status != interviews.StatusInProgress {
		t.Errorf("the record is %s (%s) after the new session started, want in_progress", after.Status, after.EndedBy)
	}
	if after.Turns[0].Text != before.Turns[0].Text {
		t.Errorf("the record did not continue: %d turns before the crash, %d after (first %q, was %q)",
			len(before.Turns), len(after.Turns), after.Turns[0].Text, before.Turns[0].Text)
	}
	lease, held, err := store.Lease(ctx, rec.ID)
	if err != nil || !held || !strings.Contains(lease.Owner, strings.TrimPrefix(bot.AgentIdentity(), "agent-")) {
		t.Errorf("lease %+v (held %v, %v), want it held by the new interviewer's job", lease, held, err)
	}
}

// TestOldTokenOfFinishedInterviewRefused: a candidate token of an
// interview that is over dispatches the interviewer when it opens a room;
// a real "viva agent" refuses the job before accepting it, so no
// interviewer joins the room and the record stays as it was.
func TestOldTokenOfFinishedInterviewRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts livekit-server and a worker process")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r := startProcessRig(t, ctx, "Grace Hopper")
	lk, store, rec := r.lk, r.store, r.rec
	at := time.Now().UTC().Round(0)
	rec.Start(at)
	rec.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, at)
	if err := store.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	_, logPath := startAgentProcess(t, lk, r.data, "worker")
	workerLog := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	bot := r.join(t, ctx)
	waitFor(t, "the worker to refuse the job", time.Minute, func() bool { return strings.Contains(workerLog(), "lkagent: refused job") })
	// The server has the answer; the room is still open with no
	// interviewer in it, and no job ran.
	lk.WaitLog(t, 30*time.Second, "no worker available to handle job", rec.Room)
	if id := bot.AgentIdentity(); id != "" {
		t.Errorf("interviewer %s joined the room of an interview that is over", id)
	}
	if strings.Contains(workerLog(), "lkagent: job started") {
		t.Errorf("the worker started a job for an interview that is over:\n%s", tailLines(workerLog(), 20))
	}
	if got, err := store.Get(ctx, rec.ID); err != nil || got.Status != interviews.StatusCompleted || len(got.Turns) != 0 {
		t.Errorf("the record changed (%v): %+v", err, got)
	}
}
