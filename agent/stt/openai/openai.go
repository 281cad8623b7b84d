// Package openai is the OpenAI speech-to-text engine: per-utterance
// transcription through /v1/audio/transcriptions (default model
// gpt-4o-mini-transcribe), for OpenAI or any compatible server
// (OPENAI_BASE_URL).
//
// The voice activity detector cuts the utterances: a stream keeps the frames
// written with inUtterance true and, on EndOfSpeech, uploads them as a WAV
// file built in memory. Requests run one at a time on the stream's own
// goroutine, so Write never waits for the network and results come out in
// utterance order: a Final with the text, then an UtteranceEnd. Utterances
// shorter than MinUtterance are dropped without a request; an utterance
// transcribed as empty text, or whose request failed (logged), yields no
// events. A rejected key ends the stream: Events is closed and Write returns
// an error wrapping stt.ErrAuth.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/internal/openaiapi"
	"github.com/viva-interviews/viva/internal/wav"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultModel          = goopenai.GPT4oMiniTranscribe
	DefaultLanguage       = "en"
	DefaultRequestTimeout = 30 * time.Second
)

const (
	// MinUtterance is the shortest utterance worth a request; shorter ones
	// are clicks and coughs.
	MinUtterance = 150 * time.Millisecond
	// MaxUtterance bounds the audio kept for one utterance (about 9.6 MB of
	// WAV, under OpenAI's 25 MB upload limit); later audio is dropped.
	MaxUtterance = 5 * time.Minute

	minUtteranceSamples = int(MinUtterance * stt.SampleRate / time.Second)
	maxUtteranceSamples = int(MaxUtterance * stt.SampleRate / time.Second)
	eventQueue          = 32
)

// Options configures the engine. Zero fields take the defaults above.
type Options struct {
	// APIKey is the OpenAI API key (OPENAI_API_KEY). Required.
	APIKey string
	// BaseURL is the API base URL ending in /v1 (OPENAI_BASE_URL);
	// https://api.openai.com/v1 when empty.
	BaseURL string
	// Model is the transcription model, gpt-4o-mini-transcribe by default.
	Model string
	// Language is the ISO-639-1 language of the speech, "en" by default.
	Language string
	// RequestTimeout bounds each transcription request (30 s by default).
	RequestTimeout time.Duration
	// Logger receives failures; slog.Default() when nil.
	Logger *slog.Logger
}

// Engine makes per-utterance transcription streams. It is safe for
// concurrent use.
type Engine struct {
	opts Options
	api  openaiapi.Speech
}

var _ stt.Engine = (*Engine)(nil)

// New checks opts and applies defaults. It makes no request.
func New(opts Options) (*Engine, error) {
	api, err := openaiapi.NewSpeech("stt", opts.APIKey, opts.BaseURL, opts.Logger)
	if err != nil {
		return nil, err
	}
	opts.Model = cmp.Or(opts.Model, DefaultModel)
	opts.Language = cmp.Or(opts.Language, DefaultLanguage)
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	return &Engine{opts: opts, api: api}, nil
}

// Name returns "openai".
func (e *Engine) Name() string { return "openai" }

// NewStream starts a stream; ctx bounds its life and its requests.
func (e *Engine) NewStream(ctx context.Context) (stt.Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{
		e:      e,
		ctx:    ctx,
		cancel: cancel,
		events: make(chan stt.Event, eventQueue),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	go s.run()
	return s, nil
}

// transcribe uploads one utterance and returns its text. A 5xx answer or a
// connection failure is retried once.
func (e *Engine) transcribe(ctx context.Context, pcm []int16) (string, error) {
	var body bytes.Buffer
	body.Grow(44 + 2*len(pcm))
	if err := wav.Encode(&body, pcm, stt.SampleRate); err != nil {
		return "", fmt.Errorf("stt: openai transcription: %w", err)
	}
	for attempt := 1; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
		resp, err := e.api.Client.CreateTranscription(rctx, goopenai.AudioRequest{
			Model:    e.opts.Model,
			FilePath: "utterance.wav",
			Reader:   bytes.NewReader(body.Bytes()),
			Language: e.opts.Language,
			Format:   goopenai.AudioResponseFormatJSON,
		})
		cancel()
		if err == nil {
			return strings.TrimSpace(resp.Text), nil
		}
		status := openaiapi.HTTPStatus(err)
		if status == 401 {
			return "", fmt.Errorf("stt: openai transcription: the API key was rejected (HTTP 401); check OPENAI_API_KEY (and OPENAI_BASE_URL when using another server): %w: %w", stt.ErrAuth, err)
		}
		retry := status >= 500 || (status == 0 && ctx.Err() == nil)
		if attempt == 2 || !retry {
			return "", fmt.Errorf("stt: openai transcription: %w", err)
		}
		e.api.Log.Warn("stt: openai transcription failed; retrying once", "err", err.Error())
	}
}

