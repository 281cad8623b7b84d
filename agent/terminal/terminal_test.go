package terminal

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"

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
				NewLLM: func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client { return scripted.New(m, bp, p) }},
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
