package main

import (
	"fmt"
	"testing"

	oaillm "github.com/viva-interviews/viva/agent/llm/openai"
	dgstt "github.com/viva-interviews/viva/agent/stt/deepgram"
	oaistt "github.com/viva-interviews/viva/agent/stt/openai"
	oaitts "github.com/viva-interviews/viva/agent/tts/openai"
	"github.com/viva-interviews/viva/config"
)

// TestDefaultsAgree: a provider client applies its own default to a zero
// option, and it must be the one viva's configuration documents. The
// engines may not import config and config does not import the engines
// (both are import rules), so this test, in the one package that wires
// both, keeps them from drifting apart. (The turn-taking defaults are
// written once, in config, and the listener refers to them.)
func TestDefaultsAgree(t *testing.T) {
	c := config.Default()
	for _, tc := range []struct {
		setting       string
		config, inPkg any
	}{
		{"openai_model", c.OpenAIModel, oaillm.DefaultModel},
		{"llm_first_token_timeout", c.LLMFirstTokenTimeout, oaillm.DefaultFirstTokenTimeout},
		{"llm_chunk_gap_timeout", c.LLMChunkGapTimeout, oaillm.DefaultChunkGapTimeout},
		{"deepgram_model", c.DeepgramModel, dgstt.DefaultModel},
		{"openai_stt_model", c.OpenAISTTModel, oaistt.DefaultModel},
		{"openai_tts_model", c.OpenAITTSModel, oaitts.DefaultModel},
		{"openai_tts_voice", c.OpenAITTSVoice, oaitts.DefaultVoice},
	} {
		if fmt.Sprint(tc.config) != fmt.Sprint(tc.inPkg) {
			t.Errorf("%s: config's default %v, the package's %v: change one so they agree", tc.setting, tc.config, tc.inPkg)
		}
	}
}
