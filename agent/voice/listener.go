package voice

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	webrtcvad "github.com/maxhawkins/go-webrtcvad"

	"github.com/viva-interviews/viva/agent/stt"
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
	// DefaultEndpointingDelay is the base wait after the end of speech
	// before a turn with a final transcript is committed.
	DefaultEndpointingDelay = 500 * time.Millisecond
	// DefaultEndpointingMin is the shortest adaptive endpointing delay.
	DefaultEndpointingMin = 200 * time.Millisecond
	// DefaultEndpointingMax is the longest adaptive endpointing delay.
	DefaultEndpointingMax = 3 * time.Second
	// DefaultInterruptThreshold is how much voiced speech over the agent
	// interrupts it; coughs and back-channel "mm"s are far shorter.
	DefaultInterruptThreshold = 500 * time.Millisecond
	// EventBuffer is the capacity of the Events channel.
	EventBuffer = 64
	// warmupFrames is how many frames at the start of a stream only train
	// the VAD (200 ms).
	warmupFrames = 10
	// maxOverflowEvents bounds the events held back for a reader that is
	// not keeping up, beyond the channel's own buffer.
	maxOverflowEvents = 4096
)

// maxMinSpeech bounds MinSpeech so that the detection window fits the
// 64-frame voicing history.
const maxMinSpeech = 1 * time.Second

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
// # LiveKit
//
// lkmedia.NewPCMRemoteTrack (created with WithTargetSampleRate(16000) and
// WithTargetChannels(1)) calls a writer whose WriteSample takes
// media.PCM16Sample, a named []int16; a one-method adapter converts:
//
//	type listenerWriter struct{ *voice.Listener }
//
//	func (w listenerWriter) WriteSample(s media.PCM16Sample) error {
//		return w.Listener.WriteSample(s)
//	}
type Listener struct {
	// closing is set when Close begins, so the end of the STT stream it
	// causes is not taken for a failure.
	closing atomic.Bool
	log     *slog.Logger
	now     func() time.Time
	stream  stt.Stream
	vad     *webrtcvad.VAD

	// Resolved options.
	endpointingDelay, endpointingMin, endpointingMax time.Duration

	// Frame counts derived from the options.
	startFrames     int    // voiced frames within the window that start speech
	windowMask      uint64 // the last windowFrames bits of voicedBits
	endFrames       int    // unvoiced frames that end speech
	interruptFrames int    // voiced frames over the agent that interrupt

	// Audio path state, owned by the WriteSample caller (audioMu).
	audioMu     sync.Mutex
	audioClosed bool
	frame       [vadFrameSamples16kHz]int16
	fill        int
	// ring is a delay line of whole frames holding the pre-roll while no
	// utterance is in progress.
	ring        []int16
	ringFrames  int   // capacity in frames
	ringStart   int   // index (in frames) of the oldest frame
	ringLen     int   // frames held
	frameIdx    int64 // frames processed so far
	voicedBits  uint64
	inSpeech    bool
	silentRun   int // consecutive unvoiced frames in the utterance
	seenGen     uint64
	interrupted bool // Interruption already sent for this agent utterance
	// Barge-in: the first voiced frame of the candidate's speech over the
	// agent (-1 before it) and the voiced frames since.
	bargeStart  int64
	bargeVoiced int

	agentSpeaking atomic.Bool
	agentGen      atomic.Uint64

	// Shared state (mu): event delivery and endpointing.
	mu        sync.Mutex
	closed    bool
	events    chan Event
	overflow  []Event
	kick      chan struct{}
	dropped   int
	segPrefix string
	segN      int
	segShown  bool // the current segment has shown interim text

	speechActive      bool
	speechSinceCommit bool
	lastVoiceEnd      time.Time
	turn              []string
	firstFinalAt      time.Time
	lastFinalAt       time.Time
	timer             *time.Timer

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
	threshold := orDefault(opts.InterruptThreshold, DefaultInterruptThreshold)
	l := &Listener{
		log:              loggerOr(opts.Logger),
		now:              opts.Now,
		endpointingDelay: orDefault(opts.EndpointingDelay, DefaultEndpointingDelay),
		endpointingMin:   orDefault(opts.EndpointingMin, DefaultEndpointingMin),
		endpointingMax:   orDefault(opts.EndpointingMax, DefaultEndpointingMax),
		events:           make(chan Event, EventBuffer),
		kick:             make(chan struct{}, 1),
		stop:             make(chan struct{}),
		exited:           make(chan struct{}),
		bargeStart:       -1,
	}
	if l.now == nil {
		l.now = time.Now
	}
	switch {
	case minSpeech < 0 || minSpeech > maxMinSpeech:
		return nil, fmt.Errorf("voice: listener: MinSpeech %v out of range; use up to %v", minSpeech, maxMinSpeech)
	case minSilence < 0 || threshold < 0:
		return nil, errors.New("voice: listener: MinSilence and InterruptThreshold must not be negative")
	case l.endpointingMin < 0 || l.endpointingMin > l.endpointingMax:
		return nil, fmt.Errorf("voice: listener: endpointing bounds [%v, %v] are inverted; EndpointingMin must not exceed EndpointingMax", l.endpointingMin, l.endpointingMax)
	}
	l.startFrames = framesCeil(minSpeech)
	windowFrames := l.startFrames + 2
	l.windowMask = 1<<windowFrames - 1
	l.endFrames = framesCeil(minSilence)
	l.interruptFrames = framesCeil(threshold)
	preRollFrames := 0
	if preRoll > 0 {
		preRollFrames = framesCeil(preRoll)
	}
	// The delay line holds the pre-roll before the earliest possible
	// onset, which lies up to a detection window before the decision.
	l.ringFrames = preRollFrames + windowFrames
	l.ring = make([]int16, l.ringFrames*vadFrameSamples16kHz)

	vad, err := webrtcvad.New()
	if err != nil {
		return nil, fmt.Errorf("voice: listener: create VAD: %w", err)
	}
	if err := vad.SetMode(mode); err != nil {
		return nil, fmt.Errorf("voice: listener: set VAD mode %d: %w", mode, err)
	}
	l.vad = vad

	var id [6]byte
	_, _ = rand.Read(id[:])
	l.segPrefix = fmt.Sprintf("SG_%x_", id)

	stream, err := opts.STT.NewStream(ctx)
	if err != nil {
		return nil, fmt.Errorf("voice: listener: open %s stream: %w", opts.STT.Name(), err)
	}
	l.stream = stream
	l.timer = time.AfterFunc(time.Hour, l.onTimer)
	l.timer.Stop()
	go l.run(ctx)
	return l, nil
}

