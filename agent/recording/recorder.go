// Package recording records an interview's audio: both voices mixed on one
// timeline by wall clock, as 20 ms Opus frames in an Ogg file in the
// recordings directory (interviews/recordings). Where one voice speaks
// alone, its frames are the Opus packets it was heard in (the candidate's
// as received, the interviewer's as sent), so most of an interview is
// never encoded a second time; the recorder encodes the mix only where
// both voices sound at once, and at the joins. The audio path only
// hands samples over (a copy, with the time) and never waits: mixing,
// encoding and writing run on the recorder's own goroutine, which drops
// audio, and says so, when it falls behind (a slow disk never stalls the
// interview, and memory stays bounded).
package recording

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/hraban/opus.v2"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// The recording's format.
const (
	// SampleRateHz is the rate the voices are mixed and encoded at: enough
	// for speech, and the candidate's microphone arrives at it.
	SampleRateHz = 16000
	// FrameDuration is the length of one Opus packet.
	FrameDuration = frameMS * time.Millisecond
	// frameSamples16kHz is the samples of one frame at SampleRateHz.
	frameSamples16kHz = SampleRateHz * frameMS / 1000
	// frameSamples48kHz is one frame in granule units.
	frameSamples48kHz = opusGranuleRate * frameMS / 1000
	// frameMS is FrameDuration in milliseconds.
	frameMS = 20
	// bitrateBPS is the bitrate of the frames the recorder encodes: clear
	// speech at about 11 MB an hour. Frames carried as a voice was heard
	// keep their sender's bitrate (the interviewer's 32 kbit/s, a
	// browser's usually 32 kbit/s too).
	bitrateBPS = 24000
	// encoderApplication is the Opus mode: a recording is encoded beside
	// every live interview, all the time, so it is the cheapest one. CELT
	// alone (restricted low delay) at complexity 0 codes a 20 ms frame of
	// 16 kHz speech in a fifth of the time SILK (VoIP) takes at complexity
	// 1, the earlier setting, and at 24 kbit/s keeps more of the waveform
	// (17 dB against 8 dB signal-to-noise on flite speech): clear for a
	// reviewer.
	encoderApplication = opus.AppRestrictedLowdelay
	// encoderComplexity is the Opus encoder's effort (0–10).
	encoderComplexity = 0
	// maxPacketBytes bounds one encoded packet.
	maxPacketBytes = 1500
	// packetRoomBytes is the room a packet held for mixing is first given:
	// a second of both voices' packets waits to be mixed, and speech at 32
	// kbit/s takes 80 bytes a frame.
	packetRoomBytes = 256
)

// Timing of the mix.
const (
	// mixDelay is how far behind the wall clock the mix is encoded, so the
	// candidate's audio, which arrives with network jitter, is in place
	// before its frame is encoded, and the interviewer's queued audio can
	// still be withdrawn.
	mixDelay = time.Second
	// contiguousSlack keeps a voice's audio contiguous when it arrives
	// this little late (timer and network jitter), instead of opening a gap.
	contiguousSlack = 60 * time.Millisecond
	// maxAhead drops audio placed further ahead of the clock than this.
	maxAhead = 5 * time.Second
	// tick is how often the goroutine takes the audio queued and encodes
	// what is due.
	tick = 200 * time.Millisecond
	// queueChunks bounds the audio handed over and not yet mixed (chunks
	// of 10 or 20 ms: a few seconds of both voices).
	queueChunks = 512
)

// Options configure a recording.
type Options struct {
	// Dir is where the file goes. Required.
	Dir *recordings.Dir
	// Name is the recording's name (recordings.Name). Required.
	Name string
	// CandidateSampleRateHz is the rate of the candidate's audio (the
	// listener's). Required.
	CandidateSampleRateHz int
	// AgentSampleRateHz is the rate of the interviewer's audio (the TTS
	// engine's). Required.
	AgentSampleRateHz int
	// Now is the clock (default time.Now); the ticker runs on the time
	// package, so tests use testing/synctest.
	Now func() time.Time
	// Logger receives what went wrong.
	Logger *slog.Logger
}

// Recorder records one session's audio. Its methods are safe for
// concurrent use, and a nil *Recorder records nothing, so a session with
// recording off calls the same methods.
type Recorder struct {
	name    string
	start   time.Time
	now     func() time.Time
	log     *slog.Logger
	in      queue
	stop    chan stopRequest
	dropped atomic.Int64 // chunks dropped because the queue was full
	once    sync.Once
	res     result
}

// stopRequest asks the goroutine to end the recording, keeping or
// discarding the file.
type stopRequest struct {
	discard bool
	reply   chan result
}

// errDiscarded is Stop's error after Discard.
var errDiscarded = errors.New("recording: discarded")

