package voice

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// maxOpusPacketBytes bounds one encoded 20 ms frame; speech at WebRTC's
// usual bitrates takes under 200 bytes.
const maxOpusPacketBytes = 400

// The agent's Opus encoder settings. Synthetic speech needs no speech
// model: the CELT-only mode (libopus's restricted low-delay application)
// at 32 kbit/s encodes a 20 ms frame in about 40 µs of CPU here at
// complexity 3, against about 300 µs for the SILK voice mode at the
// default complexity 10 (and 135 µs at 5), and sounds clean at 16–24 kHz.
// Complexity 0 takes about a third less again and keeps as much of the
// waveform (18 dB signal-to-noise on 24 kHz flite speech, as at 3).
const (
	opusEncoderApplication = opus.AppRestrictedLowdelay
	opusEncoderComplexity  = 0
	opusEncoderBitrate     = 32_000
)

// PacketWriter sends one session's encoded audio: a LiveKit track in
// production, a counter in benchmarks.
type PacketWriter interface {
	// WritePacket sends one Opus packet of frames 20 ms frames (1 or 2).
	// slot numbers its first frame's place on the Pacer's clock (one per
	// OpusFrameDuration since the clock started), from which the RTP
	// timestamp follows; a slot that does not follow the previous
	// packet's last starts a talkspurt after silence. It must not retain
	// opus.
	WritePacket(opus []byte, slot int64, frames int) error
}

// Pacer is one clock for the playout of many sessions: every 20 ms it
// sends what is due of each Playout that has audio, on one goroutine,
// instead of a ticker and a goroutine per session. It runs only while
// some Playout has audio queued, so idle sessions cost no wake-ups.
// The zero value is not usable; use NewPacer.
type Pacer struct {
	epoch time.Time
	now   func() time.Time

	mu      sync.Mutex
	active  []*Playout
	running bool

	late atomic.Int64
	sent atomic.Int64
}

// NewPacer returns an idle pacer. now is its clock (nil: time.Now); it
// must agree with the time package's timers.
func NewPacer(now func() time.Time) *Pacer {
	if now == nil {
		now = time.Now
	}
	return &Pacer{epoch: now(), now: now}
}

// LateFrames counts the frames sent a whole frame or more after their
// slot: a pacing miss the listener hears as a gap.
func (p *Pacer) LateFrames() int64 { return p.late.Load() }

// SentFrames counts the frames sent.
func (p *Pacer) SentFrames() int64 { return p.sent.Load() }

// slotAt is the slot that covers t.
func (p *Pacer) slotAt(t time.Time) int64 { return int64(t.Sub(p.epoch) / OpusFrameDuration) }

