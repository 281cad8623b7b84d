package interviews

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestAddIncidentKeepsTheRecordValid(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		add        int
		detail     string
		wantLen    int
		wantFirst  string // detail of the first incident kept
		wantDetail int    // characters of the last detail
	}{
		{name: "one", add: 1, detail: "HTTP 500", wantLen: 1, wantFirst: "HTTP 500", wantDetail: 8},
		{name: "long detail shortened", add: 1, detail: strings.Repeat("é", 2*MaxIncidentDetailLen), wantLen: 1,
			wantFirst: strings.Repeat("é", MaxIncidentDetailLen-1) + "…", wantDetail: MaxIncidentDetailLen},
		{name: "oldest dropped past the limit", add: MaxIncidents + 5, detail: "x", wantLen: MaxIncidents, wantFirst: "#5", wantDetail: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRecord(t)
			for i := range tt.add {
				d := tt.detail
				if tt.add > 1 && i < tt.add-1 {
					d = "#" + strconv.Itoa(i)
				}
				r.AddIncident(Incident{At: at, Provider: ProviderLLM, Engine: "openai", Kind: IncidentTimeout, Detail: d})
			}
			if len(r.Incidents) != tt.wantLen || r.Incidents[0].Detail != tt.wantFirst {
				t.Fatalf("%d incidents, first %q; want %d, first %q", len(r.Incidents), r.Incidents[0].Detail, tt.wantLen, tt.wantFirst)
			}
			if n := utf8.RuneCountInString(r.Incidents[len(r.Incidents)-1].Detail); n != tt.wantDetail {
				t.Errorf("last detail has %d characters, want %d", n, tt.wantDetail)
			}
			if err := r.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if c := r.Clone(); &c.Incidents[0] == &r.Incidents[0] {
				t.Error("Clone shares the incidents")
			}
		})
	}
}

func TestValidateIncidents(t *testing.T) {
	at := time.Now()
	tests := []struct {
		name string
		incs []Incident
		want string
	}{
		{name: "no time", incs: []Incident{{Provider: ProviderSTT, Kind: IncidentDisconnected}}, want: "incident 1 has no time"},
		{name: "no provider", incs: []Incident{{At: at, Kind: IncidentCut}}, want: "incident 1 has no provider"},
		{name: "no kind", incs: []Incident{{At: at, Provider: ProviderTTS}}, want: "incident 1 has no kind"},
		{name: "detail too long", incs: []Incident{{At: at, Provider: ProviderTTS, Kind: IncidentFallback, Detail: strings.Repeat("x", MaxIncidentDetailLen+1)}}, want: "detail is longer"},
		{name: "too many", incs: make([]Incident, MaxIncidents+1), want: "more than 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRecord(t)
			r.Incidents = tt.incs
			if err := r.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReportIncident(t *testing.T) {
	ReportIncident(t.Context(), Incident{Provider: ProviderLLM, Kind: IncidentCut}) // no observer: nothing happens

	var mu sync.Mutex
	var got []Incident
	ctx := WithIncidentObserver(t.Context(), func(i Incident) {
		mu.Lock()
		got = append(got, i)
		mu.Unlock()
	})
	ctx, cancel := context.WithCancel(ctx) // derived contexts keep the observer
	defer cancel()
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ReportIncident(ctx, Incident{Provider: ProviderLLM, Kind: IncidentCut})
	ReportIncident(ctx, Incident{At: fixed, Provider: ProviderSTT, Kind: IncidentDisconnected, Recovered: true})
	if len(got) != 2 || got[0].At.IsZero() || !got[1].At.Equal(fixed) || !got[1].Recovered {
		t.Errorf("observed %+v", got)
	}
}

// validRecord is a scheduled record that passes Validate.
func validRecord(t *testing.T) *Record {
	t.Helper()
	r := newRecord("rec-incidents", "Ada Lovelace", "Engineer", StatusScheduled, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	if err := r.Validate(); err != nil {
		t.Fatalf("base record: %v", err)
	}
	return r
}
