package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/viva-interviews/viva/incident"
)

// Defaults of FallbackOptions.
const (
	// DefaultApology is what the interviewer says while the model is slow
	// to answer.
	DefaultApology = "Sorry, give me a moment."
	// DefaultApologyAfter is how long the candidate waits in silence for
	// the model's first token before the apology is said: longer than a
	// healthy model's first token, short enough not to feel like a dropped
	// call.
	DefaultApologyAfter = 2500 * time.Millisecond
	// DefaultCooldown is how long the secondary answers on its own after
	// the primary failed, so each turn does not wait out the primary's
	// timeouts again.
	DefaultCooldown = time.Minute
)

// FallbackOptions configure WithFallback. Zero values mean the defaults.
type FallbackOptions struct {
	// Apology is said once per request when the primary has produced
	// nothing after ApologyAfter.
	Apology string
	// ApologyAfter is the silence before the apology.
	ApologyAfter time.Duration
	// Cooldown is how long the secondary answers directly after the
	// primary failed.
	Cooldown time.Duration
	// Primary and Secondary name the engines in incidents and in
	// Response.Fallback (e.g. "openai", "scripted").
	Primary, Secondary string
}

// WithFallback returns a Client that asks primary and, when it fails
// before producing anything (its own retries and timeouts spent), has
// secondary answer the same request, so a model outage never leaves the
// candidate in silence. While primary is slow it says the apology first.
// After a failure secondary answers directly for the cooldown, then primary
// is tried again. Responses written by secondary name it in Fallback, and
// every fallback is reported as an incident on the request's context.
//
// A primary that fails after it has streamed text is not replaced (the
// candidate already heard part of its answer): that error is returned.
func WithFallback(primary, secondary Client, opts FallbackOptions) Client {
	if opts.Apology == "" {
		opts.Apology = DefaultApology
	}
	if opts.ApologyAfter <= 0 {
		opts.ApologyAfter = DefaultApologyAfter
	}
	if opts.Cooldown <= 0 {
		opts.Cooldown = DefaultCooldown
	}
	if opts.Secondary == "" {
		opts.Secondary = "secondary"
	}
	return &fallback{primary: primary, secondary: secondary, opts: opts}
}

type fallback struct {
	primary, secondary Client
	opts               FallbackOptions

	mu       sync.Mutex
	downTill time.Time // secondary answers alone until then
}

// Primary is the client the fallback stands in for; a caller that must
// not reach the secondary (a speculative call) uses it directly.
func (f *fallback) Primary() Client { return f.primary }

func (f *fallback) Complete(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	f.mu.Lock()
	down := time.Now().Before(f.downTill)
	f.mu.Unlock()
	if down {
		return f.useSecondary(ctx, req, "", onDelta, nil)
	}

	// Deltas of the primary and the apology's timer reach onDelta one at
	// a time, never after Complete returns.
	var (
		emitMu     sync.Mutex
		emitted    bool // the primary said something
		apologised bool
		finished   bool
	)
	emit := func(s string) {
		emitMu.Lock()
		defer emitMu.Unlock()
		if !finished {
			emitted = true
			onDelta(s)
		}
	}
	timer := time.AfterFunc(f.opts.ApologyAfter, func() {
		emitMu.Lock()
		defer emitMu.Unlock()
		if !finished && !emitted {
			apologised = true
			onDelta(f.opts.Apology + " ")
		}
	})
	resp, err := f.primary.Complete(ctx, req, emit)
	timer.Stop()
	emitMu.Lock()
	finished = true
	saidSomething := emitted || len(resp.ToolCalls) > 0
	emitMu.Unlock()

	apology := ""
	if apologised {
		apology = f.opts.Apology + " "
	}
	switch {
	case err == nil:
		resp.Text = apology + resp.Text
		return resp, nil
	case ctx.Err() != nil, errors.Is(err, ErrAuth), saidSomething:
		return resp, err
	}
	f.mu.Lock()
	f.downTill = time.Now().Add(f.opts.Cooldown)
	f.mu.Unlock()
	return f.useSecondary(ctx, req, apology, onDelta, err)
}

// useSecondary answers req with the secondary engine after the apology
// already said (if any). A fallback caused by primaryErr is reported as an
// incident, once per outage; the calls of the cooldown that follows are
// marked only in their responses.
func (f *fallback) useSecondary(ctx context.Context, req Request, apology string, onDelta func(string), primaryErr error) (Response, error) {
	resp, err := f.secondary.Complete(ctx, req, onDelta)
	if primaryErr != nil {
		incident.Report(ctx, incident.Incident{Provider: incident.LLM, Engine: f.opts.Primary, Kind: incident.Fallback,
			Detail: fmt.Sprintf("the %s interviewer takes over for %v: %v", f.opts.Secondary, f.opts.Cooldown, primaryErr), Recovered: err == nil})
	}
	resp.Text = apology + resp.Text
	resp.Fallback = f.opts.Secondary
	return resp, err
}