// activate puts pl on the clock, starting the clock if it was idle. A
// playout that was silent first sends a whole frame at once, in the slot
// under way, instead of waiting up to a slot for the next tick: the first
// audio of a reply goes on the wire the moment it is encoded.
func (p *Pacer) activate(pl *Playout) {
	p.mu.Lock()
	on := pl.onClock
	p.mu.Unlock()
	if on {
		return
	}
	slot := p.slotAt(p.now())
	sent, more := pl.send(slot, false)
	p.sent.Add(int64(sent))
	if !more {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl.onClock {
		return
	}
	pl.onClock = true
	p.active = append(p.active, pl)
	if !p.running {
		p.running = true
		go p.run(slot + 1)
	}
}

// run sends each active playout's frames in their slots, from slot next
// on, until no playout has audio.
func (p *Pacer) run(next int64) {
	timer := time.NewTimer(time.Until(p.epoch.Add(time.Duration(next) * OpusFrameDuration)))
	defer timer.Stop()
	var batch []*Playout
	for {
		<-timer.C
		// Slots that passed while the clock was held up are sent now,
		// late, so the stream keeps its timing.
		due := p.slotAt(p.now())
		if due < next {
			due = next
		}
		p.mu.Lock()
		batch = append(batch[:0], p.active...)
		p.mu.Unlock()
		for _, pl := range batch {
			for slot := next; slot <= due; slot++ {
				sent, more := pl.send(slot, true)
				p.sent.Add(int64(sent))
				if slot < due {
					p.late.Add(int64(sent))
				}
				if !more {
					break
				}
			}
		}
		clear(batch)
		p.mu.Lock()
		p.active = slices.DeleteFunc(p.active, func(pl *Playout) bool {
			if pl.idle() {
				pl.onClock = false
				return true
			}
			return false
		})
		if len(p.active) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		next = due + 1
		timer.Reset(p.epoch.Add(time.Duration(next) * OpusFrameDuration).Sub(p.now()))
	}
}

// Playout is the agent's audio output of one session: a Sink that cuts
// the Speaker's PCM16 into 20 ms frames, encodes each with Opus as it
// arrives (at the TTS engine's own rate: libopus codes 8, 12, 16, 24 and
// 48 kHz audio directly, so nothing is resampled) and queues them for its
// Pacer to send in their slots. When the next frame is queued already, a
// frame leaves with it in one 40 ms packet, a slot ahead: half the packets,
// and so half the sends, SRTP and UDP work on the worker, the LiveKit
// server and the listener's side, for audio that was ready anyway (the
// Speaker keeps the sink ahead of playout). Encoded frames are kept in a
// ring that is reused, so a frame costs no allocation once it has grown.
type Playout struct {
	pacer *Pacer
	out   PacketWriter
	tap   PCMTap
	// cleared is PlayoutOptions.TapCleared.
	cleared func()
	frame   int // samples per 20 ms frame

	mu      sync.Mutex
	enc     *opus.Encoder
	partial []int16 // samples short of a whole frame
	ring    []encodedFrame
	pair    [2*maxOpusPacketBytes + 3]byte // two frames joined in one packet
	head    int                            // index of the oldest queued frame
	queued  int
	drained chan struct{} // made by a waiter, closed when the queue empties or is cleared
	closed  bool
	err     error // the first write error, reported by the next WriteSample

	onClock bool // guarded by pacer.mu
	// lastSlot is the slot of the latest frame sent: no slot gets two.
	lastSlot int64
}

type encodedFrame struct {
	n   int
	buf [maxOpusPacketBytes]byte
}

// PlayoutOptions configure a Playout.
type PlayoutOptions struct {
	// SampleRateHz is the rate of the PCM written (the TTS engine's):
	// 8000, 12000, 16000, 24000 or 48000. Required.
	SampleRateHz int
	// Pacer is the clock that sends the frames. Required.
	Pacer *Pacer
	// Out sends the encoded frames. Required.
	Out PacketWriter
	// Tap, when not nil, sees each 20 ms frame of the agent's PCM as it is
	// encoded, with its packet; TapCleared, when not nil, is told when
	// ClearQueue drops what Tap saw and was never sent.
	Tap        PCMTap
	TapCleared func()
}

// NewPlayout returns an empty Playout.
func NewPlayout(opts PlayoutOptions) (*Playout, error) {
	if opts.Pacer == nil || opts.Out == nil {
		return nil, errors.New("voice: playout: Pacer and Out are required")
	}
	switch opts.SampleRateHz {
	case 8000, 12000, 16000, 24000, 48000:
	default:
		return nil, fmt.Errorf("voice: playout: Opus cannot code %d Hz audio; use a TTS engine at 8, 12, 16, 24 or 48 kHz", opts.SampleRateHz)
	}
	enc, err := opus.NewEncoder(opts.SampleRateHz, 1, opusEncoderApplication)
	if err != nil {
		return nil, fmt.Errorf("voice: playout: create Opus encoder: %w", err)
	}
	if err := enc.SetComplexity(opusEncoderComplexity); err != nil {
		return nil, fmt.Errorf("voice: playout: set Opus complexity: %w", err)
	}
	if err := enc.SetBitrate(opusEncoderBitrate); err != nil {
		return nil, fmt.Errorf("voice: playout: set Opus bitrate: %w", err)
	}
	frame := int(durationToSamples(OpusFrameDuration, opts.SampleRateHz))
	return &Playout{
		pacer:    opts.Pacer,
		out:      opts.Out,
		tap:      opts.Tap,
		cleared:  opts.TapCleared,
		frame:    frame,
		enc:      enc,
		partial:  make([]int16, 0, frame),
		ring:     make([]encodedFrame, 4),
		lastSlot: math.MinInt64,
	}, nil
}

// WriteSample encodes pcm (whole 20 ms frames; a remainder waits for the
// next write, or is padded with silence when nothing follows) and queues
// it. It does not retain pcm.
func (pl *Playout) WriteSample(pcm []int16) error {
	if len(pcm) == 0 {
		return nil
	}
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		return errors.New("voice: playout: closed")
	}
	if err := pl.err; err != nil {
		pl.err = nil
		pl.mu.Unlock()
		return err
	}
	if len(pl.partial) > 0 {
		k := min(pl.frame-len(pl.partial), len(pcm))
		pl.partial = append(pl.partial, pcm[:k]...)
		pcm = pcm[k:]
		if len(pl.partial) == pl.frame {
			if err := pl.encode(pl.partial); err != nil {
				pl.mu.Unlock()
				return err
			}
			pl.partial = pl.partial[:0]
		}
	}
	for len(pcm) >= pl.frame {
		if err := pl.encode(pcm[:pl.frame]); err != nil {
			pl.mu.Unlock()
			return err
		}
		pcm = pcm[pl.frame:]
	}
	pl.partial = append(pl.partial, pcm...)
	pl.mu.Unlock()
	pl.pacer.activate(pl)
	return nil
}

// encode queues one whole frame. mu must be held.
func (pl *Playout) encode(frame []int16) error {
	if pl.queued == len(pl.ring) {
		grown := make([]encodedFrame, 2*len(pl.ring))
		for i := range pl.queued {
			grown[i] = pl.ring[(pl.head+i)%len(pl.ring)]
		}
		pl.ring, pl.head = grown, 0
	}
	f := &pl.ring[(pl.head+pl.queued)%len(pl.ring)]
	n, err := pl.enc.Encode(frame, f.buf[:])
	if err != nil {
		return fmt.Errorf("voice: playout: Opus encode: %w", err)
	}
	f.n = n
	pl.queued++
	if pl.tap != nil {
		pl.tap(frame, f.buf[:n])
	}
	return nil
}

