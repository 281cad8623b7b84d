// Package workertest runs an interviewer worker against a test LiveKit
// server for end-to-end tests.
package workertest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/internal/lktest"
)

// Run starts a worker registered as agentName on srv that hands its jobs to
// h, stops it (draining) when the test ends, and returns once the server
// has registered it: a dispatch made before that finds no worker.
func Run(t testing.TB, srv *lktest.Server, agentName string, h worker.Handler, log *slog.Logger) *worker.Worker {
	t.Helper()
	w, err := worker.New(worker.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.APISecret, AgentName: agentName, Logger: log}, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() {
		sctx, c := context.WithTimeout(context.Background(), 10*time.Second)
		defer c()
		_ = w.Shutdown(sctx)
		cancel()
		<-done
	})
	srv.WaitLog(t, 30*time.Second, "worker registered", agentName)
	return w
}
