package lkagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	"github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/testrig/lktest"
)

// These tests run the worker against a real livekit-server (testrig/lktest):
// registration, explicit dispatch, capacity, reconnection and draining as the
// server itself decides them. What the server concluded is read from its log
// (job statuses are visible nowhere else in the open-source server).

func init() {
	// The SDK's connection chatter (ICE and signalling states) would bury
	// test failures; the worker's and the server's logs tell the story.
	lksdk.SetLogger(logger.GetDiscardLogger())
}

// liveJob is one HandleJob call of liveAgent, after it joined the room.
type liveJob struct {
	job     Job
	room    *lksdk.Room
	ctx     context.Context
	entered time.Time // when HandleJob was called
}

// liveAgent is a handler that joins the room with the job's token, reports
// the job and holds it until released or cancelled.
type liveAgent struct {
	started  chan liveJob
	release  chan struct{}
	complete bool // report SUCCESS with Job.Complete, then leave the room
	fail     error

	mu    sync.Mutex
	rooms []*lksdk.Room
}

func newLiveAgent(t *testing.T) *liveAgent {
	a := &liveAgent{started: make(chan liveJob, 16), release: make(chan struct{})}
	t.Cleanup(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, r := range a.rooms {
			r.Disconnect()
		}
	})
	return a
}

func (a *liveAgent) HandleJob(ctx context.Context, job Job) error {
	entered := time.Now()
	if a.fail != nil {
		return a.fail
	}
	room, err := lksdk.ConnectToRoomWithToken(job.URL, job.Token, &lksdk.RoomCallback{}, lksdk.WithAutoSubscribe(false))
	if err != nil {
		return fmt.Errorf("join %s: %w", job.RoomName, err)
	}
	a.mu.Lock()
	a.rooms = append(a.rooms, room)
	a.mu.Unlock()
	a.started <- liveJob{job: job, room: room, ctx: ctx, entered: entered}
	select {
	case <-a.release:
	case <-ctx.Done():
	}
	if a.complete {
		job.Complete(nil)
		room.Disconnect()
	}
	return nil
}

// next waits for the next job this agent joined.
func (a *liveAgent) next(t *testing.T) liveJob {
	t.Helper()
	select {
	case j := <-a.started:
		return j
	case <-time.After(15 * time.Second):
		t.Fatalf("no job reached the worker within 15s")
		return liveJob{}
	}
}

// logTap keeps a worker's log lines for assertions and shows them in the
// test output.
type logTap struct {
	out   io.Writer
	mu    sync.Mutex
	lines []string
}

func (l *logTap) Write(b []byte) (int, error) {
	l.mu.Lock()
	l.lines = append(l.lines, string(b))
	l.mu.Unlock()
	return l.out.Write(b)
}

// matching returns the lines that contain every one of subs.
func (l *logTap) matching(subs ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if containsAll(line, subs...) {
			out = append(out, line)
		}
	}
	return out
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// liveWorker runs a worker against srv until the test ends and waits until
// it is registered.
func liveWorker(t *testing.T, srv *lktest.Server, opts Options, h Handler) *Worker {
	t.Helper()
	w, _, _ := liveWorkerTap(t, srv, opts, h)
	return w
}

// liveWorkerTap is liveWorker with access to the worker's log and its
// registrations.
func liveWorkerTap(t *testing.T, srv *lktest.Server, opts Options, h Handler) (*Worker, *logTap, chan string) {
	t.Helper()
	opts.URL, opts.APIKey, opts.APISecret = srv.URL, srv.APIKey, srv.APISecret
	tap := &logTap{out: t.Output()}
	opts.Logger = slog.New(slog.NewTextHandler(tap, &slog.HandlerOptions{Level: slog.LevelInfo}))
	w, err := New(opts, h)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	registered := make(chan string, 8)
	w.onRegister = func(id string) { registered <- id }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		returnsNil(t, "Run", done)
	})
	// The server answers the registration before it adds the worker to its
	// dispatch tables: wait for the latter, or an early dispatch finds no
	// worker.
	srv.WaitLog(t, 10*time.Second, "worker registered", waitRegistered(t, registered))
	return w, tap, registered
}

