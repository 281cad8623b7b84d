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
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/tool"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
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
	// Filler is said once in a turn whose model has said nothing for
	// FillerAfter (default DefaultFiller after DefaultFillerAfter; "-" says
	// nothing). It is never part of the reply: not in the model's history,
	// the analysis or the turn's text (the record keeps it in Turn.Filler).
	Filler      string
	FillerAfter time.Duration
	// Clock is the interview's clock, the machine's too; nil means
	// time.Now.
	Clock func() time.Time
	// Resume continues an interview a previous session started (its
	// machine resumed with fsm.Machine.Resume): the conversation so far is
	// read back from the record, and the loop opens with Resume instead of
	// Greet.
	Resume bool
}

// Defaults of Options.
const (
	// DefaultFiller is what the interviewer says while the model is slow to
	// answer.
	DefaultFiller = "Give me a moment."
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
	c.filler, c.fillerAfter = cmp.Or(opts.Filler, DefaultFiller), cmp.Or(opts.FillerAfter, DefaultFillerAfter)
	if c.filler == "-" {
		c.filler = ""
	}
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

// Machine is the conductor's state machine.
func (c *Conductor) Machine() *fsm.Machine { return c.machine }

// Recorder is the conductor's record keeper.
func (c *Conductor) Recorder() *Recorder { return c.rec }

// Ended is closed when the interview is over by state: the closing
// utterance was delivered, or the machine reached Done (a deadline).
func (c *Conductor) Ended() <-chan struct{} { return c.ended }

// EndedEarly reports whether the candidate asked to stop (end_interview).
func (c *Conductor) EndedEarly() bool { return c.endedEarly.Load() }

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
	// EndOfUtterance and STTFinal are the endpointing measures, carried to
	// the metrics of the agent turn that answers.
	EndOfUtterance, STTFinal time.Duration
	// EndpointingRule is the rule that ended a spoken turn
	// (interviews.Endpointing*) and EndpointingDelay the silence it
	// waited for; carried to the same metrics.
	EndpointingRule  string
	EndpointingDelay time.Duration
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
		seq = rec.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: stage, Text: text,
			Source: in.Source, StartedAt: in.StartedAt, EndedAt: in.EndedAt, Aside: aside}).Seq
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
	line := "Welcome back"
	if first := strings.Fields(c.profile.Name); len(first) > 0 {
		line += ", " + first[0]
	}
	line += ". We lost you for a moment."
	if q, ok := c.unansweredQuestion(); ok {
		return c.start(ctx, nil, source, line+" I was asking: "+strings.TrimSpace(q.Text))
	}
	return c.startThenGoOn(ctx, nil, source, line+" Let's carry on where we left off.", true)
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

// Reply is one agent turn: the text streams out of Deltas as the model
// produces it; the transport says what was actually delivered with
// Delivered.
type Reply struct {
	c      *Conductor
	cancel context.CancelFunc
	source string
	stage  string
	in     CandidateTurn
	fixed  string // the text of a turn that needs no model
	// goOn makes a turn that opens with fixed text go on with the model
	// (a welcome back followed by the next question).
	goOn bool
	// after runs once generation is done, before generated closes.
	after func()

	deltas    chan string
	generated chan struct{}

	// set by generate before generated is closed
	text       string
	asked      []string
	firstToken time.Duration
	preempted  bool   // the first model call was generated before the turn ended
	fallback   string // the engine that stood in for the model, if one did
	calls      int    // model calls the turn made
	filler     string // what was said while the model was slow, before the reply
	startedAt  time.Time
	err        error

	delivered atomic.Bool
}

// Deltas yields the reply's text as it is generated; it is closed when
// generation ends (complete, cancelled or failed).
func (r *Reply) Deltas() <-chan string { return r.deltas }

// Cancel stops generation. Text already yielded stays yielded.
func (r *Reply) Cancel() { r.cancel() }

// Wait blocks until generation ends and returns the whole generated text
// and the error that ended it, if any (a cancelled turn returns
// context.Canceled).
func (r *Reply) Wait() (string, error) {
	<-r.generated
	return r.text, r.err
}

// FirstToken is the model's time to first token on the turn's first call.
func (r *Reply) FirstToken() time.Duration {
	<-r.generated
	return r.firstToken
}

