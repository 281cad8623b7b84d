// Package scripted is the offline interviewer used when no language model
// is configured. It is deterministic and honest about what it is: it greets,
// asks the blueprint's question bank in order, follows up on answers when a
// bank runs dry, judges answers by a simple heuristic (length and keywords),
// moves on when the machine's gates allow and closes politely. It speaks
// through the same tool calls a real model makes, so the conductor runs the
// same path whichever is behind it.
package scripted

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/tool"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/stages"
)

// View is the read-only part of the interview state machine the scripted
// interviewer consults (*fsm.Machine satisfies it).
type View interface {
	Stage() string
	Status() fsm.TimeStatus
	Gate() error
	Questions() []stages.Question
	Path() []string
	Transitions() []fsm.Transition
}

// Interviewer is the scripted llm.Client.
type Interviewer struct {
	view    View
	bp      *stages.Blueprint
	profile stages.Profile
	// ChunkWords is how many words each streamed delta carries (default 3),
	// so voice output starts on the first sentence as with a real model.
	ChunkWords int

	mu        sync.Mutex
	calls     int
	spokeIn   string          // the stage the last spoken text belonged to
	greeted   bool            // the greeting has been said
	refused   map[string]bool // question texts refused as repeats
	lastAsked string          // text of the last question asked
	calledOn  map[string]int  // times a stage with nothing left gave the candidate room
	heldBack  map[string]bool // stages whose move on was refused
	// usedTemplates and usedGeneric are the follow-ups' shapes used so far.
	usedTemplates map[int]bool
	usedGeneric   map[string]bool
}

// New returns a scripted interviewer for the blueprint the machine runs.
func New(view View, bp *stages.Blueprint, p stages.Profile) *Interviewer {
	return &Interviewer{view: view, bp: bp, profile: p, ChunkWords: 3, refused: map[string]bool{}, calledOn: map[string]int{}, heldBack: map[string]bool{},
		usedTemplates: map[int]bool{}, usedGeneric: map[string]bool{}}
}

// Name identifies the engine in logs and records.
func (s *Interviewer) Name() string { return "scripted" }

// Complete decides the interviewer's next move from the conversation so far.
func (s *Interviewer) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	s.mu.Lock()
	resp := s.decide(req)
	s.mu.Unlock()
	if resp.Text != "" {
		words := strings.SplitAfter(resp.Text, " ")
		n := max(s.ChunkWords, 1)
		for i := 0; i < len(words); i += n {
			if err := ctx.Err(); err != nil {
				return llm.Response{}, err
			}
			onDelta(strings.Join(words[i:min(i+n, len(words))], ""))
		}
	}
	resp.FirstToken = time.Since(start)
	if len(resp.ToolCalls) > 0 {
		resp.FinishReason = "tool_calls"
	} else {
		resp.FinishReason = "stop"
	}
	return resp, nil
}

// decide is the whole policy. It is called with s.mu held.
func (s *Interviewer) decide(req llm.Request) llm.Response {
	msgs := req.Messages
	last := llm.Message{}
	if len(msgs) > 0 {
		last = msgs[len(msgs)-1]
	}
	stage := s.view.Stage()
	final := s.isFinal(stage)
	noTools := len(req.Tools) == 0

	if last.Role == llm.RoleTool {
		return s.afterTools(req, stage)
	}

	if final {
		return llm.Response{Text: s.closing(lastUser(msgs))}
	}
	if noTools {
		return llm.Response{Text: s.speak(stage, "Could you tell me a little more about that?")}
	}
	var calls []llm.ToolCall
	if last.Role == llm.RoleUser {
		answer := last.Content
		if wantsToStop(answer) {
			return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.EndInterview{Reason: "the candidate asked to stop: " + clip(answer, 80)})}}
		}
		if s.hasSpokenQuestion() {
			score, points := s.assess(stage, answer)
			calls = append(calls, s.call(tool.AssessResponse{DepthScore: score, KeyPoints: points}))
		}
		if s.offers(stage, stages.ToolEvaluatePhase) && s.hasSpokenQuestion() {
			// A design phase moves on by its evaluation, not by the gate
			// alone.
			calls = append(calls, s.call(tool.EvaluatePhase{}))
			return llm.Response{ToolCalls: calls}
		}
		// A knowledge capture is closed by its guide (nothing important
		// left open, or the round cap), not by the gate.
		if s.gateOpen() && !s.guideWantsMore(req) && !(s.bp.KnowledgeCapture() && s.bp.Guided(stage)) {
			calls = append(calls, s.call(tool.TransitionStage{Reason: "the stage's questions have been answered"}))
			return llm.Response{ToolCalls: calls}
		}
	}
	next := s.ask(req, stage, lastUser(msgs))
	next.ToolCalls = append(calls, next.ToolCalls...)
	return next
}

