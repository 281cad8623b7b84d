package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/protocol/livekit"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/agent/spoken"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/stages"
)

// Sessions runs spoken interviews: it is the worker's Handler, one session
// per job.
type Sessions struct {
	// Store holds the interview records. Required.
	Store interviews.Store
	// Blueprint returns an installed blueprint by name (default
	// stages.Builtin). Names come from dispatch metadata and records, so it
	// must never read a file they name.
	Blueprint func(name string) (*stages.Blueprint, error)
	// Template returns an installed role template by name (default
	// stages.BuiltinTemplate), for the template a record names; like
	// Blueprint it never reads a file.
	Template func(name string) (*stages.Template, error)
	// NewLLM makes the interviewer model of one interview. Required.
	NewLLM func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client
	// Analyzer analyses the answers beside the replies (nil: the offline
	// rules).
	Analyzer analysis.Analyzer
	// Preemptive starts a reply's first model call while the endpointing
	// delay runs (see agent.Options.Preemptive).
	Preemptive bool
	// STT and TTS are the speech engines. Required.
	STT stt.Engine
	TTS tts.Engine
	// Engines names the engines in the record.
	Engines interviews.Engines
	// EnginesFor makes the engines of an interview that brings its own
	// provider keys (see interviews.Store.Keys), and checks with each
	// provider that the keys are accepted: an error means they were not,
	// and the candidate is told so before any greeting. Nil refuses such
	// interviews.
	EnginesFor func(ctx context.Context, keys interviews.Keys) (Engines, error)
	// TimeScale multiplies every stage limit and gate (0 means 1).
	TimeScale float64
	// Listener is the template of the input pipeline's options (its STT is
	// set per session).
	Listener voice.ListenerOptions
	// Rooms deletes rooms when an interview ends. Required.
	Rooms *lksdk.RoomServiceClient
	// EndGrace is the pause between the ending events and deleting the room
	// (default DefaultEndGrace).
	EndGrace time.Duration
	// CandidateTimeout bounds the wait for the candidate to join (default 10 min).
	CandidateTimeout time.Duration
	// RejoinGrace is how long an interview waits for a candidate who left
	// the room to come back and continue. The record is saved
	// candidate_left as they leave either way. Zero ends the interview at
	// once.
	RejoinGrace time.Duration
	// HearingTimeout bounds the wait, after the candidate joined, for
	// them to subscribe to the interviewer's audio before the greeting
	// (default config.DefaultHearingTimeout): nobody is greeted into the
	// void.
	HearingTimeout time.Duration
	// FalseInterruptionTimeout is how long a reply stopped by the
	// candidate's sound waits for words before it resumes (default
	// config.DefaultFalseInterruptionTimeout; negative cuts it for good).
	FalseInterruptionTimeout time.Duration
	// AwayAfter is the candidate's silence after the interviewer spoke
	// that brings a check-in (default config.DefaultAwayAfter; negative
	// never).
	AwayAfter time.Duration
	// LeaseTTL is how long the interview's lease lasts unless renewed
	// (default DefaultLeaseTTL): after a crash, a re-dispatch may resume
	// the interview once it lapses.
	LeaseTTL time.Duration
	// Pacer sends the agent's audio of every session on one clock (nil:
	// the process's own).
	Pacer *voice.Pacer
	// Recordings is where each session's audio is recorded; nil records
	// nothing.
	Recordings *recordings.Dir
	// Logger is the worker's logger.
	Logger *slog.Logger
	// Metrics counts the interviews held, their turns and the latency of
	// each phase, provider faults and record saves; nil counts nothing.
	Metrics *metrics.Worker
}

// Engines are the model and speech engines one interview runs on.
type Engines struct {
	// NewLLM makes the interviewer model. Required.
	NewLLM func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client
	// Analyzer analyses the answers (nil: the offline rules).
	Analyzer analysis.Analyzer
	// Preemptive starts a reply's first model call while the endpointing
	// delay runs: for a remote model only (its calls change nothing).
	Preemptive bool
	// STT and TTS are the speech engines. Required.
	STT stt.Engine
	TTS tts.Engine
	// Names names the engines in the record.
	Names interviews.Engines
}

// DefaultEndGrace is how long a finished session waits after its ending
// events before it deletes the room.
const DefaultEndGrace = time.Second

