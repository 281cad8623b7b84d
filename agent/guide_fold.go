package agent

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The analysis of each answer, beside the reply, folded into the record.

// answered starts the analysis of a candidate turn beside the reply to
// it. The question answered is the last one the candidate heard.
func (g *guide) answered(turnSeq int, text, stage string) {
	qs := g.m.Questions()
	var q stages.Question
	for i := len(qs) - 1; i >= 0; i-- {
		if qs[i].Spoken() && !qs[i].Withdrawn {
			q = qs[i].Clone()
			break
		}
	}
	refs := targetRefs(q)
	if tq, ok := g.templateQuestion(q.Context.Ref); ok && q.Context.Kind == stages.KindTemplate {
		// What a good answer covers reaches the analysis with the question.
		q.Expected, q.SkipIf = tq.Expected, tq.SkipIf
	}
	in := analysis.AnswerInput{Question: q, Answer: text, Stage: stage}
	if st, _, ok := g.bp.Stage(stage); ok {
		in.Keywords = append(slices.Clone(st.Keywords), q.Keywords...)
	}
	g.rec.View(func(r *interviews.Record) {
		for _, f := range g.bp.Rubric {
			if it, ok := rubricItem(r, f.ID); ok && it.Status == interviews.StatusOpen {
				in.Rubric = append(in.Rubric, f)
			}
		}
		for _, s := range r.Skills {
			in.Skills = append(in.Skills, s.Name)
		}
		turns := r.Turns
		if n := len(turns); n > 1 {
			for _, t := range turns[max(0, n-1-recentTurns) : n-1] {
				who := "Candidate"
				if t.Role == interviews.RoleAgent {
					who = "Interviewer"
				}
				in.Recent = append(in.Recent, who+": "+t.Text)
			}
		}
	})
	phase := g.phaseStage(stage)
	var phaseTurns []string
	if phase {
		phaseTurns = g.turnsInStage(stage)
	}
	g.mu.Lock()
	for _, ref := range refs {
		g.inflight[ref]++
	}
	g.mu.Unlock()
	g.wg.Go(func() {
		defer func() {
			g.mu.Lock()
			for _, ref := range refs {
				if g.inflight[ref]--; g.inflight[ref] <= 0 {
					delete(g.inflight, ref)
				}
			}
			g.mu.Unlock()
		}()
		res, err := g.an.Answer(g.ctx, in)
		if err != nil {
			if g.ctx.Err() == nil {
				g.log.Warn("analysing an answer failed", "err", err, "turn", turnSeq)
			}
			return
		}
		g.apply(turnSeq, q, res)
		if phase {
			g.evaluate(stage, phaseTurns)
		}
		g.checkExit()
	})
}

// apply folds one analysis into the record.
func (g *guide) apply(turnSeq int, q stages.Question, res analysis.AnswerResult) {
	now := time.Now()
	qs := g.m.Questions()
	guided := g.bp.Guided(q.Stage)
	_ = g.rec.Update(func(r *interviews.Record) {
		r.Answers = append(r.Answers, interviews.Answer{QuestionID: q.ID, TurnSeq: turnSeq, Confidence: res.Confidence,
			ConfidenceScore: res.Confidence.Score(), Facts: res.Facts, By: res.By, At: now})
		foldSkills(r, turnSeq, res)
		filledField, filledGap := foldFills(r, q, res)
		if res.Declined {
			settleDeclined(r, q)
		}
		settleUnfilled(r, q, res, filledField, filledGap)
		foldBacklog(r, q, qs, guided, res)
	})
}

// foldSkills records the skills the answer showed, and those it showed
// the candidate lacks (with the answer as evidence).
func foldSkills(r *interviews.Record, turnSeq int, res analysis.AnswerResult) {
	for _, name := range res.Skills {
		if strings.TrimSpace(name) != "" && skillByName(r, name) == nil {
			r.Skills = append(r.Skills, interviews.Skill{Name: name, Sources: []string{"answer"}, By: res.By})
		}
	}
	for _, name := range res.Absent {
		if strings.TrimSpace(name) == "" {
			continue
		}
		sk := skillByName(r, name)
		if sk == nil {
			r.Skills = append(r.Skills, interviews.Skill{Name: name, Sources: []string{"answer"}})
			sk = &r.Skills[len(r.Skills)-1]
		}
		// A skill they lack is recorded as such, never with the
		// confidence of a skill they have.
		sk.Absent, sk.Confidence, sk.By = true, 0, res.By
		if i := slices.IndexFunc(r.Turns, func(t interviews.Turn) bool { return t.Seq == turnSeq }); i >= 0 {
			sk.Evidence = append(sk.Evidence, r.Turns[i].Text)
		}
		for i := range r.Gaps {
			if strings.EqualFold(r.Gaps[i].Skill, name) && r.Gaps[i].Status == interviews.StatusOpen {
				r.Gaps[i].Status = interviews.StatusUnknown
			}
		}
	}
}

