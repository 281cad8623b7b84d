package candidatebot

import (
	"fmt"
	"sync"
	"time"

	"github.com/livekit/media-sdk/jitter"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"gopkg.in/hraban/opus.v2"
)

const (
	// ClientJitterWait is how long the jitter buffer beside the bot's
	// arrival clock waits for a missing packet: media-sdk's, which
	// LiveKit's Go SDK puts before its decoder (a browser's adapts, from
	// about as little).
	ClientJitterWait = 60 * time.Millisecond
	// maxOpusSamples16kHz is the longest Opus packet (120 ms) at 16 kHz.
	maxOpusSamples16kHz = MicSampleRateHz * 120 / 1000
)

// packetReader reads one audio track's RTP packets and decodes each the
// moment it arrives, straight to 16 kHz mono (libopus decodes at the rate
// it is asked for), so the bot times the agent's voice at the packet's
// arrival: what the candidate's machine receives, before any buffering
// of the bot's own. The same packets also pass through a jitter buffer
// like a LiveKit client's, which stamps each VoicedSpan with when its
// first packet left it (VoicedSpan.Buffered): what such a client adds.
type packetReader struct {
	track *webrtc.TrackRemote
	sink  audioSink
	dec   *opus.Decoder
	pcm   [maxOpusSamples16kHz]int16
	buf   *jitter.Buffer

	mu sync.Mutex
	// spanSeq is the sequence number of the packet that started the
	// latest VoicedSpan, spanStart its arrival; pending until it leaves
	// the buffer.
	spanSeq   uint16
	spanStart time.Time
	pending   bool
}

// newPacketReader returns a reader of track for b; run reads it.
func newPacketReader(b *Bot, track *webrtc.TrackRemote) (*packetReader, error) {
	dec, err := opus.NewDecoder(MicSampleRateHz, 1)
	if err != nil {
		return nil, fmt.Errorf("candidatebot: create an Opus decoder: %w", err)
	}
	r := &packetReader{track: track, sink: audioSink{bot: b}, dec: dec}
	r.buf = jitter.NewBuffer(opusDepacketizer{}, ClientJitterWait, r.released)
	return r, nil
}

// run reads packets until the track ends (unsubscribed, or the connection
// closed), then stops the jitter buffer.
func (r *packetReader) run() {
	defer r.buf.Close()
	warned := false
	for {
		pkt, _, err := r.track.ReadRTP()
		if err != nil {
			return
		}
		now := time.Now()
		if len(pkt.Payload) == 0 {
			continue
		}
		n, err := r.dec.Decode(pkt.Payload, r.pcm[:])
		if err != nil {
			if !warned {
				r.sink.bot.log.Warn("cannot decode an agent audio packet; skipping it", "error", err)
				warned = true
			}
			continue
		}
		if r.sink.writeAt(now, r.pcm[:n]) {
			r.mu.Lock()
			r.spanSeq, r.spanStart, r.pending = pkt.SequenceNumber, now, true
			r.mu.Unlock()
		}
		r.buf.PushAt(pkt, now)
	}
}

// released is the jitter buffer's output: it stamps the latest span when
// its first packet leaves the buffer.
func (r *packetReader) released(pkts []jitter.ExtPacket) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.pending {
		return
	}
	for _, p := range pkts {
		if p.SequenceNumber == r.spanSeq {
			r.pending = false
			r.sink.bot.spanBuffered(r.spanStart, now)
			return
		}
	}
}

// opusDepacketizer frames Opus for the jitter buffer: every packet is a
// whole frame.
type opusDepacketizer struct{}

var _ rtp.Depacketizer = opusDepacketizer{}

func (opusDepacketizer) Unmarshal(packet []byte) ([]byte, error) { return packet, nil }
func (opusDepacketizer) IsPartitionHead([]byte) bool             { return true }
func (opusDepacketizer) IsPartitionTail(bool, []byte) bool       { return true }