// positiveOr is d, def when d is zero, and zero (off) when d is negative.
func positiveOr(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// DefaultLeaseTTL is how long an interview's lease lasts unless renewed
// when Sessions.LeaseTTL is zero; a session renews it every third of that.
// It is how long a candidate whose worker died waits, at least, before a
// new worker may resume the interview (see package rescue), so it is kept
// short: two renewals may fail before a live session loses it.
const DefaultLeaseTTL = 10 * time.Second

// What the candidate is told when a job cannot run, in one sentence.
const (
	msgBadDispatch = "Sorry, this interview link is not valid, so the interview cannot start; please contact the recruiter."
	msgLeaseHeld   = "This interview is already running in another window, so it cannot start here."
	msgFinished    = "This interview has already ended, so it cannot start again; thank you."
	msgRevoked     = "This interview link has been withdrawn, so the interview cannot start; please contact the recruiter if you think this is a mistake."
	msgUnavailable = "Sorry, the interviewer cannot start this interview right now; please try again later or contact the recruiter."
	msgKeysRefused = "Sorry, this interview cannot start because the service keys it was set up with were refused; please contact the recruiter."
)

// engines returns the engines of the interview id: the worker's own, or,
// when the interview brings its own provider keys, engines made and checked
// with them. On failure it returns the sentence the candidate is told and
// whether the failure is the keys' (refused by a provider), which ends the
// interview.
func (s *Sessions) engines(ctx context.Context, id string) (eng Engines, msg string, keysRefused bool, err error) {
	own := Engines{NewLLM: s.NewLLM, Analyzer: s.Analyzer, Preemptive: s.Preemptive, STT: s.STT, TTS: s.TTS, Names: s.Engines}
	keys, err := s.Store.Keys(ctx, id)
	switch {
	case errors.Is(err, interviews.ErrNoKeys):
		return own, "", false, nil
	case err != nil:
		return Engines{}, msgUnavailable, false, fmt.Errorf("reading the interview's own provider keys: %w", err)
	case s.EnginesFor == nil:
		return Engines{}, msgUnavailable, false, errors.New("the interview has its own provider keys and this worker cannot use them")
	}
	eng, err = s.EnginesFor(ctx, keys)
	if err != nil {
		return Engines{}, msgKeysRefused, true, fmt.Errorf("the interview's own provider keys: %w", err)
	}
	return eng, "", false, nil
}

// refuseKeys ends a scheduled or resumable interview whose own keys a
// provider refused: the record is saved failed and the keys are deleted.
func (s *Sessions) refuseKeys(ctx context.Context, rec *interviews.Record, cause error, log *slog.Logger) {
	rec.Finish(interviews.StatusFailed, interviews.EndedByProviderError(interviews.ProviderKeys), time.Now().UTC().Round(0))
	rec.Error = cause.Error()
	if err := s.Store.Save(ctx, rec); err != nil {
		log.Error("could not save the interview as failed", "err", err)
	}
	s.dropKeys(ctx, rec.ID, log)
}

// dropKeys deletes the interview's own provider keys, if any.
func (s *Sessions) dropKeys(ctx context.Context, id string, log *slog.Logger) {
	if err := s.Store.DeleteKeys(ctx, id); err != nil {
		log.Error("could not delete the interview's own provider keys", "err", err)
	}
}

// errDuplicateJob means the job's interview already runs in the job's room:
// the job leaves without joining, and without closing the room.
var errDuplicateJob = errors.New("the interview already runs in this room")

// rejectWait bounds how long a refused job waits for the candidate to be
// in the room to hear why.
const rejectWait = 15 * time.Second

// leaseOwner names this session in the interview's lease.
func leaseOwner(job lkagent.Job) string { return interviews.LeaseOwner("job " + job.ID) }

// open reads the job's dispatch metadata, takes the interview's lease and
// loads (or creates) its record. On failure it returns the sentence the
// candidate is told.
func (s *Sessions) open(ctx context.Context, job lkagent.Job, ttl time.Duration) (*interviews.Record, *stages.Blueprint, string, error) {
	d, err := interviews.ParseDispatch(job.Metadata)
	if err != nil {
		return nil, nil, msgBadDispatch, err
	}
	owner := leaseOwner(job)
	if d.InterviewID != "" {
		// The lease comes first: the record is read only by its holder.
		if _, err := s.Store.AcquireLease(ctx, d.InterviewID, owner, ttl); err != nil {
			if errors.Is(err, interviews.ErrLeaseHeld) {
				// A second dispatch into the room the interview runs in
				// (the room's own and a rescue's, or two web apps'
				// rescues) leaves it to the running session.
				if rec, gerr := s.Store.Get(ctx, d.InterviewID); gerr == nil && rec.Room == job.RoomName {
					return nil, nil, "", fmt.Errorf("%w: %w", errDuplicateJob, err)
				}
				return nil, nil, msgLeaseHeld, err
			}
			return nil, nil, msgUnavailable, err
		}
	}
	rec, bp, err := d.Open(ctx, s.Store, job.RoomName, s.Blueprint)
	if err != nil {
		if d.InterviewID != "" {
			_ = s.Store.ReleaseLease(context.WithoutCancel(ctx), d.InterviewID, owner)
		}
		switch {
		case errors.Is(err, interviews.ErrFinished):
			return nil, nil, msgFinished, err
		case errors.Is(err, interviews.ErrRevoked):
			return nil, nil, msgRevoked, err
		case errors.Is(err, interviews.ErrNotFound):
			return nil, nil, msgBadDispatch, err
		}
		return nil, nil, msgUnavailable, err
	}
	if d.InterviewID == "" {
		if _, err := s.Store.AcquireLease(ctx, rec.ID, owner, ttl); err != nil {
			return nil, nil, msgUnavailable, err
		}
	}
	return rec, bp, "", nil
}

// Admit decides, before the worker accepts a job, whether it is worth
// taking (lkagent.Options.Admit): a dispatch of an interview that is over,
// and not resumable, is refused at once, so an old token of a completed
// interview does not bring the interviewer back into a room on each
// reconnect. Anything else is accepted, HandleJob telling the candidate
// why a job cannot run (a withdrawn link, a store failing).
func (s *Sessions) Admit(ctx context.Context, job lkagent.Job) error {
	d, err := interviews.ParseDispatch(job.Metadata)
	if err != nil || d.InterviewID == "" {
		return nil
	}
	rec, err := s.Store.Get(ctx, d.InterviewID)
	if err != nil {
		return nil
	}
	if rec.Status.Finished() && !rec.Resumable() {
		return fmt.Errorf("interview %s: %w (%s)", rec.ID, interviews.ErrFinished, rec.Status)
	}
	return nil
}

// HandleJob holds one spoken interview in the job's room. A job that
// cannot run (bad metadata, the interview running elsewhere or over, the
// store failing) is refused: the candidate is told why in one sentence and
// the room is closed.
func (s *Sessions) HandleJob(ctx context.Context, job lkagent.Job) error {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("room", job.RoomName, "job", job.ID)
	ctx = observeIncidents(ctx, s.Metrics)
	// The lease and the own keys are settled on every way out, also once
	// the session's context has ended.
	settle := context.WithoutCancel(ctx)
	ttl := s.LeaseTTL
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	rec, bp, msg, err := s.open(ctx, job, ttl)
	if errors.Is(err, errDuplicateJob) {
		log.Warn("leaving a second dispatch of an interview that runs in this room to its session", "err", err)
		return nil
	}
	if err != nil {
		log.Error("rejecting job: the interview cannot run here", "err", err, "told", msg)
		s.reject(ctx, job, log, msg)
		return err
	}
	log = log.With("interview_id", rec.ID)
	owner := leaseOwner(job)
	eng, msg, refused, err := s.engines(ctx, rec.ID)
	if err != nil {
		log.Error("rejecting job: the interview's engines cannot start", "err", err, "told", msg)
		if refused {
			s.refuseKeys(settle, rec, err, log)
		}
		if err := s.Store.ReleaseLease(settle, rec.ID, owner); err != nil {
			log.Error("could not release the interview's lease; it lapses on its own", "err", err)
		}
		s.reject(ctx, job, log, msg)
		return err
	}
	if rec.Resumable() {
		log.Warn("resuming an interview whose previous session died", "status", rec.Status, "turns", len(rec.Turns), "stage", rec.CurrentStage())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		s.renew(ctx, cancel, log, rec.ID, owner, ttl)
	}()
	defer func() {
		cancel()
		<-renewed
		if err := s.Store.ReleaseLease(settle, rec.ID, owner); err != nil {
			log.Error("could not release the interview's lease; it lapses on its own", "err", err)
		}
	}()
	names := eng.Names
	rec.Engines = &names
	sess := &session{s: s, eng: eng, job: job, log: log, bp: bp,
		ops: make(chan func(), 256), opsDone: make(chan struct{}), done: make(chan struct{})}
	sess.chat = newChatGate(sess.typedTurn, sess.chatNotice)
	defer sess.chat.Close()
	s.Metrics.SessionStarted()
	err = func() error {
		defer s.Metrics.SessionEnded()
		return sess.run(ctx, rec)
	}()
	// An interview that ended takes its own keys with it; one a new
	// session may resume keeps them.
	if ended := sess.final(); ended == nil || !ended.Resumable() {
		s.dropKeys(settle, rec.ID, log)
	}
	return err
}

// renew keeps the interview's lease until ctx ends. A lease lost to
// another session stops this one (stop), so two never write the record.
func (s *Sessions) renew(ctx context.Context, stop context.CancelFunc, log *slog.Logger, id, owner string, ttl time.Duration) {
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, err := s.Store.RenewLease(ctx, id, owner, ttl)
			switch {
			case errors.Is(err, interviews.ErrLeaseLost):
				log.Error("another session took over this interview; stopping this one", "err", err)
				stop()
				return
			case err != nil:
				log.Error("renewing the interview's lease failed; will retry", "err", err)
			}
		}
	}
}

