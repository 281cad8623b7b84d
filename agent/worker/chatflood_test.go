package worker_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/testrig/candidatebot"
)

// TestTypedFloodBecomesAFewTurns: a candidate who floods the chat with
// 200 messages during a real interview (LiveKit, worker, offline engines)
// is asked in the captions to slow down, and the record holds a few
// candidate turns, none larger than one message, instead of 200 turns,
// analyses and saves.
func TestTypedFloodBecomesAFewTurns(t *testing.T) {
	ctx, h, bot, room := startOfflineInterview(t)
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatalf("no greeting: %v", err)
	}

	const flood = 200
	pad := strings.Repeat("x", 1000)
	for i := range flood {
		if err := bot.SendChat(ctx, fmt.Sprintf("message %d %s", i, pad)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bot.WaitCaption(ctx, func(c candidatebot.Caption) bool {
		return c.Final && strings.Contains(c.Text, "faster than I can read")
	}); err != nil {
		t.Fatalf("the candidate was not asked to slow down: %v", err)
	}
	// The first message typed is in a turn. (Not necessarily first in it:
	// LiveKit's SDK hands each text stream to its handler on a goroutine
	// of its own, so messages sent within the same instant may be read in
	// either order.)
	h.record(t, ctx, room, func(r *interviews.Record) bool {
		for _, turn := range r.Turns {
			if turn.Role == interviews.RoleCandidate && (strings.HasPrefix(turn.Text, "message 0 ") || strings.Contains(turn.Text, "\nmessage 0 ")) {
				return true
			}
		}
		return false
	})
	bot.Leave()
	got := h.record(t, ctx, room, finished)
	var turns, bytes int
	for _, turn := range got.Turns {
		if turn.Role != interviews.RoleCandidate {
			continue
		}
		turns++
		bytes += len(turn.Text)
		if len(turn.Text) > worker.MaxChatBytes {
			t.Errorf("a candidate turn holds %d bytes, want at most %d", len(turn.Text), worker.MaxChatBytes)
		}
	}
	t.Logf("%d messages typed: %d candidate turns, %d bytes of them in the record", flood, turns, bytes)
	if turns == 0 || turns > 20 {
		t.Errorf("%d messages typed became %d candidate turns, want a few (1 to 20)\n%s", flood, turns, dump(got))
	}
}
