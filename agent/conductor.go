// Package agent is the interviewer's brain: the conductor runs the LLM turn
// loop with tools over the interview state machine, assembles the prompt
// from the blueprint, and keeps the interview record. It knows nothing of
// audio or LiveKit: the same conductor serves the voice session, the
// terminal (viva chat) and text chat in the browser.
package agent

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// Options configure a Conductor.
type Options struct {
	// LLM is the model that plays the interviewer. Required.
	LLM llm.Client
	// Machine is the interview's state machine, created with the
	// Recorder's MachineEvent as its OnEvent and attached to it with
	// Recorder.QuestionsFrom. Required.
	Machine *fsm.Machine
	// Recorder keeps and saves the record. Required.
	Recorder *Recorder
	// Profile is the candidate as the instructions see them.
	Profile stages.Profile
	// MaxToolRounds bounds the model calls in one turn (default 6); the
	// last round is offered no tools, so the model must speak.
	MaxToolRounds int
	// MaxHistory bounds the chat messages kept in the prompt (default 60).
	MaxHistory int
	// Logger receives the session's logs (default slog.Default()).
	Logger *slog.Logger
	// Template is the role template the guided stages ask from; nil asks
	// none.
	Template *stages.Template
	// Analyzer analyses answers beside the replies (nil: the offline
	// rules).
	Analyzer analysis.Analyzer
	// Preemptive lets a reply's first model call start while the
	// endpointing delay runs (Prefetch). Only for a model whose calls
	// change nothing (a remote model, not the scripted interviewer).
	Preemptive bool
	// Pace is the interview's clock and what is said while the model is
	// slow.
	Pace
	// MaxModelCalls bounds the interviewer's model calls for the whole
	// interview (default DefaultMaxModelCalls; negative: no bound), so a
	// flood of input or a looping model cannot run up the bill: once they
	// are spent the interviewer says lang.BudgetSpent and the interview ends
	// (interviews.EndedModelBudget).
	MaxModelCalls int
	// Resume continues an interview a previous session started (its
	// machine resumed with fsm.Machine.Resume): the conversation so far is
	// read back from the record, and the loop opens with Resume instead of
	// Greet.
	Resume bool
}

// Pace is the interview's clock and what it says while the model is
// slow; the zero value uses the defaults.
type Pace struct {
	// Filler is said once in a turn whose model has said nothing for
	// FillerAfter (default the catalogue's lang.Filler in the interview's
	// language after DefaultFillerAfter; "-" says
	// nothing). It is never part of the reply: not in the model's history,
	// the analysis or the turn's text (the record keeps it in Turn.Filler).
	Filler      string
	FillerAfter time.Duration
	// Clock is the interview's clock, the state machine's too (its gates
	// and deadlines); nil means time.Now.
	Clock func() time.Time
}

// DefaultMaxModelCalls is Options.MaxModelCalls' default: a long interview
// (30 answers, each a call or two, and the stage changes) stays far below.
const DefaultMaxModelCalls = 200

// Defaults of Pace.
const (
	// DefaultFillerAfter is how long the candidate waits in silence for a
	// turn's first words before the filler is said: longer than a healthy
	// model's first token, short enough not to feel like a dropped call.
	DefaultFillerAfter = 2500 * time.Millisecond
)

// Conductor runs the turns of one interview. Its methods may be called
// from several goroutines; at most one turn generates at a time (a new turn
// cancels a running one).
type Conductor struct {
	llm     llm.Client
	machine *fsm.Machine
	bp      *stages.Blueprint
	last    string // the final stage, whose delivered utterance ends the interview
	rec     *Recorder
	guide   *guide
	profile stages.Profile
	log     *slog.Logger
	rounds  int
	maxHist int

	mu      sync.Mutex // guards history and current
	history []llm.Message
	current *Reply

	resuming bool // opens with Resume, not Greet

	filler      string
	fillerAfter time.Duration
	clock       func() time.Time
	maxCalls    int
	spent       atomic.Int64 // model calls made, prefetches included

	preemptive bool
	preMu      sync.Mutex
	pre        *prefetch // the first model call of a reply started before its turn ended

	endedEarly atomic.Bool
	guideOnce  sync.Once
	ended      chan struct{}
	endOnce    sync.Once
}

