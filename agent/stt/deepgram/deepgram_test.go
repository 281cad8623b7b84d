package deepgram

import (
	"context"
	"errors"
	"github.com/viva-interviews/viva/incident"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/internal/wav"
	"github.com/viva-interviews/viva/testrig/fakedeepgram"
	"github.com/viva-interviews/viva/testrig/incidentlog"
)

const (
	text1 = "Hello there my name is Alex"
	text2 = "I have five years of experience with Go"
	text3 = "Thank you for asking"
)

var (
	speechMu    sync.Mutex
	speechCache = map[string][]int16{}
)

// speech returns text spoken by flite (voice slt, 16 kHz) with leading and
// trailing silence trimmed, or a voiced synthetic signal of similar length
// when flite is not installed. Call it outside synctest bubbles.
func speech(t *testing.T, text string) []int16 {
	t.Helper()
	speechMu.Lock()
	defer speechMu.Unlock()
	if pcm, ok := speechCache[text]; ok {
		return pcm
	}
	var pcm []int16
	if _, err := exec.LookPath("flite"); err == nil {
		path := filepath.Join(t.TempDir(), "speech.wav")
		if out, err := exec.Command("flite", "-voice", "slt", "-t", text, "-o", path).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v: %s", err, out)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var rate int
		if pcm, rate, err = wav.Decode(f); err != nil {
			t.Fatal(err)
		}
		if rate != stt.SampleRate {
			t.Fatalf("flite wrote %d Hz audio, want %d", rate, stt.SampleRate)
		}
		pcm = trim(pcm)
	} else {
		pcm = voiced(time.Duration(len(text)) * 60 * time.Millisecond)
	}
	speechCache[text] = pcm
	return pcm
}

func trim(pcm []int16) []int16 {
	loud := func(v int16) bool { return v > 200 || v < -200 }
	for len(pcm) > 0 && !loud(pcm[0]) {
		pcm = pcm[1:]
	}
	for len(pcm) > 0 && !loud(pcm[len(pcm)-1]) {
		pcm = pcm[:len(pcm)-1]
	}
	return pcm
}

// voiced is a speech-like signal: harmonics of 150 Hz, amplitude-modulated
// at 4 Hz.
func voiced(d time.Duration) []int16 {
	n := int(d * stt.SampleRate / time.Second)
	pcm := make([]int16, n)
	for i := range pcm {
		ts := float64(i) / stt.SampleRate
		var v float64
		for h := 1; h <= 5; h++ {
			v += math.Sin(2*math.Pi*150*float64(h)*ts) / float64(h)
		}
		env := 0.6 + 0.4*math.Sin(2*math.Pi*4*ts)
		pcm[i] = int16(6000 * env * v)
	}
	return pcm
}

func silence(d time.Duration) []int16 { return make([]int16, int(d*stt.SampleRate/time.Second)) }

func concat(parts ...[]int16) []int16 {
	var out []int16
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func duration(pcm []int16) time.Duration {
	return time.Duration(len(pcm)) * time.Second / stt.SampleRate
}

// feed writes pcm in 20 ms frames, sleeping 20 ms per frame as a microphone
// would. Only used under synctest, where the clock is fake.
func feed(t *testing.T, st stt.Stream, pcm []int16) {
	t.Helper()
	feedFrames(t, st, pcm, stt.SampleRate/50, true)
}

// feedFrames writes pcm in frames of the given number of samples, paced in
// real time or as fast as Write returns. Unpaced, frames must be large
// enough (100 ms) for the whole input to fit the stream's send queue, which
// holds about 5 s of audio.
func feedFrames(t *testing.T, st stt.Stream, pcm []int16, frame int, pace bool) {
	t.Helper()
	for len(pcm) > 0 {
		n := min(frame, len(pcm))
		if err := st.Write(pcm[:n], true); err != nil {
			t.Fatalf("Write: %v", err)
		}
		pcm = pcm[n:]
		if pace {
			time.Sleep(time.Duration(n) * time.Second / stt.SampleRate)
		}
	}
}

// collector gathers a stream's events until Events is closed.
type collector struct {
	mu     sync.Mutex
	events []stt.Event
	done   chan struct{}
}

func collect(st stt.Stream) *collector {
	c := &collector{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ev := range st.Events() {
			c.mu.Lock()
			c.events = append(c.events, ev)
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *collector) get() []stt.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]stt.Event(nil), c.events...)
}

