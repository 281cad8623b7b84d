package worker

import (
	"context"
	"sync"
	"time"

	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
)

// observeIncidents returns ctx with an observer that counts every provider
// fault of the job's calls in m (the interview's own observer, which puts
// them in the record, sits inside it).
func observeIncidents(ctx context.Context, m *metrics.Worker) context.Context {
	if m == nil {
		return ctx
	}
	return incident.WithObserver(ctx, func(inc incident.Incident) { m.ProviderError(inc.Provider, string(inc.Kind)) })
}

// observedStore is the interview store as one session's recorder sees it:
// every save is counted, and the turns a saved record carries for the
// first time are counted with the latencies of their phases. The recorder
// saves off the turn's path, so measuring here adds nothing to a turn.
type observedStore struct {
	interviews.Store
	m *metrics.Worker

	mu      sync.Mutex
	lastSeq int // the last turn counted
}

// observeStore wraps store for the session of rec; the turns rec already
// holds (a resumed interview's) are not counted again.
func observeStore(store interviews.Store, m *metrics.Worker, rec *interviews.Record) interviews.Store {
	if m == nil {
		return store
	}
	o := &observedStore{Store: store, m: m}
	if n := len(rec.Turns); n > 0 {
		o.lastSeq = rec.Turns[n-1].Seq
	}
	return o
}

// Save saves rec and counts the save and its new turns.
func (o *observedStore) Save(ctx context.Context, rec *interviews.Record) error {
	err := o.Store.Save(ctx, rec)
	o.m.RecordSaved(err)
	o.observeTurns(rec.Turns)
	return err
}

// observeTurns counts the turns after the last one counted.
func (o *observedStore) observeTurns(turns []interviews.Turn) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range turns {
		if t.Seq <= o.lastSeq {
			continue
		}
		o.lastSeq = t.Seq
		o.m.Turn(string(t.Role))
		if tm := t.Metrics; tm != nil {
			o.m.Latency(metrics.PhaseEndOfUtterance, millis(tm.EndOfUtteranceMs))
			o.m.Latency(metrics.PhaseSTTFinal, millis(tm.STTFinalMs))
			o.m.Latency(metrics.PhaseLLMFirstToken, millis(tm.LLMFirstTokenMs))
			o.m.Latency(metrics.PhaseTTSFirstByte, millis(tm.TTSFirstByteMs))
			o.m.Latency(metrics.PhaseEndToEnd, millis(tm.EndToEndMs))
		}
	}
}

// millis is a record's milliseconds as a duration.
func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