// New returns a conductor. It does not start the interview: call Greet.
func New(opts Options) (*Conductor, error) {
	switch {
	case opts.LLM == nil:
		return nil, errors.New("agent: Options.LLM is required")
	case opts.Machine == nil:
		return nil, errors.New("agent: Options.Machine is required")
	case opts.Recorder == nil:
		return nil, errors.New("agent: Options.Recorder is required")
	}
	c := &Conductor{
		llm: opts.LLM, machine: opts.Machine, rec: opts.Recorder, profile: opts.Profile,
		log: opts.Logger, rounds: opts.MaxToolRounds, maxHist: opts.MaxHistory,
		ended: make(chan struct{}), preemptive: opts.Preemptive, clock: opts.Clock,
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.bp = c.machine.Blueprint()
	c.guide = newGuide(c.bp, opts.Template, opts.Analyzer, c.rec, c.machine, c.log)
	if path := c.machine.Path(); len(path) > 0 {
		c.last = path[len(path)-1]
	}
	if c.rounds <= 0 {
		c.rounds = 6
	}
	if c.maxHist <= 0 {
		c.maxHist = 60
	}
	c.filler, c.fillerAfter = cmp.Or(opts.Filler, c.say(lang.Filler)), cmp.Or(opts.FillerAfter, DefaultFillerAfter)
	if c.filler == "-" {
		c.filler = ""
	}
	c.maxCalls = cmp.Or(opts.MaxModelCalls, DefaultMaxModelCalls)
	if opts.Resume {
		c.resuming = true
		for _, t := range c.rec.Snapshot().Turns {
			role := llm.RoleUser
			if t.Role == interviews.RoleAgent {
				role = llm.RoleAssistant
			}
			if text := strings.TrimSpace(t.Text); text != "" {
				c.history = append(c.history, llm.Message{Role: role, Content: text})
			}
		}
		if n := len(c.history); n > c.maxHist {
			c.history = c.history[n-c.maxHist:]
		}
	}
	return c, nil
}

// say is the catalogue's sentence key in the interview's language.
func (c *Conductor) say(key lang.Key) string { return lang.Text(c.profile.Language, key) }

// Say is the catalogue's sentence key in the interview's language: what
// the transports say themselves (check-ins, refusals) follows it too.
func (c *Conductor) Say(key lang.Key) string { return c.say(key) }

// Machine is the conductor's state machine.
func (c *Conductor) Machine() *fsm.Machine { return c.machine }

// Recorder is the conductor's record keeper.
func (c *Conductor) Recorder() *Recorder { return c.rec }

// Ended is closed when the interview is over by state: the closing
// utterance was delivered, or the machine reached Done (a deadline).
func (c *Conductor) Ended() <-chan struct{} { return c.ended }

// EndedEarly reports whether the candidate asked to stop (end_interview).
func (c *Conductor) EndedEarly() bool { return c.endedEarly.Load() }

// spend takes one model call from the interview's budget; false when it
// is spent.
func (c *Conductor) spend() bool {
	if c.maxCalls < 0 {
		return true
	}
	if c.spent.Add(1) > int64(c.maxCalls) {
		c.spent.Add(-1)
		return false
	}
	return true
}

func (c *Conductor) now() time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return time.Now()
}

// Greet starts the interview (the machine enters its first stage, the
// record becomes in progress) and runs the first agent turn, which needs no
// candidate input.
func (c *Conductor) Greet(ctx context.Context) *Reply {
	now := c.now()
	_ = c.rec.Update(func(rec *interviews.Record) { rec.Start(now) })
	read := c.guide.prepare(ctx)
	c.machine.Start()
	return c.startAfter(ctx, nil, "greeting", "", false, read)
}

