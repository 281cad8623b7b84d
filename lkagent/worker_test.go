package lkagent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/proto"
)

// These tests drive the worker through an in-memory connection whose other
// end plays the LiveKit server message by message, inside a synctest bubble
// so that pings, status ticks, backoff, reservations and drain timeouts run
// on virtual time. worker_lk_test.go runs the same protocol against a real
// livekit-server.

// memConn is one in-memory connection. The worker reads toWorker and writes
// toServer; a forwarder answers pings (unless muted) and passes every other
// message on to got.
type memConn struct {
	toWorker chan *livekit.ServerMessage
	toServer chan *livekit.WorkerMessage
	got      chan *livekit.WorkerMessage
	closed   chan struct{}
	once     sync.Once
	mute     atomic.Bool // stop answering pings
	pings    chan time.Time
}

var errConnClosed = errors.New("memconn: closed")

func newMemConn() *memConn {
	c := &memConn{
		toWorker: make(chan *livekit.ServerMessage, 16),
		toServer: make(chan *livekit.WorkerMessage, 256),
		got:      make(chan *livekit.WorkerMessage, 256),
		closed:   make(chan struct{}),
		pings:    make(chan time.Time, 256),
	}
	go c.forward()
	return c
}

func (c *memConn) forward() {
	for {
		select {
		case m := <-c.toServer:
			c.deliver(m)
		case <-c.closed:
			// Pass on what the worker wrote before the connection closed.
			for {
				select {
				case m := <-c.toServer:
					c.deliver(m)
				default:
					return
				}
			}
		}
	}
}

func (c *memConn) deliver(m *livekit.WorkerMessage) {
	if p := m.GetPing(); p != nil {
		c.pings <- time.Now()
		if !c.mute.Load() {
			c.send(&livekit.ServerMessage{Message: &livekit.ServerMessage_Pong{Pong: &livekit.WorkerPong{
				LastTimestamp: p.Timestamp, Timestamp: time.Now().UnixMilli(),
			}}})
		}
		return
	}
	c.got <- m
}

