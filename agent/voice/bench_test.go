package voice

import (
	"math/rand/v2"
	"testing"
	"time"
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
