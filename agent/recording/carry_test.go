package recording

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"gopkg.in/hraban/opus.v2"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/testrig/browsertest"
)

// TestMixerKeepsPacketsOnTheGrid: a voice's packet is kept for the frame it
// holds when its audio lies on the frame grid; audio that starts after a
// pause of its voice is moved onto the grid; a packet off the grid in the
// middle of its voice's audio, or withdrawn, is let go.
func TestMixerKeepsPacketsOnTheGrid(t *testing.T) {
	const fs = 16
	m := newMixer(fs, 4, 1000)
	pkt := func(id byte) []byte { return []byte{id} }
	// The interviewer's first frame, queued at 21, moves back to 16 (its
	// voice was silent); the next follows on at 32.
	m.Write(Agent, 21, bytes16(fs, 1000), pkt('a'))
	m.Write(Agent, 22, bytes16(fs, 1100), pkt('b'))
	// The candidate's frame that played from 44 to 60 moves to 48; the
	// next follows at 64; then 8 samples without a packet, and a packet
	// whose audio now starts at 88, off the grid after audible audio.
	m.Write(Candidate, 60, bytes16(fs, 2000), pkt('c'))
	m.Write(Candidate, 80, bytes16(fs, 2100), pkt('d'))
	m.Write(Candidate, 88, bytes16(8, 2200), nil)
	m.Write(Candidate, 104, bytes16(fs, 2300), pkt('e'))
	// An interviewer's frame queued at 104 (moved to 112) and withdrawn
	// before it plays.
	m.Write(Agent, 104, bytes16(fs, 1200), pkt('f'))
	m.Clear(Agent, 112)

	want := []struct {
		first  int16
		peak   [voices]int
		packet [voices]byte
	}{
		{0, [voices]int{}, [voices]byte{}},
		{1000, [voices]int{Agent: 1000}, [voices]byte{Agent: 'a'}},
		{1100, [voices]int{Agent: 1100}, [voices]byte{Agent: 'b'}},
		{2000, [voices]int{Candidate: 2000}, [voices]byte{Candidate: 'c'}},
		{2100, [voices]int{Candidate: 2100}, [voices]byte{Candidate: 'd'}},
		{2200, [voices]int{Candidate: 2300}, [voices]byte{}},
		{2300, [voices]int{Candidate: 2300}, [voices]byte{}},
		{0, [voices]int{}, [voices]byte{}},
	}
	for i, w := range want {
		f, ok := m.Next(int64(len(want) * fs))
		if !ok {
			t.Fatalf("frame %d not handed out", i)
		}
		var got [voices]byte
		for v := range voices {
			if p := f.packet[v].data; p != nil {
				got[v] = p[0]
			}
		}
		if f.pcm[0] != w.first || f.peak != w.peak || got != w.packet {
			t.Errorf("frame %d: first sample %d, peaks %v, packets %q; want %d, %v, %q",
				i, f.pcm[0], f.peak, got[:], w.first, w.peak, w.packet[:])
		}
	}
	if _, ok := m.Next(1 << 20); !ok {
		t.Fatal("no frame after the last")
	}
	// The five packets kept are let go, their buffers kept for reuse.
	if len(m.spare) != 5 {
		t.Errorf("%d of 5 packet buffers kept for reuse", len(m.spare))
	}
}

