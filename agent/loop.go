package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/incident"

	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// How a candidate turn arrived (CandidateTurn.Source).
const (
	// SourceVoice marks a turn heard as speech.
	SourceVoice = "voice"
	// SourceText marks a typed turn.
	SourceText = "text"
)

// Defaults of LoopOptions.
const (
	// DefaultMaxModelFailures is how many model turns in a row may fail
	// before the interview is saved as failed: one failure is often a
	// transient network error the candidate does not even notice.
	DefaultMaxModelFailures = 3
	// MinClosingSafety is the least time the closing stage's words are
	// given to finish playing, however small the time scale.
	MinClosingSafety = 5 * time.Second
)

// LoopOptions configure a Loop.
type LoopOptions struct {
	// JoinTimeout, when above zero, makes the loop wait up to this long for
	// Joined before it greets; a candidate who never comes is saved
	// candidate_left by candidate_never_joined. Zero greets at once (the
	// candidate is already there, as in a terminal).
	JoinTimeout time.Duration
	// RejoinGrace is how long a candidate who left may take to come back
	// and continue. The record is saved candidate_left as they leave either
	// way. Zero ends the interview when they leave.
	RejoinGrace time.Duration
	// MaxModelFailures is how many model turns in a row may fail before the
	// interview ends as failed by provider_error: llm (default
	// DefaultMaxModelFailures).
	MaxModelFailures int
	// Stopped is how the interview ends when Run's context is cancelled
	// (default: failed by worker_stopped).
	Stopped Ending
	// HearingTimeout, when above zero, makes the greeting wait after the
	// candidate joined until they receive the interviewer's audio
	// (Hearing), at most this long: nobody is greeted into the void.
	HearingTimeout time.Duration
	// FalseInterruptionTimeout, when above zero, turns a barge-in into a
	// pause: the reply stops at once, and when no words come within this
	// long it resumes from the sentence it was in and is saved as not
	// interrupted. Zero cuts the reply for good at every barge-in.
	FalseInterruptionTimeout time.Duration
	// CutOffWindow is how soon after a reply to a spoken turn starts
	// playing the candidate may speak again and be taken as going on
	// with their answer: the reply stops at once and, when words follow,
	// is dropped (not saved, its questions withdrawn). Zero means
	// DefaultCutOffWindow; it needs FalseInterruptionTimeout (the same
	// wait tells words from noise); negative disables it.
	CutOffWindow time.Duration
	// AwayAfter, when above zero, is the silence after the interviewer
	// finished speaking that brings a kind check-in; a second brings the
	// offer to stop, a third closes the interview as
	// candidate_unresponsive. Never in the last stage.
	AwayAfter time.Duration
}

// Loop drives one interview over a transport: greet, respond to each
// candidate turn, acknowledge stage changes forced by the fallback timer,
// let the candidate leave and come back, end by state and save on every
// exit path. One loop serves every transport, so voice, browser text and
// the terminal behave alike.
type Loop struct {
	c    *Conductor
	bp   *stages.Blueprint
	opts LoopOptions
	log  *slog.Logger

	entered   chan struct{} // a stage was entered; see observe
	enteredMu sync.Mutex
	stages    []fsm.Event
	forced    chan struct{} // the fallback timer forced a transition

	// State owned by Run's goroutine.
	t                 Transport
	speaking          *speech
	candidateSpeaking bool
	turnStarted       time.Time
	turnBursts        int // speech onsets since turnStarted
	ackDue            bool
	away              bool
	inputEnded        bool
	modelFailures     int
	err               error
	safety, rejoin    *time.Timer

	// Turn-taking state, owned by Run's goroutine.
	paused       *pause      // a reply stopped by a sound, not yet judged
	pauseTimer   *time.Timer // FalseInterruptionTimeout of paused
	awayTimer    *time.Timer // AwayAfter of silence
	silences     int         // AwayAfter periods of silence in a row
	unresponsive bool        // the closing for an unresponsive candidate is being said
	backchannels int         // ignored since the last reply was delivered
	hearing      bool        // the candidate receives the interviewer's audio
}

// pause is a reply stopped by the candidate's sound, waiting to learn
// whether words follow (a real interruption, or a cut-off when the reply
// had just started) or not (it resumes).
type pause struct {
	sp     *speech
	d      Delivery
	cutOff bool
}

// speech is one reply on its way out.
type speech struct {
	reply     *Reply
	play      Playback
	heardEnd  time.Time // end of the candidate speech it answers (voice turns)
	delivered bool

	// A continuation after a false interruption: root is the reply it
	// continues, head what of root was heard before, rootD root's
	// delivery so far, resumed how many times root was resumed.
	root    *speech
	head    string
	rootD   Delivery
	resumed int
}

// startedPlayback is a Playback that tells when its first audio played.
type startedPlayback interface {
	// StartedAt is when the first audio played; zero before.
	StartedAt() time.Time
}

