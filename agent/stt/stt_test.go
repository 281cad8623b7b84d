package stt_test

import (
	"context"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/stt"
)

// englishOnly is a recogniser that is not Multilingual, as pocketsphinx.
type englishOnly struct{}

func (englishOnly) Name() string                                  { return "sphinx" }
func (englishOnly) NewStream(context.Context) (stt.Stream, error) { return nil, nil }

func TestInLanguageRefusesAnEnglishOnlyRecogniser(t *testing.T) {
	for _, tag := range []string{"", "en", "EN-gb"} {
		if e, err := stt.InLanguage(englishOnly{}, tag); err != nil || e != (englishOnly{}) {
			t.Errorf("InLanguage(sphinx, %q) = %v, %v; want the engine itself", tag, e, err)
		}
	}
	_, err := stt.InLanguage(englishOnly{}, "de")
	if err == nil || !strings.Contains(err.Error(), "sphinx speech recogniser hears English only") || !strings.Contains(err.Error(), "Deepgram") {
		t.Errorf("InLanguage(sphinx, de) = %v; want a refusal naming the engines that can", err)
	}
}
