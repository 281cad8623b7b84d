package llm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/incident"
)

// engine is a Client that, per call, waits delay and then says text or
// fails with err.
type engine struct {
	mu    sync.Mutex
	calls int
	delay time.Duration
	text  string
	err   error
	// partial is said before err when set (a stream cut mid-answer).
	partial string
}

func (e *engine) Complete(ctx context.Context, _ Request, onDelta func(string)) (Response, error) {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	select {
	case <-time.After(e.delay):
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	if e.partial != "" {
		onDelta(e.partial)
		return Response{Text: e.partial}, e.err
	}
	if e.err != nil {
		return Response{}, e.err
	}
	onDelta(e.text)
	return Response{Text: e.text, FinishReason: "stop"}, nil
}

func (e *engine) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// collect gathers deltas and incidents of one call.
type collect struct {
	mu        sync.Mutex
	deltas    []string
	incidents []incident.Incident
}

func (c *collect) ctx(parent context.Context) context.Context {
	return incident.WithObserver(parent, func(i incident.Incident) {
		c.mu.Lock()
		c.incidents = append(c.incidents, i)
		c.mu.Unlock()
	})
}

func (c *collect) onDelta(s string) {
	c.mu.Lock()
	c.deltas = append(c.deltas, s)
	c.mu.Unlock()
}

func TestFallback(t *testing.T) {
	down := errors.Join(ErrUnavailable, errors.New("HTTP 503"))
	tests := []struct {
		name         string
		primary      *engine
		wantText     string
		wantFallback string
		wantErr      error
		wantIncident bool
	}{
		{name: "healthy model answers alone",
			primary: &engine{delay: time.Second, text: "Tell me about your last project."}, wantText: "Tell me about your last project."},
		{name: "slow model: nothing is said for it, the model still answers",
			primary:  &engine{delay: 4 * time.Second, text: "Tell me about your last project."},
			wantText: "Tell me about your last project."},
		{name: "failing model: the scripted interviewer carries on",
			primary: &engine{delay: time.Second, err: down}, wantText: "What did you build?", wantFallback: "scripted", wantIncident: true},
		{name: "slow then failing: the scripted interviewer",
			primary:  &engine{delay: 9 * time.Second, err: down},
			wantText: "What did you build?", wantFallback: "scripted", wantIncident: true},
		{name: "rejected key is not hidden",
			primary: &engine{err: ErrAuth}, wantErr: ErrAuth},
		{name: "cut after speaking is not replaced",
			primary: &engine{partial: "So tell me", err: ErrCut}, wantText: "So tell me", wantErr: ErrCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				secondary := &engine{text: "What did you build?"}
				c := WithFallback(tt.primary, secondary, FallbackOptions{Primary: "openai", Secondary: "scripted"})
				var got collect
				resp, err := c.Complete(got.ctx(t.Context()), Request{}, got.onDelta)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if said := strings.Join(got.deltas, ""); said != tt.wantText {
					t.Errorf("said %q, want %q", said, tt.wantText)
				}
				if tt.wantErr == nil && resp.Text != tt.wantText {
					t.Errorf("Response.Text %q, want %q (what was said)", resp.Text, tt.wantText)
				}
				if resp.Fallback != tt.wantFallback {
					t.Errorf("Fallback %q, want %q", resp.Fallback, tt.wantFallback)
				}
				if n := len(got.incidents); (n == 1) != tt.wantIncident || n > 1 {
					t.Fatalf("%d incidents: %+v", n, got.incidents)
				}
				if tt.wantIncident {
					inc := got.incidents[0]
					if inc.Provider != incident.LLM || inc.Kind != incident.Fallback || !inc.Recovered || !strings.Contains(inc.Detail, "scripted") {
						t.Errorf("incident %+v", inc)
					}
				}
			})
		})
	}
}

// TestFallbackCooldown shows that after a failure the scripted interviewer
// answers at once, without waiting out the model again, until the
// cooldown ends.
func TestFallbackCooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := &engine{delay: 8 * time.Second, err: ErrTimeout}
		secondary := &engine{text: "Next question."}
		c := WithFallback(primary, secondary, FallbackOptions{Cooldown: time.Minute, Secondary: "scripted"})
		var got collect
		if _, err := c.Complete(t.Context(), Request{}, got.onDelta); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		resp, err := c.Complete(t.Context(), Request{}, got.onDelta)
		if err != nil || resp.Fallback != "scripted" || time.Since(start) != 0 {
			t.Fatalf("during the cooldown: %+v, %v after %v", resp, err, time.Since(start))
		}
		if primary.count() != 1 {
			t.Errorf("the model was asked %d times during the cooldown, want once", primary.count())
		}
		time.Sleep(time.Minute)
		primary.mu.Lock()
		primary.err, primary.delay, primary.text = nil, time.Second, "Back again."
		primary.mu.Unlock()
		resp, err = c.Complete(t.Context(), Request{}, got.onDelta)
		if err != nil || resp.Fallback != "" || resp.Text != "Back again." {
			t.Errorf("after the cooldown: %+v, %v", resp, err)
		}
	})
}