// afterTools answers the results of the tools the last reply called.
func (s *Interviewer) afterTools(req llm.Request, stage string) llm.Response {
	msgs := req.Messages
	final := s.isFinal(stage)
	noTools := len(req.Tools) == 0
	call, res := lastResults(msgs)
	for i, c := range call {
		r := res[i]
		switch stages.ToolName(c.Name) {
		case stages.ToolEvaluatePhase:
			if noTools || r.Phase == nil {
				continue
			}
			if r.Phase.Decision == "advance" && s.gateOpen() {
				return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.TransitionStage{Reason: "the phase evaluation says the phase is covered"})}}
			}
			// What the phase misses is asked once the stage's own
			// questions are, or the stage may move on.
			if len(r.Phase.Gaps) > 0 && (s.gateOpen() || !s.bankLeft(stage)) {
				return s.askPhase(stage, r.Phase.Gaps)
			}
			return s.ask(req, stage, lastUser(msgs))
		case stages.ToolTransitionStage, stages.ToolEndInterview:
			if !r.OK {
				s.heldBack[stage] = true
			}
			if r.OK && s.isFinal(r.Stage) {
				return llm.Response{Text: s.closing(lastUser(msgs))}
			}
			if r.OK && !noTools {
				return s.ask(req, stage, "")
			}
		}
	}
	for i, c := range call {
		a, err := tool.Parse(c)
		ask, isAsk := a.(tool.AskQuestion)
		if err != nil || !isAsk {
			continue
		}
		q := ask.Question
		if res[i].OK {
			// The conductor has said the question: nothing to add.
			return llm.Response{}
		}
		s.refused[strings.ToLower(q)] = true
		if !noTools {
			return s.ask(req, stage, lastUser(msgs))
		}
	}
	if final {
		return llm.Response{Text: s.closing(lastUser(msgs))}
	}
	if noTools {
		return llm.Response{Text: s.speak(stage, s.lastAsked)}
	}
	return s.ask(req, stage, lastUser(msgs))

}

func (s *Interviewer) isFinal(stage string) bool {
	p := s.view.Path()
	return len(p) > 0 && stage == p[len(p)-1]
}

// gateOpen reports whether a requested transition would be allowed once
// the pending question count is what the machine says now.
func (s *Interviewer) gateOpen() bool { return s.view.Gate() == nil }

func (s *Interviewer) hasSpokenQuestion() bool {
	for _, q := range s.view.Questions() {
		if q.Spoken() {
			return true
		}
	}
	return false
}

// ask asks the next question of the stage: the guide's suggestion, else
// the next bank question not yet asked, else a follow-up on the answers.
// The response's text is what comes before the question (the greeting, a
// stage's acknowledgement); the conductor says the question itself once
// the machine has accepted it. When nothing is left to ask, the stage
// moves on.
func (s *Interviewer) ask(req llm.Request, stage, lastAnswer string) llm.Response {
	resp := s.pick(req, stage, lastAnswer)
	if len(resp.ToolCalls) == 0 && resp.Text == "" && !s.heldBack[stage] {
		return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.TransitionStage{Reason: "nothing left to ask in this stage"})}}
	}
	if len(resp.ToolCalls) > 0 {
		resp.Text = s.preface(stage)
	}
	return resp
}

