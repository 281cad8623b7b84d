// Package sidehttp serves the small HTTP servers beside a program's main
// work (viva's worker health check and metrics, the opt-in Go profiler),
// each on a listener of its own, never the web app's, and stops them
// together.
package sidehttp

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
)

// Servers are the side servers started so far. The zero value has no
// logger: set Logger.
type Servers struct {
	// Logger receives each server's address and failures.
	Logger *slog.Logger

	wg      sync.WaitGroup
	servers []*http.Server
}

// Listen opens addr for what (a description for messages); when it
// cannot, the error ends with hint, which says how to move or turn off
// the listener.
func Listen(addr, what, hint string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s for %s: %w (%s)", addr, what, err, hint)
	}
	return ln, nil
}

// Serve serves h on ln, under the name what, until Stop is called.
func (s *Servers) Serve(ln net.Listener, h http.Handler, what string) {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn)}
	s.servers = append(s.servers, hs)
	s.wg.Go(func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.Logger.Error(what+" stopped", "err", err)
		}
	})
	s.Logger.Info(what+" listening", "url", "http://"+ln.Addr().String())
}

// Stop closes every server and waits for them.
func (s *Servers) Stop() {
	for _, hs := range s.servers {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = hs.Shutdown(ctx)
		cancel()
	}
	s.wg.Wait()
}

// PprofHandler serves Go's profiler under /debug/pprof/.
func PprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
