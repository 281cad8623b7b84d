package openai

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/internal/wav"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// eventTimeout fails a test that waits for an event that never comes; it is
// never slept on.
const eventTimeout = 10 * time.Second

func tone(d time.Duration) []int16 {
	pcm := make([]int16, int(d*stt.SampleRate/time.Second))
	for i := range pcm {
		pcm[i] = int16(4000 * math.Sin(2*math.Pi*220*float64(i)/stt.SampleRate))
	}
	return pcm
}

// speak writes pcm in 20 ms frames with the given VAD verdict.
func speak(t *testing.T, st stt.Stream, pcm []int16, inUtterance bool) {
	t.Helper()
	for len(pcm) > 0 {
		n := min(320, len(pcm))
		if err := st.Write(pcm[:n], inUtterance); err != nil {
			t.Fatalf("Write: %v", err)
		}
		pcm = pcm[n:]
	}
}

// utterance speaks pcm as one utterance and ends it.
func utterance(t *testing.T, st stt.Stream, pcm []int16) {
	t.Helper()
	speak(t, st, pcm, true)
	if err := st.EndOfSpeech(); err != nil {
		t.Fatalf("EndOfSpeech: %v", err)
	}
}

// next returns the next event, failing after eventTimeout.
func next(t *testing.T, st stt.Stream) (stt.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-st.Events():
		return ev, ok
	case <-time.After(eventTimeout):
		t.Fatal("no event")
		return stt.Event{}, false
	}
}

func expect(t *testing.T, st stt.Stream, want ...string) {
	t.Helper()
	for _, w := range want {
		ev, ok := next(t, st)
		if !ok {
			t.Fatalf("events closed, want %q", w)
		}
		got := "UtteranceEnd"
		if ev.Type == stt.Final {
			got = "Final:" + ev.Text
		} else if ev.Type != stt.UtteranceEnd {
			got = fmt.Sprintf("type %d", ev.Type)
		}
		if got != w {
			t.Fatalf("event %q, want %q", got, w)
		}
	}
}

