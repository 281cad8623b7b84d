// Package sphinx is the offline speech-to-text engine: CMU pocketsphinx
// (Debian packages pocketsphinx, pocketsphinx-en-us, libpocketsphinx-dev)
// called through cgo. It needs no network and no key. Recognition is per
// utterance: frames are decoded as they arrive while the voice activity
// detector says the candidate speaks, so the transcript is ready a few tens
// of milliseconds after the end of speech.
//
// A pocketsphinx decoder holds its own copy of the acoustic model,
// dictionary and language model (about 90 MB resident with the en-us model)
// and takes about 0.4 s to load, and it is not safe for concurrent use. The
// engine therefore keeps a process-wide pool of decoders per model
// directory: a stream borrows one for the length of an utterance only, so a
// worker needs as many decoders as candidates speaking at the same moment,
// not as many as open interviews. The pool keeps one spare loaded so the
// next speaker rarely waits for a load, grows on demand and never shrinks.
package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>

void viva_ps_quiet(void);
ps_decoder_t *viva_ps_new(const char *hmm, const char *lm, const char *dict, char *errbuf, size_t errlen);
int viva_ps_cmn_len(ps_decoder_t *ps);
void viva_ps_cmn_get(ps_decoder_t *ps, mfcc_t *vec);
void viva_ps_cmn_set(ps_decoder_t *ps, const mfcc_t *vec);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/viva-interviews/viva/agent/stt"
)

// DefaultModelDir is where Debian's pocketsphinx-en-us installs the US
// English model.
const DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"

// ErrModelNotFound is wrapped by New's error when a model file is missing.
var ErrModelNotFound = errors.New("pocketsphinx model not found")

// ErrClosed is returned by Write and EndOfSpeech after Close.
var ErrClosed = errors.New("stt: sphinx: stream closed")

// interimEverySamples is how much audio (300 ms at 16 kHz) is fed between
// two looks at the partial hypothesis. A look costs about 10 µs.
const interimEverySamples = stt.SampleRate * 300 / 1000

// Options configures the engine.
type Options struct {
	// ModelDir holds the model in Debian's layout: the acoustic model in
	// en-us/, the language model en-us.lm.bin and the dictionary
	// cmudict-en-us.dict. Empty means DefaultModelDir.
	ModelDir string
	// Logger receives the engine's log lines; nil means slog.Default().
	// Engines sharing a model directory log through the first one's
	// logger.
	Logger *slog.Logger
}

// Engine recognises speech with pocketsphinx. It is safe for concurrent use;
// engines on the same model directory share one decoder pool.
type Engine struct {
	pool *pool
}

var _ stt.Engine = (*Engine)(nil)

// pools holds the process's decoder pools by model directory.
var pools struct {
	sync.Mutex
	byDir map[string]*pool
}

// quiet silences pocketsphinx's own logging (it writes its whole
// configuration and progress to stderr) once per process.
var quiet sync.Once

// New returns an engine on the model in opts.ModelDir, loading it (about
// 0.5 s) unless this process has already loaded it. A missing model is an
// error wrapping ErrModelNotFound that says which package to install.
func New(opts Options) (*Engine, error) {
	dir := opts.ModelDir
	if dir == "" {
		dir = DefaultModelDir
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("stt: sphinx: model directory %q: %w", opts.ModelDir, err)
	}
	pools.Lock()
	defer pools.Unlock()
	if p := pools.byDir[dir]; p != nil {
		return &Engine{pool: p}, nil
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	p, err := newPool(dir, log.With("stt", "sphinx"))
	if err != nil {
		return nil, err
	}
	if pools.byDir == nil {
		pools.byDir = make(map[string]*pool)
	}
	pools.byDir[dir] = p
	return &Engine{pool: p}, nil
}

// Name is "sphinx".
func (e *Engine) Name() string { return "sphinx" }

// Decoders reports how many decoders the engine's pool has loaded and how
// many of them are idle, for monitoring memory (about 90 MB each).
func (e *Engine) Decoders() (total, idle int) {
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return e.pool.total, len(e.pool.idle)
}

// DecodeAll recognises one utterance of 16 kHz mono PCM16 audio and returns
// its transcript (lower case, "" when no words were recognised).
func (e *Engine) DecodeAll(pcm16k []int16) (string, error) {
	d, err := e.pool.get()
	if err != nil {
		return "", err
	}
	defer e.pool.put(d)
	d.setCMN(e.pool.prior)
	if err := d.start(); err != nil {
		return "", err
	}
	if err := d.process(pcm16k); err != nil {
		_, _ = d.end()
		return "", err
	}
	return d.end()
}

// defaultEngine serves the package-level DecodeAll.
var defaultEngine = sync.OnceValues(func() (*Engine, error) { return New(Options{}) })

// DecodeAll recognises one utterance of 16 kHz mono PCM16 audio with the
// default model, for tests and benchmarks.
func DecodeAll(pcm16k []int16) (string, error) {
	e, err := defaultEngine()
	if err != nil {
		return "", err
	}
	return e.DecodeAll(pcm16k)
}

// NewStream opens a recognition stream. It borrows no decoder until speech
// arrives. When ctx is done the stream closes itself.
func (e *Engine) NewStream(ctx context.Context) (stt.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stt: sphinx: new stream: %w", err)
	}
	s := &stream{pool: e.pool, q: newEventQueue()}
	s.mu.Lock()
	s.stopWatch = context.AfterFunc(ctx, func() { _ = s.Close() })
	s.mu.Unlock()
	return s, nil
}

