// Package lkagent is a LiveKit agent worker in Go: it speaks the /agent
// websocket protocol every LiveKit agent framework speaks (register,
// answer availability, take job assignments and report their status, report
// load, ping, reconnect with backoff, drain), and hands each job to a Handler
// that joins the room with the job's token. It knows nothing of what the
// agent does in the room, so any Go program can serve LiveKit dispatches
// with it.
//
// A worker serving explicit dispatches to "my-agent", draining on SIGTERM:
//
//	w, err := lkagent.New(lkagent.Options{
//		URL: os.Getenv("LIVEKIT_URL"), APIKey: os.Getenv("LIVEKIT_API_KEY"), APISecret: os.Getenv("LIVEKIT_API_SECRET"),
//		AgentName: "my-agent", MaxSessions: 10, DrainTimeout: time.Minute,
//	}, lkagent.HandlerFunc(func(ctx context.Context, job lkagent.Job) error {
//		// join job.RoomName at job.URL with job.Token; hold the session until ctx ends
//		return nil
//	}))
//	if err != nil {
//		return err
//	}
//	go func() {
//		<-sigterm
//		w.Shutdown(context.Background()) // no new jobs; running ones get DrainTimeout to finish
//	}()
//	return w.Run(ctx) // returns once Shutdown finished or ctx ended
package lkagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/protocol/livekit"

	"github.com/viva-interviews/viva/lkagent/lkurl"
)

const (
	// DefaultStatusInterval is how often the worker reports its load.
	DefaultStatusInterval = 2500 * time.Millisecond

	// protocolVersion is the agent protocol version sent as ?protocol=.
	protocolVersion = 1
	// maxJobErrorBytes bounds the error text sent with a FAILED status.
	maxJobErrorBytes = 2048
	// maxServerMessageBytes bounds one message read from the server.
	maxServerMessageBytes = 4 << 20
)

// Agent participant attribute and state values LiveKit frontends read.
const (
	// AttrAgentState is the participant attribute holding the agent state.
	AttrAgentState = "lk.agent.state"
	// StateInitializing is the state from joining until the session is ready.
	StateInitializing = "initializing"
	// StateListening means the agent waits for the candidate to speak.
	StateListening = "listening"
	// StateThinking means the agent is preparing its answer.
	StateThinking = "thinking"
	// StateSpeaking means agent audio is playing.
	StateSpeaking = "speaking"
)

// Causes a job's context is cancelled with; read them with context.Cause to
// decide how to end the session (say goodbye, save state, report).
var (
	// ErrJobTerminated means the LiveKit server ended the job (the room
	// closed, the agent was removed, or the dispatch was deleted).
	ErrJobTerminated = errors.New("lkagent: job terminated by the LiveKit server")
	// ErrDrainTimeout means Shutdown waited Options.DrainTimeout and the job
	// was still running.
	ErrDrainTimeout = errors.New("lkagent: drain timeout reached while the job was running")
	// ErrWorkerStopped means the worker stopped at once (Run's context ended,
	// or Shutdown's context expired).
	ErrWorkerStopped = errors.New("lkagent: stopped")
	// ErrUnauthorized is returned by Run when the server rejects the
	// credentials; retrying cannot fix that.
	ErrUnauthorized = errors.New("lkagent: LiveKit rejected the API key or secret: check LIVEKIT_API_KEY and LIVEKIT_API_SECRET")
)

// errStopping ends a connection because the worker is stopping.
var errStopping = errors.New("lkagent: stopping")

// Why the worker declined a job LiveKit offered it, as logged and given to
// Options.OnAvailability.
const (
	// DeclineNoID: the offer named no job.
	DeclineNoID = "no_job_id"
	// DeclineNotRoomJob: the job is not a room job.
	DeclineNotRoomJob = "not_room_job"
	// DeclineOtherAgent: the job was dispatched to another agent name.
	DeclineOtherAgent = "other_agent_name"
	// DeclineDraining: the worker is draining.
	DeclineDraining = "draining"
	// DeclineDuplicate: the worker already accepted the job.
	DeclineDuplicate = "already_accepted"
	// DeclineAtCapacity: the worker runs Options.MaxSessions jobs.
	DeclineAtCapacity = "at_capacity"
	// DeclineLoad: the worker's load is at or above
	// Options.LoadThreshold.
	DeclineLoad = "load_threshold"
	// DeclineRefused: Options.Admit refused the job.
	DeclineRefused = "refused"
)