func (c *memConn) Read() (*livekit.ServerMessage, error) {
	select {
	case m := <-c.toWorker:
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *memConn) Write(m *livekit.WorkerMessage) error {
	select {
	case <-c.closed:
		return errConnClosed
	default:
	}
	select {
	case c.toServer <- proto.Clone(m).(*livekit.WorkerMessage):
		return nil
	case <-c.closed:
		return errConnClosed
	}
}

func (c *memConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *memConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// send delivers a server message to the worker.
func (c *memConn) send(m *livekit.ServerMessage) {
	select {
	case c.toWorker <- m:
	case <-c.closed:
	}
}

// next returns the next message (other than pings) that want accepts,
// skipping others; it fails after a virtual minute.
func (c *memConn) next(t *testing.T, what string, want func(*livekit.WorkerMessage) bool) *livekit.WorkerMessage {
	t.Helper()
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		select {
		case m := <-c.got:
			if want(m) {
				return m
			}
		case <-timeout.C:
			t.Fatalf("no %s from the worker within a minute", what)
			return nil
		}
	}
}

func (c *memConn) availability(t *testing.T) *livekit.AvailabilityResponse {
	t.Helper()
	return c.next(t, "availability answer", func(m *livekit.WorkerMessage) bool { return m.GetAvailability() != nil }).GetAvailability()
}

func (c *memConn) jobUpdate(t *testing.T) *livekit.UpdateJobStatus {
	t.Helper()
	return c.next(t, "job status", func(m *livekit.WorkerMessage) bool { return m.GetUpdateJob() != nil }).GetUpdateJob()
}

// status returns the next worker status that matches want.
func (c *memConn) status(t *testing.T, want func(*livekit.UpdateWorkerStatus) bool) *livekit.UpdateWorkerStatus {
	t.Helper()
	return c.next(t, "matching worker status", func(m *livekit.WorkerMessage) bool {
		return m.GetUpdateWorker() != nil && want(m.GetUpdateWorker())
	}).GetUpdateWorker()
}

// noMoreJobUpdates fails if the worker sent another job status.
func (c *memConn) noMoreJobUpdates(t *testing.T) {
	t.Helper()
	synctest.Wait()
	for {
		select {
		case m := <-c.got:
			if u := m.GetUpdateJob(); u != nil {
				t.Fatalf("unexpected job status %v", u)
			}
		default:
			return
		}
	}
}

// fakeServer hands the worker in-memory connections.
type fakeServer struct {
	conns    chan *memConn
	failures atomic.Int32 // dials to refuse before accepting
	dials    chan time.Time
}

func (f *fakeServer) dial(ctx context.Context) (transport, error) {
	f.dials <- time.Now()
	if f.failures.Load() > 0 {
		f.failures.Add(-1)
		return nil, errors.New("connection refused")
	}
	c := newMemConn()
	f.conns <- c
	return c, nil
}

// accept takes the worker's next connection, checks its registration,
// registers it and waits for its first status report.
func (f *fakeServer) accept(t *testing.T) (*memConn, *livekit.RegisterWorkerRequest) {
	t.Helper()
	var c *memConn
	select {
	case c = <-f.conns:
	case <-time.After(time.Hour):
		t.Fatalf("worker did not connect within an hour")
	}
	reg := c.next(t, "registration", func(m *livekit.WorkerMessage) bool { return m.GetRegister() != nil }).GetRegister()
	c.send(&livekit.ServerMessage{Message: &livekit.ServerMessage_Register{Register: &livekit.RegisterWorkerResponse{
		WorkerId: "AW_test", ServerInfo: &livekit.ServerInfo{Version: "fake"},
	}}})
	c.status(t, func(*livekit.UpdateWorkerStatus) bool { return true })
	return c, reg
}

// jobCall is one HandleJob call held by fakeHandler until the test says
// how it ends.
type jobCall struct {
	ctx  context.Context
	job  Job
	done chan func() error
}

// fakeHandler hands every call to the test; the call returns when the test
// sends a result function, or its context ends.
type fakeHandler struct{ calls chan jobCall }

func newFakeHandler() *fakeHandler { return &fakeHandler{calls: make(chan jobCall, 16)} }

func (h *fakeHandler) HandleJob(ctx context.Context, job Job) error {
	c := jobCall{ctx: ctx, job: job, done: make(chan func() error, 1)}
	h.calls <- c
	select {
	case f := <-c.done:
		return f()
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (h *fakeHandler) next(t *testing.T) jobCall {
	t.Helper()
	select {
	case c := <-h.calls:
		return c
	case <-time.After(time.Minute):
		t.Fatalf("handler not called within a minute")
		return jobCall{}
	}
}

// testAgentName is the agent name the tests' workers register under and
// their jobs are dispatched to.
const testAgentName = "test-agent"

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newFakeWorker builds a worker wired to a fake server.
func newFakeWorker(t *testing.T, opts Options, h Handler) (*Worker, *fakeServer) {
	t.Helper()
	if opts.URL == "" {
		opts.URL = "http://lk.test:7880"
	}
	opts.APIKey, opts.APISecret = "key", "secret"
	opts.Logger = quietLogger()
	w, err := New(opts, h)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	fs := &fakeServer{conns: make(chan *memConn, 16), dials: make(chan time.Time, 64)}
	w.dial = fs.dial
	w.jitter = func() float64 { return 0 }
	return w, fs
}

// startRun runs w until the returned stop function cancels it; stop returns
// Run's result.
func startRun(w *Worker) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { res <- w.Run(ctx) }()
	return func() error {
		cancel()
		return <-res
	}
}

// stopOK stops a run started by startRun and fails the test if Run
// returned an error.
func stopOK(t *testing.T, stop func() error) {
	t.Helper()
	if err := stop(); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// connectedWorker is a worker running against a fake server with its first
// connection registered: where most tests start.
type connectedWorker struct {
	w    *Worker
	fs   *fakeServer
	c    *memConn
	h    *fakeHandler
	stop func() error
}

// runConnected builds a worker with opts and a fake handler, runs it and
// accepts its first connection.
func runConnected(t *testing.T, opts Options) *connectedWorker {
	t.Helper()
	h := newFakeHandler()
	w, fs := newFakeWorker(t, opts, h)
	stop := startRun(w)
	c, _ := fs.accept(t)
	return &connectedWorker{w: w, fs: fs, c: c, h: h, stop: stop}
}

func roomJob(id, room string) *livekit.Job {
	return &livekit.Job{Id: id, Type: livekit.JobType_JT_ROOM, AgentName: testAgentName,
		Room: &livekit.Room{Name: room}, Metadata: `{"interview_id":"iv-` + id + `"}`, DispatchId: "AD_" + id}
}

func askAvailability(c *memConn, job *livekit.Job) {
	c.send(&livekit.ServerMessage{Message: &livekit.ServerMessage_Availability{Availability: &livekit.AvailabilityRequest{Job: job}}})
}

// assign offers job, expects the worker to accept it and assigns it.
func assign(t *testing.T, c *memConn, job *livekit.Job, url *string) {
	t.Helper()
	askAvailability(c, job)
	resp := c.availability(t)
	if !resp.Available || resp.JobId != job.Id {
		t.Fatalf("worker declined %s: %v", job.Id, resp)
	}
	job = proto.Clone(job).(*livekit.Job)
	job.State = &livekit.JobState{Status: livekit.JobStatus_JS_RUNNING, ParticipantIdentity: resp.ParticipantIdentity}
	c.send(&livekit.ServerMessage{Message: &livekit.ServerMessage_Assignment{Assignment: &livekit.JobAssignment{
		Job: job, Url: url, Token: "token-" + job.Id,
	}}})
	if u := c.jobUpdate(t); u.JobId != job.Id || u.Status != livekit.JobStatus_JS_RUNNING {
		t.Fatalf("first job status = %v, want %s RUNNING", u, job.Id)
	}
}

func TestRegistration(t *testing.T) {
	tests := []struct {
		name, agentName, want string
	}{
		{name: "unnamed worker", want: ""},
		{name: "named worker", agentName: testAgentName, want: testAgentName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w, fs := newFakeWorker(t, Options{AgentName: tc.agentName, Version: "1.2.3", MaxSessions: 4}, newFakeHandler())
				stop := startRun(w)
				c, reg := fs.accept(t)
				if reg.Type != livekit.JobType_JT_ROOM || reg.AgentName != tc.want || reg.Version != "1.2.3" || reg.GetNamespace() != "" {
					t.Errorf("registration = %v, want room jobs for %s, version 1.2.3, no namespace", reg, tc.want)
				}
				if p := reg.AllowedPermissions; !p.CanPublish || !p.CanSubscribe || !p.CanPublishData || !p.CanUpdateMetadata || p.Hidden {
					t.Errorf("permissions = %v, want publish, subscribe, data and own attributes", p)
				}
				// The periodic report says available, idle.
				st := c.status(t, func(*livekit.UpdateWorkerStatus) bool { return true })
				if st.GetStatus() != livekit.WorkerStatus_WS_AVAILABLE || st.Load != 0 || st.JobCount != 0 {
					t.Errorf("status = %v, want available, load 0", st)
				}
				stopOK(t, stop)
				if !c.isClosed() {
					t.Errorf("connection left open after Run returned")
				}
			})
		})
	}
}