// returnsNil waits up to 15 s for what's result on done and reports whether
// it came and was nil, failing the test otherwise.
func returnsNil(t *testing.T, what string, done <-chan error) bool {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s = %v", what, err)
			return false
		}
		return true
	case <-time.After(15 * time.Second):
		t.Errorf("%s did not return within 15s", what)
		return false
	}
}

func waitRegistered(t *testing.T, registered <-chan string) string {
	t.Helper()
	select {
	case id := <-registered:
		return id
	case <-time.After(15 * time.Second):
		t.Fatalf("worker did not register within 15s")
		return ""
	}
}

func dispatch(t *testing.T, srv *lktest.Server, agentName, room, metadata string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := srv.DispatchClient().CreateDispatch(ctx, &livekit.CreateAgentDispatchRequest{
		AgentName: agentName, Room: room, Metadata: metadata,
	})
	if err != nil {
		t.Fatalf("CreateDispatch %s → %s: %v", agentName, room, err)
	}
}

func participant(t *testing.T, srv *lktest.Server, room, identity string) *livekit.ParticipantInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := srv.RoomClient().GetParticipant(ctx, &livekit.RoomParticipantIdentity{Room: room, Identity: identity})
	if err != nil {
		t.Fatalf("GetParticipant %s in %s: %v", identity, room, err)
	}
	return p
}

func TestLiveDispatchReachesWorker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		byToken  bool // dispatch through the candidate's token instead of the API
		complete bool
		fail     error
		status   string
	}{
		{name: "AgentDispatchService", status: "JS_SUCCESS"},
		{name: "token RoomConfiguration", byToken: true, complete: true, status: "JS_SUCCESS"},
		{name: "handler error", fail: errors.New("session: dispatch metadata is not JSON"), status: "JS_FAILED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := lktest.Start(t)
			agent := newLiveAgent(t)
			agent.complete, agent.fail = tc.complete, tc.fail
			liveWorker(t, srv, Options{AgentName: testAgentName, MaxSessions: 2}, agent)

			room, meta := "interview-1", `{"interview_id":"iv-123"}`
			sent := time.Now()
			if tc.byToken {
				srv.Connect(t, "candidate", room, nil, lktest.WithAgentDispatch(testAgentName, meta))
			} else {
				dispatch(t, srv, testAgentName, room, meta)
			}
			if tc.fail != nil {
				line := srv.WaitLog(t, 15*time.Second, "job ended", tc.status)
				if !strings.Contains(line, tc.fail.Error()) {
					t.Errorf("server log %q lacks the handler's error", line)
				}
				return
			}
			j := agent.next(t)
			t.Logf("dispatch → HandleJob: %s (%s)", j.entered.Sub(sent).Round(time.Millisecond), tc.name)
			if j.job.Metadata != meta || j.job.RoomName != room || j.job.AgentName != testAgentName || j.job.URL != srv.URL {
				t.Errorf("job = %+v", j.job)
			}
			p := participant(t, srv, room, j.job.ParticipantIdentity)
			if p.Kind != livekit.ParticipantInfo_AGENT || p.Attributes["lk.agent_name"] != testAgentName ||
				p.Attributes[AttrAgentState] != StateInitializing {
				t.Errorf("agent participant = kind %s, attributes %v; want AGENT named %s, initializing", p.Kind, p.Attributes, testAgentName)
			}

			close(agent.release)
			line := srv.WaitLog(t, 15*time.Second, "job ended", j.job.ID)
			if !strings.Contains(line, tc.status) {
				t.Errorf("server recorded %q, want %s", line, tc.status)
			}
		})
	}
}

