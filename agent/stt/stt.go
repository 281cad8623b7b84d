// Package stt is the speech-to-text interface of the voice pipeline.
// Engines live in subpackages named after what they wrap (deepgram, openai,
// sphinx).
package stt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SampleRate is the rate of the audio every engine is fed: 16 kHz, mono,
// signed 16-bit samples.
const SampleRate = 16000

// EventType says what an Event carries.
type EventType int

const (
	// Interim is a partial transcript of the utterance in progress; a later
	// Interim or Final replaces it.
	Interim EventType = iota + 1
	// Final is the settled transcript of a piece of speech. An utterance may
	// produce several Finals (streaming engines) before UtteranceEnd.
	Final
	// SpeechStarted is the engine's own detection of speech, when it has one.
	SpeechStarted
	// UtteranceEnd means the engine considers the utterance finished: every
	// Final of it has been sent.
	UtteranceEnd
)

// Event is one result from a Stream.
type Event struct {
	Type EventType
	// Text of an Interim or Final.
	Text string
	// Confidence in [0,1] when the engine reports one, else 0.
	Confidence float64
	// At is when the event was received or produced.
	At time.Time
}

// Stream is one recognition session for one speaker. Write and EndOfSpeech
// are called from one goroutine; Events is read from another.
type Stream interface {
	// Write feeds one frame of 16 kHz mono PCM16 audio. inUtterance is the
	// voice activity detector's verdict (including pre-roll and hangover):
	// per-utterance engines keep only those frames; streaming engines send
	// every frame. The frame is not retained after Write returns.
	Write(frame []int16, inUtterance bool) error
	// EndOfSpeech says the detector saw the utterance end: per-utterance
	// engines decode what they kept and emit Final then UtteranceEnd;
	// streaming engines ask the service to finalize.
	EndOfSpeech() error
	// Events delivers results; it is closed after Close.
	Events() <-chan Event
	// Close ends the stream and releases its resources.
	Close() error
}

// Engine makes streams.
type Engine interface {
	// Name is the engine's name for logs ("deepgram", "openai", "sphinx").
	Name() string
	// NewStream opens a stream; ctx bounds its whole life.
	NewStream(ctx context.Context) (Stream, error)
}

// ErrAuth is wrapped by errors that mean the service rejected the key.
var ErrAuth = errors.New("stt: authentication failed")

// Multilingual is an Engine that recognises speech in other languages
// than English.
type Multilingual interface {
	Engine
	// InLanguage returns an engine like this one for speech in the
	// language tag (BCP 47: es, de-AT). It makes no request.
	InLanguage(tag string) Engine
}

// InLanguage returns e for speech in the language tag: e itself for
// English ("", en, en-GB…), the engine e gives for tag when it is
// Multilingual, and otherwise an error naming e, which hears English only.
func InLanguage(e Engine, tag string) (Engine, error) {
	if m, ok := e.(Multilingual); ok && tag != "" {
		return m.InLanguage(tag), nil
	}
	if english(tag) {
		return e, nil
	}
	return nil, fmt.Errorf("stt: the %s speech recogniser hears English only, not %q: use Deepgram (DEEPGRAM_API_KEY) or OpenAI (OPENAI_API_KEY)", e.Name(), tag)
}

// english reports whether tag is English or empty.
func english(tag string) bool {
	base, _, _ := strings.Cut(tag, "-")
	return base == "" || strings.EqualFold(base, "en")
}
