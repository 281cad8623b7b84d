package agent

import (
	"slices"
	"strings"

	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// What a question asked is about (its ref, or what the model said it
// targets) and what hearing it, refusing it or a decline settles.

// resolve returns the context of a question asked from ref: a backlog
// item, a gap, a rubric field, a template question or a bank question of
// the blueprint. ok is false for a ref the guide does not know.
func (g *guide) resolve(ref string) (stages.QuestionContext, bool) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return stages.QuestionContext{}, false
	}
	var qc stages.QuestionContext
	found := false
	g.rec.View(func(r *interviews.Record) {
		for _, b := range r.Backlog {
			if b.ID == ref {
				qc, found = stages.QuestionContext{Kind: backlogKind(b.Origin), Ref: b.ID, Priority: b.Priority, FollowsUp: b.FollowsUp}, true
				if fq, ok := questionByID(g.m.Questions(), b.FollowsUp); ok {
					qc.Targets = fq.Context.Targets
				}
				return
			}
		}
		for _, gp := range r.Gaps {
			if gp.ID == ref {
				qc, found = stages.QuestionContext{Kind: stages.KindGap, Ref: gp.ID, Priority: gp.Priority, Targets: stages.Targets{Skill: gp.Skill, Attribute: gp.Attribute}}, true
				return
			}
		}
		if id, ok := strings.CutPrefix(ref, rubricRef); ok {
			if _, ok := rubricItem(r, id); ok {
				qc, found = stages.QuestionContext{Kind: stages.KindRubric, Ref: ref, Targets: stages.Targets{Field: id}}, true
			}
		}
	})
	if found {
		return qc, true
	}
	if stage, ok := strings.CutPrefix(ref, phaseRef); ok && g.bp.Index(stage) >= 0 {
		return stages.QuestionContext{Kind: stages.KindPhase, Ref: ref, Targets: stages.Targets{Phase: stage}}, true
	}
	if g.tpl != nil {
		for _, tq := range g.tpl.Questions {
			if tq.ID == ref {
				c := tq.Context.Clone()
				c.Kind, c.Ref = stages.KindTemplate, tq.ID
				return c, true
			}
		}
	}
	for _, st := range g.bp.Stages {
		for _, bq := range st.Questions {
			if bq.ID == ref {
				return bankContext(bq), true
			}
		}
	}
	return stages.QuestionContext{}, false
}

// attributeCues are words that show which skill attribute a question
// asks about.
var attributeCues = map[string][]string{
	"duration":                {"how long", "years", "since when", "when did you start", "first start"},
	"depth":                   {"complex", "inside out", "deep", "hardest", "most advanced"},
	"scale":                   {"scale", "how big", "users", "traffic", "volume", "throughput", "how many"},
	"autonomy":                {"decide", "decision", "your call", "choose", "chose", "own", "lead"},
	"production_vs_prototype": {"production", "prototype", "ship", "real users", "customers"},
	"constraints":             {"constraint", "deadline", "budget", "legacy", "limits"},
}

// infer is the context of a question the model asked without a ref: the
// suggestion it asks in its own words, else the open gap of the skill it
// names (targets, or the question itself) and the attribute it asks
// about, else the rubric field it targets. ok is false for a question
// that targets nothing the guide tracks.
func (g *guide) infer(stage, question, targets string) (stages.QuestionContext, bool) {
	for _, s := range g.candidates(stage) {
		if fsm.Similarity(question, s.Text) >= 0.5 {
			return s.Context, true
		}
	}
	about := strings.ToLower(targets + " " + question)
	var qc stages.QuestionContext
	found := false
	g.rec.View(func(r *interviews.Record) {
		for _, gp := range r.Gaps {
			if gp.Status != interviews.StatusOpen || !mentions(about, gp.Skill) {
				continue
			}
			c := stages.QuestionContext{Kind: stages.KindGap, Ref: gp.ID, Priority: gp.Priority, Targets: stages.Targets{Skill: gp.Skill, Attribute: gp.Attribute}}
			if !found {
				qc, found = c, true // the skill's first open gap, unless one matches the attribute
			}
			if slices.ContainsFunc(attributeCues[gp.Attribute], func(cue string) bool { return strings.Contains(about, cue) }) {
				qc = c
				return
			}
		}
		if found {
			return
		}
		for _, f := range g.bp.Rubric {
			it, ok := rubricItem(r, f.ID)
			if !ok || it.Status != interviews.StatusOpen {
				continue
			}
			if t := strings.ToLower(strings.TrimSpace(targets)); t != "" && (t == f.ID || strings.Contains(t, strings.ToLower(f.Label))) ||
				f.Question != "" && fsm.Similarity(question, f.Question) >= 0.5 {
				qc, found = stages.QuestionContext{Kind: stages.KindRubric, Ref: rubricRef + f.ID, Targets: stages.Targets{Field: f.ID}}, true
				return
			}
		}
	})
	return qc, found
}