func TestLiveOtherDispatchesDoNotReachWorker(t *testing.T) {
	t.Parallel()
	srv := lktest.Start(t)
	named := newLiveAgent(t)
	_, namedLog, _ := liveWorkerTap(t, srv, Options{AgentName: testAgentName, MaxSessions: 4}, named)
	// Sentinels: a worker under another name, and an unnamed worker (the
	// kind the server sends to every room without an explicit dispatch).
	other := newLiveAgent(t)
	liveWorker(t, srv, Options{AgentName: "other-agent", MaxSessions: 4}, other)
	unnamed := newLiveAgent(t)
	liveWorkerTap(t, srv, Options{MaxSessions: 4}, unnamed)

	dispatch(t, srv, "other-agent", "room-other", "{}")
	if j := other.next(t); j.job.RoomName != "room-other" {
		t.Fatalf("other-agent got %s", j.job.RoomName)
	}
	srv.Connect(t, "candidate", "room-undispatched", nil) // no dispatch in the token
	// The unnamed worker is sent to every room created without an agent
	// configuration: room-other (created by the API) and room-undispatched.
	got := map[string]bool{}
	for !got["room-undispatched"] {
		got[unnamed.next(t).job.RoomName] = true
	}

	// Both dispatches above were settled before this one was made: the
	// named worker's first job is this one, and it never saw the others.
	dispatch(t, srv, testAgentName, "room-named", "{}")
	if j := named.next(t); j.job.RoomName != "room-named" {
		t.Fatalf("named worker got %s, want room-named", j.job.RoomName)
	}
	for _, room := range []string{"room-other", "room-undispatched"} {
		if lines := namedLog.matching("room=" + room); len(lines) > 0 {
			t.Errorf("named worker was offered %s: %q", room, lines)
		}
	}
	select {
	case j := <-named.started:
		t.Errorf("named worker got a second job, %s", j.job.RoomName)
	default:
	}
}

func TestLiveCapacity(t *testing.T) {
	t.Parallel()

	t.Run("full worker takes no second job", func(t *testing.T) {
		t.Parallel()
		srv := lktest.Start(t)
		a := newLiveAgent(t)
		w, tap, _ := liveWorkerTap(t, srv, Options{AgentName: testAgentName, MaxSessions: 1}, a)
		dispatch(t, srv, testAgentName, "room-1", "{}")
		a.next(t)
		dispatch(t, srv, testAgentName, "room-2", "{}")
		// The server either skips the full worker or is declined by it;
		// either way it logs that room-2's job found no worker.
		line := srv.WaitLog(t, 15*time.Second, "failed to send job request", testAgentName)
		t.Logf("server: %s", line)
		if w.Active() != 1 {
			t.Errorf("Active = %d, want 1", w.Active())
		}
		if lines := tap.matching("job started", "room=room-2"); len(lines) > 0 {
			t.Errorf("full worker started room-2: %q", lines)
		}
	})

	t.Run("second worker takes what the first cannot", func(t *testing.T) {
		t.Parallel()
		srv, a, b, wa, wb := twoLiveWorkers(t, 1)
		dispatch(t, srv, testAgentName, "room-1", "{}")
		na, nb := collect(t, 1, a, b)
		dispatch(t, srv, testAgentName, "room-2", "{}")
		ma, mb := collect(t, 1, a, b)
		if na+ma != 1 || nb+mb != 1 || wa.Active() != 1 || wb.Active() != 1 {
			t.Errorf("jobs per worker = %d, %d (active %d, %d); want 1 each", na+ma, nb+mb, wa.Active(), wb.Active())
		}
	})

	t.Run("jobs split across workers", func(t *testing.T) {
		t.Parallel()
		srv, a, b, wa, wb := twoLiveWorkers(t, 4)
		for i := range 6 {
			dispatch(t, srv, testAgentName, fmt.Sprintf("room-%d", i), "{}")
		}
		na, nb := collect(t, 6, a, b)
		t.Logf("split: %d / %d", na, nb)
		// With 4 slots each, neither can hold more than 4 of 6.
		if na < 2 || nb < 2 || wa.Active() != na || wb.Active() != nb {
			t.Errorf("split %d / %d (active %d, %d), want each worker ≥ 2", na, nb, wa.Active(), wb.Active())
		}
	})
}

// twoLiveWorkers starts a server and two workers of maxSessions slots each,
// both registered under testAgentName, with agents a and b handling their
// jobs.
func twoLiveWorkers(t *testing.T, maxSessions int) (srv *lktest.Server, a, b *liveAgent, wa, wb *Worker) {
	t.Helper()
	srv = lktest.Start(t)
	a, b = newLiveAgent(t), newLiveAgent(t)
	wa = liveWorker(t, srv, Options{AgentName: testAgentName, MaxSessions: maxSessions}, a)
	wb = liveWorker(t, srv, Options{AgentName: testAgentName, MaxSessions: maxSessions}, b)
	return srv, a, b, wa, wb
}