type result struct {
	rec interviews.Recording
	err error
}

// Start creates the recording's file and starts recording: the recording
// starts now.
func Start(opts Options) (*Recorder, error) {
	if opts.Dir == nil || opts.Name == "" || opts.CandidateSampleRateHz <= 0 || opts.AgentSampleRateHz <= 0 {
		return nil, errors.New("recording: Dir, Name, CandidateSampleRateHz and AgentSampleRateHz are required")
	}
	enc, err := newEncoder()
	if err != nil {
		return nil, err
	}
	f, err := opts.Dir.Create(opts.Name)
	if err != nil {
		return nil, err
	}
	ogg, err := newOggOpusWriter(f, rand.Uint32(), SampleRateHz, "viva")
	if err != nil {
		f.Abort()
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	r := &Recorder{name: opts.Name, start: now(), now: now, log: log.With("recording", opts.Name),
		in: queue{limit: queueChunks}, stop: make(chan stopRequest)}
	e := &encoder{r: r, file: f, ogg: ogg, coder: newFrameCoder(enc),
		mix: newMixer(frameSamples16kHz, samples(contiguousSlack), samples(maxAhead)),
		resample: [voices]*resampler{Candidate: newResampler(opts.CandidateSampleRateHz, SampleRateHz),
			Agent: newResampler(opts.AgentSampleRateHz, SampleRateHz)}}
	go e.run()
	return r, nil
}

// samples converts a duration to samples at SampleRateHz.
func samples(d time.Duration) int64 { return int64(d) * SampleRateHz / int64(time.Second) }

// Name is the recording's name.
func (r *Recorder) Name() string {
	if r == nil {
		return ""
	}
	return r.name
}

// StartedAt is the wall-clock time of the recording's first sample.
func (r *Recorder) StartedAt() time.Time {
	if r == nil {
		return time.Time{}
	}
	return r.start
}

// Candidate hands over the candidate's audio (mono PCM16 at the
// candidate's rate) as it arrives, with the Opus packet it was decoded
// from when that is one mono 20 ms frame (else nil). It never blocks and
// keeps neither.
func (r *Recorder) Candidate(pcm []int16, packet []byte) { r.write(Candidate, pcm, packet) }

// Agent hands over the interviewer's audio (mono PCM16 at the agent's
// rate) as it is queued on its track, with the Opus packet it was encoded
// into when that is one mono 20 ms frame (else nil). It never blocks and
// keeps neither.
func (r *Recorder) Agent(pcm []int16, packet []byte) { r.write(Agent, pcm, packet) }

// AgentCleared withdraws the interviewer's audio queued and not yet
// played: its track dropped it.
func (r *Recorder) AgentCleared() {
	if r == nil {
		return
	}
	r.send(Agent, nil, nil, true)
}

func (r *Recorder) write(v Voice, pcm []int16, packet []byte) {
	if r == nil || len(pcm) == 0 {
		return
	}
	if len(packet) > maxPacketBytes {
		packet = nil
	}
	r.send(v, pcm, packet, false)
}

// send queues a chunk of voice v, counting it dropped when the queue is
// full.
func (r *Recorder) send(v Voice, pcm []int16, packet []byte, clear bool) {
	if r.in.push(v, r.now(), pcm, packet, clear) {
		r.dropped.Add(1)
	}
}

// Stop ends the recording: everything handed over is mixed and encoded, the
// file gets its final name, and the returned entry describes it. Later
// calls return the same.
func (r *Recorder) Stop() (interviews.Recording, error) { return r.end(false) }

// Discard ends the recording and deletes its file; after Stop it does
// nothing. A session that ends before its interview could start calls it
// so the recorder's goroutine stops.
func (r *Recorder) Discard() { _, _ = r.end(true) }

func (r *Recorder) end(discard bool) (interviews.Recording, error) {
	if r == nil {
		return interviews.Recording{}, errors.New("recording: not recording")
	}
	r.once.Do(func() {
		req := stopRequest{discard: discard, reply: make(chan result, 1)}
		r.stop <- req
		r.res = <-req.reply
	})
	return r.res.rec, r.res.err
}

// encoder is the recorder's goroutine: it mixes, encodes and writes.
type encoder struct {
	r        *Recorder
	file     *recordings.File
	ogg      *oggOpusWriter
	coder    frameCoder
	mix      *mixer
	resample [voices]*resampler
	scratch  []int16
	batch    batch // the chunks taken last, kept for the next
	frames   int64
	err      error // the first write failure: the recording is lost
	discard  bool  // the session asked for no recording after all
}

func (e *encoder) run() {
	r := e.r
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			e.takeQueued()
			e.encode(e.pos(r.now()) - samples(mixDelay))
		case req := <-r.stop:
			e.discard = req.discard
			req.reply <- e.finish()
			return
		}
	}
}