// CandidateTurn is what the candidate said, with how it was measured.
type CandidateTurn struct {
	// Text is the transcript or the typed message.
	Text string
	// Source is SourceVoice or SourceText.
	Source string
	// StartedAt and EndedAt bound the candidate's speech (or the moment a
	// typed message arrived, for both).
	StartedAt, EndedAt time.Time
	// Endpointing is how a spoken turn was ended, carried to the metrics
	// of the agent turn that answers; zero for a typed turn.
	Endpointing interviews.Endpointing
	// Bursts is how many times the candidate started speaking in a
	// spoken turn (the voice activity detector's onsets); 0 when unknown.
	Bursts int
	// STTConfidence is the recogniser's confidence in a spoken Text
	// (interviews.Turn.STTConfidence); 0 for none or typed.
	STTConfidence float64
}

// Respond records the candidate's turn and runs the agent turn that answers
// it. A turn still generating is cancelled first, so there are never two
// answers at once and never a stale answer after a new turn. The record is
// saved behind the model call, never before it (see Recorder).
func (c *Conductor) Respond(ctx context.Context, in CandidateTurn) *Reply {
	text := strings.TrimSpace(in.Text)
	if in.StartedAt.IsZero() {
		in.StartedAt = c.now()
	}
	if in.EndedAt.IsZero() {
		in.EndedAt = in.StartedAt
	}
	if in.Source == "" {
		in.Source = SourceText
	}
	stage := c.machine.Stage()
	aside := ""
	if stage == c.lastStage() && !c.bp.KnowledgeCapture() {
		aside = interviews.AsideQuestion
	}
	var seq int
	_ = c.rec.Update(func(rec *interviews.Record) {
		asked := questionEnded(rec)
		seq = rec.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: stage, Text: text,
			Source: in.Source, StartedAt: in.StartedAt, EndedAt: in.EndedAt, Aside: aside, STTConfidence: in.STTConfidence}).Seq
		notice(rec, seq, in, asked)
	})
	// An exit decided by the analysis of earlier answers closes the
	// interview now, after the candidate has answered the last question;
	// this answer is analysed beside the reply, never before it.
	c.guide.takeExit()
	// The candidate's own questions at the closing are recorded, not
	// analysed as answers.
	if text != "" && stage != c.lastStage() {
		c.guide.answered(seq, text, stage)
	}
	return c.turn(ctx, &in, in.Source)
}

// Interject runs an agent turn without candidate input when a stage change
// is waiting to be acknowledged (a forced transition from the fallback
// timer). It reports false, and runs nothing, when there is none or the
// interview is over.
func (c *Conductor) Interject(ctx context.Context) (*Reply, bool) {
	if c.machine.Done() || !c.machine.PendingAck() {
		return nil, false
	}
	return c.turn(ctx, nil, "timer"), true
}

// Leave saves the interview as candidate_left at once, with everything said
// so far, and keeps it open for the candidate to come back within grace.
// The turn being generated is cancelled; the stage clock runs on, so a
// deadline that passes meanwhile still moves the interview on (or ends it).
func (c *Conductor) Leave(grace time.Duration) {
	c.mu.Lock()
	if c.current != nil {
		c.current.Cancel()
	}
	c.mu.Unlock()
	now := c.now()
	_ = c.rec.Update(func(rec *interviews.Record) { rec.Leave(now, now.Add(grace)) })
	c.log.Info("the candidate left; the interview may be rejoined", "grace", grace, "stage", c.machine.Stage())
}

// Rejoin continues the interview after the candidate came back within the
// window Leave opened: the record is in progress again and the returned
// reply welcomes them back and repeats the last question they heard. It
// fails when the interview cannot be rejoined (it ended meanwhile).
func (c *Conductor) Rejoin(ctx context.Context) (*Reply, error) {
	now := c.now()
	var err error
	_ = c.rec.Update(func(rec *interviews.Record) { err = rec.Rejoin(now) })
	if err != nil {
		return nil, err
	}
	c.log.Info("the candidate rejoined; continuing", "stage", c.machine.Stage())
	return c.welcomeBack(ctx, "rejoin"), nil
}