// summary renders events as "SpeechStarted", "Interim", "Final:<text>",
// "UtteranceEnd", runs of Interims collapsed into one.
func summary(evs []stt.Event) []string {
	var out []string
	for _, ev := range evs {
		var s string
		switch ev.Type {
		case stt.SpeechStarted:
			s = "SpeechStarted"
		case stt.Interim:
			s = "Interim"
		case stt.Final:
			s = "Final:" + ev.Text
		case stt.UtteranceEnd:
			s = "UtteranceEnd"
		}
		if s == "Interim" && len(out) > 0 && out[len(out)-1] == "Interim" {
			continue
		}
		out = append(out, s)
	}
	return out
}

func finals(evs []stt.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == stt.Final {
			out = append(out, ev.Text)
		}
	}
	return out
}

func quietLogger() *slog.Logger {
	return slog.New(slog.DiscardHandler)
}

func engineFor(t *testing.T, srv *fakedeepgram.Server, inMemory bool, mod func(*Options)) *Engine {
	t.Helper()
	opts := Options{APIKey: fakedeepgram.Key, URL: srv.URL, Logger: quietLogger()}
	if inMemory {
		opts.NetDialContext = srv.DialContext
	}
	if mod != nil {
		mod(&opts)
	}
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func TestStreamTranscribesUtterances(t *testing.T) {
	audio := concat(silence(300*time.Millisecond), speech(t, text1), silence(time.Second),
		speech(t, text2), silence(time.Second))
	wantSummary := []string{
		"SpeechStarted", "Interim", "Final:" + text1, "UtteranceEnd",
		"SpeechStarted", "Interim", "Final:" + text2, "UtteranceEnd",
	}
	wantQuery := map[string]string{
		"model": "nova-3", "language": "en", "encoding": "linear16", "sample_rate": "16000",
		"channels": "1", "interim_results": "true", "punctuate": "true", "smart_format": "true",
		"endpointing": "300", "utterance_end_ms": "1000", "vad_events": "true",
	}
	run := func(t *testing.T, inMemory bool) {
		var srv *fakedeepgram.Server
		if inMemory {
			srv = fakedeepgram.NewInMemory()
		} else {
			srv = fakedeepgram.New()
		}
		defer srv.Close()
		srv.ScriptTranscripts(text1, text2)
		st, err := engineFor(t, srv, inMemory, nil).NewStream(t.Context())
		if err != nil {
			t.Fatalf("NewStream: %v", err)
		}
		c := collect(st)
		if inMemory {
			feed(t, st, audio)
		} else {
			feedFrames(t, st, audio, stt.SampleRate/10, false)
		}
		if err := st.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		<-c.done
		evs := c.get()
		if got := summary(evs); !slices.Equal(got, wantSummary) {
			t.Errorf("events:\n got %q\nwant %q", got, wantSummary)
		}
		final := ""
		for i := len(evs) - 1; i >= 0; i-- { // every Interim is a prefix of its Final
			switch evs[i].Type {
			case stt.Final:
				final = evs[i].Text
			case stt.Interim:
				if !strings.HasPrefix(final, evs[i].Text) {
					t.Errorf("interim %q is not a prefix of final %q", evs[i].Text, final)
				}
			}
		}
		if got := srv.Received(); got != duration(audio) {
			t.Errorf("server received %v of audio, want %v", got, duration(audio))
		}
		if srv.CloseStreams() != 1 {
			t.Errorf("CloseStream messages = %d, want 1", srv.CloseStreams())
		}
		qs := srv.Queries()
		if len(qs) != 1 {
			t.Fatalf("connections = %d, want 1", len(qs))
		}
		for k, v := range wantQuery {
			if got := qs[0].Get(k); got != v {
				t.Errorf("query %s = %q, want %q", k, got, v)
			}
		}
	}
	t.Run("tcp", func(t *testing.T) { run(t, false) })
	t.Run("in-memory paced", func(t *testing.T) { synctest.Test(t, func(t *testing.T) { run(t, true) }) })
}

func TestEndOfSpeechFinalizesPromptly(t *testing.T) {
	utt := speech(t, text3)
	synctest.Test(t, func(t *testing.T) {
		srv := fakedeepgram.NewInMemory()
		defer srv.Close()
		srv.ScriptTranscripts(text3)
		st, err := engineFor(t, srv, true, nil).NewStream(t.Context())
		if err != nil {
			t.Fatalf("NewStream: %v", err)
		}
		defer st.Close()
		c := collect(st)
		feed(t, st, concat(silence(200*time.Millisecond), utt))
		synctest.Wait()
		if f := finals(c.get()); len(f) != 0 {
			t.Fatalf("finals before EndOfSpeech = %q, want none (speech has not ended)", f)
		}
		asked := time.Now()
		if err := st.EndOfSpeech(); err != nil {
			t.Fatalf("EndOfSpeech: %v", err)
		}
		synctest.Wait() // no audio and no time passes from here
		evs := c.get()
		if got, want := summary(evs)[len(summary(evs))-2:], []string{"Final:" + text3, "UtteranceEnd"}; !slices.Equal(got, want) {
			t.Fatalf("last events = %q, want %q", got, want)
		}
		if lag := evs[len(evs)-1].At.Sub(asked); lag != 0 {
			t.Errorf("UtteranceEnd came %v after EndOfSpeech, want at once", lag)
		}
		if srv.Finalizes() != 1 {
			t.Errorf("Finalize messages = %d, want 1", srv.Finalizes())
		}
	})
}

func TestKeepAlive(t *testing.T) {
	for _, tc := range []struct {
		name           string
		interval       time.Duration
		wantKeepAlives int
		minConns       int
		maxConns       int
	}{
		// Audio stops at 1 s; KeepAlives at 6, 11, 16, 21, 26 and 31 s keep
		// the one connection open.
		{name: "every 5s keeps the connection", interval: 5 * time.Second, wantKeepAlives: 6, minConns: 1, maxConns: 1},
		// Without a KeepAlive within 10 s the server closes the connection
		// (at 11, 21 and 31 s); the stream reconnects each time.
		{name: "every 20s is too late", interval: 20 * time.Second, wantKeepAlives: 0, minConns: 4, maxConns: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := fakedeepgram.NewInMemory()
				defer srv.Close()
				st, err := engineFor(t, srv, true, func(o *Options) { o.KeepAlive = tc.interval }).NewStream(t.Context())
				if err != nil {
					t.Fatalf("NewStream: %v", err)
				}
				defer st.Close()
				feed(t, st, silence(time.Second))
				time.Sleep(30*time.Second + 500*time.Millisecond)
				synctest.Wait()
				if got := srv.KeepAlives(); got != tc.wantKeepAlives {
					t.Errorf("KeepAlives = %d, want %d", got, tc.wantKeepAlives)
				}
				if got := srv.Connections(); got < tc.minConns || got > tc.maxConns {
					t.Errorf("connections = %d, want %d..%d", got, tc.minConns, tc.maxConns)
				}
				if err := st.Write(silence(20*time.Millisecond), false); err != nil {
					t.Errorf("Write after idling: %v", err)
				}
			})
		})
	}
}