// pool is the decoders of one model directory.
type pool struct {
	hmm, lm, dict string
	log           *slog.Logger
	// prior is a fresh decoder's cepstral mean estimate, the starting
	// point for every new speaker.
	prior []C.mfcc_t

	mu      sync.Mutex
	idle    []*decoder
	total   int
	warming bool // a spare is being loaded
}

// decoder is one pocketsphinx decoder; only its current borrower uses it.
type decoder struct {
	ps *C.ps_decoder_t
}

// newPool checks the model files and loads the first decoder.
func newPool(dir string, log *slog.Logger) (*pool, error) {
	p := &pool{
		hmm:  filepath.Join(dir, "en-us"),
		lm:   filepath.Join(dir, "en-us.lm.bin"),
		dict: filepath.Join(dir, "cmudict-en-us.dict"),
		log:  log,
	}
	// pocketsphinx exits the process on some missing acoustic model files,
	// so every file is checked here first.
	required := []string{p.lm, p.dict}
	for _, f := range []string{"mdef", "means", "variances", "transition_matrices", "noisedict"} {
		required = append(required, filepath.Join(p.hmm, f))
	}
	for _, f := range required {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("stt: sphinx: %w in %s (missing %s): install pocketsphinx-en-us (apt-get install pocketsphinx-en-us)", ErrModelNotFound, dir, strings.TrimPrefix(f, dir+"/"))
		}
	}
	if !exists(filepath.Join(p.hmm, "sendump")) && !exists(filepath.Join(p.hmm, "mixture_weights")) {
		return nil, fmt.Errorf("stt: sphinx: %w in %s (missing en-us/sendump): install pocketsphinx-en-us (apt-get install pocketsphinx-en-us)", ErrModelNotFound, dir)
	}
	quiet.Do(func() { C.viva_ps_quiet() })

	start := time.Now()
	d, err := p.load()
	if err != nil {
		return nil, err
	}
	p.prior = d.cmnVec()
	p.idle = append(p.idle, d)
	p.total = 1
	log.Debug("pocketsphinx model loaded", "dir", dir, "took", time.Since(start))
	return p, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// load creates a decoder (about 0.4 s and 90 MB); the caller counts it.
func (p *pool) load() (*decoder, error) {
	hmm, lm, dict := C.CString(p.hmm), C.CString(p.lm), C.CString(p.dict)
	defer C.free(unsafe.Pointer(hmm))
	defer C.free(unsafe.Pointer(lm))
	defer C.free(unsafe.Pointer(dict))
	var errbuf [1024]C.char
	ps := C.viva_ps_new(hmm, lm, dict, &errbuf[0], C.size_t(len(errbuf)))
	if ps == nil {
		reason := strings.TrimSpace(C.GoString(&errbuf[0]))
		if reason == "" {
			reason = "unknown error"
		}
		return nil, fmt.Errorf("stt: sphinx: load model from %s: %s: reinstall pocketsphinx-en-us (apt-get install --reinstall pocketsphinx-en-us)", filepath.Dir(p.lm), reason)
	}
	return &decoder{ps: ps}, nil
}

