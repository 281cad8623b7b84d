package incident

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestReport(t *testing.T) {
	Report(t.Context(), Incident{Provider: LLM, Kind: Cut}) // no observer: nothing happens

	var mu sync.Mutex
	var got []Incident
	ctx := WithObserver(t.Context(), func(i Incident) {
		mu.Lock()
		got = append(got, i)
		mu.Unlock()
	})
	ctx, cancel := context.WithCancel(ctx) // derived contexts keep the observer
	defer cancel()
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	Report(ctx, Incident{Provider: LLM, Kind: Cut})
	Report(ctx, Incident{At: fixed, Provider: STT, Kind: Disconnected, Recovered: true})
	if len(got) != 2 || got[0].At.IsZero() || !got[1].At.Equal(fixed) || !got[1].Recovered {
		t.Errorf("observed %+v", got)
	}
}

// TestObserversNest: an interview's observer and the worker's around it
// both receive each incident, the inner one first.
func TestObserversNest(t *testing.T) {
	var order []string
	ctx := WithObserver(t.Context(), func(i Incident) { order = append(order, "worker:"+string(i.Kind)) })
	ctx = WithObserver(ctx, func(i Incident) { order = append(order, "interview:"+string(i.Kind)) })
	Report(ctx, Incident{Provider: TTS, Kind: Fallback})
	if len(order) != 2 || order[0] != "interview:fallback" || order[1] != "worker:fallback" {
		t.Errorf("observers called %v, want the interview's then the worker's", order)
	}
}