// Resuming reports whether the interview continues one a previous session
// started, so it opens with Resume rather than Greet.
func (c *Conductor) Resuming() bool { return c.resuming }

// Resume continues an interview whose previous session died: the record is
// in progress again (the gap kept as an absence) and the returned reply
// welcomes the candidate back and repeats the last question they heard,
// as after a rejoin.
func (c *Conductor) Resume(ctx context.Context) (*Reply, error) {
	now := c.now()
	var err error
	_ = c.rec.Update(func(rec *interviews.Record) { err = rec.Resume(now) })
	if err != nil {
		return nil, err
	}
	c.guide.prepare(ctx)()
	c.log.Info("resuming the interview from its saved state", "stage", c.machine.Stage(), "questions", len(c.machine.Questions()))
	return c.welcomeBack(ctx, "resume"), nil
}

// welcomeBack starts the turn that greets a candidate who came back. It
// opens with a fixed line, so it does not depend on the model. When the
// last question they heard is still unanswered, the line repeats it word
// for word; otherwise (they had answered, the question they were hearing
// was cut off when they left, or none was asked yet) the line says the
// interview carries on and the interviewer goes on in the same turn with
// its next question — the candidate never sits in silence.
func (c *Conductor) welcomeBack(ctx context.Context, source string) *Reply {
	line := c.say(lang.WelcomeBack)
	if first := strings.Fields(c.profile.Name); len(first) > 0 {
		line = lang.Textf(c.profile.Language, lang.WelcomeBackNamef, first[0])
	}
	if q, ok := c.unansweredQuestion(); ok {
		return c.start(ctx, nil, source, line+" "+lang.Textf(c.profile.Language, lang.AskingAgainf, strings.TrimSpace(q.Text)))
	}
	return c.startThenGoOn(ctx, nil, source, line+" "+c.say(lang.CarryOn), true)
}

// unansweredQuestion returns the last question the candidate heard when
// no answer of theirs followed it.
func (c *Conductor) unansweredQuestion() (stages.Question, bool) {
	qs := c.machine.Questions()
	for i := len(qs) - 1; i >= 0; i-- {
		q := qs[i]
		if !q.Spoken() || q.Withdrawn {
			continue
		}
		answered := false
		c.rec.View(func(rec *interviews.Record) {
			asked := slices.IndexFunc(rec.Turns, func(t interviews.Turn) bool { return slices.Contains(t.QuestionIDs, q.ID) })
			answered = asked >= 0 && slices.ContainsFunc(rec.Turns[asked+1:], func(t interviews.Turn) bool { return t.Role == interviews.RoleCandidate })
		})
		return q, !answered
	}
	return stages.Question{}, false
}

// turn starts generating one agent turn.
func (c *Conductor) turn(ctx context.Context, in *CandidateTurn, source string) *Reply {
	return c.start(ctx, in, source, "")
}

// start starts one agent turn: generated by the model, or the fixed text
// when it is not empty.
func (c *Conductor) start(ctx context.Context, in *CandidateTurn, source, fixed string) *Reply {
	return c.startThenGoOn(ctx, in, source, fixed, false)
}

// startThenGoOn is start, and with goOn the model goes on after the fixed
// text in the same turn.
func (c *Conductor) startThenGoOn(ctx context.Context, in *CandidateTurn, source, fixed string, goOn bool) *Reply {
	return c.startAfter(ctx, in, source, fixed, goOn, nil)
}

// startAfter is startThenGoOn; after, when set, runs once the turn's
// model calls are done (before Wait returns).
func (c *Conductor) startAfter(ctx context.Context, in *CandidateTurn, source, fixed string, goOn bool, after func()) *Reply {
	c.mu.Lock()
	if prev := c.current; prev != nil {
		prev.Cancel()
		c.mu.Unlock()
		<-prev.generated
		c.mu.Lock()
	}
	tctx, cancel := context.WithCancel(ctx)
	r := &Reply{
		c: c, cancel: cancel, source: source, stage: c.machine.Stage(), fixed: fixed, goOn: goOn, after: after,
		deltas: make(chan string, 64), generated: make(chan struct{}),
	}
	if in != nil {
		r.in = *in
		c.history = append(c.history, llm.Message{Role: llm.RoleUser, Content: strings.TrimSpace(in.Text)})
	}
	c.current = r
	c.mu.Unlock()
	go r.generate(tctx)
	return r
}

