// Package workertest runs an interviewer worker against a test LiveKit
// server for end-to-end tests.
package workertest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/testrig/lktest"
)

const (
	// maxSessions is how many jobs a test worker runs at once: more than
	// any end-to-end test dispatches to one worker.
	maxSessions = 10
	// drainTimeout is how long a test worker, stopped when its test ends,
	// lets running jobs finish before cancelling them.
	drainTimeout = 10 * time.Second
)

// Run starts a worker registered as agentName on srv that hands its jobs to
// h, stops it (draining) when the test ends, and returns once the server
// has registered it: a dispatch made before that finds no worker. The
// worker holds up to maxSessions jobs at once.
func Run(t testing.TB, srv *lktest.Server, agentName string, h lkagent.Handler, log *slog.Logger) *lkagent.Worker {
	t.Helper()
	w, err := lkagent.New(lkagent.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.APISecret, AgentName: agentName, MaxSessions: maxSessions, DrainTimeout: drainTimeout, Logger: log}, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() {
		sctx, c := context.WithTimeout(context.Background(), drainTimeout+5*time.Second)
		defer c()
		_ = w.Shutdown(sctx)
		cancel()
		<-done
	})
	srv.WaitLog(t, 30*time.Second, "worker registered", agentName)
	return w
}