// reject tells the candidate in the room why the job cannot run: the
// interviewer joins, sends the sentence as its caption and as the ending
// event's message, and deletes the room as a normal ending does.
func (s *Sessions) reject(ctx context.Context, job lkagent.Job, log *slog.Logger, msg string) {
	if job.Token == "" || job.URL == "" {
		return
	}
	arrived := make(chan struct{}, 1)
	cb := lksdk.NewRoomCallback()
	cb.OnParticipantConnected = func(p *lksdk.RemoteParticipant) {
		if p.Kind() != lksdk.ParticipantAgent {
			select {
			case arrived <- struct{}{}:
			default:
			}
		}
	}
	room, err := lksdk.ConnectToRoomWithToken(job.URL, job.Token, cb, lksdk.WithAutoSubscribe(false), lksdk.WithLogger(SDKLogger(log, job.Token)))
	if err != nil {
		log.Warn("could not join the room to tell the candidate", "err", err)
		return
	}
	defer room.Disconnect()
	// Data sent before the candidate is in the room never reaches them:
	// wait a little for them (the dispatch usually follows their joining).
	present := false
	for _, p := range room.GetRemoteParticipants() {
		present = present || p.Kind() != lksdk.ParticipantAgent
	}
	if !present {
		wait := time.NewTimer(rejectWait)
		select {
		case <-arrived:
		case <-wait.C:
		case <-ctx.Done():
		}
		wait.Stop()
	}
	_ = SetAgentState(room, lkagent.StateSpeaking)
	if err := PublishTranscription(room, Segment{ID: job.ID + "-rejected", Text: msg, Final: true}); err != nil {
		log.Debug("caption not sent", "err", err)
	}
	if err := SendEvent(room, InterviewEnding{Message: msg, Status: interviews.StatusFailed}); err != nil {
		log.Warn("could not send the ending event", "err", err)
	}
	// The candidate may join a moment after the job starts: leave the
	// sentence time to be read before the room goes.
	s.closeRoom(ctx, log, job.RoomName, nil)
}

