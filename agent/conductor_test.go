package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/agent/tool"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// testSetup is an interview on the default blueprint with the given model,
// its record created in a temporary store.
func testSetup(t *testing.T, scale float64, newLLM func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client) (Setup, interviews.Store) {
	t.Helper()
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}}
	if err := store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return Setup{Blueprint: stages.Default(), Record: rec, Store: store, TimeScale: scale, Models: Models{NewLLM: newLLM}}, store
}

// newTestInterview wires an interview on the default blueprint, saved in a
// temporary store, with the given model.
func newTestInterview(t *testing.T, scale float64, newLLM func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client) (*Conductor, interviews.Store) {
	t.Helper()
	setup, store := testSetup(t, scale, newLLM)
	c, err := NewInterview(setup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Recorder().Close(); err != nil {
			t.Errorf("saving the record: %v", err)
		}
	})
	return c, store
}

// flushed waits until everything the conductor recorded is saved and
// returns the record as it stands.
func flushed(t *testing.T, c *Conductor) *interviews.Record {
	t.Helper()
	if err := c.Recorder().Flush(); err != nil {
		t.Fatalf("saving the record: %v", err)
	}
	return c.Recorder().Snapshot()
}

func scriptedLLM(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
	return scripted.New(m, bp, p)
}

// deliver drains a reply as a transport would and reports it delivered whole.
func deliver(t testing.TB, r *Reply) string {
	t.Helper()
	for range r.Deltas() {
	}
	text, err := r.Wait()
	if err != nil {
		t.Fatalf("turn failed: %v", err)
	}
	r.Delivered(Delivery{Text: text})
	return text
}

var answers = []string{
	"I'm doing well, thank you, and I'm ready to start.",
	"I'm a backend engineer with eight years of experience building payment systems in Go and Java.",
	"What excites me most is designing reliable distributed systems that scale to millions of users.",
	"I moved from a monolith team to a platform team two years ago, where I own our Kafka pipelines.",
	"At my last job I led the migration of our ledger service to a sharded Postgres cluster with zero downtime.",
	"The hardest bug was a race condition in our retry logic that double charged customers; we found it with tracing.",
	"I mentor two junior engineers and run our weekly design review.",
	"When we disagreed about the queue design, I wrote a short doc comparing options and we chose with data.",
	"I measure success by error budgets, latency percentiles and how quickly we can ship safely.",
	"Recently I learned Rust to write a small high-performance proxy for our edge.",
	"My biggest mistake was shipping a schema change without a backfill plan; now I always stage migrations.",
	"I prefer small teams with clear ownership and written decisions.",
	"I'd like to grow toward a staff role, leading cross-team architecture.",
	"No more questions from me, thank you.",
	"Thanks again.",
}

// TestScriptedInterviewCompletes runs a whole interview with the offline
// interviewer in virtual time: every stage is entered in order, each meets
// its minimum of spoken questions, and it ends completed by state when the
// closing utterance is delivered.
func TestScriptedInterviewCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, store := newTestInterview(t, 0.05, scriptedLLM)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go c.RunTimer(ctx, nil)
		greeting := deliver(t, c.Greet(ctx))
		if !strings.Contains(greeting, "Ada") {
			t.Errorf("greeting %q does not address the candidate", greeting)
		}
		for _, a := range answers {
			select {
			case <-c.Ended():
			default:
				time.Sleep(500 * time.Millisecond)
				deliver(t, c.Respond(ctx, CandidateTurn{Text: a, Source: "text"}))
				continue
			}
			break
		}
		select {
		case <-c.Ended():
		default:
			t.Fatalf("interview did not end; stage %s", c.Machine().Stage())
		}
		rec, err := store.Get(ctx, flushed(t, c).ID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != interviews.StatusCompleted || rec.EndedBy != interviews.EndedClosingDelivered {
			t.Errorf("status %s ended by %s, want completed by closing_delivered", rec.Status, rec.EndedBy)
		}
		var order []string
		for _, v := range rec.Stages {
			order = append(order, v.Name)
			if v.Forced {
				t.Errorf("stage %s was forced; the answers should have met every gate in time", v.Name)
			}
		}
		if got, want := strings.Join(order, ","), "greeting,intro,experience,closing"; got != want {
			t.Errorf("stages %s, want %s", got, want)
		}
		spoken := map[string]int{}
		for _, q := range rec.Questions {
			if q.Spoken() {
				spoken[q.Stage]++
			}
		}
		for _, st := range stages.Default().Stages {
			if spoken[st.Name] < st.MinQuestions {
				t.Errorf("stage %s: %d questions spoken, minimum %d", st.Name, spoken[st.Name], st.MinQuestions)
			}
		}
		if len(rec.Assessments) == 0 {
			t.Error("no assessments recorded")
		}
		// One merged, ordered list: agent and candidate alternate, seq increases.
		for i, turn := range rec.Turns {
			if turn.Seq != i+1 {
				t.Fatalf("turn %d has seq %d", i, turn.Seq)
			}
			if i > 0 && turn.Role == rec.Turns[i-1].Role {
				t.Errorf("turns %d and %d are both %s", i, i+1, turn.Role)
			}
		}
		if last := rec.Turns[len(rec.Turns)-1]; last.Role != interviews.RoleAgent || last.Stage != "closing" {
			t.Errorf("last turn %+v, want the agent's closing", last)
		}
		// Each stage's acknowledgement is said exactly once.
		bp := stages.Default()
		for _, st := range []string{"intro", "experience", "closing"} {
			ack := bp.AcknowledgementFor(st, stages.Profile{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"})
			n := 0
			for _, turn := range rec.Turns {
				n += strings.Count(turn.Text, ack)
			}
			if n != 1 {
				t.Errorf("acknowledgement for %s said %d times, want once", st, n)
			}
		}
	})
}

