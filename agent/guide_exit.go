package agent

import (
	"errors"
	"slices"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// When the interview has what it needs: coverage, the exit decided after
// an analysis and taken at the next answer, the hard cap.

// coverage is the share of what the interview must find out that is
// covered, and of that covered or unknown (no longer blocking): the
// required rubric fields and the gaps of the job's required skills (P0).
func coverage(r *interviews.Record) (covered, settled float64, required int) {
	var c, s int
	for _, it := range r.Rubric {
		if !it.Required {
			continue
		}
		required++
		switch it.Status {
		case interviews.StatusCovered:
			c++
			s++
		case interviews.StatusUnknown:
			s++
		}
	}
	for _, gp := range r.Gaps {
		if gp.Priority != stages.P0 {
			continue
		}
		required++
		switch gp.Status {
		case interviews.StatusResolved:
			c++
			s++
		case interviews.StatusUnknown:
			s++
		}
	}
	if required == 0 {
		return 1, 1, 0
	}
	return float64(c) / float64(required), float64(s) / float64(required), required
}

// checkExit decides, after an analysis, whether the interview has what it
// needs; the exit is taken at the start of the next reply (takeExit).
func (g *guide) checkExit() {
	select {
	case <-g.ready:
	default:
		return
	}
	g.mu.Lock()
	decided := g.exit != nil
	g.mu.Unlock()
	if decided || g.m.Done() || g.bp.IsLast(g.m.Stage()) {
		return
	}
	var ex *interviews.Exit
	var in analysis.MissingInput
	g.rec.View(func(r *interviews.Record) {
		turns := r.AnswerTurns()
		if g.bp.KnowledgeCapture() {
			ex = g.captureExit(r, turns)
			return
		}
		if len(g.bp.Rubric) == 0 {
			return
		}
		cov, settled, _ := coverage(r)
		switch {
		case settled < g.bp.Exit.Threshold():
			return
		case turns >= g.bp.Exit.Turns():
			ex = &interviews.Exit{Reason: interviews.ExitMaxTurns, Coverage: cov, Turns: turns}
			return
		}
		// The job's required skills and the role template are part of what
		// the interview needs: it does not close while one of those gaps
		// is open or a template question is still to be asked.
		if g.pendingWork(r) {
			return
		}
		in = analysis.MissingInput{Blueprint: g.bp.Name, Rubric: slices.Clone(r.Rubric), Gaps: slices.Clone(r.Gaps)}
		for _, a := range r.Answers {
			in.Facts = append(in.Facts, a.Facts...)
		}
		ex = &interviews.Exit{Reason: interviews.ExitRubricComplete, Coverage: cov, Turns: turns}
	})
	if ex == nil {
		return
	}
	if ex.Reason == interviews.ExitRubricComplete && !g.rules {
		// With a model, a light assessment has the last word: is anything
		// important still missing?
		missing, err := g.an.Missing(g.ctx, in)
		if err != nil {
			g.log.Warn("the exit assessment failed; deciding by coverage", "err", err)
		} else if len(missing) > 0 {
			g.log.Info("coverage is met but the assessment wants more", "missing", missing)
			return
		} else {
			ex.Reason = interviews.ExitAssessment
		}
	}
	ex.At = time.Now()
	g.mu.Lock()
	if g.exit == nil {
		g.exit = ex
	}
	g.mu.Unlock()
	g.log.Info("the interview has what it needs", "reason", ex.Reason, "coverage", ex.Coverage, "turns", ex.Turns)
}

// pendingWork reports whether a P0 gap is still open or a template
// question is still to be asked (neither asked nor skipped).
func (g *guide) pendingWork(r *interviews.Record) bool {
	for _, gp := range r.Gaps {
		if gp.Priority == stages.P0 && gp.Status == interviews.StatusOpen {
			return true
		}
	}
	if g.tpl == nil {
		return false
	}
	asked := map[string]bool{}
	g.mu.Lock()
	for ref := range g.refused {
		asked[ref] = true
	}
	g.mu.Unlock()
	for _, q := range g.m.Questions() {
		if !q.Withdrawn && q.Spoken() {
			asked[q.Context.Ref] = true
		}
	}
	for _, tq := range g.tpl.Questions {
		if !asked[tq.ID] && !g.skip(r, tq) {
			return true
		}
	}
	return false
}

// captureExit ends a knowledge capture when no P0 or P1 question is left
// open, or at its round cap.
func (g *guide) captureExit(r *interviews.Record, turns int) *interviews.Exit {
	cov := captureCoverage(r)
	total := 0
	for _, b := range r.Backlog {
		if b.Status != interviews.StatusDropped {
			total++
		}
	}
	switch {
	case total > 0 && cov == 1:
		return &interviews.Exit{Reason: interviews.ExitBacklogComplete, Coverage: cov, Turns: turns}
	case g.rounds() >= g.bp.Exit.CaptureRounds():
		return &interviews.Exit{Reason: interviews.ExitRoundCap, Coverage: cov, Turns: turns}
	}
	return nil
}

// captureCoverage is the share of a capture's P0 and P1 questions
// answered (dropped ones aside); 1 with none.
func captureCoverage(r *interviews.Record) float64 {
	total, done := 0, 0
	for _, b := range r.Backlog {
		if b.Priority != stages.P0 && b.Priority != stages.P1 || b.Status == interviews.StatusDropped {
			continue
		}
		total++
		if b.Status == interviews.StatusAnswered {
			done++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(done) / float64(total)
}

// rounds counts the questions heard in guided stages.
func (g *guide) rounds() int {
	n := 0
	for _, q := range g.m.Questions() {
		if q.Spoken() && !q.Withdrawn && g.bp.Guided(q.Stage) {
			n++
		}
	}
	return n
}

// takeExit moves the interview to its closing stage when an exit has been
// decided, and records it; it reports whether it did. The interview's
// length (exit_conditions.max_turns) is a hard cap: reached, the
// interview closes whatever is still open. Any other exit waits until the
// interview has reached its main stage, so no stage the candidate was told
// of is skipped.
func (g *guide) takeExit() bool {
	g.mu.Lock()
	ex := g.exit
	g.exit = nil
	g.mu.Unlock()
	var answers int
	g.rec.View(func(r *interviews.Record) { answers = r.AnswerTurns() })
	if ex == nil && g.bp.KnowledgeCapture() {
		// The round cap needs no analysis: it is counted now, so the
		// capture never asks past it.
		if rounds := g.rounds(); rounds >= g.bp.Exit.CaptureRounds() {
			g.rec.View(func(r *interviews.Record) {
				ex = &interviews.Exit{Reason: interviews.ExitRoundCap, Coverage: captureCoverage(r), Turns: answers, At: time.Now()}
			})
		}
	}
	hard := false
	if !g.bp.KnowledgeCapture() && answers >= g.bp.Exit.Turns() {
		g.rec.View(func(r *interviews.Record) {
			cov, _, _ := coverage(r)
			ex = &interviews.Exit{Reason: interviews.ExitMaxTurns, Coverage: cov, Turns: answers, At: time.Now()}
		})
		hard = true
	}
	if ex == nil || g.m.Done() {
		return false
	}
	path := g.m.Path()
	last := path[len(path)-1]
	if g.m.Stage() == last {
		return false
	}
	keep := func() {
		g.mu.Lock()
		if g.exit == nil {
			g.exit = ex
		}
		g.mu.Unlock()
	}
	if !hard && g.bp.Index(g.m.Stage()) < g.bp.Index(g.mainStage()) {
		keep()
		return false
	}
	var err error
	if hard {
		_, err = g.m.Force(last, "exit: "+ex.Reason)
	} else {
		// The stage's own minimums still hold: until they are met the
		// exit waits, decided, for the next answer.
		_, err = g.m.AdvanceTo(last, "exit: "+ex.Reason)
	}
	if err != nil {
		var gate *fsm.GateError
		if errors.As(err, &gate) {
			keep()
			return false
		}
		g.log.Warn("closing the interview early failed", "err", err)
		return false
	}
	_ = g.rec.Update(func(r *interviews.Record) {
		ex.Turns, ex.At = r.AnswerTurns(), time.Now() // as it was taken, not as it was decided
		r.Exit = ex
	})
	return true
}