// foldFills records the rubric fields and skill attributes the answer
// filled; it reports whether it filled the rubric field or the gap the
// question q asked for.
func foldFills(r *interviews.Record, q stages.Question, res analysis.AnswerResult) (filledField, filledGap bool) {
	for _, f := range res.Fills {
		switch {
		case f.Field != "":
			if fillField(r, q, f, res) {
				filledField = filledField || f.Field == q.Context.Targets.Field
			}
		case f.Skill != "" && f.Attribute != "":
			if fillSkill(r, f, res) {
				filledGap = filledGap || (strings.EqualFold(f.Skill, q.Context.Targets.Skill) && f.Attribute == q.Context.Targets.Attribute)
			}
		}
	}
	return filledField, filledGap
}

// fillField covers a rubric field with f unless it holds stronger
// evidence already; it reports whether it did.
func fillField(r *interviews.Record, q stages.Question, f analysis.Fill, res analysis.AnswerResult) bool {
	it, ok := rubricItem(r, f.Field)
	asked := f.Field == q.Context.Targets.Field
	conf := res.Confidence.Score()
	// Stronger later evidence replaces weaker: more confidence,
	// or as confident and in answer to a question asking for it.
	if !ok || it.Status == interviews.StatusCovered && (conf < it.Confidence || conf == it.Confidence && !asked) {
		return false
	}
	it.Status, it.Value, it.Evidence, it.By, it.Confidence = interviews.StatusCovered, f.Value, f.Evidence, res.By, conf
	if q.ID != "" && !slices.Contains(it.QuestionIDs, q.ID) {
		it.QuestionIDs = append(it.QuestionIDs, q.ID)
	}
	return true
}

// fillSkill sets a skill's attribute from f and resolves the gaps it
// closes; it reports whether the attribute was one a skill has.
func fillSkill(r *interviews.Record, f analysis.Fill, res analysis.AnswerResult) bool {
	s := skillByName(r, f.Skill)
	if s == nil {
		r.Skills = append(r.Skills, interviews.Skill{Name: f.Skill, Sources: []string{"answer"}})
		s = &r.Skills[len(r.Skills)-1]
	}
	if !s.SetAttribute(f.Attribute, f.Value) {
		return false
	}
	if f.Evidence != "" {
		s.Evidence = append(s.Evidence, f.Evidence)
	}
	s.Confidence, s.By = res.Confidence.Score(), res.By
	for i := range r.Gaps {
		if strings.EqualFold(r.Gaps[i].Skill, f.Skill) && r.Gaps[i].Attribute == f.Attribute {
			r.Gaps[i].Status = interviews.StatusResolved
		}
	}
	return true
}

// settleUnfilled settles what the question asked for and did not get: a
// rubric field the candidate could not or would not give after a probe, a
// gap probed as often as allowed, stops blocking as unknown.
func settleUnfilled(r *interviews.Record, q stages.Question, res analysis.AnswerResult, filledField, filledGap bool) {
	if f := q.Context.Targets.Field; f != "" && !filledField {
		if it, ok := rubricItem(r, f); ok && it.Status == interviews.StatusOpen && (res.Declined && it.Probes >= 1 || it.Probes >= stages.DefaultGapProbes) {
			it.Status = interviews.StatusUnknown
		}
	}
	if t := q.Context.Targets; t.Skill != "" && !filledGap {
		for i := range r.Gaps {
			gp := &r.Gaps[i]
			if gp.Status == interviews.StatusOpen && strings.EqualFold(gp.Skill, t.Skill) && gp.Attribute == t.Attribute &&
				(gp.Probes >= stages.DefaultGapProbes || res.Declined) {
				gp.Status = interviews.StatusUnknown
			}
		}
	}
}