// pick chooses the question ask asks.
func (s *Interviewer) pick(req llm.Request, stage, lastAnswer string) llm.Response {
	for _, sg := range req.Suggestions {
		if text := strings.TrimSpace(sg.Text); text != "" && !s.refused[strings.ToLower(text)] {
			s.lastAsked = text
			return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.AskQuestion{Question: text, Ref: sg.Ref})}}
		}
	}
	asked := map[string]bool{}
	var lastID string
	for _, q := range s.view.Questions() {
		if q.Context.Ref != "" {
			asked[q.Context.Ref] = true
		}
		if q.Spoken() {
			lastID = q.ID
		}
	}
	if bq, text, ok := s.nextBank(stage, asked); ok {
		s.lastAsked = text
		return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.AskQuestion{Question: text, Purpose: bq.Purpose, Ref: bq.ID})}}
	}
	answers := []string{lastAnswer}
	if len(req.Messages) > 0 {
		answers = append(answers, userTexts(req.Messages)...)
	}
	text := s.followUp(answers...)
	if text == "" {
		if !s.heldBack[stage] {
			return llm.Response{} // ask moves on
		}
		// The stage still needs time, and every question of it has been
		// asked: give the candidate room to add something, once; then
		// thank them once; then wait quietly for the stage's clock.
		s.calledOn[stage]++
		switch s.calledOn[stage] {
		case 1:
			return llm.Response{Text: s.preface(stage) + "Take your time. Is there anything you would like to add to what you have told me so far?"}
		case 2:
			return llm.Response{Text: s.preface(stage) + "Thank you, that is a helpful picture."}
		}
		return llm.Response{Text: s.preface(stage)}
	}
	s.lastAsked = text
	return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.AskQuestion{Question: text, Purpose: "follow up on the last answer", FollowsUp: lastID})}}
}

// askPhase asks about the first point a phase evaluation found missing
// that has been neither asked nor refused.
func (s *Interviewer) askPhase(stage string, gaps []string) llm.Response {
	asked := map[string]bool{}
	for _, q := range s.view.Questions() {
		asked[strings.ToLower(q.Text)] = true
	}
	// A design phase is asked about the design; an earlier one (the
	// problem's scope, its requirements) about the point itself.
	ask := "Before we move on, what would you say about %s?"
	if strings.Contains(strings.ToLower(stage), "design") {
		ask = "How would your design handle %s?"
	}
	for _, g := range gaps {
		text := fmt.Sprintf(ask, g)
		if !s.refused[strings.ToLower(text)] && !asked[strings.ToLower(text)] {
			s.lastAsked = text
			return llm.Response{ToolCalls: []llm.ToolCall{s.call(tool.AskQuestion{Question: text, Purpose: "cover what the phase is missing", Ref: "phase:" + stage})}}
		}
	}
	return s.ask(llm.Request{}, stage, "")
}

// guideWantsMore reports whether the interview's guide still has a
// question for this stage (an open rubric field, a gap, a template or
// backlog question) and the stage has more than a quarter of its time
// left: the interviewer stays to ask it rather than move on at the gate.
func (s *Interviewer) guideWantsMore(req llm.Request) bool {
	return len(req.Suggestions) > 0 && s.view.Status().RemainingPct > 25
}

// offers reports whether stage offers the tool n.
func (s *Interviewer) offers(stage string, n stages.ToolName) bool {
	st, _, ok := s.bp.Stage(stage)
	return ok && st.Offers(n)
}

// speak is preface then question.
func (s *Interviewer) speak(stage, question string) string { return s.preface(stage) + question }

// preface is the text said before a question: the greeting before the
// first one, the stage acknowledgement when the stage changed since it
// last spoke; it ends with a space when not empty.
func (s *Interviewer) preface(stage string) string {
	var b strings.Builder
	switch {
	case !s.greeted && s.bp.KnowledgeCapture():
		fmt.Fprintf(&b, "Hello %s, I'm Ava. Thank you for making time to pass on what you know, so the people who take over your work have it. ", firstName(s.profile.Name))
	case !s.greeted:
		fmt.Fprintf(&b, "Hello %s, I'm Ava, and I'll be your interviewer for the %s role today. ", firstName(s.profile.Name), orDefault(s.profile.Role, "open"))
	case stage != s.spokeIn:
		if ack := s.ackFor(stage); ack != "" {
			b.WriteString(ack + " ")
		}
	}
	s.greeted = true
	s.spokeIn = stage
	return b.String()
}

// ackFor is the acknowledgement the machine queued on entering stage
// (saying first which promised stages were skipped), or the blueprint's
// own when stage was not the latest move.
func (s *Interviewer) ackFor(stage string) string {
	if trs := s.view.Transitions(); len(trs) > 0 && trs[len(trs)-1].To == stage {
		return trs[len(trs)-1].Ack
	}
	return s.bp.AcknowledgementFor(stage, s.profile)
}

