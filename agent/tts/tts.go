// Package tts is the text-to-speech interface of the voice pipeline.
// Engines live in subpackages named after what they wrap (openai, flite).
package tts

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// Multilingual is an Engine that speaks other languages than English.
type Multilingual interface {
	Engine
	// InLanguage returns an engine like this one for text in the
	// language tag (BCP 47: es, de-AT), or nil when it cannot speak it.
	InLanguage(tag string) Engine
}

// InLanguage returns e for text in the language tag: e itself for
// English ("", en, en-GB…), the engine e gives for tag when it is
// Multilingual, and otherwise an error naming e, which speaks English
// only.
func InLanguage(e Engine, tag string) (Engine, error) {
	base, _, _ := strings.Cut(tag, "-")
	if base == "" || strings.EqualFold(base, "en") {
		return e, nil
	}
	if m, ok := e.(Multilingual); ok {
		if in := m.InLanguage(tag); in != nil {
			return in, nil
		}
	}
	return nil, fmt.Errorf("tts: the %s voice speaks English only, not %q: use OpenAI speech (OPENAI_API_KEY)", e.Name(), tag)
}
