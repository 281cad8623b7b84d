package candidatebot

import (
	"fmt"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"
	"gopkg.in/hraban/opus.v2"

	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/agent/worker"
)

// The microphone as a browser sends it with LiveKit's JavaScript SDK
// (which publishes microphones with Opus DTX on): libopus in its VoIP mode
// codes 20 ms frames with discontinuous transmission, and WebRTC sends the
// first silence marker of a pause but not the ones after, so while the
// candidate is quiet the track carries a comfort-noise frame every 400 ms
// and nothing between.
const (
	// micFrameDuration is one Opus frame, as browsers send them.
	micFrameDuration = voice.OpusFrameDuration
	// micFrameSamples is a frame at MicSampleRateHz.
	micFrameSamples = MicSampleRateHz * int(micFrameDuration/time.Millisecond) / 1000
	// micBitrate is what browsers give a mono voice.
	micBitrate = 32_000
	// micComplexity trades the bot's own CPU for quality; what the agent
	// decodes costs the same at any complexity, and speech at 0 is still
	// clear enough for the offline recogniser.
	micComplexity = 0
	// dtxMarkerBytes is the longest packet libopus writes for a frame it
	// leaves out of a pause (its table-of-contents byte, with padding).
	dtxMarkerBytes = 2
	// micMaxPacketBytes bounds one encoded frame.
	micMaxPacketBytes = 1275
)

// micTrack is the bot's microphone track. Queued PCM is sent frame by
// frame in real time; an empty queue is silence, which DTX keeps almost
// off the wire.
type micTrack struct {
	*worker.OpusTrack
	enc *opus.Encoder

	bound     chan struct{} // closed once WebRTC binds the track
	boundOnce sync.Once
	stop      <-chan struct{}

	mu      sync.Mutex
	drained *sync.Cond // signalled when the queue empties
	queue   []int16    // queued PCM; what is before head is sent
	head    int
	spoken  Spoken // of the queue, once its last frame is sent

	// owned by the sending loop
	frame  [micFrameSamples]int16
	packet [micMaxPacketBytes]byte
	inDTX  bool
}

// newMicTrack creates the microphone; it sends from when WebRTC binds it
// until stop is closed.
func newMicTrack(stop <-chan struct{}) (*micTrack, error) {
	track, err := worker.NewOpusTrack("candidate_mic")
	if err != nil {
		return nil, err
	}
	enc, err := opus.NewEncoder(MicSampleRateHz, 1, opus.AppVoIP)
	if err != nil {
		return nil, fmt.Errorf("opus encoder: %w", err)
	}
	for _, set := range []func() error{
		func() error { return enc.SetDTX(true) },
		func() error { return enc.SetBitrate(micBitrate) },
		func() error { return enc.SetComplexity(micComplexity) },
	} {
		if err := set(); err != nil {
			return nil, fmt.Errorf("opus encoder: %w", err)
		}
	}
	m := &micTrack{OpusTrack: track, enc: enc, bound: make(chan struct{}), stop: stop}
	m.drained = sync.NewCond(&m.mu)
	return m, nil
}

// Bind implements webrtc.TrackLocal: the first binding starts sending.
func (m *micTrack) Bind(ctx webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	params, err := m.OpusTrack.Bind(ctx)
	if err == nil {
		m.boundOnce.Do(func() {
			close(m.bound)
			go m.send()
		})
	}
	return params, err
}

// WriteSample queues pcm (mono PCM16 at MicSampleRateHz) to be spoken after
// what is queued already.
func (m *micTrack) WriteSample(pcm []int16) error {
	select {
	case <-m.stop:
		return fmt.Errorf("microphone stopped")
	default:
	}
	m.mu.Lock()
	if m.head == len(m.queue) {
		m.queue, m.head = m.queue[:0], 0
	}
	m.queue = append(m.queue, pcm...)
	m.mu.Unlock()
	return nil
}

// WaitForPlayout returns once the queue is empty: its last frame is sent,
// or ClearQueue dropped it, or the microphone stopped. It returns when the
// queue's audio was spoken (zero if it was dropped).
func (m *micTrack) WaitForPlayout() Spoken {
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.head < len(m.queue) {
		m.drained.Wait()
	}
	return m.spoken
}

// ClearQueue drops what is queued: the candidate stops talking.
func (m *micTrack) ClearQueue() {
	m.mu.Lock()
	m.queue, m.head = m.queue[:0], 0
	m.spoken = Spoken{}
	m.drained.Broadcast()
	m.mu.Unlock()
}

// send codes and sends one frame every 20 ms until stop is closed, then
// drops the queue.
func (m *micTrack) send() {
	defer m.ClearQueue()
	tick := time.NewTicker(micFrameDuration)
	defer tick.Stop()
	for slot := int64(0); ; slot++ {
		select {
		case <-m.stop:
			return
		case now := <-tick.C:
			m.nextFrame(now)
		}
		n, err := m.enc.Encode(m.frame[:], m.packet[:])
		if err != nil {
			continue // a frame lost, as a browser's encoder error loses one
		}
		if n <= dtxMarkerBytes {
			if m.inDTX {
				continue // WebRTC sends only the first marker of a pause
			}
			m.inDTX = true
		} else {
			m.inDTX = false
		}
		_ = m.WritePacket(m.packet[:n], slot, 1) // a send error loses the frame, as on a real network
	}
}

// nextFrame moves the next frame of the queue into m.frame, padding it with
// silence; an empty queue is a silent frame. The frame is sent at now, so
// it was spoken in the frame before now, as a browser captures a frame
// and then sends it.
func (m *micTrack) nextFrame(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := copy(m.frame[:], m.queue[m.head:])
	clear(m.frame[n:])
	if n == 0 {
		return
	}
	if m.head == 0 {
		m.spoken = Spoken{Start: now.Add(-micFrameDuration)}
	}
	m.head += n
	if m.head == len(m.queue) {
		m.spoken.End = now.Add(-pcmDuration16kHz(micFrameSamples - n))
		m.queue, m.head = m.queue[:0], 0
		m.drained.Broadcast()
	}
}
