package reports

import (
	"context"
	"sync"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

// notes records the events a notifier is given.
type notes struct {
	mu     sync.Mutex
	events []string
}

func (n *notes) Notify(event string, _ *interviews.Record) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.events = append(n.events, event)
}

// TestReadyHook: every event passes on; once started, a ready report (and
// only that) runs the hook, with a copy of the record.
func TestReadyHook(t *testing.T) {
	next := &notes{}
	h := &ReadyHook{Next: next}
	rec := &interviews.Record{ID: "iv-1"}
	h.Notify(interviews.EventReportReady, rec) // not started: passed on only
	var wg sync.WaitGroup
	got := make(chan *interviews.Record, 2)
	h.Start(context.Background(), &wg, func(_ context.Context, r *interviews.Record) { got <- r })
	h.Notify(interviews.EventInterviewCompleted, rec)
	h.Notify(interviews.EventReportReady, rec)
	wg.Wait()
	close(got)
	var ran []*interviews.Record
	for r := range got {
		ran = append(ran, r)
	}
	if len(ran) != 1 || ran[0].ID != "iv-1" || ran[0] == rec {
		t.Errorf("the hook ran for %d events (want 1, on a copy of the record)", len(ran))
	}
	if len(next.events) != 3 {
		t.Errorf("events passed on: %v, want all 3", next.events)
	}
}
