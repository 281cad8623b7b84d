package agent

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// TestGreetingSpeaksPlainName: a name typed with markup, emoji or control
// characters is greeted as plain words, or not at all ("Hello there"),
// while the record keeps the name as typed.
func TestGreetingSpeaksPlainName(t *testing.T) {
	for _, tc := range []struct{ name, greets string }{
		{"<script>alert(1)</script>", "Hello alert,"},
		{"Zoë\x1b[31m 🚀", "Hello Zoë,"},
		{"🚀🚀 <b></b>", "Hello there,"},
	} {
		synctest.Test(t, func(t *testing.T) {
			rec := &interviews.Record{ID: "name", Status: interviews.StatusScheduled, Candidate: interviews.Candidate{Name: tc.name, Role: "Data engineer"}}
			var profile stages.Profile
			newLLM := func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
				profile = p
				return scriptedLLM(m, bp, p)
			}
			c, err := NewInterview(Setup{Blueprint: stages.Default(), Record: rec, Models: Models{NewLLM: newLLM}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			greeting := deliver(t, c.Greet(ctx))
			if !strings.HasPrefix(greeting, tc.greets) {
				t.Errorf("name %q: greeting %q, want it to start %q", tc.name, greeting, tc.greets)
			}
			if strings.ContainsAny(greeting+profile.Name, "<>()🚀\x1b") {
				t.Errorf("name %q is spoken as typed: greeting %q, model profile %q", tc.name, greeting, profile.Name)
			}
			if got := c.Recorder().Snapshot().Candidate.Name; got != tc.name {
				t.Errorf("record keeps name %q, want %q as typed", got, tc.name)
			}
		})
	}
}
