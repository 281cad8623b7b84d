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
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

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

// Job is one dispatch assigned to this worker: a room to join.
type Job struct {
	// ID is LiveKit's job id (AJ_…).
	ID string
	// RoomName is the room to join.
	RoomName string
	// Token joins RoomName as the agent participant (kind AGENT); it is a
	// secret and must not be logged.
	Token string
	// URL is the LiveKit URL to join with Token (ws:// or wss://).
	URL string
	// ParticipantIdentity is the agent participant's identity in the room.
	ParticipantIdentity string
	// Metadata is the dispatch metadata (JSON chosen by whoever dispatched
	// the agent). It may hold candidate data: do not log it.
	Metadata string
	// AgentName is the agent name the job was dispatched to.
	AgentName string
	// Raw is the job as the server sent it.
	Raw *livekit.Job

	run *jobRun
}

// Complete reports the job's outcome to the server now: SUCCESS when err is
// nil, FAILED with err's text otherwise. Call it before leaving or deleting
// the room: livekit-server marks a job whose agent participant leaves first
// as failed ("agent worker left the room"). When HandleJob returns, the
// worker reports its result unless Complete already did; later calls do
// nothing.
func (j Job) Complete(err error) {
	if j.run != nil {
		j.run.report(err)
	}
}

// Handler runs one job: it joins the room with job.Token at job.URL and
// holds the session until it is over.
//
// ctx is cancelled when the server terminates the job (cause
// ErrJobTerminated), when a drain times out (ErrDrainTimeout) or when the
// worker stops at once (ErrWorkerStopped); while a worker drains, ctx stays
// alive up to Options.DrainTimeout. The returned error is reported to the
// server as the job's FAILED status; nil reports SUCCESS. A panic is
// recovered and reported as a failure.
type Handler interface {
	HandleJob(ctx context.Context, job Job) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job Job) error

// HandleJob calls f(ctx, job).
func (f HandlerFunc) HandleJob(ctx context.Context, job Job) error { return f(ctx, job) }

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

// backoffDelay is the wait before reconnect attempt n (from 0): min doubled
// per attempt up to max, of which the upper half is random ("equal jitter")
// so that workers cut off together do not reconnect together.
func backoffDelay(attempt int, min, max time.Duration, jitter func() float64) time.Duration {
	d := max
	if attempt < 30 {
		if e := min << attempt; e > 0 && e < max {
			d = e
		}
	}
	half := d / 2
	return half + time.Duration(jitter()*float64(d-half))
}

// dialWebsocket opens the /agent websocket with a worker token.
func (w *Worker) dialWebsocket(ctx context.Context) (transport, error) {
	token, err := auth.NewAccessToken(w.opts.APIKey, w.opts.APISecret).
		SetVideoGrant(&auth.VideoGrant{Agent: true}).
		SetValidFor(time.Hour).
		ToJWT()
	if err != nil {
		return nil, fmt.Errorf("lkagent: sign worker token: %w", err)
	}
	d := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.DialContext(ctx, w.agentURL, http.Header{"Authorization": {"Bearer " + token}})
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return nil, fmt.Errorf("%w (HTTP %d from %s)", ErrUnauthorized, resp.StatusCode, w.agentURL)
		}
		return nil, fmt.Errorf("lkagent: connect to %s: %w", w.agentURL, err)
	}
	conn.SetReadLimit(maxServerMessageBytes)
	return &wsTransport{conn: conn, writeTimeout: w.writeTimeout}, nil
}