func TestAuthErrors(t *testing.T) {
	srv := fakedeepgram.New()
	defer srv.Close()
	for _, tc := range []struct {
		name      string
		key       string
		wantAuth  bool
		wantInMsg []string
	}{
		{name: "missing key", key: "", wantInMsg: []string{"DEEPGRAM_API_KEY"}},
		{name: "rejected key", key: "dg-wrong", wantAuth: true, wantInMsg: []string{"rejected", "DEEPGRAM_API_KEY", "401"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(Options{APIKey: tc.key, URL: srv.URL, Logger: quietLogger()})
			if err == nil {
				var st stt.Stream
				st, err = e.NewStream(t.Context())
				if st != nil {
					st.Close()
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, stt.ErrAuth) != tc.wantAuth {
				t.Errorf("errors.Is(err, stt.ErrAuth) = %v, want %v (err: %v)", !tc.wantAuth, tc.wantAuth, err)
			}
			for _, s := range tc.wantInMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
	if n := srv.Connections(); n != 0 {
		t.Errorf("server accepted %d connections with bad keys", n)
	}
}

func TestReconnect(t *testing.T) {
	utt1, utt2 := speech(t, text1), speech(t, text2)
	for _, tc := range []struct {
		name   string
		refuse int           // handshakes refused after the drop
		replay time.Duration // the replay buffer; zero means the default
		// wantKinds are the incidents reported, in order.
		wantKinds []incident.Kind
		lost      bool // audio is lost (past the replay buffer)
		// midUtterance drops the connection after this much of the second
		// utterance was sent: Deepgram never finalised it, so it is sent
		// again on the new connection.
		midUtterance time.Duration
	}{
		{name: "dropped connection comes back at once", refuse: 0,
			wantKinds: []incident.Kind{incident.Disconnected}},
		// The first two attempts fail: the second utterance is spoken while
		// disconnected, buffered and replayed.
		{name: "service refuses twice", refuse: 2,
			wantKinds: []incident.Kind{incident.Disconnected}},
		// Down for 1.75 s with 1 s of buffer: the oldest audio of the gap is
		// lost, and the record says so.
		{name: "outage outlasts the replay buffer", refuse: 3, replay: time.Second, lost: true,
			wantKinds: []incident.Kind{incident.Disconnected, incident.AudioLost}},
		{name: "dropped mid-utterance", midUtterance: 800 * time.Millisecond,
			wantKinds: []incident.Kind{incident.Disconnected}},
		{name: "dropped mid-utterance, service refuses twice", refuse: 2, midUtterance: 800 * time.Millisecond,
			wantKinds: []incident.Kind{incident.Disconnected}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := fakedeepgram.NewInMemory()
				defer srv.Close()
				// A connection lost mid-utterance took the second text with
				// it: Deepgram finalises the utterance on the next one.
				srv.ScriptTranscripts(text1, text2, text2)
				var log incidentlog.Log
				ctx := log.Context(t.Context())
				st, err := engineFor(t, srv, true, func(o *Options) { o.ReplayBuffer = tc.replay }).NewStream(ctx)
				if err != nil {
					t.Fatalf("NewStream: %v", err)
				}
				c := collect(st)
				first := concat(silence(200*time.Millisecond), utt1, silence(600*time.Millisecond))
				feed(t, st, first)
				// The listener ends each utterance: Deepgram finalises
				// everything sent so far.
				if err := st.EndOfSpeech(); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				second := concat(utt2, silence(600*time.Millisecond))
				before := second[:int(tc.midUtterance*stt.SampleRate/time.Second)]
				feed(t, st, before)
				synctest.Wait()
				srv.RefuseConnections(tc.refuse)
				srv.DropConnections()
				feed(t, st, second[len(before):])
				if err := st.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				<-c.done
				if got, want := finals(c.get()), []string{text1, text2}; !tc.lost && !slices.Equal(got, want) {
					t.Errorf("finals = %q, want %q", got, want)
				}
				if got := srv.Connections(); got != 2 {
					t.Errorf("connections = %d, want 2", got)
				}
				got, sent := srv.Received(), duration(first)+duration(second)+duration(before)
				// Up to ackMargin of finalised audio may be sent again.
				if !tc.lost && (got < sent || got > sent+ackMargin) {
					t.Errorf("server received %v of audio, want %v (audio lost in the outage, or replayed twice)", got, sent)
				}
				if tc.lost && got >= sent {
					t.Errorf("server received all %v of audio, want some lost past the %v buffer", got, tc.replay)
				}
				incidents := log.Incidents()
				var kinds []incident.Kind
				for _, inc := range incidents {
					kinds = append(kinds, inc.Kind)
					if inc.Provider != incident.STT || inc.Engine != "deepgram" || inc.Detail == "" {
						t.Errorf("incident %+v", inc)
					}
					if inc.Recovered != (inc.Kind == incident.Disconnected) {
						t.Errorf("incident %+v: recovered %t", inc, inc.Recovered)
					}
				}
				if !slices.Equal(kinds, tc.wantKinds) {
					t.Errorf("incidents %v, want %v", kinds, tc.wantKinds)
				}
			})
		})
	}
}

func TestReconnectGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakedeepgram.NewInMemory()
		var log incidentlog.Log
		ctx := log.Context(t.Context())
		st, err := engineFor(t, srv, true, nil).NewStream(ctx)
		if err != nil {
			t.Fatalf("NewStream: %v", err)
		}
		defer st.Close()
		c := collect(st)
		srv.Close() // the service goes away for good
		start := time.Now()
		frame := silence(20 * time.Millisecond)
		for err = st.Write(frame, false); err == nil; err = st.Write(frame, false) {
			if time.Since(start) > time.Minute {
				t.Fatal("Write still succeeds a minute after the service went away")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.Contains(err.Error(), "after 5 attempts") {
			t.Errorf("Write error %q does not say the reconnect attempts failed", err)
		}
		// Backoff 0.25 + 0.5 + 1 + 2 s between five attempts.
		if took := time.Since(start); took < 3750*time.Millisecond || took > 4*time.Second {
			t.Errorf("gave up after %v, want about 3.75s", took)
		}
		synctest.Wait()
		select {
		case <-c.done:
		default:
			t.Error("Events not closed after giving up")
		}
		incidents := log.Incidents()
		if len(incidents) != 1 || incidents[0].Kind != incident.Disconnected || incidents[0].Recovered ||
			!strings.Contains(incidents[0].Detail, "reconnecting failed after 5 attempt(s)") {
			t.Errorf("incidents %+v, want one unrecovered disconnection", incidents)
		}
	})
}