// TestRecorderCarriesEachVoicesOwnPackets: where one voice speaks alone the
// recording holds the very packets it was heard in (the candidate's from a
// browser-like VoIP encoder, the interviewer's from its CELT encoder),
// where both speak it holds the mix encoded, and no join is heard: no frame
// decodes louder than the voices in it.
func TestRecorderCarriesEachVoicesOwnPackets(t *testing.T) {
	data, sent := carriedRecording(t)
	s, err := Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Duration() != 5*time.Second {
		t.Fatalf("duration %v, want 5s", s.Duration())
	}
	// Frame i of the file covers i×20 ms to (i+1)×20 ms.
	carried := func(from, to time.Duration, v Voice) (n int) {
		for _, p := range s.Packets[from/FrameDuration : to/FrameDuration] {
			if w, ok := sent[string(p)]; ok && w == v && len(p) > 2 {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		what     string
		from, to time.Duration
		v        Voice
		min, max int
	}{
		{"the candidate alone", 500 * time.Millisecond, 1500 * time.Millisecond, Candidate, 48, 50},
		{"the interviewer alone", 2000 * time.Millisecond, 3000 * time.Millisecond, Agent, 48, 50},
		{"both (the candidate)", 3000 * time.Millisecond, 3300 * time.Millisecond, Candidate, 0, 0},
		{"both (the interviewer)", 3000 * time.Millisecond, 3300 * time.Millisecond, Agent, 0, 0},
		// One frame of the voice alone is coded first.
		{"the candidate straight after both", 3300 * time.Millisecond, 3800 * time.Millisecond, Candidate, 23, 24},
		{"the interviewer straight after the candidate", 3800 * time.Millisecond, 4300 * time.Millisecond, Agent, 23, 24},
	} {
		if n := carried(c.from, c.to, c.v); n < c.min || n > c.max {
			t.Errorf("%s (%v–%v): %d of its frames carried as sent, want %d–%d", c.what, c.from, c.to, n, c.min, c.max)
		}
	}
	pcm, err := s.Decode()
	if err != nil {
		t.Fatal(err)
	}
	checkCarriedAudio(t, pcm)
}

// TestBrowserDecodesCarriedRecording: Chromium, as a reviewer's browser
// plays it, decodes a recording that switches between the candidate's
// SILK packets, the interviewer's CELT packets and the recorder's own
// frames, whole: every stretch at its level and pitch, no join louder
// than both voices.
func TestBrowserDecodesCarriedRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	data, _ := carriedRecording(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/recording.ogg" {
			w.Header().Set("Content-Type", interviews.RecordingContentType)
			_, _ = w.Write(data)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<!doctype html><title>recording</title>")
	}))
	defer srv.Close()
	ctx := browsertest.Start(t, browsertest.Desktop)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var decoded []float64
	err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"),
		chromedp.Evaluate(`(async () => {
			const data = await (await fetch("/recording.ogg")).arrayBuffer();
			const ctx = new OfflineAudioContext(1, 16000, 16000);
			const audio = await ctx.decodeAudioData(data);
			return Array.from(audio.getChannelData(0), x => Math.round(x * 32767));
		})()`, &decoded, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 * SampleRateHz; math.Abs(float64(len(decoded)-want)) > SampleRateHz/50 {
		t.Fatalf("Chromium decoded %d samples, want %d (5 s)", len(decoded), want)
	}
	pcm := make([]int16, len(decoded))
	for i, v := range decoded {
		pcm[i] = int16(max(-32768, min(32767, v)))
	}
	checkCarriedAudio(t, pcm)
}

// carriedRecording records five seconds: the candidate alone, a pause,
// the interviewer alone over the candidate's faint noise, both, the
// candidate straight after both, the interviewer straight after the
// candidate. It returns the file and the voice each packet sent came from.
func carriedRecording(t *testing.T) (data []byte, sent map[string]Voice) {
	sent = map[string]Voice{}
	synctest.Test(t, func(t *testing.T) {
		candEnc, err := opus.NewEncoder(16000, 1, opus.AppVoIP)
		if err != nil {
			t.Fatal(err)
		}
		agentEnc, err := opus.NewEncoder(24000, 1, opus.AppRestrictedLowdelay)
		if err != nil {
			t.Fatal(err)
		}
		if err := agentEnc.SetComplexity(0); err != nil {
			t.Fatal(err)
		}
		dir := openDir(t)
		name := recordings.Name("k3abc", 1)
		r, err := Start(Options{Dir: dir, Name: name, CandidateSampleRateHz: 16000, AgentSampleRateHz: 24000})
		if err != nil {
			t.Fatal(err)
		}
		encode := func(enc *opus.Encoder, v Voice, pcm []int16) []byte {
			buf := make([]byte, maxPacketBytes)
			n, err := enc.Encode(pcm, buf)
			if err != nil {
				t.Fatal(err)
			}
			sent[string(buf[:n])] = v
			return buf[:n]
		}
		const candFrame, agentFrame = 320, 480
		cand := sine(16000, 300, 16000*4, 8000)
		agent := sine(24000, 700, 24000*4, 8000)
		var ci, ai int       // the next samples of each voice
		candSays := func() { // one frame, spoken in the last 20 ms
			f := cand[ci : ci+candFrame]
			ci += candFrame
			r.Candidate(f, encode(candEnc, Candidate, f))
		}
		candSilent := func() { r.Candidate(make([]int16, candFrame), nil) }
		// A microphone's faint noise (−52 dBFS): lost under the interviewer.
		candFaint := func() { r.Candidate(sine(16000, 3000, candFrame, 80), nil) }
		agentQueues := func() { // one frame, queued behind what plays
			f := agent[ai : ai+agentFrame]
			ai += agentFrame
			r.Agent(f, encode(agentEnc, Agent, f))
		}
		tick := func(n int, each ...func()) {
			for range n {
				time.Sleep(FrameDuration)
				for _, f := range each {
					f()
				}
			}
		}
		tick(25, candSilent) // 0–0.5 s: nobody
		tick(50, candSays)   // 0.5–1.5 s: the candidate alone
		tick(25, candSilent) // 1.5–2 s: a pause
		for range 10 {       // the interviewer's reply, 200 ms queued ahead
			agentQueues()
		}
		tick(50, candFaint, agentQueues) // 2–3 s: the interviewer alone
		tick(15, candSays, agentQueues)  // 3–3.3 s: the candidate cuts in
		r.AgentCleared()                 // … and the interviewer stops
		tick(25, candSays)               // 3.3–3.8 s: the candidate alone, straight after both
		for range 10 {                   // the interviewer at once, no pause
			agentQueues()
		}
		tick(25, candSilent, agentQueues) // 3.8–4.3 s
		r.AgentCleared()
		tick(35, candSilent) // to 5 s
		if _, err := r.Stop(); err != nil {
			t.Fatal(err)
		}
		if data, err = os.ReadFile(filepath.Join(dir.Path(), name)); err != nil {
			t.Fatal(err)
		}
	})
	return data, sent
}

