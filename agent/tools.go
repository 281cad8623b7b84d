package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/tool"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// tooling executes tool calls for one conductor.
type tooling struct {
	c *Conductor
}

// call runs one tool call and returns its result for the model. The
// questions registered are appended to asked.
func (t tooling) call(tc llm.ToolCall, asked *[]string) tool.Result {
	res := t.dispatch(tc, asked)
	m := t.c.machine
	if res.Stage == "" {
		res.Stage = m.Stage()
		if st, _, ok := m.Blueprint().Stage(res.Stage); ok {
			res.StageTitle = st.Title
		}
	}
	return res
}

func (t tooling) dispatch(tc llm.ToolCall, asked *[]string) tool.Result {
	args, err := tool.Parse(tc)
	if err != nil {
		return tool.Result{Error: err.Error(), Next: "call a tool of this stage with valid arguments, or continue the interview"}
	}
	if st, _, ok := t.c.bp.Stage(t.c.machine.Stage()); ok && !st.Offers(args.Tool()) {
		return tool.Result{Error: fmt.Sprintf("%s is not available in this stage: use one of %s", args.Tool(), strings.Join(stages.ToolStrings(st.OfferedTools()), ", ")), Next: "continue the interview"}
	}
	switch a := args.(type) {
	case tool.TransitionStage:
		return t.transition(a.Reason)
	case tool.AskQuestion:
		return t.ask(a, asked)
	case tool.AssessResponse:
		return t.assess(a)
	case tool.EndInterview:
		return t.end(a.Reason)
	case tool.EvaluatePhase:
		return t.evaluatePhase()
	}
	// Unreachable: tool.Parse returns one of the types above.
	return tool.Result{Error: fmt.Sprintf("tool %s has no implementation", args.Tool()), Next: "continue the interview"}
}

func (t tooling) transition(reason string) tool.Result {
	c := t.c
	m := c.machine
	if m.Stage() == c.lastStage() {
		return tool.Result{Error: "this is the final stage: deliver your closing remarks; the interview ends when they have been said", Next: "say your closing remarks now"}
	}
	if strings.TrimSpace(reason) == "" {
		reason = "stage complete"
	}
	tr, err := m.Advance(reason)
	if err != nil {
		var ge *fsm.GateError
		if errors.As(err, &ge) && ge.QuestionsMet() && c.nothingLeft(m.Stage()) {
			// Only the stage's minimum time holds it, and it has nothing
			// left to ask: waiting would only keep the candidate in
			// silence.
			next, _ := c.nextStage()
			tr, err = m.Force(next, reason+" (nothing left to ask)")
			if err == nil {
				return c.enteredResult(tr)
			}
		}
		if errors.As(err, &ge) {
			return tool.Result{Error: ge.Error(), Progress: c.progress(), Next: "stay in this stage: ask another question"}
		}
		return tool.Result{Error: err.Error(), Next: "continue the interview"}
	}
	return c.enteredResult(tr)
}

// nothingLeft reports whether stage has nothing left to ask: no
// suggestion of the guide in a guided stage, and every question of its
// bank asked.
func (c *Conductor) nothingLeft(stage string) bool {
	if c.bp.Guided(stage) && len(c.guide.candidates(stage)) > 0 {
		return false
	}
	return !c.bankLeft(stage)
}

// bankLeft reports whether a question of stage's bank is still to ask.
func (c *Conductor) bankLeft(stage string) bool {
	st, _, ok := c.bp.Stage(stage)
	if !ok {
		return false
	}
	asked := map[string]bool{}
	for _, q := range c.machine.Questions() {
		asked[q.Context.Ref] = true
	}
	return slices.ContainsFunc(st.Questions, func(q stages.Question) bool { return !asked[q.ID] })
}

