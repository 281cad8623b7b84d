package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/internal/utf8cut"
	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// The prompt of each model call: persona, the tools, the stage and its
// rules, the guide's brief, what is due, and the history.

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
	sys.WriteString(languageRule(c.profile.Language))
	stage := m.Stage()
	st, _, ok := bp.Stage(stage)
	if ok {
		if g := toolGuidance(c.stageTools()); g != "" {
			sys.WriteString("\n\n" + g)
		}
	}
	sys.WriteString("\n\n")
	if ok {
		c.writeStage(&sys, stage, st)
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
			fmt.Fprintf(&sys, "\nWhat this hand-over is about (the brief you were given):\n%s\n", utf8cut.Truncate(brief, maxBriefPrompt))
		}
	}
	return c.withHistory(&sys)
}

// languageRule is the system prompt's rule on the language the candidate
// hears: nothing for English, the language of the instructions; for any
// other language, that every word said — the message and the questions
// passed to the tools, which are said word for word — is in it, whatever
// language the instructions, suggestions and acknowledgements below are
// written in.
func languageRule(tag string) string {
	if lang.IsDefault(tag) {
		return ""
	}
	l := lang.Lookup(tag)
	name := l.Name
	if tag != l.Tag {
		name += " (" + tag + ")"
	}
	return fmt.Sprintf("\n\nLanguage: hold this whole interview in %[1]s. Every word the candidate hears must be in natural, fluent %[1]s: your messages, and the question text you pass to %[2]s, which is said word for word. "+
		"The instructions, suggested questions and sentences to say below are written in English: say them in %[1]s, never in English. "+
		"If the candidate answers in another language, reply in %[1]s.", name, stages.ToolAskQuestion)
}

// writeStage writes the current stage's part of the system prompt: its
// instructions, the questions of its bank not yet asked, the guide's
// brief, and the progress and what comes next.
func (c *Conductor) writeStage(sys *strings.Builder, stage string, st stages.Stage) {
	m := c.machine
	fmt.Fprintf(sys, "Current stage: %s (%s).\n", st.Title, stage)
	sys.WriteString(c.stageInstructions(stage))
	sys.WriteString("\n")
	if len(st.Questions) > 0 && stage != c.lastStage() {
		fmt.Fprintf(sys, "Suggested questions for this stage (pass the [id] as ref to %s when you ask one):\n", stages.ToolAskQuestion)
		asked := map[string]bool{}
		for _, q := range m.Questions() {
			if q.Context.Kind == stages.KindBank {
				asked[q.Context.Ref] = true
			}
		}
		for _, q := range st.Questions {
			if !asked[q.ID] {
				fmt.Fprintf(sys, "- [%s] %s\n", q.ID, q.Text)
			}
		}
	}
	if c.bp.Guided(stage) {
		if b := c.guide.brief(stage); b != "" {
			sys.WriteString("\n" + b)
		}
	}
	if stage == c.lastStage() && !c.bp.Exit.Graceful() {
		sys.WriteString("\nKeep the closing to a brief thank-you and goodbye: ask nothing, not even whether they have questions.\n")
	}
	if stage != c.lastStage() {
		fmt.Fprintf(sys, "\nProgress: %s. %s.\n", c.progress(), c.urgency(false))
		if next, title := c.nextStage(); next != "" {
			fmt.Fprintf(sys, "After this stage comes: %s.", title)
			if s, ok := c.firstQuestion(next); ok && c.machine.Gate() == nil {
				fmt.Fprintf(sys, " If you move on now, ask its first question in the same reply, after %s: %q (ref %q).", stages.ToolTransitionStage, s.Text, s.Context.Ref)
			}
			sys.WriteString("\n")
		}
	}
}

// withHistory returns the system prompt sys followed by the recent
// history; questions from history cut off are listed in sys so the model
// does not ask them again.
func (c *Conductor) withHistory(sys *strings.Builder) []llm.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	hist := c.history
	if len(hist) > c.maxHist {
		dropped := hist[:len(hist)-c.maxHist]
		hist = hist[len(hist)-c.maxHist:]
		// Never start with tool results whose call was cut off.
		for len(hist) > 0 && hist[0].Role == llm.RoleTool {
			hist = hist[1:]
		}
		if earlier := c.earlierQuestions(dropped); len(earlier) > 0 {
			fmt.Fprintf(sys, "\nEarlier in this interview, no longer shown below, you asked: %s\n", strings.Join(earlier, " | "))
		}
	}
	msgs := make([]llm.Message, 0, len(hist)+1)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: sys.String()})
	msgs = append(msgs, hist...)
	return msgs
}

// maxBriefPrompt bounds the brief shown to a knowledge capture's
// interviewer, in bytes (cut on a character boundary).
const maxBriefPrompt = 2000

// earlierQuestions are the questions said in the dropped part of the
// history (what the candidate heard), so the model does not ask them
// again; what it learned from them is in the guide's brief.
func (c *Conductor) earlierQuestions(dropped []llm.Message) []string {
	var said strings.Builder
	for _, m := range dropped {
		if m.Role == llm.RoleAssistant {
			said.WriteString(words.Normal(m.Content) + " ")
		}
	}
	text := said.String()
	var out []string
	for _, q := range c.machine.Questions() {
		if q.Spoken() && !q.Withdrawn && strings.Contains(text, words.Normal(q.Text)) {
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
