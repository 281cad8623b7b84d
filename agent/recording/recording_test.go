package recording

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/webrtc/v4/pkg/media/oggwriter"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

func TestOggCRC(t *testing.T) {
	// CRC-32 with polynomial 0x04c11db7, no reflection, init and xorout 0:
	// the POSIX cksum CRC before its final inversion.
	if got, want := oggCRC([]byte("123456789")), uint32(0x89a1897f); got != want {
		t.Fatalf("oggCRC(123456789) = %#x, want %#x", got, want)
	}
	// Agrees with pion's Ogg writer on its header page.
	var buf bytes.Buffer
	if _, err := oggwriter.NewWith(&buf, 48000, 1); err != nil {
		t.Fatal(err)
	}
	page := buf.Bytes()[:27+1+int(buf.Bytes()[27])]
	want := binary.LittleEndian.Uint32(page[22:])
	p := append([]byte(nil), page...)
	binary.LittleEndian.PutUint32(p[22:], 0)
	if got := oggCRC(p); got != want {
		t.Fatalf("CRC of pion's OpusHead page = %#x, pion wrote %#x", got, want)
	}
}

// TestOggWriterWholePages: a stream whose packets fill its pages exactly
// still ends with a last page marked end of stream (a recording of 50
// frames, or 100, was lost).
func TestOggWriterWholePages(t *testing.T) {
	for _, n := range []int{pagePackets, 2 * pagePackets} {
		var buf bytes.Buffer
		w, err := newOggOpusWriter(&buf, 7, SampleRateHz, "test")
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			if err := w.WritePacket([]byte{0xf8, 0xff, 0xfe}, frameSamples48kHz); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(uint64(opusPreSkip48kHz + (n-1)*frameSamples48kHz)); err != nil {
			t.Fatalf("%d packets: %v", n, err)
		}
		s, err := Inspect(buf.Bytes())
		if err != nil {
			t.Fatalf("%d packets: %v", n, err)
		}
		if len(s.Packets) != n || s.Pages != 2+n/pagePackets {
			t.Fatalf("%d packets: read back %d packets in %d pages", n, len(s.Packets), s.Pages)
		}
	}
}

func TestOggWriterPages(t *testing.T) {
	var buf bytes.Buffer
	w, err := newOggOpusWriter(&buf, 7, SampleRateHz, "test")
	if err != nil {
		t.Fatal(err)
	}
	// 120 packets of assorted sizes, one of 600 bytes (three lacing values).
	for i := range 120 {
		size := 1 + i%70
		if i == 60 {
			size = 600
		}
		if err := w.WritePacket(bytes.Repeat([]byte{byte(i)}, size), frameSamples48kHz); err != nil {
			t.Fatal(err)
		}
	}
	final := uint64(opusPreSkip48kHz + 119*frameSamples48kHz)
	if err := w.Close(final); err != nil {
		t.Fatal(err)
	}
	s, err := Inspect(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Packets) != 120 || len(s.Packets[60]) != 600 || s.Packets[61][0] != 61 {
		t.Fatalf("packets read back: %d, the 61st of %d bytes", len(s.Packets), len(s.Packets[60]))
	}
	if s.Pages != 2+3 || s.FinalGranule != final || s.PreSkip48kHz != opusPreSkip48kHz || s.InputSampleRateHz != SampleRateHz {
		t.Fatalf("pages %d, final granule %d, pre-skip %d, rate %d", s.Pages, s.FinalGranule, s.PreSkip48kHz, s.InputSampleRateHz)
	}
	if got, want := s.Duration(), 119*FrameDuration; got != want {
		t.Fatalf("duration %v, want %v", got, want)
	}
	// A flipped byte breaks the CRC.
	bad := bytes.Clone(buf.Bytes())
	bad[len(bad)-3] ^= 1
	if _, err := Inspect(bad); err == nil {
		t.Fatal("a corrupted page passed")
	}
}