// AdmitTimeout bounds Options.Admit: LiveKit waits about 10 s for an
// availability answer.
const AdmitTimeout = 5 * time.Second

// Status is the worker's standing with the LiveKit server, for health
// checks.
type Status int

// The worker's statuses.
const (
	// StatusDisconnected: not registered with a server (starting, or
	// reconnecting after the connection was lost); running jobs go on.
	StatusDisconnected Status = iota
	// StatusRegistered: registered and taking jobs.
	StatusRegistered
	// StatusDraining: stopping; no new jobs are taken.
	StatusDraining
)

// String names the status: disconnected, registered or draining.
func (s Status) String() string {
	switch s {
	case StatusRegistered:
		return "registered"
	case StatusDraining:
		return "draining"
	}
	return "disconnected"
}

// Options configure a Worker. URL, APIKey, APISecret and MaxSessions are
// required; the zero value of every other field means what its comment
// says.
type Options struct {
	// URL is the LiveKit server (LIVEKIT_URL): ws://, wss://, http:// or
	// https://. The worker connects to its /agent endpoint.
	URL string
	// APIKey and APISecret sign the worker's token (LIVEKIT_API_KEY,
	// LIVEKIT_API_SECRET).
	APIKey, APISecret string
	// AgentName is the name dispatches must use (token
	// RoomConfiguration.Agents or AgentDispatchService). Empty registers an
	// unnamed worker, which LiveKit sends to every new room without an
	// agent configuration.
	AgentName string
	// MaxSessions is how many jobs run at once, at least 1; at capacity the
	// worker declines new jobs and reports itself full.
	MaxSessions int
	// DrainTimeout bounds how long Shutdown waits for running jobs before
	// cancelling them (cause ErrDrainTimeout). Zero waits not at all: Shutdown
	// cancels running jobs at once.
	DrainTimeout time.Duration
	// Load, when set, reports this worker's load in [0, 1] (for example its
	// process's CPU share); at LoadThreshold the worker is full. The default is running
	// and promised jobs over MaxSessions. Never report whole-machine CPU: a
	// busy neighbour would stop dispatch to an idle worker. It is called from
	// the connection's goroutine and must not block. livekit-server stops
	// dispatching to a node once every worker there reports at least its
	// agents.target_load (0.7 by default).
	Load func() float32
	// LoadThreshold is the load at and above which the worker declines new
	// jobs and reports itself full, so LiveKit offers them to another
	// worker (LiveKit's agent frameworks default to 0.75 in production).
	// Zero means 1: only a full worker declines.
	LoadThreshold float32
	// OnAvailability, when set, is told how the worker answered each job
	// LiveKit offered it: accepted, or declined for reason (one of the
	// Decline constants). It is called from the connection's goroutine and
	// must not block; metrics count dispatches with it.
	OnAvailability func(accepted bool, reason string)
	// Admit, when set, decides whether a job LiveKit offers is worth
	// taking before the worker accepts it (and before any agent joins the
	// room): a non-nil error declines it (DeclineRefused), so a dispatch
	// that can only be refused costs no room join. It sees the job's ID,
	// RoomName, Metadata, AgentName and Raw (no Token or URL yet), runs in
	// a goroutine of its own with a context that ends after AdmitTimeout
	// or when the worker stops, and may block until then.
	Admit func(ctx context.Context, job Job) error
	// StatusInterval is how often load is reported besides on every change.
	// Default DefaultStatusInterval.
	StatusInterval time.Duration
	// Logger receives the worker's logs; default slog.Default().
	Logger *slog.Logger
	// Version is reported to the server at registration.
	Version string
}