// TestDeadlineForcesAndAcknowledgesOnce leaves the candidate silent: the
// fallback timer forces every stage on, each acknowledgement is delivered
// once through Interject, and the last deadline ends the interview.
func TestDeadlineForcesAndAcknowledgesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, store := newTestInterview(t, 0.1, scriptedLLM)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		forced := make(chan fsm.Transition, 8)
		go c.RunTimer(ctx, func(tr fsm.Transition) { forced <- tr })
		deliver(t, c.Greet(ctx))
		var seen []string
	loop:
		for {
			select {
			case tr := <-forced:
				seen = append(seen, tr.To)
				if !tr.Forced || tr.Reason != "deadline" {
					t.Errorf("transition %+v is not a forced deadline transition", tr)
				}
				if c.Machine().Done() {
					continue
				}
				r, ok := c.Interject(ctx)
				if !ok {
					t.Fatalf("no acknowledgement pending after forced move to %s", tr.To)
				}
				text := deliver(t, r)
				ack := stages.Default().AcknowledgementFor(tr.To, stages.Profile{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"})
				if !strings.Contains(text, ack) {
					t.Errorf("interjection %q does not acknowledge the move", text)
				}
				if _, again := c.Interject(ctx); again {
					t.Errorf("acknowledgement for %s offered twice", tr.To)
				}
			case <-c.Ended():
				break loop
			}
		}
		if got := strings.Join(seen, ","); !strings.HasPrefix(got, "intro,experience,closing") {
			t.Errorf("forced transitions %s", got)
		}
		rec, _ := store.Get(ctx, flushed(t, c).ID)
		if rec.Status != interviews.StatusCompleted {
			t.Errorf("status %s, want completed", rec.Status)
		}
		for _, v := range rec.Stages[1:] {
			if !v.Forced {
				t.Errorf("stage %s not marked forced", v.Name)
			}
		}
	})
}