// Delivery is what the transport reports about a reply it output.
type Delivery struct {
	// Text is what was actually delivered (played or printed); for an
	// interrupted voice turn only the part that was played.
	Text string
	// Interrupted is true when the candidate barged in.
	Interrupted bool
	// StartedAt and EndedAt bound the delivery (first audio to end of
	// playout); zero means now.
	StartedAt, EndedAt time.Time
	// TTSFirstByte and EndToEnd are voice metrics (zero for text).
	TTSFirstByte, EndToEnd time.Duration
	// BackchannelsIgnored counts the candidate's "mm-hm"s heard while the
	// reply played; FalseInterruptionsResumed the times it stopped for a
	// sound that brought no words and resumed.
	BackchannelsIgnored, FalseInterruptionsResumed int
}

// Delivered records the agent turn with what was actually delivered: the
// turn is saved, the questions it asked are marked spoken when their text
// was delivered, and the history the model sees holds only what was said.
// When the delivered turn is the uninterrupted closing utterance, the
// interview ends by state (Ended closes). It waits for generation to end;
// calling it twice has no further effect.
func (r *Reply) Delivered(d Delivery) {
	<-r.generated
	if !r.delivered.CompareAndSwap(false, true) {
		return
	}
	c := r.c
	now := c.now()
	if d.EndedAt.IsZero() {
		d.EndedAt = now
	}
	if d.StartedAt.IsZero() {
		d.StartedAt = d.EndedAt
	}
	text, filler := withoutFiller(strings.TrimSpace(d.Text), r.filler)

	var spokenIDs []string
	for _, id := range r.asked {
		if questionDelivered(c.machine, id, text, d.Interrupted) {
			if err := c.machine.MarkSpoken(id); err == nil {
				spokenIDs = append(spokenIDs, id)
				if q, ok := questionByID(c.machine.Questions(), id); ok {
					c.guide.spoken(q)
				}
			}
		} else {
			_ = c.machine.Withdraw(id)
		}
	}
	c.mu.Lock()
	if text != "" {
		msg := text
		if d.Interrupted {
			msg += " …"
		}
		c.history = append(c.history, llm.Message{Role: llm.RoleAssistant, Content: msg})
	} else if n := len(c.history); n > 0 && c.history[n-1].Role == llm.RoleTool {
		// Nothing of the turn was said (the candidate left, or spoke at
		// once): close its tool exchange so the next turn does not take the
		// question it registered for one the candidate heard.
		c.history = append(c.history, llm.Message{Role: llm.RoleAssistant, Content: "…"})
	}
	c.mu.Unlock()
	var metrics *interviews.TurnMetrics
	if r.firstToken > 0 || d.TTSFirstByte > 0 || d.EndToEnd > 0 || r.in.EndOfUtterance > 0 || r.in.EndpointingRule != "" ||
		d.BackchannelsIgnored > 0 || d.FalseInterruptionsResumed > 0 || r.preempted {
		metrics = &interviews.TurnMetrics{
			EndOfUtteranceMs: ms(r.in.EndOfUtterance), STTFinalMs: ms(r.in.STTFinal),
			LLMFirstTokenMs: ms(r.firstToken), TTSFirstByteMs: ms(d.TTSFirstByte), EndToEndMs: ms(d.EndToEnd),
			EndpointingRule: r.in.EndpointingRule, EndpointingDelayMs: ms(r.in.EndpointingDelay),
			BackchannelsIgnored: d.BackchannelsIgnored, FalseInterruptionsResumed: d.FalseInterruptionsResumed,
			Preempted: r.preempted,
		}
	}
	if text != "" {
		_ = c.rec.Update(func(rec *interviews.Record) {
			rec.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: r.stage, Text: text,
				Source: r.source, StartedAt: d.StartedAt, EndedAt: d.EndedAt, Interrupted: d.Interrupted,
				QuestionIDs: spokenIDs, Metrics: metrics, Fallback: r.fallback, Filler: filler})
		})
	}
	// The interview ends by state: the closing utterance has been delivered.
	m := c.machine
	if !d.Interrupted && text != "" && m.Stage() == c.lastStage() && r.err == nil && (r.fixed == "" || r.goOn) && c.closingDone(text) {
		if _, err := m.Force(stages.Done, "closing delivered"); err != nil {
			c.log.Warn("ending the interview failed", "err", err)
		}
	}
	if m.Done() {
		endedBy := interviews.EndedClosingDelivered
		if c.EndedEarly() {
			endedBy = interviews.EndedCandidateRequest
		} else if trs := m.Transitions(); len(trs) > 0 && trs[len(trs)-1].Reason == "deadline" {
			endedBy = interviews.EndedDeadline
		}
		c.Finish(interviews.StatusCompleted, endedBy)
	}
}

