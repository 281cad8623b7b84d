package interviews

import (
	"github.com/viva-interviews/viva/incident"
	"strconv"
	"strings"
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
		{name: "long detail shortened", add: 1, detail: strings.Repeat("é", 2*incident.MaxDetailLen), wantLen: 1,
			wantFirst: strings.Repeat("é", incident.MaxDetailLen-1) + "…", wantDetail: incident.MaxDetailLen},
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
				r.AddIncident(incident.Incident{At: at, Provider: incident.LLM, Engine: "openai", Kind: incident.Timeout, Detail: d})
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
		incs []incident.Incident
		want string
	}{
		{name: "no time", incs: []incident.Incident{{Provider: incident.STT, Kind: incident.Disconnected}}, want: "incident 1 has no time"},
		{name: "no provider", incs: []incident.Incident{{At: at, Kind: incident.Cut}}, want: "incident 1 has no provider"},
		{name: "no kind", incs: []incident.Incident{{At: at, Provider: incident.TTS}}, want: "incident 1 has no kind"},
		{name: "detail too long", incs: []incident.Incident{{At: at, Provider: incident.TTS, Kind: incident.Fallback, Detail: strings.Repeat("x", incident.MaxDetailLen+1)}}, want: "detail is longer"},
		{name: "too many", incs: make([]incident.Incident, MaxIncidents+1), want: "more than 200"},
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

// validRecord is a scheduled record that passes Validate.
func validRecord(t *testing.T) *Record {
	t.Helper()
	r := newRecord("rec-incidents", "Ada Lovelace", "Engineer", StatusScheduled, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	if err := r.Validate(); err != nil {
		t.Fatalf("base record: %v", err)
	}
	return r
}
