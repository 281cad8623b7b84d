package engines

import (
	"strings"
	"testing"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
)

func TestCheckLanguage(t *testing.T) {
	offline := &config.Config{}
	if err := CheckLanguage(offline, "en-GB", interviews.Keys{}); err != nil {
		t.Errorf("English offline: %v", err)
	}
	err := CheckLanguage(offline, "es", interviews.Keys{})
	want := "This server cannot hold interviews in Spanish: the offline speech recogniser (pocketsphinx), the offline voice (flite) and the offline interviewer (scripted) work in English only. " +
		"Interviews in other languages need Deepgram or OpenAI speech recognition, OpenAI speech and an OpenAI model"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Spanish offline: %v\nwant it to start %q", err, want)
	}
	if err := CheckLanguage(&config.Config{OpenAIAPIKey: "sk-x"}, "de", interviews.Keys{}); err != nil {
		t.Errorf("German with OpenAI: %v", err)
	}
	if err := CheckLanguage(&config.Config{OpenAIAPIKey: "sk-x", DeepgramAPIKey: "dg"}, "es-MX", interviews.Keys{}); err != nil {
		t.Errorf("Spanish with OpenAI and Deepgram: %v", err)
	}
	if err := CheckLanguage(offline, "es", interviews.Keys{OpenAI: "sk-own"}); err != nil {
		t.Errorf("Spanish offline with the interview's own OpenAI key: %v", err)
	}
	err = CheckLanguage(&config.Config{OpenAIAPIKey: "sk-x", TTS: config.EngineFlite}, "de", interviews.Keys{})
	if err == nil || !strings.Contains(err.Error(), "the offline voice (flite) works in English only") {
		t.Errorf("German with flite: %v", err)
	}
}