// stream keeps the current utterance's audio and queues finished
// utterances for its transcription goroutine.
type stream struct {
	e      *Engine
	ctx    context.Context
	cancel context.CancelFunc
	events chan stt.Event
	wake   chan struct{} // a job was queued
	done   chan struct{} // the transcription goroutine has ended

	mu        sync.Mutex
	pcm       []int16   // current utterance
	truncated bool      // current utterance hit MaxUtterance
	queue     [][]int16 // finished utterances waiting for transcription
	closed    bool
	failErr   error
}

// Write keeps the frame when it belongs to an utterance.
func (s *stream) Write(frame []int16, inUtterance bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	if !inUtterance {
		return nil
	}
	if room := maxUtteranceSamples - len(s.pcm); room < len(frame) {
		if !s.truncated {
			s.truncated = true
			s.e.api.Log.Warn("stt: openai utterance too long; dropping the rest", "max", MaxUtterance)
		}
		frame = frame[:max(room, 0)]
	}
	s.pcm = append(s.pcm, frame...)
	return nil
}

// EndOfSpeech queues the kept audio for transcription, unless it is shorter
// than MinUtterance.
func (s *stream) EndOfSpeech() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	pcm := s.pcm
	s.pcm, s.truncated = nil, false
	if len(pcm) < minUtteranceSamples {
		return nil
	}
	s.queue = append(s.queue, pcm)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// Events delivers Finals and UtteranceEnds in utterance order; it is closed
// when the stream ends.
func (s *stream) Events() <-chan stt.Event { return s.events }

// Close ends the stream at once: a transcription in flight is cancelled and
// queued utterances are dropped.
func (s *stream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.mu.Unlock()
	s.cancel()
	<-s.done
	return nil
}

func (s *stream) usable() error {
	if s.closed {
		return errors.New("stt: openai: stream is closed")
	}
	if s.failErr != nil {
		return s.failErr
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("stt: openai: stream ended: %w", err)
	}
	return nil
}

// run transcribes queued utterances one at a time.
func (s *stream) run() {
	defer close(s.done)
	defer close(s.events)
	for {
		pcm, ok := s.next()
		if !ok {
			return
		}
		text, err := s.e.transcribe(s.ctx, pcm)
		if s.ctx.Err() != nil {
			return
		}
		if err != nil {
			if errors.Is(err, stt.ErrAuth) {
				s.e.api.Log.Error("stt: openai rejected the API key; stopping transcription", "err", err.Error())
				s.mu.Lock()
				s.failErr = err
				s.mu.Unlock()
				s.cancel()
				return
			}
			s.e.api.Log.Warn("stt: openai transcription failed; utterance lost", "err", err.Error(),
				"audio", time.Duration(len(pcm))*time.Second/stt.SampleRate)
			continue
		}
		if text == "" {
			continue
		}
		s.emit(stt.Event{Type: stt.Final, Text: text})
		s.emit(stt.Event{Type: stt.UtteranceEnd})
	}
}

// next waits for a queued utterance; false means the stream has ended.
func (s *stream) next() ([]int16, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			pcm := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return pcm, true
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-s.ctx.Done():
			return nil, false
		}
	}
}

func (s *stream) emit(ev stt.Event) {
	ev.At = time.Now()
	select {
	case s.events <- ev:
	case <-s.ctx.Done():
	}
}

// InLanguage returns an engine like e for speech in tag, sent as the
// transcription request's language (ISO-639-1: es for es-MX).
func (e *Engine) InLanguage(tag string) stt.Engine {
	c := *e
	base, _, _ := strings.Cut(tag, "-")
	c.opts.Language = strings.ToLower(base)
	return &c
}
