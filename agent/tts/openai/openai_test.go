package openai

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// stallLimit fails a test whose server waits for audio the client never
// delivers; it is never slept on.
const stallLimit = 10 * time.Second

func newEngine(t *testing.T, baseURL, key string, mod func(*Options)) *Engine {
	t.Helper()
	opts := Options{APIKey: key, BaseURL: baseURL, Logger: slog.New(slog.DiscardHandler)}
	if mod != nil {
		mod(&opts)
	}
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// sink collects synthesised audio.
type sink struct {
	mu     sync.Mutex
	pcm    []int16
	chunks int
	over   int // chunks longer than 100 ms
	first  chan struct{}
	once   sync.Once
}

func newSink() *sink { return &sink{first: make(chan struct{})} }

func (s *sink) out(pcm []int16) error {
	s.mu.Lock()
	s.pcm = append(s.pcm, pcm...)
	s.chunks++
	if len(pcm) > SampleRate24kHz/10 {
		s.over++
	}
	s.mu.Unlock()
	s.once.Do(func() { close(s.first) })
	return nil
}

func TestSynthesizeAgainstFake(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	e := newEngine(t, srv.URL, fakeopenai.Key, func(o *Options) {
		o.Instructions = "Speak warmly."
		o.Speed = 1.25
	})
	if e.SampleRate() != 24000 || e.Name() != "openai" {
		t.Fatalf("SampleRate %d, Name %q", e.SampleRate(), e.Name())
	}
	s := newSink()
	if err := e.Synthesize(t.Context(), " Welcome to your interview with viva. ", s.out); err != nil {
		t.Fatalf("Synthesize: %v", err)
	}
	reqs := srv.SpeechRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	want := fakeopenai.SpeechRequest{
		Model: "gpt-4o-mini-tts", Input: "Welcome to your interview with viva.", Voice: "alloy",
		ResponseFormat: "pcm", Instructions: "Speak warmly.", Speed: 1.25, Samples: reqs[0].Samples,
	}
	if reqs[0] != want {
		t.Errorf("request %+v, want %+v", reqs[0], want)
	}
	if len(s.pcm) != reqs[0].Samples || len(s.pcm) == 0 {
		t.Errorf("delivered %d samples, server sent %d", len(s.pcm), reqs[0].Samples)
	}
	if s.over > 0 {
		t.Errorf("%d of %d chunks longer than 100 ms", s.over, s.chunks)
	}
	// Empty text makes no request.
	if err := e.Synthesize(t.Context(), "  ", s.out); err != nil || len(srv.SpeechRequests()) != 1 {
		t.Errorf("empty text: err %v, %d requests; want nil and no new request", err, len(srv.SpeechRequests()))
	}
}

// sample is the test signal: distinct, signed values.
func sample(i int) int16 { return int16((i*7919)%65536 - 32768) }

func pcmBytes(n int) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(sample(i)))
	}
	return b
}

