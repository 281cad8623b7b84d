package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/internal/sidehttp"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/testrig/promscrape"
)

// idleWorker is a worker that is never run: it stays disconnected.
func idleWorker(t *testing.T) *lkagent.Worker {
	t.Helper()
	w, err := lkagent.New(lkagent.Options{URL: "ws://127.0.0.1:1", APIKey: "k", APISecret: "s", MaxSessions: 1, Logger: slog.New(slog.DiscardHandler)},
		lkagent.HandlerFunc(func(context.Context, lkagent.Job) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestHealthListener: the health listener answers 503 for a worker that is
// not registered, serves the metrics, and a port in use is an error that
// names the setting to change.
func TestHealthListener(t *testing.T) {
	cfg := config.Default()
	cfg.HealthAddr = "127.0.0.1:0"
	reg := metrics.NewRegistry()
	m := metrics.NewWorker(reg)
	m.Turn("agent")
	side := &sidehttp.Servers{Logger: slog.New(slog.DiscardHandler)}
	defer side.Stop()
	addr, err := startHealth(side, cfg, idleWorker(t), reg)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, "http://"+addr+"/"); code != http.StatusServiceUnavailable {
		t.Errorf("GET / of a disconnected worker: %d, want 503", code)
	}
	if got := promscrape.Get(t, "http://"+addr+"/metrics").Sum("viva_turns_total"); got != 1 {
		t.Errorf("viva_turns_total on the health listener = %g, want 1", got)
	}

	cfg.HealthAddr = addr // in use now
	_, err = startHealth(side, cfg, idleWorker(t), reg)
	if err == nil || !strings.Contains(err.Error(), "--health-addr") || !strings.Contains(err.Error(), "VIVA_HEALTH_ADDR") {
		t.Errorf("health address in use: %v, want an error naming --health-addr and VIVA_HEALTH_ADDR", err)
	}

	cfg.HealthAddr = config.Off
	if addr, err := startHealth(side, cfg, idleWorker(t), reg); addr != "" || err != nil {
		t.Errorf("health off: listening on %q, %v", addr, err)
	}
}

// TestPprofOnlyWhenAsked: no profiler by default; with --pprof it is served
// on its own listener.
func TestPprofOnlyWhenAsked(t *testing.T) {
	side := &sidehttp.Servers{Logger: slog.New(slog.DiscardHandler)}
	defer side.Stop()
	if addr, err := startPprof(side, config.Default()); addr != "" || err != nil {
		t.Fatalf("default settings serve a profiler on %q (%v)", addr, err)
	}
	cfg := config.Default()
	cfg.PprofAddr = "127.0.0.1:0"
	addr, err := startPprof(side, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, "http://"+addr+"/debug/pprof/"); code != http.StatusOK {
		t.Errorf("GET /debug/pprof/ on --pprof: %d, want 200", code)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg.PprofAddr = ln.Addr().String()
	if _, err := startPprof(side, cfg); err == nil || !strings.Contains(err.Error(), "--pprof") {
		t.Errorf("pprof address in use: %v, want an error naming --pprof", err)
	}
}