// Validate checks the options and says what to set when one is missing or
// wrong.
func (o Options) Validate() error {
	if strings.TrimSpace(o.URL) == "" {
		return errors.New("lkagent: LIVEKIT_URL is not set: set it to the LiveKit server (ws://127.0.0.1:7880 for livekit-server --dev, wss://<project>.livekit.cloud for LiveKit Cloud)")
	}
	if _, _, err := endpoints(o.URL); err != nil {
		return err
	}
	if o.APIKey == "" || o.APISecret == "" {
		return errors.New("lkagent: LIVEKIT_API_KEY and LIVEKIT_API_SECRET must both be set (devkey and secret for livekit-server --dev)")
	}
	if o.MaxSessions < 1 {
		return fmt.Errorf("lkagent: max sessions is %d: set how many jobs one worker runs at once, at least 1", o.MaxSessions)
	}
	if o.DrainTimeout < 0 {
		return fmt.Errorf("lkagent: drain timeout is %s: use a positive duration, or 0 to cancel running jobs at once", o.DrainTimeout)
	}
	if o.LoadThreshold < 0 || o.LoadThreshold > 1 {
		return fmt.Errorf("lkagent: load threshold is %g: use a load between 0 and 1, such as 0.75, or 0 for 1", o.LoadThreshold)
	}
	if o.StatusInterval < 0 {
		return fmt.Errorf("lkagent: status interval is %s: use a positive duration, or 0 for the default (%s)", o.StatusInterval, DefaultStatusInterval)
	}
	return nil
}

// endpoints derives the worker endpoint (ws(s)://host/agent?protocol=1) and
// the room URL handed to jobs (ws(s)://host) from a LiveKit URL.
func endpoints(raw string) (agentURL, roomURL string, err error) {
	u, err := lkurl.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("lkagent: %w", err)
	}
	roomURL = u.String()
	u.Path += "/agent"
	u.RawQuery = fmt.Sprintf("protocol=%d", protocolVersion)
	return u.String(), roomURL, nil
}

// transport is one connection to the server's /agent endpoint. Read is
// called from one goroutine; Write and Close may be called from any.
type transport interface {
	Read() (*livekit.ServerMessage, error)
	Write(*livekit.WorkerMessage) error
	Close() error
}

// Worker is a LiveKit agent worker: it keeps a registered connection to the
// server, accepts jobs up to capacity and runs each in a Handler.
type Worker struct {
	opts      Options
	handler   Handler
	log       *slog.Logger
	agentName string
	agentURL  string
	roomURL   string
	dial      func(ctx context.Context) (transport, error)

	// Timing of the connection; fixed by New, shortened by tests.
	pingInterval    time.Duration // how often a WorkerPing is sent
	pingTimeout     time.Duration // silence beyond pingInterval that ends a connection
	registerTimeout time.Duration // wait for the registration answer
	reserveTimeout  time.Duration // a slot accepted for a job is held this long for its assignment
	backoffMin      time.Duration // first reconnect delay
	backoffMax      time.Duration // longest reconnect delay
	writeTimeout    time.Duration // one websocket write
	minReportDelay  time.Duration // earliest final status after an assignment
	jitter          func() float64
	onRegister      func(workerID string) // test hook: called after each registration

	jobsCtx    context.Context // parent of every job's context
	cancelJobs context.CancelCauseFunc
	kick       chan struct{} // asks the connection to report status now
	stop       chan struct{} // closed when the worker stops serving
	stopOnce   sync.Once
	runDone    chan struct{} // closed when Run returns
	drainStart chan struct{} // closed when draining begins
	wg         sync.WaitGroup

	mu       sync.Mutex
	tr       transport // the registered connection, nil while disconnected
	workerID string
	jobs     map[string]*jobRun
	reserved map[string]*time.Timer // accepted, awaiting assignment
	changed  chan struct{}          // closed and replaced when jobs or reserved shrink
	draining bool                   // decline new jobs
	closing  bool                   // start no more handlers
	started  bool                   // Run was called
}

// jobRun is the worker's record of one running job.
type jobRun struct {
	w        *Worker
	id       string
	assigned time.Time
	cancel   context.CancelCauseFunc
	reported atomic.Bool
}

