package worker

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"

	mediartp "github.com/livekit/media-sdk/rtp"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"github.com/viva-interviews/viva/agent/voice"
)

// The LiveKit glue of a session's audio, kept thin: the candidate's RTP
// packets go to a voice.OpusInput, the Playout's Opus frames become the
// agent track's RTP packets. Everything else is the spoken session's
// (package agent/spoken).

// rtpTicksPerFrame is one voice.OpusFrameDuration on Opus's RTP clock.
var rtpTicksPerFrame = uint32(voice.OpusRTPClockHz * voice.OpusFrameDuration.Milliseconds() / 1000)

// sharedPacer is the pacing clock of every session of the process that
// sets no Sessions.Pacer. It has no goroutine while nobody speaks.
var sharedPacer = sync.OnceValue(func() *voice.Pacer { return voice.NewPacer(nil) })

// pacer is the clock that sends the sessions' audio.
func (s *Sessions) pacer() *voice.Pacer {
	if s.Pacer != nil {
		return s.Pacer
	}
	return sharedPacer()
}

// OpusTrack is an audio track sent as Opus packets in 20 ms pacing slots:
// it stamps each packet with the RTP timestamp of its first slot, so a
// pause is a gap in timestamps with no packets (as discontinuous
// transmission sends it), and marks the first packet after a pause. The
// agent's voice is one; the candidate bot's microphone, which sends as a
// browser does, another.
type OpusTrack struct {
	*webrtc.TrackLocalStaticRTP

	mu       sync.Mutex
	seq      uint16
	tsBase   uint32
	lastSlot int64
	pkt      rtp.Packet
}

// NewOpusTrack creates an Opus track whose track and stream IDs start
// with name.
func NewOpusTrack(name string) (*OpusTrack, error) {
	id := fmt.Sprintf("%08x", rand.Uint32())
	tr, err := webrtc.NewTrackLocalStaticRTP(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus}, name+"_"+id, name+"_stream_"+id)
	if err != nil {
		return nil, err
	}
	return &OpusTrack{TrackLocalStaticRTP: tr, seq: uint16(rand.Uint32()), tsBase: rand.Uint32(), lastSlot: -2}, nil
}

// WritePacket sends an Opus packet of frames 20 ms frames from pacing
// slot on; slots without a frame are silence.
func (t *OpusTrack) WritePacket(opus []byte, slot int64, frames int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pkt.Header = rtp.Header{
		Version:        2,
		Marker:         slot != t.lastSlot+1,
		SequenceNumber: t.seq,
		Timestamp:      t.tsBase + uint32(slot)*rtpTicksPerFrame,
	}
	t.pkt.Payload = opus
	t.seq++
	t.lastSlot = slot + int64(frames) - 1
	return t.WriteRTP(&t.pkt)
}

// micHandler hands the candidate's RTP payloads to the decoder. A write
// the listener refuses loses that audio only: the track keeps being read.
type micHandler struct {
	in     *voice.OpusInput
	log    *slog.Logger
	warned bool
}

func (h *micHandler) String() string { return "viva microphone" }

func (h *micHandler) HandleRTP(hdr *rtp.Header, payload []byte) error {
	if err := h.in.WritePacket(payload, hdr.Timestamp); err != nil && !h.warned {
		h.warned = true
		h.log.Warn("the candidate's audio did not reach the speech recogniser", "err", err)
	}
	return nil
}

// readMicrophone feeds the candidate's microphone track, in order through
// a jitter buffer, to in until the track ends, then closes in. While the
// browser sends nothing (discontinuous transmission), in's silence clock
// writes the pause.
func readMicrophone(track *webrtc.TrackRemote, in *voice.OpusInput, log *slog.Logger) {
	defer in.Close()
	h := mediartp.HandleJitter(mediartp.NewNopCloser(&micHandler{in: in, log: log}))
	if err := mediartp.HandleLoop(track, h); err != nil && !errors.Is(err, io.EOF) {
		log.Debug("the candidate's microphone track ended", "err", err)
	}
}