// serve runs one connection: register, then answer the server until the
// connection fails or the worker stops. registered reports whether the
// server accepted the registration.
func (w *Worker) serve() (registered bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-w.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	tr, err := w.dial(ctx)
	if err != nil {
		return false, err
	}

	in := make(chan *livekit.ServerMessage)
	readErr := make(chan error, 1)
	quit := make(chan struct{})
	defer func() {
		close(quit)
		w.detach(tr)
		tr.Close()
	}()
	go func() {
		for {
			m, err := tr.Read()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case in <- m:
			case <-quit:
				return
			}
		}
	}()

	if err := tr.Write(w.registerMessage()); err != nil {
		return false, fmt.Errorf("lkagent: send registration: %w", err)
	}
	regTimer := time.NewTimer(w.registerTimeout)
	defer regTimer.Stop()
	var reg *livekit.RegisterWorkerResponse
	for reg == nil {
		select {
		case m := <-in:
			reg = m.GetRegister()
		case err := <-readErr:
			return false, fmt.Errorf("lkagent: registration: %w", err)
		case <-regTimer.C:
			return false, fmt.Errorf("lkagent: no registration answer within %s", w.registerTimeout)
		case <-w.stop:
			return false, errStopping
		}
	}
	w.attach(tr, reg.GetWorkerId())
	if w.onRegister != nil {
		w.onRegister(reg.GetWorkerId())
	}
	w.log.Info("lkagent: registered with LiveKit", "worker_id", reg.GetWorkerId(),
		"server_version", reg.GetServerInfo().GetVersion(), "url", w.agentURL, "running_jobs", w.Active())
	if err := tr.Write(w.statusMessage()); err != nil {
		return true, fmt.Errorf("lkagent: send status: %w", err)
	}

	ping := time.NewTicker(w.pingInterval)
	defer ping.Stop()
	status := time.NewTicker(w.opts.StatusInterval)
	defer status.Stop()
	silence := w.pingInterval + w.pingTimeout
	watchdog := time.NewTimer(silence)
	defer watchdog.Stop()
	for {
		var out *livekit.WorkerMessage
		select {
		case m := <-in:
			watchdog.Reset(silence)
			out = w.handle(m)
		case err := <-readErr:
			return true, fmt.Errorf("lkagent: connection lost: %w", err)
		case <-watchdog.C:
			return true, fmt.Errorf("lkagent: no message from the server for %s", silence)
		case <-ping.C:
			out = &livekit.WorkerMessage{Message: &livekit.WorkerMessage_Ping{
				Ping: &livekit.WorkerPing{Timestamp: time.Now().UnixMilli()},
			}}
		case <-status.C:
			out = w.statusMessage()
		case <-w.kick:
			out = w.statusMessage()
		case <-w.stop:
			return true, errStopping
		}
		if out != nil {
			if err := tr.Write(out); err != nil {
				return true, fmt.Errorf("lkagent: send: %w", err)
			}
		}
	}
}

// attach makes tr the connection job statuses go out on.
func (w *Worker) attach(tr transport, workerID string) {
	w.mu.Lock()
	w.tr, w.workerID = tr, workerID
	w.mu.Unlock()
}

// detach forgets tr and the slots reserved on it (the server that asked for
// them is gone with the connection).
func (w *Worker) detach(tr transport) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tr == tr {
		w.tr = nil
	}
	if len(w.reserved) > 0 {
		for id, t := range w.reserved {
			t.Stop()
			delete(w.reserved, id)
		}
		w.notifyLocked()
	}
}

// registerMessage registers a room-job worker under the agent name.
func (w *Worker) registerMessage() *livekit.WorkerMessage {
	return &livekit.WorkerMessage{Message: &livekit.WorkerMessage_Register{Register: &livekit.RegisterWorkerRequest{
		Type:      livekit.JobType_JT_ROOM,
		AgentName: w.agentName,
		Version:   w.opts.Version,
		AllowedPermissions: &livekit.ParticipantPermission{
			CanSubscribe:      true,
			CanPublish:        true,
			CanPublishData:    true,
			CanUpdateMetadata: true, // the agent sets its own attributes
		},
	}}}
}

// load is the worker's load in [0, 1].
func (w *Worker) load() float32 {
	var l float32
	if w.opts.Load != nil {
		l = w.opts.Load()
	} else {
		w.mu.Lock()
		l = float32(len(w.jobs)+len(w.reserved)) / float32(w.opts.MaxSessions)
		w.mu.Unlock()
	}
	return min(max(l, 0), 1)
}

// threshold is the load at which the worker declines jobs.
func (w *Worker) threshold() float32 {
	if w.opts.LoadThreshold > 0 {
		return w.opts.LoadThreshold
	}
	return 1
}

// statusMessage reports load, job count and whether the worker is full.
func (w *Worker) statusMessage() *livekit.WorkerMessage {
	load := w.load()
	w.mu.Lock()
	n := len(w.jobs)
	full := w.draining || n+len(w.reserved) >= w.opts.MaxSessions || load >= w.threshold()
	w.mu.Unlock()
	status := livekit.WorkerStatus_WS_AVAILABLE
	if full {
		status = livekit.WorkerStatus_WS_FULL
	}
	return &livekit.WorkerMessage{Message: &livekit.WorkerMessage_UpdateWorker{UpdateWorker: &livekit.UpdateWorkerStatus{
		Status:   &status,
		Load:     load,
		JobCount: uint32(n),
	}}}
}

