package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Names of the tools the interviewer model may call.
const (
	ToolTransitionStage = "transition_stage"
	ToolAskQuestion     = "ask_question"
	ToolAssessResponse  = "assess_response"
	ToolEndInterview    = "end_interview"
)

// Tools are the function schemas offered to the model on every turn.
var Tools = []llm.Tool{
	{
		Name:        ToolTransitionStage,
		Description: "Move the interview to the next stage once the current stage's goals are met. Refused, with the reason, until the stage's minimum time and minimum number of questions are reached.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string","description":"Why the current stage is complete."}},"required":["reason"],"additionalProperties":false}`),
	},
	{
		Name:        ToolAskQuestion,
		Description: "Register the question you are about to ask, before you say it. Returns progress in the stage and what to do next; refuses a question that repeats an earlier one. Call once per question, then say the question in your reply.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","description":"The question exactly as you will say it."},"purpose":{"type":"string","description":"What the question is meant to find out."},"bank_id":{"type":"string","description":"The id of the suggested question it comes from, if any."},"follows_up":{"type":"string","description":"The id of the earlier question this one follows up, if any."}},"required":["question"],"additionalProperties":false}`),
	},
	{
		Name:        ToolAssessResponse,
		Description: "Record how deep the candidate's last answer was. Returns guidance: follow up, go deeper, or move on.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"depth_score":{"type":"integer","minimum":1,"maximum":5,"description":"1 = superficial, 3 = solid, 5 = expert depth."},"key_points":{"type":"array","items":{"type":"string"},"description":"The main points the answer made."}},"required":["depth_score","key_points"],"additionalProperties":false}`),
	},
	{
		Name:        ToolEndInterview,
		Description: "End the interview early, ONLY when the candidate clearly asks to stop. Moves to the closing stage.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string","description":"What the candidate said."}},"required":["reason"],"additionalProperties":false}`),
	},
}

// ToolResult is what a tool returns to the model, as JSON. Fields are
// omitted when empty.
type ToolResult struct {
	// OK is false when the call was refused or invalid.
	OK bool `json:"ok"`
	// Error says why the call was refused and what to do instead.
	Error string `json:"error,omitempty"`
	// Stage is the current stage after the call, and StageTitle its name.
	Stage      string `json:"stage,omitempty"`
	StageTitle string `json:"stage_title,omitempty"`
	// QuestionID is the id given to a registered question.
	QuestionID string `json:"question_id,omitempty"`
	// Progress is the state of the stage ("question 2 of at least 5; 63% of the stage time left").
	Progress string `json:"progress,omitempty"`
	// Acknowledge is a stage-change acknowledgement to say once, first.
	Acknowledge string `json:"acknowledge,omitempty"`
	// Instructions are the new stage's instructions after a transition.
	Instructions string `json:"instructions,omitempty"`
	// Next says what to do now.
	Next string `json:"next"`
}

func (r ToolResult) json() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// tooling executes tool calls for one conductor.
type tooling struct {
	c *Conductor
}

// call runs one tool call and returns the JSON text for the model. The
// questions registered are appended to asked.
func (t tooling) call(tc llm.ToolCall, asked *[]string) string {
	res := t.dispatch(tc, asked)
	m := t.c.machine
	if res.Stage == "" {
		res.Stage = m.Stage()
		if st, _, ok := m.Blueprint().Stage(res.Stage); ok {
			res.StageTitle = st.Title
		}
	}
	return res.json()
}

func (t tooling) dispatch(tc llm.ToolCall, asked *[]string) ToolResult {
	args := strings.TrimSpace(tc.Arguments)
	if args == "" {
		args = "{}"
	}
	switch tc.Name {
	case ToolTransitionStage:
		var a struct {
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return invalidArgs(tc.Name, err)
		}
		return t.transition(a.Reason)
	case ToolAskQuestion:
		var a struct {
			Question  string `json:"question"`
			Purpose   string `json:"purpose"`
			BankID    string `json:"bank_id"`
			FollowsUp string `json:"follows_up"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return invalidArgs(tc.Name, err)
		}
		return t.ask(a.Question, a.Purpose, a.BankID, a.FollowsUp, asked)
	case ToolAssessResponse:
		var a struct {
			DepthScore int      `json:"depth_score"`
			KeyPoints  []string `json:"key_points"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return invalidArgs(tc.Name, err)
		}
		return t.assess(a.DepthScore, a.KeyPoints)
	case ToolEndInterview:
		var a struct {
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			return invalidArgs(tc.Name, err)
		}
		return t.end(a.Reason)
	default:
		return ToolResult{Error: fmt.Sprintf("unknown tool %q: use one of %s, %s, %s, %s", tc.Name,
			ToolTransitionStage, ToolAskQuestion, ToolAssessResponse, ToolEndInterview), Next: "continue the interview"}
	}
}

func invalidArgs(tool string, err error) ToolResult {
	return ToolResult{Error: fmt.Sprintf("invalid arguments for %s: %v; send a JSON object matching the schema", tool, err), Next: "call the tool again with valid arguments"}
}

func (t tooling) transition(reason string) ToolResult {
	c := t.c
	m := c.machine
	if m.Stage() == c.lastStage() {
		return ToolResult{Error: "this is the final stage: deliver your closing remarks; the interview ends when they have been said", Next: "say your closing remarks now"}
	}
	if strings.TrimSpace(reason) == "" {
		reason = "stage complete"
	}
	tr, err := m.Advance(reason)
	if err != nil {
		var ge *fsm.GateError
		if errors.As(err, &ge) {
			return ToolResult{Error: ge.Error(), Progress: c.progress(), Next: "stay in this stage: ask another question"}
		}
		return ToolResult{Error: err.Error(), Next: "continue the interview"}
	}
	return c.enteredResult(tr)
}

// enteredResult tells the model about the stage just entered.
func (c *Conductor) enteredResult(tr fsm.Transition) ToolResult {
	res := ToolResult{OK: true, Stage: tr.To}
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
		res.Next = "deliver your closing remarks now: thank the candidate, say what happens next, and ask nothing more"
	} else {
		res.Next = "acknowledge the move briefly, then register and ask the first question of this stage"
	}
	return res
}

func (t tooling) ask(text, purpose, bankID, followsUp string, asked *[]string) ToolResult {
	c := t.c
	m := c.machine
	text = strings.TrimSpace(text)
	if m.Stage() == c.lastStage() {
		return ToolResult{Error: "the interview is closing: ask nothing more", Next: "deliver your closing remarks"}
	}
	qc := fsm.QuestionContext{Kind: "model", Note: purpose}
	switch {
	case followsUp != "":
		qc.Kind, qc.Ref = "follow_up", followsUp
	case bankID != "":
		qc.Kind, qc.Ref = "bank", bankID
	}
	q, err := m.Ask(text, qc)
	if err != nil {
		var re *fsm.RepeatError
		if errors.As(err, &re) {
			return ToolResult{Error: re.Error(), Progress: c.progress(), Next: "choose a different question and call ask_question again"}
		}
		return ToolResult{Error: err.Error(), Next: "call ask_question with the question's text"}
	}
	*asked = append(*asked, q.ID)
	res := ToolResult{OK: true, QuestionID: q.ID, Progress: c.progressAsking(), Next: c.urgency(true)}
	if ack, ok := m.TakeAck(); ok {
		res.Acknowledge = ack
		res.Next = "first say the acknowledgement, then ask the question. " + res.Next
	}
	return res
}

func (t tooling) assess(score int, points []string) ToolResult {
	c := t.c
	if score < 1 || score > 5 {
		return ToolResult{Error: fmt.Sprintf("depth_score %d is out of range: use 1 (superficial) to 5 (expert)", score), Next: "call assess_response again"}
	}
	var guidance string
	switch {
	case score <= 2:
		guidance = "the answer was thin: follow up and ask for a concrete example"
	case score == 3:
		guidance = "a solid answer: go deeper on one point it made, or move on if time is short"
	default:
		guidance = "a strong answer: move on to the next topic"
	}
	m := c.machine
	stage := m.Stage()
	qid := ""
	for _, q := range m.Questions() {
		if q.Stage == stage && q.Spoken() {
			qid = q.ID
		}
	}
	kp := make([]string, 0, len(points))
	for _, p := range points {
		if p = strings.TrimSpace(p); p != "" {
			kp = append(kp, p)
		}
	}
	now := c.now()
	_ = c.rec.Update(func(rec *interviews.Record) {
		rec.Assessments = append(rec.Assessments, interviews.Assessment{
			QuestionID: qid, Stage: stage, DepthScore: score, KeyPoints: kp, Guidance: guidance, At: now,
		})
	})
	return ToolResult{OK: true, Progress: c.progress(), Next: guidance + "; " + c.urgency(false)}
}

func (t tooling) end(reason string) ToolResult {
	c := t.c
	last := c.lastStage()
	if c.machine.Stage() == last {
		return ToolResult{OK: true, Next: "deliver your closing remarks now and ask nothing more"}
	}
	if strings.TrimSpace(reason) == "" {
		reason = "the candidate asked to stop"
	}
	tr, err := c.machine.Force(last, "candidate_request: "+reason)
	if err != nil {
		return ToolResult{Error: err.Error(), Next: "continue the interview"}
	}
	c.endedEarly.Store(true)
	res := c.enteredResult(tr)
	res.Next = "the candidate asked to stop: thank them warmly, say what happens next, and ask nothing more"
	return res
}

// progress describes the current stage's gates and clock.
func (c *Conductor) progress() string {
	st := c.machine.Status()
	return fmt.Sprintf("stage %d of %d (%s): %d of at least %d questions asked; %.0f%% of the stage time left (%s)",
		st.Index+1, st.Count, st.Stage, st.Spoken, st.MinQuestions, st.RemainingPct, st.Remaining.Round(time.Second))
}

// progressAsking is progress counting the question being asked now.
func (c *Conductor) progressAsking() string {
	st := c.machine.Status()
	return fmt.Sprintf("stage %d of %d (%s): this is question %d of at least %d; %.0f%% of the stage time left (%s)",
		st.Index+1, st.Count, st.Stage, st.Spoken+1, st.MinQuestions, st.RemainingPct, st.Remaining.Round(time.Second))
}

// urgency is the ladder of what to do next given the stage's gates and
// clock. asking is true when a question is being asked now (it will count
// once spoken).
func (c *Conductor) urgency(asking bool) string {
	st := c.machine.Status()
	spoken := st.Spoken
	if asking {
		spoken++
	}
	switch {
	case st.RemainingPct <= 10:
		return "time is critical: after this answer call transition_stage"
	case st.RemainingPct <= 25:
		return "time is low: wrap this stage up after this answer"
	case spoken < st.MinQuestions:
		return fmt.Sprintf("minimum not met: keep asking questions in this stage (%d more needed)", st.MinQuestions-spoken)
	default:
		return "minimum met: consider calling transition_stage once the candidate has answered"
	}
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

var _ = stages.Done