// NewLoop wires an interview (see NewInterview) and the loop that holds
// it. s.OnEvent, if set, still receives every state machine event.
func NewLoop(s Setup, opts LoopOptions) (*Loop, error) {
	if opts.MaxModelFailures <= 0 {
		opts.MaxModelFailures = DefaultMaxModelFailures
	}
	if opts.CutOffWindow == 0 {
		opts.CutOffWindow = DefaultCutOffWindow
	}
	if opts.Stopped.Status == "" {
		opts.Stopped = Ending{Status: interviews.StatusFailed, Reason: interviews.EndedWorkerStopped}
	}
	l := &Loop{opts: opts, log: s.Logger, entered: make(chan struct{}, 1), forced: make(chan struct{}, 1)}
	if l.log == nil {
		l.log = slog.Default()
	}
	extra := s.OnEvent
	s.OnEvent = func(ev fsm.Event) {
		l.observe(ev)
		if extra != nil {
			extra(ev)
		}
	}
	c, err := NewInterview(s)
	if err != nil {
		return nil, err
	}
	l.c, l.bp = c, c.Machine().Blueprint()
	return l, nil
}

// Conductor is the loop's conductor: its recorder holds the record.
func (l *Loop) Conductor() *Conductor { return l.c }

// observe queues a stage entered for Run without ever blocking the state
// machine that reports it.
func (l *Loop) observe(ev fsm.Event) {
	if ev.Kind != fsm.EventStageEntered {
		return
	}
	l.enteredMu.Lock()
	l.stages = append(l.stages, ev)
	l.enteredMu.Unlock()
	select {
	case l.entered <- struct{}{}:
	default:
	}
}

// Run holds the interview over t until it ends and the record says how.
// It returns an error only when the model failed MaxModelFailures turns in
// a row (the interview is then saved as failed); every other ending,
// including a cancelled ctx, is saved and returns nil. Call it once.
func (l *Loop) Run(ctx context.Context, t Transport) error {
	l.t = t
	// Provider faults met on this interview's calls go into its record
	// beside the turns, whatever the transport.
	ctx = incident.WithObserver(ctx, func(inc incident.Incident) {
		_ = l.c.Recorder().Update(func(r *interviews.Record) { r.AddIncident(inc) })
	})
	in := t.Inputs()
	defer func() {
		for _, tm := range []*time.Timer{l.safety, l.rejoin, l.pauseTimer, l.awayTimer} {
			if tm != nil {
				tm.Stop()
			}
		}
	}()
	if l.opts.JoinTimeout > 0 && !l.awaitCandidate(ctx, &in) {
		return l.err
	}
	if l.opts.HearingTimeout > 0 && !l.awaitHearing(ctx, &in) {
		return l.err
	}

	timerCtx, stopTimer := context.WithCancel(ctx)
	timerDone := make(chan struct{})
	go func() {
		defer close(timerDone)
		l.c.RunTimer(timerCtx, func(fsm.Transition) {
			select {
			case l.forced <- struct{}{}:
			default:
			}
		})
	}()
	defer func() {
		stopTimer()
		<-timerDone
	}()

	if err := l.begin(ctx); err != nil {
		return err
	}
	for !l.step(ctx, &in) {
	}
	return l.err
}

// begin opens the interview: the greeting, or where a resumed interview
// stands.
func (l *Loop) begin(ctx context.Context) error {
	if !l.c.Resuming() {
		l.say(ctx, l.c.Greet(ctx), time.Time{})
		return nil
	}
	r, err := l.c.Resume(ctx)
	if err != nil {
		l.c.Finish(interviews.StatusFailed, interviews.EndedWorkerCrashed)
		return fmt.Errorf("agent: %w", err)
	}
	l.say(ctx, r, time.Time{})
	// Show the stage the interview is in: no machine event announces it.
	m := l.c.Machine()
	l.stageEntered(fsm.Event{Kind: fsm.EventStageEntered, Stage: m.Stage()})
	return nil
}

// step waits for the next thing to happen — an input, a timer, the reply
// played, a stage entered — and acts on it; it reports whether the
// interview is over.
func (l *Loop) step(ctx context.Context, in *<-chan Input) (over bool) {
	var played <-chan struct{}
	if l.speaking != nil {
		played = l.speaking.play.Done()
	}
	select {
	case <-ctx.Done():
		l.stopSpeaking()
		l.c.Finish(l.opts.Stopped.Status, l.opts.Stopped.Reason)
		l.log.Info("interview stopped: saved", "status", l.opts.Stopped.Status, "ended_by", l.opts.Stopped.Reason)
		return true

	case <-l.c.Ended():
		l.settlePause()
		if sp := l.speaking; sp != nil && !sp.delivered {
			// The last deadline passed while the interviewer spoke: let
			// it finish.
			if d := sp.play.Wait(); !d.StartedAt.IsZero() {
				l.delivered(sp, d)
			}
		}
		return true

	case <-timerC(l.rejoin):
		l.c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
		l.log.Info("the candidate did not come back: interview saved")
		return true

	case <-timerC(l.safety):
		l.log.Warn("closing words did not finish in time; ending the interview")
		l.stopSpeaking()
		l.c.Finish(interviews.StatusCompleted, interviews.EndedDeadline)

	case <-timerC(l.pauseTimer):
		l.pauseTimer = nil
		l.pauseExpired(ctx)

	case <-timerC(l.awayTimer):
		l.awayTimer = nil
		return l.checkIn(ctx)

	case <-played:
		return l.played(ctx)

	case <-l.entered:
		l.enteredMu.Lock()
		evs := l.stages
		l.stages = nil
		l.enteredMu.Unlock()
		for _, ev := range evs {
			l.stageEntered(ev)
		}

	case <-l.forced:
		if !l.c.Machine().Done() {
			l.ackDue = true
			l.maybeInterject(ctx)
		}

	case ev, ok := <-*in:
		if !ok {
			*in, ev = nil, InputEnded{}
		}
		return l.handle(ctx, ev)
	}
	return false
}

