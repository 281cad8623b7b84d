package metrics_test

import (
	"errors"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/testrig/promscrape"
)

func TestWorkerAndWebMetricsScrape(t *testing.T) {
	reg := metrics.NewRegistry()
	w := metrics.NewWorker(reg)
	web := metrics.NewWeb(reg)
	srv := httptest.NewServer(metrics.Handler(reg))
	defer srv.Close()

	w.SessionStarted()
	w.SessionStarted()
	w.SessionEnded()
	w.Turn("agent")
	w.Turn("candidate")
	w.Turn("agent")
	w.Latency(metrics.PhaseEndToEnd, 480*time.Millisecond)
	w.Latency(metrics.PhaseLLMFirstToken, 0) // not measured: left out
	w.ProviderError("llm", "timeout")
	w.Dispatch(true, "")
	w.Dispatch(false, "load_threshold")
	w.RecordSaved(nil)
	w.RecordSaved(errors.New("disk full"))
	w.WatchLoad(func() float64 { return 0.4 }, func() float64 { return 0.25 })
	w.WatchRegistered(func() bool { return true })
	web.Request("GET /review/{id}", 200, 30*time.Millisecond)
	web.Request("", 404, time.Millisecond)
	web.InterviewCreated()
	web.Report(nil)
	web.Report(errors.New("model down"))
	web.Webhook("report.ready", true)
	web.Webhook("report.ready", false)

	s := promscrape.Get(t, srv.URL)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"viva_worker_active_sessions", nil, 1},
		{"viva_turns_total", []string{`role="agent"`}, 2},
		{"viva_turns_total", nil, 3},
		{"viva_turn_latency_seconds_count", []string{`phase="end_to_end"`}, 1},
		{"viva_turn_latency_seconds_sum", []string{`phase="end_to_end"`}, 0.48},
		{"viva_turn_latency_seconds_count", []string{`phase="llm_first_token"`}, 0},
		{"viva_provider_errors_total", []string{`provider="llm"`, `kind="timeout"`}, 1},
		{"viva_dispatches_accepted_total", nil, 1},
		{"viva_dispatches_declined_total", []string{`reason="load_threshold"`}, 1},
		{"viva_record_saves_total", nil, 2},
		{"viva_record_save_failures_total", nil, 1},
		{"viva_worker_load", nil, 0.4},
		{"viva_worker_cpu_share", nil, 0.25},
		{"viva_worker_registered", nil, 1},
		{"viva_http_requests_total", []string{`route="GET /review/{id}"`, `code="200"`}, 1},
		{"viva_http_requests_total", []string{`route="unmatched"`, `code="404"`}, 1},
		{"viva_http_request_duration_seconds_count", nil, 2},
		{"viva_interviews_created_total", nil, 1},
		{"viva_reports_generated_total", nil, 1},
		{"viva_reports_failed_total", nil, 1},
		{"viva_webhooks_delivered_total", []string{`event="report.ready"`}, 1},
		{"viva_webhooks_failed_total", []string{`event="report.ready"`}, 1},
	} {
		if got := s.Sum(c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %g, want %g", c.name, c.labels, got, c.want)
		}
	}
	// The process's own figures come along (a young process may have used
	// less CPU than the kernel counts, so only its presence is asked).
	_, cpu := s["process_cpu_seconds_total"]
	if !cpu || s.Sum("go_goroutines") <= 0 {
		t.Errorf("no process or runtime metrics in the scrape")
	}
	for series := range s {
		if !strings.HasPrefix(series, "viva_") && !strings.HasPrefix(series, "process_") &&
			!strings.HasPrefix(series, "go_") && !strings.HasPrefix(series, "promhttp_") {
			t.Errorf("series %s is not named viva_…", series)
		}
	}
}

// TestRegistriesAreIndependent: two registries in one process count apart
// (no global default registry).
func TestRegistriesAreIndependent(t *testing.T) {
	a, b := metrics.NewRegistry(), metrics.NewRegistry()
	wa, _ := metrics.NewWorker(a), metrics.NewWorker(b)
	wa.Turn("agent")
	srv := httptest.NewServer(metrics.Handler(b))
	defer srv.Close()
	if got := promscrape.Get(t, srv.URL).Sum("viva_turns_total"); got != 0 {
		t.Errorf("the other registry counted %g turns", got)
	}
}

// TestNilRecordsNothing: code without metrics calls the same methods.
func TestNilRecordsNothing(t *testing.T) {
	var w *metrics.Worker
	var web *metrics.Web
	w.SessionStarted()
	w.SessionEnded()
	w.Turn("agent")
	w.Latency(metrics.PhaseEndToEnd, time.Second)
	w.ProviderError("stt", "cut")
	w.Dispatch(false, "draining")
	w.RecordSaved(nil)
	w.WatchLoad(nil, nil)
	w.WatchRegistered(nil)
	web.Request("", 200, 0)
	web.InterviewCreated()
	web.Report(nil)
	web.Webhook("x", true)
}

// TestDashboardNamesMetrics: every viva_ metric the Grafana dashboard in
// deploy/ queries is one this package defines, so a renamed metric cannot
// leave a panel empty.
func TestDashboardNamesMetrics(t *testing.T) {
	data, err := os.ReadFile("../../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	reg := metrics.NewRegistry()
	w := metrics.NewWorker(reg)
	web := metrics.NewWeb(reg)
	w.WatchLoad(func() float64 { return 0 }, func() float64 { return 0 })
	w.WatchRegistered(func() bool { return false })
	// A vector is gathered once it has a sample.
	w.Turn("agent")
	w.Latency(metrics.PhaseEndToEnd, time.Second)
	w.ProviderError("llm", "cut")
	w.Dispatch(false, "draining")
	web.Request("GET /healthz", 200, time.Millisecond)
	web.Webhook("report.ready", true)
	web.Webhook("report.ready", false)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, f := range families {
		defined[f.GetName()] = true
	}
	used := regexp.MustCompile(`viva_[a-z_]+`).FindAllString(string(data), -1)
	if len(used) == 0 {
		t.Fatal("the dashboard queries no viva_ metric")
	}
	for _, name := range used {
		base := name
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			base = strings.TrimSuffix(base, suffix)
		}
		if !defined[name] && !defined[base] {
			t.Errorf("the dashboard queries %s, which is not defined", name)
		}
	}
}
