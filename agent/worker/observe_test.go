package worker

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/testrig/promscrape"
)

// failingSaves is a store whose saves fail while fail is set.
type failingSaves struct {
	interviews.Store
	fail bool
}

func (f *failingSaves) Save(context.Context, *interviews.Record) error {
	if f.fail {
		return errors.New("disk full")
	}
	return nil
}

// TestObservedStoreCountsSavesAndNewTurns: every save is counted, failures
// too; each turn once, with its latencies, however often the record is
// saved; a resumed interview's earlier turns are not counted again.
func TestObservedStoreCountsSavesAndNewTurns(t *testing.T) {
	reg := metrics.NewRegistry()
	m := metrics.NewWorker(reg)
	srv := httptest.NewServer(metrics.Handler(reg))
	defer srv.Close()

	rec := &interviews.Record{ID: "iv-1"}
	rec.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Text: "before the crash", Metrics: &interviews.TurnMetrics{EndToEndMs: 900}})
	base := &failingSaves{}
	store := observeStore(base, m, rec)

	rec.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: "hello"})
	rec.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Text: "welcome", Metrics: &interviews.TurnMetrics{
		EndOfUtteranceMs: 500, STTFinalMs: 120, LLMFirstTokenMs: 210, TTSFirstByteMs: 90, EndToEndMs: 480}})
	if err := store.Save(t.Context(), rec.Clone()); err != nil {
		t.Fatal(err)
	}
	base.fail = true
	if err := store.Save(t.Context(), rec.Clone()); err == nil {
		t.Fatal("a failing save returned no error")
	}

	s := promscrape.Get(t, srv.URL)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"viva_record_saves_total", nil, 2},
		{"viva_record_save_failures_total", nil, 1},
		{"viva_turns_total", []string{`role="agent"`}, 1},
		{"viva_turns_total", []string{`role="candidate"`}, 1},
		{"viva_turn_latency_seconds_count", []string{`phase="end_to_end"`}, 1},
		{"viva_turn_latency_seconds_sum", []string{`phase="end_to_end"`}, 0.48},
		{"viva_turn_latency_seconds_sum", []string{`phase="llm_first_token"`}, 0.21},
		{"viva_turn_latency_seconds_sum", []string{`phase="stt_final"`}, 0.12},
	} {
		if got := s.Sum(c.name, c.labels...); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("%s%v = %g, want %g", c.name, c.labels, got, c.want)
		}
	}
	if observeStore(base, nil, rec) != interviews.Store(base) {
		t.Error("without metrics the store is not left as it is")
	}
}

// TestIncidentsCounted: a provider fault reported on a job's calls is
// counted by provider and kind, beside the interview's own observer.
func TestIncidentsCounted(t *testing.T) {
	reg := metrics.NewRegistry()
	m := metrics.NewWorker(reg)
	srv := httptest.NewServer(metrics.Handler(reg))
	defer srv.Close()
	recorded := 0
	ctx := incident.WithObserver(observeIncidents(context.Background(), m), func(incident.Incident) { recorded++ })
	incident.Report(ctx, incident.Incident{Provider: incident.TTS, Kind: incident.Fallback, Recovered: true})
	if got := promscrape.Get(t, srv.URL).Sum("viva_provider_errors_total", `provider="tts"`, `kind="fallback"`); got != 1 || recorded != 1 {
		t.Errorf("counted %g, recorded %d; want 1 and 1", got, recorded)
	}
}