// framesCeil is the number of 20 ms frames covering d.
func framesCeil(d time.Duration) int {
	return int((d + VADFrameDuration - 1) / VADFrameDuration)
}

// Events delivers what the Listener noticed, in order. It is closed after
// Close (or when the NewListener context ends).
func (l *Listener) Events() <-chan Event { return l.events }

// SetAgentSpeaking tells the Listener whether the agent's audio is playing.
// Barge-in is only detected while it is; each false → true transition
// starts a new agent utterance that can be interrupted once.
func (l *Listener) SetAgentSpeaking(speaking bool) {
	if speaking && !l.agentSpeaking.Load() {
		l.agentGen.Add(1)
	}
	l.agentSpeaking.Store(speaking)
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
	var (
		firstErr error
		now      time.Time
	)
	for len(pcm) > 0 {
		n := copy(l.frame[l.fill:], pcm)
		l.fill += n
		pcm = pcm[n:]
		if l.fill < vadFrameSamples16kHz {
			break
		}
		l.fill = 0
		if now.IsZero() {
			now = l.now()
		}
		// The chunk ends now; this frame ends len(pcm) samples earlier.
		frameEnd := now.Add(-samplesToDuration(int64(len(pcm)), InputSampleRate))
		if err := l.processFrame(frameEnd); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// processFrame classifies l.frame and advances the detector. frameEnd is
// the wall-clock time at which the frame's last sample was captured.
func (l *Listener) processFrame(frameEnd time.Time) error {
	voiced, err := l.vad.Process(InputSampleRate, frameBytes(&l.frame))
	if err != nil {
		return fmt.Errorf("voice: vad: %w", err)
	}
	idx := l.frameIdx
	l.frameIdx++
	if idx < warmupFrames {
		// The detector's noise model starts empty and calls the first
		// frames of any noisy stream voiced; they only train it.
		voiced = false
	}
	l.voicedBits <<= 1
	if voiced {
		l.voicedBits |= 1
	}
	agent := l.agentSpeaking.Load()
	if gen := l.agentGen.Load(); gen != l.seenGen {
		l.seenGen = gen
		l.bargeStart, l.bargeVoiced = -1, 0
		l.interrupted = false
	}

	var werr error
	if !l.inSpeech {
		werr = l.delay()
		window := bits.OnesCount64(l.voicedBits & l.windowMask)
		if voiced && window >= l.startFrames {
			l.inSpeech = true
			l.silentRun = 0
			// The onset is the oldest voiced frame of the window.
			onsetAgo := 63 - bits.LeadingZeros64(l.voicedBits&l.windowMask)
			onset := frameEnd.Add(-VADFrameDuration * time.Duration(onsetAgo+1))
			if agent {
				l.bargeStart, l.bargeVoiced = idx-int64(onsetAgo), window
			}
			if err := l.flushRing(); err != nil && werr == nil {
				werr = err
			}
			l.speechStarted(onset)
		}
	} else {
		if err := l.stream.Write(l.frame[:], true); err != nil {
			werr = fmt.Errorf("voice: stt write: %w", err)
		}
		if voiced {
			l.silentRun = 0
			if agent {
				if l.bargeStart < 0 {
					l.bargeStart = idx
				}
				l.bargeVoiced++
			}
		} else {
			l.silentRun++
		}
		if l.silentRun >= l.endFrames {
			l.inSpeech = false
			l.bargeStart, l.bargeVoiced = -1, 0
			if err := l.stream.EndOfSpeech(); err != nil && werr == nil {
				werr = fmt.Errorf("voice: stt end of speech: %w", err)
			}
			l.speechEnded(frameEnd.Add(-VADFrameDuration * time.Duration(l.silentRun)))
		}
	}
	// Barge-in: the speech over the agent spans the threshold from its
	// first to its latest voiced frame (so the hangover after a cough does
	// not count) and at least half of that span was voiced (so two coughs
	// in a row do not either).
	if agent && voiced && l.inSpeech && !l.interrupted && l.bargeStart >= 0 {
		span := int(idx - l.bargeStart + 1)
		if span >= l.interruptFrames && 2*l.bargeVoiced >= l.interruptFrames {
			l.interrupted = true
			l.emitLocked(Interruption{At: frameEnd, Speech: VADFrameDuration * time.Duration(span)})
		}
	}
	return werr
}

// frameBytes views a frame as the native-endian bytes the VAD reads,
// without copying.
func frameBytes(f *[vadFrameSamples16kHz]int16) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*2)
}

