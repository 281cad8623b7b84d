package voice

import (
	"errors"
	"fmt"
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
)

// PCMTap sees mono PCM16 audio as it passes a point of the pipeline (the
// candidate's decoded 16 kHz audio, or the agent's before encoding), for a
// recording. It runs on the audio path: it must return quickly and must
// not retain pcm.
type PCMTap func(pcm []int16)

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
// It is safe for one goroutine at a time (the track's reader).
type OpusInput struct {
	mu  sync.Mutex
	dec *opus.Decoder
	out pcmWriter
	tap PCMTap
	pcm [maxOpusPacketSamples16kHz]int16

	// next is the RTP timestamp the next packet should carry; haveNext
	// is false before the first packet.
	next     uint32
	haveNext bool
}

// NewOpusInput returns a decoder feeding l. tap, when not nil, sees every
// decoded 16 kHz chunk before l does (silence included, as zeros).
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
// the previous packet stands for. Packets older than the last one are
// dropped. A Listener closed under it is not an error.
func (in *OpusInput) WritePacket(payload []byte, rtpTimestamp uint32) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(payload) == 0 {
		return nil
	}
	dur := opusPacketDuration(payload)
	if in.haveNext {
		gap := time.Duration(int32(rtpTimestamp-in.next)) * time.Second / OpusRTPClockHz
		switch {
		case gap < 0 && -gap <= maxGapFill:
			return nil // a late duplicate or reordered packet: already covered
		case gap > 0 && gap <= maxGapFill:
			if err := in.silence(int(durationToSamples(gap, InputSampleRate))); err != nil {
				return err
			}
		}
	}
	in.next = rtpTimestamp + uint32(durationToSamples(dur, OpusRTPClockHz))
	in.haveNext = true
	if len(payload) <= dtxPacketBytes {
		return in.silence(int(durationToSamples(dur, InputSampleRate)))
	}
	n, err := in.dec.Decode(payload, in.pcm[:])
	if err != nil {
		// A corrupt packet is lost audio, not the end of the stream.
		return in.silence(int(durationToSamples(dur, InputSampleRate)))
	}
	pcm := in.pcm[:n]
	if in.tap != nil {
		in.tap(pcm)
	}
	return ignoreClosed(in.out.WriteSample(pcm))
}

// silence writes n samples of silence.
func (in *OpusInput) silence(n int) error {
	if n <= 0 {
		return nil
	}
	if in.tap != nil {
		for left := n; left > 0; {
			k := min(left, len(zeroFrame))
			in.tap(zeroFrame[:k])
			left -= k
		}
	}
	return ignoreClosed(in.out.WriteSilence(n))
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