// TestStreamsAsTheBodyArrives sends the body in pieces whose boundaries
// split samples. The server holds back everything after the first piece
// until the client has delivered audio from it, so the test fails if the
// client waits for the whole body.
func TestStreamsAsTheBodyArrives(t *testing.T) {
	const total = 12000 // samples, 0.5 s
	for _, tc := range []struct {
		name   string
		pieces []int // byte counts; the rest of the body follows
	}{
		{"odd first piece", []int{3, 1, 4801, 4799, 5}},
		{"odd pieces throughout", []int{5, 7, 9, 11, 13, 15}},
		{"large pieces", []int{9601, 9600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSink()
			stalled := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body := pcmBytes(total)
				w.Header().Set("Content-Type", "audio/pcm")
				f := w.(http.Flusher)
				pieces := append(append([]int(nil), tc.pieces...), len(body))
				for i, n := range pieces {
					n = min(n, len(body))
					_, _ = w.Write(body[:n])
					f.Flush()
					body = body[n:]
					if i == 0 {
						select {
						case <-s.first:
						case <-time.After(stallLimit):
							close(stalled)
							return
						}
					}
				}
			}))
			defer srv.Close()
			err := newEngine(t, srv.URL+"/v1", "sk-any", nil).Synthesize(t.Context(), "Hi.", s.out)
			select {
			case <-stalled:
				t.Fatal("no audio was delivered until the body ended")
			default:
			}
			if err != nil {
				t.Fatalf("Synthesize: %v", err)
			}
			if len(s.pcm) != total {
				t.Fatalf("delivered %d samples, want %d", len(s.pcm), total)
			}
			for i, v := range s.pcm {
				if v != sample(i) {
					t.Fatalf("sample %d = %d, want %d (a split sample was mangled)", i, v, sample(i))
				}
			}
			if s.over > 0 {
				t.Errorf("%d chunks longer than 100 ms", s.over)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	const good = 4800 // samples in a good answer
	type answer int
	const (
		ok          answer = iota
		status500          // a 5xx error answer
		status400          // a 4xx error answer
		dropEarly          // connection closed before any audio
		dropLate           // connection closed after some audio
		unavailable        // 503
	)
	for _, tc := range []struct {
		name      string
		answers   []answer
		wantErr   bool
		wantCalls int
	}{
		{"5xx then success", []answer{status500, ok}, false, 2},
		{"5xx twice", []answer{status500, unavailable, ok}, true, 2},
		{"connection drop before audio", []answer{dropEarly, ok}, false, 2},
		{"4xx is final", []answer{status400, ok}, true, 1},
		{"drop after audio is not retried", []answer{dropLate, ok}, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				mu.Lock()
				a := tc.answers[calls]
				calls++
				mu.Unlock()
				switch a {
				case status500, status400, unavailable:
					code := map[answer]int{status500: 500, status400: 400, unavailable: 503}[a]
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(code)
					fmt.Fprint(w, `{"error":{"message":"nope","type":"server_error","code":null}}`)
				case dropEarly:
					panic(http.ErrAbortHandler)
				case dropLate:
					w.Header().Set("Content-Type", "audio/pcm")
					_, _ = w.Write(pcmBytes(1000))
					w.(http.Flusher).Flush()
					panic(http.ErrAbortHandler)
				default:
					w.Header().Set("Content-Type", "audio/pcm")
					_, _ = w.Write(pcmBytes(good))
				}
			}))
			defer srv.Close()
			s := newSink()
			err := newEngine(t, srv.URL+"/v1", "sk-any", nil).Synthesize(t.Context(), "Hello.", s.out)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if !tc.wantErr && len(s.pcm) != good {
				t.Errorf("delivered %d samples, want %d", len(s.pcm), good)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != tc.wantCalls {
				t.Errorf("%d requests, want %d", calls, tc.wantCalls)
			}
		})
	}
}

func TestRejectedKey(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	err := newEngine(t, srv.URL, "sk-wrong", nil).Synthesize(t.Context(), "Hello.", newSink().out)
	if !errors.Is(err, tts.ErrAuth) {
		t.Fatalf("err = %v, want one wrapping tts.ErrAuth", err)
	}
	for _, s := range []string{"rejected", "OPENAI_API_KEY"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if n := len(srv.SpeechRequests()); n != 0 {
		t.Errorf("the fake served %d speech requests with a wrong key", n)
	}
}

func TestOutErrorAndCancel(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	e := newEngine(t, srv.URL, fakeopenai.Key, nil)

	stop := errors.New("barge-in")
	calls := 0
	err := e.Synthesize(t.Context(), "This sentence is long enough to span several chunks of audio.", func([]int16) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("out error: Synthesize returned %v after %d calls, want the out error after 1", err, calls)
	}
	if n := len(srv.SpeechRequests()); n != 1 {
		t.Errorf("%d requests, want 1 (an out error is not retried)", n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	err = e.Synthesize(ctx, "Cancelled while speaking, as when the candidate interrupts.", func([]int16) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: Synthesize returned %v, want context.Canceled", err)
	}
}

func TestNewChecksOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no key", Options{}, "OPENAI_API_KEY"},
		{"speed", Options{APIKey: "k", Speed: 5}, "speed"},
	} {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}