// get borrows a decoder: an idle one when there is one (then a spare starts
// loading in the background if none is left), else a new one loaded now.
func (p *pool) get() (*decoder, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		d := p.idle[n-1]
		p.idle = p.idle[:n-1]
		if len(p.idle) == 0 {
			p.warmLocked()
		}
		p.mu.Unlock()
		return d, nil
	}
	p.mu.Unlock()
	start := time.Now()
	d, err := p.load()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.total++
	p.mu.Unlock()
	p.log.Info("sphinx decoder loaded on demand: more candidates speaking at once than decoders loaded", "took", time.Since(start))
	return d, nil
}

// warmLocked starts loading a spare decoder unless one is loading already.
// The load is finite work that cannot be interrupted; the decoder joins the
// idle list when it is ready.
func (p *pool) warmLocked() {
	if p.warming {
		return
	}
	p.warming = true
	go func() {
		d, err := p.load()
		p.mu.Lock()
		p.warming = false
		if err == nil {
			p.idle = append(p.idle, d)
			p.total++
		}
		p.mu.Unlock()
		if err != nil {
			p.log.Warn("sphinx spare decoder failed to load", "err", err)
		}
	}()
}

// put returns a decoder, with no utterance in progress, to the idle list.
func (p *pool) put(d *decoder) {
	p.mu.Lock()
	p.idle = append(p.idle, d)
	p.mu.Unlock()
}

// setCMN makes vec (from prior or a stream) the decoder's cepstral mean
// estimate, so each speaker keeps their own channel normalisation whichever
// decoder they borrow.
func (d *decoder) setCMN(vec []C.mfcc_t) {
	if len(vec) > 0 {
		C.viva_ps_cmn_set(d.ps, &vec[0])
	}
}

// start begins an utterance.
func (d *decoder) start() error {
	if C.ps_start_utt(d.ps) < 0 {
		return errors.New("stt: sphinx: cannot start an utterance")
	}
	return nil
}

// process decodes 16 kHz PCM16 samples of the utterance in progress, passing
// pocketsphinx the slice's memory without a copy.
func (d *decoder) process(pcm []int16) error {
	if len(pcm) == 0 {
		return nil
	}
	if C.ps_process_raw(d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm)), 0, 0) < 0 {
		return errors.New("stt: sphinx: decoding failed")
	}
	return nil
}

// end finishes the utterance in progress and returns its transcript.
func (d *decoder) end() (string, error) {
	if C.ps_end_utt(d.ps) < 0 {
		return "", errors.New("stt: sphinx: cannot end the utterance")
	}
	return d.hypothesis(), nil
}

// cmnVec is the decoder's current cepstral mean estimate.
func (d *decoder) cmnVec() []C.mfcc_t {
	n := int(C.viva_ps_cmn_len(d.ps))
	if n == 0 {
		return nil
	}
	v := make([]C.mfcc_t, n)
	C.viva_ps_cmn_get(d.ps, &v[0])
	return v
}

// hypothesis is the decoder's current best transcript.
func (d *decoder) hypothesis() string {
	h := C.ps_get_hyp(d.ps, nil)
	if h == nil {
		return ""
	}
	return strings.TrimSpace(C.GoString(h))
}

// stream is one speaker's recognition session.
type stream struct {
	pool *pool
	q    *eventQueue

	mu           sync.Mutex // serialises decoder calls against Close
	stopWatch    func() bool
	closed       bool
	dec          *decoder   // borrowed for the utterance in progress
	cmn          []C.mfcc_t // this speaker's cepstral mean estimate
	sinceInterim int        // samples fed since the last partial hypothesis
	lastInterim  string
}

// Write feeds a frame to the utterance in progress, starting one on the
// first frame with inUtterance; frames outside utterances are ignored. It
// emits an Interim event when the partial transcript changed, looked at
// after every 300 ms of audio. The frame is passed to pocketsphinx without a
// copy.
func (s *stream) Write(frame []int16, inUtterance bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if !inUtterance || len(frame) == 0 {
		return nil
	}
	if s.dec == nil {
		if err := s.startLocked(); err != nil {
			return err
		}
	}
	if err := s.dec.process(frame); err != nil {
		s.endLocked()
		return fmt.Errorf("%w; the utterance was dropped", err)
	}
	s.sinceInterim += len(frame)
	if s.sinceInterim >= interimEverySamples {
		s.sinceInterim = 0
		if text := s.dec.hypothesis(); text != "" && text != s.lastInterim {
			s.lastInterim = text
			s.q.push(stt.Event{Type: stt.Interim, Text: text, At: time.Now()})
		}
	}
	return nil
}