// foldBacklog marks the backlog's question q answered and adds what the
// answer calls for: a follow-up, and the questions it opened up.
func foldBacklog(r *interviews.Record, q stages.Question, qs []stages.Question, guided bool, res analysis.AnswerResult) {
	for i := range r.Backlog {
		if b := &r.Backlog[i]; b.QuestionID != "" && b.QuestionID == q.ID && b.Status == interviews.StatusAsked {
			b.Status = interviews.StatusAnswered
		}
	}
	// A weak answer earns one follow-up from a different angle, unless
	// the interviewer has already followed it up.
	// Only where the guide asks (a guided stage) does a follow-up wait
	// in the backlog; elsewhere the stage's own questions go on.
	// A gap or rubric question is asked again in other words instead.
	root := rootQuestion(qs, q.ID)
	if q.ID != "" && guided && q.Context.Kind != stages.KindGap && q.Context.Kind != stages.KindRubric && res.FollowUp != "" && res.Confidence != interviews.ConfidenceHigh && !res.Declined &&
		followUps(qs, root) < stages.DefaultFollowUps && !slices.ContainsFunc(r.Backlog, func(b interviews.BacklogItem) bool {
		return b.Origin == interviews.OriginFollowUp && b.FollowsUp == root
	}) {
		addBacklog(r, interviews.BacklogItem{Text: res.FollowUp, Priority: stages.P0, Origin: interviews.OriginFollowUp,
			FollowsUp: root, Status: interviews.StatusOpen, By: res.By})
	}
	for _, d := range res.Discovered {
		if strings.TrimSpace(d.Text) == "" || slices.ContainsFunc(r.Backlog, func(b interviews.BacklogItem) bool { return strings.EqualFold(b.Text, d.Text) }) {
			continue
		}
		addBacklog(r, interviews.BacklogItem{Text: d.Text, Priority: cmp.Or(d.Priority, stages.P1), Origin: interviews.OriginDiscovered,
			Topic: d.About, Status: interviews.StatusOpen, By: res.By})
	}
}

// phaseStage reports whether stage evaluates its phase (it offers
// evaluate_phase).
func (g *guide) phaseStage(stage string) bool {
	st, _, ok := g.bp.Stage(stage)
	return ok && slices.Contains(st.Tools, stages.ToolEvaluatePhase)
}

// turnsInStage are the candidate's turns since the interview last entered
// stage.
func (g *guide) turnsInStage(stage string) []string {
	var out []string
	g.rec.View(func(r *interviews.Record) {
		var since time.Time
		for _, v := range r.Stages {
			if v.Name == stage {
				since = v.EnteredAt
			}
		}
		for _, t := range r.Turns {
			if t.Role == interviews.RoleCandidate && t.Stage == stage && !t.StartedAt.Before(since) {
				out = append(out, t.Text)
			}
		}
	})
	return out
}

// evaluate runs the phase evaluation of stage on turns and keeps it for
// the next evaluate_phase call.
func (g *guide) evaluate(stage string, turns []string) interviews.Phase {
	st, _, _ := g.bp.Stage(stage)
	ph, err := g.an.Phase(g.ctx, analysis.PhaseInput{Stage: st, Turns: turns, Problem: g.problem(), Pass: stages.DefaultPhasePass})
	if err != nil {
		g.log.Warn("evaluating the phase failed; using the keyword evaluation", "stage", stage, "err", err)
		ph, _ = analysis.Rules{}.Phase(g.ctx, analysis.PhaseInput{Stage: st, Turns: turns, Pass: stages.DefaultPhasePass})
	}
	g.mu.Lock()
	g.phases[stage] = ph
	g.mu.Unlock()
	return ph
}

// phase answers evaluate_phase at once: the evaluation made beside the
// last answer of the stage, or — when none is ready — the keyword
// evaluation, which costs nothing. It is recorded as delivered to the
// interviewer.
func (g *guide) phase(stage string) interviews.Phase {
	g.mu.Lock()
	ph, ok := g.phases[stage]
	g.mu.Unlock()
	if !ok {
		st, _, _ := g.bp.Stage(stage)
		ph, _ = analysis.Rules{}.Phase(g.ctx, analysis.PhaseInput{Stage: st, Turns: g.turnsInStage(stage), Pass: stages.DefaultPhasePass})
	}
	ph.At = time.Now()
	_ = g.rec.Update(func(r *interviews.Record) { r.Phases = append(r.Phases, ph) })
	return ph
}

// problem is the interview's design problem as the candidate was given
// it, with its facts; "" for an interview without one.
func (g *guide) problem() string {
	var id string
	g.rec.View(func(r *interviews.Record) { id = r.Problem })
	if id == "" {
		return ""
	}
	p, err := g.bp.FindProblem(id)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(p.Statement + " " + p.Details)
}
