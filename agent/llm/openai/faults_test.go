package openai

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
	"github.com/viva-interviews/viva/testrig/incidentlog"
)

// TestCompleteFaults drives the client against the in-memory fake under
// fake time: hung requests, stalls, cuts and rate limits end in the right
// typed error, after the right number of requests and the right wait, and
// leave one incident.
func TestCompleteFaults(t *testing.T) {
	const text = "Tell me about a project you are proud of."
	tests := []struct {
		name         string
		script       []fakeopenai.Reply
		wantRequests int
		wantElapsed  time.Duration // fake time from the call to its return
		wantErr      error         // nil: success
		alsoErr      error         // a second kind the error wraps
		wantText     string        // delivered and returned
		wantKind     incident.Kind
		wantDetail   string
		recovered    bool
	}{
		{
			name:         "request never answered, then answered",
			script:       []fakeopenai.Reply{{Hang: true}, {Text: text}},
			wantRequests: 2,
			wantElapsed:  DefaultFirstTokenTimeout,
			wantText:     text,
			wantKind:     incident.Timeout,
			wantDetail:   "attempt 1: no first token within 8s; answered on attempt 2",
			recovered:    true,
		},
		{
			name:         "request never answered twice",
			script:       []fakeopenai.Reply{{Hang: true}, {Hang: true}, {Text: "never"}},
			wantRequests: 2,
			wantElapsed:  2 * DefaultFirstTokenTimeout,
			wantErr:      llm.ErrTimeout,
			wantKind:     incident.Timeout,
			wantDetail:   "attempt 2: no first token within 8s",
		},
		{
			name:         "stall before the first token",
			script:       []fakeopenai.Reply{{Text: text, StallAfter: 1}, {Text: text}},
			wantRequests: 2,
			wantElapsed:  DefaultFirstTokenTimeout,
			wantText:     text,
			wantKind:     incident.Timeout,
			recovered:    true,
		},
		{
			name:         "stall after four words",
			script:       []fakeopenai.Reply{{Text: text, Chunk: 5, StallAfter: 5}, {Text: text}},
			wantRequests: 1,
			wantElapsed:  DefaultChunkGapTimeout,
			wantErr:      llm.ErrCut,
			alsoErr:      llm.ErrTimeout,
			wantText:     text[:20],
			wantKind:     incident.Timeout,
			wantDetail:   "no chunk for 5s in the middle of the stream",
		},
		{
			name:         "stall in tool calls before any text is retried",
			script:       []fakeopenai.Reply{{ToolCalls: []fakeopenai.ToolCall{{Name: "f", Arguments: `{"a":"bcdefgh"}`}}, StallAfter: 3}, {Text: text}},
			wantRequests: 2,
			wantElapsed:  DefaultChunkGapTimeout,
			wantText:     text,
			wantKind:     incident.Timeout,
			recovered:    true,
		},
		{
			name:         "cut mid-chunk after text",
			script:       []fakeopenai.Reply{{Text: text, Chunk: 5, CutMidEvent: 3}, {Text: text}},
			wantRequests: 1,
			wantErr:      llm.ErrCut,
			wantText:     text[:10],
			wantKind:     incident.Cut,
		},
		{
			name:         "stream ended cleanly without finish reason after text",
			script:       []fakeopenai.Reply{{Text: text, Chunk: 5, EndAfter: 4}, {Text: text}},
			wantRequests: 1,
			wantErr:      llm.ErrCut,
			wantText:     text[:15],
			wantKind:     incident.Cut,
			wantDetail:   "no finish_reason",
		},
		{
			name:         "stream ended without finish reason before text is retried once",
			script:       []fakeopenai.Reply{{Text: text, EndAfter: 1}, {Text: text, EndAfter: 1}, {Text: "never"}},
			wantRequests: 2,
			wantElapsed:  DefaultBackoff, // the jitter is pinned to the full wait
			wantErr:      llm.ErrCut,
			wantKind:     incident.Cut,
		},
		{
			name:         "rate limited on every attempt",
			script:       []fakeopenai.Reply{{Status: 429, RetryAfter: time.Second}, {Status: 429, RetryAfter: time.Second}, {Status: 429, RetryAfter: time.Second}, {Status: 429, RetryAfter: time.Second}},
			wantRequests: DefaultMaxRetries + 1,
			wantElapsed:  3 * time.Second,
			wantErr:      llm.ErrRateLimited,
			wantKind:     incident.RateLimited,
			wantDetail:   "attempt 1: HTTP 429; attempt 2: HTTP 429; attempt 3: HTTP 429; attempt 4: HTTP 429",
		},
		{
			name:         "server errors, then an answer",
			script:       []fakeopenai.Reply{{Status: 500}, {Status: 503}, {Text: text}},
			wantRequests: 3,
			wantElapsed:  DefaultBackoff + 2*DefaultBackoff,
			wantText:     text,
			wantKind:     incident.Unavailable,
			wantDetail:   "attempt 1: HTTP 500; attempt 2: HTTP 503; answered on attempt 3",
			recovered:    true,
		},
		{
			name:         "server errors on every attempt",
			script:       []fakeopenai.Reply{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}},
			wantRequests: 4,
			wantElapsed:  7 * DefaultBackoff,
			wantErr:      llm.ErrUnavailable,
			wantKind:     incident.Unavailable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, httpClient := fakeopenai.NewPiped()
				defer httpClient.CloseIdleConnections()
				defer srv.Close()
				srv.ScriptChat(tt.script...)
				c, err := New(Options{APIKey: fakeopenai.Key, BaseURL: srv.URL, Model: testModel, HTTPClient: httpClient})
				if err != nil {
					t.Fatal(err)
				}
				c.jitter = func() float64 { return 1 }

				var log incidentlog.Log
				ctx := log.Context(t.Context())
				start := time.Now()
				deltas, resp, err := collect(ctx, c, userHello)
				elapsed := time.Since(start)

				switch {
				case tt.wantErr == nil && err != nil:
					t.Fatalf("error %v", err)
				case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
					t.Fatalf("error %v, want one wrapping %v", err, tt.wantErr)
				case tt.alsoErr != nil && !errors.Is(err, tt.alsoErr):
					t.Errorf("error %v does not also wrap %v", err, tt.alsoErr)
				}
				if got := len(srv.ChatRequests()); got != tt.wantRequests {
					t.Errorf("%d requests, want %d", got, tt.wantRequests)
				}
				if elapsed != tt.wantElapsed {
					t.Errorf("returned after %v, want %v", elapsed, tt.wantElapsed)
				}
				if got := strings.Join(deltas, ""); got != tt.wantText || resp.Text != tt.wantText {
					t.Errorf("delivered %q, returned %q, want %q", got, resp.Text, tt.wantText)
				}
				incidents := log.Incidents()
				if len(incidents) != 1 {
					t.Fatalf("incidents %+v, want one", incidents)
				}
				inc := incidents[0]
				if inc.Provider != incident.LLM || inc.Engine != engineName || inc.Kind != tt.wantKind ||
					inc.Recovered != tt.recovered || !strings.Contains(inc.Detail, tt.wantDetail) {
					t.Errorf("incident %+v, want kind %s, recovered %t, detail with %q", inc, tt.wantKind, tt.recovered, tt.wantDetail)
				}
			})
		})
	}
}

