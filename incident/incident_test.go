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