// collect waits until agents a and b together joined n jobs and returns
// how many each joined.
func collect(t *testing.T, n int, a, b *liveAgent) (na, nb int) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for na+nb < n {
		select {
		case <-a.started:
			na++
		case <-b.started:
			nb++
		case <-timeout:
			t.Fatalf("workers joined %d + %d jobs, want %d", na, nb, n)
		}
	}
	return na, nb
}

func TestLiveReconnectAfterServerRestart(t *testing.T) {
	t.Parallel()
	srv := lktest.Start(t)
	agent := newLiveAgent(t)
	_, _, registered := liveWorkerTap(t, srv, Options{AgentName: testAgentName, MaxSessions: 3}, agent)
	dispatch(t, srv, testAgentName, "room-before", "{}")
	before := agent.next(t)

	restarted := time.Now()
	srv.Restart() // same port, fresh server: the connection drops
	id := waitRegistered(t, registered)
	t.Logf("server restart → worker registered again: %s", time.Since(restarted).Round(time.Millisecond))
	srv.WaitLog(t, 5*time.Second, "worker registered", id)

	if before.ctx.Err() != nil {
		t.Fatalf("the running job was cancelled by the reconnect: %v", context.Cause(before.ctx))
	}
	dispatch(t, srv, testAgentName, "room-after", "{}")
	if j := agent.next(t); j.job.RoomName != "room-after" {
		t.Fatalf("after reconnect got %s, want room-after", j.job.RoomName)
	}
}

func TestLiveDrain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		drainTimeout time.Duration
		release      bool // the running job finishes by itself
		wantCause    error
		wantStatus   string
	}{
		{name: "running job finishes", drainTimeout: time.Minute, release: true, wantStatus: "JS_SUCCESS"},
		{name: "drain timeout cancels", drainTimeout: 300 * time.Millisecond, wantCause: ErrDrainTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := lktest.Start(t)
			a, b := newLiveAgent(t), newLiveAgent(t)
			wa := liveWorker(t, srv, Options{AgentName: testAgentName, MaxSessions: 2, DrainTimeout: tc.drainTimeout}, a)
			dispatch(t, srv, testAgentName, "room-1", "{}")
			running := a.next(t)
			liveWorker(t, srv, Options{AgentName: testAgentName, MaxSessions: 2}, b)

			shutdown := make(chan error, 1)
			started := time.Now()
			go func() { shutdown <- wa.Shutdown(context.Background()) }()
			<-wa.drainStart

			dispatch(t, srv, testAgentName, "room-2", "{}")
			if j := b.next(t); j.job.RoomName != "room-2" {
				t.Fatalf("second worker got %s, want room-2", j.job.RoomName)
			}
			if running.ctx.Err() != nil && tc.wantCause == nil {
				t.Fatalf("draining cancelled the running job")
			}
			if tc.release {
				close(a.release)
			}
			if !returnsNil(t, "Shutdown", shutdown) {
				t.FailNow()
			}
			t.Logf("Shutdown took %s", time.Since(started).Round(time.Millisecond))
			if tc.wantCause != nil {
				if cause := context.Cause(running.ctx); !errors.Is(cause, tc.wantCause) {
					t.Errorf("job cause = %v, want %v", cause, tc.wantCause)
				}
				if time.Since(started) < tc.drainTimeout {
					t.Errorf("Shutdown returned before the drain timeout")
				}
			}
			if tc.wantStatus != "" {
				srv.WaitLog(t, 10*time.Second, "job ended", running.job.ID, tc.wantStatus)
			}
			select {
			case j := <-a.started:
				t.Errorf("draining worker started %s", j.job.RoomName)
			default:
			}
			if wa.Active() != 0 {
				t.Errorf("Active = %d after Shutdown", wa.Active())
			}
		})
	}
}

func TestLiveRejectedCredentials(t *testing.T) {
	t.Parallel()
	srv := lktest.Start(t)
	w, err := New(Options{URL: srv.HTTPURL, APIKey: srv.APIKey, APISecret: "wrong", MaxSessions: 1, Logger: quietLogger()}, newLiveAgent(t))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Run(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Run = %v, want ErrUnauthorized", err)
	}
}
