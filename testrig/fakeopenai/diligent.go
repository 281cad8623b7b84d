package fakeopenai

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// Diligent is a chat policy (for ChatFunc) that plays the interviewer as a
// capable, cooperative model does: it reads viva's system prompt and does
// literally what it says. It follows the guide's "Ask next" suggestion with
// its ref (else the stage's first suggested question not yet asked), asks
// through ask_question in the same response as a one-sentence
// acknowledgement, records each answer with assess_response, moves on with
// transition_stage when the progress line says it may (or the stage has
// nothing left to suggest), and at the closing invites the candidate's
// questions, then says goodbye. It never reads viva's internals: only the
// request, as a model would.
//
// Requests with a response format (answer analysis) are answered with
// Analysis, or refused when it is nil.
type Diligent struct {
	// Analysis answers structured-output requests; nil refuses them with
	// HTTP 400, so a caller that uses the offline analysis sees none.
	Analysis func(req Request) Reply

	mu      sync.Mutex
	seen    []Suggested // what each conversational request suggested
	refused map[string]bool
}

// Suggested is what one conversational request's system prompt suggested
// asking next, and the questions asked before it.
type Suggested struct {
	// Text and Ref are the suggestion ("" when none).
	Text, Ref string
	// Asked are the questions the conversation had asked before (accepted
	// ask_question calls in the history).
	Asked []string
}

// Suggestions returns what every conversational request suggested, in
// order.
func (d *Diligent) Suggestions() []Suggested {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Suggested(nil), d.seen...)
}

var (
	nextFirstRe = regexp.MustCompile(`If you move on now, ask its first question in the same reply, after transition_stage: "(.*?)" \(ref "(.*?)"\)`)
	askNextRe   = regexp.MustCompile(`Ask next, in your own words to fit the conversation: "(.*?)" \(.*?\)\. Call ask_question with ref "(.*?)"`)
	suggestedRe = regexp.MustCompile(`(?m)^- \[([^\]]+)\] (.+)$`)
)

// Reply answers one request.
func (d *Diligent) Reply(req Request) Reply {
	if req.Format != nil {
		if d.Analysis == nil {
			return Reply{Status: 400, Text: "this model answers only the interview"}
		}
		return d.Analysis(req)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refused == nil {
		d.refused = map[string]bool{}
	}
	sys := ""
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		sys = req.Messages[0].Content
	}
	asked := askedQuestions(req.Messages, d.refused)
	text, ref := d.suggestion(sys, asked)
	d.seen = append(d.seen, Suggested{Text: text, Ref: ref, Asked: asked})

	offers := map[string]bool{}
	for _, t := range req.Tools {
		offers[t.Name] = true
	}
	last := Message{}
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	if !offers["ask_question"] {
		return Reply{Text: closing(req.Messages)}
	}
	mayMove := strings.Contains(sys, "you may call transition_stage") || strings.Contains(sys, "call transition_stage in this reply") ||
		strings.Contains(sys, "call transition_stage soon")
	switch last.Role {
	case "tool":
		// A move just made: the new stage's first question. A refusal:
		// another question.
		return d.ask("Thank you.", text, ref, nil)
	case "user":
		var calls []ToolCall
		if offers["assess_response"] && len(asked) > 0 {
			calls = append(calls, ToolCall{Name: "assess_response", Arguments: assessment(last.Content)})
		}
		if offers["transition_stage"] && (mayMove && (text == "" || !strings.Contains(sys, "Ask next")) || strings.Contains(sys, "call transition_stage in this reply")) {
			calls = append(calls, ToolCall{Name: "transition_stage", Arguments: `{"reason":"the stage's goals are covered"}`})
			if m := nextFirstRe.FindStringSubmatch(sys); m != nil {
				return d.ask("Thank you.", m[1], m[2], calls)
			}
			return Reply{ToolCalls: calls}
		}
		return d.ask("Thank you, that's helpful.", text, ref, calls)
	}
	return d.ask("Hello, and welcome! I'm Ava, and I'll be your interviewer today.", text, ref, nil)
}

// ask is the acknowledgement and the suggested question in one response.
func (d *Diligent) ask(ack, text, ref string, calls []ToolCall) Reply {
	if text == "" {
		text = "Could you tell me a little more about that?"
	}
	args, _ := json.Marshal(map[string]string{"question": text, "ref": ref})
	return Reply{Text: ack, ToolCalls: append(calls, ToolCall{Name: "ask_question", Arguments: string(args)})}
}

// suggestion is what the system prompt says to ask next: the guide's
// "Ask next", else the first suggested question of the stage not refused.
func (d *Diligent) suggestion(sys string, asked []string) (text, ref string) {
	if m := askNextRe.FindStringSubmatch(sys); m != nil && !d.refused[m[1]] {
		return m[1], m[2]
	}
	for _, m := range suggestedRe.FindAllStringSubmatch(sys, -1) {
		if !d.refused[m[2]] && !contains(asked, m[2]) {
			return m[2], m[1]
		}
	}
	return "", ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// askedQuestions are the questions of the accepted ask_question calls in
// the history; refused ones are noted in refused.
func askedQuestions(msgs []Message, refused map[string]bool) []string {
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	var out []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name != "ask_question" {
				continue
			}
			var a struct{ Question string }
			_ = json.Unmarshal([]byte(c.Arguments), &a)
			var r struct{ OK bool }
			_ = json.Unmarshal([]byte(results[c.ID]), &r)
			if r.OK {
				out = append(out, a.Question)
			} else if _, answered := results[c.ID]; answered {
				refused[a.Question] = true
			}
		}
	}
	return out
}

// assessment judges an answer by its length, as a model's depth score
// tends to follow detail.
func assessment(answer string) string {
	score := 2
	if n := len(strings.Fields(answer)); n > 25 {
		score = 4
	} else if n > 10 {
		score = 3
	}
	declined := strings.Contains(strings.ToLower(answer), "rather not")
	b, _ := json.Marshal(map[string]any{"depth_score": score, "key_points": []string{firstWords(answer, 12)}, "declined": declined})
	return string(b)
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// closing is the closing stage: invite the candidate's questions once,
// then say goodbye.
func closing(msgs []Message) string {
	for _, m := range msgs {
		if m.Role == "assistant" && strings.Contains(m.Content, "any questions for me") {
			return "Thank you for your questions. The hiring team will review our conversation and get back to you soon. Goodbye!"
		}
	}
	return "Thank you for your time today. Before we finish, do you have any questions for me about the role?"
}
