package agent

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// A candidate who answers what each question asks, read from the
// question's context as a person would read the question: the offline
// interviewer and the offline analysis meet real answers.
func fittingAnswer(q stages.Question) string {
	t := q.Context.Targets
	switch t.Field {
	case stages.FieldCurrentRole:
		return "I'm a senior backend engineer at Acme Payments, where I lead the ledger team."
	case stages.FieldYearsExperience:
		return "I have been a software engineer for nine years now."
	case stages.FieldWhyRole:
		return "I applied because I want to build developer tools at a larger scale, and your product is one I use every day."
	case stages.FieldProudProject:
		return "I'm proudest of the ledger migration: I led the move of our ledger service to a sharded Postgres cluster with zero downtime."
	case stages.FieldHardProblem:
		return "The hardest problem was a race condition in our retry logic that double charged customers; I found it with tracing and fixed the idempotency keys."
	case stages.FieldImpactNumbers:
		return "It cut payment errors by 40 percent and saved about two million dollars a year."
	}
	switch t.Attribute {
	case "duration":
		return "I have used " + t.Skill + " for three years, since 2023."
	case "depth":
		return "With " + t.Skill + " I built our billing engine, including the scheduler and the retry queue, and I reviewed most of the code."
	case "scale":
		return "It served about two hundred thousand users and ten thousand requests per second at peak."
	case "autonomy":
		return "I decided the architecture myself and led the team of five that built it."
	case "production_vs_prototype":
		return "It has been in production for two years, serving real customers every day."
	case "constraints":
		return "We had a hard deadline and a tight budget, and we had to keep the legacy API working."
	}
	if q.Context.Kind == stages.KindTemplate {
		return "I would start from what users need, measure it, and I did exactly that on our checkout: we cut load time by half with code splitting and caching, and I reviewed every change with the team."
	}
	return "Yes, I can hear you clearly and I'm ready. I usually work through problems step by step with my team and we decide with data."
}

// converse runs an interview with the scripted interviewer, answering
// each question with answer until the interview ends or turns run out;
// each answer comes gap after the question, in the bubble's virtual time.
func converse(t *testing.T, c *Conductor, answer func(stages.Question) string, gap time.Duration, turns int) {
	t.Helper()
	deliver(t, c.Greet(t.Context()))
	for range turns {
		select {
		case <-c.Ended():
			return
		default:
		}
		time.Sleep(gap)
		c.guide.wg.Wait()
		q := lastQuestion(t, c.Machine())
		deliver(t, c.Respond(t.Context(), CandidateTurn{Text: answer(q)}))
	}
	select {
	case <-c.Ended():
	default:
		t.Fatalf("the interview did not end in %d turns; stage %s", turns, c.Machine().Stage())
	}
}

// interview wires an interview of bp offline (scripted interviewer, rules
// analysis), with the record's résumé, job description and brief set.
func interview(t *testing.T, bp *stages.Blueprint, tpl *stages.Template, set func(*interviews.Record)) *Conductor {
	t.Helper()
	setup, _ := testSetup(t, 1, scriptedLLM)
	setup.Blueprint, setup.Template = bp, tpl
	if set != nil {
		set(setup.Record)
	}
	c, err := NewInterview(setup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft) })
	return c
}

// TestDefaultBlueprintEndsWhenTheRubricIsCovered: offline, the default
// blueprint asks for its rubric fields, each answer covers one with the
// candidate's words, and the interview closes early through the closing
// stage with exit reason rubric_complete.
func TestDefaultBlueprintEndsWhenTheRubricIsCovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := interview(t, stages.Default(), nil, nil)
		converse(t, c, fittingAnswer, 20*time.Second, 30)
		rec := flushed(t, c)
		if rec.Exit == nil || rec.Exit.Reason != interviews.ExitRubricComplete || rec.Exit.Coverage != 1 {
			t.Fatalf("exit %+v, want rubric_complete with full coverage\nrubric %+v", rec.Exit, rec.Rubric)
		}
		if rec.Status != interviews.StatusCompleted || rec.EndedBy != interviews.EndedClosingDelivered {
			t.Errorf("status %s by %s, want completed by the closing", rec.Status, rec.EndedBy)
		}
		for _, it := range rec.Rubric {
			if it.Status != interviews.StatusCovered || it.Evidence == "" || it.By != interviews.ByRules {
				t.Errorf("rubric field %+v, want covered by the rules with evidence", it)
			}
		}
		if n := len(rec.Stages); rec.Stages[n-1].Name != "closing" || !strings.HasPrefix(rec.Stages[n-1].Reason, "exit: ") {
			t.Errorf("stages %+v, want the last entered by the exit", rec.Stages)
		}
		if len(rec.Answers) == 0 || rec.Answers[0].By != interviews.ByRules {
			t.Errorf("answers %+v, want each analysed by the rules", rec.Answers)
		}
		t.Logf("questions asked: %d, candidate turns: %d, coverage %.2f", len(rec.Questions), rec.Exit.Turns, rec.Exit.Coverage)
	})
}

