package tts

import (
	"math"
	"testing"
)

// TestResampler: a tone converted chunk by chunk has the right length and
// stays the same tone, whatever the chunk sizes.
func TestResampler(t *testing.T) {
	tests := []struct {
		name         string
		fromHz, toHz int
		chunk        int
	}{
		{name: "16k to 24k in 20 ms chunks", fromHz: 16000, toHz: 24000, chunk: 320},
		{name: "16k to 24k in odd chunks", fromHz: 16000, toHz: 24000, chunk: 7},
		{name: "24k to 16k", fromHz: 24000, toHz: 16000, chunk: 480},
		{name: "same rate", fromHz: 16000, toHz: 16000, chunk: 100},
	}
	const toneHz = 200.0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := make([]int16, tt.fromHz) // one second
			for i := range in {
				in[i] = int16(10000 * math.Sin(2*math.Pi*toneHz*float64(i)/float64(tt.fromHz)))
			}
			r := newResampler(tt.fromHz, tt.toHz)
			var out []int16
			for b := in; len(b) > 0; {
				n := min(tt.chunk, len(b))
				out = append(out, r.process(b[:n])...)
				b = b[n:]
			}
			if d := len(out) - tt.toHz; d < -2 || d > 0 {
				t.Errorf("%d samples, want about %d", len(out), tt.toHz)
			}
			for i, v := range out {
				want := 10000 * math.Sin(2*math.Pi*toneHz*float64(i)/float64(tt.toHz))
				if math.Abs(float64(v)-want) > 60 {
					t.Fatalf("sample %d = %d, want about %.0f", i, v, want)
				}
			}
		})
	}
}
