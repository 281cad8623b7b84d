package agent

import (
	"fmt"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The prompt's section on what the interview knows and what to ask next.

// brief is the prompt's section on what the interview knows, what it
// still needs and what to ask next, for stage.
func (g *guide) brief(stage string) string {
	var b strings.Builder
	g.rec.View(func(r *interviews.Record) {
		var known, missing []string
		for _, it := range r.Rubric {
			switch it.Status {
			case interviews.StatusCovered:
				known = append(known, fmt.Sprintf("%s: %s", it.Label, it.Value))
			case interviews.StatusOpen:
				missing = append(missing, it.Label)
			}
		}
		for _, s := range r.Skills {
			var attrs []string
			for _, a := range stages.SkillAttributes {
				if v := s.Attribute(a); v != "" {
					attrs = append(attrs, a+" "+v)
				}
			}
			if len(attrs) > 0 {
				known = append(known, s.Name+" — "+strings.Join(attrs, "; "))
			}
		}
		for _, gp := range r.Gaps {
			if gp.Status == interviews.StatusOpen && len(missing) < 8 {
				missing = append(missing, gp.InWords())
			}
		}
		n := len(r.Answers)
		for _, a := range r.Answers[max(0, n-3):] {
			for _, f := range a.Facts {
				if len(known) < 14 {
					known = append(known, f)
				}
			}
		}
		if len(known) > 0 {
			b.WriteString("What you know so far:\n- " + strings.Join(known, "\n- ") + "\n")
		}
		if len(missing) > 0 {
			b.WriteString("Still missing: " + strings.Join(missing, "; ") + ".\n")
		}
	})
	if s, ok := g.next(stage); ok {
		fmt.Fprintf(&b, "Ask next, in your own words to fit the conversation: %q (%s). Call %s with ref %q when you ask it.\n",
			s.Text, describeContext(s.Context), stages.ToolAskQuestion, s.Context.Ref)
		if tq, ok := g.templateQuestion(s.Context.Ref); ok {
			if e := strings.Join(strings.Fields(tq.Expected), " "); e != "" {
				fmt.Fprintf(&b, "A good answer to it covers: %s\n", e)
			}
			if skip := strings.Join(strings.Fields(tq.SkipIf), " "); skip != "" {
				fmt.Fprintf(&b, "Skip it, and ask something else, if: %s\n", skip)
			}
		}
	}
	return b.String()
}

// describeContext says in words what a question is for.
func describeContext(c stages.QuestionContext) string {
	t := c.Targets
	switch c.Kind {
	case stages.KindGap:
		return "a skill the job needs: " + interviews.Gap{Skill: t.Skill, Attribute: t.Attribute}.InWords()
	case stages.KindRubric:
		return "a rubric field still open: " + t.Field
	case stages.KindTemplate:
		return "from the role template: " + t.Category
	case stages.KindFollowUp:
		return "a follow-up on " + c.FollowsUp + " from a different angle"
	case stages.KindDiscovered:
		return fmt.Sprintf("something an answer revealed (%s)", c.Priority)
	case stages.KindBrief:
		return fmt.Sprintf("from the brief (%s)", c.Priority)
	}
	if c.Note != "" {
		return c.Note
	}
	return string(c.Kind)
}
