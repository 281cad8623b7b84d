package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/metrics"
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

// sideServers are the small HTTP servers beside a command's main work:
// the worker's health check and metrics, and the opt-in profiler. Each
// has its own listener, never the web app's.
type sideServers struct {
	log     *slog.Logger
	wg      sync.WaitGroup
	servers []*http.Server
}

// listen opens addr for what (a description for messages) and says which
// setting to change when it cannot.
func listen(addr, what, flagName, envName string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s for %s: %w (choose another address with --%s or %s, or turn it off with --%s %s)",
			addr, what, err, flagName, envName, flagName, config.Off)
	}
	return ln, nil
}

// serve serves h on ln until stop is called.
func (s *sideServers) serve(ln net.Listener, h http.Handler, what string) {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	s.servers = append(s.servers, hs)
	s.wg.Go(func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error(what+" stopped", "err", err)
		}
	})
	s.log.Info(what+" listening", "url", "http://"+ln.Addr().String())
}

// stop closes every server and waits for them.
func (s *sideServers) stop() {
	for _, hs := range s.servers {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = hs.Shutdown(ctx)
		cancel()
	}
	s.wg.Wait()
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

// pprofHandler serves Go's profiler under /debug/pprof/.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// startPprof serves the profiler when cfg asks for it (--pprof); it is
// never on by default. It returns the address listened on, "" when off.
func (s *sideServers) startPprof(cfg *config.Config) (string, error) {
	addr := config.ListenAddr(cfg.PprofAddr)
	if addr == "" {
		return "", nil
	}
	ln, err := listen(addr, "the profiler", flagPprof, envPprof)
	if err != nil {
		return "", err
	}
	s.log.Warn("Go's profiler is served: keep its address private", "addr", ln.Addr().String())
	s.serve(ln, pprofHandler(), "profiler")
	return ln.Addr().String(), nil
}

// startHealth serves the worker's health check and metrics when cfg asks
// for it (--health-addr, :8081 by default); it returns the address
// listened on, "" when off.
func (s *sideServers) startHealth(cfg *config.Config, w *lkagent.Worker, reg *prometheus.Registry) (string, error) {
	addr := config.ListenAddr(cfg.HealthAddr)
	if addr == "" {
		return "", nil
	}
	ln, err := listen(addr, "the worker's health check", flagHealthAddr, envHealthAddr)
	if err != nil {
		return "", err
	}
	s.serve(ln, healthHandler(w, reg), "health check and metrics")
	return ln.Addr().String(), nil
}
