package voice

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// Opus framing as WebRTC carries it.
const (
	// OpusFrameDuration is the length of the Opus frames a Playout encodes
	// and a Pacer sends: 20 ms, WebRTC's usual packet time. Fewer, longer
	// frames than 10 ms halve the packets, encoder calls and wake-ups.
	OpusFrameDuration = 20 * time.Millisecond
	// OpusRTPClockHz is the RTP clock of every Opus stream, whatever the
	// rate it is coded at.
	OpusRTPClockHz = 48000
	// maxOpusPacketDuration is the longest audio one Opus packet holds.
	maxOpusPacketDuration = 120 * time.Millisecond
	// maxOpusPacketSamples16kHz is that much audio at 16 kHz.
	maxOpusPacketSamples16kHz = InputSampleRate * int(maxOpusPacketDuration/time.Millisecond) / 1000
	// dtxPacketBytes is the largest packet taken for a silence (DTX)
	// marker: a discontinuous-transmission sender sends one such packet
	// now and then instead of audio while nobody speaks.
	dtxPacketBytes = 2
	// maxGapFill bounds the silence an OpusInput writes for a gap in the
	// sender's timestamps; a longer gap is a restart, not a pause.
	maxGapFill = time.Second
	// quietDecoded is how much audio in a row that the sender's encoder
	// marks as holding no voice is still decoded: what libopus's
	// discontinuous transmission still sends (10 frames of 20 ms) before
	// it pauses. The packets after are silence, left undecoded, as such a
	// sender would not have sent them.
	quietDecoded = 200 * time.Millisecond
)

// Silence by the wall clock (see SilenceClock).
const (
	// silenceFillAfter is how long an input waits, after the packet that
	// ended the audio it last received, before it writes the silence
	// elapsed since by the wall clock. It is longer than the jitter
	// buffer's wait for a lost packet (60 ms in media-sdk) plus one 20 ms
	// frame, so audio held back by loss recovery or a short network stall
	// is not taken for silence, and shorter than DefaultMinSilence, so the
	// end of speech is seen as soon as the pause is long enough: a sender
	// with discontinuous transmission sends its next packet only ~400 ms
	// later.
	silenceFillAfter = 100 * time.Millisecond
	// silenceFillHoldback is how far behind the wall clock the filled
	// silence stays: a sender sends a frame's packet only once the frame
	// is captured, so the last frame of elapsed time may still arrive as
	// audio.
	silenceFillHoldback = OpusFrameDuration
	// silenceClockPeriod is how often a SilenceClock looks at its inputs:
	// one VAD frame, the finest step the end of speech is seen in.
	silenceClockPeriod = OpusFrameDuration
	// rtpTicksPerSample is one 16 kHz sample on the 48 kHz RTP clock.
	rtpTicksPerSample = OpusRTPClockHz / InputSampleRate
	// quietDecodedTicks is quietDecoded on the RTP clock.
	quietDecodedTicks = uint32(OpusRTPClockHz * quietDecoded / time.Second)
	// maxGapFillTicks is maxGapFill on the RTP clock.
	maxGapFillTicks = int32(OpusRTPClockHz * maxGapFill / time.Second)
)

// PCMTap sees mono PCM16 audio as it passes a point of the pipeline (the
// candidate's decoded 16 kHz audio, or the agent's as it is encoded), for a
// recording. packet, when not nil, is the Opus packet pcm was decoded from
// or encoded into, and holds exactly that audio: one mono packet of 20 ms
// (a recording can carry it as it is instead of encoding pcm again). It
// runs on the audio path: it must return quickly and must retain neither.
type PCMTap func(pcm []int16, packet []byte)

// pcmWriter is what an OpusInput feeds: a Listener.
type pcmWriter interface {
	WriteSample(pcm []int16) error
	WriteSilence(samples int) error
}

