package sphinx

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
)

// BenchmarkDecodeAll reports decoding time per second of audio: wall clock
// (rtf) and CPU time of the decoding thread (cpu-rtf), which a busy machine
// does not inflate.
func BenchmarkDecodeAll(b *testing.B) {
	e := engine(b)
	pcm := speak(b, sentences[0].text)
	audio := time.Duration(len(pcm)) * time.Second / stt.SampleRate
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU(b)
	for b.Loop() {
		if _, err := e.DecodeAll(pcm); err != nil {
			b.Fatal(err)
		}
	}
	cpu := threadCPU(b) - cpu0
	b.ReportMetric(b.Elapsed().Seconds()/(audio.Seconds()*float64(b.N)), "rtf")
	b.ReportMetric(cpu.Seconds()/(audio.Seconds()*float64(b.N)), "cpu-rtf")
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU(b *testing.B) time.Duration {
	const rusageThread = 1 // Linux RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStream feeds 20 ms frames as a live stream does and reports the
// time to feed a second of audio (rtf) and the time from EndOfSpeech to the
// Final, the recogniser's share of end-of-turn latency.
func BenchmarkStream(b *testing.B) {
	e := engine(b)
	pcm := speak(b, sentences[0].text)
	audio := time.Duration(len(pcm)) * time.Second / stt.SampleRate
	s, err := e.NewStream(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var feeding, final time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU(b)
	for b.Loop() {
		start := time.Now()
		for f := range slices.Chunk(pcm, frameSamples) {
			if err := s.Write(f, true); err != nil {
				b.Fatal(err)
			}
		}
		end := time.Now()
		feeding += end.Sub(start)
		if err := s.EndOfSpeech(); err != nil {
			b.Fatal(err)
		}
		for ev := range s.Events() {
			if ev.Type == stt.Final {
				final += time.Since(end)
			}
			if ev.Type == stt.UtteranceEnd {
				break
			}
		}
	}
	cpu := threadCPU(b) - cpu0
	b.ReportMetric(feeding.Seconds()/(audio.Seconds()*float64(b.N)), "rtf")
	b.ReportMetric(cpu.Seconds()/(audio.Seconds()*float64(b.N)), "cpu-rtf")
	b.ReportMetric(float64(final.Microseconds())/1000/float64(b.N), "final-ms")
}

// BenchmarkPartialHypothesis is the cost of one Interim look, 2 s into an
// utterance.
func BenchmarkPartialHypothesis(b *testing.B) {
	e := engine(b)
	pcm := speak(b, sentences[0].text)
	d, err := e.pool.get()
	if err != nil {
		b.Fatal(err)
	}
	s := &stream{pool: e.pool, dec: d}
	defer func() { s.endLocked() }()
	d.setCMN(e.pool.prior)
	if err := s.dec.start(); err != nil {
		b.Fatal(err)
	}
	if err := s.dec.process(pcm[:2*stt.SampleRate]); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = d.hypothesis()
	}
}

// BenchmarkDecoderLoad reports the time to load one decoder and the
// resident memory each one adds.
func BenchmarkDecoderLoad(b *testing.B) {
	e := engine(b)
	var loaded []*decoder
	defer func() {
		for _, d := range loaded {
			e.pool.free(d)
		}
	}()
	before := rssBytes(b)
	for b.Loop() {
		d, err := e.pool.load()
		if err != nil {
			b.Fatal(err)
		}
		e.pool.mu.Lock()
		e.pool.total++
		e.pool.mu.Unlock()
		loaded = append(loaded, d)
	}
	b.ReportMetric(float64(rssBytes(b)-before)/float64(len(loaded))/(1<<20), "MB/decoder")
}

func rssBytes(b *testing.B) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
