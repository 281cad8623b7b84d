package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/incident"
)

// engineName names this engine in logs and incidents.
const engineName = "openai"

// Defaults of the stream timeouts.
const (
	// DefaultFirstTokenTimeout bounds the wait for the first token of an
	// attempt: long enough for a large prompt on a busy model, short enough
	// that a hung request is retried while the candidate still waits.
	DefaultFirstTokenTimeout = 8 * time.Second
	// DefaultChunkGapTimeout bounds the silence between chunks once the
	// model has started answering; a healthy stream sends several chunks a
	// second.
	DefaultChunkGapTimeout = 5 * time.Second
)

// maxQuickRetries is how many times a timed-out or cut attempt is retried:
// once, because a second wait as long as the first is all the candidate can
// bear before the interviewer must say something.
const maxQuickRetries = 1

// timeoutError is the cause an attempt's context is cancelled with when a
// stream timeout fires.
type timeoutError struct {
	firstToken bool          // no token arrived at all
	after      time.Duration // the timeout that fired
}

func (e *timeoutError) Error() string {
	if e.firstToken {
		return fmt.Sprintf("no first token within %s", e.after)
	}
	return fmt.Sprintf("no chunk for %s in the middle of the stream", e.after)
}

func (e *timeoutError) Unwrap() error { return llm.ErrTimeout }

// cutError is a stream that ended, or broke, before its finish reason.
type cutError struct{ cause error }

func (e *cutError) Error() string {
	if e.cause == nil {
		return "stream ended before the model finished (no finish_reason)"
	}
	return "stream broke before the model finished: " + e.cause.Error()
}

func (e *cutError) Unwrap() error { return e.cause }

// watchdog cancels an attempt whose stream is silent for too long: first
// the time to the first token, then the gap between chunks. start, chunk
// and stop are called by the attempt's goroutine only; one timer serves the
// whole attempt, re-armed per chunk without allocating.
type watchdog struct {
	cancel     context.CancelCauseFunc
	firstToken time.Duration // ≤ 0: no limit
	gap        time.Duration // ≤ 0: no limit

	timer   *time.Timer
	cause   atomic.Pointer[timeoutError] // what the timer's firing means
	gapping bool                         // a chunk came: the gap limit applies
}

// start arms the first-token timeout.
func (w *watchdog) start() {
	if w.firstToken > 0 {
		w.cause.Store(&timeoutError{firstToken: true, after: w.firstToken})
		w.timer = time.AfterFunc(w.firstToken, w.fire)
	}
}

// fire cancels the attempt with the current cause.
func (w *watchdog) fire() { w.cancel(w.cause.Load()) }

// chunk re-arms the gap timeout after a chunk that came once the model had
// started answering.
func (w *watchdog) chunk() {
	if !w.gapping {
		w.gapping = true
		if w.gap <= 0 {
			w.stop()
			return
		}
		w.cause.Store(&timeoutError{after: w.gap})
		if w.timer == nil {
			w.timer = time.AfterFunc(w.gap, w.fire)
			return
		}
	}
	if w.gap > 0 {
		w.timer.Reset(w.gap)
	}
}

// stop disarms the watchdog.
func (w *watchdog) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// incidentKind is the kind of incident a failure is.
func (f failure) incidentKind() incident.Kind {
	switch {
	case f.timeout:
		return incident.Timeout
	case f.cut:
		return incident.Cut
	case f.status == 429:
		return incident.RateLimited
	default:
		return incident.Unavailable
	}
}

// kindErrs are the llm errors that final failures of each kind wrap.
var kindErrs = map[incident.Kind]error{
	incident.Timeout:     llm.ErrTimeout,
	incident.Cut:         llm.ErrCut,
	incident.RateLimited: llm.ErrRateLimited,
	incident.Unavailable: llm.ErrUnavailable,
}

// kindErr is the llm error a final failure wraps: none for a failure that
// is not worth retrying (a bad request, a missing model), as the service is
// not unavailable then.
func (f failure) kindErr() error {
	kind := f.incidentKind()
	if kind == incident.Unavailable && !f.retryable {
		return nil
	}
	return kindErrs[kind]
}

// faults is the story of one Complete call's failed attempts, for its
// incident.
type faults struct {
	attempts []string
	last     failure
}

func (fs *faults) add(attempt int, f failure) {
	fs.attempts = append(fs.attempts, fmt.Sprintf("attempt %d: %s", attempt, f.describe()))
	fs.last = f
}

// report hands the call's incident to the interview's observer: what each
// failed attempt met, and whether the call recovered. A call cancelled
// after a fault (the candidate spoke again while the client waited) is
// reported too, as not recovered, so faults are counted even when every
// call is abandoned.
func (fs *faults) report(ctx context.Context, err error, start time.Time) {
	if len(fs.attempts) == 0 {
		return
	}
	detail := strings.Join(fs.attempts, "; ")
	switch {
	case err == nil:
		detail += fmt.Sprintf("; answered on attempt %d after %s", len(fs.attempts)+1, time.Since(start).Round(time.Millisecond))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		detail += fmt.Sprintf("; the call was abandoned after %s", time.Since(start).Round(time.Millisecond))
	}
	incident.Report(ctx, incident.Incident{
		Provider:  incident.LLM,
		Engine:    engineName,
		Kind:      fs.last.incidentKind(),
		Detail:    detail,
		Recovered: err == nil,
	})
}

// describe is a short, secret-free account of a failure.
func (f failure) describe() string {
	switch {
	case f.timeout, f.cut:
		return f.message
	case f.status != 0:
		return fmt.Sprintf("HTTP %d", f.status)
	default:
		return "no answer (" + f.message + ")"
	}
}