// enteredResult tells the model about the stage just entered.
func (c *Conductor) enteredResult(tr fsm.Transition) tool.Result {
	res := tool.Result{OK: true, Stage: tr.To}
	if ack, ok := c.machine.TakeAck(); ok {
		res.Acknowledge = ack
	}
	st, _, ok := c.bp.Stage(tr.To)
	if !ok {
		res.Next = "the interview is over: say a short goodbye"
		return res
	}
	res.StageTitle = st.Title
	res.Instructions = c.stageInstructions(tr.To)
	if tr.To == c.lastStage() {
		res.Next = "follow the closing instructions now"
	} else {
		res.Next = fmt.Sprintf("acknowledge the move briefly, then ask the first question of this stage with %s", stages.ToolAskQuestion)
	}
	return res
}

func (t tooling) ask(a tool.AskQuestion, asked *[]string) tool.Result {
	c := t.c
	m := c.machine
	text := strings.TrimSpace(a.Question)
	if m.Stage() == c.lastStage() {
		return tool.Result{Error: "the interview is closing: ask nothing more", Next: "deliver your closing remarks"}
	}
	qc := stages.QuestionContext{Kind: stages.KindFree, Note: a.Purpose}
	ctx, ok := c.guide.resolve(a.Ref)
	if !ok && a.FollowsUp == "" && c.bp.Guided(m.Stage()) {
		// A question of the model's own: what it probes still counts.
		ctx, ok = c.guide.infer(m.Stage(), text, a.Targets)
	}
	if ok {
		qc = ctx
		if qc.Note == "" {
			qc.Note = a.Purpose
		}
	}
	if a.FollowsUp != "" && (qc.Kind == stages.KindFree || qc.Kind == stages.KindFollowUp) {
		qs := m.Questions()
		fq, ok := questionByID(qs, a.FollowsUp)
		if !ok {
			return tool.Result{Error: fmt.Sprintf("there is no question %q to follow up", a.FollowsUp), Next: fmt.Sprintf("call %s again without follows_up, or with the id of a question asked", stages.ToolAskQuestion)}
		}
		root := rootQuestion(qs, fq.ID)
		if followUps(qs, root) >= stages.DefaultFollowUps {
			return tool.Result{Error: fmt.Sprintf("%s has already been followed up: one follow-up per question", root), Progress: c.progress(), Next: "move on to a different question"}
		}
		qc.Kind, qc.FollowsUp, qc.Targets = stages.KindFollowUp, root, fq.Context.Clone().Targets
	}
	q, err := m.Ask(text, qc)
	if err != nil {
		var re *fsm.RepeatError
		if errors.As(err, &re) {
			c.guide.refuse(qc.Ref)
			return tool.Result{Error: re.Error(), Progress: c.progress(), Next: fmt.Sprintf("choose a different question and call %s again", stages.ToolAskQuestion)}
		}
		return tool.Result{Error: err.Error(), Next: fmt.Sprintf("call %s with the question's text", stages.ToolAskQuestion)}
	}
	*asked = append(*asked, q.ID)
	res := tool.Result{OK: true, QuestionID: q.ID, Progress: c.progress(), Next: "the question is said now; " + c.urgency(true)}
	if ack, ok := m.TakeAck(); ok {
		res.Acknowledge = ack
		res.Next = "first say the acknowledgement, then ask the question. " + res.Next
	}
	return res
}

func (t tooling) assess(a tool.AssessResponse) tool.Result {
	c := t.c
	score := a.DepthScore
	var guidance string
	switch {
	case a.Declined:
		score = 0
		guidance = "the candidate declined to answer: respect that, do not press or ask again, and move on to a different topic"
	case score < 1 || score > 5:
		return tool.Result{Error: fmt.Sprintf("depth_score %d is out of range: use 1 (superficial) to 5 (expert)", score), Next: fmt.Sprintf("call %s again", stages.ToolAssessResponse)}
	case score <= 2:
		guidance = "the answer was thin: follow up once for a concrete example, then move on"
	case score == 3:
		guidance = "a solid answer: go deeper on one point it made, or move on if time is short"
	default:
		guidance = "a strong answer: move on to the next topic"
	}
	m := c.machine
	stage := m.Stage()
	var q stages.Question
	for _, sq := range m.Questions() {
		if sq.Stage == stage && sq.Spoken() && !sq.Withdrawn {
			q = sq
		}
	}
	kp := make([]string, 0, len(a.KeyPoints))
	for _, p := range a.KeyPoints {
		if p = strings.TrimSpace(p); p != "" {
			kp = append(kp, p)
		}
	}
	now := c.now()
	_ = c.rec.Update(func(rec *interviews.Record) {
		rec.Assessments = append(rec.Assessments, interviews.Assessment{
			QuestionID: q.ID, Stage: stage, DepthScore: score, KeyPoints: kp, Guidance: guidance, Declined: a.Declined, At: now,
		})
	})
	if a.Declined && q.ID != "" {
		c.guide.declined(q)
	}
	return tool.Result{OK: true, Progress: c.progress(), Next: guidance + "; " + c.urgency(false)}
}