// TestToolLoopWithOpenAI drives the conductor through the real OpenAI
// client against the local fake: a question asked with ask_question is
// said after the model's text in the same call; two parallel tool calls
// streamed in fragments that move the stage on have their results sent
// back, and the next call speaks in the new stage.
func TestToolLoopWithOpenAI(t *testing.T) {
	fake := fakeopenai.New()
	defer fake.Close()
	client, err := openai.New(openai.Options{APIKey: fakeopenai.Key, BaseURL: fake.URL, Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	q := "How did you get started in backend engineering?"
	fake.ScriptChat(
		fakeopenai.Reply{Text: "Hello Ada, welcome!", ToolCalls: []fakeopenai.ToolCall{
			{Name: string(stages.ToolAskQuestion), Arguments: `{"question":"How are you today?","ref":"greeting-1"}`},
		}, Chunk: 3},
		fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
			{Name: string(stages.ToolAssessResponse), Arguments: `{"depth_score":2,"key_points":["doing well"]}`},
			{Name: string(stages.ToolTransitionStage), Arguments: `{"reason":"greeting done"}`},
		}, Chunk: 2},
		fakeopenai.Reply{Text: "Great, thank you.", ToolCalls: []fakeopenai.ToolCall{
			{Name: string(stages.ToolAskQuestion), Arguments: `{"question":"` + q + `"}`},
		}, Chunk: 4},
	)
	c, store := newTestInterview(t, 1, func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return client })
	ctx := t.Context()
	if got := deliver(t, c.Greet(ctx)); got != "Hello Ada, welcome! How are you today?" {
		t.Fatalf("greeting %q", got)
	}
	got := deliver(t, c.Respond(ctx, CandidateTurn{Text: "Very well, thanks.", Source: "voice", STTConfidence: 0.87}))
	if got != "Great, thank you. "+q {
		t.Fatalf("reply %q", got)
	}
	if st := c.Machine().Stage(); st != "intro" {
		t.Fatalf("stage %s, want intro", st)
	}
	reqs := fake.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d chat requests, want 3: one per turn and one to speak in the stage entered", len(reqs))
	}
	if names := strings.Join(reqs[0].ToolNames(), ","); names != "transition_stage,ask_question,assess_response,end_interview" {
		t.Errorf("tools offered: %s", names)
	}
	// The third request carries the two parallel calls and their results.
	msgs := reqs[2].Messages
	var calls []fakeopenai.ToolCall
	results := map[string]string{}
	for _, m := range msgs {
		calls = append(calls, m.ToolCalls...)
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	var transitionID string
	for _, tc := range calls {
		if tc.Name == string(stages.ToolTransitionStage) {
			transitionID = tc.ID
		}
		if _, ok := results[tc.ID]; !ok {
			t.Errorf("tool call %s (%s) has no result in the next request", tc.ID, tc.Name)
		}
	}
	var tr tool.Result
	if err := json.Unmarshal([]byte(results[transitionID]), &tr); err != nil || !tr.OK || tr.Stage != "intro" || tr.Acknowledge == "" {
		t.Errorf("transition result %s (err %v)", results[transitionID], err)
	}
	rec, _ := store.Get(ctx, flushed(t, c).ID)
	if len(rec.Assessments) != 1 || rec.Assessments[0].DepthScore != 2 || rec.Assessments[0].QuestionID != "q1" {
		t.Errorf("assessments %+v", rec.Assessments)
	}
	if n := len(rec.Turns); n != 3 {
		t.Errorf("%d turns saved, want 3", n)
	}
	if c := rec.Turns[1].STTConfidence; c != 0.87 {
		t.Errorf("the candidate's turn was heard with confidence %v, saved as %v", 0.87, c)
	}
	if rec.Turns[2].Metrics == nil || rec.Turns[2].Metrics.LLMFirstTokenMs <= 0 {
		t.Errorf("agent turn metrics %+v, want LLM time to first token", rec.Turns[2].Metrics)
	}
}

// TestGateRefusalReachesModel: a transition requested too early is refused
// with a reason the model can act on, and the stage does not change.
func TestGateRefusalReachesModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestInterview(t, 1, scriptedLLM)
		c.Machine().Start()
		var asked []string
		tr := tooling{c}.call(llm.ToolCall{ID: "1", Name: string(stages.ToolTransitionStage), Arguments: `{"reason":"done"}`}, &asked)
		if tr.OK || !strings.Contains(tr.Error, "cannot leave greeting yet") || c.Machine().Stage() != "greeting" {
			t.Errorf("premature transition: %+v, stage %s", tr, c.Machine().Stage())
		}
		for _, bad := range []llm.ToolCall{
			{Name: string(stages.ToolAskQuestion), Arguments: `{"question":`},
			{Name: string(stages.ToolAssessResponse), Arguments: `{"depth_score":9,"key_points":[]}`},
			{Name: "open_pod_bay_doors", Arguments: `{}`},
		} {
			if tr := (tooling{c}).call(bad, &asked); tr.OK || tr.Error == "" {
				t.Errorf("%s(%s) → %+v, want a refusal with a reason", bad.Name, bad.Arguments, tr)
			}
		}
		// A repeated (paraphrased) question is refused.
		tooling{c}.call(llm.ToolCall{Name: string(stages.ToolAskQuestion), Arguments: `{"question":"Tell me about a challenging project you worked on."}`}, &asked)
		if tr := (tooling{c}).call(llm.ToolCall{Name: string(stages.ToolAskQuestion), Arguments: `{"question":"Could you tell me about a project that was challenging for you?"}`}, &asked); tr.OK || !strings.Contains(tr.Error, "repeats") {
			t.Errorf("paraphrase accepted: %+v", tr)
		}
	})
}