func newEngine(t *testing.T, baseURL, key string) *Engine {
	t.Helper()
	e, err := New(Options{APIKey: key, BaseURL: baseURL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func TestTranscribesUtterances(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptTranscripts("I am Alex.", "I build backends.")
	st, err := newEngine(t, srv.URL, fakeopenai.Key).NewStream(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	speak(t, st, tone(300*time.Millisecond), false) // outside any utterance: not kept
	utterance(t, st, tone(1200*time.Millisecond))
	utterance(t, st, tone(100*time.Millisecond)) // a blip: dropped
	speak(t, st, tone(200*time.Millisecond), false)
	utterance(t, st, tone(800*time.Millisecond))
	expect(t, st, "Final:I am Alex.", "UtteranceEnd", "Final:I build backends.", "UtteranceEnd")

	reqs := srv.TranscriptionRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the blip is not sent)", len(reqs))
	}
	for i, want := range []time.Duration{1200 * time.Millisecond, 800 * time.Millisecond} {
		r := reqs[i]
		if r.Duration != want || r.SampleRateHz != stt.SampleRate {
			t.Errorf("request %d carried %v at %d Hz, want %v at %d Hz", i, r.Duration, r.SampleRateHz, want, stt.SampleRate)
		}
		if r.Model != "gpt-4o-mini-transcribe" || r.Language != "en" || r.Filename != "utterance.wav" {
			t.Errorf("request %d: %+v", i, r)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-st.Events(); ok {
		t.Error("an event after Close, want Events closed")
	}
	if err := st.Write(tone(20*time.Millisecond), true); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// TestWriteDoesNotWaitForTheNetwork holds the first request on the server
// while the audio goroutine keeps writing and ending utterances; the
// results still come out in utterance order with the exact audio sent.
func TestWriteDoesNotWaitForTheNetwork(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got [][]int16
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, _, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		pcm, _, err := wav.Decode(f)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		got = append(got, pcm)
		n := len(got)
		mu.Unlock()
		if n == 1 {
			<-release
		}
		fmt.Fprintf(w, `{"text":"utterance %d"}`, n)
	}))
	defer srv.Close()
	st, err := newEngine(t, srv.URL+"/v1", "sk-any").NewStream(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b := tone(400*time.Millisecond), tone(600*time.Millisecond)
	a[7], b[9] = 1234, -4321 // make them tell apart
	utterance(t, st, a)
	utterance(t, st, b)
	speak(t, st, tone(5*time.Second), false) // would hang here if Write waited on the request
	close(release)
	expect(t, st, "Final:utterance 1", "UtteranceEnd", "Final:utterance 2", "UtteranceEnd")
	mu.Lock()
	defer mu.Unlock()
	for i, want := range [][]int16{a, b} {
		if len(got[i]) != len(want) || got[i][7] != want[7] || got[i][9] != want[9] {
			t.Errorf("upload %d does not hold utterance %d's samples", i, i)
		}
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		statuses  []int // answers to the first utterance's requests; then 200
		wantFinal bool  // the first utterance is transcribed
	}{
		{"5xx then success is retried", []int{502}, true},
		{"5xx twice gives up", []int{500, 503}, false},
		{"4xx is not retried", []int{400}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				mu.Lock()
				status := 200
				if calls < len(tc.statuses) {
					status = tc.statuses[calls]
				}
				calls++
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				if status != 200 {
					w.WriteHeader(status)
					fmt.Fprint(w, `{"error":{"message":"try later","type":"server_error","code":null}}`)
					return
				}
				fmt.Fprint(w, `{"text":"hello"}`)
			}))
			defer srv.Close()
			st, err := newEngine(t, srv.URL+"/v1", "sk-any").NewStream(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			utterance(t, st, tone(500*time.Millisecond))
			// A second utterance, answered at once, shows the stream
			// survived and marks the end of the first one's requests.
			utterance(t, st, tone(500*time.Millisecond))
			want := []string{"Final:hello", "UtteranceEnd"}
			if tc.wantFinal {
				want = append(want, want...)
			}
			expect(t, st, want...)
			mu.Lock()
			defer mu.Unlock()
			wantCalls := len(tc.statuses) + 1 // the first utterance's failures, the second's success
			if tc.wantFinal {
				wantCalls++ // the successful retry
			}
			if calls != wantCalls {
				t.Errorf("%d requests, want %d", calls, wantCalls)
			}
		})
	}
}

func TestRejectedKey(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptTranscripts("never heard")
	st, err := newEngine(t, srv.URL, "sk-wrong").NewStream(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	utterance(t, st, tone(time.Second))
	if ev, ok := next(t, st); ok {
		t.Fatalf("event %+v, want Events closed after the key was rejected", ev)
	}
	err = st.Write(tone(20*time.Millisecond), true)
	if !errors.Is(err, stt.ErrAuth) {
		t.Fatalf("Write error %v, want one wrapping stt.ErrAuth", err)
	}
	for _, s := range []string{"rejected", "OPENAI_API_KEY"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestNewNeedsKey(t *testing.T) {
	_, err := New(Options{})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("New without a key: %v, want an error naming OPENAI_API_KEY", err)
	}
}

// An interview in Mexican Spanish asks OpenAI to transcribe language es.
func TestInLanguageSendsTheLanguage(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptTranscripts("Soy Ana.")
	es, err := stt.InLanguage(newEngine(t, srv.URL, fakeopenai.Key), "es-MX")
	if err != nil {
		t.Fatal(err)
	}
	st, err := es.NewStream(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	utterance(t, st, tone(600*time.Millisecond))
	expect(t, st, "Final:Soy Ana.", "UtteranceEnd")
	if reqs := srv.TranscriptionRequests(); len(reqs) != 1 || reqs[0].Language != "es" {
		t.Errorf("requests = %+v, want one with language es", reqs)
	}
}
