package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// tableAnalyzer is an analysis engine for the guide's tests: it answers
// each answer text with the result the test gives, so a test states what
// analysis found and checks what the guide does with it. Unlisted answers
// are high-confidence with no fills. release, when set, holds every
// answer analysis until it is closed.
type tableAnalyzer struct {
	analysis.Rules
	results map[string]analysis.AnswerResult
	missing []string
	skills  []interviews.Skill
	release chan struct{}

	mu     sync.Mutex
	inputs []analysis.AnswerInput
}

func (a *tableAnalyzer) Answer(ctx context.Context, in analysis.AnswerInput) (analysis.AnswerResult, error) {
	a.mu.Lock()
	a.inputs = append(a.inputs, in)
	a.mu.Unlock()
	if a.release != nil {
		select {
		case <-a.release:
		case <-ctx.Done():
			return analysis.AnswerResult{}, ctx.Err()
		}
	}
	if r, ok := a.results[in.Answer]; ok {
		if r.By == "" {
			r.By = interviews.ByLLM
		}
		return r, nil
	}
	return analysis.AnswerResult{Confidence: interviews.ConfidenceHigh, By: interviews.ByLLM}, nil
}

func (a *tableAnalyzer) Skills(context.Context, string, string) ([]interviews.Skill, error) {
	return a.skills, nil
}

func (a *tableAnalyzer) Missing(context.Context, analysis.MissingInput) ([]string, error) {
	return a.missing, nil
}

func (a *tableAnalyzer) seen() []analysis.AnswerInput {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.inputs)
}

// rubricBlueprint is the default blueprint with two required rubric
// fields asked in the intro, which is guided.
func rubricBlueprint() *stages.Blueprint {
	bp := stages.Default()
	bp.Rubric = []stages.RubricField{
		{ID: "current_role", Label: "Current role", Required: true, Question: "What is your current role?", Stage: "intro"},
		{ID: "years_experience", Label: "Years of experience", Required: true, Question: "How many years have you worked in the field?", Stage: "intro"},
	}
	for i := range bp.Stages {
		bp.Stages[i].Guided = bp.Stages[i].Name == "intro" || bp.Stages[i].Name == "experience"
		if bp.Stages[i].Name == "intro" {
			bp.Stages[i].Questions = nil
		}
		for j := range bp.Stages[i].Questions {
			bp.Stages[i].Questions[j].Context.Targets = stages.Targets{}
		}
	}
	return bp
}

// introOnly makes the intro the one guided stage, so it is the main one.
func introOnly(bp *stages.Blueprint) *stages.Blueprint {
	for i := range bp.Stages {
		bp.Stages[i].Guided = bp.Stages[i].Name == "intro"
	}
	return bp
}

// guidedInterview wires an interview on bp with the scripted interviewer
// and the analyser an, with the résumé text given.
func guidedInterview(t *testing.T, bp *stages.Blueprint, an analysis.Analyzer, resume string) (*Conductor, interviews.Store) {
	t.Helper()
	setup, store := testSetup(t, 1, scriptedLLM)
	setup.Blueprint, setup.Analyzer = bp, an
	setup.Record.ResumeText = resume
	c, err := NewInterview(setup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft) })
	return c, store
}

// answer gives the candidate's answer, delivers the reply whole and waits
// for the analyses it started, as the next turn would find them.
func answer(t *testing.T, c *Conductor, text string) string {
	t.Helper()
	reply := deliver(t, c.Respond(t.Context(), CandidateTurn{Text: text}))
	c.guide.wg.Wait()
	return reply
}

// lastQuestion is the last question spoken.
func lastQuestion(t *testing.T, m *fsm.Machine) stages.Question {
	t.Helper()
	qs := m.Questions()
	for i := len(qs) - 1; i >= 0; i-- {
		if qs[i].Spoken() {
			return qs[i]
		}
	}
	t.Fatal("no question spoken")
	return stages.Question{}
}

