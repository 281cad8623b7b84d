package terminal

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// TestTerminalTranscript: piped answers are handed over one reply at a
// time and echoed, so the output reads as a transcript; on an interactive
// terminal the prompt follows each reply instead.
func TestTerminalTranscript(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			rec := &interviews.Record{ID: "term", Candidate: interviews.Candidate{Name: "Ada Lovelace"}}
			loop, err := agent.NewLoop(agent.Setup{Blueprint: stages.Default(), Record: rec,
				Models: agent.Models{NewLLM: func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client { return scripted.New(m, bp, p) }}},
				agent.LoopOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			in := strings.NewReader("Yes, I can hear you.\n\n  \nI build payment systems.\n")
			if err := loop.Run(t.Context(), New(t.Context(), in, &out, Options{Interactive: interactive})); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(out.String(), "\n")
			var prefixes []string
			for _, l := range lines {
				if p, _, ok := strings.Cut(l, ": "); ok {
					prefixes = append(prefixes, p)
				}
			}
			want := "Interviewer,Candidate,Interviewer,Candidate,Interviewer"
			if interactive {
				// The candidate's typing is the terminal's echo, not ours:
				// each reply follows the prompt on its line.
				want = "Interviewer,You,You"
			}
			if got := strings.Join(prefixes, ","); got != want {
				t.Errorf("interactive %v: lines by %s, want %s:\n%s", interactive, got, want, out.String())
			}
			final := loop.Conductor().Recorder().Snapshot()
			if final.Status != interviews.StatusCandidateLeft || final.EndedBy != interviews.EndedEndOfInput || len(final.Turns) != 5 {
				t.Errorf("saved %s by %s with %d turns, want candidate_left by end_of_input with 5", final.Status, final.EndedBy, len(final.Turns))
			}
			for _, turn := range final.Turns {
				if turn.Interrupted {
					t.Errorf("turn %q saved as interrupted", turn.Text)
				}
			}
		})
	}
}

// TestStageLineAndColour: a stage is announced with its time left; colour
// codes appear only when asked for; a log line never lands on the prompt.
func TestStageLineAndColour(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	c := agent.StageChange{Name: "experience", Title: "Your experience", Deadline: now.Add(3*time.Minute + 40*time.Second)}
	if got, want := StageLine(c, now), "— Your experience · 3:40 left —"; got != want {
		t.Errorf("StageLine = %q, want %q", got, want)
	}
	c.Deadline = time.Time{}
	if got, want := StageLine(c, now), "— Your experience —"; got != want {
		t.Errorf("StageLine without a deadline = %q, want %q", got, want)
	}
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		tr := New(t.Context(), strings.NewReader(""), &out, Options{Interactive: true, Color: color, Now: func() time.Time { return now }})
		tr.Listening()
		fmt.Fprintln(tr.LogWriter(&out), "level=WARN msg=slow")
		tr.StageEntered(c)
		got := out.String()
		if strings.Contains(got, "\x1b[") != color {
			t.Errorf("colour %v: output %q", color, got)
		}
		plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(got, "")
		if want := "You: \nlevel=WARN msg=slow\nYou: \n— Your experience —\nYou: "; plain != want {
			t.Errorf("colour %v: output %q, want %q", color, plain, want)
		}
	}
}

// TestSummary: the last line says how the interview ended in words, with
// the answers (a request to repeat the question is none), the duration and
// the record's path.
func TestSummary(t *testing.T) {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	end := start.Add(6*time.Minute + 10*time.Second)
	rec := &interviews.Record{Status: interviews.StatusCompleted, EndedBy: interviews.EndedClosingDelivered, StartedAt: &start, EndedAt: &end,
		Turns: []interviews.Turn{{Role: interviews.RoleAgent}, {Role: interviews.RoleCandidate, Text: "Pardon?"},
			{Role: interviews.RoleCandidate, Text: "Yes."}, {Role: interviews.RoleCandidate, Text: "I build payment systems."}}}
	if got, want := Summary(rec, "data/abc.json"), "The interview is complete: the closing remarks were delivered (2 answers, 6 minutes). Record: data/abc.json"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	rec.Status, rec.EndedBy = interviews.StatusCandidateLeft, interviews.EndedEndOfInput
	if got, want := Summary(rec, "x.json"), "You left the interview before the end: the input ended (2 answers, 6 minutes). Record: x.json"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got := EndingInWords(interviews.EndedByProviderError("llm")); got != "the language model failed" {
		t.Errorf("provider error in words: %q", got)
	}
	for _, r := range []interviews.EndReason{interviews.EndedClosingDelivered, interviews.EndedDeadline, interviews.EndedCandidateRequest,
		interviews.EndedCandidateLeft, interviews.EndedCandidateNeverJoined, interviews.EndedWorkerStopped, interviews.EndedEndOfInput,
		interviews.EndedInterrupted, interviews.EndedWorkerCrashed, interviews.EndedCandidateUnresponsive} {
		if w := EndingInWords(r); strings.Contains(w, "_") || w == string(r) {
			t.Errorf("%s has no words: %q", r, w)
		}
	}
}