func TestMixerPlacesVoicesOnTheClock(t *testing.T) {
	m := newMixer(4, 1, 100)
	ones := func(n int, v int16) []int16 { return bytes16(n, v) }
	// The candidate's 4 samples arrive at 8: they played from 4 to 8.
	m.Write(Candidate, 8, ones(4, 1), nil)
	// The interviewer queues 8 samples at 6: they play from 6 to 14; then
	// 4 more queued at 7 follow them (14 to 18).
	m.Write(Agent, 6, ones(8, 10), nil)
	m.Write(Agent, 7, ones(4, 100), nil)
	// Cut off at 16: what would have played after it is withdrawn.
	m.Clear(Agent, 16)
	var got []int16
	for {
		f, ok := m.Next(24)
		if !ok {
			break
		}
		got = append(got, f.pcm...)
	}
	want := []int16{0, 0, 0, 0, 1, 1, 11, 11, 10, 10, 10, 10, 10, 10, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0}
	if !slices.Equal(got, want) {
		t.Fatalf("mix\n got %v\nwant %v", got, want)
	}
	// Audio arriving after its frames were handed out is dropped, not
	// misplaced.
	m.Write(Candidate, 10, ones(4, 5), nil)
	if m.dropped != 4 {
		t.Fatalf("dropped %d samples, want 4", m.dropped)
	}
}

func TestResamplerKeepsPitchAndLength(t *testing.T) {
	r := newResampler(24000, 16000)
	in := sine(24000, 1000, 24000, 8000)
	var out []int16
	for i := 0; i < len(in); i += 240 { // 10 ms chunks
		out = r.Process(out, in[i:i+240])
	}
	if len(out) < 15990 || len(out) > 16010 {
		t.Fatalf("one second at 24 kHz gave %d samples at 16 kHz", len(out))
	}
	if f := zeroCrossings(out) / 2; f < 990 || f > 1010 {
		t.Fatalf("a 1 kHz tone came out at %d Hz", f)
	}
	if rms(out[100:]) < 5000 {
		t.Fatalf("the tone lost its level: rms %.0f", rms(out[100:]))
	}
}

// TestRecorderMixesBothVoices plays the candidate for a second, then the
// interviewer (at 24 kHz, queued ahead as the speaker does) for a second,
// cut off, and reads the file back.
func TestRecorderMixesBothVoices(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := openDir(t)
		name := recordings.Name("k3abc", 1)
		r, err := Start(Options{Dir: dir, Name: name, CandidateSampleRateHz: 16000, AgentSampleRateHz: 24000})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		time.Sleep(500 * time.Millisecond)
		cand := sine(16000, 300, 16000, 8000) // 1 s
		for i := 0; i < len(cand); i += 320 {
			time.Sleep(FrameDuration)
			r.Candidate(cand[i:i+320], nil)
		}
		time.Sleep(500 * time.Millisecond)     // at 2 s
		agent := sine(24000, 700, 36000, 8000) // 1.5 s, cut after 1 s
		r.Agent(agent[:4800], nil)             // 200 ms ahead
		for i := 4800; i < len(agent); i += 240 {
			time.Sleep(10 * time.Millisecond)
			if time.Since(start) >= 3*time.Second {
				break
			}
			r.Agent(agent[i:i+240], nil)
		}
		r.AgentCleared()
		time.Sleep(time.Second) // at 4 s
		rec, err := r.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Name != name || rec.ContentType != interviews.RecordingContentType || !rec.StartedAt.Equal(start) {
			t.Fatalf("entry %+v", rec)
		}
		if rec.DurationMS < 3990 || rec.DurationMS > 4030 {
			t.Fatalf("duration %d ms, want 4000", rec.DurationMS)
		}
		data, err := os.ReadFile(filepath.Join(dir.Path(), name))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Bytes != int64(len(data)) {
			t.Fatalf("entry says %d bytes, file has %d", rec.Bytes, len(data))
		}
		s, err := Inspect(data)
		if err != nil {
			t.Fatal(err)
		}
		if s.Duration() != rec.Duration() {
			t.Fatalf("players would show %v, the entry says %v", s.Duration(), rec.Duration())
		}
		pcm, err := s.Decode()
		if err != nil {
			t.Fatal(err)
		}
		at := func(from, to time.Duration) []int16 { return pcm[samples(from):samples(to)] }
		for _, c := range []struct {
			what     string
			from, to time.Duration
			loud     bool
			hz       int
		}{
			{"before anyone spoke", 0, 450 * time.Millisecond, false, 0},
			{"the candidate", 600 * time.Millisecond, 1400 * time.Millisecond, true, 300},
			{"the pause", 1600 * time.Millisecond, 1950 * time.Millisecond, false, 0},
			{"the interviewer", 2100 * time.Millisecond, 2900 * time.Millisecond, true, 700},
			{"after the cut", 3100 * time.Millisecond, 4000 * time.Millisecond, false, 0},
		} {
			seg := at(c.from, c.to)
			level := rms(seg)
			switch {
			case c.loud && level < 2000, !c.loud && level > 200:
				t.Errorf("%s (%v–%v): rms %.0f", c.what, c.from, c.to, level)
			case c.loud:
				secs := float64(len(seg)) / SampleRateHz
				if f := float64(zeroCrossings(seg)) / 2 / secs; math.Abs(f-float64(c.hz)) > 20 {
					t.Errorf("%s: %0.f Hz, want %d", c.what, f, c.hz)
				}
			}
		}
		assertOnly(t, dir, name)
	})
}

func TestDiscardLeavesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := openDir(t)
		r, err := Start(Options{Dir: dir, Name: recordings.Name("k3abc", 2), CandidateSampleRateHz: 16000, AgentSampleRateHz: 16000})
		if err != nil {
			t.Fatal(err)
		}
		r.Candidate(bytes16(320, 100), nil)
		time.Sleep(time.Second)
		r.Discard()
		if _, err := r.Stop(); err == nil {
			t.Fatal("Stop after Discard gave a recording")
		}
		assertOnly(t, dir)
	})
}

func TestTapsNeverBlock(t *testing.T) {
	// A recorder whose goroutine is stuck (a slow disk): the taps drop.
	r := &Recorder{in: queue{limit: 2}, now: time.Now}
	for range 10 {
		r.Candidate(bytes16(320, 1), []byte{1, 2, 3})
		r.Agent(bytes16(240, 1), nil)
	}
	if got := r.dropped.Load(); got != 18 {
		t.Fatalf("dropped %d chunks, want 18", got)
	}
	var off *Recorder // recording off
	off.Candidate(bytes16(1, 1), nil)
	off.Agent(bytes16(1, 1), nil)
	off.AgentCleared()
	off.Discard()
}

func openDir(t *testing.T) *recordings.Dir {
	t.Helper()
	d, err := recordings.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// assertOnly checks the directory holds exactly names.
func assertOnly(t *testing.T, d *recordings.Dir, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) || (len(names) > 0 && got[0] != names[0]) {
		t.Fatalf("directory holds %v, want %v", got, names)
	}
}

func bytes16(n int, v int16) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func sine(rateHz, freqHz, n int, amp float64) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * math.Sin(2*math.Pi*float64(freqHz)*float64(i)/float64(rateHz)))
	}
	return s
}

func rms(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(1, len(s))))
}

func zeroCrossings(s []int16) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if (s[i-1] < 0) != (s[i] < 0) {
			n++
		}
	}
	return n
}

func TestEncodeWholeFile(t *testing.T) {
	var buf bytes.Buffer
	pcm := sine(SampleRateHz, 440, SampleRateHz*3/2+100, 8000) // 1.5 s and a bit
	d, err := Encode(&buf, pcm)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Inspect(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := 1520 * time.Millisecond; d != want || s.Duration() != want {
		t.Fatalf("Encode says %v, players %v; want %v", d, s.Duration(), want)
	}
	out, err := s.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != samplesInt(1520*time.Millisecond) || rms(out[1600:20000]) < 4000 {
		t.Fatalf("decoded %d samples at rms %.0f", len(out), rms(out[1600:20000]))
	}
}

func samplesInt(d time.Duration) int { return int(samples(d)) }

// TestSilenceCostsOneEncoding: a pause between voices decodes as silence,
// its frames past the first few are one repeated packet (no encoding), and
// the voice after it comes back whole.
func TestSilenceCostsOneEncoding(t *testing.T) {
	tone := sine(SampleRateHz, 440, SampleRateHz/2, 8000) // 0.5 s
	pcm := slices.Concat(tone, make([]int16, 2*SampleRateHz), tone)
	var buf bytes.Buffer
	if _, err := Encode(&buf, pcm); err != nil {
		t.Fatal(err)
	}
	s, err := Inspect(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; s.Duration() != want {
		t.Fatalf("duration %v, want %v", s.Duration(), want)
	}
	// Frames 25–124 are the pause: from the fourth on, one packet.
	pause := s.Packets[25+settledQuietFrames+1 : 125]
	for i, p := range pause {
		if !bytes.Equal(p, pause[0]) {
			t.Fatalf("pause frame %d is coded anew", i)
		}
	}
	out, err := s.Decode()
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) int { return samplesInt(d) }
	if r := rms(out[at(700*time.Millisecond):at(2400*time.Millisecond)]); r > 30 {
		t.Errorf("the pause decodes at rms %.0f, want silence", r)
	}
	if r := rms(out[at(2600*time.Millisecond):at(2900*time.Millisecond)]); r < 4000 {
		t.Errorf("the voice after the pause decodes at rms %.0f", r)
	}
}
