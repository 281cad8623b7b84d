// Package incidentlog collects the provider incidents an engine reports, for
// tests that check which faults it noticed and how it described them.
package incidentlog

import (
	"context"
	"slices"
	"sync"

	"github.com/viva-interviews/viva/incident"
)

// Log keeps the incidents reported to the contexts it made, in order. It is
// safe for concurrent use; the zero Log is empty and ready.
type Log struct {
	mu        sync.Mutex
	incidents []incident.Incident
}

// Context is parent with the log as its incident observer.
func (l *Log) Context(parent context.Context) context.Context {
	return incident.WithObserver(parent, func(i incident.Incident) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.incidents = append(l.incidents, i)
	})
}

// Incidents returns a copy of the incidents reported so far.
func (l *Log) Incidents() []incident.Incident {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.incidents)
}