// OpusInput decodes one speaker's Opus packets straight to 16 kHz mono
// PCM16 and writes it to a Listener. libopus decodes any Opus stream at the
// rate it is asked for, so no 48 kHz audio is made only to be resampled;
// the decode buffer is reused, so a packet costs no allocation.
//
// Silence the sender marked as such costs almost nothing: a DTX packet
// (at most two bytes) and a gap in the RTP timestamps (a sender that
// stopped sending while nobody spoke) reach the Listener as silence,
// without decoding or voice activity detection, so its endpointing still
// sees the pause.
//
// On a SilenceClock, a pause reaches the Listener as it happens, not when
// the sender's next packet arrives: a browser with discontinuous
// transmission sends one tiny packet every ~400 ms while the candidate is
// silent, which would make the end of each turn seen that much late.
// Once no packet has come for silenceFillAfter, the clock writes the
// silence elapsed so far, and keeps writing it as time passes (up to
// maxGapFill: a sender silent for longer has stopped, not paused). A
// packet arriving later counts what was written: only the rest of its gap
// is written, a silence marker already covered writes nothing, and audio
// that the wall clock already covered (it came later than the clock
// allowed for) is not lost: it follows the silence, and the next pause
// is shortened by as much.
//
// WritePacket is safe for one goroutine at a time (the track's reader);
// the clock's writes are serialised with it.
type OpusInput struct {
	mu  sync.Mutex
	dec *opus.Decoder
	out pcmWriter
	tap PCMTap
	pcm [maxOpusPacketSamples16kHz]int16

	// now is the wall clock (its SilenceClock's); nil while the input is
	// on no clock.
	now   func() time.Time
	clock *SilenceClock

	// The input's place on the sender's timeline, in RTP ticks (48 kHz):
	// heard is the end of the last packet received, heardAt when it
	// arrived; written is how far audio and silence have been written, at
	// least heard, further when the clock wrote silence. have is false
	// before the first packet.
	heard, written uint32
	heardAt        time.Time
	have           bool
	// fillErr is the clock's first failed write, reported by the next
	// WritePacket.
	fillErr error
	// quietRun counts the audio in a row (RTP ticks) marked as holding no
	// voice;
	// lastQuiet is a copy of the latest one left undecoded (empty when
	// none was), decoded just before the next voiced packet so the decoder
	// resumes from the sender's recent state.
	quietRun  uint32
	lastQuiet []byte
}

// NewOpusInput returns a decoder feeding l. tap, when not nil, sees every
// decoded 16 kHz chunk before l does (silence included, as zeros), with
// its packet when that is one mono 20 ms frame.
func NewOpusInput(l *Listener, tap PCMTap) (*OpusInput, error) {
	if l == nil {
		return nil, errors.New("voice: opus input: no listener")
	}
	return newOpusInput(l, tap)
}

func newOpusInput(out pcmWriter, tap PCMTap) (*OpusInput, error) {
	dec, err := opus.NewDecoder(InputSampleRate, 1)
	if err != nil {
		return nil, fmt.Errorf("voice: opus input: create decoder at %d Hz: %w", InputSampleRate, err)
	}
	return &OpusInput{dec: dec, out: out, tap: tap}, nil
}

// WritePacket decodes one Opus packet whose RTP timestamp (48 kHz clock)
// is rtpTimestamp and writes its audio, after any silence the gap since
// the previous packet stands for and the clock has not written yet.
// Packets older than the last one are dropped. A Listener closed under it
// is not an error; a write of the clock's that failed is reported here.
func (in *OpusInput) WritePacket(payload []byte, rtpTimestamp uint32) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(payload) == 0 {
		return nil
	}
	fillErr := in.fillErr
	in.fillErr = nil
	dur := uint32(durationToSamples(opusPacketDuration(payload), OpusRTPClockHz))
	if in.have {
		d := int32(rtpTimestamp - in.heard)
		switch {
		case d < 0 && d >= -maxGapFillTicks:
			return fillErr // a late duplicate or reordered packet: already covered
		case d > maxGapFillTicks || d < 0:
			in.written = rtpTimestamp // a restart, not a pause
		default:
			if gap := int32(rtpTimestamp - in.written); gap > 0 {
				in.written = rtpTimestamp
				if err := in.silence(ticksToSamples(gap)); err != nil {
					return err
				}
			}
		}
	} else {
		in.written = rtpTimestamp
	}
	end := rtpTimestamp + dur
	in.heard, in.have = end, true
	if in.now != nil {
		in.heardAt = in.now()
	}
	var err error
	if len(payload) <= dtxPacketBytes || in.skipQuiet(payload, dur) {
		err = in.silenceUntil(end)
	} else if n, derr := in.dec.Decode(payload, in.pcm[:]); derr != nil {
		// A corrupt packet is lost audio, not the end of the stream.
		err = in.silenceUntil(end)
	} else {
		// written is at least rtpTimestamp here: audio the clock covered
		// with silence follows that silence.
		in.written += dur
		pcm := in.pcm[:n]
		if in.tap != nil {
			in.tap(pcm, recordablePacket(payload, n))
		}
		err = ignoreClosed(in.out.WriteSample(pcm))
	}
	if err == nil {
		err = fillErr
	}
	return err
}