// TestUtteranceEndRule feeds Deepgram-shaped messages straight to the
// reader's handler.
func TestUtteranceEndRule(t *testing.T) {
	res := func(text string, isFinal, speechFinal, fromFinalize bool) string {
		b := func(v bool) string {
			if v {
				return "true"
			}
			return "false"
		}
		return `{"type":"Results","channel_index":[0,1],"duration":1.0,"start":0.0,"is_final":` + b(isFinal) +
			`,"speech_final":` + b(speechFinal) + `,"channel":{"alternatives":[{"transcript":"` + text +
			`","confidence":0.9,"words":[]}]},"metadata":{"request_id":"x"},"from_finalize":` + b(fromFinalize) + `}`
	}
	const ue = `{"type":"UtteranceEnd","channel":[0,1],"last_word_end":1.2}`
	const started = `{"type":"SpeechStarted","channel":[0],"timestamp":0.5}`
	for _, tc := range []struct {
		name string
		msgs []string
		want []string
	}{
		{"speech_final then UtteranceEnd", []string{started, res("hi", false, false, false), res("hi there", true, true, false), ue},
			[]string{"SpeechStarted", "Interim", "Final:hi there", "UtteranceEnd"}},
		{"finals then UtteranceEnd message", []string{res("one", true, false, false), res("two", true, false, false), ue},
			[]string{"Final:one", "Final:two", "UtteranceEnd"}},
		{"from_finalize ends the utterance", []string{res("done", true, false, true), ue},
			[]string{"Final:done", "UtteranceEnd"}},
		{"no words, no events", []string{res("", false, false, false), res("", true, true, true), ue},
			nil},
		{"interim only is not ended", []string{res("maybe", false, false, false), ue},
			[]string{"Interim"}},
		{"two utterances", []string{res("a", true, true, false), ue, res("b", true, false, false), ue, ue},
			[]string{"Final:a", "UtteranceEnd", "Final:b", "UtteranceEnd"}},
		{"unknown and malformed messages are ignored", []string{`{"type":"Metadata","request_id":"x"}`, `not json`, `{"type":"Future"}`},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stream{log: quietLogger(), ctx: context.Background(), events: make(chan stt.Event, 32)}
			for _, m := range tc.msgs {
				s.handle([]byte(m))
			}
			close(s.events)
			var evs []stt.Event
			for ev := range s.events {
				evs = append(evs, ev)
			}
			if got := summary(evs); !slices.Equal(got, tc.want) {
				t.Errorf("events = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestContextEndsStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakedeepgram.NewInMemory()
		defer srv.Close()
		ctx, cancel := context.WithCancel(t.Context())
		st, err := engineFor(t, srv, true, nil).NewStream(ctx)
		if err != nil {
			t.Fatalf("NewStream: %v", err)
		}
		c := collect(st)
		feed(t, st, silence(100*time.Millisecond))
		cancel()
		synctest.Wait()
		select {
		case <-c.done:
		default:
			t.Fatal("Events not closed after ctx was cancelled")
		}
		if err := st.Write(silence(20*time.Millisecond), false); !errors.Is(err, context.Canceled) {
			t.Errorf("Write after cancel: %v, want context.Canceled", err)
		}
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := st.Write(silence(20*time.Millisecond), false); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Write after Close: %v, want a closed-stream error", err)
		}
	})
}

// BenchmarkWrite measures the audio goroutine's cost per 20 ms frame.
func BenchmarkWrite(b *testing.B) {
	srv := fakedeepgram.New()
	defer srv.Close()
	e, err := New(Options{APIKey: fakedeepgram.Key, URL: srv.URL, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	st, err := e.NewStream(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	frame := voiced(20 * time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		if err := st.Write(frame, true); err != nil {
			b.Fatal(err)
		}
	}
}

// An interview in Spanish opens Deepgram's live stream with language=es;
// the engine it came from still listens in English.
func TestInLanguageSendsTheLanguage(t *testing.T) {
	srv := fakedeepgram.New()
	defer srv.Close()
	srv.ScriptTranscripts("hola")
	e := engineFor(t, srv, false, nil)
	es, err := stt.InLanguage(e, "es")
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []stt.Engine{es, e} {
		st, err := eng.NewStream(t.Context())
		if err != nil {
			t.Fatalf("NewStream: %v", err)
		}
		if err := st.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	qs := srv.Queries()
	if len(qs) != 2 || qs[0].Get("language") != "es" || qs[1].Get("language") != "en" || qs[0].Get("model") != "nova-3" {
		t.Errorf("queries = %v, want language=es then language=en, the rest unchanged", qs)
	}
}
