package voice

import (
	"math/rand/v2"
	"testing"
	"time"

	media "github.com/livekit/media-sdk"
	"gopkg.in/hraban/opus.v2"
)

// BenchmarkListenerFrame measures one 20 ms frame through the Listener:
// re-framing, VAD, barge-in and endpointing state, pre-roll delay line and
// the STT write. One op is one frame; the 50-sessions-per-core target
// allows 400 µs of CPU per frame.
func BenchmarkListenerFrame(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ph float64
	mixed := noise(time.Second, 100, rng)
	mixed = append(mixed, flite(b, "I have been working as a backend engineer for five years.")...)
	mixed = append(mixed, noise(time.Second, 100, rng)...)
	mixed = append(mixed, voicedSignal(2*time.Second, &ph)...)
	mixed = append(mixed, noise(time.Second, 100, rng)...)
	for _, bc := range []struct {
		name string
		pcm  []int16
	}{
		{"silence", noise(10*time.Second, 100, rng)},
		{"speech", voicedSignal(10*time.Second, &ph)},
		// Utterances and pauses: events are emitted at the transitions.
		{"mixed", mixed},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l, err := NewListener(b.Context(), ListenerOptions{STT: &testSTT{}})
			if err != nil {
				b.Fatal(err)
			}
			l.SetAgentSpeaking(true)
			drained := make(chan struct{})
			go func() {
				defer close(drained)
				for range l.Events() {
				}
			}()
			frames := len(bc.pcm) / vadFrameSamples16kHz
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				f := i % frames
				if err := l.WriteSample(bc.pcm[f*vadFrameSamples16kHz : (f+1)*vadFrameSamples16kHz]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.StopTimer()
			l.Close()
			<-drained
		})
	}
}

// BenchmarkSessionAudio measures one session's audio path per 20 ms frame:
// the candidate's Opus packet decoded at 16 kHz through the Listener
// (decode), the same with the decoder at 48 kHz and a resampler as LiveKit's
// PCMRemoteTrack does (decode48k, for comparison), and the agent's 20 ms of
// speech through a Playout: encoded and sent on the pacing clock (playout).
// The 100-sessions-per-core target allows 200 µs of CPU per 20 ms of
// session for everything together.
func BenchmarkSessionAudio(b *testing.B) {
	speech := flite(b, "I have been working as a backend engineer for five years.")
	enc, err := opus.NewEncoder(InputSampleRate, 1, opus.AppVoIP)
	if err != nil {
		b.Fatal(err)
	}
	var packets [][]byte
	for off := 0; off+vadFrameSamples16kHz <= len(speech); off += vadFrameSamples16kHz {
		buf := make([]byte, maxOpusPacketBytes)
		n, err := enc.Encode(speech[off:off+vadFrameSamples16kHz], buf)
		if err != nil {
			b.Fatal(err)
		}
		packets = append(packets, buf[:n])
	}
	newListener := func(b *testing.B) *Listener {
		l, err := NewListener(b.Context(), ListenerOptions{STT: &testSTT{}})
		if err != nil {
			b.Fatal(err)
		}
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			for range l.Events() {
			}
		}()
		b.Cleanup(func() { l.Close(); <-drained })
		return l
	}
	b.Run("decode", func(b *testing.B) {
		in, err := NewOpusInput(newListener(b), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		ts := uint32(0)
		for i := 0; b.Loop(); i++ {
			if err := in.WritePacket(packets[i%len(packets)], ts); err != nil {
				b.Fatal(err)
			}
			ts += OpusRTPClockHz / 50
		}
	})
	b.Run("decode48k", func(b *testing.B) {
		l := newListener(b)
		dec, err := opus.NewDecoder(48000, 1)
		if err != nil {
			b.Fatal(err)
		}
		w := media.ResampleWriter(pcm16Writer{l}, 48000)
		pcm := make(media.PCM16Sample, 960)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			n, err := dec.Decode(packets[i%len(packets)], pcm)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.WriteSample(pcm[:n]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("playout", func(b *testing.B) {
		pacer := NewPacer(nil)
		pl, err := NewPlayout(PlayoutOptions{SampleRateHz: InputSampleRate, Pacer: pacer, Out: nopPackets{}})
		if err != nil {
			b.Fatal(err)
		}
		defer pl.Close()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			f := i % (len(speech) / vadFrameSamples16kHz)
			if err := pl.WriteSample(speech[f*vadFrameSamples16kHz : (f+1)*vadFrameSamples16kHz]); err != nil {
				b.Fatal(err)
			}
			pl.send(int64(i), true)
		}
	})
}

// pcm16Writer adapts a Listener to media-sdk's PCM16 writer at 16 kHz.
type pcm16Writer struct{ l *Listener }

func (w pcm16Writer) String() string                        { return "listener" }
func (w pcm16Writer) SampleRate() int                       { return InputSampleRate }
func (w pcm16Writer) Close() error                          { return nil }
func (w pcm16Writer) WriteSample(s media.PCM16Sample) error { return w.l.WriteSample(s) }

type nopPackets struct{}

func (nopPackets) WritePacket([]byte, int64, int) error { return nil }