func TestAvailability(t *testing.T) {
	other := roomJob("AJ_other", "r")
	other.AgentName = "someone-else"
	publisher := roomJob("AJ_pub", "r")
	publisher.Type = livekit.JobType_JT_PUBLISHER
	tests := []struct {
		name      string
		max       int
		running   int
		load      func() float32
		threshold float32
		draining  bool
		job       *livekit.Job
		want      bool
	}{
		{name: "free slot", max: 2, running: 1, job: roomJob("AJ_new", "r"), want: true},
		{name: "at capacity", max: 2, running: 2, job: roomJob("AJ_new", "r"), want: false},
		{name: "draining", max: 2, draining: true, job: roomJob("AJ_new", "r"), want: false},
		{name: "custom load full", max: 5, load: func() float32 { return 1 }, job: roomJob("AJ_new", "r"), want: false},
		{name: "custom load below one", max: 5, load: func() float32 { return 0.9 }, job: roomJob("AJ_new", "r"), want: true},
		{name: "load at threshold", max: 5, threshold: 0.75, load: func() float32 { return 0.75 }, job: roomJob("AJ_new", "r"), want: false},
		{name: "load below threshold", max: 5, threshold: 0.75, load: func() float32 { return 0.7 }, job: roomJob("AJ_new", "r"), want: true},
		{name: "sessions over threshold", max: 4, running: 3, threshold: 0.75, job: roomJob("AJ_new", "r"), want: false},
		{name: "other agent name", max: 2, job: other, want: false},
		{name: "not a room job", max: 2, job: publisher, want: false},
		{name: "already running", max: 3, running: 1, job: roomJob("AJ_0", "r"), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: tc.max, Load: tc.load, LoadThreshold: tc.threshold})
				for i := range tc.running {
					assign(t, r.c, roomJob("AJ_"+string(rune('0'+i)), "room"), nil)
					r.h.next(t)
				}
				if tc.draining {
					r.w.beginDrain()
				}
				start := time.Now()
				askAvailability(r.c, tc.job)
				resp := r.c.availability(t)
				if elapsed := time.Since(start); elapsed != 0 {
					t.Errorf("answered after %s, want at once", elapsed)
				}
				if resp.JobId != tc.job.Id || resp.Available != tc.want {
					t.Fatalf("answer = %v, want available=%v for %s", resp, tc.want, tc.job.Id)
				}
				if tc.want {
					if resp.ParticipantIdentity != "agent-"+tc.job.Id || resp.ParticipantName != testAgentName ||
						resp.ParticipantAttributes[AttrAgentState] != StateInitializing {
						t.Errorf("accept = %v, want identity agent-<job>, agent name, state initializing", resp)
					}
					if _, ok := resp.ParticipantAttributes["lk.publish_on_behalf"]; ok {
						t.Errorf("accept sets lk.publish_on_behalf: frontends would not see the agent")
					}
				}
				stopOK(t, r.stop)
			})
		})
	}
}