// checkCarriedAudio checks the decoded audio of carriedRecording.
func checkCarriedAudio(t *testing.T, pcm []int16) {
	t.Helper()
	at := func(from, to time.Duration) []int16 { return pcm[samples(from):samples(to)] }
	solo := 8000 / math.Sqrt2
	for _, c := range []struct {
		what     string
		from, to time.Duration
		min, max float64 // rms
		hz       int
	}{
		{"before anyone spoke", 0, 450 * time.Millisecond, 0, 200, 0},
		{"the candidate", 560 * time.Millisecond, 1460 * time.Millisecond, 0.6 * solo, 1.15 * solo, 300},
		{"the pause", 1600 * time.Millisecond, 1950 * time.Millisecond, 0, 200, 0},
		{"the interviewer", 2060 * time.Millisecond, 2960 * time.Millisecond, 0.6 * solo, 1.15 * solo, 700},
		{"both", 3040 * time.Millisecond, 3260 * time.Millisecond, 0.6 * 8000, 1.15 * 8000, 0},
		{"the candidate after both", 3340 * time.Millisecond, 3760 * time.Millisecond, 0.6 * solo, 1.15 * solo, 300},
		{"the interviewer after the candidate", 3840 * time.Millisecond, 4260 * time.Millisecond, 0.6 * solo, 1.15 * solo, 700},
		{"the end", 4400 * time.Millisecond, 5000 * time.Millisecond, 0, 200, 0},
	} {
		seg := at(c.from, c.to)
		if level := rms(seg); level < c.min || level > c.max {
			t.Errorf("%s (%v–%v): rms %.0f, want %.0f–%.0f", c.what, c.from, c.to, level, c.min, c.max)
		}
		if c.hz > 0 {
			secs := float64(len(seg)) / SampleRateHz
			if f := float64(zeroCrossings(seg)) / 2 / secs; math.Abs(f-float64(c.hz)) > 20 {
				t.Errorf("%s: %.0f Hz, want %d", c.what, f, c.hz)
			}
		}
	}
	// No join is heard: no 10 ms of the recording is louder than both
	// voices at once.
	const win = SampleRateHz / 100
	for i := 0; i+win <= len(pcm); i += win {
		if level := rms(pcm[i : i+win]); level > 1.15*8000 {
			t.Errorf("at %v: rms %.0f, louder than both voices together", time.Duration(i)*time.Second/SampleRateHz, level)
		}
	}
}

// TestResampledFramesKeepTheirPackets: an interviewer's 20 ms frames from a
// TTS engine at any rate the playout codes, resampled to the recording's,
// each keep their packet, though at 8 and 12 kHz a frame may come out a
// sample or two off the grid.
func TestResampledFramesKeepTheirPackets(t *testing.T) {
	for _, rate := range []int{8000, 12000, 16000, 24000, 48000} {
		res := newResampler(rate, SampleRateHz)
		m := newMixer(frameSamples16kHz, samples(contiguousSlack), samples(maxAhead))
		in := sine(rate, 440, rate, 8000) // 1 s
		per := rate / 50
		var scratch []int16
		for i := range 50 {
			scratch = res.Process(scratch[:0], in[i*per:(i+1)*per])
			m.Write(Agent, 1234, scratch, []byte{byte(i)})
		}
		kept := 0
		for i := 0; ; i++ {
			f, ok := m.Next(samples(3 * time.Second))
			if !ok {
				break
			}
			if p := f.packet[Agent].data; p != nil {
				if int(p[0]) != kept {
					t.Errorf("%d Hz: frame %d holds packet %d, want %d", rate, i, p[0], kept)
				}
				kept++
			}
		}
		if kept != 50 {
			t.Errorf("%d Hz: %d of 50 frames kept their packets", rate, kept)
		}
	}
}