// delay pushes the current frame into the pre-roll delay line; once the
// line is full, the oldest frame goes to the STT stream as not-utterance.
func (l *Listener) delay() error {
	var err error
	if l.ringLen == l.ringFrames {
		oldest := l.ring[l.ringStart*vadFrameSamples16kHz : (l.ringStart+1)*vadFrameSamples16kHz]
		if werr := l.stream.Write(oldest, false); werr != nil {
			err = fmt.Errorf("voice: stt write: %w", werr)
		}
		copy(oldest, l.frame[:])
		l.ringStart = (l.ringStart + 1) % l.ringFrames
		return err
	}
	i := (l.ringStart + l.ringLen) % l.ringFrames
	copy(l.ring[i*vadFrameSamples16kHz:], l.frame[:])
	l.ringLen++
	return nil
}

// flushRing writes every frame of the delay line to the STT stream as
// utterance (the pre-roll and the onset) and empties it.
func (l *Listener) flushRing() error {
	var err error
	for k := 0; k < l.ringLen; k++ {
		i := (l.ringStart + k) % l.ringFrames
		if werr := l.stream.Write(l.ring[i*vadFrameSamples16kHz:(i+1)*vadFrameSamples16kHz], true); werr != nil && err == nil {
			err = fmt.Errorf("voice: stt write: %w", werr)
		}
	}
	l.ringStart, l.ringLen = 0, 0
	return err
}

// emitLocked takes mu and emits ev.
func (l *Listener) emitLocked(ev Event) {
	l.mu.Lock()
	l.emit(ev)
	l.mu.Unlock()
}