func TestJobLifecycle(t *testing.T) {
	cloud := "wss://eu.example.livekit.cloud"
	tests := []struct {
		name       string
		url        *string
		end        func(j Job) error
		wantURL    string
		wantStatus livekit.JobStatus
		wantError  string
	}{
		{name: "handler succeeds", end: func(Job) error { return nil },
			wantURL: "ws://lk.test:7880", wantStatus: livekit.JobStatus_JS_SUCCESS},
		{name: "handler fails", end: func(Job) error { return errors.New("session: metadata is not JSON") },
			wantURL: "ws://lk.test:7880", wantStatus: livekit.JobStatus_JS_FAILED, wantError: "session: metadata is not JSON"},
		{name: "handler panics", end: func(Job) error { panic("boom") },
			wantURL: "ws://lk.test:7880", wantStatus: livekit.JobStatus_JS_FAILED, wantError: "lkagent: job handler panicked: boom"},
		{name: "Complete reports before leaving the room", end: func(j Job) error {
			j.Complete(nil)
			return errors.New("room left")
		}, wantURL: "ws://lk.test:7880", wantStatus: livekit.JobStatus_JS_SUCCESS},
		{name: "assignment names the URL", url: &cloud, end: func(Job) error { return nil },
			wantURL: cloud, wantStatus: livekit.JobStatus_JS_SUCCESS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 4})

				assign(t, r.c, roomJob("AJ_1", "interview-abc"), tc.url)
				call := r.h.next(t)
				want := Job{ID: "AJ_1", RoomName: "interview-abc", Token: "token-AJ_1", URL: tc.wantURL,
					ParticipantIdentity: "agent-AJ_1", Metadata: `{"interview_id":"iv-AJ_1"}`, AgentName: testAgentName}
				got := call.job
				got.Raw, got.run = nil, nil
				if got != want {
					t.Errorf("job = %+v\nwant  %+v", got, want)
				}
				if call.job.Raw.GetDispatchId() != "AD_AJ_1" {
					t.Errorf("raw job = %v", call.job.Raw)
				}
				if st := r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.JobCount == 1 }); st.Load != 0.25 {
					t.Errorf("load with 1 of 4 = %v, want 0.25", st.Load)
				}
				if r.w.Active() != 1 {
					t.Errorf("Active = %d, want 1", r.w.Active())
				}

				assigned := time.Now()
				call.done <- func() error { return tc.end(call.job) }
				u := r.c.jobUpdate(t)
				// The handler ended at once: the status waits out the grace
				// that keeps it from reaching the server before the job does.
				if got := time.Since(assigned); got != r.w.minReportDelay {
					t.Errorf("final status after %s, want %s", got, r.w.minReportDelay)
				}
				if u.JobId != "AJ_1" || u.Status != tc.wantStatus || u.Error != tc.wantError {
					t.Errorf("final status = %v, want %s %q", u, tc.wantStatus, tc.wantError)
				}
				r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.JobCount == 0 && s.Load == 0 })
				r.c.noMoreJobUpdates(t)
				if r.w.Active() != 0 {
					t.Errorf("Active = %d after the job, want 0", r.w.Active())
				}
				stopOK(t, r.stop)
			})
		})
	}
}

func TestTerminationCancelsJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 2})
		assign(t, r.c, roomJob("AJ_1", "r1"), nil)
		assign(t, r.c, roomJob("AJ_2", "r2"), nil)
		first, second := r.h.next(t), r.h.next(t)
		if first.job.ID != "AJ_1" {
			first, second = second, first
		}

		r.c.send(&livekit.ServerMessage{Message: &livekit.ServerMessage_Termination{Termination: &livekit.JobTermination{JobId: "AJ_1"}}})
		<-first.ctx.Done()
		if cause := context.Cause(first.ctx); !errors.Is(cause, ErrJobTerminated) {
			t.Errorf("cause = %v, want ErrJobTerminated", cause)
		}
		if u := r.c.jobUpdate(t); u.JobId != "AJ_1" || u.Status != livekit.JobStatus_JS_FAILED {
			t.Errorf("status = %v, want AJ_1 FAILED", u)
		}
		if second.ctx.Err() != nil {
			t.Errorf("terminating AJ_1 cancelled AJ_2")
		}
		stopOK(t, r.stop)
		if cause := context.Cause(second.ctx); !errors.Is(cause, ErrWorkerStopped) {
			t.Errorf("after Run's context ended, cause = %v, want ErrWorkerStopped", cause)
		}
	})
}

func TestStatusReportsCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 2, StatusInterval: 5 * time.Second})

		assign(t, r.c, roomJob("AJ_1", "r1"), nil)
		one := r.h.next(t)
		assign(t, r.c, roomJob("AJ_2", "r2"), nil)
		r.h.next(t)
		full := r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.JobCount == 2 })
		if full.GetStatus() != livekit.WorkerStatus_WS_FULL || full.Load != 1 {
			t.Errorf("at capacity: %v, want FULL load 1", full)
		}
		// Reported again every interval, not only on change.
		start := time.Now()
		again := r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return true })
		if time.Since(start) > 5*time.Second || again.GetStatus() != livekit.WorkerStatus_WS_FULL {
			t.Errorf("periodic report %v after %s, want FULL within 5s", again, time.Since(start))
		}

		one.done <- func() error { return nil }
		free := r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.JobCount == 1 })
		if free.GetStatus() != livekit.WorkerStatus_WS_AVAILABLE || free.Load != 0.5 {
			t.Errorf("after one job ended: %v, want AVAILABLE load 0.5", free)
		}
		stopOK(t, r.stop)
	})
}

func TestReservationReleasedWithoutAssignment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 1})

		askAvailability(r.c, roomJob("AJ_1", "r1"))
		if !r.c.availability(t).Available {
			t.Fatalf("first job declined")
		}
		askAvailability(r.c, roomJob("AJ_2", "r2"))
		if r.c.availability(t).Available {
			t.Fatalf("second job accepted while the only slot is promised")
		}
		start := time.Now()
		r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool {
			return s.GetStatus() == livekit.WorkerStatus_WS_AVAILABLE
		})
		if got := time.Since(start); got != r.w.reserveTimeout {
			t.Errorf("slot released after %s, want %s", got, r.w.reserveTimeout)
		}
		askAvailability(r.c, roomJob("AJ_3", "r3"))
		if !r.c.availability(t).Available {
			t.Fatalf("job declined after the unused slot was released")
		}
		stopOK(t, r.stop)
	})
}

func TestPingsAndSilentServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 2})
		assign(t, r.c, roomJob("AJ_1", "r1"), nil)
		call := r.h.next(t)

		// A ping every interval, answered: the connection stays up.
		start := time.Now()
		for i := 1; i <= 3; i++ {
			at := <-r.c.pings
			if got, want := at.Sub(start), time.Duration(i)*r.w.pingInterval; got != want {
				t.Fatalf("ping %d at %s, want %s", i, got, want)
			}
		}
		if r.c.isClosed() {
			t.Fatalf("connection closed although pings were answered")
		}

		// The server goes silent: the worker gives up on the connection
		// after interval+timeout and reconnects after the first backoff.
		r.c.mute.Store(true)
		muted := time.Now()
		<-r.c.closed
		if got, want := time.Since(muted), r.w.pingInterval+r.w.pingTimeout; got > want {
			t.Errorf("silent connection dropped after %s, want ≤ %s", got, want)
		}
		c2, _ := r.fs.accept(t)
		st := c2.status(t, func(*livekit.UpdateWorkerStatus) bool { return true })
		if st.JobCount != 1 {
			t.Errorf("after reconnect: %v, want the running job counted", st)
		}
		if call.ctx.Err() != nil {
			t.Errorf("reconnect cancelled the running job")
		}
		// The job still reports on the new connection.
		call.done <- func() error { return nil }
		if u := c2.jobUpdate(t); u.JobId != "AJ_1" || u.Status != livekit.JobStatus_JS_SUCCESS {
			t.Errorf("status = %v, want AJ_1 SUCCESS on the new connection", u)
		}
		stopOK(t, r.stop)
	})
}

func TestReconnectBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, fs := newFakeWorker(t, Options{AgentName: testAgentName, MaxSessions: 1}, newFakeHandler())
		w.jitter = func() float64 { return 0.5 }
		fs.failures.Store(4)
		stop := startRun(w)

		// Refused dials: 250 ms doubling, each 3/4 of the step with jitter 0.5.
		wantGaps := []time.Duration{187500 * time.Microsecond, 375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}
		prev := <-fs.dials
		for i, want := range wantGaps {
			at := <-fs.dials
			if got := at.Sub(prev); got != want {
				t.Errorf("gap before dial %d = %s, want %s", i+2, got, want)
			}
			prev = at
		}
		c, _ := fs.accept(t)

		// After a registered connection drops, backoff starts over.
		c.Close()
		at := <-fs.dials
		if got := at.Sub(prev); got != 187500*time.Microsecond {
			t.Errorf("gap after a registered connection = %s, want the first step again", got)
		}
		fs.accept(t)
		stopOK(t, stop)
	})
}

func TestBackoffDelay(t *testing.T) {
	tests := []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{attempt: 0, jitter: 0, want: 125 * time.Millisecond},
		{attempt: 0, jitter: 1, want: 250 * time.Millisecond},
		{attempt: 3, jitter: 0, want: time.Second},
		{attempt: 6, jitter: 1, want: 15 * time.Second}, // 16 s capped at 15 s
		{attempt: 6, jitter: 0, want: 7500 * time.Millisecond},
		{attempt: 200, jitter: 0.5, want: 11250 * time.Millisecond},
	}
	for _, tc := range tests {
		got := backoffDelay(tc.attempt, 250*time.Millisecond, 15*time.Second, func() float64 { return tc.jitter })
		if got != tc.want {
			t.Errorf("backoffDelay(%d, jitter %v) = %s, want %s", tc.attempt, tc.jitter, got, tc.want)
		}
	}
}

func TestShutdown(t *testing.T) {
	tests := []struct {
		name         string
		drainTimeout time.Duration
		ctxTimeout   time.Duration // 0: none
		jobRuns      time.Duration // the handler returns by itself after this; 0: only when cancelled
		wantErr      error
		wantCause    error // nil: the job ended by itself
		wantAfter    time.Duration
		wantStatus   livekit.JobStatus
	}{
		{name: "running job finishes", drainTimeout: time.Minute, jobRuns: 20 * time.Second,
			wantAfter: 20 * time.Second, wantStatus: livekit.JobStatus_JS_SUCCESS},
		{name: "drain timeout cancels the job", drainTimeout: 30 * time.Second,
			wantCause: ErrDrainTimeout, wantAfter: 30 * time.Second, wantStatus: livekit.JobStatus_JS_FAILED},
		{name: "shutdown context ends first", drainTimeout: time.Hour, ctxTimeout: 10 * time.Second,
			wantErr: context.DeadlineExceeded, wantCause: ErrWorkerStopped, wantAfter: 10 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newFakeHandler()
				w, fs := newFakeWorker(t, Options{AgentName: testAgentName, MaxSessions: 3, DrainTimeout: tc.drainTimeout}, h)
				ctx, cancelRun := context.WithCancel(context.Background())
				defer cancelRun()
				runErr := make(chan error, 1)
				go func() { runErr <- w.Run(ctx) }()
				c, _ := fs.accept(t)
				assign(t, c, roomJob("AJ_1", "r1"), nil)
				call := h.next(t)
				if tc.jobRuns > 0 {
					go func() {
						time.Sleep(tc.jobRuns)
						call.done <- func() error { return nil }
					}()
				}

				sctx := context.Background()
				if tc.ctxTimeout > 0 {
					var cancel context.CancelFunc
					sctx, cancel = context.WithTimeout(sctx, tc.ctxTimeout)
					defer cancel()
				}
				start := time.Now()
				shutdownErr := make(chan error, 1)
				go func() { shutdownErr <- w.Shutdown(sctx) }()

				// Draining: reported full at once, new jobs declined, the
				// running job's context alive.
				<-w.drainStart
				drainAt := time.Now()
				c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.GetStatus() == livekit.WorkerStatus_WS_FULL })
				if got := time.Since(drainAt); got != 0 {
					t.Errorf("FULL reported %s after draining began, want at once", got)
				}
				askAvailability(c, roomJob("AJ_2", "r2"))
				if c.availability(t).Available {
					t.Errorf("accepted a job while draining")
				}
				if !w.Draining() || call.ctx.Err() != nil {
					t.Errorf("Draining = %v, job ctx err = %v; want draining with the job alive", w.Draining(), call.ctx.Err())
				}

				if err := <-shutdownErr; !errors.Is(err, tc.wantErr) {
					t.Errorf("Shutdown = %v, want %v", err, tc.wantErr)
				}
				if got := time.Since(start); got != tc.wantAfter {
					t.Errorf("Shutdown returned after %s, want %s", got, tc.wantAfter)
				}
				if tc.wantStatus != livekit.JobStatus_JS_PENDING {
					if u := c.jobUpdate(t); u.Status != tc.wantStatus {
						t.Errorf("final status = %v, want %s", u, tc.wantStatus)
					}
				}
				if cause := context.Cause(call.ctx); tc.wantCause != nil && !errors.Is(cause, tc.wantCause) {
					t.Errorf("job cause = %v, want %v", cause, tc.wantCause)
				}
				if err := <-runErr; err != nil {
					t.Errorf("Run = %v, want nil after Shutdown", err)
				}
				if !c.isClosed() {
					t.Errorf("connection open after Shutdown")
				}
			})
		})
	}
}