// skipQuiet reports whether payload, of dur RTP ticks, is left undecoded,
// as silence: the sender's encoder marked it and the quietDecoded before
// it as holding no voice. Before a voiced packet that follows skipped
// ones, it decodes the last one skipped.
func (in *OpusInput) skipQuiet(payload []byte, dur uint32) bool {
	if opusVoiced(payload) {
		in.quietRun = 0
		if len(in.lastQuiet) > 0 {
			_, _ = in.dec.Decode(in.lastQuiet, in.pcm[:])
			in.lastQuiet = in.lastQuiet[:0]
		}
		return false
	}
	in.quietRun = min(in.quietRun+dur, quietDecodedTicks+1)
	if in.quietRun <= quietDecodedTicks {
		return false
	}
	in.lastQuiet = append(in.lastQuiet[:0], payload...)
	return true
}

// silenceUntil writes silence up to end, unless it was written already.
func (in *OpusInput) silenceUntil(end uint32) error {
	n := int32(end - in.written)
	if n <= 0 {
		return nil
	}
	in.written = end
	return in.silence(ticksToSamples(n))
}

// fillSilence writes, as of now, the silence of a sender that has sent
// nothing for silenceFillAfter: the time elapsed since its last packet,
// less silenceFillHoldback, up to maxGapFill, less what was written.
func (in *OpusInput) fillSilence(now time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.have || in.now == nil {
		return
	}
	quiet := now.Sub(in.heardAt)
	if quiet < silenceFillAfter {
		return
	}
	span := durationToSamples(min(quiet-silenceFillHoldback, maxGapFill), OpusRTPClockHz)
	n := int32(in.heard + uint32(span) - in.written)
	n -= n % rtpTicksPerSample
	if n <= 0 {
		return
	}
	in.written += uint32(n)
	if err := in.silence(ticksToSamples(n)); err != nil && in.fillErr == nil {
		in.fillErr = err
	}
}

// Close takes the input off its SilenceClock: its track has ended. Later
// packets are still decoded.
func (in *OpusInput) Close() {
	in.mu.Lock()
	c := in.clock
	in.clock, in.now = nil, nil
	in.mu.Unlock()
	if c != nil {
		c.remove(in)
	}
}

// ticksToSamples converts a span of the RTP clock to 16 kHz samples.
func ticksToSamples(ticks int32) int { return int(ticks) / rtpTicksPerSample }

// silence writes n samples of silence.
func (in *OpusInput) silence(n int) error {
	if n <= 0 {
		return nil
	}
	if in.tap != nil {
		for left := n; left > 0; {
			k := min(left, len(zeroFrame))
			in.tap(zeroFrame[:k], nil)
			left -= k
		}
	}
	return ignoreClosed(in.out.WriteSilence(n))
}

// SilenceClock is one wall clock for the pauses of many OpusInputs: every
// silenceClockPeriod it lets each input whose sender has sent nothing for
// a while write the silence elapsed, on one goroutine, instead of a timer
// per session (one worker holds a hundred sessions and more per core). It
// runs only while some input is on it. The zero value is not usable; use
// NewSilenceClock.
type SilenceClock struct {
	now func() time.Time

	mu     sync.Mutex
	inputs []*OpusInput
	// stop ends the running goroutine (nil when none runs); it is closed
	// when the last input leaves.
	stop chan struct{}
}

// NewSilenceClock returns a clock with no inputs. now is its clock (nil:
// time.Now); it must agree with the time package's timers, as
// testing/synctest's fake clock does.
func NewSilenceClock(now func() time.Time) *SilenceClock {
	if now == nil {
		now = time.Now
	}
	return &SilenceClock{now: now}
}

