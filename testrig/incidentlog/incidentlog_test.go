package incidentlog

import (
	"sync"
	"testing"

	"github.com/viva-interviews/viva/incident"
)

func TestLogKeepsReportsInOrder(t *testing.T) {
	var l Log
	ctx := l.Context(t.Context())
	incident.Report(ctx, incident.Incident{Kind: incident.Timeout})
	incident.Report(ctx, incident.Incident{Kind: incident.Cut})
	got := l.Incidents()
	if len(got) != 2 || got[0].Kind != incident.Timeout || got[1].Kind != incident.Cut {
		t.Fatalf("incidents %+v, want a timeout then a cut", got)
	}
	got[0].Kind = incident.Cut
	if l.Incidents()[0].Kind != incident.Timeout {
		t.Error("Incidents shares its slice with the log")
	}
}

func TestLogConcurrentReports(t *testing.T) {
	var l Log
	ctx := l.Context(t.Context())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { incident.Report(ctx, incident.Incident{Kind: incident.Unavailable}) })
	}
	wg.Wait()
	if n := len(l.Incidents()); n != 8 {
		t.Errorf("%d incidents, want 8", n)
	}
}
