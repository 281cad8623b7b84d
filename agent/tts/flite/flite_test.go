package flite

import (
	"bytes"
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/internal/wav"
)

func engine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// collect synthesises text and returns the audio and the chunk sizes.
func collect(t testing.TB, e tts.Engine, text string) (pcm []int16, chunks []int) {
	t.Helper()
	err := e.Synthesize(context.Background(), text, func(c []int16) error {
		pcm = append(pcm, c...)
		chunks = append(chunks, len(c))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pcm, chunks
}

func rms(pcm []int16) float64 {
	var sum float64
	for _, s := range pcm {
		sum += float64(s) * float64(s)
	}
	return math.Sqrt(sum / float64(max(len(pcm), 1)))
}

func TestSpeaksHello(t *testing.T) {
	e := engine(t)
	if e.SampleRate() != 16000 {
		t.Fatalf("sample rate %d Hz, want 16000 for slt", e.SampleRate())
	}
	if e.Name() != "flite" {
		t.Errorf("name %q", e.Name())
	}
	pcm, chunks := collect(t, e, "Hello, this is a test.")
	seconds := float64(len(pcm)) / float64(e.SampleRate())
	if seconds < 0.8 || seconds > 4 {
		t.Errorf("%.2f s of audio, want 0.8 to 4 s", seconds)
	}
	if r := rms(pcm); r < 300 {
		t.Errorf("RMS %.0f, want speech above 300", r)
	}
	if len(chunks) < 5 {
		t.Errorf("%d chunks, want the audio streamed in several", len(chunks))
	}
	for i, n := range chunks {
		if n == 0 || n > e.SampleRate()/10 {
			t.Errorf("chunk %d holds %d samples, want 1 to 100 ms", i, n)
		}
	}
}

// TestStreamsAsItSynthesises checks audio reaches out as flite's vocoder
// produces it, not once the utterance is synthesised: the first chunk is
// handed over before the vocoder has produced a second one, and the
// vocoder goes on to produce many more. It follows the order of events, so
// load on the machine cannot change the outcome.
func TestStreamsAsItSynthesises(t *testing.T) {
	e := *engine(t)
	const text = "Tell me about the hardest bug you fixed, and what you learned from it, in as much detail as you like."
	var events []string
	vocoderChunks := 0
	e.vocoded = func(int) {
		vocoderChunks++
		events = append(events, "vocoder")
	}
	err := e.Synthesize(context.Background(), text, func([]int16) error {
		events = append(events, "out")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if vocoderChunks < 10 {
		t.Fatalf("the vocoder handed over %d chunks, want the utterance produced in many", vocoderChunks)
	}
	if len(events) < 2 || events[0] != "vocoder" || events[1] != "out" {
		t.Fatalf("events begin %v, want the vocoder's first chunk handed to out before its second", events[:min(len(events), 5)])
	}
}

func TestNoTextNoAudio(t *testing.T) {
	e := engine(t)
	for _, text := range []string{"", " ", "\n\t  \r\n"} {
		calls := 0
		err := e.Synthesize(context.Background(), text, func([]int16) error { calls++; return nil })
		if err != nil || calls != 0 {
			t.Errorf("Synthesize(%q): %d chunks, %v; want none, nil", text, calls, err)
		}
	}
}

func TestStopsEarly(t *testing.T) {
	e := engine(t)
	const text = "Tell me about the hardest bug you fixed, and what you learned from it."
	full, _ := collect(t, e, text)
	errStop := errors.New("playout closed")
	tests := []struct {
		name    string
		out     func(cancel context.CancelFunc) func([]int16) error
		wantErr error
	}{
		{"context cancelled", func(cancel context.CancelFunc) func([]int16) error {
			return func([]int16) error { cancel(); return nil }
		}, context.Canceled},
		{"out fails", func(context.CancelFunc) func([]int16) error {
			return func([]int16) error { return errStop }
		}, errStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls, samples := 0, 0
			out := tt.out(cancel)
			err := e.Synthesize(ctx, text, func(c []int16) error {
				calls++
				samples += len(c)
				return out(c)
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if calls != 1 || samples > len(full)/4 {
				t.Fatalf("%d chunks, %d of %d samples delivered after the stop; want the first chunk only", calls, samples, len(full))
			}
		})
	}
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		err := e.Synthesize(ctx, text, func([]int16) error { calls++; return nil })
		if !errors.Is(err, context.Canceled) || calls != 0 {
			t.Fatalf("%d chunks, %v; want none, context.Canceled", calls, err)
		}
	})
}

func TestPanicInOutReachesTheCaller(t *testing.T) {
	e := engine(t)
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the panic from out", r)
		}
	}()
	_ = e.Synthesize(context.Background(), "Hello there.", func([]int16) error { panic("boom") })
	t.Fatal("Synthesize returned after out panicked")
}

func TestAwkwardText(t *testing.T) {
	e := engine(t)
	tests := []struct {
		name, text string
		speech     bool // expect words spoken
	}{
		{"numbers and symbols", "I earned $120,000 in 2023 & led 5 people (50%).", true},
		{"non-ASCII", "naïve café — résumé ✓ 😀 日本語", true},
		{"punctuation only", "... ?! ---", false},
		{"NUL byte", "Hello\x00world", true},
		{"long paragraph", strings.Repeat("We shipped the feature on time. ", 20), true},
		{"email and URL", "Write to jane.doe@example.com or see https://example.com/jobs?id=7.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcm, _ := collect(t, e, tt.text)
			if tt.speech && rms(pcm) < 300 {
				t.Errorf("%d samples, RMS %.0f; want speech", len(pcm), rms(pcm))
			}
		})
	}
}