// TestGuideAsksRubricAndExitsWhenCovered: a guided stage asks for the
// open rubric fields; each answer's analysis covers its field with the
// candidate's words; once every required field is covered the next reply
// closes the interview, and the record says why.
func TestGuideAsksRubricAndExitsWhenCovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{results: map[string]analysis.AnswerResult{
			"I lead the payments team at Acme.": {Confidence: interviews.ConfidenceHigh,
				Fills: []analysis.Fill{{Field: "current_role", Value: "payments team lead at Acme", Evidence: "I lead the payments team at Acme."}}},
			"About nine years now.": {Confidence: interviews.ConfidenceHigh,
				Fills: []analysis.Fill{{Field: "years_experience", Value: "nine years", Evidence: "About nine years now."}}},
		}}
		c, _ := guidedInterview(t, rubricBlueprint(), an, "")
		deliver(t, c.Greet(t.Context()))
		// The greeting's gate is open once its question is answered; the
		// intro is guided and its first question asks for a rubric field.
		answer(t, c, "Yes, I can hear you and I'm ready.")
		q := lastQuestion(t, c.Machine())
		if q.Context.Kind != stages.KindRubric || q.Context.Targets.Field != "current_role" {
			t.Fatalf("first intro question %q has context %+v, want the rubric field current_role", q.Text, q.Context)
		}
		answer(t, c, "I lead the payments team at Acme.")
		q = lastQuestion(t, c.Machine())
		if q.Context.Targets.Field != "years_experience" {
			t.Fatalf("second intro question %q has context %+v, want years_experience", q.Text, q.Context)
		}
		answer(t, c, "About nine years now.")
		// The analysis of the last answer ran beside the reply, which
		// asked one more question; the exit is taken at the next answer.
		time.Sleep(time.Minute) // the intro's own minimum time still holds
		// The exit waits for the stage the candidate was told of (their
		// experience), then is taken once its own minimums are met.
		var reply string
		for range 8 {
			if c.Machine().Stage() == "closing" {
				break
			}
			reply = answer(t, c, "Happy to go on.")
			time.Sleep(time.Minute)
		}
		trs := c.Machine().Transitions()
		if len(trs) < 2 || trs[len(trs)-2].To != "experience" || trs[len(trs)-1].To != "closing" || trs[len(trs)-1].Reason != "exit: "+interviews.ExitAssessment {
			t.Fatalf("transitions %+v after the rubric was covered, want the experience stage, then a move to the closing by the exit (reply %q)", trs, reply)
		}
		// The closing invites the candidate's own questions; the goodbye
		// after their answer ends the interview.
		if !strings.HasSuffix(reply, "?") {
			t.Fatalf("closing %q does not invite the candidate's questions", reply)
		}
		reply = answer(t, c, "No, that's all from me, thank you.")
		select {
		case <-c.Ended():
		default:
			t.Fatalf("the closing %q was delivered but the interview did not end", reply)
		}
		rec := flushed(t, c)
		if rec.Exit == nil || rec.Exit.Reason != interviews.ExitAssessment || rec.Exit.Coverage != 1 {
			t.Fatalf("exit %+v, want the model's assessment with full coverage", rec.Exit)
		}
		for _, it := range rec.Rubric {
			if it.Status != interviews.StatusCovered || it.Evidence == "" || len(it.QuestionIDs) == 0 {
				t.Errorf("rubric field %+v, want covered with evidence and its question", it)
			}
		}
		// The analyser was told which field each answer was for.
		var fields []string
		for _, in := range an.seen() {
			fields = append(fields, in.Question.Context.Targets.Field)
		}
		if !slices.Contains(fields, "current_role") || !slices.Contains(fields, "years_experience") {
			t.Errorf("analysis inputs targeted %q, want both fields", fields)
		}
	})
}