// New checks opts and returns a worker ready to Run.
func New(opts Options, h Handler) (*Worker, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("lkagent: a job handler is required")
	}
	agentURL, roomURL, _ := endpoints(opts.URL)
	if opts.StatusInterval == 0 {
		opts.StatusInterval = DefaultStatusInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	w := &Worker{
		opts:            opts,
		handler:         h,
		log:             opts.Logger.With("agent_name", opts.AgentName),
		agentName:       opts.AgentName,
		agentURL:        agentURL,
		roomURL:         roomURL,
		pingInterval:    10 * time.Second,
		pingTimeout:     5 * time.Second,
		registerTimeout: 10 * time.Second,
		reserveTimeout:  15 * time.Second,
		backoffMin:      250 * time.Millisecond,
		backoffMax:      15 * time.Second,
		writeTimeout:    10 * time.Second,
		minReportDelay:  250 * time.Millisecond,
		jitter:          rand.Float64,
		kick:            make(chan struct{}, 1),
		stop:            make(chan struct{}),
		runDone:         make(chan struct{}),
		drainStart:      make(chan struct{}),
		jobs:            make(map[string]*jobRun),
		reserved:        make(map[string]*time.Timer),
		changed:         make(chan struct{}),
	}
	w.jobsCtx, w.cancelJobs = context.WithCancelCause(context.Background())
	w.dial = w.dialWebsocket
	return w, nil
}

// Active is the number of jobs whose handler is running.
func (w *Worker) Active() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.jobs)
}

// Draining reports whether the worker has stopped taking jobs (Shutdown
// began or the worker is stopping); a readiness probe should fail then.
func (w *Worker) Draining() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.draining
}

// Status says whether the worker is registered with LiveKit and taking
// jobs, draining, or disconnected.
func (w *Worker) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.draining:
		return StatusDraining
	case w.tr != nil:
		return StatusRegistered
	}
	return StatusDisconnected
}

// HealthHandler answers health checks as LiveKit's agent workers do: 200
// "OK" while the worker is registered and taking jobs, 503 with the status
// while it is draining or disconnected, so an orchestrator stops counting
// on it (and restarts one that never comes back).
func (w *Worker) HealthHandler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Header().Set("Cache-Control", "no-store")
		if st := w.Status(); st != StatusRegistered {
			rw.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintln(rw, st)
			return
		}
		_, _ = fmt.Fprintln(rw, "OK")
	})
}

// Run connects to the server, registers and serves jobs, reconnecting with
// exponential backoff and jitter whenever the connection is lost (running
// jobs keep running meanwhile). It returns nil once Shutdown has finished or
// ctx has ended and every handler has returned; when ctx ends, running jobs
// are cancelled with ErrWorkerStopped. It returns ErrUnauthorized at once
// if the server rejects the credentials.
func (w *Worker) Run(ctx context.Context) error {
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return errors.New("lkagent: Run called twice")
	}
	w.started = true
	w.mu.Unlock()
	defer close(w.runDone)

	watchDone := make(chan struct{})
	defer close(watchDone)
	go func() {
		select {
		case <-ctx.Done():
			w.hardStop()
		case <-watchDone:
		}
	}()

	var fatal error
	for attempt := 0; ; attempt++ {
		registered, err := w.serve()
		if w.stopped() {
			break
		}
		if errors.Is(err, ErrUnauthorized) {
			fatal = err
			break
		}
		if registered {
			attempt = 0
		}
		delay := backoffDelay(attempt, w.backoffMin, w.backoffMax, w.jitter)
		w.log.Warn("lkagent: not connected to LiveKit; retrying", "err", err, "retry_in", delay, "running_jobs", w.Active())
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-w.stop:
			t.Stop()
		}
	}
	if fatal != nil {
		w.log.Error("lkagent: giving up", "err", fatal)
		w.mu.Lock()
		w.draining, w.closing = true, true
		w.mu.Unlock()
		w.cancelJobs(ErrWorkerStopped)
	}
	w.wg.Wait()
	return fatal
}