// played acts on the interviewer's reply having played out; it reports
// whether the interview is over.
func (l *Loop) played(ctx context.Context) (over bool) {
	sp := l.speaking
	l.speaking = nil
	l.delivered(sp, sp.play.Wait())
	if l.unresponsive {
		l.c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateUnresponsive)
		l.log.Info("the candidate stopped responding: interview closed and saved")
		return true
	}
	if l.inputEnded {
		l.c.Finish(interviews.StatusCandidateLeft, interviews.EndedEndOfInput)
		return true
	}
	if !l.over() {
		l.t.Listening()
	}
	l.maybeInterject(ctx)
	l.armAway()
	return false
}

// timerC is t's channel, or nil (never ready) without a timer.
func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

// over reports whether the interview has ended.
func (l *Loop) over() bool {
	select {
	case <-l.c.Ended():
		return true
	default:
		return false
	}
}

// say hands a reply to the transport.
func (l *Loop) say(ctx context.Context, r *Reply, heardEnd time.Time) {
	l.stopAway()
	l.speaking = &speech{reply: r, play: l.t.Say(ctx, r), heardEnd: heardEnd}
}

// maybeInterject speaks a pending stage-change acknowledgement when nobody
// is speaking.
func (l *Loop) maybeInterject(ctx context.Context) {
	if !l.ackDue || l.speaking != nil || l.candidateSpeaking || l.away || l.inputEnded {
		return
	}
	l.ackDue = false
	if r, ok := l.c.Interject(ctx); ok {
		l.say(ctx, r, time.Time{})
	}
}

// stopSpeaking cuts the reply being delivered (if any) and records what
// reached the candidate of it.
func (l *Loop) stopSpeaking() {
	l.settlePause()
	sp := l.speaking
	if sp == nil {
		return
	}
	l.speaking = nil
	sp.reply.Cancel()
	sp.play.Interrupt()
	l.delivered(sp, sp.play.Wait())
}

// delivered applies the failure policy to a reply's generation and tells
// the conductor what reached the candidate of it.
func (l *Loop) delivered(sp *speech, d Delivery) {
	if sp.delivered {
		return
	}
	sp.delivered = true
	if _, err := sp.reply.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		l.modelFailures++
		l.log.Error("the interviewer model failed", "err", err, "failures", l.modelFailures)
		if l.modelFailures >= l.opts.MaxModelFailures {
			l.err = fmt.Errorf("agent: the interviewer model failed %d turns in a row: %w", l.modelFailures, err)
			l.c.Finish(interviews.StatusFailed, interviews.EndedByProviderError("llm"))
		}
	} else if err == nil {
		l.modelFailures = 0
	}
	if root := sp.root; root != nil {
		// A continuation: the reply it continues is delivered as one,
		// interrupted only if the continuation was.
		sp.reply.Drop()
		root.delivered = true
		rd := sp.rootD
		rd.Text = strings.TrimSpace(sp.head + " " + d.Text)
		rd.Interrupted = d.Interrupted
		rd.EndedAt = d.EndedAt
		rd.FalseInterruptionsResumed = sp.resumed
		sp, d = root, rd
	}
	if !sp.heardEnd.IsZero() && !d.StartedAt.IsZero() {
		d.EndToEnd = d.StartedAt.Sub(sp.heardEnd)
	}
	d.BackchannelsIgnored = l.backchannels
	l.backchannels = 0
	sp.reply.Delivered(d)
}

// stageEntered shows a new stage and, in the last one, bounds how long its
// closing words may take.
func (l *Loop) stageEntered(ev fsm.Event) {
	m := l.c.Machine()
	st, _, _ := l.bp.Stage(ev.Stage)
	l.t.StageEntered(StageChange{Name: ev.Stage, Title: st.Title, Index: m.Index(), Count: m.Count(),
		Deadline: m.Deadline(), Forced: ev.Transition != nil && ev.Transition.Forced})
	if l.bp.IsLast(ev.Stage) && l.safety == nil {
		l.safety = time.NewTimer(max(time.Duration(float64(l.bp.ClosingSafetyTimeout())*m.TimeScale()), MinClosingSafety))
	}
}