// startLocked borrows a decoder and starts an utterance on it.
func (s *stream) startLocked() error {
	d, err := s.pool.get()
	if err != nil {
		return err
	}
	if s.cmn != nil {
		d.setCMN(s.cmn)
	} else {
		d.setCMN(s.pool.prior)
	}
	if err := d.start(); err != nil {
		s.pool.put(d)
		return err
	}
	s.dec = d
	s.sinceInterim = 0
	s.lastInterim = ""
	return nil
}

// endLocked ends the utterance in progress, keeps the speaker's cepstral
// mean and returns the decoder to the pool. It returns the transcript.
func (s *stream) endLocked() string {
	d := s.dec
	s.dec = nil
	text, _ := d.end() // a failed end leaves no transcript to report
	s.cmn = d.cmnVec()
	s.pool.put(d)
	return text
}

// EndOfSpeech finishes the utterance: a Final with the transcript when words
// were recognised, then UtteranceEnd. Every call yields exactly one
// UtteranceEnd, also when no speech was written since the last one.
func (s *stream) EndOfSpeech() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.dec != nil {
		if text := s.endLocked(); text != "" {
			s.q.push(stt.Event{Type: stt.Final, Text: text, At: time.Now()})
		}
	}
	s.q.push(stt.Event{Type: stt.UtteranceEnd, At: time.Now()})
	return nil
}

// Events delivers the stream's results in order. Events wait in a queue so
// Write and EndOfSpeech never block on a slow reader; while the reader lags,
// an undelivered Interim is dropped when a newer event arrives, so the queue
// holds at most one Interim and grows only by the Finals and UtteranceEnds
// of whole utterances, which are never dropped. Events not yet received at
// Close are discarded.
func (s *stream) Events() <-chan stt.Event { return s.q.out }

// Close abandons any utterance in progress, returns the decoder to the pool
// and closes Events. It is safe to call more than once and concurrently
// with Write.
func (s *stream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.dec != nil {
		s.endLocked()
	}
	stopWatch := s.stopWatch
	s.mu.Unlock()
	stopWatch()
	s.q.close()
	return nil
}

// eventQueue hands events from the audio goroutine to the reader through a
// forwarding goroutine, which stops at close.
type eventQueue struct {
	out  chan stt.Event
	wake chan struct{}
	done chan struct{}
	gone chan struct{} // closed when the forwarder has exited

	mu      sync.Mutex
	pending []stt.Event
}

func newEventQueue() *eventQueue {
	q := &eventQueue{
		out:  make(chan stt.Event),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
		gone: make(chan struct{}),
	}
	go q.forward()
	return q
}

// push queues ev without blocking. An undelivered Interim is dropped as
// soon as a newer event is queued: it would only show stale text.
func (q *eventQueue) push(ev stt.Event) {
	q.mu.Lock()
	if n := len(q.pending); n > 0 && q.pending[n-1].Type == stt.Interim {
		q.pending[n-1] = ev
	} else {
		q.pending = append(q.pending, ev)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// forward delivers queued events until close. An Interim waiting for the
// reader gives way to whatever event is queued after it.
func (q *eventQueue) forward() {
	defer close(q.gone)
	defer close(q.out)
	for {
		ev, ok := q.next()
		if !ok {
			return
		}
		for sent := false; !sent; {
			select {
			case q.out <- ev:
				sent = true
			case <-q.wake:
				if ev.Type == stt.Interim {
					q.mu.Lock()
					if len(q.pending) > 0 {
						ev = q.popLocked()
					}
					q.mu.Unlock()
				}
			case <-q.done:
				return
			}
		}
	}
}

// next waits for the oldest queued event; false means the queue closed.
func (q *eventQueue) next() (stt.Event, bool) {
	for {
		q.mu.Lock()
		if len(q.pending) > 0 {
			ev := q.popLocked()
			q.mu.Unlock()
			return ev, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-q.done:
			return stt.Event{}, false
		}
	}
}

func (q *eventQueue) popLocked() stt.Event {
	ev := q.pending[0]
	q.pending[0] = stt.Event{}
	q.pending = q.pending[1:]
	return ev
}

// close stops the forwarder and waits until it has closed out.
func (q *eventQueue) close() {
	close(q.done)
	<-q.gone
}

// free releases the decoder's memory; the decoder must not be in a pool.
func (p *pool) free(d *decoder) {
	C.ps_free(d.ps)
	p.mu.Lock()
	p.total--
	p.mu.Unlock()
}
