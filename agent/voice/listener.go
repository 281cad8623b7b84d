package voice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/config"
)

// Listener defaults. Each applies when the matching ListenerOptions field is
// zero.
const (
	// DefaultVADMode is webrtc VAD aggressiveness 3 ("very aggressive"). On
	// flite speech in light noise it finds every utterance with the onset
	// within 100 ms, as mode 2 does; typing near the microphone, which
	// starts false utterances in mode 2, starts none in mode 3 (see
	// TestListenerNoiseOnly). False starts matter most for barge-in.
	DefaultVADMode = 3
	// DefaultMinSpeech is how much voiced audio starts an utterance.
	DefaultMinSpeech = 60 * time.Millisecond
	// DefaultMinSilence is how much unvoiced audio ends one.
	DefaultMinSilence = 250 * time.Millisecond
	// DefaultPreRoll is how much audio before the onset reaches the STT
	// engine marked as utterance, so the first syllable is not cut.
	DefaultPreRoll = 200 * time.Millisecond
	// The turn-taking defaults (endpointing, thinking pause, interrupt
	// threshold) are viva's settings' defaults, written once in package
	// config.
	// EventBuffer is the capacity of the Events channel.
	EventBuffer = 64
	// maxHeldEvents bounds the events held back for a reader that is not
	// keeping up, beyond the channel's own buffer.
	maxHeldEvents = 4096
)

// ErrClosed is returned by WriteSample after Close.
var ErrClosed = errors.New("voice: listener closed")

// ListenerOptions configure a Listener. Zero fields take the defaults above.
type ListenerOptions struct {
	// STT makes the recognition stream the Listener feeds. Required.
	STT stt.Engine
	// VADMode is the webrtc VAD aggressiveness, 1 (low bitrate), 2
	// (aggressive) or 3 (very aggressive); 0 means DefaultVADMode. webrtc's
	// mode 0 ("quality") calls most background noise speech and is not
	// offered.
	VADMode int
	// MinSpeech is how much voiced audio, within a window of MinSpeech +
	// 40 ms, starts an utterance (at most 1 s).
	MinSpeech time.Duration
	// MinSilence is how much consecutive unvoiced audio ends an utterance.
	MinSilence time.Duration
	// PreRoll is how much audio before the onset is sent to the STT stream
	// marked inUtterance; negative disables it.
	PreRoll time.Duration
	// EndpointingDelay is the base wait between the end of speech and
	// committing a turn (adapted to the text, see FinishedFactor: finished
	// sentences wait less, trailing "and"/"um"/commas wait more).
	EndpointingDelay time.Duration
	// EndpointingMin and EndpointingMax clamp the adaptive delay.
	EndpointingMin, EndpointingMax time.Duration
	// ThinkingPause is the wait after a transcript that stops mid-clause
	// ("…and the main reason was", "um"): room to think
	// (config.DefaultThinkingPause when zero; negative falls back to
	// UnfinishedFactor × EndpointingDelay).
	ThinkingPause time.Duration
	// InterruptThreshold is how long the candidate must speak over the
	// agent to emit an Interruption: from the first to the latest voiced
	// frame, at least half of it voiced.
	InterruptThreshold time.Duration
	// Now is the clock; it must agree with the time package's timers
	// (time.Now, the default, does; so does the fake clock of
	// testing/synctest).
	Now func() time.Time
	// Logger receives warnings (dropped events, STT stream failures).
	Logger *slog.Logger
}

