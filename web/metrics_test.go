package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/testrig/promscrape"
)

// TestMetrics: /metrics on the web app's listener counts requests by route
// pattern (never by path) and status code, with their durations, and the
// interviews created.
func TestMetrics(t *testing.T) {
	reg := metrics.NewRegistry()
	ts := newTestServer(t, func(o *Options) {
		o.Metrics = metrics.NewWeb(reg)
		o.MetricsHandler = metrics.Handler(reg)
	})
	rec := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var created struct{ ID string }
	_ = json.Unmarshal(rec.Body.Bytes(), &created)
	ts.get("/api/interviews/"+created.ID, "Authorization", "Bearer "+ts.tokens[testReviewer])
	ts.get("/api/interviews/"+created.ID, "Authorization", "Bearer "+ts.tokens[testReviewer])
	ts.get("/healthz")
	ts.get("/no/such/page/" + created.ID)

	resp := ts.get(MetricsPath)
	if resp.Code != http.StatusOK || !strings.HasPrefix(resp.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %q", resp.Code, resp.Header().Get("Content-Type"))
	}
	s, err := promscrape.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{`route="POST /api/interviews"`, `code="201"`}, 1},
		{[]string{`route="GET /api/interviews/{id}"`, `code="200"`}, 2},
		{[]string{`route="GET /healthz"`, `code="200"`}, 1},
		{[]string{`route="unmatched"`, `code="404"`}, 1},
	} {
		if got := s.Sum("viva_http_requests_total", c.labels...); got != c.want {
			t.Errorf("viva_http_requests_total%v = %g, want %g", c.labels, got, c.want)
		}
	}
	if got := s.Sum("viva_http_request_duration_seconds_count", `route="GET /api/interviews/{id}"`); got != 2 {
		t.Errorf("duration count of GET /api/interviews/{id} = %g, want 2", got)
	}
	if got := s.Sum("viva_interviews_created_total"); got != 1 {
		t.Errorf("viva_interviews_created_total = %g, want 1", got)
	}
	for series := range s {
		if strings.Contains(series, created.ID) {
			t.Errorf("series %s holds an interview id", series)
		}
	}
}

// TestNoMetricsUnlessAsked: without a metrics handler there is no
// /metrics route.
func TestNoMetricsUnlessAsked(t *testing.T) {
	ts := newTestServer(t)
	if rec := ts.get(MetricsPath); rec.Code != http.StatusNotFound {
		t.Errorf("GET /metrics without metrics: %d, want 404", rec.Code)
	}
	// Go's profiler is never on the public listener.
	if rec := ts.get("/debug/pprof/"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/ on the web app: %d, want 404", rec.Code)
	}
}