// send sends the oldest queued frame in slot, with the next one when it is
// queued (with pad, the pending remainder, padded, when no whole frame is
// queued), unless a frame went out in slot or a later one already. It
// reports how many frames were sent and whether more remain.
func (pl *Playout) send(slot int64, pad bool) (sent int, more bool) {
	pl.mu.Lock()
	if slot <= pl.lastSlot || (!pad && pl.queued == 0) {
		more = pl.queued > 0 || len(pl.partial) > 0
		pl.mu.Unlock()
		return 0, more
	}
	if pl.queued == 0 && len(pl.partial) > 0 {
		n := len(pl.partial)
		pl.partial = pl.partial[:pl.frame] // its capacity is one frame
		clear(pl.partial[n:])
		if err := pl.encode(pl.partial); err != nil && pl.err == nil {
			pl.err = err
		}
		pl.partial = pl.partial[:0]
	}
	if pl.queued == 0 {
		pl.signalDrained()
		pl.mu.Unlock()
		return 0, false
	}
	packet, frames := pl.nextPacket()
	// The packet is written under the lock: ClearQueue must not recycle
	// its frames' buffers mid-write, and nothing cleared is sent after.
	err := pl.out.WritePacket(packet, slot, frames)
	pl.lastSlot = slot + int64(frames) - 1
	pl.head = (pl.head + frames) % len(pl.ring)
	pl.queued -= frames
	if err != nil && pl.err == nil {
		pl.err = fmt.Errorf("voice: playout: send: %w", err)
	}
	more = pl.queued > 0 || len(pl.partial) > 0
	if !more {
		pl.signalDrained()
	}
	pl.mu.Unlock()
	return frames, more
}

// nextPacket is the packet of the oldest queued frame, joined with the
// next one when that is queued too, and how many frames it holds. mu must
// be held; the packet is valid until the queue changes.
func (pl *Playout) nextPacket() ([]byte, int) {
	f := &pl.ring[pl.head]
	if pl.queued >= 2 {
		g := &pl.ring[(pl.head+1)%len(pl.ring)]
		if joined, ok := joinOpusFrames(pl.pair[:0], f.buf[:f.n], g.buf[:g.n]); ok {
			return joined, 2
		}
	}
	return f.buf[:f.n], 1
}

// joinOpusFrames appends to dst one Opus packet holding the frames of the
// one-frame packets a and b, in that order (RFC 6716, section 3.2: code 1
// for two frames of one size, code 3 otherwise). ok is false when they
// cannot share a packet: either holds more than one frame, or they differ
// in mode, bandwidth, frame size or channels.
func joinOpusFrames(dst, a, b []byte) (joined []byte, ok bool) {
	if len(a) < 1 || len(b) < 1 || a[0]&3 != 0 || b[0]&3 != 0 || a[0] != b[0] {
		return dst, false
	}
	fa, fb := a[1:], b[1:]
	if len(fa) == len(fb) {
		dst = append(dst, a[0]|1)
	} else {
		dst = append(dst, a[0]|3, 0x80|2) // variable sizes, two frames, no padding
		if n := len(fa); n < 252 {
			dst = append(dst, byte(n))
		} else {
			first := 252 + n&3
			dst = append(dst, byte(first), byte((n-first)>>2))
		}
	}
	dst = append(dst, fa...)
	return append(dst, fb...), true
}

// idle reports whether nothing is queued.
func (pl *Playout) idle() bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.queued == 0 && len(pl.partial) == 0
}

// signalDrained releases WaitForPlayout. mu must be held.
func (pl *Playout) signalDrained() {
	if pl.drained != nil {
		close(pl.drained)
		pl.drained = nil
	}
}

// ClearQueue drops everything queued and not yet sent.
func (pl *Playout) ClearQueue() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.head, pl.queued = 0, 0
	pl.partial = pl.partial[:0]
	pl.signalDrained()
	if pl.cleared != nil {
		pl.cleared()
	}
}

// WaitForPlayout blocks until everything written has been sent; ClearQueue
// and Close release it.
func (pl *Playout) WaitForPlayout() {
	for {
		pl.mu.Lock()
		if pl.closed || (pl.queued == 0 && len(pl.partial) == 0) {
			pl.mu.Unlock()
			return
		}
		if pl.drained == nil {
			pl.drained = make(chan struct{})
		}
		ch := pl.drained
		pl.mu.Unlock()
		<-ch
	}
}

// Close drops what is queued and refuses further writes.
func (pl *Playout) Close() error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if !pl.closed {
		pl.closed = true
		pl.head, pl.queued = 0, 0
		pl.partial = pl.partial[:0]
		pl.signalDrained()
	}
	return nil
}