// TestNewTurnCancelsStale: a candidate turn arriving while the previous
// answer is still generating cancels it; only one answer is delivered.
func TestNewTurnCancelsStale(t *testing.T) {
	fake := fakeopenai.New()
	defer fake.Close()
	client, err := openai.New(openai.Options{APIKey: fakeopenai.Key, BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	fake.ScriptChat(
		fakeopenai.Reply{Text: "Hello there, how are you?"},
		fakeopenai.Reply{Text: "This answer is very slow and will be overtaken by the next turn.", StallAfter: 3},
		fakeopenai.Reply{Text: "Sorry, go on."},
	)
	c, store := newTestInterview(t, 1, func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return client })
	ctx := t.Context()
	deliver(t, c.Greet(ctx))
	slow := c.Respond(ctx, CandidateTurn{Text: "I am fine"})
	<-slow.Deltas() // it has started speaking
	fast := c.Respond(ctx, CandidateTurn{Text: "Actually, one more thing"})
	if _, err := slow.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("stale turn ended with %v, want cancelled", err)
	}
	slow.Delivered(Delivery{Text: "", Interrupted: true})
	if got := deliver(t, fast); got != "Sorry, go on." {
		t.Errorf("fresh turn said %q", got)
	}
	rec, _ := store.Get(ctx, flushed(t, c).ID)
	var agentTurns int
	for _, turn := range rec.Turns {
		if turn.Role == interviews.RoleAgent {
			agentTurns++
		}
	}
	if agentTurns != 2 {
		t.Errorf("%d agent turns saved, want 2 (greeting and the fresh answer)", agentTurns)
	}
}

// TestInterruptedQuestionNotCounted: a question cut off before it was
// played does not count toward the stage's minimum; the turn is saved
// interrupted with only the played text.
func TestInterruptedQuestionNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, store := newTestInterview(t, 1, scriptedLLM)
		ctx := t.Context()
		r := c.Greet(ctx)
		for range r.Deltas() {
		}
		r.Delivered(Delivery{Text: "Hello Ada, and thank you", Interrupted: true})
		if n := c.Machine().Spoken("greeting"); n != 0 {
			t.Errorf("%d questions counted from an interrupted greeting, want 0", n)
		}
		rec, _ := store.Get(ctx, flushed(t, c).ID)
		last := rec.Turns[len(rec.Turns)-1]
		if !last.Interrupted || last.Text != "Hello Ada, and thank you" {
			t.Errorf("saved turn %+v", last)
		}
	})
}

// TestReplyStoppedBeforeItsFirstFrameIsSaved: a reply whose first frame was
// due to play after it was stopped (its playout behind on a busy machine)
// is saved as ending when it started, and the record stays valid.
func TestReplyStoppedBeforeItsFirstFrameIsSaved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, store := newTestInterview(t, 1, scriptedLLM)
		ctx := t.Context()
		r := c.Greet(ctx)
		for range r.Deltas() {
		}
		due := time.Now().Add(40 * time.Millisecond)
		r.Delivered(Delivery{Text: "Hello Ada", Interrupted: true, StartedAt: due, EndedAt: due.Add(-30 * time.Millisecond)})
		rec, err := store.Get(ctx, flushed(t, c).ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Validate(); err != nil {
			t.Fatalf("the saved record is not valid: %v", err)
		}
		last := rec.Turns[len(rec.Turns)-1]
		if last.Text != "Hello Ada" || !last.EndedAt.Equal(last.StartedAt) {
			t.Errorf("saved turn %q %v–%v, want it ending as it started", last.Text, last.StartedAt, last.EndedAt)
		}
	})
}