// TestTemplateAndResumeGuideTheMainStage: with the fullstack-senior
// template and a résumé and job description, the main stage asks the
// template's questions (kind template, its category and what it assesses)
// and probes the job's skills; the answers resolve the gaps they probe.
func TestTemplateAndResumeGuideTheMainStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tpl, err := stages.BuiltinTemplate("fullstack-senior")
		if err != nil {
			t.Fatal(err)
		}
		c := interview(t, stages.Default(), tpl, func(r *interviews.Record) {
			r.ResumeText = "Senior engineer. 5 years of Python at Initech. React and TypeScript at Acme."
			r.JobDescription = "Requirements:\n- React\n- PostgreSQL\nNice to have:\n- Kubernetes"
		})
		converse(t, c, fittingAnswer, 15*time.Second, 40)
		rec := flushed(t, c)
		if rec.Template != "fullstack-senior" {
			t.Errorf("record template %q", rec.Template)
		}
		kinds := map[stages.QuestionKind]int{}
		for _, q := range rec.Questions {
			kinds[q.Context.Kind]++
			if q.Context.Kind == stages.KindTemplate && (q.Context.Targets.Category == "" || len(q.Context.Targets.Assesses) == 0) {
				t.Errorf("template question %+v lacks its category or what it assesses", q)
			}
		}
		if kinds[stages.KindTemplate] < 2 || kinds[stages.KindGap] < 2 {
			t.Fatalf("question kinds %v, want template questions and gap probes", kinds)
		}
		resolved := 0
		for _, g := range rec.Gaps {
			if g.Status == interviews.StatusResolved {
				resolved++
				if g.Probes == 0 || len(g.QuestionIDs) == 0 {
					t.Errorf("gap %+v resolved without its probe", g)
				}
			}
		}
		if resolved == 0 {
			t.Errorf("no gap resolved: %+v", rec.Gaps)
		}
		for _, s := range rec.Skills {
			if strings.EqualFold(s.Name, "unknown") {
				t.Errorf("a skill called %q", s.Name)
			}
		}
		t.Logf("questions %v; gaps resolved %d of %d; exit %+v", kinds, resolved, len(rec.Gaps), rec.Exit)
	})
}

// TestSystemDesignAdvancesByPhaseEvaluation: in the design stages the
// interviewer evaluates the phase after each answer, works on what is
// missing, and moves on when the evaluation says the phase is covered.
func TestSystemDesignAdvancesByPhaseEvaluation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c *Conductor
		c = interview(t, stages.SystemDesign(), nil, nil)
		p, err := stages.SystemDesign().FindProblem(c.rec.Snapshot().Problem)
		if err != nil {
			t.Fatal(err)
		}
		converse(t, c, phaseAnswer(stages.SystemDesign().WithProblem(p), &c), 20*time.Second, 60)
		rec := flushed(t, c)
		if len(rec.Phases) == 0 {
			t.Fatal("no phase evaluated")
		}
		advanced := map[string]bool{}
		for _, ph := range rec.Phases {
			if ph.Decision == interviews.PhaseAdvance {
				advanced[ph.ID] = true
				if ph.Score < 6 {
					t.Errorf("phase %+v advanced with a score under 6", ph)
				}
			}
		}
		byEval := 0
		for _, v := range rec.Stages {
			if strings.Contains(v.Reason, "phase evaluation") {
				byEval++
			}
		}
		if len(advanced) < 2 || byEval < 2 {
			t.Errorf("phases advanced %v, stages entered by an evaluation %d: want the design phases to move on by evaluation\n%+v", advanced, byEval, rec.Stages)
		}
	})
}

