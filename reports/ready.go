package reports

import (
	"context"
	"sync"

	"github.com/viva-interviews/viva/interviews"
)

// ReadyHook is the notifier a Runner reports to when something other than
// the event's delivery must follow a ready report (viva web emails the
// candidate their feedback link). It passes every event on to Next and,
// once Start has set what to run, runs it for each report that became
// ready, in the background, with a copy of the record.
type ReadyHook struct {
	// Next receives every event (the webhooks).
	Next interviews.Notifier

	ctx     context.Context
	wg      *sync.WaitGroup
	onReady func(ctx context.Context, rec *interviews.Record)
}

// Start makes h run onReady for each ready report from now on, on wg and
// with ctx (whose end asks a run to stop). Call it before the runner runs.
func (h *ReadyHook) Start(ctx context.Context, wg *sync.WaitGroup, onReady func(ctx context.Context, rec *interviews.Record)) {
	h.ctx, h.wg, h.onReady = ctx, wg, onReady
}

// Notify implements interviews.Notifier.
func (h *ReadyHook) Notify(event string, rec *interviews.Record) {
	h.Next.Notify(event, rec)
	if event != interviews.EventReportReady || h.onReady == nil {
		return
	}
	rec = rec.Clone()
	h.wg.Go(func() { h.onReady(h.ctx, rec) })
}