// withoutFiller splits the filler said before a reply off the delivered
// text; filler is what of it was said.
func withoutFiller(delivered, filler string) (text, said string) {
	if filler == "" {
		return delivered, ""
	}
	if rest, ok := strings.CutPrefix(delivered, filler); ok {
		return strings.TrimSpace(rest), filler
	}
	if strings.HasPrefix(filler, delivered) {
		return "", delivered // cut off while the filler played
	}
	return delivered, ""
}

// questionDelivered decides whether a registered question reached the
// candidate: an uninterrupted turn delivered everything it said; an
// interrupted one counts a question only when the played text carries it.
func questionDelivered(m *fsm.Machine, id, played string, interrupted bool) bool {
	if played == "" {
		return false
	}
	if !interrupted {
		return true
	}
	for _, q := range m.Questions() {
		if q.ID == id {
			return fsm.Similarity(q.Text, lastSentences(played, 2)) >= 0.5 ||
				strings.Contains(normalize(played), normalize(q.Text))
		}
	}
	return false
}

func lastSentences(s string, n int) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '!' })
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	return strings.Join(parts, ".")
}

func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.Trim(s, " ?.!"))), " ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// generate runs the model/tool loop of one turn.
func (r *Reply) generate(ctx context.Context) {
	c := r.c
	defer close(r.generated)
	if r.after != nil {
		defer r.after()
	}
	defer close(r.deltas)
	defer r.cancel()
	r.startedAt = c.now()
	var out strings.Builder
	// emitMu orders the reply's words and the filler's: the filler is said
	// only while nothing else has been, once a turn.
	var emitMu sync.Mutex
	said := false
	send := func(s string) {
		select {
		case r.deltas <- s:
		case <-ctx.Done():
		}
	}
	emit := func(s string) {
		if s == "" {
			return
		}
		emitMu.Lock()
		defer emitMu.Unlock()
		said = true
		out.WriteString(s)
		send(s)
	}
	if c.filler != "" && r.fixed == "" {
		t := time.AfterFunc(c.fillerAfter, func() {
			emitMu.Lock()
			defer emitMu.Unlock()
			if !said && ctx.Err() == nil {
				said = true
				r.filler = c.filler
				send(c.filler + " ")
			}
		})
		defer func() {
			t.Stop()
			emitMu.Lock() // a filler being said finishes before the deltas close
			said = true
			emitMu.Unlock()
		}()
	}
	if r.fixed != "" {
		emit(r.fixed)
		r.err = ctx.Err()
		if r.goOn && r.err == nil {
			emit(" ")
			r.converse(ctx, &out, emit)
		}
	} else {
		r.converse(ctx, &out, emit)
	}
	r.text = strings.TrimSpace(out.String())
	// The turn belongs to the stage it ended in (a turn that moves on says
	// the next stage's first words).
	if st := c.machine.Stage(); st != stages.Done {
		r.stage = st
	}
	if r.err != nil && !errors.Is(r.err, context.Canceled) {
		c.log.Error("interviewer turn failed", "err", r.err)
	}
}