// Finish ends the record with status (unless it already ended), waits
// until the record is saved, and closes Ended. Transports call it on every
// exit path: completion, candidate left, worker stopped, provider failure.
func (c *Conductor) Finish(status interviews.Status, endedBy interviews.EndReason) {
	c.mu.Lock()
	if c.current != nil {
		c.current.Cancel()
	}
	c.mu.Unlock()
	c.CancelPrefetch()
	if c.rec.Finish(status, endedBy, c.now()) {
		c.log.Info("interview finished", "status", status, "ended_by", endedBy, "final_stage", c.rec.Snapshot().FinalStage)
	}
	c.guideOnce.Do(func() { c.guide.finish(endedBy) })
	// Finish waited for the save; Close reports any save that failed.
	_ = c.rec.Close()
	c.endOnce.Do(func() { close(c.ended) })
}

// RunTimer runs the machine's fallback timer until ctx ends or the
// interview is over. onForced is called for each forced transition (from a
// goroutine of the timer): the transport then speaks the acknowledgement
// with Interject when the candidate is not speaking. When the last stage's
// deadline passes the interview is finished as completed by deadline.
func (c *Conductor) RunTimer(ctx context.Context, onForced func(fsm.Transition)) {
	c.machine.Run(ctx, func(tr fsm.Transition) {
		c.log.Info("stage deadline passed: moving on", "from", tr.From, "to", tr.To)
		if c.machine.Done() {
			c.Finish(interviews.StatusCompleted, interviews.EndedDeadline)
		}
		if onForced != nil {
			onForced(tr)
		}
	})
}

// CheckIn runs an agent turn of fixed text that asks no question (a kind
// word after a silence, an offer to stop): it is saved as said, but never
// registered as a question and never ends the interview.
func (c *Conductor) CheckIn(ctx context.Context, text string) *Reply {
	return c.start(ctx, nil, "check_in", text)
}

// LastQuestion is the text of the last question the candidate heard; ok is
// false before any.
func (c *Conductor) LastQuestion() (text string, ok bool) {
	qs := c.machine.Questions()
	for i := len(qs) - 1; i >= 0; i-- {
		if qs[i].Spoken() && !qs[i].Withdrawn {
			return strings.TrimSpace(qs[i].Text), true
		}
	}
	return "", false
}

// Repeat answers a request to repeat the question: the request is saved as
// the candidate's turn (it is not an answer, so it is not analysed) and
// the reply says the last question again, verbatim, without registering
// it a second time. It reports false, doing nothing, before any question.
func (c *Conductor) Repeat(ctx context.Context, in CandidateTurn) (*Reply, bool) {
	q, ok := c.LastQuestion()
	if !ok {
		return nil, false
	}
	text := strings.TrimSpace(in.Text)
	if in.StartedAt.IsZero() {
		in.StartedAt = c.now()
	}
	if in.EndedAt.IsZero() {
		in.EndedAt = in.StartedAt
	}
	stage := c.machine.Stage()
	_ = c.rec.Update(func(rec *interviews.Record) {
		rec.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: stage, Text: text,
			Source: in.Source, StartedAt: in.StartedAt, EndedAt: in.EndedAt, Aside: interviews.AsideRepeat, STTConfidence: in.STTConfidence})
		rec.CountTurnTaking(func(tt *interviews.TurnTaking) { tt.Repeats++ })
	})
	return c.start(ctx, &in, "repeat", RepeatPrefix+q), true
}

// RepeatPrefix opens a repeated question.
const RepeatPrefix = "Of course. "