// TestGuideExitWaitsForAssessment: with a model, coverage alone does not
// end the interview while the assessment says something is missing.
func TestGuideExitWaitsForAssessment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{missing: []string{"why this role"}}
		bp := rubricBlueprint()
		for i := range bp.Stages {
			bp.Stages[i].MinQuestions, bp.Stages[i].MinTime = 0, 0 // the gates are not what this test is about
		}
		c, _ := guidedInterview(t, bp, an, "")
		deliver(t, c.Greet(t.Context()))
		_ = c.rec.Update(func(r *interviews.Record) {
			for i := range r.Rubric {
				r.Rubric[i].Status = interviews.StatusCovered
			}
		})
		answer(t, c, "Anything else?")
		if c.guide.takeExit() {
			t.Fatal("the interview closed although the assessment found something missing")
		}
		an.missing = nil
		answer(t, c, "Still here.")
		if !c.guide.takeExit() {
			t.Fatalf("the interview did not close once the assessment found nothing missing (stage %s, gate %v, exit %+v)", c.Machine().Stage(), c.Machine().Gate(), c.guide.exit)
		}
	})
}

// TestGuideExitTable checks the exit order on records in given states.
func TestGuideExitTable(t *testing.T) {
	covered := func(n, of int, unknown int) []interviews.RubricItem {
		var out []interviews.RubricItem
		for i := range of {
			st := interviews.StatusOpen
			switch {
			case i < n:
				st = interviews.StatusCovered
			case i < n+unknown:
				st = interviews.StatusUnknown
			}
			out = append(out, interviews.RubricItem{ID: string(rune('a' + i)), Required: true, Status: st})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		rubric   []interviews.RubricItem
		turns    int
		maxTurns int
		missing  []string
		rules    bool
		want     string
		coverage float64
	}{
		{name: "below threshold continues", rubric: covered(1, 2, 0), turns: 40, want: ""},
		{name: "unknown stops blocking", rubric: covered(1, 2, 1), turns: 3, rules: true, want: interviews.ExitRubricComplete, coverage: 0.5},
		{name: "covered, offline", rubric: covered(2, 2, 0), turns: 3, rules: true, want: interviews.ExitRubricComplete, coverage: 1},
		{name: "covered, max turns", rubric: covered(2, 2, 0), turns: 5, maxTurns: 5, want: interviews.ExitMaxTurns, coverage: 1},
		{name: "covered, model finds nothing missing", rubric: covered(2, 2, 0), turns: 3, want: interviews.ExitAssessment, coverage: 1},
		{name: "covered, model wants more", rubric: covered(2, 2, 0), turns: 3, missing: []string{"impact"}, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bp := rubricBlueprint()
			bp.Exit.MaxTurns = tc.maxTurns
			var an analysis.Analyzer = &tableAnalyzer{missing: tc.missing}
			if tc.rules {
				an = analysis.Rules{}
			}
			c, _ := guidedInterview(t, bp, an, "")
			c.guide.prepare(t.Context())
			c.Machine().Start()
			_ = c.rec.Update(func(r *interviews.Record) {
				r.Rubric = tc.rubric
				for range tc.turns {
					r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: "x"})
				}
			})
			c.guide.checkExit()
			got := ""
			if c.guide.exit != nil {
				got = c.guide.exit.Reason
				if c.guide.exit.Coverage != tc.coverage || c.guide.exit.Turns != tc.turns {
					t.Errorf("exit %+v, want coverage %v turns %d", c.guide.exit, tc.coverage, tc.turns)
				}
			}
			if got != tc.want {
				t.Errorf("exit %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGuideProbesGapsUntilResolvedOrUnknown: the résumé's skill attributes
// nobody stated are gaps; a probe whose answer gives the value resolves
// its gap, and a gap probed as often as allowed without one becomes
// unknown and is not asked again.
func TestGuideProbesGapsUntilResolvedOrUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{
			skills: []interviews.Skill{{Name: "Python", Sources: []string{"resume", "job_required"}, Depth: "built the billing system"}},
			results: map[string]analysis.AnswerResult{
				"3 years": {Confidence: interviews.ConfidenceHigh,
					Fills: []analysis.Fill{{Skill: "Python", Attribute: "duration", Value: "3 years", Evidence: "3 years"}}},
				"Hmm, hard to say.": {Confidence: interviews.ConfidenceLow},
			},
		}
		bp := introOnly(rubricBlueprint())
		bp.Rubric = nil
		c, _ := guidedInterview(t, bp, an, "Python developer")
		deliver(t, c.Greet(t.Context()))
		c.guide.wg.Wait()
		rec := flushed(t, c)
		if len(rec.Gaps) != len(stages.SkillAttributes)-1 {
			t.Fatalf("gaps %+v, want every attribute but the depth the résumé gave", rec.Gaps)
		}
		reply := answer(t, c, "Ready.")
		q := lastQuestion(t, c.Machine())
		if q.Context.Kind != stages.KindGap || (q.Context.Targets.Skill != "Python" || q.Context.Targets.Attribute != "duration") || q.Context.Priority != stages.P0 {
			t.Fatalf("first guided question %q (%+v), want the P0 Python duration gap (reply %q)", q.Text, q.Context, reply)
		}
		answer(t, c, "3 years")
		rec = flushed(t, c)
		if py := skillByName(rec, "Python"); py == nil || py.Duration != "3 years" || py.By != interviews.ByLLM {
			t.Fatalf("skill %+v, want Python's duration 3 years by llm", py)
		}
		if g := rec.Gaps[0]; g.Status != interviews.StatusResolved || g.Probes != 1 || len(g.QuestionIDs) != 1 {
			t.Fatalf("gap %+v, want resolved after one probe", g)
		}
		// The next gap is probed twice (the second time in other words)
		// without an answer, and then left unknown.
		next := lastQuestion(t, c.Machine())
		attr := next.Context.Targets.Attribute
		if next.Context.Kind != stages.KindGap || attr == "duration" {
			t.Fatalf("question after the duration %q (%+v), want the next gap", next.Text, next.Context)
		}
		answer(t, c, "Hmm, hard to say.")
		answer(t, c, "Sure.") // another gap was asked meanwhile: never the same one twice in a row
		again := lastQuestion(t, c.Machine())
		if again.Context.Targets.Attribute != attr || again.Text == next.Text {
			t.Fatalf("second probe %q (%+v), want %s asked in other words", again.Text, again.Context, attr)
		}
		answer(t, c, "Hmm, hard to say.")
		rec = flushed(t, c)
		for _, g := range rec.Gaps {
			if g.Attribute == attr {
				if g.Status != interviews.StatusUnknown || g.Probes != stages.DefaultGapProbes {
					t.Errorf("gap %+v, want unknown after %d probes", g, stages.DefaultGapProbes)
				}
			}
		}
		n := 0
		for _, q := range c.Machine().Questions() {
			if q.Context.Targets.Attribute == attr && q.Context.Kind == stages.KindGap {
				n++
			}
		}
		if n != stages.DefaultGapProbes {
			t.Errorf("the %s gap was probed %d times, want %d", attr, n, stages.DefaultGapProbes)
		}
	})
}

// TestGuideFollowsUpWeakAnswersOnce: a medium-confidence answer queues one
// follow-up, asked next, that carries the first question's targets; its
// own weak answer queues none; a discovered decision enters the backlog.
func TestGuideFollowsUpWeakAnswersOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{results: map[string]analysis.AnswerResult{
			"It went fine.": {Confidence: interviews.ConfidenceMedium, FollowUp: "What would you say was the result, in numbers?"},
			"Pretty good.": {Confidence: interviews.ConfidenceLow, FollowUp: "Can you give me one concrete example?",
				Discovered: []analysis.Discovered{{Text: "Why did you decide to rewrite the queue?", Priority: stages.P0, About: "the queue rewrite"}}},
		}}
		bp := introOnly(stages.Default())
		bp.Rubric = nil
		for i := range bp.Stages {
			for j := range bp.Stages[i].Questions {
				bp.Stages[i].Questions[j].Context.Targets = stages.Targets{}
			}
		}
		c, _ := guidedInterview(t, bp, an, "")
		deliver(t, c.Greet(t.Context()))
		answer(t, c, "Ready.")
		first := lastQuestion(t, c.Machine())
		answer(t, c, "It went fine.")
		// The follow-up was queued beside the reply; it is asked at the
		// next guided question (or at once, when the analysis finished
		// before the reply chose its question).
		fu := lastQuestion(t, c.Machine())
		if fu.Context.Kind != stages.KindFollowUp {
			answer(t, c, "Good question.")
			fu = lastQuestion(t, c.Machine())
		}
		if fu.Context.Kind != stages.KindFollowUp || fu.Context.FollowsUp != first.ID || fu.Context.Targets.Field != first.Context.Targets.Field {
			t.Fatalf("question after the weak answer %q (%+v), want a follow-up of %s with its targets", fu.Text, fu.Context, first.ID)
		}
		answer(t, c, "Pretty good.")
		rec := flushed(t, c)
		var follow, discovered int
		for _, b := range rec.Backlog {
			switch b.Origin {
			case interviews.OriginFollowUp:
				follow++
			case interviews.OriginDiscovered:
				discovered++
				if b.Priority != stages.P0 || b.Status != interviews.StatusOpen && b.Status != interviews.StatusAsked {
					t.Errorf("discovered item %+v", b)
				}
			}
		}
		if follow != 1 || discovered != 1 {
			t.Errorf("backlog %+v: want one follow-up (the cap) and one discovered question", rec.Backlog)
		}
		// The model may not follow the first question up a second time.
		res := tooling{c}.call(llm.ToolCall{ID: "c1", Name: string(stages.ToolAskQuestion), Arguments: `{"question":"And what else happened there?","follows_up":"` + first.ID + `"}`}, new([]string))
		if !strings.Contains(res.Error, "already been followed up") {
			t.Errorf("a second follow-up was allowed: %+v", res)
		}
	})
}