// converse runs the model and its tool calls for up to c.rounds rounds;
// out holds what the turn has said so far and emit says more.
//
// A reply takes one model call in the common case: the model's text (a
// short acknowledgement) streams at once, and a question it asks with
// ask_question is registered and, once accepted, said word for word after
// that text, so no second call is needed to speak it. Another call is made
// only when the model must learn something first: a refused tool call, a
// stage just entered (its instructions), a phase evaluation, or a reply
// that has said nothing yet.
func (r *Reply) converse(ctx context.Context, out *strings.Builder, emit func(string)) {
	c := r.c
	for round := 0; round < c.rounds; round++ {
		if ctx.Err() != nil {
			r.err = ctx.Err()
			break
		}
		var tools []llm.Tool
		if round < c.rounds-1 {
			tools = c.offeredTools()
		}
		var resp llm.Response
		var err error
		called := false
		if p := r.takePrefetch(round); p != nil {
			// Started while the endpointing delay ran; a failed early call
			// is made again now.
			resp, err = p.use(ctx, r.startedAt, emit)
			r.preempted, called = err == nil, err == nil || ctx.Err() != nil
		}
		if !called {
			req := llm.Request{Messages: c.prompt(out.String()), Tools: tools, Suggestions: c.suggestions(),
				// The text before a tool call is whole: a space lets its last
				// sentence be said while the call streams.
				TextDone: func() { emit(" ") }}
			resp, err = c.llm.Complete(ctx, req, emit)
		}
		r.calls++
		if round == 0 {
			r.firstToken = resp.FirstToken
		}
		if resp.Fallback != "" {
			r.fallback = resp.Fallback
		}
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			r.err = err
			break
		}
		if len(resp.ToolCalls) == 0 {
			break
		}
		results := make([]llm.Message, 0, len(resp.ToolCalls))
		var step toolStep
		for _, tc := range resp.ToolCalls {
			res := tooling{c}.call(tc, &r.asked)
			step.add(c, tc, res)
			content := res.JSON()
			c.log.Debug("tool call", "tool", tc.Name, "result", content)
			results = append(results, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: content})
		}
		// The message keeps the calls only: what the turn said reaches the
		// history once, as delivered (Delivered).
		c.mu.Lock()
		c.history = append(c.history, llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls})
		c.history = append(c.history, results...)
		c.mu.Unlock()
		if say := step.held(resp.Text); say != "" {
			if t := out.String(); t != "" && !strings.HasSuffix(t, " ") {
				emit(" ")
			}
			emit(say)
		}
		if !step.needsModel(strings.TrimSpace(out.String()) != "") {
			break
		}
	}
}

// toolStep is what one model response's tool calls settled: the accepted
// question to say, and whether the model must be asked again.
type toolStep struct {
	question string // the accepted question's text
	ack      string // an acknowledgement due before it
	refused  bool   // a call was refused or invalid: the model must choose again
	moved    bool   // the interview entered another stage
	phase    bool   // a phase evaluation the model must read
}

// add notes one executed call.
func (s *toolStep) add(c *Conductor, tc llm.ToolCall, res tool.Result) {
	switch stages.ToolName(tc.Name) {
	case stages.ToolAskQuestion:
		if !res.OK {
			s.refused = true
			return
		}
		if q, ok := questionByID(c.machine.Questions(), res.QuestionID); ok {
			s.question = strings.TrimSpace(q.Text)
		}
		if res.Acknowledge != "" {
			s.ack = res.Acknowledge
		}
	case stages.ToolTransitionStage, stages.ToolEndInterview:
		if res.OK {
			s.moved = true
			if res.Acknowledge != "" {
				s.ack = res.Acknowledge
			}
		} else {
			s.refused = true
		}
	case stages.ToolEvaluatePhase:
		s.phase = true
	default:
		if !res.OK {
			s.refused = true
		}
	}
}

// held is what the turn says after the model's text: the accepted
// question (with an acknowledgement due), unless the text already says it.
func (s *toolStep) held(text string) string {
	if s.question == "" {
		return ""
	}
	var parts []string
	if s.ack != "" && !strings.Contains(normalize(text), normalize(s.ack)) {
		parts = append(parts, s.ack)
	}
	if !saysQuestion(text, s.question) {
		parts = append(parts, s.question)
	}
	return strings.Join(parts, " ")
}

// needsModel reports whether the reply needs another model call: nothing
// asked and either nothing said, a refusal or evaluation to read, or a new
// stage whose instructions the model has not seen.
func (s *toolStep) needsModel(said bool) bool {
	if s.question != "" {
		return false
	}
	return !said || s.refused || s.moved || s.phase
}

// saysQuestion reports whether text (a model's message) already carries
// question, so it is not said twice.
func saysQuestion(text, question string) bool {
	if strings.TrimSpace(text) == "" {
		return false
	}
	return strings.Contains(normalize(text), normalize(question)) || fsm.Similarity(question, lastSentences(text, 2)) >= 0.6
}

// prompt assembles the messages for one model call: the system prompt
// (persona, the current stage's instructions, the clock and gates, any
// acknowledgement due) then the recent history. spoken is text already
// yielded in this turn.
func (c *Conductor) prompt(spoken string) []llm.Message { return c.promptFor(spoken, true) }