// Shutdown drains the worker: it reports itself full and declines new jobs,
// waits for running jobs to finish for up to Options.DrainTimeout (with a
// zero DrainTimeout, not at all), then cancels the rest (cause
// ErrDrainTimeout) and waits for their handlers to
// return. It then disconnects, and Run returns. If ctx ends first, running
// jobs are cancelled (cause ErrWorkerStopped) and Shutdown returns ctx's
// error without waiting further.
func (w *Worker) Shutdown(ctx context.Context) error {
	w.beginDrain()
	w.log.Info("lkagent: draining", "running_jobs", w.Active(), "drain_timeout", w.opts.DrainTimeout)

	timer := time.NewTimer(w.opts.DrainTimeout)
	defer timer.Stop()
	err := w.waitIdle(ctx, timer.C)
	if errors.Is(err, ErrDrainTimeout) {
		w.log.Warn("lkagent: drain timeout reached; cancelling running jobs", "running_jobs", w.Active())
		w.cancelJobs(ErrDrainTimeout)
		err = w.waitIdle(ctx, nil)
	}
	if err != nil {
		w.cancelJobs(ErrWorkerStopped)
	}
	w.mu.Lock()
	w.closing = true
	started := w.started
	w.mu.Unlock()
	w.finish()
	if err != nil {
		return err
	}
	if started {
		select {
		case <-w.runDone:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// beginDrain stops accepting jobs and reports the worker full.
func (w *Worker) beginDrain() {
	w.mu.Lock()
	if !w.draining {
		w.draining = true
		close(w.drainStart)
	}
	w.mu.Unlock()
	w.kickStatus()
}

// hardStop cancels every job and stops serving once their handlers return
// (their final statuses still go out on the open connection).
func (w *Worker) hardStop() {
	w.beginDrain()
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.cancelJobs(ErrWorkerStopped)
	go func() {
		w.wg.Wait()
		w.finish()
	}()
}

// finish makes Run leave its loop and disconnect.
func (w *Worker) finish() {
	w.stopOnce.Do(func() { close(w.stop) })
}

func (w *Worker) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// waitIdle waits until no job runs and no slot is reserved. It returns
// ErrDrainTimeout when timeout fires and ctx's error when ctx ends.
func (w *Worker) waitIdle(ctx context.Context, timeout <-chan time.Time) error {
	for {
		w.mu.Lock()
		idle := len(w.jobs) == 0 && len(w.reserved) == 0
		changed := w.changed
		w.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-changed:
		case <-timeout:
			return ErrDrainTimeout
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// notifyLocked wakes waitIdle; w.mu must be held.
func (w *Worker) notifyLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// kickStatus asks the connection to send a status update now.
func (w *Worker) kickStatus() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// unreserve frees the slot held for job id and reports whether one was.
func (w *Worker) unreserve(id string) bool {
	w.mu.Lock()
	t, ok := w.reserved[id]
	if ok {
		t.Stop()
		delete(w.reserved, id)
		w.notifyLocked()
	}
	w.mu.Unlock()
	if ok {
		w.kickStatus()
	}
	return ok
}

// availabilityAnswer answers LiveKit's offer of job: accepted when reason
// is empty, else declined for reason.
func (w *Worker) availabilityAnswer(job *livekit.Job, reason string, load float32) *livekit.WorkerMessage {
	id := job.GetId()
	if w.opts.OnAvailability != nil {
		w.opts.OnAvailability(reason == "", reason)
	}

	resp := &livekit.AvailabilityResponse{JobId: id, Available: reason == ""}
	log := w.log.With("job_id", id, "room", job.GetRoom().GetName())
	if reason != "" {
		log.Info("lkagent: declined job", "reason", reason, "load", load, "load_threshold", w.threshold())
	} else {
		log.Debug("lkagent: accepted job")
		resp.ParticipantIdentity = agentIdentity(id)
		resp.ParticipantName = w.agentName
		// Frontends show the agent as starting up from the moment it joins.
		resp.ParticipantAttributes = map[string]string{AttrAgentState: StateInitializing}
		w.kickStatus()
	}
	return &livekit.WorkerMessage{Message: &livekit.WorkerMessage_Availability{Availability: resp}}
}
