package voice

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/internal/wav"
)

// testSTT is an in-package STT engine: its streams record what they are
// fed and deliver the results a test pushes.
type testSTT struct {
	keepAudio bool

	mu      sync.Mutex
	streams []*testStream
}

func (e *testSTT) Name() string { return "test" }

func (e *testSTT) NewStream(ctx context.Context) (stt.Stream, error) {
	s := &testStream{keep: e.keepAudio, events: make(chan stt.Event, 64)}
	e.mu.Lock()
	e.streams = append(e.streams, s)
	e.mu.Unlock()
	return s, nil
}

func (e *testSTT) stream(t *testing.T) *testStream {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.streams) != 1 {
		t.Fatalf("streams opened = %d, want 1", len(e.streams))
	}
	return e.streams[0]
}

type testStream struct {
	keep   bool
	events chan stt.Event

	mu          sync.Mutex
	frames      int
	audio       []int16
	flags       []bool // inUtterance per frame
	endOfSpeech int
	closed      bool
	closeOnce   sync.Once
}

func (s *testStream) Write(frame []int16, inUtterance bool) error {
	s.mu.Lock()
	s.frames++
	if s.keep {
		s.audio = append(s.audio, frame...)
		s.flags = append(s.flags, inUtterance)
	}
	s.mu.Unlock()
	return nil
}

func (s *testStream) EndOfSpeech() error {
	s.mu.Lock()
	s.endOfSpeech++
	s.mu.Unlock()
	return nil
}

func (s *testStream) Events() <-chan stt.Event { return s.events }

func (s *testStream) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.events)
	})
	return nil
}

// final pushes a final transcript as the engine would.
func (s *testStream) result(typ stt.EventType, text string) {
	s.events <- stt.Event{Type: typ, Text: text, At: time.Now()}
}

// Signal generation, 16 kHz.

// voicedSignal is a harmonic-rich vowel-like sound (120 Hz fundamental,
// 20 harmonics, slow vibrato) that the VAD classifies as speech.
func voicedSignal(d time.Duration, phase *float64) []int16 {
	n := int(durationToSamples(d, InputSampleRate))
	out := make([]int16, n)
	for i := range out {
		f0 := 120 + 8*math.Sin(*phase/120*2*math.Pi*0.1)
		*phase += f0 / InputSampleRate
		var x float64
		for h := 1; h <= 20; h++ {
			// Formant-like emphasis around 700 Hz and 1200 Hz.
			fh := f0 * float64(h)
			g := 1/float64(h) + 0.6*math.Exp(-math.Pow((fh-700)/250, 2)) + 0.4*math.Exp(-math.Pow((fh-1200)/300, 2))
			x += g * math.Sin(2*math.Pi*float64(h)**phase)
		}
		out[i] = int16(x * 3000)
	}
	return out
}

// noise returns white noise with the given RMS.
func noise(d time.Duration, rms float64, rng *rand.Rand) []int16 {
	out := make([]int16, durationToSamples(d, InputSampleRate))
	for i := range out {
		out[i] = clip16(rng.NormFloat64() * rms)
	}
	return out
}

func clip16(x float64) int16 {
	return int16(max(-32768, min(32767, math.Round(x))))
}

// mixNoise adds white noise of the given RMS to pcm in place.
func mixNoise(pcm []int16, rms float64, rng *rand.Rand) {
	for i, s := range pcm {
		pcm[i] = clip16(float64(s) + rng.NormFloat64()*rms)
	}
}

// flite synthesises text with the flite binary (voice slt, 16 kHz).
func flite(t testing.TB, text string) []int16 {
	t.Helper()
	bin, err := exec.LookPath("flite")
	if err != nil {
		t.Fatalf("flite not found: install it (apt-get install flite): %v", err)
	}
	path := filepath.Join(t.TempDir(), "speech.wav")
	if out, err := exec.Command(bin, "-voice", "slt", "-t", text, "-o", path).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v: %s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := wav.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode flite wav: %v", err)
	}
	if rate != InputSampleRate {
		t.Fatalf("flite wrote %d Hz, want %d", rate, InputSampleRate)
	}
	return pcm
}

// speechBounds returns the first and last sample of pcm louder than a
// threshold: the true onset and end of the speech.
func speechBounds(pcm []int16) (int, int) {
	const threshold = 300
	a, b := 0, len(pcm)
	for a < b && abs16(pcm[a]) < threshold {
		a++
	}
	for b > a && abs16(pcm[b-1]) < threshold {
		b--
	}
	return a, b
}

func abs16(x int16) int16 {
	if x < 0 {
		return -x
	}
	return x
}

// feed writes pcm to l in chunks of chunk samples, advancing the clock by
// each chunk's duration before writing it, as a real-time source would.
// It must run inside a synctest bubble.
func feed(t *testing.T, l *Listener, pcm []int16, chunk int) {
	t.Helper()
	for len(pcm) > 0 {
		n := min(chunk, len(pcm))
		time.Sleep(samplesToDuration(int64(n), InputSampleRate))
		if err := l.WriteSample(pcm[:n]); err != nil {
			t.Fatalf("WriteSample: %v", err)
		}
		pcm = pcm[n:]
	}
}

// collect drains the events available now (non-blocking).
func drain(l *Listener) []Event {
	var evs []Event
	for {
		select {
		case ev, ok := <-l.Events():
			if !ok {
				return evs
			}
			evs = append(evs, ev)
		default:
			return evs
		}
	}
}

func ofType[T Event](evs []Event) []T {
	var out []T
	for _, ev := range evs {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// keyboardClicks returns quiet noise with about six decaying clicks per
// second of the given peak RMS, like typing near the microphone.
func keyboardClicks(d time.Duration, level float64, rng *rand.Rand) []int16 {
	out := noise(d, 30, rng)
	clicks := int(6 * d.Seconds())
	for range clicks {
		p := rng.IntN(len(out) - 400)
		for j := range 400 {
			out[p+j] = clip16(float64(out[p+j]) + rng.NormFloat64()*level*math.Exp(-float64(j)/60))
		}
	}
	return out
}