// promptFor is prompt; a speculative call (Prefetch) passes takeAck false
// so an acknowledgement due stays due for the reply that will say it.
func (c *Conductor) promptFor(spoken string, takeAck bool) []llm.Message {
	m := c.machine
	bp := c.bp
	var sys strings.Builder
	if p, err := bp.PersonaPrompt(c.profile); err == nil {
		sys.WriteString(p)
	}
	stage := m.Stage()
	st, _, ok := bp.Stage(stage)
	if ok {
		if g := toolGuidance(c.stageTools()); g != "" {
			sys.WriteString("\n\n" + g)
		}
	}
	sys.WriteString("\n\n")
	if ok {
		fmt.Fprintf(&sys, "Current stage: %s (%s).\n", st.Title, stage)
		sys.WriteString(c.stageInstructions(stage))
		sys.WriteString("\n")
		if len(st.Questions) > 0 && stage != c.lastStage() {
			fmt.Fprintf(&sys, "Suggested questions for this stage (pass the [id] as ref to %s when you ask one):\n", stages.ToolAskQuestion)
			asked := map[string]bool{}
			for _, q := range m.Questions() {
				if q.Context.Kind == stages.KindBank {
					asked[q.Context.Ref] = true
				}
			}
			for _, q := range st.Questions {
				if !asked[q.ID] {
					fmt.Fprintf(&sys, "- [%s] %s\n", q.ID, q.Text)
				}
			}
		}
		if bp.Guided(stage) {
			if b := c.guide.brief(stage); b != "" {
				sys.WriteString("\n" + b)
			}
		}
		if stage == c.lastStage() && !c.bp.Exit.Graceful() {
			sys.WriteString("\nKeep the closing to a brief thank-you and goodbye: ask nothing, not even whether they have questions.\n")
		}
		if stage != c.lastStage() {
			fmt.Fprintf(&sys, "\nProgress: %s. %s.\n", c.progress(), c.urgency(false))
			if next, title := c.nextStage(); next != "" {
				fmt.Fprintf(&sys, "After this stage comes: %s.", title)
				if s, ok := c.firstQuestion(next); ok && c.machine.Gate() == nil {
					fmt.Fprintf(&sys, " If you move on now, ask its first question in the same reply, after %s: %q (ref %q).", stages.ToolTransitionStage, s.Text, s.Context.Ref)
				}
				sys.WriteString("\n")
			}
		}
	}
	if takeAck {
		if ack, ok := m.TakeAck(); ok {
			if why := c.whyMoved(); why != "" {
				fmt.Fprintf(&sys, "\nThe interview has just moved to this stage %s.", why)
			}
			fmt.Fprintf(&sys, "\nBegin your reply by saying, once: %q Then continue with this stage.\n", ack)
		}
	}
	if spoken != "" {
		fmt.Fprintf(&sys, "\nYou have already said in this turn: %q. Do not repeat it.\n", spoken)
	}
	if bp.KnowledgeCapture() {
		var brief string
		c.rec.View(func(r *interviews.Record) { brief = strings.TrimSpace(r.Brief) })
		if brief != "" {
			fmt.Fprintf(&sys, "\nWhat this hand-over is about (the brief you were given):\n%s\n", clipRunes(brief, maxBriefPrompt))
		}
	}
	c.mu.Lock()
	hist := c.history
	if len(hist) > c.maxHist {
		dropped := hist[:len(hist)-c.maxHist]
		hist = hist[len(hist)-c.maxHist:]
		// Never start with tool results whose call was cut off.
		for len(hist) > 0 && hist[0].Role == llm.RoleTool {
			hist = hist[1:]
		}
		if earlier := c.earlierQuestions(dropped); len(earlier) > 0 {
			fmt.Fprintf(&sys, "\nEarlier in this interview, no longer shown below, you asked: %s\n", strings.Join(earlier, " | "))
		}
	}
	msgs := make([]llm.Message, 0, len(hist)+1)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: sys.String()})
	msgs = append(msgs, hist...)
	c.mu.Unlock()
	return msgs
}

// maxBriefPrompt bounds the brief shown to a knowledge capture's
// interviewer, in characters.
const maxBriefPrompt = 2000

