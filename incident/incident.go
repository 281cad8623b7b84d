// Package incident names the faults of the providers an interview depends
// on — the language model, speech recognition, speech synthesis — and
// carries them from the provider that noticed one to whoever records the
// interview. It depends on nothing of viva's, so the provider packages can
// report faults without importing the interview record.
package incident

import (
	"context"
	"time"
)

// MaxDetailLen bounds Incident.Detail, in characters; a record shortens
// longer details as it adds them.
const MaxDetailLen = 500

// Providers named in Incident.Provider: the part of the voice pipeline that
// failed. The engine's own name goes in Incident.Engine.
const (
	LLM = "llm"
	STT = "stt"
	TTS = "tts"
)

// Kind says what went wrong with a provider.
type Kind string

// The kinds of incident.
const (
	// Timeout: no first token, or too long a gap between chunks.
	Timeout Kind = "timeout"
	// RateLimited: the provider answered 429.
	RateLimited Kind = "rate_limited"
	// Unavailable: a 5xx answer, or a refused or reset connection.
	Unavailable Kind = "unavailable"
	// Cut: a stream ended before its end marker.
	Cut Kind = "cut"
	// Disconnected: a live connection (speech recognition) dropped.
	Disconnected Kind = "disconnected"
	// AudioLost: audio could not be delivered and is missing from
	// the transcript.
	AudioLost Kind = "audio_lost"
	// Fallback: a backup engine did the work of the failing one.
	Fallback Kind = "fallback"
)

// Incident is one provider fault during an interview, and whether viva got
// over it. Reviewers read them beside the turns to know why the interviewer
// paused, or why an answer is missing words.
type Incident struct {
	// At is when the fault was noticed.
	At time.Time `json:"at"`
	// Provider is the part that failed: LLM, STT or
	// TTS.
	Provider string `json:"provider"`
	// Engine is the engine of that provider ("openai", "deepgram").
	Engine string `json:"engine,omitempty"`
	// Kind says what went wrong.
	Kind Kind `json:"kind"`
	// Detail is a short, secret-free description (an HTTP status, a wait,
	// the number of attempts); never a key or anything the candidate said.
	Detail string `json:"detail,omitempty"`
	// Recovered is true when the provider (or a fallback) carried on: a
	// retry succeeded, the connection came back, a backup voice spoke.
	Recovered bool `json:"recovered"`
}

// Observer receives the incidents of one interview. It is called
// from the providers' goroutines, possibly concurrently: an implementation
// must be safe for that and must not block.
type Observer func(Incident)

// observerKey is the context key of an Observer.
type observerKey struct{}

// WithObserver returns a context whose provider calls report their
// incidents to observe. Providers are shared by every interview of a
// worker, so the observer travels with each interview's calls rather than
// in the providers' options. An observer ctx already carries (a worker's
// metrics, say) still receives every incident, after observe.
func WithObserver(ctx context.Context, observe Observer) context.Context {
	if outer, _ := ctx.Value(observerKey{}).(Observer); outer != nil {
		inner := observe
		observe = func(inc Incident) {
			inner(inc)
			outer(inc)
		}
	}
	return context.WithValue(ctx, observerKey{}, observe)
}

// Report hands inc to the observer of ctx, if any, filling in At
// when it is zero. Providers call it for every fault they notice, recovered
// or not.
func Report(ctx context.Context, inc Incident) {
	observe, _ := ctx.Value(observerKey{}).(Observer)
	if observe == nil {
		return
	}
	if inc.At.IsZero() {
		inc.At = time.Now()
	}
	observe(inc)
}
