package voice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/agent/tts"
)

// DefaultMaxAhead is how much audio the Speaker keeps queued in the sink
// ahead of playout.
const DefaultMaxAhead = 200 * time.Millisecond

// estimatedCharsPerSecond estimates speech rate for a sentence whose
// synthesis has not finished, to apportion its words to played audio.
const estimatedCharsPerSecond = 15

// Sink plays mono PCM16 audio at the TTS engine's sample rate: a
// [Playout] in production, created with SampleRateHz = TTS.SampleRate().
type Sink interface {
	// WriteSample queues audio and returns at once; it must not retain pcm.
	WriteSample(pcm []int16) error
	// ClearQueue drops everything queued and not yet played.
	ClearQueue()
	// WaitForPlayout blocks until the queue is empty; ClearQueue releases
	// it.
	WaitForPlayout()
}

// SpeakerOptions configure a Speaker.
type SpeakerOptions struct {
	// TTS synthesises the sentences. Required.
	TTS tts.Engine
	// Sink plays the audio at TTS.SampleRate(). Required.
	Sink Sink
	// Now is the clock; it must agree with the time package's timers.
	// Default time.Now.
	Now func() time.Time
	// Logger receives synthesis failures.
	Logger *slog.Logger
	// MaxAhead bounds the audio queued in the sink ahead of playout
	// (default DefaultMaxAhead). It keeps barge-in fast (nothing long is
	// queued to clear and PlayedText stays accurate) and memory small. One
	// frame (SinkFrameDuration) of it is reserved for the phase of the sink's pacer, so
	// the sink never holds more than MaxAhead.
	MaxAhead time.Duration
}

// Speaker speaks text through a TTS engine into a Sink, one Utterance at a
// time.
type Speaker struct {
	tts      tts.Engine
	sink     Sink
	now      func() time.Time
	log      *slog.Logger
	rateHz   int
	frame    int   // samples per sink frame
	capacity int64 // samples the player keeps queued at most
	batch    int64 // samples written at once when not starved

	mu      sync.Mutex
	current *Utterance
}