// Add puts in on the clock: from now on its pauses are written as they
// happen. in.Close takes it off. An input is on one clock at most.
func (c *SilenceClock) Add(in *OpusInput) {
	in.mu.Lock()
	if in.clock != nil {
		in.mu.Unlock()
		return
	}
	in.clock, in.now = c, c.now
	if in.have {
		in.heardAt = c.now()
	}
	in.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputs = append(c.inputs, in)
	if c.stop == nil {
		c.stop = make(chan struct{})
		go c.run(c.stop)
	}
}

// Inputs is how many inputs are on the clock.
func (c *SilenceClock) Inputs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inputs)
}

func (c *SilenceClock) remove(in *OpusInput) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.inputs, in); i >= 0 {
		c.inputs = slices.Delete(c.inputs, i, i+1)
	}
	if len(c.inputs) == 0 && c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

// run looks at every input each period until stop is closed.
func (c *SilenceClock) run(stop <-chan struct{}) {
	timer := time.NewTimer(silenceClockPeriod)
	defer timer.Stop()
	var batch []*OpusInput
	for {
		select {
		case <-timer.C:
		case <-stop:
			return
		}
		c.mu.Lock()
		batch = append(batch[:0], c.inputs...)
		c.mu.Unlock()
		now := c.now()
		for _, in := range batch {
			in.fillSilence(now)
		}
		clear(batch)
		timer.Reset(silenceClockPeriod)
	}
}

func ignoreClosed(err error) error {
	if errors.Is(err, ErrClosed) {
		return nil
	}
	return err
}

// opusPacketDuration reads the audio length of an Opus packet from its
// table-of-contents byte (RFC 6716 §3.1); 20 ms when it cannot tell.
func opusPacketDuration(p []byte) time.Duration {
	if len(p) == 0 {
		return OpusFrameDuration
	}
	toc := p[0]
	config := int(toc >> 3)
	var frame time.Duration
	switch {
	case config < 12: // SILK: 10, 20, 40, 60 ms
		frame = [...]time.Duration{10, 20, 40, 60}[config%4] * time.Millisecond
	case config < 16: // hybrid: 10, 20 ms
		frame = [...]time.Duration{10, 20}[config%2] * time.Millisecond
	default: // CELT: 2.5, 5, 10, 20 ms
		frame = [...]time.Duration{2500, 5000, 10000, 20000}[config%4] * time.Microsecond
	}
	frames := 1
	switch toc & 3 {
	case 1, 2:
		frames = 2
	case 3:
		if len(p) < 2 {
			return OpusFrameDuration
		}
		frames = int(p[1] & 0x3f)
	}
	d := frame * time.Duration(frames)
	if d <= 0 || d > maxOpusPacketDuration {
		return OpusFrameDuration
	}
	return d
}

// recordablePacket is payload when it is one mono packet of 20 ms that
// decoded to n samples at 16 kHz (what a PCMTap may be given), else nil.
func recordablePacket(payload []byte, n int) []byte {
	if n != int(durationToSamples(OpusFrameDuration, InputSampleRate)) || payload[0]&0x04 != 0 ||
		opusPacketDuration(payload) != OpusFrameDuration {
		return nil
	}
	return payload
}

// opusVoiced reports whether an Opus packet may hold voice: false only for
// a mono SILK or hybrid packet of one or two frames whose SILK frames all
// have their voice activity flag clear (the sender's encoder found no
// speech in them). Those flags are the first symbols of each Opus frame's
// range-coded data, each coded with probability ½, so they are the top
// bits of its first byte (as libwebrtc's WebRtcOpus_PacketHasVoiceActivity
// reads them). CELT packets carry no such flag and count as voiced.
func opusVoiced(p []byte) bool {
	if len(p) < 2 {
		return true
	}
	toc := p[0]
	config := toc >> 3
	if config >= 16 || toc&0x04 != 0 { // CELT, or stereo
		return true
	}
	silkFrames := 1 // per Opus frame: 10 and 20 ms hold one, 40 ms two, 60 ms three
	if config < 12 {
		silkFrames = max(1, int(config%4))
	}
	flags := byte(0xff) << (8 - silkFrames)
	data := p[1:]
	switch toc & 3 {
	case 0: // one frame
		return data[0]&flags != 0
	case 1: // two frames of equal size
		half := len(data) / 2
		if half == 0 || len(data)%2 != 0 {
			return true
		}
		return data[0]&flags != 0 || data[half]&flags != 0
	default: // frames of coded sizes: decoded as they come
		return true
	}
}