// clipRunes cuts s to n runes, marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// earlierQuestions are the questions said in the dropped part of the
// history (what the candidate heard), so the model does not ask them
// again; what it learned from them is in the guide's brief.
func (c *Conductor) earlierQuestions(dropped []llm.Message) []string {
	var said strings.Builder
	for _, m := range dropped {
		if m.Role == llm.RoleAssistant {
			said.WriteString(normalize(m.Content) + " ")
		}
	}
	text := said.String()
	var out []string
	for _, q := range c.machine.Questions() {
		if q.Spoken() && !q.Withdrawn && strings.Contains(text, normalize(q.Text)) {
			out = append(out, strings.TrimSpace(q.Text))
		}
	}
	return out
}

// maxSuggestions is how many of the guide's next questions a model request
// carries: the scripted interviewer moves to the next when one is refused.
const maxSuggestions = 3

// suggestions are the guide's next questions for the current stage, for
// the model request (the scripted interviewer asks the first it may).
func (c *Conductor) suggestions() []llm.Suggestion {
	stage := c.machine.Stage()
	if !c.bp.Guided(stage) {
		return nil
	}
	all := c.guide.candidates(stage)
	out := make([]llm.Suggestion, 0, min(len(all), maxSuggestions))
	for _, s := range all[:min(len(all), maxSuggestions)] {
		out = append(out, llm.Suggestion{Ref: s.Context.Ref, Text: s.Text})
	}
	return out
}

// whyMoved says, for the prompt, why the interview just changed stage:
// the previous stage ran out of time, the interview has what it needs, or
// the candidate asked to stop; "" for the first stage and a move the
// model asked for.
func (c *Conductor) whyMoved() string {
	trs := c.machine.Transitions()
	if len(trs) == 0 {
		return ""
	}
	tr := trs[len(trs)-1]
	switch {
	case tr.From == "":
		return ""
	case tr.Reason == "exit: "+interviews.ExitMaxTurns:
		return "because the interview has reached its length: tell the candidate, in a few words, that this is why it ends here"
	case strings.HasPrefix(tr.Reason, "exit: "):
		return "because the interview has found out what it needed"
	case strings.HasPrefix(tr.Reason, "candidate_request: "):
		return "because the candidate asked to stop"
	case tr.Forced && tr.Reason == "deadline":
		return "because the previous stage ran out of time"
	}
	return ""
}

// nextStage is the stage after the current one on the path, and its
// title; "" at the last.
func (c *Conductor) nextStage() (name, title string) {
	path := c.machine.Path()
	i := slices.Index(path, c.machine.Stage())
	if i < 0 || i+1 >= len(path) {
		return "", ""
	}
	name = path[i+1]
	if st, _, ok := c.bp.Stage(name); ok {
		return name, st.Title
	}
	return name, name
}

// firstQuestion is what stage would ask first: the guide's suggestion in
// a guided stage, else its first bank question not asked yet. The last
// stage asks nothing.
func (c *Conductor) firstQuestion(stage string) (suggestion, bool) {
	if stage == c.lastStage() {
		return suggestion{}, false
	}
	if c.bp.Guided(stage) {
		return c.guide.next(stage)
	}
	st, _, ok := c.bp.Stage(stage)
	if !ok {
		return suggestion{}, false
	}
	asked := map[string]bool{}
	for _, q := range c.machine.Questions() {
		asked[q.Context.Ref] = true
	}
	for _, bq := range st.Questions {
		if text, err := bq.Render(c.profile); err == nil && !asked[bq.ID] {
			return suggestion{Text: text, Context: bankContext(bq)}, true
		}
	}
	return suggestion{}, false
}

// Drop forgets a reply the candidate cut off by going on with their
// answer: generation stops, the questions it asked are withdrawn, and
// nothing of it is saved or kept in the history, as if it was never said.
// After Drop, Delivered has no effect.
func (r *Reply) Drop() {
	r.cancel()
	<-r.generated
	if !r.delivered.CompareAndSwap(false, true) {
		return
	}
	for _, id := range r.asked {
		_ = r.c.machine.Withdraw(id)
	}
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
			Source: in.Source, StartedAt: in.StartedAt, EndedAt: in.EndedAt, Aside: interviews.AsideRepeat})
		rec.CountTurnTaking(func(tt *interviews.TurnTaking) { tt.Repeats++ })
	})
	return c.start(ctx, &in, "repeat", RepeatPrefix+q), true
}

// RepeatPrefix opens a repeated question.
const RepeatPrefix = "Of course. "
