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
	// DefaultCooldown is how long the secondary answers on its own after
	// the primary failed, so each turn does not wait out the primary's
	// timeouts again.
	DefaultCooldown = time.Minute
)

// FallbackOptions configure WithFallback. Zero values mean the defaults.
type FallbackOptions struct {
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
// candidate in silence (what is said while a model is slow is the
// conversation's business, not the client's: see agent.Options.Filler).
// After a failure secondary answers directly for the cooldown, then primary
// is tried again. Responses written by secondary name it in Fallback, and
// every fallback is reported as an incident on the request's context.
//
// A primary that fails after it has streamed text is not replaced (the
// candidate already heard part of its answer): that error is returned.
func WithFallback(primary, secondary Client, opts FallbackOptions) Client {
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
		return f.useSecondary(ctx, req, onDelta, nil)
	}

	// Deltas of the primary reach onDelta one at a time, never after
	// Complete returns.
	var (
		emitMu   sync.Mutex
		emitted  bool // the primary said something
		finished bool
	)
	emit := func(s string) {
		emitMu.Lock()
		defer emitMu.Unlock()
		if !finished {
			emitted = true
			onDelta(s)
		}
	}
	resp, err := f.primary.Complete(ctx, req, emit)
	emitMu.Lock()
	finished = true
	saidSomething := emitted || len(resp.ToolCalls) > 0
	emitMu.Unlock()

	switch {
	case err == nil:
		return resp, nil
	case ctx.Err() != nil, errors.Is(err, ErrAuth), saidSomething:
		return resp, err
	}
	f.mu.Lock()
	f.downTill = time.Now().Add(f.opts.Cooldown)
	f.mu.Unlock()
	return f.useSecondary(ctx, req, onDelta, err)
}

// useSecondary answers req with the secondary engine. A fallback caused by primaryErr is reported as an
// incident, once per outage; the calls of the cooldown that follows are
// marked only in their responses.
func (f *fallback) useSecondary(ctx context.Context, req Request, onDelta func(string), primaryErr error) (Response, error) {
	resp, err := f.secondary.Complete(ctx, req, onDelta)
	if primaryErr != nil {
		incident.Report(ctx, incident.Incident{Provider: incident.LLM, Engine: f.opts.Primary, Kind: incident.Fallback,
			Detail: fmt.Sprintf("the %s interviewer takes over for %v: %v", f.opts.Secondary, f.opts.Cooldown, primaryErr), Recovered: err == nil})
	}
	resp.Fallback = f.opts.Secondary
	return resp, err
}
