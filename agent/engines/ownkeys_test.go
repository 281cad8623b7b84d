package engines

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/testrig/fakedeepgram"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// TestEnginesForOwnKeys: an interview's own keys replace the worker's,
// move the engines they enable off the offline ones, are checked with the
// provider (a fake OpenAI server) before any greeting, and never reach the
// log.
func TestEnginesForOwnKeys(t *testing.T) {
	oai := fakeopenai.New()
	t.Cleanup(oai.Close)
	cfg := config.Default()
	cfg.OpenAIBaseURL = oai.URL
	cfg.LLM, cfg.STT, cfg.TTS = "scripted", config.EngineSphinx, "flite"
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	newEngines := ForOwnKeys(cfg, log)
	ctx := context.Background()

	eng, err := newEngines(ctx, interviews.Keys{OpenAI: fakeopenai.Key})
	if err != nil {
		t.Fatalf("engines with an accepted key: %v", err)
	}
	if eng.Names.LLM != "openai:"+cfg.OpenAIModel || eng.Names.STT != config.EngineOpenAI || eng.Names.TTS != eng.TTS.Name() || eng.NewLLM == nil {
		t.Errorf("engines with an own OpenAI key = %+v", eng.Names)
	}
	if cfg.OpenAIAPIKey != "" || cfg.LLM != "scripted" {
		t.Error("the worker's configuration was changed")
	}

	const refused = "sk-refused-0123456789abcdef"
	if _, err := newEngines(ctx, interviews.Keys{OpenAI: refused}); err == nil || !strings.Contains(err.Error(), "OpenAI key") {
		t.Errorf("engines with a refused key: %v", err)
	}
	if strings.Contains(logs.String(), refused) || strings.Contains(logs.String(), fakeopenai.Key) {
		t.Error("a key was logged")
	}
}

// TestOwnKeysConfig: which engines an interview's own keys choose.
func TestOwnKeysConfig(t *testing.T) {
	cfg := config.Default()
	cfg.DeepgramAPIKey, cfg.OpenAIAPIKey = "dg-worker", "sk-worker"
	c := OwnKeysConfig(cfg, interviews.Keys{OpenAI: "sk-own"})
	if c.OpenAIAPIKey != "sk-own" || c.DeepgramAPIKey != "dg-worker" || c.ResolvedSTT() != config.EngineDeepgram || c.ResolvedLLM() != config.EngineOpenAI {
		t.Errorf("own OpenAI key: openai %q deepgram %q stt %s llm %s", c.OpenAIAPIKey, c.DeepgramAPIKey, c.ResolvedSTT(), c.ResolvedLLM())
	}
	c = OwnKeysConfig(cfg, interviews.Keys{Deepgram: fakedeepgram.Key})
	if c.DeepgramAPIKey != fakedeepgram.Key || c.OpenAIAPIKey != "sk-worker" || c.ResolvedSTT() != config.EngineDeepgram {
		t.Errorf("own Deepgram key: %q %q %s", c.DeepgramAPIKey, c.OpenAIAPIKey, c.ResolvedSTT())
	}
}