// TestShutdownWithoutDrainTimeout checks that a zero DrainTimeout means no
// wait: Shutdown cancels the running job at once.
func TestShutdownWithoutDrainTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 1})
		assign(t, r.c, roomJob("AJ_1", "r1"), nil)
		call := r.h.next(t)
		// Past the grace before a job's final status may be sent.
		time.Sleep(r.w.minReportDelay)

		start := time.Now()
		if err := r.w.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown = %v", err)
		}
		if got := time.Since(start); got != 0 {
			t.Errorf("Shutdown returned after %s, want at once", got)
		}
		if cause := context.Cause(call.ctx); !errors.Is(cause, ErrDrainTimeout) {
			t.Errorf("job cause = %v, want %v", cause, ErrDrainTimeout)
		}
		if u := r.c.jobUpdate(t); u.Status != livekit.JobStatus_JS_FAILED {
			t.Errorf("final status = %v, want FAILED", u)
		}
		stopOK(t, r.stop)
	})
}

func TestShutdownBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newFakeWorker(t, Options{AgentName: testAgentName, MaxSessions: 1}, newFakeHandler())
		if err := w.Shutdown(context.Background()); err != nil {
			t.Fatalf("Shutdown = %v", err)
		}
		if err := w.Run(context.Background()); err != nil {
			t.Fatalf("Run after Shutdown = %v, want nil at once", err)
		}
		if err := w.Run(context.Background()); err == nil {
			t.Fatalf("second Run = nil, want an error")
		}
	})
}

func TestOptionsValidate(t *testing.T) {
	ok := Options{URL: "ws://127.0.0.1:7880", APIKey: "devkey", APISecret: "secret", MaxSessions: 1}
	tests := []struct {
		name string
		edit func(*Options)
		want string // substring of the error; "" for valid
	}{
		{name: "valid", edit: func(*Options) {}},
		{name: "no URL", edit: func(o *Options) { o.URL = "" }, want: "LIVEKIT_URL is not set"},
		{name: "bad scheme", edit: func(o *Options) { o.URL = "ftp://x" }, want: `has scheme "ftp": use ws://, wss://, http:// or https://`},
		{name: "no host", edit: func(o *Options) { o.URL = "ws://" }, want: "is not a ws://, wss://, http:// or https:// address"},
		{name: "no key", edit: func(o *Options) { o.APIKey = "" }, want: "LIVEKIT_API_KEY and LIVEKIT_API_SECRET"},
		{name: "no secret", edit: func(o *Options) { o.APISecret = "" }, want: "LIVEKIT_API_KEY and LIVEKIT_API_SECRET"},
		{name: "no sessions", edit: func(o *Options) { o.MaxSessions = 0 }, want: "max sessions is 0"},
		{name: "negative sessions", edit: func(o *Options) { o.MaxSessions = -1 }, want: "max sessions is -1"},
		{name: "zero drain timeout", edit: func(o *Options) { o.DrainTimeout = 0 }},
		{name: "negative drain", edit: func(o *Options) { o.DrainTimeout = -time.Second }, want: "drain timeout"},
		{name: "negative interval", edit: func(o *Options) { o.StatusInterval = -time.Second }, want: "status interval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			err := o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				if _, err := New(o, newFakeHandler()); err != nil {
					t.Fatalf("New = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want %q", err, tc.want)
			}
			if _, err := New(o, newFakeHandler()); err == nil {
				t.Fatalf("New accepted invalid options")
			}
		})
	}
	if _, err := New(ok, nil); err == nil {
		t.Errorf("New accepted a nil handler")
	}
}

