package tts_test

import (
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/tts/openai"
)

// englishOnly is a voice that is not Multilingual.
type englishOnly struct{ tts.Engine }

func (englishOnly) Name() string { return "flite" }

func TestInLanguage(t *testing.T) {
	oai, err := openai.New(openai.Options{APIKey: "sk-test", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	flite := englishOnly{}
	if e, err := tts.InLanguage(flite, "en-GB"); err != nil || e != tts.Engine(flite) {
		t.Errorf("an English-only voice in English: %v, %v", e, err)
	}
	if _, err := tts.InLanguage(flite, "es"); err == nil || !strings.Contains(err.Error(), "flite voice speaks English only") || !strings.Contains(err.Error(), "OpenAI") {
		t.Errorf("an English-only voice in Spanish: %v", err)
	}
	if e, err := tts.InLanguage(oai, "es"); err != nil || e == nil {
		t.Errorf("OpenAI in Spanish: %v, %v", e, err)
	}
	backed := tts.WithFallback(oai, flite, nil)
	if e, err := tts.InLanguage(backed, "de"); err != nil || e.Name() != "openai" {
		t.Errorf("OpenAI backed by flite in German: %v, %v", e, err)
	}
	if _, err := tts.InLanguage(tts.WithFallback(flite, flite, nil), "de"); err == nil {
		t.Error("flite backed by flite was accepted for German")
	}
}