// TestAnalysisRunsBesideTheReply: the reply to an answer is generated and
// delivered while that answer's analysis is still running; nothing waits
// for it.
func TestAnalysisRunsBesideTheReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{release: make(chan struct{})}
		c, _ := guidedInterview(t, rubricBlueprint(), an, "")
		deliver(t, c.Greet(t.Context()))
		reply := deliver(t, c.Respond(t.Context(), CandidateTurn{Text: "Yes, ready."}))
		if reply == "" {
			t.Fatal("no reply")
		}
		synctest.Wait()
		if n := len(an.seen()); n != 1 {
			t.Fatalf("%d analyses started, want 1", n)
		}
		if rec := flushed(t, c); len(rec.Answers) != 0 {
			t.Fatalf("the answer was analysed before the reply: %+v", rec.Answers)
		}
		close(an.release)
		c.guide.wg.Wait()
		if rec := flushed(t, c); len(rec.Answers) != 1 {
			t.Fatalf("answers %+v, want the analysis recorded once it finished", rec.Answers)
		}
	})
}

// TestModelSeesWhatIsKnownAndAsksByRef: with a model, a guided stage's
// system prompt says what is known, what is missing and what to ask next
// with its ref; a question asked with that ref carries the guide's context
// whatever the model says it is for.
func TestModelSeesWhatIsKnownAndAsksByRef(t *testing.T) {
	fake := fakeopenai.New()
	defer fake.Close()
	client, err := openai.New(openai.Options{APIKey: fakeopenai.Key, BaseURL: fake.URL, Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	fake.ScriptChat(
		fakeopenai.Reply{Text: "Hello Ada! Can you hear me?"},
		fakeopenai.Reply{Text: "Great.", ToolCalls: []fakeopenai.ToolCall{
			{Name: string(stages.ToolAskQuestion), Arguments: `{"question":"So, what do you do today?","ref":"rubric:current_role","purpose":"small talk"}`},
		}},
	)
	an := &tableAnalyzer{skills: []interviews.Skill{{Name: "Go", Sources: []string{"job_required"}, Duration: "6 years"}}}
	setup, _ := testSetup(t, 1, func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return client })
	setup.Blueprint, setup.Analyzer = rubricBlueprint(), an
	setup.Record.JobDescription = "Requirements: Go"
	c, err := NewInterview(setup)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
	deliver(t, c.Greet(t.Context()))
	c.guide.wg.Wait()
	if _, err := c.Machine().Force("intro", "test"); err != nil {
		t.Fatal(err)
	}
	deliver(t, c.Respond(t.Context(), CandidateTurn{Text: "Loud and clear."}))
	reqs := fake.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	sys := reqs[1].Messages[0].Content
	for _, want := range []string{"What you know so far:", "Go — duration 6 years", "Still missing: Current role; Years of experience",
		`Ask next, in your own words to fit the conversation: "What is your current role?" (a rubric field still open: current_role). Call ask_question with ref "rubric:current_role"`} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	q := lastQuestion(t, c.Machine())
	if q.Context.Kind != stages.KindRubric || q.Context.Targets.Field != "current_role" || q.Context.Note != "small talk" {
		t.Errorf("question context %+v, want the rubric field from the ref", q.Context)
	}
}

// TestDeclinedRubricFieldBecomesUnknown: a candidate who will not give a
// rubric field after it was asked leaves it unknown, with the question
// that asked it; it no longer blocks, and is not asked again.
func TestDeclinedRubricFieldBecomesUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{results: map[string]analysis.AnswerResult{
			"I'd rather not say.": {Confidence: interviews.ConfidenceLow, Declined: true},
		}}
		c, _ := guidedInterview(t, rubricBlueprint(), an, "")
		deliver(t, c.Greet(t.Context()))
		answer(t, c, "Yes, I'm ready.")
		q := lastQuestion(t, c.Machine())
		if q.Context.Targets.Field != "current_role" {
			t.Fatalf("first intro question %+v, want current_role", q.Context)
		}
		answer(t, c, "I'd rather not say.")
		rec := flushed(t, c)
		it, _ := rubricItem(rec, "current_role")
		if it.Status != interviews.StatusUnknown || len(it.QuestionIDs) != 1 || it.QuestionIDs[0] != q.ID {
			t.Fatalf("rubric field %+v, want unknown after the declined ask %s", it, q.ID)
		}
		answer(t, c, "Sure.")
		for _, q2 := range c.Machine().Questions() {
			if q2.ID != q.ID && q2.Context.Targets.Field == "current_role" {
				t.Errorf("current_role asked again after it became unknown: %q", q2.Text)
			}
		}
	})
}