// pos is the timeline position of wall-clock time t.
func (e *encoder) pos(t time.Time) int64 { return samples(t.Sub(e.r.start)) }

// takeQueued places the chunks queued since the last call.
func (e *encoder) takeQueued() {
	e.batch = e.r.in.swap(e.batch)
	for _, c := range e.batch.chunks {
		now := e.pos(c.at)
		if c.clear {
			e.mix.Clear(c.voice, now)
			continue
		}
		e.scratch = e.resample[c.voice].Process(e.scratch[:0], e.batch.samples(c))
		e.mix.Write(c.voice, now, e.scratch, e.batch.packet(c))
	}
}

// encode encodes and writes the frames of the mix that end by upTo.
func (e *encoder) encode(upTo int64) {
	for {
		frame, ok := e.mix.Next(upTo)
		if !ok {
			return
		}
		e.writeFrame(frame)
	}
}

func (e *encoder) writeFrame(frame *mixFrame) {
	if e.err != nil {
		e.frames++
		return
	}
	packet, err := e.coder.code(frame)
	if err == nil {
		err = e.ogg.WritePacket(packet, frameSamples48kHz)
	}
	if err != nil {
		e.err = fmt.Errorf("recording %s: %w", e.r.name, err)
		e.r.log.Error("the recording failed and will be dropped; the interview goes on", "err", err)
		return
	}
	e.frames++
}

// settledQuietFrames is how many inaudible frames the encoder codes before
// its packet for silence is reused: by then it has faded out what came
// before. Most of an interview is one voice at a time or none, so this
// spares most of the recording's encoding.
const settledQuietFrames = 3

// inaudibleLevel is the largest sample of a frame taken for silence: about
// −66 dBFS, below any microphone's noise floor.
const inaudibleLevel = 16

// faintLevel is the largest sample of a voice taken as faint: about −50
// dBFS, a microphone's noise or the fade after a word, lost under the
// other voice speaking.
const faintLevel = 100

// noVoice is frameCoder.carried when the last frame was encoded.
const noVoice Voice = -1

// frameCoder codes a recording's 20 ms frames, and encodes as few as it
// can.
//
// A frame where one voice sounds alone (the other is at most faint) is
// that voice's own packet when it came with one (the mixer names it): the
// packet the candidate's browser sent, or the one the interviewer's track
// sent. Opus decoders predict a frame's band energies from the frame
// before, and the sender coded its packet after audio of its own, so a
// packet is only carried where the frame before it held the same voice
// alone, or nothing: its own packet in order, or the recorder's coding of
// that voice or of a pause. Straight after the other voice, or after both
// at once, the recorder codes one frame of the voice alone first: carried
// then, the packet would decode with some of the other voice's loudness.
// When the encoder takes over from carried packets, it first codes the
// last carried frame's audio (and throws the packet away), so its own
// next frame follows on from what was heard.
//
// A run of inaudible frames costs one encoding: once the encoder has
// settled on silence, its packet is sent again for the rest of the run.
type frameCoder struct {
	enc    *opus.Encoder
	packet []byte
	// quietRun counts the inaudible frames in a row; silence is the packet
	// the encoder made of an inaudible frame settledQuietFrames or more
	// into such a run.
	quietRun int
	silence  []byte
	// lastPeak is the last frame's peak per voice.
	lastPeak [voices]int
	// carried is the voice whose packet the last frame was (noVoice: the
	// encoder's), carriedSeq that packet's sequence number and prev that
	// frame's audio.
	carried    Voice
	carriedSeq int64
	prev       []int16
	// encoded and carriedFrames count the frames encoded and carried.
	encoded, carriedFrames int64
}

func newFrameCoder(enc *opus.Encoder) frameCoder {
	return frameCoder{enc: enc, packet: make([]byte, maxPacketBytes), carried: noVoice}
}

// code returns the packet of one frame; it is valid until the next call.
func (c *frameCoder) code(f *mixFrame) ([]byte, error) {
	if peak(f.pcm) <= inaudibleLevel {
		c.quietRun++
	} else {
		c.quietRun = 0
	}
	v := c.carry(f)
	c.lastPeak = f.peak
	if v != noVoice {
		c.carried, c.carriedSeq = v, f.packet[v].seq
		c.prev = append(c.prev[:0], f.pcm...)
		c.carriedFrames++
		return f.packet[v].data, nil
	}
	tookOver := c.carried != noVoice
	c.carried = noVoice
	if c.quietRun > settledQuietFrames && c.silence != nil {
		return c.silence, nil
	}
	if tookOver {
		if _, err := c.enc.Encode(c.prev, c.packet); err != nil {
			return nil, fmt.Errorf("encoding: %w", err)
		}
		c.encoded++
	}
	n, err := c.enc.Encode(f.pcm, c.packet)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	c.encoded++
	if c.quietRun >= settledQuietFrames && c.silence == nil {
		c.silence = slices.Clone(c.packet[:n])
	}
	return c.packet[:n], nil
}