// handle answers one server message; it returns the reply to send, if any.
func (w *Worker) handle(m *livekit.ServerMessage) *livekit.WorkerMessage {
	switch msg := m.GetMessage().(type) {
	case *livekit.ServerMessage_Availability:
		return w.answerAvailability(msg.Availability)
	case *livekit.ServerMessage_Assignment:
		w.startJob(msg.Assignment)
	case *livekit.ServerMessage_Termination:
		w.terminate(msg.Termination.GetJobId())
	case *livekit.ServerMessage_Pong:
		w.log.Debug("lkagent: pong", "rtt", time.Since(time.UnixMilli(msg.Pong.GetLastTimestamp())))
	}
	return nil
}

// answerAvailability accepts a job when a slot is free and the worker is not
// draining; the slot is held until the assignment arrives.
func (w *Worker) answerAvailability(req *livekit.AvailabilityRequest) *livekit.WorkerMessage {
	job := req.GetJob()
	id := job.GetId()
	load := w.load()
	w.mu.Lock()
	_, running := w.jobs[id]
	_, held := w.reserved[id]
	reason := ""
	switch {
	case id == "":
		reason = DeclineNoID
	case job.GetType() != livekit.JobType_JT_ROOM:
		reason = DeclineNotRoomJob
	case job.GetAgentName() != w.agentName:
		reason = DeclineOtherAgent
	case w.draining:
		reason = DeclineDraining
	case running || held:
		reason = DeclineDuplicate
	case len(w.jobs)+len(w.reserved) >= w.opts.MaxSessions:
		reason = DeclineAtCapacity
	case load >= w.threshold():
		reason = DeclineLoad
	default:
		w.reserved[id] = time.AfterFunc(w.reserveTimeout, func() { w.release(id) })
	}
	tr := w.tr
	w.mu.Unlock()
	if reason == "" && w.opts.Admit != nil {
		// The slot is held while Admit decides; the answer goes out on
		// the connection that asked.
		go func() {
			ctx, cancel := context.WithTimeout(w.jobsCtx, AdmitTimeout)
			defer cancel()
			offer := Job{ID: id, RoomName: job.GetRoom().GetName(), Metadata: job.GetMetadata(), AgentName: job.GetAgentName(), Raw: job}
			reason := ""
			if err := w.opts.Admit(ctx, offer); err != nil {
				reason = DeclineRefused
				w.log.Info("lkagent: refused job", "job_id", id, "room", offer.RoomName, "err", err)
				_ = w.unreserve(id)
			}
			if tr == nil {
				return
			}
			if err := tr.Write(w.availabilityAnswer(job, reason, load)); err != nil {
				w.log.Debug("lkagent: availability answer not sent", "job_id", id, "err", err)
			}
		}()
		return nil
	}
	return w.availabilityAnswer(job, reason, load)
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

// agentIdentity is the agent participant's identity for a job.
func agentIdentity(jobID string) string { return "agent-" + jobID }

// release frees a slot whose assignment never came.
func (w *Worker) release(id string) {
	if w.unreserve(id) {
		w.log.Warn("lkagent: accepted job was never assigned; slot released", "job_id", id)
	}
}

// startJob runs the handler for an assigned job.
func (w *Worker) startJob(a *livekit.JobAssignment) {
	raw := a.GetJob()
	id := raw.GetId()
	log := w.log.With("job_id", id, "room", raw.GetRoom().GetName())
	roomURL := w.roomURL
	if a.Url != nil && a.GetUrl() != "" {
		roomURL = a.GetUrl()
	}
	identity := raw.GetState().GetParticipantIdentity()
	if identity == "" {
		identity = agentIdentity(id)
	}

	w.mu.Lock()
	if t, ok := w.reserved[id]; ok {
		t.Stop()
		delete(w.reserved, id)
	}
	if _, dup := w.jobs[id]; dup || id == "" {
		w.mu.Unlock()
		log.Warn("lkagent: ignoring duplicate or anonymous job assignment")
		return
	}
	if w.closing {
		w.mu.Unlock()
		log.Warn("lkagent: job assigned while stopping; reporting it failed")
		w.sendJobStatus(id, livekit.JobStatus_JS_FAILED, ErrWorkerStopped.Error())
		return
	}
	ctx, cancel := context.WithCancelCause(w.jobsCtx)
	run := &jobRun{w: w, id: id, assigned: time.Now(), cancel: cancel}
	w.jobs[id] = run
	w.wg.Add(1)
	w.mu.Unlock()
	w.kickStatus()

	job := Job{
		ID:                  id,
		RoomName:            raw.GetRoom().GetName(),
		Token:               a.GetToken(),
		URL:                 roomURL,
		ParticipantIdentity: identity,
		Metadata:            raw.GetMetadata(),
		AgentName:           raw.GetAgentName(),
		Raw:                 raw,
		run:                 run,
	}
	log.Info("lkagent: job started", "dispatch_id", raw.GetDispatchId(), "identity", identity)
	w.sendJobStatus(id, livekit.JobStatus_JS_RUNNING, "")
	go w.runJob(ctx, run, job, log)
}

// runJob calls the handler and reports how it ended.
func (w *Worker) runJob(ctx context.Context, run *jobRun, job Job, log *slog.Logger) {
	defer w.wg.Done()
	start := time.Now()
	err := w.callHandler(ctx, job, log)
	run.cancel(context.Canceled)
	run.report(err)

	w.mu.Lock()
	delete(w.jobs, run.id)
	w.notifyLocked()
	w.mu.Unlock()
	w.kickStatus()
	if err != nil {
		log.Warn("lkagent: job failed", "err", err, "duration", time.Since(start))
	} else {
		log.Info("lkagent: job finished", "duration", time.Since(start))
	}
}

// callHandler runs the handler, turning a panic into an error.
func (w *Worker) callHandler(ctx context.Context, job Job, log *slog.Logger) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("lkagent: job handler panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("lkagent: job handler panicked: %v", r)
		}
	}()
	return w.handler.HandleJob(ctx, job)
}