func (t tooling) evaluatePhase() tool.Result {
	c := t.c
	ph := c.guide.phase(c.machine.Stage())
	res := tool.Result{OK: true, Progress: c.progress(),
		Phase: &tool.PhaseResult{Score: ph.Score, Decision: ph.Decision, Feedback: ph.Feedback, Gaps: ph.Gaps}}
	if ph.Decision == interviews.PhaseAdvance {
		res.Next = fmt.Sprintf("the phase is covered: call %s to move on", stages.ToolTransitionStage)
	} else {
		res.Next = "stay in this phase: ask about what is still missing, one point at a time"
		if len(ph.Gaps) > 0 {
			res.Next += " (" + strings.Join(ph.Gaps, ", ") + ")"
		}
	}
	return res
}

func (t tooling) end(reason string) tool.Result {
	c := t.c
	last := c.lastStage()
	if c.machine.Stage() == last {
		return tool.Result{OK: true, Next: "deliver your closing remarks now and ask nothing more"}
	}
	if strings.TrimSpace(reason) == "" {
		reason = "the candidate asked to stop"
	}
	tr, err := c.machine.Force(last, "candidate_request: "+reason)
	if err != nil {
		return tool.Result{Error: err.Error(), Next: "continue the interview"}
	}
	c.endedEarly.Store(true)
	res := c.enteredResult(tr)
	res.Next = "the candidate asked to stop: thank them warmly, say what happens next, and ask nothing more"
	return res
}

