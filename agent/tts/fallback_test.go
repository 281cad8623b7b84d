package tts_test

import (
	"context"
	"errors"
	"github.com/viva-interviews/viva/incident"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/tts/flite"
	oaitts "github.com/viva-interviews/viva/agent/tts/openai"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// TestFallback: OpenAI speech failing before any audio is spoken by flite
// at OpenAI's rate and reported; a working service, a failing out and a
// cancelled context are not fallbacks.
func TestFallback(t *testing.T) {
	const text = "Tell me about a project you are proud of."
	errStop := errors.New("playout stopped")
	tests := []struct {
		name         string
		failures     []int
		outErr       error
		cancel       bool
		wantErr      error
		wantIncident bool
		wantSeconds  [2]float64 // bounds of the audio delivered
	}{
		{name: "primary works", wantSeconds: [2]float64{1, 4}},
		{name: "primary answers 500 twice", failures: []int{500, 500}, wantIncident: true, wantSeconds: [2]float64{1.5, 4}},
		{name: "primary rejects the request", failures: []int{400}, wantIncident: true, wantSeconds: [2]float64{1.5, 4}},
		{name: "out fails: no fallback", outErr: errStop, wantErr: errStop},
		{name: "cancelled: no fallback", failures: []int{500, 500}, cancel: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.FailSpeech(tt.failures...)
			primary, err := oaitts.New(oaitts.Options{APIKey: fakeopenai.Key, BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			secondary, err := flite.New(flite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			e := tts.WithFallback(primary, secondary, nil)
			if e.Name() != "openai" || e.SampleRate() != oaitts.SampleRate24kHz {
				t.Errorf("name %q rate %d", e.Name(), e.SampleRate())
			}
			var incidents []incident.Incident
			ctx, cancel := context.WithCancel(incident.WithObserver(t.Context(), func(i incident.Incident) {
				incidents = append(incidents, i)
			}))
			defer cancel()
			if tt.cancel {
				cancel()
			}
			samples := 0
			err = e.Synthesize(ctx, text, func(pcm []int16) error {
				samples += len(pcm)
				return tt.outErr
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil {
				secs := float64(samples) / float64(e.SampleRate())
				if secs < tt.wantSeconds[0] || secs > tt.wantSeconds[1] {
					t.Errorf("%.2f s of audio at %d Hz, want %v", secs, e.SampleRate(), tt.wantSeconds)
				}
			}
			if got := len(incidents) == 1; got != tt.wantIncident || len(incidents) > 1 {
				t.Fatalf("incidents %+v, want one: %t", incidents, tt.wantIncident)
			}
			if tt.wantIncident {
				inc := incidents[0]
				if inc.Provider != incident.TTS || inc.Engine != "openai" || inc.Kind != incident.Fallback ||
					!inc.Recovered || !strings.Contains(inc.Detail, "spoken by flite") {
					t.Errorf("incident %+v", inc)
				}
			}
		})
	}
}