func TestEndpoints(t *testing.T) {
	tests := []struct{ in, agent, room string }{
		{"ws://127.0.0.1:7880", "ws://127.0.0.1:7880/agent?protocol=1", "ws://127.0.0.1:7880"},
		{"http://127.0.0.1:7880/", "ws://127.0.0.1:7880/agent?protocol=1", "ws://127.0.0.1:7880"},
		{"https://proj.livekit.cloud", "wss://proj.livekit.cloud/agent?protocol=1", "wss://proj.livekit.cloud"},
		{"wss://lk.example.com/livekit/", "wss://lk.example.com/livekit/agent?protocol=1", "wss://lk.example.com/livekit"},
	}
	for _, tc := range tests {
		agent, room, err := endpoints(tc.in)
		if err != nil || agent != tc.agent || room != tc.room {
			t.Errorf("endpoints(%q) = %q, %q, %v; want %q, %q", tc.in, agent, room, err, tc.agent, tc.room)
		}
	}
	// The web app hands browsers the same address the worker joins with:
	// one rule reads LIVEKIT_URL for both, so a query is refused here too.
	if _, _, err := endpoints("wss://lk.example.com/livekit?x=1"); err == nil || !strings.Contains(err.Error(), "lkagent: LiveKit URL") {
		t.Errorf("endpoints accepted a URL with a query: %v", err)
	}
}

// TestAdmit: with Options.Admit, an offer is answered once Admit has
// decided: accepted when it returns nil, declined (refused) when it returns
// an error, and the refused job's slot is free again; Admit sees the room
// and the dispatch metadata, and one that takes too long is given up on.
func TestAdmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []Job
		var reasons []string
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 1,
			OnAvailability: func(_ bool, reason string) { reasons = append(reasons, reason) },
			Admit: func(ctx context.Context, job Job) error {
				seen = append(seen, job)
				switch job.RoomName {
				case "over":
					time.Sleep(time.Second) // reading the record
					return errors.New("the interview is over")
				case "slow":
					<-ctx.Done()
					return ctx.Err()
				}
				return nil
			}})
		start := time.Now()
		askAvailability(r.c, roomJob("AJ_over", "over"))
		if resp := r.c.availability(t); resp.Available || resp.JobId != "AJ_over" {
			t.Fatalf("answer to a refused job = %v, want declined", resp)
		}
		if took := time.Since(start); took != time.Second {
			t.Errorf("answered after %s, want once Admit decided (1s)", took)
		}
		start = time.Now()
		askAvailability(r.c, roomJob("AJ_slow", "slow"))
		if resp := r.c.availability(t); resp.Available {
			t.Fatalf("answer to a job Admit never decided = %v, want declined", resp)
		}
		if took := time.Since(start); took != AdmitTimeout {
			t.Errorf("gave up after %s, want %s", took, AdmitTimeout)
		}
		// The refused jobs' slots are free: the one slot takes this job.
		assign(t, r.c, roomJob("AJ_ok", "ok"), nil)
		r.h.next(t)
		if len(seen) != 3 || seen[0].Metadata != `{"interview_id":"iv-AJ_over"}` || seen[0].ID != "AJ_over" || seen[0].Token != "" {
			t.Errorf("Admit saw %+v", seen)
		}
		if want := []string{DeclineRefused, DeclineRefused, ""}; !slices.Equal(reasons, want) {
			t.Errorf("OnAvailability reasons %q, want %q", reasons, want)
		}
		stopOK(t, r.stop)
	})
}