// closing is what the interviewer says in the last stage: first thanks and
// an invitation to ask their own questions, then (after their reply) an
// answer from the job description and the goodbye. A knowledge capture
// says goodbye at once.
func (s *Interviewer) closing(lastAnswer string) string {
	var b strings.Builder
	stage := s.view.Stage()
	first := stage != s.spokeIn
	if first {
		if ack := s.ackFor(stage); ack != "" {
			b.WriteString(ack + " ")
		}
	}
	s.spokeIn = stage
	name := firstName(s.profile.Name)
	if s.bp.KnowledgeCapture() {
		fmt.Fprintf(&b, "Thank you, %s. What you shared will save your colleagues a lot of guesswork. A summary of our conversation, organised by topic, will be written up for the team. Goodbye!", name)
		return b.String()
	}
	if first && s.bp.Exit.Graceful() {
		fmt.Fprintf(&b, "Thank you for your time today, %s. It was a pleasure to hear about your work. Before we finish, do you have any questions for me about the role or the next steps?", name)
		return b.String()
	}
	if isQuestion(lastAnswer) {
		if answer := fromJobDescription(s.profile.JobDescription, lastAnswer); answer != "" {
			fmt.Fprintf(&b, "Good question. The job description says: %s ", answer)
		} else {
			b.WriteString("That's a good question, and I don't have the answer here; the hiring team will follow up with you on it. ")
		}
	}
	b.WriteString("The hiring team will review our conversation and get back to you soon. Thank you again, and goodbye!")
	return b.String()
}

// assess scores an answer: longer answers that touch the stage's and the
// question's keywords score higher. It returns up to three key points.
func (s *Interviewer) assess(stage, answer string) (int, []string) {
	words := strings.Fields(answer)
	var keywords []string
	if st, _, ok := s.bp.Stage(stage); ok {
		keywords = append(keywords, st.Keywords...)
		qs := s.view.Questions()
		for i := len(qs) - 1; i >= 0; i-- {
			if qs[i].Context.Kind == stages.KindBank {
				for _, bq := range st.Questions {
					if bq.ID == qs[i].Context.Ref {
						keywords = append(keywords, bq.Keywords...)
					}
				}
				break
			}
		}
	}
	lower := strings.ToLower(answer)
	hits := 0
	for _, k := range keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" && strings.Contains(lower, k) {
			hits++
		}
	}
	score := 1
	if len(words) >= 12 {
		score++
	}
	if len(words) >= 35 {
		score++
	}
	if hits >= 1 {
		score++
	}
	if hits >= 3 {
		score++
	}
	var points []string
	for _, sent := range sentences(answer) {
		if len(points) == 3 {
			break
		}
		points = append(points, clip(sent, 120))
	}
	if len(points) == 0 {
		points = []string{"no substantive answer"}
	}
	return min(score, 5), points
}

func (s *Interviewer) call(args tool.Args) llm.ToolCall {
	s.calls++
	return tool.Call(fmt.Sprintf("call_scripted_%d", s.calls), args)
}

// lastResults pairs the trailing tool messages with the calls of the
// assistant message they answer.
func lastResults(msgs []llm.Message) ([]llm.ToolCall, []tool.Result) {
	i := len(msgs) - 1
	for i >= 0 && msgs[i].Role == llm.RoleTool {
		i--
	}
	if i < 0 || msgs[i].Role != llm.RoleAssistant {
		return nil, nil
	}
	byID := map[string]tool.Result{}
	for _, m := range msgs[i+1:] {
		byID[m.ToolCallID] = tool.ParseResult(m.Content)
	}
	calls := msgs[i].ToolCalls
	res := make([]tool.Result, len(calls))
	for k, c := range calls {
		res[k] = byID[c.ID]
	}
	return calls, res
}

func lastUser(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// nextBank is the stage's first bank question not yet asked (its id not
// in asked) nor refused, with its text for the candidate.
func (s *Interviewer) nextBank(stage string, asked map[string]bool) (stages.Question, string, bool) {
	st, _, ok := s.bp.Stage(stage)
	if !ok {
		return stages.Question{}, "", false
	}
	for _, bq := range st.Questions {
		text, err := bq.Render(s.profile)
		if err != nil || asked[bq.ID] || s.refused[strings.ToLower(text)] {
			continue
		}
		return bq, text, true
	}
	return stages.Question{}, "", false
}

// bankLeft reports whether the stage has a bank question still to ask.
func (s *Interviewer) bankLeft(stage string) bool {
	asked := map[string]bool{}
	for _, q := range s.view.Questions() {
		if q.Context.Ref != "" {
			asked[q.Context.Ref] = true
		}
	}
	_, _, ok := s.nextBank(stage, asked)
	return ok
}
