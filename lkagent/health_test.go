package lkagent

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/livekit/protocol/livekit"
)

// health returns the health handler's status code and body.
func health(w *Worker) (int, string) {
	rec := httptest.NewRecorder()
	w.HealthHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

// TestHealthFollowsRegistration: the health endpoint answers 503 until the
// worker is registered, 200 OK while it is, and 503 again once it drains.
func TestHealthFollowsRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newFakeHandler()
		w, fs := newFakeWorker(t, Options{AgentName: testAgentName, MaxSessions: 2}, h)
		if code, body := health(w); code != http.StatusServiceUnavailable || body != "disconnected" || w.Status() != StatusDisconnected {
			t.Errorf("before Run: %d %q (%s), want 503 disconnected", code, body, w.Status())
		}
		stop := startRun(w)
		c, _ := fs.accept(t)
		if code, body := health(w); code != http.StatusOK || body != "OK" || w.Status() != StatusRegistered {
			t.Errorf("registered: %d %q (%s), want 200 OK", code, body, w.Status())
		}
		// A lost connection is unhealthy until the worker registers again.
		c.Close()
		synctest.Wait()
		if code, _ := health(w); code != http.StatusServiceUnavailable || w.Status() != StatusDisconnected {
			t.Errorf("connection lost: %d (%s), want 503 disconnected", code, w.Status())
		}
		fs.accept(t)
		if code, _ := health(w); code != http.StatusOK {
			t.Errorf("registered again: %d, want 200", code)
		}
		w.beginDrain()
		if code, body := health(w); code != http.StatusServiceUnavailable || body != "draining" || w.Status() != StatusDraining {
			t.Errorf("draining: %d %q (%s), want 503 draining", code, body, w.Status())
		}
		stopOK(t, stop)
	})
}

// TestLoadThreshold: above its load threshold the worker reports itself
// full and declines offers, telling OnAvailability why; below it, it
// accepts again.
func TestLoadThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var load atomic.Value
		load.Store(float32(0.5))
		type answer struct {
			accepted bool
			reason   string
		}
		var mu sync.Mutex
		var answers []answer
		r := runConnected(t, Options{AgentName: testAgentName, MaxSessions: 10, LoadThreshold: 0.75, StatusInterval: time.Second,
			Load: func() float32 { return load.Load().(float32) },
			OnAvailability: func(accepted bool, reason string) {
				mu.Lock()
				answers = append(answers, answer{accepted, reason})
				mu.Unlock()
			}})

		assign(t, r.c, roomJob("AJ_1", "r1"), nil)
		r.h.next(t)

		load.Store(float32(0.8))
		full := r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.Load >= 0.8 })
		if full.GetStatus() != livekit.WorkerStatus_WS_FULL {
			t.Errorf("load 0.8 over threshold 0.75: %v, want FULL", full)
		}
		askAvailability(r.c, roomJob("AJ_2", "r2"))
		if resp := r.c.availability(t); resp.Available {
			t.Errorf("accepted a job at load 0.8 over threshold 0.75: %v", resp)
		}

		load.Store(float32(0.3))
		free := r.c.status(t, func(s *livekit.UpdateWorkerStatus) bool { return s.Load < 0.5 })
		if free.GetStatus() != livekit.WorkerStatus_WS_AVAILABLE {
			t.Errorf("load 0.3: %v, want AVAILABLE", free)
		}
		assign(t, r.c, roomJob("AJ_3", "r3"), nil)
		r.h.next(t)

		mu.Lock()
		got := append([]answer(nil), answers...)
		mu.Unlock()
		want := []answer{{true, ""}, {false, DeclineLoad}, {true, ""}}
		if len(got) != len(want) {
			t.Fatalf("OnAvailability calls %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("OnAvailability call %d = %v, want %v", i, got[i], want[i])
			}
		}
		stopOK(t, r.stop)
	})
}

func TestLoadThresholdValidated(t *testing.T) {
	for _, th := range []float32{-0.1, 1.5} {
		o := Options{URL: "ws://lk.test", APIKey: "k", APISecret: "s", MaxSessions: 1, LoadThreshold: th}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "load threshold") {
			t.Errorf("threshold %g: Validate = %v, want an error naming the load threshold", th, err)
		}
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{StatusDisconnected: "disconnected", StatusRegistered: "registered", StatusDraining: "draining"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}
