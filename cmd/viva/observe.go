package main

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/internal/sidehttp"
	"github.com/viva-interviews/viva/lkagent"
)

// The listener settings, as their flags and environment variables name
// them in error messages.
const (
	flagHealthAddr = "health-addr"
	envHealthAddr  = "VIVA_HEALTH_ADDR"
	flagPprof      = "pprof"
	envPprof       = "VIVA_PPROF_ADDR"
)

// listenHint says how to move or turn off the listener of a setting.
func listenHint(flagName, envName string) string {
	return fmt.Sprintf("choose another address with --%s or %s, or turn it off with --%s %s", flagName, envName, flagName, config.Off)
}

// healthHandler answers GET / with the worker's health (200 OK while
// registered with LiveKit, 503 while draining or disconnected) and GET
// /metrics with the process's metrics.
func healthHandler(w *lkagent.Worker, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", w.HealthHandler())
	mux.Handle("GET /metrics", metrics.Handler(reg))
	return mux
}

// startPprof serves the profiler when cfg asks for it (--pprof); it is
// never on by default. It returns the address listened on, "" when off.
func startPprof(s *sidehttp.Servers, cfg *config.Config) (string, error) {
	addr := config.ListenAddr(cfg.PprofAddr)
	if addr == "" {
		return "", nil
	}
	ln, err := sidehttp.Listen(addr, "the profiler", listenHint(flagPprof, envPprof))
	if err != nil {
		return "", err
	}
	s.Logger.Warn("Go's profiler is served: keep its address private", "addr", ln.Addr().String())
	s.Serve(ln, sidehttp.PprofHandler(), "profiler")
	return ln.Addr().String(), nil
}

// startHealth serves the worker's health check and metrics when cfg asks
// for it (--health-addr, :8081 by default); it returns the address
// listened on, "" when off.
func startHealth(s *sidehttp.Servers, cfg *config.Config, w *lkagent.Worker, reg *prometheus.Registry) (string, error) {
	addr := config.ListenAddr(cfg.HealthAddr)
	if addr == "" {
		return "", nil
	}
	ln, err := sidehttp.Listen(addr, "the worker's health check", listenHint(flagHealthAddr, envHealthAddr))
	if err != nil {
		return "", err
	}
	s.Serve(ln, healthHandler(w, reg), "health check and metrics")
	return ln.Addr().String(), nil
}