// TestConcurrentSynthesis runs syntheses on the shared voice at once. The
// vocoder's noise excitation is random, so waveforms differ run to run, but
// durations are fixed by the text: a corrupted shared state would change them.
func TestConcurrentSynthesis(t *testing.T) {
	e := engine(t)
	texts := []string{
		"Hello, this is a test.",
		"I worked on a distributed database for five years.",
		"My favourite project was a payment system.",
		"Let us move on to your experience.",
	}
	want := map[string]int{}
	for _, text := range texts {
		pcm, _ := collect(t, e, text)
		want[text] = len(pcm)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var mismatches []string
	for g := range 6 {
		wg.Go(func() {
			for i := range 5 {
				text := texts[(g+i)%len(texts)]
				var n int
				err := e.Synthesize(context.Background(), text, func(c []int16) error { n += len(c); return nil })
				if err != nil || n != want[text] {
					mu.Lock()
					mismatches = append(mismatches, text)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(mismatches) > 0 {
		t.Fatalf("%d concurrent syntheses differed from serial ones: %q", len(mismatches), mismatches)
	}
}

func TestWAV(t *testing.T) {
	e := engine(t)
	const text = "My favourite project was a payment system."
	direct, _ := collect(t, e, text)
	b, err := WAV(text)
	if err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := wav.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if rate != e.SampleRate() || len(pcm) != len(direct) || rms(pcm) < 300 {
		t.Fatalf("WAV holds %d samples at %d Hz (RMS %.0f), want %d speech samples at %d Hz", len(pcm), rate, rms(pcm), len(direct), e.SampleRate())
	}
	if b, err := WAV("  "); err != nil {
		t.Fatal(err)
	} else if pcm, _, err := wav.Decode(bytes.NewReader(b)); err != nil || len(pcm) != 0 {
		t.Fatalf("WAV of blank text holds %d samples, %v; want an empty file", len(pcm), err)
	}
}

// BenchmarkSynthesize reports synthesis time per second of audio, wall clock
// (rtf) and CPU time of the synthesising thread (cpu-rtf, which a busy
// machine does not inflate), and the time from the call to the first chunk.
func BenchmarkSynthesize(b *testing.B) {
	e := engine(b)
	for _, text := range []string{
		"Hello, this is a test.",
		"Tell me about the hardest bug you fixed, and what you learned from it, in as much detail as you like.",
	} {
		b.Run(strings.Fields(text)[0], func(b *testing.B) {
			var audio, first, total time.Duration
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := threadCPU(b)
			for b.Loop() {
				start := time.Now()
				var samples int
				err := e.Synthesize(context.Background(), text, func(c []int16) error {
					if samples == 0 {
						first += time.Since(start)
					}
					samples += len(c)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				audio += time.Duration(samples) * time.Second / time.Duration(e.SampleRate())
			}
			b.ReportMetric(total.Seconds()/audio.Seconds(), "rtf")
			b.ReportMetric((threadCPU(b)-cpu0).Seconds()/audio.Seconds(), "cpu-rtf")
			b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "first-chunk-ms")
			b.ReportMetric(audio.Seconds()/float64(b.N), "audio-s")
		})
	}
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU(tb testing.TB) time.Duration {
	const rusageThread = 1 // Linux RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