// TestModelsOwnQuestionCountsAsAProbe: a question the model asks in its own
// words, without a ref, still probes what it is about: the open gap of the
// skill it names and the attribute it asks for, or the rubric field it
// targets; the guide then suggests it no more.
func TestModelsOwnQuestionCountsAsAProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{skills: []interviews.Skill{
			{Name: "Kafka", Sources: []string{"job_required"}}, {Name: "Go", Sources: []string{"job_required"}}}}
		c, _ := guidedInterview(t, rubricBlueprint(), an, "Kafka and Go.")
		deliver(t, c.Greet(t.Context()))
		c.guide.wg.Wait()
		if _, err := c.Machine().Force("experience", "test"); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			question, targets string
			want              stages.Targets
		}{
			{"How big was the Kafka setup you ran, in messages a day?", "", stages.Targets{Skill: "Kafka", Attribute: "scale"}},
			{"And for how many years have you written it?", "Go", stages.Targets{Skill: "Go", Attribute: "duration"}},
			{"So what do you do these days?", "current role", stages.Targets{Field: "current_role"}},
		} {
			var asked []string
			args := fmt.Sprintf(`{"question":%q,"targets":%q}`, tc.question, tc.targets)
			res := tooling{c}.call(llm.ToolCall{ID: "x", Name: string(stages.ToolAskQuestion), Arguments: args}, &asked)
			q, ok := questionByID(c.Machine().Questions(), res.QuestionID)
			if !res.OK || !ok || q.Context.Targets.Skill != tc.want.Skill || q.Context.Targets.Attribute != tc.want.Attribute || q.Context.Targets.Field != tc.want.Field {
				t.Errorf("%q (targets %q) → %+v, context %+v; want targets %+v", tc.question, tc.targets, res, q.Context, tc.want)
			}
		}
	})
}

