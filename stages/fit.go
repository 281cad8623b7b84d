package stages

import (
	"fmt"
	"slices"
	"time"
)

// TemplateQuestionTime is the time a role template adds to its
// interview's main stage for each of its questions: a spoken answer and
// a follow-up.
const TemplateQuestionTime = 2 * time.Minute

// TakesTemplate reports whether a role template's questions can be asked
// in the blueprint: it needs a guided stage (where the guide asks them)
// and is no knowledge capture. The error says what to do instead.
func (b *Blueprint) TakesTemplate() error {
	if b.KnowledgeCapture() {
		return fmt.Errorf("blueprint %q captures knowledge from a brief and asks no role template's questions: leave the template out", b.Name)
	}
	if !slices.ContainsFunc(b.Stages, func(s Stage) bool { return s.Guided }) {
		return fmt.Errorf("blueprint %q follows its own stages and has no guided stage where a role template's questions are asked: leave the template out, or choose the %s blueprint", b.Name, DefaultName)
	}
	return nil
}

// MainStage is the last guided stage of the blueprint's path, where the
// role template's questions, gap probes and discovered questions are
// asked; "" when no stage is guided.
func (b *Blueprint) MainStage() string {
	main := ""
	for _, name := range b.Path() {
		if b.Guided(name) {
			main = name
		}
	}
	return main
}

// WithTemplate returns a copy of the blueprint made to ask the role
// template t: its main stage gets TemplateQuestionTime more per template
// question, and its exit conditions as many more turns, so a template is
// asked rather than cut short by a plan sized for the blueprint's own
// questions (the interview still closes as soon as it has what it needs).
// A nil t returns a plain copy. A blueprint that cannot ask a template is
// the error of TakesTemplate.
func (b *Blueprint) WithTemplate(t *Template) (*Blueprint, error) {
	c := b.Clone()
	if t == nil {
		return c, nil
	}
	if err := b.TakesTemplate(); err != nil {
		return nil, fmt.Errorf("role template %q: %w", t.Name, err)
	}
	n := len(t.Questions)
	if i := c.Index(c.MainStage()); i >= 0 {
		c.Stages[i].Limit += time.Duration(n) * TemplateQuestionTime
	}
	c.Exit.MaxTurns = c.Exit.Turns() + n
	return c, nil
}