// carry picks the voice whose own packet stands for frame f, or noVoice:
// a voice with a packet for the frame while the other is at most faint, in
// this frame and the one before, or that continues its own packets. Where
// both could, the louder is taken.
func (c *frameCoder) carry(f *mixFrame) Voice {
	pick := noVoice
	for v := range voices {
		p, other := f.packet[v], voices-1-v
		if p.data == nil || f.peak[other] > faintLevel {
			continue
		}
		if continuing := c.carried == v && p.seq == c.carriedSeq+1; !continuing && c.lastPeak[other] > faintLevel {
			continue
		}
		if pick == noVoice || f.peak[v] > f.peak[pick] {
			pick = v
		}
	}
	return pick
}

// peak is the largest magnitude of the samples of frame.
func peak(frame []int16) int {
	p := 0
	for _, v := range frame {
		p = max(p, abs(int(v)))
	}
	return p
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// finish mixes what is left, closes the stream and commits the file.
func (e *encoder) finish() result {
	r := e.r
	r.in.close()
	e.takeQueued()
	end := max(e.pos(r.now()), e.mix.End())
	if rem := end % frameSamples16kHz; rem != 0 {
		end += frameSamples16kHz - rem
	}
	e.encode(end)
	frames := e.frames
	// One frame of silence more lets the decoder's look-ahead through; the
	// last page's granule position then trims the stream to the frames
	// recorded, so players report the recording's true length.
	e.writeFrame(&mixFrame{pcm: make([]int16, frameSamples16kHz)})
	if e.err == nil {
		e.err = e.ogg.Close(uint64(opusPreSkip48kHz + frames*frameSamples48kHz))
	}
	r.log.Debug("recording finished", "frames", frames, "encoded", e.coder.encoded, "carried", e.coder.carriedFrames)
	if n := r.dropped.Load(); n > 0 || e.mix.dropped > 0 {
		r.log.Warn("the recording fell behind and lost some audio", "chunks_dropped", n, "samples_dropped", e.mix.dropped)
	}
	if e.err != nil || e.discard {
		e.file.Abort()
		return result{err: cmp.Or(e.err, errDiscarded)}
	}
	size, err := e.file.Commit()
	if err != nil {
		return result{err: err}
	}
	return result{rec: interviews.Recording{Name: r.name, ContentType: interviews.RecordingContentType,
		StartedAt: r.start.UTC(), DurationMS: frames * frameMS, Bytes: size}}
}

// newEncoder returns the Opus encoder of a recording: mono speech at
// SampleRateHz in encoderApplication mode, at bitrateBPS and
// encoderComplexity.
func newEncoder() (*opus.Encoder, error) {
	enc, err := opus.NewEncoder(SampleRateHz, 1, encoderApplication)
	if err != nil {
		return nil, fmt.Errorf("recording: creating the opus encoder: %w", err)
	}
	if err := enc.SetBitrate(bitrateBPS); err != nil {
		return nil, fmt.Errorf("recording: setting the opus bitrate: %w", err)
	}
	if err := enc.SetComplexity(encoderComplexity); err != nil {
		return nil, fmt.Errorf("recording: setting the opus complexity: %w", err)
	}
	return enc, nil
}

// Encode writes pcm (mono PCM16 at SampleRateHz, padded with silence to
// whole frames) to w as an Ogg/Opus file like a recording's, and returns
// its duration: for files made from audio at hand (tests, imports).
func Encode(w io.Writer, pcm []int16) (time.Duration, error) {
	enc, err := newEncoder()
	if err != nil {
		return 0, err
	}
	ogg, err := newOggOpusWriter(w, rand.Uint32(), SampleRateHz, "viva")
	if err != nil {
		return 0, err
	}
	frames := (len(pcm) + frameSamples16kHz - 1) / frameSamples16kHz
	frame := make([]int16, frameSamples16kHz)
	coder := newFrameCoder(enc)
	for i := range frames + 1 { // one more lets the look-ahead through
		clear(frame)
		if i < frames {
			copy(frame, pcm[i*frameSamples16kHz:])
		}
		p, err := coder.code(&mixFrame{pcm: frame})
		if err != nil {
			return 0, fmt.Errorf("recording: %w", err)
		}
		if err := ogg.WritePacket(p, frameSamples48kHz); err != nil {
			return 0, err
		}
	}
	if err := ogg.Close(uint64(opusPreSkip48kHz + frames*frameSamples48kHz)); err != nil {
		return 0, err
	}
	return time.Duration(frames) * FrameDuration, nil
}
