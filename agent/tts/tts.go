// Package tts is the text-to-speech interface of the voice pipeline.
// Engines live in subpackages named after what they wrap (openai, flite).
package tts

import (
	"context"
	"errors"
)

// Engine turns text into speech.
type Engine interface {
	// Name is the engine's name for logs ("openai", "flite").
	Name() string
	// SampleRate is the rate of the mono PCM16 audio Synthesize produces
	// (flite: 16000, OpenAI pcm: 24000).
	SampleRate() int
	// Synthesize speaks text, calling out with successive chunks of mono
	// PCM16 samples as soon as they are available (streamed, not after the
	// whole text). out must not retain the slice. It returns when the text is
	// spoken, out returns an error (which it returns), or ctx is cancelled.
	Synthesize(ctx context.Context, text string, out func(pcm []int16) error) error
}

// ErrAuth is wrapped by errors that mean the service rejected the key.
var ErrAuth = errors.New("tts: authentication failed")