// closeRoom gives what was just sent to the room EndGrace (or until ctx
// ends) to reach the clients and their closing screens to show, runs
// before (if set), then deletes the room so every client disconnects
// cleanly.
func (s *Sessions) closeRoom(ctx context.Context, log *slog.Logger, roomName string, before func()) {
	grace := s.EndGrace
	if grace <= 0 {
		grace = DefaultEndGrace
	}
	select {
	case <-time.After(grace):
	case <-ctx.Done():
	}
	if before != nil {
		before()
	}
	if s.Rooms == nil {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := EndRoom(dctx, s.Rooms, roomName); err != nil {
		log.Warn("could not delete the room", "err", err)
	}
}

// session is one interview in one room: the room's transport of the
// conversation loop (agent.Loop). It turns the candidate's speech, typed
// text and presence into the loop's inputs and plays, captions and shows
// what the loop says; the loop decides who speaks. Room updates go through
// one ops goroutine so neither the loop nor the audio path waits on the
// network.
type session struct {
	s   *Sessions
	eng Engines // the interview's engines
	job lkagent.Job
	log *slog.Logger
	bp  *stages.Blueprint

	room  *lksdk.Room
	voice *spoken.Session // the audio, and the loop's transport
	c     *agent.Conductor
	audio *recording.Recorder // nil when not recording

	ops     chan func() // room updates, in order
	opsDone chan struct{}
	// chat joins typed messages into turns at a pace the loop keeps up
	// with.
	chat *chatGate
	// signals bounds the room page's integrity reports (dataPacket).
	signals signalGate
	// done is closed when the session ends: late posts and room updates
	// from callbacks and playback goroutines are then dropped, not blocked.
	done chan struct{}

	candidate    atomic.Value // string: the candidate's identity
	candidateMic atomic.Value // string: the candidate's microphone track sid
	away         atomic.Bool  // the candidate left the room and may come back
	micMu        sync.Mutex   // guards connecting a microphone to the listener
	sdkLog       protologger.Logger
}

// post hands an input to the loop without blocking a callback forever.
func (ss *session) post(in agent.Input) { ss.voice.Post(in) }

// op queues a room update; interim captions may be dropped when the queue
// is full, nothing else.
func (ss *session) op(f func(), droppable bool) {
	if droppable {
		select {
		case ss.ops <- f:
		default:
		}
		return
	}
	select {
	case ss.ops <- f:
	case <-ss.done:
	}
}

// runOps applies room updates in order until the session ends, then the
// ones still queued.
func (ss *session) runOps() {
	defer close(ss.opsDone)
	for {
		select {
		case f := <-ss.ops:
			f()
		case <-ss.done:
			for {
				select {
				case f := <-ss.ops:
					f()
				default:
					return
				}
			}
		}
	}
}

// DefaultCandidateTimeout is how long a session waits for the candidate to
// join when Sessions.CandidateTimeout is zero.
const DefaultCandidateTimeout = 10 * time.Minute

// template returns the installed role template called name, or nil (with
// a warning: the interview runs without it) when there is none.
func (s *Sessions) template(name string, log *slog.Logger) *stages.Template {
	if name == "" {
		return nil
	}
	find := s.Template
	if find == nil {
		find = stages.BuiltinTemplate
	}
	tpl, err := find(name)
	if err != nil {
		log.Warn("the interview's role template is not installed on this worker; interviewing without it", "template", name, "err", err)
		return nil
	}
	return tpl
}

func (ss *session) run(ctx context.Context, rec *interviews.Record) (err error) {
	s := ss.s
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go ss.runOps()
	defer func() {
		close(ss.done)
		<-ss.opsDone
	}()

	wait := s.CandidateTimeout
	if wait <= 0 {
		wait = DefaultCandidateTimeout
	}
	loop, err := agent.NewLoop(agent.Setup{Blueprint: ss.bp, Record: rec, Store: observeStore(s.Store, s.Metrics, rec), TimeScale: s.TimeScale,
		NewLLM: ss.eng.NewLLM, Analyzer: ss.eng.Analyzer, Preemptive: ss.eng.Preemptive, Template: s.template(rec.Template, ss.log), Logger: ss.log},
		agent.LoopOptions{JoinTimeout: wait, RejoinGrace: s.RejoinGrace,
			HearingTimeout:           positiveOr(s.HearingTimeout, config.DefaultHearingTimeout),
			FalseInterruptionTimeout: positiveOr(s.FalseInterruptionTimeout, config.DefaultFalseInterruptionTimeout),
			AwayAfter:                positiveOr(s.AwayAfter, config.DefaultAwayAfter)})
	if err != nil {
		return err
	}
	c := loop.Conductor()
	ss.c = c
	if err := c.Recorder().Save(); err != nil {
		return fmt.Errorf("saving the interview record: %w", err)
	}

	track, err := newAgentTrack()
	if err != nil {
		return ss.fail(fmt.Errorf("creating the agent's audio track: %w", err), "livekit")
	}
	ss.audio = ss.startRecording(c.Recorder())
	defer ss.audio.Discard() // unless kept below
	ss.voice, err = spoken.New(ctx, spoken.Options{STT: ss.eng.STT, TTS: ss.eng.TTS, Listener: s.Listener,
		Pacer: s.pacer(), Out: track, Display: ss, Segment: ss.job.ID, Logger: ss.log,
		CandidateTap: ss.audio.Candidate, AgentTap: ss.audio.Agent, AgentCleared: ss.audio.AgentCleared})
	switch {
	case errors.Is(err, spoken.ErrSTT):
		return ss.fail(err, "stt")
	case err != nil:
		return ss.fail(err, "tts")
	}
	defer ss.voice.Close()

	cb := lksdk.NewRoomCallback()
	cb.OnParticipantConnected = func(p *lksdk.RemoteParticipant) {
		if p.Kind() != lksdk.ParticipantAgent {
			ss.arrived(p)
		}
	}
	cb.OnParticipantDisconnected = func(p *lksdk.RemoteParticipant) {
		if id := ss.candidateID(); id != "" && p.Identity() == id {
			ss.away.Store(true)
			ss.post(agent.Left{})
		}
	}
	cb.OnDataPacket = ss.dataPacket
	cb.OnDisconnected = func() {
		ss.post(agent.Closed{Status: interviews.StatusCandidateLeft, Reason: interviews.EndedCandidateLeft})
	}
	cb.ParticipantCallback.OnTrackSubscribed = func(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		ss.subscribed(track, pub, rp)
	}
	// LiveKit tells the publisher when its track is first subscribed: the
	// candidate can hear the interviewer, and the greeting may start.
	cb.OnLocalTrackSubscribed = func(pub *lksdk.LocalTrackPublication, _ *lksdk.LocalParticipant) {
		if pub.Kind() == lksdk.TrackKindAudio {
			ss.post(agent.Hearing{})
		}
	}
	sdkLog := SDKLogger(ss.log, ss.job.Token)
	ss.sdkLog = sdkLog
	room, err := lksdk.ConnectToRoomWithToken(ss.job.URL, ss.job.Token, cb, lksdk.WithAutoSubscribe(true), lksdk.WithLogger(sdkLog))
	if err != nil {
		return ss.fail(fmt.Errorf("joining room %s: %w", ss.job.RoomName, err), "livekit")
	}
	ss.room = room
	defer room.Disconnect()
	ss.op(func() { _ = SetAgentState(room, lkagent.StateInitializing) }, false)
	if err := OnChat(room, ss.typed); err != nil {
		ss.log.Warn("typed input unavailable", "err", err)
	}
	if err := OnEndRequest(room, ss.endRequested); err != nil {
		ss.log.Warn("ending from the room page unavailable", "err", err)
	}

	if _, err := room.LocalParticipant.PublishTrack(track.TrackLocalStaticRTP, &lksdk.TrackPublicationOptions{Name: "interviewer", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		return ss.fail(fmt.Errorf("publishing the agent's audio: %w", err), "livekit")
	}

	// The candidate may already be in the room.
	for _, p := range room.GetRemoteParticipants() {
		if p.Kind() != lksdk.ParticipantAgent {
			ss.arrived(p)
			break
		}
	}
	ss.log.Info("waiting for the candidate", "stt", ss.eng.STT.Name(), "tts", ss.eng.TTS.Name())
	if err := loop.Run(ctx, ss.voice); err != nil {
		ss.log.Error("interview failed", "err", err)
	}
	ss.keepRecording(c.Recorder())
	rec = c.Recorder().Snapshot()
	saveErr := c.Recorder().Close()
	switch rec.EndedBy {
	case interviews.EndedCandidateLeft, interviews.EndedCandidateNeverJoined, interviews.EndedWorkerStopped:
		// Nobody is left to see the ending, or the worker is going away.
		ss.logSaved(rec, saveErr)
		return saveErr
	}
	return errors.Join(ss.end(ctx, rec, saveErr), saveErr)
}

// final is the record as the session left it, nil when the loop never
// started.
func (ss *session) final() *interviews.Record {
	if ss.c == nil {
		return nil
	}
	return ss.c.Recorder().Snapshot()
}

func (ss *session) candidateID() string { id, _ := ss.candidate.Load().(string); return id }

// errNotCandidate answers an end request from anyone but the candidate.
var errNotCandidate = errors.New("only the candidate can end the interview")

// endRequested is the candidate ending the interview from the room page:
// it returns once the loop has saved the record as over.
func (ss *session) endRequested(caller string) error {
	if caller == "" || caller != ss.candidateID() {
		return errNotCandidate
	}
	saved := make(chan struct{})
	ss.post(agent.EndRequested{Saved: saved})
	select {
	case <-saved:
		return nil
	case <-ss.done:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("the interview could not be saved in time")
	}
}

// typed takes a message the candidate typed into the room: captioned as
// theirs when the chat gate keeps it, and passed to the loop as part of a
// turn (see chatGate).
func (ss *session) typed(sender, text string) {
	text = strings.TrimSpace(text)
	if text == "" || sender != ss.candidateID() {
		return
	}
	if !ss.chat.Add(text) {
		ss.log.Debug("typed message dropped: the candidate types faster than the chat's limits")
		return
	}
	now := time.Now()
	ss.Caption(voice.Transcript{SegmentID: fmt.Sprintf("chat-%d", now.UnixNano()), Text: text, Final: true, At: now})
}

// typedTurn passes what the candidate typed to the loop as one turn.
func (ss *session) typedTurn(text string, startedAt, endedAt time.Time) {
	ss.post(agent.CandidateTurn{Text: text, Source: agent.SourceText, StartedAt: startedAt, EndedAt: endedAt})
}

// chatNotice tells the candidate something in the interviewer's captions,
// without speaking it or recording it as said.
func (ss *session) chatNotice(text string) {
	ss.log.Warn("typed messages dropped: the candidate was asked to slow down")
	ss.AgentCaption(fmt.Sprintf("chat-notice-%d", time.Now().UnixNano()), text, true, false)
}

// arrived takes a participant who joined as the candidate: the first one,
// or anyone once the candidate has left (they may come back under a new
// identity). Others are left alone.
func (ss *session) arrived(p *lksdk.RemoteParticipant) {
	if ss.candidateID() != "" && !ss.away.Load() {
		return
	}
	ss.away.Store(false)
	ss.adopt(p)
	ss.post(agent.Joined{})
}

// adopt makes p the candidate and connects the microphone it already
// publishes: at the start, and when the candidate rejoins (possibly under
// a new identity).
func (ss *session) adopt(p *lksdk.RemoteParticipant) {
	ss.candidate.Store(p.Identity())
	for _, pub := range p.TrackPublications() {
		if rpub, ok := pub.(*lksdk.RemoteTrackPublication); ok && rpub.TrackRemote() != nil {
			ss.subscribed(rpub.TrackRemote(), rpub, p)
		}
	}
}

// subscribed connects the candidate's microphone to the listener, once per
// track: a candidate who rejoins brings a new one.
func (ss *session) subscribed(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	if track.Kind() != webrtc.RTPCodecTypeAudio || rp.Kind() == lksdk.ParticipantAgent {
		return
	}
	if id := ss.candidateID(); id != "" && id != rp.Identity() {
		return
	}
	ss.micMu.Lock()
	if mic, _ := ss.candidateMic.Load().(string); mic == pub.SID() {
		ss.micMu.Unlock()
		return
	}
	ss.candidate.Store(rp.Identity())
	ss.candidateMic.Store(pub.SID())
	// The previous microphone's track (if any) ends with its participant.
	in, err := ss.voice.NewCandidateInput()
	ss.micMu.Unlock()
	if err != nil {
		ss.log.Error("cannot decode the candidate's microphone", "err", err)
		return
	}
	if track.Codec().MimeType != webrtc.MimeTypeOpus {
		ss.log.Error("cannot decode the candidate's microphone: it is not Opus", "codec", track.Codec().MimeType)
		return
	}
	go readMicrophone(track, in, ss.log)
	ss.post(agent.Joined{})
}

// Thinking shows (or stops showing) that the interviewer waits while
// the candidate thinks mid-answer: the room page says "Take your time".
func (ss *session) Thinking(on bool) {
	room := ss.room
	ss.op(func() {
		if err := SetThinking(room, on); err != nil {
			ss.log.Debug("thinking attribute not set", "err", err)
		}
	}, false)
}

// Caption publishes the candidate's words under the candidate's identity.
func (ss *session) Caption(t voice.Transcript) {
	id := ss.candidateID()
	mic, _ := ss.candidateMic.Load().(string)
	room := ss.room
	seg := Segment{ID: t.SegmentID, SpeakerIdentity: id, TrackID: mic, Text: t.Text, Final: t.Final}
	ss.op(func() {
		if err := PublishTranscription(room, seg); err != nil {
			ss.log.Debug("caption not sent", "err", err)
		}
	}, !t.Final)
}

// AgentCaption publishes the agent's words under its own identity;
// interrupted marks a final caption cut off by the candidate.
func (ss *session) AgentCaption(segment, text string, final, interrupted bool) {
	room := ss.room
	trackID := ""
	for _, pub := range room.LocalParticipant.TrackPublications() {
		trackID = pub.SID()
	}
	seg := Segment{ID: segment, TrackID: trackID, Text: strings.TrimSpace(text), Final: final, Interrupted: interrupted}
	ss.op(func() {
		if err := PublishTranscription(room, seg); err != nil {
			ss.log.Debug("caption not sent", "err", err)
		}
	}, !final)
}

// State sets the agent's lk.agent.state attribute, and tells the chat
// gate whether the interviewer is replying.
func (ss *session) State(state spoken.State) {
	ss.chat.Replying(state == spoken.StateThinking || state == spoken.StateSpeaking)
	room := ss.room
	ss.op(func() { _ = SetAgentState(room, agentStates[state]) }, false)
}

// agentStates are the lk.agent.state values of the spoken session's states.
var agentStates = map[spoken.State]string{
	spoken.StateListening: lkagent.StateListening,
	spoken.StateThinking:  lkagent.StateThinking,
	spoken.StateSpeaking:  lkagent.StateSpeaking,
}

// StageEntered shows the new stage in the agent's attributes and sends a
// stage_change event.
func (ss *session) StageEntered(sc agent.StageChange) {
	room := ss.room
	ss.op(func() {
		if err := SetStage(room, sc); err != nil {
			ss.log.Warn("stage attributes not set", "err", err)
		}
		_ = SendEvent(room, StageChanged(sc))
	}, false)
}

// end closes a finished interview: the ending event, the saved event, the
// job reported, then the room deleted so every client disconnects cleanly.
func (ss *session) end(ctx context.Context, rec *interviews.Record, saveErr error) error {
	room := ss.room
	done := make(chan struct{})
	ss.op(func() {
		_ = SendEvent(room, InterviewEnding{InterviewID: rec.ID, Status: rec.Status, EndedBy: rec.EndedBy})
		_ = SendEvent(room, InterviewSaved{InterviewID: rec.ID, Status: rec.Status})
		close(done)
	}, false)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	// Data packets are sent asynchronously: the events need time to reach
	// the clients before the room is deleted under them.
	ss.s.closeRoom(ctx, ss.log, ss.job.RoomName, func() {
		ss.logSaved(rec, saveErr)
		ss.job.Complete(saveErr)
	})
	return nil
}

// logSaved is the session's last word on the record: "interview saved"
// only when its last save succeeded, an error naming the failed saves
// otherwise.
func (ss *session) logSaved(rec *interviews.Record, saveErr error) {
	if saveErr != nil {
		ss.log.Error("interview NOT saved: the last save of the record failed", "failed_saves", ss.c.Recorder().Failures(),
			"status", rec.Status, "ended_by", rec.EndedBy, "turns", len(rec.Turns), "err", saveErr)
		return
	}
	ss.log.Info("interview saved", "status", rec.Status, "ended_by", rec.EndedBy, "turns", len(rec.Turns),
		"failed_saves_retried", ss.c.Recorder().Failures())
}

// fail ends the record as failed by a provider and returns err.
func (ss *session) fail(err error, provider string) error {
	ss.log.Error("interview failed", "err", err)
	if ss.c != nil {
		ss.c.Finish(interviews.StatusFailed, interviews.EndedByProviderError(provider))
	}
	return err
}
