package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/lktest"
)

// TestTurnTaking holds one spoken interview over a real livekit-server in
// which the candidate murmurs "mm-hm" while the interviewer greets (it
// goes on), coughs over it (it stops, then resumes), pauses 1.5 s after
// "and the main reason was" (one turn), asks to hear the question again
// (the same question comes back) and then stays silent (one check-in).
func TestTurnTaking(t *testing.T) {
	greeting := "Hello Ada, welcome to your interview today. I will start with a short introduction of how this works. " +
		"First we will talk about you and your background. Then we will go through your experience in some depth. " +
		"At the end there will be time for your questions and for next steps."
	_, sessions := startFakes(t, []string{"Mm-hm.", "", "And the main reason was", "latency in the payment path.", "Could you repeat the question?"},
		interviewerPolicy(greeting))
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	say := func(text string) {
		t.Helper()
		if err := bot.SayText(ctx, text); err != nil {
			t.Fatalf("saying %q: %v", text, err)
		}
	}

	// A backchannel, then a cough-length noise that brings no words.
	if err := bot.WaitAgentSpeech(ctx, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	say("Mm-hm.")
	if err := bot.WaitAgentSpeech(ctx, 1000*time.Millisecond); err != nil {
		t.Fatal("the interviewer did not go on after mm-hm:", err)
	}
	cough, err := bot.Speech(ctx, "Ahem, ahem.")
	if err != nil {
		t.Fatal(err)
	}
	coughAt := time.Now()
	if err := bot.Say(ctx, cough); err != nil {
		t.Fatal(err)
	}
	if last := bot.AgentAudio().LastVoicedAt; last.Sub(coughAt) > 2*time.Second {
		t.Errorf("the interviewer talked on %v after the noise started", last.Sub(coughAt))
	}
	if err := bot.WaitAgentSpeech(ctx, 1000*time.Millisecond); err != nil {
		t.Fatal("the interviewer did not resume after the noise:", err)
	}
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool { return len(r.Turns) > 0 })
	greet := rec.Turns[0]
	if greet.Role != interviews.RoleAgent || greet.Interrupted || !strings.HasPrefix(greet.Text, "Hello Ada") || !strings.HasSuffix(greet.Text, "?") {
		t.Errorf("greeting %+v, want it whole and not interrupted", greet)
	}

	// A thinking pause inside one answer.
	if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	say("And the main reason was")
	time.Sleep(1500 * time.Millisecond)
	say("latency in the payment path.")

	// "Could you repeat the question?"
	answer(t, ctx, bot, "Could you repeat the question?")
	rec = h.record(t, ctx, room, func(r *interviews.Record) bool {
		n := len(r.Turns)
		return n > 0 && r.Turns[n-1].Role == interviews.RoleAgent && strings.HasPrefix(r.Turns[n-1].Text, agent.RepeatPrefix)
	})
	var asked string
	for _, turn := range rec.Turns[:len(rec.Turns)-1] {
		if turn.Role == interviews.RoleAgent && len(turn.QuestionIDs) > 0 {
			for _, q := range rec.Questions {
				if q.ID == turn.QuestionIDs[len(turn.QuestionIDs)-1] {
					asked = strings.TrimSpace(q.Text)
				}
			}
		}
	}
	if again := rec.Turns[len(rec.Turns)-1].Text; again != agent.RepeatPrefix+asked {
		t.Errorf("repeated %q, want the last question %q", again, asked)
	}

	// Silence brings one check-in.
	if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// The check-in comes after --away-after (20 s) of silence and is
	// recorded once played; a loaded machine may take a few seconds more.
	rec = h.record(t, ctx, room, func(r *interviews.Record) bool {
		return slices.ContainsFunc(r.Turns, func(turn interviews.Turn) bool { return turn.Text == lang.Text("", lang.CheckIn) })
	})
	var candidate []string
	checkIns := 0
	for _, turn := range rec.Turns {
		switch {
		case turn.Role == interviews.RoleCandidate:
			candidate = append(candidate, turn.Text)
		case turn.Text == lang.Text("", lang.CheckIn):
			checkIns++
		}
	}
	if want := []string{"And the main reason was latency in the payment path.", "Could you repeat the question?"}; strings.Join(candidate, "|") != strings.Join(want, "|") {
		t.Errorf("candidate turns %q, want %q", candidate, want)
	}
	if checkIns != 1 {
		t.Errorf("%d check-ins after a silence, want 1", checkIns)
	}
	tt := rec.TurnTaking
	if tt == nil || tt.BackchannelsIgnored < 1 || tt.FalseInterruptionsResumed < 1 || tt.Repeats != 1 || tt.CheckIns != 1 {
		t.Errorf("turn taking %+v", tt)
	}
	for _, turn := range rec.Turns {
		if turn.Role == interviews.RoleAgent && turn.Metrics != nil && turn.Metrics.EndpointingRule == interviews.EndpointingFinished {
			t.Logf("response after a finished answer: end of utterance %.0f ms, end to end %.0f ms", turn.Metrics.EndOfUtteranceMs, turn.Metrics.EndToEndMs)
		}
	}
}

// TestGreetingWaitsForTheCandidateToHear: a candidate whose browser
// subscribes to the interviewer's audio 3 s late still hears the whole
// greeting.
func TestGreetingWaitsForTheCandidateToHear(t *testing.T) {
	greeting := "Hello Ada, welcome to your interview today. We will start in a moment."
	_, sessions := startFakes(t, nil, interviewerPolicy(greeting))
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	room := fmt.Sprintf("interview-%d", time.Now().UnixNano())
	meta, _ := json.Marshal(map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	bot, err := candidatebot.Join(ctx, candidatebot.Options{URL: h.lk.URL, Logger: testLogger(t), ManualSubscribe: true,
		Token: h.lk.Token("candidate-"+room, room, lktest.WithAgentDispatch(h.agent, string(meta)), lktest.WithName("Ada Lovelace"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bot.Leave)
	if _, err := bot.WaitAgent(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	subscribedAt := time.Now()
	if err := bot.SubscribeAgent(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitAgentSpeech(ctx, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitAgentSilence(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool { return len(r.Turns) > 0 })
	greet := rec.Turns[0]
	if greet.Interrupted || !strings.HasPrefix(greet.Text, greeting) || greet.StartedAt.Before(subscribedAt) {
		t.Errorf("greeting %+v started before the candidate subscribed at %v", greet, subscribedAt)
	}
	// The candidate heard it all: as much voiced audio as the greeting
	// played for, give or take the pauses between words.
	played := greet.EndedAt.Sub(greet.StartedAt)
	if heard := bot.AgentAudio().Voiced; heard < played/2 {
		t.Errorf("heard %v of voiced audio of a greeting that played %v", heard, played)
	}
}