// NewSpeaker checks opts and returns a Speaker.
func NewSpeaker(opts SpeakerOptions) (*Speaker, error) {
	if opts.TTS == nil || opts.Sink == nil {
		return nil, errors.New("voice: speaker: TTS and Sink are required; pass SpeakerOptions.TTS and SpeakerOptions.Sink")
	}
	rate := opts.TTS.SampleRate()
	if rate <= 0 || rate%50 != 0 {
		return nil, fmt.Errorf("voice: speaker: %s reports sample rate %d Hz; it must be a positive multiple of 50", opts.TTS.Name(), rate)
	}
	maxAhead := orDefault(opts.MaxAhead, DefaultMaxAhead)
	if maxAhead < 2*SinkFrameDuration {
		return nil, fmt.Errorf("voice: speaker: MaxAhead %v is too small; use at least %v", maxAhead, 2*SinkFrameDuration)
	}
	s := &Speaker{
		tts:    opts.TTS,
		sink:   opts.Sink,
		now:    opts.Now,
		log:    loggerOr(opts.Logger),
		rateHz: rate,
		frame:  int(durationToSamples(SinkFrameDuration, rate)),
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.capacity = durationToSamples(maxAhead-SinkFrameDuration, rate)
	s.batch = max(s.capacity/2/int64(s.frame), 1) * int64(s.frame)
	return s, nil
}

// Say speaks the text arriving on deltas (closed at the end of the reply)
// and returns at once. Sentences are synthesised as soon as they are
// complete, the next one while the current one plays, so the first audio
// does not wait for the whole reply. If another Utterance is playing it is
// interrupted first: never two voices at once. Cancelling ctx interrupts
// the utterance (Result.Err is then the context's error). Once the
// utterance is interrupted, deltas is no longer read: its producer must
// stop on its own context (the session cancels generation on barge-in).
func (s *Speaker) Say(ctx context.Context, deltas <-chan string) *Utterance {
	uctx, cancel := context.WithCancel(ctx)
	u := &Utterance{
		s:         s,
		ctx:       uctx,
		cancel:    cancel,
		wake:      make(chan struct{}, 1),
		synthWake: make(chan struct{}, 1),
		done:      make(chan struct{}),
		started:   make(chan struct{}),
		failedAt:  -1,
	}
	s.mu.Lock()
	prev := s.current
	s.current = u
	s.mu.Unlock()
	if prev != nil {
		prev.Interrupt()
		u.prev = prev
	}
	u.stopAfter = context.AfterFunc(ctx, func() { u.stop(context.Cause(ctx)) })
	go u.read(deltas)
	go u.synthesize()
	go u.play()
	return u
}

// SayText speaks text.
func (s *Speaker) SayText(ctx context.Context, text string) *Utterance {
	ch := make(chan string, 1)
	ch <- text
	close(ch)
	return s.Say(ctx, ch)
}

// Interrupt interrupts the current Utterance, if any.
func (s *Speaker) Interrupt() {
	s.mu.Lock()
	u := s.current
	s.mu.Unlock()
	if u != nil {
		u.Interrupt()
	}
}

// Result is what became of an Utterance.
type Result struct {
	// Text is all the text that was to be spoken: every sentence that
	// reached the speaker (markdown removed), joined by spaces.
	Text string
	// PlayedText is what the listener actually heard: the sentences played
	// in full plus, of the sentence playing when the utterance was
	// interrupted, as many of its words as the share of its audio that
	// played (rounded down).
	PlayedText string
	// Interrupted is true when Interrupt (or a new Say, or the context)
	// stopped the utterance before its audio finished.
	Interrupted bool
	// Started is true once the first audio frame was written to the sink.
	Started bool
	// FirstAudioAt is when the first audio frame was written to the sink.
	FirstAudioAt time.Time
	// TTSFirstByte is the first sentence sent to TTS → its first audio.
	TTSFirstByte time.Duration
	// Err is a synthesis or sink failure, or the context's error when the
	// context ended the utterance.
	Err error
}

// Utterance is one reply being spoken.
type Utterance struct {
	s         *Speaker
	ctx       context.Context
	cancel    context.CancelFunc
	stopAfter func() bool
	prev      *Utterance // interrupted predecessor; the first write waits for it

	// mu guards the sentence pipeline.
	mu           sync.Mutex
	sentences    []*sentenceAudio
	readerDone   bool
	cur          int // sentence the player is consuming
	pos          int // samples of sentences[cur] consumed
	failedAt     int // sentence whose synthesis failed, or -1
	synthErr     error
	ttsFirstByte time.Duration

	wake      chan struct{} // player: audio, sentences or end arrived
	synthWake chan struct{} // synthesiser: a sentence arrived or the player advanced

	// wmu serialises sink writes with Interrupt, so nothing is written
	// after the queue is cleared.
	wmu          sync.Mutex
	finished     bool
	written      int64     // samples written to the sink
	playEnd      time.Time // estimated end of playout of what was written
	firstAudioAt time.Time
	result       Result

	done    chan struct{}
	started chan struct{} // closed when the first audio frame is written
}

// sentenceAudio is one sentence and its synthesised audio.
type sentenceAudio struct {
	text      string
	pcm       []int16 // released once fully consumed
	total     int     // samples synthesised so far
	synthDone bool
	failed    bool
	// Positions in the written stream, set by the player.
	startSample, endSample int64
	started, ended         bool
}

// Started is closed when the first audio frame of the utterance has been
// written to the sink (it stays open if none ever is).
func (u *Utterance) Started() <-chan struct{} { return u.started }

// Done is closed when the audio has finished playing (the sink's
// WaitForPlayout returned) or the utterance was interrupted.
func (u *Utterance) Done() <-chan struct{} { return u.done }

// Wait blocks until Done and returns the Result.
func (u *Utterance) Wait() Result {
	<-u.done
	u.wmu.Lock()
	defer u.wmu.Unlock()
	return u.result
}

// Interrupt stops the utterance at once: it clears the sink's queue,
// cancels synthesis and the delta reader, and fixes the Result with
// Interrupted set and PlayedText measured at this moment. It does nothing
// after the audio has finished.
func (u *Utterance) Interrupt() { u.stop(nil) }

func (u *Utterance) stop(cause error) {
	u.wmu.Lock()
	if u.finished {
		u.wmu.Unlock()
		return
	}
	u.finished = true
	u.s.sink.ClearQueue()
	now := u.s.now()
	// The sink's pacer plays whole frames on its own ticks, up to one frame
	// behind the estimate: count that frame as unheard, so PlayedText never
	// claims a word the listener did not hear.
	played := max(0, u.written-u.queuedAt(now)-int64(u.s.frame))
	u.result = u.resultAt(played)
	u.result.Interrupted = true
	if cause != nil && u.result.Err == nil {
		u.result.Err = cause
	}
	u.wmu.Unlock()
	u.cancel()
}

// queuedAt estimates the samples written but not yet played at now. wmu
// must be held.
func (u *Utterance) queuedAt(now time.Time) int64 {
	if u.playEnd.After(now) {
		return min(durationToSamples(u.playEnd.Sub(now), u.s.rateHz), u.written)
	}
	return 0
}

// resultAt builds the Result as if played samples had been heard. wmu must
// be held.
func (u *Utterance) resultAt(played int64) Result {
	u.mu.Lock()
	defer u.mu.Unlock()
	r := Result{
		Started:      u.written > 0,
		FirstAudioAt: u.firstAudioAt,
		TTSFirstByte: u.ttsFirstByte,
		Err:          u.synthErr,
	}
	var all, heard []string
	for _, sa := range u.sentences {
		all = append(all, sa.text)
		switch {
		case !sa.started || played <= sa.startSample:
		case sa.ended && !sa.failed && played >= sa.endSample:
			heard = append(heard, sa.text)
		default:
			total := int64(sa.total)
			if !sa.synthDone || sa.failed {
				total = max(total, durationToSamples(time.Duration(len(sa.text))*time.Second/estimatedCharsPerSecond, u.s.rateHz))
			}
			words := strings.Fields(sa.text)
			n := int(int64(len(words)) * (played - sa.startSample) / max(total, 1))
			if n > 0 {
				heard = append(heard, strings.Join(words[:min(n, len(words))], " "))
			}
		}
	}
	r.Text = strings.Join(all, " ")
	r.PlayedText = strings.Join(heard, " ")
	return r
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// read turns deltas into sentences until the channel closes or the
// utterance ends.
func (u *Utterance) read(deltas <-chan string) {
	var sp SentenceSplitter
	add := func(ss []string, done bool) {
		u.mu.Lock()
		for _, t := range ss {
			u.sentences = append(u.sentences, &sentenceAudio{text: t})
		}
		u.readerDone = u.readerDone || done
		u.mu.Unlock()
		signal(u.synthWake)
		signal(u.wake)
	}
	for {
		select {
		case d, ok := <-deltas:
			if !ok {
				add(sp.Flush(), true)
				return
			}
			if ss := sp.Write(d); len(ss) > 0 {
				add(ss, false)
			}
		case <-u.ctx.Done():
			add(nil, true)
			return
		}
	}
}

// synthesize synthesises the sentences in order, at most one ahead of the
// one the player is consuming.
func (u *Utterance) synthesize() {
	for k := 0; ; k++ {
		var sa *sentenceAudio
		for sa == nil {
			u.mu.Lock()
			switch {
			case k < len(u.sentences) && k <= u.cur+1:
				sa = u.sentences[k]
			case u.readerDone && k >= len(u.sentences):
				u.mu.Unlock()
				return
			}
			u.mu.Unlock()
			if sa != nil {
				break
			}
			select {
			case <-u.synthWake:
			case <-u.ctx.Done():
				return
			}
		}
		start := u.s.now()
		first := k == 0
		err := u.s.tts.Synthesize(u.ctx, sa.text, func(pcm []int16) error {
			if len(pcm) == 0 {
				return nil
			}
			u.mu.Lock()
			if first {
				u.ttsFirstByte = u.s.now().Sub(start)
				first = false
			}
			sa.pcm = append(sa.pcm, pcm...)
			sa.total += len(pcm)
			u.mu.Unlock()
			signal(u.wake)
			return nil
		})
		u.mu.Lock()
		sa.synthDone = true
		if err != nil && u.ctx.Err() == nil {
			sa.failed = true
			u.failedAt = k
			u.synthErr = fmt.Errorf("voice: tts %s: %w", u.s.tts.Name(), err)
			u.s.log.Error("voice: synthesis failed; the rest of the reply is not spoken", "engine", u.s.tts.Name(), "err", err)
		}
		failed := sa.failed
		u.mu.Unlock()
		signal(u.wake)
		if failed || u.ctx.Err() != nil {
			return
		}
	}
}

// play writes audio to the sink, never more than the capacity ahead of the
// estimated playout, then waits for the playout to finish.
func (u *Utterance) play() {
	defer close(u.done)
	defer u.cancel()
	defer u.stopAfter()
	// Leaving early means the context ended: stop as Interrupt would
	// (a no-op after Interrupt or a normal finish).
	defer func() { u.stop(context.Cause(u.ctx)) }()
	if u.prev != nil {
		select {
		case <-u.prev.done:
		case <-u.ctx.Done():
		}
		u.prev = nil
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	scratch := make([]int16, u.s.capacity+int64(u.s.frame))
	for {
		if u.ctx.Err() != nil {
			return
		}
		u.wmu.Lock()
		queued := u.queuedAt(u.s.now())
		u.wmu.Unlock()
		budget := u.s.capacity - queued
		avail, complete := u.available()
		var n int64
		var wait time.Duration
		switch {
		case avail == 0 && complete:
			u.finish()
			return
		case avail <= budget:
			n = avail
			if !complete {
				n -= n % int64(u.s.frame)
			}
		case budget >= u.s.batch:
			n = budget - budget%int64(u.s.frame)
		default:
			wait = samplesToDuration(u.s.batch-budget, u.s.rateHz)
		}
		if n > 0 {
			if err := u.write(scratch, int(n)); err != nil {
				u.mu.Lock()
				if u.synthErr == nil {
					u.synthErr = err
				}
				u.mu.Unlock()
				u.s.log.Error("voice: sink write failed; stopping the utterance", "err", err)
				u.finish()
				return
			}
			continue
		}
		var tick <-chan time.Time
		if wait > 0 {
			timer.Reset(wait)
			tick = timer.C
		}
		select {
		case <-u.wake:
		case <-tick:
		case <-u.ctx.Done():
			return
		}
		if wait > 0 && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// available returns the samples ready to play in order from the current
// position and whether no more will come after them.
func (u *Utterance) available() (int64, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.failedAt >= 0 && u.cur > u.failedAt {
		return 0, true
	}
	var n int64
	pos := u.pos
	for k := u.cur; k < len(u.sentences); k++ {
		sa := u.sentences[k]
		n += int64(len(sa.pcm) - pos)
		pos = 0
		if sa.failed {
			return n, true
		}
		if !sa.synthDone {
			return n, false
		}
	}
	return n, u.readerDone
}

// write copies n samples from the sentences into scratch, records where
// each sentence starts and ends in the written stream, and writes them to
// the sink unless the utterance was stopped.
func (u *Utterance) write(scratch []int16, n int) error {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	if u.finished {
		return nil
	}
	u.mu.Lock()
	got := 0
	advanced := false
	for got < n && u.cur < len(u.sentences) {
		sa := u.sentences[u.cur]
		if !sa.started {
			sa.started = true
			sa.startSample = u.written + int64(got)
		}
		c := copy(scratch[got:n], sa.pcm[u.pos:])
		got += c
		u.pos += c
		if u.pos == len(sa.pcm) && (sa.synthDone || sa.failed) {
			sa.ended = true
			sa.endSample = u.written + int64(got)
			sa.pcm = nil
			u.cur++
			u.pos = 0
			advanced = true
			continue
		}
		if c == 0 {
			break
		}
	}
	u.mu.Unlock()
	if advanced {
		signal(u.synthWake)
	}
	if got == 0 {
		return nil
	}
	now := u.s.now()
	if err := u.s.sink.WriteSample(scratch[:got]); err != nil {
		return fmt.Errorf("voice: sink write: %w", err)
	}
	if u.written == 0 {
		u.firstAudioAt = now
		close(u.started)
	}
	u.written += int64(got)
	u.playEnd = later(u.playEnd, now).Add(samplesToDuration(int64(got), u.s.rateHz))
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// finish waits for the written audio to play out and fixes the Result,
// unless Interrupt got there first.
func (u *Utterance) finish() {
	u.wmu.Lock()
	started := u.written > 0
	u.wmu.Unlock()
	if started {
		u.s.sink.WaitForPlayout()
	}
	u.wmu.Lock()
	defer u.wmu.Unlock()
	if u.finished {
		return
	}
	u.finished = true
	u.result = u.resultAt(u.written)
	if u.result.Err == nil {
		// Everything was played, including sentences that synthesised to
		// no audio at all.
		u.result.PlayedText = u.result.Text
	}
}