// progress describes the current stage's gates and clock, one count
// everywhere: questions the candidate has heard in the stage.
func (c *Conductor) progress() string {
	st := c.machine.Status()
	var b strings.Builder
	fmt.Fprintf(&b, "stage %d of %d (%s): %d %s asked", st.Index+1, st.Count, st.Stage, st.Spoken, plural(st.Spoken, "question", "questions"))
	if st.MinQuestions > 0 {
		fmt.Fprintf(&b, " (at least %d before moving on)", st.MinQuestions)
	}
	fmt.Fprintf(&b, "; %s spent", st.Elapsed.Round(time.Second))
	if st.MinTime > 0 {
		fmt.Fprintf(&b, " (at least %s before moving on)", st.MinTime.Round(time.Second))
	}
	fmt.Fprintf(&b, "; %s left (%.0f%% of the stage's time)", st.Remaining.Round(time.Second), st.RemainingPct)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// urgency is what to do next given the stage's gates and clock. asking is
// true when a question is being asked now (it will count once spoken).
// "You may move on" is said only when both minimums are met, so a
// transition_stage the line invites is never refused.
func (c *Conductor) urgency(asking bool) string {
	st := c.machine.Status()
	spoken := st.Spoken
	if asking {
		spoken++
	}
	var missing []string
	if n := st.MinQuestions - spoken; n > 0 {
		missing = append(missing, fmt.Sprintf("%d more %s", n, plural(n, "question", "questions")))
	}
	if d := st.MinTime - st.Elapsed; d > 0 {
		missing = append(missing, fmt.Sprintf("about %s more", d.Round(time.Second)))
	}
	switch {
	case len(missing) > 0 && st.RemainingPct <= 25:
		return "time is low: ask your last question of this stage; the interview moves on by itself when the time is up"
	case len(missing) > 0:
		return "stay in this stage: it needs " + strings.Join(missing, " and ")
	case st.RemainingPct <= 10:
		return fmt.Sprintf("time is nearly up: call %s in this reply", stages.ToolTransitionStage)
	case st.RemainingPct <= 25:
		return fmt.Sprintf("time is low: wrap this stage up and call %s soon", stages.ToolTransitionStage)
	}
	return fmt.Sprintf("the stage's minimums are met: you may call %s once its goals are covered", stages.ToolTransitionStage)
}

// stageInstructions renders a stage's instructions for the profile.
func (c *Conductor) stageInstructions(stage string) string {
	s, err := c.bp.Instructions(stage, c.profile)
	if err != nil {
		c.log.Warn("rendering stage instructions failed", "stage", stage, "err", err)
		return ""
	}
	return s
}

func (c *Conductor) lastStage() string { return c.last }

// offeredTools are the schemas of the tools the current stage offers;
// the closing offers none (it asks nothing and moves nowhere).
func (c *Conductor) offeredTools() []llm.Tool {
	return tool.Definitions(c.stageTools())
}

// stageTools are the tools the current stage offers: none in the last.
func (c *Conductor) stageTools() []stages.ToolName {
	stage := c.machine.Stage()
	st, _, ok := c.bp.Stage(stage)
	if !ok || stage == c.lastStage() {
		return nil
	}
	return st.OfferedTools()
}

// closingQuestions is how many of the candidate's own questions the
// closing answers before its goodbye ends the interview.
const closingQuestions = 2

// closingDone reports whether text, delivered in the last stage, ends the
// interview: a closing that asks nothing (the goodbye), or any after the
// candidate has asked closingQuestions questions. A closing that invites
// their questions waits for them.
func (c *Conductor) closingDone(text string) bool {
	if c.bp.KnowledgeCapture() || !c.bp.Exit.Graceful() {
		return true
	}
	n := 0
	c.rec.View(func(r *interviews.Record) {
		for _, t := range r.Turns {
			if t.Role == interviews.RoleCandidate && t.Stage == c.lastStage() {
				n++
			}
		}
	})
	return n >= closingQuestions || !asksSomething(text)
}

// asksSomething reports whether an utterance ends with a question to the
// candidate.
func asksSomething(text string) bool {
	return strings.HasSuffix(strings.TrimRight(strings.TrimSpace(text), " \"'”’)"), "?")
}

// guidance tells the model how to use each tool, in the system prompt.
var guidance = map[stages.ToolName]string{
	stages.ToolAskQuestion:     "To ask a question, call %s with its exact words (and the ref of the suggestion it comes from, or what it targets): it is said for you right after your message's text, so do not write the question in your message; write at most one short sentence before it, such as a brief acknowledgement of the answer. Ask one question per reply.",
	stages.ToolAssessResponse:  "In the same reply, record your judgement of the candidate's last answer with %s; when they declined to answer (would rather not say, confidential, do not know), set declined, respect it and move to another topic without pressing.",
	stages.ToolEvaluatePhase:   "Call %s when you think the design phase is covered, then work on the gaps it names or move on.",
	stages.ToolTransitionStage: "Move on with %s when the progress line says you may and the stage's goals are covered; you may ask the next stage's first question in the same reply. If it is refused, follow the reason it gives.",
	stages.ToolEndInterview:    "Call %s only if the candidate clearly asks to stop.",
}

// guidanceOrder is the order of guidance in the prompt.
var guidanceOrder = []stages.ToolName{stages.ToolAskQuestion, stages.ToolAssessResponse, stages.ToolEvaluatePhase, stages.ToolTransitionStage, stages.ToolEndInterview}

// toolGuidance is the prompt's paragraph on the tools offered, said once.
func toolGuidance(offered []stages.ToolName) string {
	var parts []string
	for _, n := range guidanceOrder {
		if slices.Contains(offered, n) {
			parts = append(parts, fmt.Sprintf(guidance[n], n))
		}
	}
	return strings.Join(parts, " ")
}