// Listener turns one speaker's 16 kHz mono PCM16 audio into Events: voice
// activity, transcripts, barge-in and end of turn.
//
// The audio path (WriteSample) runs on the caller's goroutine, allocates
// nothing per frame and never blocks on the event reader. One goroutine
// reads the STT stream's results; endpointing uses one reusable timer.
//
// It is a composition of small parts, each tested alone: voiceActivity
// (framing and VAD), preRollBuffer, bargeInDetector, endpointer,
// captionSegments and eventQueue.
//
// # Voice activity and the STT feed
//
// Frames are 20 ms. An utterance starts when MinSpeech of the last
// MinSpeech + 40 ms was voiced and ends after MinSilence unvoiced; the first
// 200 ms of a stream only train the detector's noise model. While no
// utterance is in progress, frames pass through a delay line of PreRoll +
// the detection window before they reach the STT stream (as not-utterance);
// at the onset the whole line is flushed as utterance, so the engine gets
// the pre-roll and the first syllable, then frames go straight through
// until the end. Every frame reaches the stream exactly once, in order,
// and the delay line never delays speech itself.
//
// # End of turn
//
// A turn ends when an STT final with text has arrived and the candidate
// has been silent (measured from the end of the last voiced frame) for the
// adaptive endpointing delay (see FinishedFactor). Speech resuming first
// cancels the pending end; finals accumulate into one turn until then.
// Finals that arrive with no voice activity since the last turn count the
// delay from the first such final.
//
// # Slow readers
//
// Events is buffered (EventBuffer). When the buffer is full, interim
// transcripts are dropped (a later interim or the final supersedes them)
// and every other event waits, in order, in an internal queue that the
// Listener's goroutine delivers as the reader catches up; while that queue
// is non-empty, new interims are dropped too, so order is never broken.
// The queue holds up to 4096 events; a reader that far behind is treated
// as gone and further events are dropped with an error log.
//
// # Opus
//
// An OpusInput (NewOpusInput) decodes a track's Opus packets into the
// Listener at 16 kHz; silence the sender marked (DTX packets, pauses in
// its packets) arrives through WriteSilence and is not shown to the VAD.
type Listener struct {
	// closing is set when Close begins, so the end of the STT stream it
	// causes is not taken for a failure.
	closing atomic.Bool
	log     *slog.Logger
	now     func() time.Time
	stream  stt.Stream
	events  *eventQueue
	bargeIn bargeInDetector // setAgentSpeaking from any goroutine

	// Audio path, owned by the WriteSample caller (audioMu).
	audioMu     sync.Mutex
	audioClosed bool
	activity    voiceActivity
	preRoll     preRollBuffer

	// Turn state (mu), shared by the audio path, the STT reader and the
	// endpointing timer.
	mu       sync.Mutex
	closed   bool
	endpoint endpointer
	// thinkingShown is set once ThinkingPause was emitted for the
	// current wait.
	thinkingShown bool
	// likely is the text of the LikelyEndOfTurn emitted for the current
	// turn, so each text is announced once.
	likely   string
	segments captionSegments
	timer    *time.Timer

	stop      chan struct{}
	exited    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// NewListener opens an STT stream on opts.STT (bounded by ctx) and starts
// listening. Close it when the speaker leaves.
func NewListener(ctx context.Context, opts ListenerOptions) (*Listener, error) {
	if opts.STT == nil {
		return nil, errors.New("voice: listener: no STT engine configured; pass ListenerOptions.STT")
	}
	mode := opts.VADMode
	if mode == 0 {
		mode = DefaultVADMode
	}
	if mode < 1 || mode > 3 {
		return nil, fmt.Errorf("voice: listener: VAD mode %d out of range; use 1, 2 or 3 (0 for the default %d)", opts.VADMode, DefaultVADMode)
	}
	minSpeech := orDefault(opts.MinSpeech, DefaultMinSpeech)
	minSilence := orDefault(opts.MinSilence, DefaultMinSilence)
	preRoll := orDefault(opts.PreRoll, DefaultPreRoll)
	threshold := orDefault(opts.InterruptThreshold, config.DefaultInterruptThreshold)
	endpoint := endpointer{
		baseDelay: orDefault(opts.EndpointingDelay, config.DefaultEndpointingDelay),
		minDelay:  orDefault(opts.EndpointingMin, config.DefaultEndpointingMin),
		maxDelay:  orDefault(opts.EndpointingMax, config.DefaultEndpointingMax),

		thinkingPause: orDefault(opts.ThinkingPause, config.DefaultThinkingPause),
	}
	switch {
	case minSpeech < 0 || minSpeech > maxMinSpeech:
		return nil, fmt.Errorf("voice: listener: MinSpeech %v out of range; use up to %v", minSpeech, maxMinSpeech)
	case minSilence < 0 || threshold < 0:
		return nil, errors.New("voice: listener: MinSilence and InterruptThreshold must not be negative")
	case endpoint.minDelay < 0 || endpoint.minDelay > endpoint.maxDelay:
		return nil, fmt.Errorf("voice: listener: endpointing bounds [%v, %v] are inverted; EndpointingMin must not exceed EndpointingMax", endpoint.minDelay, endpoint.maxDelay)
	}
	vad, err := newWebrtcClassifier(mode)
	if err != nil {
		return nil, fmt.Errorf("voice: listener: %w", err)
	}
	l := &Listener{
		log:      loggerOr(opts.Logger),
		now:      opts.Now,
		bargeIn:  newBargeInDetector(framesCeil(threshold)),
		activity: newVoiceActivity(vad, minSpeech, minSilence),
		endpoint: endpoint,
		segments: newCaptionSegments(),
		stop:     make(chan struct{}),
		exited:   make(chan struct{}),
	}
	l.activity.tailFloor = tailFloorRMS
	if l.now == nil {
		l.now = time.Now
	}
	l.events = newEventQueue(EventBuffer, maxHeldEvents, l.log)
	stream, err := opts.STT.NewStream(ctx)
	if err != nil {
		return nil, fmt.Errorf("voice: listener: open %s stream: %w", opts.STT.Name(), err)
	}
	l.stream = stream
	preRollFrames := 0
	if preRoll > 0 {
		preRollFrames = framesCeil(preRoll)
	}
	// The delay line holds the pre-roll before the earliest possible
	// onset, which lies up to a detection window before the decision.
	l.preRoll = newPreRollBuffer(stream, preRollFrames+l.activity.windowFrames())
	l.timer = time.AfterFunc(time.Hour, l.onTimer)
	l.timer.Stop()
	go l.run(ctx)
	return l, nil
}

// Events delivers what the Listener noticed, in order. It is closed after
// Close (or when the NewListener context ends).
func (l *Listener) Events() <-chan Event { return l.events.events() }

// SetAgentSpeaking tells the Listener whether the agent's audio is playing.
// Barge-in is only detected while it is; each false → true transition
// starts a new agent utterance that can be interrupted once.
func (l *Listener) SetAgentSpeaking(speaking bool) {
	l.bargeIn.setAgentSpeaking(speaking)
}

// WriteSample feeds 16 kHz mono PCM16 audio of any length. It re-frames it
// into 20 ms frames, classifies each, writes each to the STT stream and
// emits events; it never blocks on the event reader. The slice is not
// retained. An STT write error is returned (wrapped) after the whole chunk
// has been processed, so voice activity and barge-in keep working.
func (l *Listener) WriteSample(pcm []int16) error {
	l.audioMu.Lock()
	defer l.audioMu.Unlock()
	if l.audioClosed {
		return ErrClosed
	}
	return l.write(pcm, 0, l.activity.fill)
}

// WriteSilence feeds samples of silence the sender marked as such (an
// Opus DTX packet, a pause in its packets): it reaches the STT stream and
// endpointing as zeros, but whole frames of it skip voice activity
// detection, which would only call them unvoiced.
func (l *Listener) WriteSilence(samples int) error {
	l.audioMu.Lock()
	defer l.audioMu.Unlock()
	if l.audioClosed {
		return ErrClosed
	}
	var firstErr error
	for samples > 0 {
		k := min(samples, len(zeroFrame))
		samples -= k
		if err := l.write(zeroFrame[:k], samples, l.activity.fillSilence); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// write frames pcm with fill and processes each whole frame; after pcm,
// after more samples of the same chunk follow. audioMu must be held.
func (l *Listener) write(pcm []int16, after int, fill func([]int16) ([]int16, bool)) error {
	var (
		firstErr error
		now      time.Time
		full     bool
	)
	for len(pcm) > 0 {
		if pcm, full = fill(pcm); !full {
			break
		}
		if now.IsZero() {
			now = l.now()
		}
		// The chunk ends now; this frame ends len(pcm)+after samples earlier.
		frameEnd := now.Add(-samplesToDuration(int64(len(pcm)+after), InputSampleRate))
		if err := l.processFrame(frameEnd); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// processFrame runs the frame the framer holds through the parts: voice
// activity, then the pre-roll delay line or the STT stream, then barge-in.
// frameEnd is the wall-clock time at which its last sample was captured.
func (l *Listener) processFrame(frameEnd time.Time) error {
	act, err := l.activity.classify()
	if err != nil {
		return err
	}
	frame := l.activity.frame[:]
	var werr error
	if !act.inUtterance {
		if err := l.preRoll.push(frame); err != nil {
			werr = fmt.Errorf("voice: stt write: %w", err)
		}
		if act.started {
			if err := l.preRoll.flush(); err != nil && werr == nil {
				werr = fmt.Errorf("voice: stt write: %w", err)
			}
			l.speechStarted(frameEnd.Add(-VADFrameDuration * time.Duration(act.onsetFramesAgo+1)))
		}
	} else {
		if err := l.stream.Write(frame, true); err != nil {
			werr = fmt.Errorf("voice: stt write: %w", err)
		}
		if act.ended {
			if err := l.stream.EndOfSpeech(); err != nil && werr == nil {
				werr = fmt.Errorf("voice: stt end of speech: %w", err)
			}
			l.speechEnded(frameEnd.Add(-VADFrameDuration * time.Duration(act.silentFrames)))
		}
	}
	if speechFrames, interrupt := l.bargeIn.observe(act); interrupt {
		l.events.emit(Interruption{At: frameEnd, Speech: VADFrameDuration * time.Duration(speechFrames)})
	}
	return werr
}

// speechStarted holds back endpointing and reports the onset.
func (l *Listener) speechStarted(onset time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endpoint.speechStarted()
	l.thinkingShown = false
	l.timer.Stop()
	l.events.emit(SpeechStarted{At: onset})
}

// speechEnded reports the end of speech and lets endpointing run from it.
func (l *Listener) speechEnded(end time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endpoint.speechEnded(end)
	l.events.emit(SpeechEnded{At: end})
	l.evaluate(l.now())
}

// onTimer runs when an endpointing deadline may have passed.
func (l *Listener) onTimer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.evaluate(l.now())
	}
}

// evaluate commits the pending turn if the endpointer says so at now, or
// arms the timer for when it may. mu must be held.
func (l *Listener) evaluate(now time.Time) {
	turn, commit, wait := l.endpoint.decide(now)
	switch {
	case commit:
		l.thinkingShown = false
		l.likely = ""
		l.events.emit(turn)
	case wait > 0:
		if l.endpoint.thinking && !l.thinkingShown {
			l.thinkingShown = true
			l.events.emit(ThinkingPause{At: now})
		}
		if !l.endpoint.thinking && turn.Text != l.likely {
			l.likely = turn.Text
			l.events.emit(LikelyEndOfTurn{Text: turn.Text, At: now})
		}
		l.timer.Reset(wait)
	}
}

// run reads STT results and delivers held-back events until Close or the
// end of ctx, then closes Events.
func (l *Listener) run(ctx context.Context) {
	defer close(l.exited)
	results := l.stream.Events()
	for {
		out, head := l.events.pending()
		select {
		case ev, ok := <-results:
			if !ok {
				results = nil
				select {
				case <-l.stop:
				default:
					if ctx.Err() == nil && !l.closing.Load() {
						l.log.Warn("voice: the speech recogniser stopped; transcripts stop until the listener is replaced")
						l.events.emit(STTStopped{At: l.now()})
					}
				}
				continue
			}
			l.handleResult(ev)
		case out <- head:
			l.events.delivered()
		case <-l.events.woken():
		case <-l.stop:
			l.shutdown()
			return
		case <-ctx.Done():
			l.shutdown()
			return
		}
	}
}

// shutdown stops the timer and closes Events; later emits are dropped.
func (l *Listener) shutdown() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.timer.Stop()
	l.events.close()
}

// handleResult turns one STT result into transcript events and feeds
// finals to endpointing. Engine-side SpeechStarted and UtteranceEnd are
// ignored: the VAD is the single authority on voice activity.
func (l *Listener) handleResult(ev stt.Event) {
	at := ev.At
	if at.IsZero() {
		at = l.now()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev.Type {
	case stt.Interim:
		if tr, ok := l.segments.interim(ev.Text, at); ok {
			l.events.emit(tr)
		}
	case stt.Final:
		tr, ok := l.segments.final(ev.Text, at)
		if !ok {
			return
		}
		l.events.emit(tr)
		if tr.Text == "" {
			return
		}
		l.endpoint.final(tr.Text, at, ev.Confidence)
		l.evaluate(l.now())
	}
}

// Close stops the Listener: it closes the STT stream, stops its goroutine
// and timer, and closes Events. Later WriteSample calls return ErrClosed.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		l.closing.Store(true)
		l.audioMu.Lock()
		l.audioClosed = true
		if err := l.stream.Close(); err != nil {
			l.closeErr = fmt.Errorf("voice: close stt stream: %w", err)
		}
		l.audioMu.Unlock()
		close(l.stop)
		<-l.exited
	})
	return l.closeErr
}