// terminate cancels a job the server ended.
func (w *Worker) terminate(id string) {
	w.mu.Lock()
	run := w.jobs[id]
	w.mu.Unlock()
	if run == nil {
		return
	}
	w.log.Info("lkagent: server terminated job", "job_id", id)
	run.cancel(ErrJobTerminated)
}

// report sends the job's final status once.
func (r *jobRun) report(err error) {
	if !r.reported.CompareAndSwap(false, true) {
		return
	}
	// livekit-server records a job only after it has sent the assignment,
	// and drops a status for a job it has not recorded yet; a job that ends
	// at once therefore reports after a short grace.
	if wait := r.w.minReportDelay - time.Since(r.assigned); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.w.stop:
		}
		t.Stop()
	}
	if err == nil {
		r.w.sendJobStatus(r.id, livekit.JobStatus_JS_SUCCESS, "")
		return
	}
	text := err.Error()
	if len(text) > maxJobErrorBytes {
		text = strings.ToValidUTF8(text[:maxJobErrorBytes], "")
	}
	r.w.sendJobStatus(r.id, livekit.JobStatus_JS_FAILED, text)
}

// sendJobStatus reports a job's status on the current connection; while
// disconnected the update is dropped (a reconnected server no longer knows
// the job).
func (w *Worker) sendJobStatus(id string, status livekit.JobStatus, errText string) {
	w.mu.Lock()
	tr := w.tr
	w.mu.Unlock()
	if tr == nil {
		w.log.Debug("lkagent: not connected; job status dropped", "job_id", id, "status", status.String())
		return
	}
	err := tr.Write(&livekit.WorkerMessage{Message: &livekit.WorkerMessage_UpdateJob{UpdateJob: &livekit.UpdateJobStatus{
		JobId:  id,
		Status: status,
		Error:  errText,
	}}})
	if err != nil {
		w.log.Debug("lkagent: job status not sent", "job_id", id, "status", status.String(), "err", err)
	}
}

// wsTransport is a transport over a gorilla websocket.
type wsTransport struct {
	conn         *websocket.Conn
	writeTimeout time.Duration
	wmu          sync.Mutex
	closeOnce    sync.Once
}

// Read returns the next server message (protobuf, or JSON if the server
// chose text frames).
func (t *wsTransport) Read() (*livekit.ServerMessage, error) {
	for {
		typ, data, err := t.conn.ReadMessage()
		if err != nil {
			return nil, err
		}
		msg := &livekit.ServerMessage{}
		switch typ {
		case websocket.BinaryMessage:
			err = proto.Unmarshal(data, msg)
		case websocket.TextMessage:
			err = protojson.Unmarshal(data, msg)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lkagent: decode server message: %w", err)
		}
		return msg, nil
	}
}

// Write sends one message as a binary protobuf frame.
func (t *wsTransport) Write(m *livekit.WorkerMessage) error {
	data, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("lkagent: encode message: %w", err)
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_ = t.conn.SetWriteDeadline(time.Now().Add(t.writeTimeout))
	return t.conn.WriteMessage(websocket.BinaryMessage, data)
}

// Close says goodbye with a close frame and closes the socket.
func (t *wsTransport) Close() error {
	var err error
	t.closeOnce.Do(func() {
		_ = t.conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		err = t.conn.Close()
	})
	return err
}
