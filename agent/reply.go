package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/tool"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// One agent turn: its generation (one model call a question in the
// common case), what it said and what was delivered.

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
	// budgetSpent is true when the turn found the interview's model calls
	// spent and said lang.BudgetSpent: its delivery ends the interview.
	budgetSpent bool
	filler      string // what was said while the model was slow, before the reply
	startedAt   time.Time
	err         error

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

	spokenIDs := r.markSpoken(text, d.Interrupted)
	r.remember(text, d.Interrupted)
	if text != "" {
		metrics := r.metrics(d)
		_ = c.rec.Update(func(rec *interviews.Record) {
			rec.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: r.stage, Text: text,
				Source: r.source, StartedAt: d.StartedAt, EndedAt: d.EndedAt, Interrupted: d.Interrupted,
				QuestionIDs: spokenIDs, Metrics: metrics, Fallback: r.fallback, Filler: filler})
		})
	}
	r.settle(text, d.Interrupted)
}

// markSpoken marks the questions the reply asked spoken when the
// delivered text carried them, withdraws the others, and returns the ids
// of those spoken.
func (r *Reply) markSpoken(text string, interrupted bool) []string {
	c := r.c
	var spokenIDs []string
	for _, id := range r.asked {
		if questionDelivered(c.machine, id, text, interrupted) {
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
	return spokenIDs
}

// remember puts what was said of the reply into the history the model
// sees.
func (r *Reply) remember(text string, interrupted bool) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if text != "" {
		msg := text
		if interrupted {
			msg += " …"
		}
		c.history = append(c.history, llm.Message{Role: llm.RoleAssistant, Content: msg})
	} else if n := len(c.history); n > 0 && c.history[n-1].Role == llm.RoleTool {
		// Nothing of the turn was said (the candidate left, or spoke at
		// once): close its tool exchange so the next turn does not take the
		// question it registered for one the candidate heard.
		c.history = append(c.history, llm.Message{Role: llm.RoleAssistant, Content: "…"})
	}
}

// metrics are the turn's measures, nil when nothing was measured.
func (r *Reply) metrics(d Delivery) *interviews.TurnMetrics {
	ep := r.in.Endpointing
	if r.firstToken <= 0 && d.TTSFirstByte <= 0 && d.EndToEnd <= 0 && ep.EndOfUtterance <= 0 && ep.Rule == "" &&
		d.BackchannelsIgnored <= 0 && d.FalseInterruptionsResumed <= 0 && !r.preempted {
		return nil
	}
	return &interviews.TurnMetrics{
		EndOfUtteranceMs: ms(ep.EndOfUtterance), STTFinalMs: ms(ep.STTFinal),
		LLMFirstTokenMs: ms(r.firstToken), TTSFirstByteMs: ms(d.TTSFirstByte), EndToEndMs: ms(d.EndToEnd),
		EndpointingRule: ep.Rule, EndpointingDelayMs: ms(ep.Delay),
		BackchannelsIgnored: d.BackchannelsIgnored, FalseInterruptionsResumed: d.FalseInterruptionsResumed,
		Preempted: r.preempted,
	}
}

// settle ends the interview when the delivered reply ends it: the model
// budget spent, or the closing utterance said whole.
func (r *Reply) settle(text string, interrupted bool) {
	c := r.c
	m := c.machine
	if r.budgetSpent {
		if _, err := m.Force(stages.Done, "model budget"); err != nil {
			c.log.Warn("ending the interview failed", "err", err)
		}
		c.log.Warn("the interview made every model call it may: closed", "max_model_calls", c.maxCalls)
		c.Finish(interviews.StatusCompleted, interviews.EndedModelBudget)
		return
	}
	// The interview ends by state: the closing utterance has been delivered.
	if !interrupted && text != "" && m.Stage() == c.lastStage() && r.err == nil && (r.fixed == "" || r.goOn) && c.closingDone(text) {
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
				strings.Contains(words.Normal(played), words.Normal(q.Text))
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
		if !called && !c.spend() {
			// The interview has made every model call it may: it closes.
			r.budgetSpent = true
			if t := out.String(); t != "" && !strings.HasSuffix(t, " ") {
				emit(" ")
			}
			emit(c.say(lang.BudgetSpent))
			break
		}
		if !called {
			req := llm.Request{Messages: c.prompt(out.String()), Tools: tools, Suggestions: c.suggestions(),
				// The text before a tool call is whole: a space lets its last
				// sentence be said while the call streams.
				TextDone: func() { emit(" ") }}
			resp, err = c.llm.Complete(ctx, req, emit)
		}
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
	if s.ack != "" && !strings.Contains(words.Normal(text), words.Normal(s.ack)) {
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
	return strings.Contains(words.Normal(text), words.Normal(question)) || fsm.Similarity(question, lastSentences(text, 2)) >= 0.6
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