// TestLeaveAndRejoin: a candidate who leaves is saved candidate_left at
// once; coming back continues the interview with a welcome that repeats the
// last question heard, without ending it even in the closing stage; a
// Finish while away closes the window.
func TestLeaveAndRejoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, store := newTestInterview(t, 1, scriptedLLM)
		ctx := t.Context()
		deliver(t, c.Greet(ctx))
		qs := c.Machine().Questions()
		if len(qs) == 0 || !qs[len(qs)-1].Spoken() {
			t.Fatalf("the greeting asked nothing: %+v", qs)
		}
		last := qs[len(qs)-1].Text

		c.Leave(time.Minute)
		saved, err := store.Get(ctx, flushed(t, c).ID)
		if err != nil {
			t.Fatal(err)
		}
		if saved.Status != interviews.StatusCandidateLeft || !saved.CanRejoin(time.Now()) || len(saved.Turns) != 1 {
			t.Fatalf("saved as the candidate left: status %s, can rejoin %v, %d turns", saved.Status, saved.CanRejoin(time.Now()), len(saved.Turns))
		}

		time.Sleep(20 * time.Second)
		r, err := c.Rejoin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		text := deliver(t, r)
		if want := "Welcome back, Ada. We lost you for a moment. I was asking: " + last; text != want {
			t.Errorf("welcome back %q, want %q", text, want)
		}
		rec := c.Recorder().Snapshot()
		if rec.Status != interviews.StatusInProgress || rec.EndedAt != nil || len(rec.Absences) != 1 || rec.Absences[0].BackAt == nil {
			t.Fatalf("after rejoining: status %s, ended %v, absences %+v", rec.Status, rec.EndedAt, rec.Absences)
		}
		if turn := rec.Turns[len(rec.Turns)-1]; turn.Role != interviews.RoleAgent || turn.Source != "rejoin" || turn.Text != text {
			t.Errorf("the welcome back turn: %+v", turn)
		}
		select {
		case <-c.Ended():
			t.Fatal("the interview ended on rejoining")
		default:
		}

		// The interview goes on: the next answer gets the next question.
		next := deliver(t, c.Respond(ctx, CandidateTurn{Text: answers[0]}))
		if next == "" || strings.Contains(next, "Welcome back") {
			t.Errorf("the turn after rejoining: %q", next)
		}

		// Gone again, and the session gives up: no way back.
		c.Leave(time.Minute)
		c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
		rec = c.Recorder().Snapshot()
		if rec.Status != interviews.StatusCandidateLeft || rec.RejoinUntil != nil || len(rec.Absences) != 2 {
			t.Errorf("after giving up: status %s, rejoin until %v, absences %d", rec.Status, rec.RejoinUntil, len(rec.Absences))
		}
		if _, err := c.Rejoin(ctx); err == nil {
			t.Error("rejoined after the window closed")
		}
	})
}

// TestRejoinInClosingDoesNotEnd: the welcome back in the closing stage is
// not the closing utterance.
func TestRejoinInClosingDoesNotEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestInterview(t, 1, scriptedLLM)
		ctx := t.Context()
		deliver(t, c.Greet(ctx))
		m := c.Machine()
		for m.Stage() != "closing" {
			if _, err := m.Force("", "test"); err != nil {
				t.Fatal(err)
			}
		}
		c.Leave(time.Minute)
		r, err := c.Rejoin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		deliver(t, r)
		select {
		case <-c.Ended():
			t.Fatal("the welcome back ended the interview")
		default:
		}
		if m.Done() {
			t.Fatal("the machine is done after the welcome back")
		}
	})
}

// TestStageOffersItsTools: the model is offered only the tools the current
// stage lists, and a call to another tool is refused with the ones it may
// use.
func TestStageOffersItsTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bp := stages.Default()
		bp.Stages[0].Tools = []stages.ToolName{stages.ToolAskQuestion, stages.ToolTransitionStage}
		rec := &interviews.Record{ID: "tools", CreatedAt: time.Now(), Status: interviews.StatusScheduled, Candidate: interviews.Candidate{Name: "Ada"}}
		c, err := NewInterview(Setup{Blueprint: bp, Record: rec, Models: Models{NewLLM: scriptedLLM}})
		if err != nil {
			t.Fatal(err)
		}
		c.Machine().Start()
		var names []string
		for _, d := range c.offeredTools() {
			names = append(names, d.Name)
		}
		if got := strings.Join(names, ","); got != "transition_stage,ask_question" {
			t.Errorf("greeting offers %s", got)
		}
		var asked []string
		res := tooling{c}.call(tool.Call("1", tool.EndInterview{Reason: "bye"}), &asked)
		if res.OK || !strings.Contains(res.Error, "end_interview is not available in this stage: use one of transition_stage, ask_question") {
			t.Errorf("end_interview in the greeting: %+v", res)
		}
		if _, err := c.Machine().Force("", "test"); err != nil {
			t.Fatal(err)
		}
		if got := len(c.offeredTools()); got != len(stages.Tools) {
			t.Errorf("intro offers %d tools, want the default %d", got, len(stages.Tools))
		}
	})
}