// mentions reports whether text (lower case) names skill as a word.
func mentions(text, skill string) bool {
	s := strings.ToLower(strings.TrimSpace(skill))
	if s == "" {
		return false
	}
	for i := 0; ; {
		k := strings.Index(text[i:], s)
		if k < 0 {
			return false
		}
		start, end := i+k, i+k+len(s)
		before := start == 0 || !isWordByte(text[start-1])
		after := end == len(text) || !isWordByte(text[end])
		if before && after {
			return true
		}
		i = end
	}
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// refuse notes that the question suggested from ref repeats one already
// asked: the guide suggests it no more (its answer is, in effect, known).
func (g *guide) refuse(ref string) {
	if ref == "" {
		return
	}
	g.mu.Lock()
	g.refused[ref] = true
	g.mu.Unlock()
	_ = g.rec.Update(func(r *interviews.Record) {
		for i := range r.Backlog {
			if r.Backlog[i].ID == ref && r.Backlog[i].Status == interviews.StatusOpen {
				r.Backlog[i].Status = interviews.StatusDropped
			}
		}
	})
}

// spoken notes that question q reached the candidate: the gap, rubric
// field or backlog item it asks for counts the probe.
func (g *guide) spoken(q stages.Question) {
	_ = g.rec.Update(func(r *interviews.Record) {
		t := q.Context.Targets
		for i := range r.Gaps {
			gp := &r.Gaps[i]
			if gp.ID == q.Context.Ref || (q.Context.Kind != stages.KindFollowUp && t.Skill != "" && strings.EqualFold(gp.Skill, t.Skill) && gp.Attribute == t.Attribute) {
				gp.Probes++
				gp.QuestionIDs = append(gp.QuestionIDs, q.ID)
			}
		}
		if t.Field != "" {
			if it, ok := rubricItem(r, t.Field); ok {
				it.Probes++
				it.QuestionIDs = append(it.QuestionIDs, q.ID)
			}
		}
		for i := range r.Backlog {
			if r.Backlog[i].ID == q.Context.Ref && r.Backlog[i].Status == interviews.StatusOpen {
				r.Backlog[i].Status, r.Backlog[i].QuestionID = interviews.StatusAsked, q.ID
			}
			// A follow-up the interviewer asked of its own accord settles
			// the one analysis queued for the same question.
			if q.Context.Kind == stages.KindFollowUp && r.Backlog[i].Origin == interviews.OriginFollowUp &&
				r.Backlog[i].FollowsUp == q.Context.FollowsUp && r.Backlog[i].Status == interviews.StatusOpen {
				r.Backlog[i].Status, r.Backlog[i].QuestionID = interviews.StatusAsked, q.ID
			}
		}
	})
}

// declined notes that the candidate declined to answer q: what it asked
// for (a rubric field, a gap, a backlog item) is settled as unknown and
// not asked again.
func (g *guide) declined(q stages.Question) {
	_ = g.rec.Update(func(r *interviews.Record) { settleDeclined(r, q) })
}

// settleDeclined marks what q asked for unknown (a backlog item
// answered), so a declined answer is respected, not pressed.
func settleDeclined(r *interviews.Record, q stages.Question) {
	t := q.Context.Targets
	if t.Field != "" {
		if it, ok := rubricItem(r, t.Field); ok && it.Status == interviews.StatusOpen {
			it.Status = interviews.StatusUnknown
		}
	}
	for i := range r.Gaps {
		gp := &r.Gaps[i]
		if gp.Status == interviews.StatusOpen && (gp.ID == q.Context.Ref || t.Skill != "" && strings.EqualFold(gp.Skill, t.Skill) && gp.Attribute == t.Attribute) {
			gp.Status = interviews.StatusUnknown
		}
	}
	for i := range r.Backlog {
		if b := &r.Backlog[i]; b.Status == interviews.StatusOpen && b.FollowsUp != "" && b.FollowsUp == q.ID {
			b.Status = interviews.StatusDropped
		}
	}
}

// followUps counts the follow-ups asked of question id (withdrawn ones
// excepted); the guide allows stages.DefaultFollowUps.
func followUps(qs []stages.Question, id string) int {
	n := 0
	for _, q := range qs {
		if !q.Withdrawn && q.Context.FollowsUp == id {
			n++
		}
	}
	return n
}

// rootQuestion is the question a chain of follow-ups started from.
func rootQuestion(qs []stages.Question, id string) string {
	for range len(qs) {
		q, ok := questionByID(qs, id)
		if !ok || q.Context.FollowsUp == "" {
			return id
		}
		id = q.Context.FollowsUp
	}
	return id
}

// targetRefs are the refs an answer to q settles: the gap, rubric field
// or backlog item it asked for.
func targetRefs(q stages.Question) []string {
	var refs []string
	if q.Context.Ref != "" {
		refs = append(refs, q.Context.Ref)
	}
	if f := q.Context.Targets.Field; f != "" {
		refs = append(refs, rubricRef+f)
	}
	return refs
}
