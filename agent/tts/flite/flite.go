// Package flite is the offline text-to-speech engine: CMU flite (Debian
// packages flite and flite1-dev) with its built-in US English female voice
// "slt", called through cgo. It needs no network and no key, synthesises
// much faster than real time, and streams audio as the vocoder produces it.
package flite

/*
#cgo CFLAGS: -I/usr/include/flite
#cgo LDFLAGS: -lflite_cmu_us_slt -lflite_usenglish -lflite_cmulex -lflite -lm
#include <stdint.h>
#include <stdlib.h>
#include <flite.h>

cst_voice *viva_flite_register(void);
int viva_flite_probe_rate(cst_voice *voice);
int viva_flite_synth(cst_voice *voice, const char *text, uintptr_t handle, int min_chunk_samples);
*/
import "C"

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"

	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/internal/wav"
)

// maxChunkMillis bounds the audio in one call of Synthesize's out.
const maxChunkMillis = 100

// vocoderChunkMillis is how much audio flite's vocoder produces before it
// calls back. Small chunks start playback sooner and stop sooner on
// cancellation; the callback costs about a microsecond.
const vocoderChunkMillis = 20

// Options configures the engine.
type Options struct {
	// Logger receives the engine's log lines; nil means slog.Default().
	Logger *slog.Logger
}

// Engine speaks with flite's slt voice. It is safe for concurrent use: flite
// is thread-safe once a voice is registered, synthesis state lives in each
// utterance, and the voice is registered once per process.
type Engine struct {
	voice  *C.cst_voice
	rateHz int
	// vocoded, when set, is told each time flite's vocoder hands over
	// samples, before they go to out: tests follow the order of events.
	vocoded func(samples int)
}

var _ tts.Engine = (*Engine)(nil)

// registered is the process's one slt voice and the sample rate it
// produces, read from a synthesised wave.
var registered = sync.OnceValues(func() (voice, error) {
	v := C.viva_flite_register()
	if v == nil {
		return voice{}, errors.New("tts: flite: cannot register voice cmu_us_slt: reinstall flite1-dev (apt-get install --reinstall flite1-dev)")
	}
	rate := int(C.viva_flite_probe_rate(v))
	if rate <= 0 {
		return voice{}, errors.New("tts: flite: voice cmu_us_slt produced no audio: reinstall flite1-dev (apt-get install --reinstall flite1-dev)")
	}
	return voice{v: v, rateHz: rate}, nil
})

type voice struct {
	v      *C.cst_voice
	rateHz int
}

// New returns an engine on the slt voice, registering the voice on first
// use (a few milliseconds; the voice is compiled into the library).
func New(opts Options) (*Engine, error) {
	v, err := registered()
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log.Debug("flite voice ready", "tts", "flite", "voice", "cmu_us_slt", "sample_rate_hz", v.rateHz)
	return &Engine{voice: v.v, rateHz: v.rateHz}, nil
}

// Name is "flite".
func (e *Engine) Name() string { return "flite" }

// SampleRate is the voice's native rate as flite reports it in its waves
// (16000 Hz for slt); audio is delivered at this rate, never resampled.
func (e *Engine) SampleRate() int { return e.rateHz }

// synthesis is the state one Synthesize call shares with its callback.
type synthesis struct {
	ctx      context.Context
	out      func(pcm []int16) error
	rateHz   int
	buf      []int16 // one chunk of at most 100 ms, reused
	vocoded  func(samples int)
	err      error // why synthesis stopped early
	panicked bool
	panicVal any
}

// Synthesize speaks text as one utterance, calling out with chunks of at most
// 100 ms of mono PCM16 at SampleRate as the vocoder produces them. The
// context is checked before every chunk; cancelling it or an error from out
// stops flite at its next vocoder chunk (every 20 ms of audio), and that
// error is returned as is. Text that is empty or only whitespace produces no audio and no error.
// Callers pass sentences: flite analyses the whole text before the first
// audio, so time to first audio grows with text length.
func (e *Engine) Synthesize(ctx context.Context, text string, out func(pcm []int16) error) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s := &synthesis{ctx: ctx, out: out, rateHz: e.rateHz, buf: make([]int16, e.rateHz*maxChunkMillis/1000), vocoded: e.vocoded}
	h := cgo.NewHandle(s)
	defer h.Delete()
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))

	rc := C.viva_flite_synth(e.voice, ctext, C.uintptr_t(h), C.int(e.rateHz*vocoderChunkMillis/1000))
	switch {
	case s.panicked:
		panic(s.panicVal)
	case s.err != nil:
		return s.err
	case rc < 0:
		return fmt.Errorf("tts: flite: synthesis failed for %d characters of text", len(text))
	}
	return nil
}

// vivaFliteChunk receives n samples of a synthesis in progress from flite
// and hands them to out in chunks of at most 100 ms. It returns
// CST_AUDIO_STREAM_STOP to make flite abandon the utterance.
//
//export vivaFliteChunk
func vivaFliteChunk(handle C.uintptr_t, samples *C.short, n C.int, rateHz C.int) (rc C.int) {
	s := cgo.Handle(handle).Value().(*synthesis)
	if s.err != nil || s.panicked {
		return C.CST_AUDIO_STREAM_STOP
	}
	// A panic must not unwind through flite's C frames: keep it and
	// re-raise it in Synthesize once flite has returned.
	defer func() {
		if v := recover(); v != nil {
			s.panicked, s.panicVal = true, v
			rc = C.CST_AUDIO_STREAM_STOP
		}
	}()
	if int(rateHz) != s.rateHz {
		s.err = fmt.Errorf("tts: flite: voice produced %d Hz audio, engine announced %d Hz", int(rateHz), s.rateHz)
		return C.CST_AUDIO_STREAM_STOP
	}
	if n <= 0 {
		return C.CST_AUDIO_STREAM_CONT
	}
	if s.vocoded != nil {
		s.vocoded(int(n))
	}
	src := unsafe.Slice((*int16)(unsafe.Pointer(samples)), int(n))
	for len(src) > 0 {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return C.CST_AUDIO_STREAM_STOP
		}
		k := copy(s.buf, src)
		if err := s.out(s.buf[:k]); err != nil {
			s.err = err
			return C.CST_AUDIO_STREAM_STOP
		}
		src = src[k:]
	}
	return C.CST_AUDIO_STREAM_CONT
}

// defaultEngine serves WAV.
var defaultEngine = sync.OnceValues(func() (*Engine, error) { return New(Options{}) })

// WAV speaks text and returns it as a mono 16-bit PCM RIFF WAVE file at the
// voice's rate: test utterances for a simulated candidate and audio files
// for a browser's fake microphone.
func WAV(text string) ([]byte, error) {
	e, err := defaultEngine()
	if err != nil {
		return nil, err
	}
	var pcm []int16
	if err := e.Synthesize(context.Background(), text, func(chunk []int16) error {
		pcm = append(pcm, chunk...)
		return nil
	}); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(44 + 2*len(pcm))
	if err := wav.Encode(&buf, pcm, e.rateHz); err != nil {
		return nil, fmt.Errorf("tts: flite: %w", err)
	}
	return buf.Bytes(), nil
}