// TestRecordQuestionsAreTheMachineLog: the record's questions are the
// state machine's question log itself, spoken times included.
func TestRecordQuestionsAreTheMachineLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, store := newTestInterview(t, 1, scriptedLLM)
		deliver(t, c.Greet(t.Context()))
		rec, err := store.Get(t.Context(), flushed(t, c).ID)
		if err != nil {
			t.Fatal(err)
		}
		log := c.Machine().Questions()
		if len(log) == 0 || !log[0].Spoken() {
			t.Fatalf("the greeting asked nothing: %+v", log)
		}
		got, _ := json.Marshal(rec.Questions)
		want, _ := json.Marshal(log)
		if string(got) != string(want) {
			t.Errorf("saved questions %s, want the machine's log %s", got, want)
		}
	})
}

// TestRejoinAfterAnAnswerGoesOn: a candidate who answered and left before
// the interviewer replied (or while it was still asking) is welcomed back
// and hears the next question in the same turn — never a welcome followed
// by silence.
func TestRejoinAfterAnAnswerGoesOn(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before leaves the interview the way the case says.
		before func(t *testing.T, c *Conductor)
	}{
		{"answered, then left before the reply", func(t *testing.T, c *Conductor) {
			deliver(t, c.Greet(t.Context()))
			r := c.Respond(t.Context(), CandidateTurn{Text: answers[0]})
			for range r.Deltas() {
			}
			r.Delivered(Delivery{})
		}},
		{"left while the greeting played", func(t *testing.T, c *Conductor) {
			r := c.Greet(t.Context())
			for range r.Deltas() {
			}
			r.Delivered(Delivery{Text: "Hello Ada, and thank you", Interrupted: true})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, _ := newTestInterview(t, 1, scriptedLLM)
				tc.before(t, c)
				spokenBefore := len(slices.DeleteFunc(c.Machine().Questions(), func(q stages.Question) bool { return !q.Spoken() }))
				c.Leave(time.Minute)
				time.Sleep(10 * time.Second)
				r, err := c.Rejoin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				text := deliver(t, r)
				const opening = "Welcome back, Ada. We lost you for a moment. Let's carry on where we left off. "
				rest, ok := strings.CutPrefix(text, opening)
				if !ok || !strings.Contains(rest, "?") {
					t.Fatalf("welcome back %q: want %q and then a question", text, opening)
				}
				spoken := len(slices.DeleteFunc(c.Machine().Questions(), func(q stages.Question) bool { return !q.Spoken() }))
				if spoken != spokenBefore+1 {
					t.Errorf("%d questions spoken after the welcome back, want %d", spoken, spokenBefore+1)
				}
			})
		})
	}
}

// TestModelBudgetClosesTheInterview: an interview makes at most
// MaxModelCalls model calls; once they are spent the interviewer says so
// in words and the interview ends as model_budget, with nothing lost.
func TestModelBudgetClosesTheInterview(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls int
		setup, _ := testSetup(t, 1, func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
			s := scripted.New(m, bp, p)
			return countingLLM{s, &calls}
		})
		setup.MaxModelCalls = 3
		c, err := NewInterview(setup)
		if err != nil {
			t.Fatal(err)
		}
		deliver(t, c.Greet(t.Context()))
		var last string
		for i := 0; i < 10; i++ {
			select {
			case <-c.Ended():
			default:
				last = deliver(t, c.Respond(t.Context(), CandidateTurn{Text: answers[i]}))
				continue
			}
			break
		}
		select {
		case <-c.Ended():
		default:
			t.Fatal("the interview did not end when its model calls were spent")
		}
		if calls > 3 || !strings.HasSuffix(last, lang.Text("", lang.BudgetSpent)) {
			t.Errorf("%d model calls, last reply %q; want at most 3 and the budget said", calls, last)
		}
		rec := flushed(t, c)
		if rec.EndedBy != interviews.EndedModelBudget || rec.Status != interviews.StatusCompleted || rec.CandidateTurns() == 0 {
			t.Errorf("ended %s by %s with %d answers", rec.Status, rec.EndedBy, rec.CandidateTurns())
		}
	})
}

// countingLLM counts the calls that reach the model.
type countingLLM struct {
	llm.Client
	n *int
}

func (c countingLLM) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	*c.n++
	return c.Client.Complete(ctx, req, onDelta)
}