// TestKnowledgeCaptureEndsWithASummary: from a brief, the capture asks
// the brief's questions (kind brief, with priorities), ends when none is
// left open, and saves a summary by the brief's topics, labelled basic.
func TestKnowledgeCaptureEndsWithASummary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bp, err := stages.Builtin("knowledge-capture")
		if err != nil {
			t.Fatal(err)
		}
		brief := "# Billing handover\n## Nightly billing job\n- How the retry schedule was chosen\n- Who to call when it fails\n## Customer exports\n- The CSV format quirks\n"
		c := interview(t, bp, nil, func(r *interviews.Record) { r.Brief = brief })
		answer := func(q stages.Question) string {
			switch {
			case strings.Contains(strings.ToLower(q.Text), "retry"):
				return "We retry at 2am and 4am because the bank's batch window closes at 5am; that was decided after the 2022 outage."
			case strings.Contains(strings.ToLower(q.Text), "call") || strings.Contains(strings.ToLower(q.Text), "fail"):
				return "Call Priya from the payments team; she owns the bank connection and knows the runbook."
			case strings.Contains(strings.ToLower(q.Text), "csv"):
				return "The CSV export uses semicolons because the largest customer's ERP cannot read commas, and dates are in day-month order."
			}
			return "Yes, I can hear you, and I am ready to go through it all."
		}
		converse(t, c, answer, 30*time.Second, 30)
		rec := flushed(t, c)
		brief0 := 0
		for _, q := range rec.Questions {
			if q.Context.Kind == stages.KindBrief {
				brief0++
				if q.Context.Priority == "" {
					t.Errorf("brief question %+v has no priority", q)
				}
			}
		}
		if brief0 < 3 {
			t.Errorf("%d brief questions asked, want the brief's three", brief0)
		}
		if rec.Exit == nil || (rec.Exit.Reason != interviews.ExitBacklogComplete && rec.Exit.Reason != interviews.ExitRoundCap) {
			t.Fatalf("exit %+v, want the backlog complete or the round cap\nbacklog %+v", rec.Exit, rec.Backlog)
		}
		if rec.Summary == nil || !rec.Summary.Basic || rec.Summary.By != interviews.ByRules || len(rec.Summary.Topics) < 2 {
			t.Fatalf("summary %+v, want the basic summary by the brief's topics", rec.Summary)
		}
		var titles []string
		for _, tp := range rec.Summary.Topics {
			titles = append(titles, tp.Title)
		}
		if got := strings.Join(titles, "|"); !strings.Contains(got, "Nightly billing job") || !strings.Contains(got, "Customer exports") {
			t.Errorf("summary topics %q, want the brief's headings", got)
		}
		t.Logf("exit %+v; topics %q", rec.Exit, titles)
	})
}

// TestOfflineInterviewerNeverRepeatsItself: offline, every built-in
// blueprint runs to its end with answers that fit and with answers that
// say little (the scripted interviewer runs out of its own questions):
// no interviewer turn is said twice, no question is numbered or repeated,
// and every question speaks to the candidate, not about them.
func TestOfflineInterviewerNeverRepeatsItself(t *testing.T) {
	terse := func(stages.Question) string { return "Yes." }
	for _, name := range stages.BuiltinNames() {
		for _, tc := range []struct {
			how    string
			answer func(stages.Question) string
		}{{"fitting answers", fittingAnswer}, {"terse answers", terse}} {
			t.Run(name+"/"+tc.how, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					bp, err := stages.Builtin(name)
					if err != nil {
						t.Fatal(err)
					}
					c := interview(t, bp, nil, func(r *interviews.Record) {
						r.ResumeText = "Senior engineer. Go and PostgreSQL at Acme for six years."
						r.JobDescription = "Requirements:\n- Go\n- PostgreSQL"
						r.Brief = "The billing service and its nightly reconciliation job."
					})
					converse(t, c, tc.answer, 15*time.Second, 120)
					rec := flushed(t, c)
					said := map[string]bool{}
					for _, tr := range rec.Turns {
						if tr.Role != interviews.RoleAgent {
							continue
						}
						if said[tr.Text] {
							t.Errorf("said twice: %q", tr.Text)
						}
						said[tr.Text] = true
						if numbered.MatchString(tr.Text) {
							t.Errorf("a numbered filler: %q", tr.Text)
						}
					}
					asked := map[string]bool{}
					for _, q := range rec.Questions {
						if asked[q.Text] {
							t.Errorf("asked twice: %q", q.Text)
						}
						asked[q.Text] = true
						if thirdPerson.MatchString(q.Text) {
							t.Errorf("asked about the candidate, not to them: %q", q.Text)
						}
					}
				})
			})
		}
	}
}

var (
	numbered    = regexp.MustCompile(`\(\d+\)`)
	thirdPerson = regexp.MustCompile(`\b(they are|they were|their own|they have)\b`)
)
