package tts

import (
	"context"
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/incident"
	"log/slog"
)

// Fallback is an Engine that speaks with a primary engine and, when the
// primary fails before producing any audio for a text, speaks that text
// with a secondary one (flite, which needs no network), so a failing speech
// service costs the candidate a different voice for a sentence rather than
// silence. Each fallback is logged and reported as an incident.Incident
// to the observer in the call's context. Audio of the secondary is
// resampled to the primary's rate, which is the rate Fallback declares.
type Fallback struct {
	primary, secondary Engine
	log                *slog.Logger
}

var _ Engine = (*Fallback)(nil)

// WithFallback returns primary backed by secondary. log receives a warning
// per fallback; nil means slog.Default().
func WithFallback(primary, secondary Engine, log *slog.Logger) *Fallback {
	if log == nil {
		log = slog.Default()
	}
	return &Fallback{primary: primary, secondary: secondary, log: log.With("tts", primary.Name(), "tts_fallback", secondary.Name())}
}

// Name is the primary's name: the engine that speaks when all is well.
func (f *Fallback) Name() string { return f.primary.Name() }

// SampleRate is the primary's rate; the secondary's audio is converted to
// it.
func (f *Fallback) SampleRate() int { return f.primary.SampleRate() }

// Synthesize speaks text with the primary; if the primary fails before its
// first audio (and not because ctx ended or out failed), the secondary
// speaks the whole text. A failure after audio was delivered is returned:
// the utterance cannot be finished in another voice without repeating
// words.
func (f *Fallback) Synthesize(ctx context.Context, text string, out func(pcm []int16) error) error {
	delivered := false
	var outErr error
	err := f.primary.Synthesize(ctx, text, func(pcm []int16) error {
		delivered = true
		if err := out(pcm); err != nil {
			outErr = err
			return err
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case outErr != nil && errors.Is(err, outErr), ctx.Err() != nil:
		return err
	case delivered:
		return fmt.Errorf("tts: %s failed in the middle of an utterance: %w", f.primary.Name(), err)
	}

	f.log.Warn("tts: primary engine failed before any audio; speaking with the fallback engine", "err", err.Error())
	conv := newResampler(f.secondary.SampleRate(), f.primary.SampleRate())
	serr := f.secondary.Synthesize(ctx, text, func(pcm []int16) error {
		if converted := conv.process(pcm); len(converted) > 0 {
			return out(converted)
		}
		return nil
	})
	incident.Report(ctx, incident.Incident{
		Provider:  incident.TTS,
		Engine:    f.primary.Name(),
		Kind:      incident.Fallback,
		Detail:    fmt.Sprintf("%s failed before any audio (%v); spoken by %s", f.primary.Name(), err, f.secondary.Name()),
		Recovered: serr == nil,
	})
	if serr != nil {
		return fmt.Errorf("tts: %s failed (%v) and the fallback %s failed too: %w", f.primary.Name(), err, f.secondary.Name(), serr)
	}
	return nil
}

// InLanguage is the primary in the language tag backed by the same
// secondary: an utterance the primary fails to start is still spoken, in
// the secondary's voice, rather than not at all. It is nil when the
// primary speaks English only.
func (f *Fallback) InLanguage(tag string) Engine {
	primary, err := InLanguage(f.primary, tag)
	if err != nil {
		return nil
	}
	return &Fallback{primary: primary, secondary: f.secondary, log: f.log}
}
