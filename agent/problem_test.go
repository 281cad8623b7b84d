package agent

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// phaseAnswer is a candidate who covers each phase of bp in two answers:
// half its topics, then the rest.
func phaseAnswer(bp *stages.Blueprint, c **Conductor) func(stages.Question) string {
	return func(q stages.Question) string {
		st, _, _ := bp.Stage(q.Stage)
		if len(st.Keywords) == 0 || q.Stage == "greeting" {
			return "Yes, I can hear you and I'm ready."
		}
		n := 0
		for _, pq := range (*c).Machine().Questions() {
			if pq.Stage == q.Stage && pq.Spoken() {
				n++
			}
		}
		half := (len(st.Keywords) + 1) / 2
		kws := st.Keywords[:half]
		if n > 1 {
			kws = st.Keywords[half:]
		}
		return "I would think about " + strings.Join(kws, ", ") + ", and explain the trade-offs as I go."
	}
}

// TestSystemDesignWorksOnOneProblem: a system-design interview works on
// one problem of the pool, the one chosen at registration or else one
// drawn for it, which the record names; the interviewer presents it and
// asks its questions; the clarification and requirements phases are
// evaluated like the design ones. A problem the pool lacks is refused
// with the pool listed.
func TestSystemDesignWorksOnOneProblem(t *testing.T) {
	for _, chosen := range []string{"", "url-shortener"} {
		t.Run("chosen="+chosen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var c *Conductor
				c = interview(t, stages.SystemDesign(), nil, func(r *interviews.Record) { r.Problem = chosen })
				p, err := stages.SystemDesign().FindProblem(c.rec.Snapshot().Problem)
				if err != nil {
					t.Fatalf("the record names no problem of the pool: %v", err)
				}
				if chosen != "" && p.ID != chosen {
					t.Fatalf("problem %q, want the chosen %q", p.ID, chosen)
				}
				converse(t, c, phaseAnswer(stages.SystemDesign().WithProblem(p), &c), 20*time.Second, 60)
				rec := flushed(t, c)
				if rec.Problem != p.ID {
					t.Errorf("record problem %q, want %q", rec.Problem, p.ID)
				}
				var bank []string
				for _, ps := range p.Stages {
					for _, q := range ps.Questions {
						bank = append(bank, q.Text)
					}
				}
				own, presented := 0, false
				for _, q := range rec.Questions {
					if slices.Contains(bank, q.Text) {
						own++
					}
					presented = presented || strings.Contains(q.Text, p.Statement)
				}
				evaluated := map[string]bool{}
				for _, ph := range rec.Phases {
					evaluated[ph.ID] = true
				}
				t.Logf("problem %s: %d of its questions asked, problem presented %v, phases evaluated %v", p.ID, own, presented, evaluated)
				if own < 3 || !presented {
					t.Errorf("problem %s: %d of its questions asked, presented %v; want it presented and its questions asked", p.ID, own, presented)
				}
				if !evaluated["clarification"] || !evaluated["requirements"] {
					t.Errorf("phases evaluated %v, want clarification and requirements among them", evaluated)
				}
			})
		})
	}
	setup, _ := testSetup(t, 1, scriptedLLM)
	setup.Blueprint, setup.Record.Problem = stages.SystemDesign(), "elevator"
	if _, err := NewInterview(setup); err == nil || !strings.Contains(err.Error(), `no problem "elevator"; choose one of ticketing`) {
		t.Errorf("an unknown problem: %v", err)
	}
}