// TestCompleteNoIncidentWhenHealthy: a call without faults reports nothing,
// and a healthy stream is not timed out however long it takes in all.
func TestCompleteNoIncidentWhenHealthy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, httpClient := fakeopenai.NewPiped()
		defer httpClient.CloseIdleConnections()
		defer srv.Close()
		// 12 events 4 s apart: 44 s in all, each gap under the 5 s limit,
		// the first token after 4 s, under the 8 s limit.
		srv.ScriptChat(fakeopenai.Reply{Text: "Slow but steady, word by word.", Chunk: 3, Delay: 4 * time.Second})
		c, err := New(Options{APIKey: fakeopenai.Key, BaseURL: srv.URL, HTTPClient: httpClient})
		if err != nil {
			t.Fatal(err)
		}
		called := false
		ctx := incident.WithObserver(t.Context(), func(incident.Incident) { called = true })
		_, resp, err := collect(ctx, c, userHello)
		if err != nil || resp.Text != "Slow but steady, word by word." {
			t.Fatalf("%q, %v", resp.Text, err)
		}
		if called {
			t.Error("incident reported for a healthy call")
		}
	})
}

// TestCompleteAbandonedFaultIsCounted: a rate limit whose call is cancelled
// while waiting to retry (the candidate spoke again) is still reported, as
// not recovered.
func TestCompleteAbandonedFaultIsCounted(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptChat(fakeopenai.Reply{Status: 429, RetryAfter: 2 * time.Second})
	c, _ := newClient(t, srv, nil)
	var incidents []incident.Incident
	ctx, cancel := context.WithCancel(incident.WithObserver(t.Context(), func(i incident.Incident) {
		incidents = append(incidents, i)
	}))
	defer cancel()
	c.sleep = func(ctx context.Context, _ time.Duration) error {
		cancel() // a new utterance arrives during the wait
		return ctx.Err()
	}
	_, _, err := collect(ctx, c, userHello)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if len(incidents) != 1 {
		t.Fatalf("incidents %+v, want one", incidents)
	}
	if inc := incidents[0]; inc.Kind != incident.RateLimited || inc.Recovered ||
		!strings.Contains(inc.Detail, "attempt 1: HTTP 429; the call was abandoned") {
		t.Errorf("incident %+v", inc)
	}
}