// emit delivers ev without blocking (see "Slow readers"). mu must be held.
func (l *Listener) emit(ev Event) {
	if l.closed {
		return
	}
	if len(l.overflow) == 0 {
		select {
		case l.events <- ev:
			return
		default:
		}
	}
	if t, ok := ev.(Transcript); ok && !t.Final {
		l.dropped++
		if l.dropped == 1 || l.dropped%100 == 0 {
			l.log.Debug("voice: event reader is slow; dropping interim transcripts", "dropped", l.dropped)
		}
		return
	}
	if len(l.overflow) >= maxOverflowEvents {
		l.log.Error("voice: event reader stopped reading; dropping event", "event", fmt.Sprintf("%T", ev))
		return
	}
	l.overflow = append(l.overflow, ev)
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *Listener) speechStarted(onset time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.speechActive = true
	l.timer.Stop()
	l.emit(SpeechStarted{At: onset})
}

func (l *Listener) speechEnded(end time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.speechActive = false
	l.speechSinceCommit = true
	l.lastVoiceEnd = end
	l.emit(SpeechEnded{At: end})
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

// evaluate commits the pending turn if its conditions hold at now, or arms
// the timer for when they will. mu must be held.
func (l *Listener) evaluate(now time.Time) {
	if l.speechActive || len(l.turn) == 0 {
		return
	}
	ref := l.firstFinalAt
	if l.speechSinceCommit {
		ref = l.lastVoiceEnd
	}
	text := strings.Join(l.turn, " ")
	deadline := ref.Add(endpointingDelay(text, l.endpointingDelay, l.endpointingMin, l.endpointingMax))
	if now.Before(deadline) {
		l.timer.Reset(deadline.Sub(now))
		return
	}
	ev := EndOfTurn{Text: text, FinalAt: l.lastFinalAt, CommittedAt: now}
	if l.speechSinceCommit {
		ev.SpeechEndedAt = l.lastVoiceEnd
		ev.Metrics.EndOfUtterance = now.Sub(l.lastVoiceEnd)
		ev.Metrics.STTFinalDelay = max(0, l.lastFinalAt.Sub(l.lastVoiceEnd))
	}
	l.turn = l.turn[:0]
	l.speechSinceCommit = false
	l.firstFinalAt, l.lastFinalAt = time.Time{}, time.Time{}
	l.emit(ev)
}

// run reads STT results and delivers held-back events until Close or the
// end of ctx, then closes Events.
func (l *Listener) run(ctx context.Context) {
	defer close(l.exited)
	results := l.stream.Events()
	for {
		var (
			out  chan Event
			head Event
		)
		l.mu.Lock()
		if len(l.overflow) > 0 {
			out, head = l.events, l.overflow[0]
		}
		l.mu.Unlock()
		select {
		case ev, ok := <-results:
			if !ok {
				results = nil
				select {
				case <-l.stop:
				default:
					if ctx.Err() == nil && !l.closing.Load() {
						l.log.Warn("voice: the speech recogniser stopped; transcripts stop until the listener is replaced")
						l.emit(STTStopped{At: l.now()})
					}
				}
				continue
			}
			l.handleResult(ev)
		case out <- head:
			l.mu.Lock()
			l.overflow[0] = nil
			l.overflow = l.overflow[1:]
			l.mu.Unlock()
		case <-l.kick:
		case <-l.stop:
			l.shutdown()
			return
		case <-ctx.Done():
			l.shutdown()
			return
		}
	}
}

func (l *Listener) shutdown() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.timer.Stop()
	l.overflow = nil
	close(l.events)
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
		if strings.TrimSpace(ev.Text) == "" {
			return
		}
		l.segShown = true
		l.emit(Transcript{SegmentID: l.segmentID(), Text: ev.Text, At: at})
	case stt.Final:
		text := strings.TrimSpace(ev.Text)
		if text == "" && !l.segShown {
			return
		}
		l.emit(Transcript{SegmentID: l.segmentID(), Text: text, Final: true, At: at})
		l.segN++
		l.segShown = false
		if text == "" {
			return
		}
		if len(l.turn) == 0 {
			l.firstFinalAt = at
		}
		l.turn = append(l.turn, text)
		l.lastFinalAt = at
		l.evaluate(l.now())
	}
}

func (l *Listener) segmentID() string {
	return l.segPrefix + strconv.Itoa(l.segN)
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
