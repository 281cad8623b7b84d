// Package openai is the OpenAI text-to-speech engine: /v1/audio/speech with
// response_format "pcm" (24 kHz, mono, signed 16-bit little-endian), read as
// it arrives so playback starts before the whole sentence is synthesised.
// It works with OpenAI or any compatible server (OPENAI_BASE_URL).
package openai

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/internal/openaiapi"
)

// SampleRate24kHz is the rate of OpenAI's pcm speech.
const SampleRate24kHz = 24000

// Defaults applied by New to zero Options fields.
const (
	DefaultModel = string(goopenai.TTSModelGPT4oMini)
	DefaultVoice = string(goopenai.VoiceAlloy)
)

// chunkBytes100ms bounds each chunk handed to out: 100 ms of audio.
const chunkBytes100ms = SampleRate24kHz / 10 * 2

// Options configures the engine. Zero fields take the defaults.
type Options struct {
	// APIKey is the OpenAI API key (OPENAI_API_KEY). Required.
	APIKey string
	// BaseURL is the API base URL ending in /v1 (OPENAI_BASE_URL);
	// https://api.openai.com/v1 when empty.
	BaseURL string
	// Model is the speech model, gpt-4o-mini-tts by default.
	Model string
	// Voice is the voice name, alloy by default.
	Voice string
	// Speed is the speaking rate, 0.25 to 4; 0 means the service default (1).
	Speed float64
	// Instructions steer the delivery (tone, pace); gpt-4o-mini-tts only.
	Instructions string
	// Logger receives retries; slog.Default() when nil.
	Logger *slog.Logger
}

// Engine synthesises speech. It is safe for concurrent use.
type Engine struct {
	opts Options
	api  openaiapi.Speech
}

var _ tts.Engine = (*Engine)(nil)

// New checks opts and applies defaults. It makes no request.
func New(opts Options) (*Engine, error) {
	api, err := openaiapi.NewSpeech("tts", opts.APIKey, opts.BaseURL, opts.Logger)
	if err != nil {
		return nil, err
	}
	if opts.Speed != 0 && (opts.Speed < 0.25 || opts.Speed > 4) {
		return nil, fmt.Errorf("tts: openai: speed %g is outside 0.25–4", opts.Speed)
	}
	opts.Model = cmp.Or(opts.Model, DefaultModel)
	opts.Voice = cmp.Or(opts.Voice, DefaultVoice)
	return &Engine{opts: opts, api: api}, nil
}

// Name returns "openai".
func (e *Engine) Name() string { return "openai" }

// SampleRate returns 24000.
func (e *Engine) SampleRate() int { return SampleRate24kHz }

// Synthesize speaks text, calling out with chunks of at most 100 ms as the
// response body arrives. A 5xx answer or a connection failure before any
// audio was delivered is retried once. A rejected key is an error wrapping
// tts.ErrAuth; an error from out is returned as is.
func (e *Engine) Synthesize(ctx context.Context, text string, out func(pcm []int16) error) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	req := goopenai.CreateSpeechRequest{
		Model:          goopenai.SpeechModel(e.opts.Model),
		Input:          text,
		Voice:          goopenai.SpeechVoice(e.opts.Voice),
		Instructions:   e.opts.Instructions,
		ResponseFormat: goopenai.SpeechResponseFormatPcm,
		Speed:          e.opts.Speed,
	}
	delivered := false
	for attempt := 1; ; attempt++ {
		retry, err := e.stream(ctx, req, out, &delivered)
		if err == nil || !retry || delivered || attempt == 2 || ctx.Err() != nil {
			return err
		}
		e.api.Log.Warn("tts: openai speech failed; retrying once", "err", err.Error())
	}
}

// stream makes one request and delivers its audio. retry says whether the
// failure is worth another attempt (5xx or a connection failure).
func (e *Engine) stream(ctx context.Context, req goopenai.CreateSpeechRequest, out func([]int16) error, delivered *bool) (retry bool, err error) {
	body, err := e.api.Client.CreateSpeech(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		status := openaiapi.HTTPStatus(err)
		if status == 401 {
			return false, fmt.Errorf("tts: openai speech: the API key was rejected (HTTP 401); check OPENAI_API_KEY (and OPENAI_BASE_URL when using another server): %w: %w", tts.ErrAuth, err)
		}
		return status >= 500 || status == 0, fmt.Errorf("tts: openai speech: %w", err)
	}
	defer body.Close()

	buf := make([]byte, chunkBytes100ms)
	pcm := make([]int16, chunkBytes100ms/2)
	have := 0 // bytes in buf; one odd byte is carried to the next read
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, rerr := body.Read(buf[have:])
		have += n
		if whole := have &^ 1; n > 0 && whole > 0 {
			samples := pcm[:whole/2]
			for i := range samples {
				samples[i] = int16(binary.LittleEndian.Uint16(buf[2*i:]))
			}
			*delivered = true
			if err := out(samples); err != nil {
				return false, err
			}
			if have > whole {
				buf[0] = buf[whole]
			}
			have -= whole
		}
		switch {
		case rerr == io.EOF:
			if have != 0 {
				e.api.Log.Warn("tts: openai speech ended in the middle of a sample; last byte dropped")
			}
			return false, nil
		case rerr != nil:
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return true, fmt.Errorf("tts: openai speech: reading audio: %w", rerr)
		}
	}
}

// InLanguage returns e: OpenAI's voices speak the language of the text
// they are given.
func (e *Engine) InLanguage(string) tts.Engine { return e }
