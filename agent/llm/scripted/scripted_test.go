package scripted

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/stages"
)

func TestWantsToStop(t *testing.T) {
	for text, want := range map[string]bool{
		"Can we stop here please?":                        true,
		"I'd like to end the interview now.":              true,
		"Sorry, I have to go.":                            true,
		"Let's stop the interview.":                       true,
		"We had to stop the service during the rollout.":  false,
		"The project came to an end after two years.":     false,
		"I want to finish my degree next year":            false,
		"Could we please end this? I'm not feeling well.": true,
	} {
		if got := wantsToStop(text); got != want {
			t.Errorf("wantsToStop(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestAssessRewardsDepthAndKeywords(t *testing.T) {
	bp := stages.Default()
	m, err := fsm.New(bp, fsm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(m, bp, stages.Profile{Name: "Ada"})
	thin, _ := s.assess("experience", "It was fine.")
	deep, points := s.assess("experience", "I led the migration of our payment ledger to a sharded database. "+
		"The hardest part was the zero-downtime cutover; I designed dual writes, measured the error rate every hour, "+
		"and the project finished two weeks early with no customer impact. Afterwards I wrote the runbook the team still uses.")
	if thin != 1 || deep < 3 || deep > 5 {
		t.Errorf("scores thin=%d deep=%d, want 1 and 3..5", thin, deep)
	}
	if len(points) == 0 || len(points) > 3 {
		t.Errorf("key points %q", points)
	}
}

// TestFollowUpsWhenBankRunsDry: past the question bank the interviewer
// follows up on the answer, about the technology it names first, never
// re-offers a refused question nor uses a follow-up's shape twice, and
// runs out rather than repeat itself.
func TestFollowUpsWhenBankRunsDry(t *testing.T) {
	s := New(nil, &stages.Blueprint{}, stages.Profile{})
	answer := "I rebuilt our observability pipeline with OpenTelemetry"
	first := s.followUp(answer)
	if !strings.Contains(first, "OpenTelemetry") {
		t.Errorf("follow-up %q is not about the technology the answer names", first)
	}
	for _, noise := range []string{"never", "thousand", "thank"} {
		if q := s.followUp("I have never done that, thank you, a thousand times."); strings.Contains(q, noise) {
			t.Errorf("follow-up %q is about %q", q, noise)
		}
	}
	s.refused[strings.ToLower(first)] = true
	uses := map[string]int{}
	n := 0
	for ; n < 20; n++ {
		q := s.followUp(answer)
		if q == "" {
			break
		}
		for _, tpl := range followUpTemplates {
			if prefix, _, _ := strings.Cut(tpl, "%s"); strings.HasPrefix(q, prefix) {
				if uses[prefix]++; uses[prefix] > 1 {
					t.Errorf("a follow-up's shape used twice: %q", q)
				}
			}
		}
	}
	if n > len(followUpTemplates)+len(genericFollowUps) {
		t.Errorf("%d follow-ups: it repeats itself", n)
	}
	if second := s.followUp(answer); second == first {
		t.Errorf("refused follow-up offered again: %q", second)
	}
}

// TestGreetingTurnAsksThroughTools: the first turn is one response: the
// greeting as text and the first bank question registered with
// ask_question, which the conductor says once it is accepted.
func TestGreetingTurnAsksThroughTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bp := stages.Default()
		m, _ := fsm.New(bp, fsm.Options{})
		m.Start()
		s := New(m, bp, stages.Profile{Name: "Ada Lovelace", Role: "Data engineer"})
		msgs := []llm.Message{{Role: llm.RoleSystem, Content: "be an interviewer"}}
		var streamed strings.Builder
		resp, err := s.Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.Tool{{Name: "ask_question"}}}, func(d string) { streamed.WriteString(d) })
		if err != nil || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "ask_question" {
			t.Fatalf("first call: %+v, %v", resp, err)
		}
		var args map[string]string
		_ = json.Unmarshal([]byte(resp.ToolCalls[0].Arguments), &args)
		if args["ref"] != "greeting-1" {
			t.Errorf("asked %v, want the first bank question", args)
		}
		if !strings.HasPrefix(resp.Text, "Hello Ada") || strings.Contains(resp.Text, args["question"]) || streamed.String() != resp.Text {
			t.Errorf("greeting %q (streamed %q), want the greeting without the question", resp.Text, streamed.String())
		}
		// Once the question is accepted the scripted interviewer adds nothing.
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls},
			llm.Message{Role: llm.RoleTool, ToolCallID: resp.ToolCalls[0].ID, Content: `{"ok":true,"stage":"greeting"}`})
		resp, err = s.Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.Tool{{Name: "ask_question"}}}, func(string) {})
		if err != nil || len(resp.ToolCalls) != 0 || resp.Text != "" {
			t.Fatalf("after the accepted question: %+v, %v", resp, err)
		}
	})
}
