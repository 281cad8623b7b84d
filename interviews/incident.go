package interviews

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Limits on the incidents a record keeps, so a provider failing on every
// turn cannot grow a record without bound.
const (
	// MaxIncidents bounds Record.Incidents; AddIncident keeps the newest.
	MaxIncidents = 200
	// MaxIncidentDetailLen bounds Incident.Detail, in characters;
	// AddIncident shortens longer details.
	MaxIncidentDetailLen = 500
)

// Providers named in Incident.Provider: the part of the voice pipeline that
// failed. The engine's own name goes in Incident.Engine.
const (
	ProviderLLM = "llm"
	ProviderSTT = "stt"
	ProviderTTS = "tts"
)

// IncidentKind says what went wrong with a provider.
type IncidentKind string

// The kinds of incident.
const (
	// IncidentTimeout: no first token, or too long a gap between chunks.
	IncidentTimeout IncidentKind = "timeout"
	// IncidentRateLimited: the provider answered 429.
	IncidentRateLimited IncidentKind = "rate_limited"
	// IncidentUnavailable: a 5xx answer, or a refused or reset connection.
	IncidentUnavailable IncidentKind = "unavailable"
	// IncidentCut: a stream ended before its end marker.
	IncidentCut IncidentKind = "cut"
	// IncidentDisconnected: a live connection (speech recognition) dropped.
	IncidentDisconnected IncidentKind = "disconnected"
	// IncidentAudioLost: audio could not be delivered and is missing from
	// the transcript.
	IncidentAudioLost IncidentKind = "audio_lost"
	// IncidentFallback: a backup engine did the work of the failing one.
	IncidentFallback IncidentKind = "fallback"
)

// Incident is one provider fault during an interview, and whether viva got
// over it. Reviewers read them beside the turns to know why the interviewer
// paused, or why an answer is missing words.
type Incident struct {
	// At is when the fault was noticed.
	At time.Time `json:"at"`
	// Provider is the part that failed: ProviderLLM, ProviderSTT or
	// ProviderTTS.
	Provider string `json:"provider"`
	// Engine is the engine of that provider ("openai", "deepgram").
	Engine string `json:"engine,omitempty"`
	// Kind says what went wrong.
	Kind IncidentKind `json:"kind"`
	// Detail is a short, secret-free description (an HTTP status, a wait,
	// the number of attempts); never a key or anything the candidate said.
	Detail string `json:"detail,omitempty"`
	// Recovered is true when the provider (or a fallback) carried on: a
	// retry succeeded, the connection came back, a backup voice spoke.
	Recovered bool `json:"recovered"`
}

// validate reports what is wrong with one incident.
func (i Incident) validate() error {
	switch {
	case i.At.IsZero():
		return errors.New("has no time")
	case i.Provider == "":
		return errors.New("has no provider")
	case i.Kind == "":
		return errors.New("has no kind")
	case utf8.RuneCountInString(i.Detail) > MaxIncidentDetailLen:
		return fmt.Errorf("detail is longer than %d characters", MaxIncidentDetailLen)
	}
	return nil
}

// AddIncident appends inc, shortening its detail to MaxIncidentDetailLen
// and, when the record already holds MaxIncidents, dropping the oldest, so
// the record stays valid however often a provider fails.
func (r *Record) AddIncident(inc Incident) {
	if utf8.RuneCountInString(inc.Detail) > MaxIncidentDetailLen {
		inc.Detail = string([]rune(inc.Detail)[:MaxIncidentDetailLen-1]) + "…"
	}
	if len(r.Incidents) >= MaxIncidents {
		r.Incidents = append(r.Incidents[:0], r.Incidents[len(r.Incidents)-MaxIncidents+1:]...)
	}
	r.Incidents = append(r.Incidents, inc)
}

// IncidentObserver receives the incidents of one interview. It is called
// from the providers' goroutines, possibly concurrently: an implementation
// must be safe for that and must not block.
type IncidentObserver func(Incident)

// incidentKey is the context key of an IncidentObserver.
type incidentKey struct{}

// WithIncidentObserver returns a context whose provider calls report their
// incidents to observe. Providers are shared by every interview of a
// worker, so the observer travels with each interview's calls rather than
// in the providers' options.
func WithIncidentObserver(ctx context.Context, observe IncidentObserver) context.Context {
	return context.WithValue(ctx, incidentKey{}, observe)
}

// ReportIncident hands inc to the observer of ctx, if any, filling in At
// when it is zero. Providers call it for every fault they notice, recovered
// or not.
func ReportIncident(ctx context.Context, inc Incident) {
	observe, _ := ctx.Value(incidentKey{}).(IncidentObserver)
	if observe == nil {
		return
	}
	if inc.At.IsZero() {
		inc.At = time.Now()
	}
	observe(inc)
}