// TestStrongerEvidenceReplacesWeaker: a rubric field filled from a vague
// answer is replaced by a later, more confident answer, with its words as
// the evidence; a less confident later mention leaves it as it was.
func TestStrongerEvidenceReplacesWeaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{results: map[string]analysis.AnswerResult{
			"Oh, you know, computers and things.": {Confidence: interviews.ConfidenceLow,
				Fills: []analysis.Fill{{Field: "current_role", Value: "something with computers", Evidence: "computers and things"}}},
			"Eight years. I lead the payments platform team at Acme.": {Confidence: interviews.ConfidenceHigh,
				Fills: []analysis.Fill{{Field: "years_experience", Value: "8 years", Evidence: "Eight years."},
					{Field: "current_role", Value: "payments platform lead at Acme", Evidence: "I lead the payments platform team at Acme."}}},
			"I sometimes code.": {Confidence: interviews.ConfidenceLow,
				Fills: []analysis.Fill{{Field: "current_role", Value: "codes sometimes", Evidence: "I sometimes code."}}},
		}}
		c, _ := guidedInterview(t, rubricBlueprint(), an, "")
		deliver(t, c.Greet(t.Context()))
		answer(t, c, "Yes, I can hear you and I'm ready.")
		answer(t, c, "Oh, you know, computers and things.")
		answer(t, c, "Eight years. I lead the payments platform team at Acme.")
		answer(t, c, "I sometimes code.")
		rec := flushed(t, c)
		it, _ := rubricItem(rec, "current_role")
		if it.Value != "payments platform lead at Acme" || it.Evidence != "I lead the payments platform team at Acme." || it.Confidence != interviews.ConfidenceHigh.Score() {
			t.Errorf("current_role %+v, want the confident later answer", it)
		}
	})
}

