package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/lkagent"
)

// Sessions runs spoken interviews: it is the worker's Handler, one session
// per job.
type Sessions struct {
	// Store holds the interview records. Required.
	Store interviews.Store
	// Designs is the design library the interviews' blueprints and role
	// templates come from, by the name and version their records give
	// (default: the built-in designs and those installed in Store). Names
	// come from dispatch metadata and records, so it must never read a
	// file they name.
	Designs interviews.Designs
	// Engines are the engines of every interview but those that bring
	// their own provider keys (see EnginesFor). NewLLM, STT and TTS are
	// required.
	Engines
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
	// Models are the model engines; NewLLM is required.
	agent.Models
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

// engines returns the engines of the interview id: the worker's own, or,
// when the interview brings its own provider keys, engines made and checked
// with them. On failure it returns the sentence the candidate is told and
// whether the failure is the keys' (refused by a provider), which ends the
// interview.
func (s *Sessions) engines(ctx context.Context, id string) (eng Engines, msg lang.Key, keysRefused bool, err error) {
	own := s.Engines
	keys, err := s.Store.Keys(ctx, id)
	switch {
	case errors.Is(err, interviews.ErrNoKeys):
		return own, "", false, nil
	case err != nil:
		return Engines{}, lang.RefuseUnavailable, false, fmt.Errorf("reading the interview's own provider keys: %w", err)
	case s.EnginesFor == nil:
		return Engines{}, lang.RefuseUnavailable, false, errors.New("the interview has its own provider keys and this worker cannot use them")
	}
	eng, err = s.EnginesFor(ctx, keys)
	if err != nil {
		return Engines{}, lang.RefuseKeys, true, fmt.Errorf("the interview's own provider keys: %w", err)
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

// designs is the library the interviews' designs come from.
func (s *Sessions) designs() interviews.Designs {
	if s.Designs != nil {
		return s.Designs
	}
	return interviews.Library{Store: s.Store}
}

// open reads the job's dispatch metadata, takes the interview's lease and
// loads (or creates) its record and its designs. On failure it returns
// the sentence the candidate is told.
func (s *Sessions) open(ctx context.Context, job lkagent.Job, ttl time.Duration) (*interviews.Opened, lang.Key, error) {
	d, err := interviews.ParseDispatch(job.Metadata)
	if err != nil {
		return nil, lang.RefuseBadLink, err
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
					return nil, "", fmt.Errorf("%w: %w", errDuplicateJob, err)
				}
				return nil, lang.RefuseLeaseHeld, err
			}
			return nil, lang.RefuseUnavailable, err
		}
	}
	o, err := d.Open(ctx, s.Store, job.RoomName, s.designs())
	if err != nil {
		if d.InterviewID != "" {
			_ = s.Store.ReleaseLease(context.WithoutCancel(ctx), d.InterviewID, owner)
		}
		return nil, openRefusal(err), err
	}
	if d.InterviewID == "" {
		if _, err := s.Store.AcquireLease(ctx, o.Record.ID, owner, ttl); err != nil {
			return nil, lang.RefuseUnavailable, err
		}
	}
	return o, "", nil
}

// openRefusal is what the candidate is told when Dispatch.Open fails.
func openRefusal(err error) lang.Key {
	switch {
	case errors.Is(err, interviews.ErrFinished):
		return lang.RefuseFinished
	case errors.Is(err, interviews.ErrRevoked):
		return lang.RefuseRevoked
	case errors.Is(err, interviews.ErrNotFound):
		return lang.RefuseBadLink
	case errors.Is(err, interviews.ErrDesignNotFound):
		return lang.RefuseNoDesign
	}
	return lang.RefuseUnavailable
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
	opened, msg, err := s.open(ctx, job, ttl)
	if errors.Is(err, errDuplicateJob) {
		log.Warn("leaving a second dispatch of an interview that runs in this room to its session", "err", err)
		return nil
	}
	if err != nil {
		log.Error("rejecting job: the interview cannot run here", "err", err, "told", msg)
		s.reject(ctx, job, log, lang.Text(s.dispatchLanguage(ctx, job), msg))
		return err
	}
	rec := opened.Record
	log = log.With("interview_id", rec.ID, "blueprint", rec.Blueprint, "blueprint_version", rec.BlueprintVersion)
	owner := leaseOwner(job)
	bp := opened.Blueprint
	language := agent.InterviewLanguage(rec, bp)
	if msg, err := s.refusePlan(settle, rec, bp, owner, log); err != nil {
		s.reject(ctx, job, log, msg)
		return err
	}
	eng, msg, refused, err := s.engines(ctx, rec.ID)
	if err == nil {
		if eng, err = eng.inLanguage(language); err != nil {
			msg = lang.RefuseLanguage
		}
	}
	if err != nil {
		log.Error("rejecting job: the interview's engines cannot start", "err", err, "told", msg)
		if refused {
			s.refuseKeys(settle, rec, err, log)
		}
		if err := s.Store.ReleaseLease(settle, rec.ID, owner); err != nil {
			log.Error("could not release the interview's lease; it lapses on its own", "err", err)
		}
		s.reject(ctx, job, log, lang.Text(language, msg))
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
	sess := &session{s: s, eng: eng, job: job, log: log, bp: bp, tpl: opened.Template, language: language,
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

// DefaultCandidateTimeout is how long a session waits for the candidate to
// join when Sessions.CandidateTimeout is zero.
const DefaultCandidateTimeout = 10 * time.Minute