// TestInterviewLengthIsAHardCap: exit_conditions.max_turns closes the
// interview at that many answers whatever is still open, through the
// closing; with graceful_closing false the closing is a goodbye that asks
// nothing and ends the interview.
func TestInterviewLengthIsAHardCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bp := rubricBlueprint()
		graceful := false
		bp.Exit.MaxTurns, bp.Exit.GracefulClosing = 3, &graceful
		c, _ := guidedInterview(t, bp, &tableAnalyzer{}, "")
		deliver(t, c.Greet(t.Context()))
		answer(t, c, "Yes, I can hear you.")
		answer(t, c, "I'd rather keep this short.")
		reply := answer(t, c, "Still here.")
		if st := c.Machine().Stage(); st != "closing" && st != stages.Done {
			t.Fatalf("stage %s after 3 answers, want the closing", st)
		}
		select {
		case <-c.Ended():
		default:
			t.Fatalf("the closing %q did not end the interview", reply)
		}
		if strings.HasSuffix(reply, "?") {
			t.Errorf("closing %q asks something, want a goodbye", reply)
		}
		// The stage promised and never entered is not closed silently.
		if want := "We've covered what we needed, so we'll skip the remaining part on your experience."; !strings.Contains(reply, want) {
			t.Errorf("closing %q does not say %q", reply, want)
		}
		rec := flushed(t, c)
		if rec.Exit == nil || rec.Exit.Reason != interviews.ExitMaxTurns || rec.Exit.Coverage == 1 {
			t.Errorf("exit %+v, want max_turns with what is open counted", rec.Exit)
		}
	})
}

// TestSecondAskIsSaidToTheCandidate: a rubric field asked again is asked
// in the second person.
func TestSecondAskIsSaidToTheCandidate(t *testing.T) {
	got := rubricQuestion(stages.RubricField{Label: "A project they are proud of", Question: "Which project are you proudest of?"}, 1)
	if want := "I'd still like to hear a little more about a project you are proud of. Could you tell me in a sentence or two?"; got != want {
		t.Errorf("second ask %q, want %q", got, want)
	}
	if got := rubricQuestion(stages.RubricField{Label: "Years of experience"}, 1); !strings.Contains(got, "your years of experience") {
		t.Errorf("second ask %q", got)
	}
}

// TestPromptCarriesTheContextThatMatters: the template's expected answer
// and its "Skip if" reach the model with the suggestion; a knowledge
// capture's interviewer reads the brief; questions whose turns fell out of
// the history window are still listed, so they are not asked again.
func TestPromptCarriesTheContextThatMatters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tpl, err := stages.BuiltinTemplate("fullstack-senior")
		if err != nil {
			t.Fatal(err)
		}
		setup, _ := testSetup(t, 1, scriptedLLM)
		setup.Blueprint, setup.Template = rubricBlueprint(), tpl
		c, err := NewInterview(setup)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
		c.maxHist = 4
		deliver(t, c.Greet(t.Context()))
		for _, a := range answers[:4] {
			answer(t, c, a)
		}
		if _, err := c.Machine().Force("experience", "test"); err != nil {
			t.Fatal(err)
		}
		sys := c.prompt("")[0].Content
		for _, want := range []string{"A good answer to it covers: ", "Earlier in this interview, no longer shown below, you asked: "} {
			if !strings.Contains(sys, want) {
				t.Errorf("system prompt lacks %q:\n%s", want, sys)
			}
		}

		kc, err := stages.Builtin(stages.KnowledgeCaptureName)
		if err != nil {
			t.Fatal(err)
		}
		setup, _ = testSetup(t, 1, scriptedLLM)
		setup.Blueprint = kc
		setup.Record.Brief = "Hand over the billing service: the nightly reconciliation job and who to call when it fails."
		c2, err := NewInterview(setup)
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
		c2.Machine().Start()
		if sys := c2.prompt("")[0].Content; !strings.Contains(sys, setup.Record.Brief) {
			t.Errorf("the capture's prompt lacks the brief:\n%s", sys)
		}
	})
}

// TestSkillTheyLackIsAbsent: a skill the candidate says they have not
// used is recorded as absent, with their words, never with confidence;
// its open gaps are settled and no longer asked.
func TestSkillTheyLackIsAbsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := &tableAnalyzer{
			skills: []interviews.Skill{{Name: "Rust", Sources: []string{"job_preferred"}}},
			results: map[string]analysis.AnswerResult{
				"I haven't used Rust, to be honest.": {Confidence: interviews.ConfidenceHigh, Absent: []string{"Rust"}},
			}}
		c, _ := guidedInterview(t, rubricBlueprint(), an, "Rust")
		deliver(t, c.Greet(t.Context()))
		answer(t, c, "I haven't used Rust, to be honest.")
		rec := flushed(t, c)
		sk := skillByName(rec, "Rust")
		if sk == nil || !sk.Absent || sk.Confidence != 0 || !slices.Contains(sk.Evidence, "I haven't used Rust, to be honest.") {
			t.Errorf("skill %+v, want absent with the candidate's words", sk)
		}
		for _, gp := range rec.Gaps {
			if gp.Skill == "Rust" && gp.Status == interviews.StatusOpen {
				t.Errorf("gap %+v still open", gp)
			}
		}
	})
}
