package engines

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
)

// ForOwnKeys returns how to make the engines of an interview that brings
// its own provider keys: the configured engines with those keys in place
// of the worker's (an OpenAI key also moves the model and speech off the
// offline engines; a Deepgram key picks Deepgram recognition), built the
// same way as the worker's own, the scripted fallback included. Every
// given key is checked with its provider before the engines are returned.
func ForOwnKeys(cfg *config.Config, log *slog.Logger) func(context.Context, interviews.Keys) (worker.Engines, error) {
	return func(ctx context.Context, keys interviews.Keys) (worker.Engines, error) {
		c := OwnKeysConfig(cfg, keys)
		recogniser, err := STT(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		synth, err := TTS(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		newLLM, llmName, err := LLM(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		analyzer, err := Analyzer(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		if err := checkOwnKeys(ctx, c, keys, recogniser); err != nil {
			return worker.Engines{}, err
		}
		return worker.Engines{Models: agent.Models{NewLLM: newLLM, Analyzer: analyzer, Preemptive: c.ResolvedLLM() == config.EngineOpenAI}, STT: recogniser, TTS: synth,
			Names: interviews.Engines{LLM: llmName, STT: recogniser.Name(), TTS: synth.Name()}}, nil
	}
}

// OwnKeysConfig is cfg with an interview's own keys in place of the
// worker's, and the engines those keys enable chosen.
func OwnKeysConfig(cfg *config.Config, keys interviews.Keys) *config.Config {
	c := *cfg
	if keys.OpenAI != "" {
		c.OpenAIAPIKey = keys.OpenAI
		c.LLM, c.TTS = config.EngineOpenAI, config.EngineOpenAI
		if c.ResolvedSTT() == config.EngineSphinx {
			c.STT = config.EngineOpenAI
		}
	}
	if keys.Deepgram != "" {
		c.DeepgramAPIKey = keys.Deepgram
		c.STT = config.EngineDeepgram
	}
	return &c
}

// checkOwnKeys checks with each provider that the interview's own keys are
// accepted (recogniser is the engine made with them), so that a refused key
// is told to the candidate before the greeting instead of failing mid-way.
func checkOwnKeys(ctx context.Context, c *config.Config, keys interviews.Keys, recogniser stt.Engine) error {
	ctx, cancel := context.WithTimeout(ctx, keyCheckTimeout)
	defer cancel()
	if keys.OpenAI != "" {
		client, err := openai.New(openai.Options{APIKey: keys.OpenAI, BaseURL: c.OpenAIBaseURL, MaxRetries: -1})
		if err != nil {
			return fmt.Errorf("the OpenAI key: %w", err)
		}
		if err := client.Check(ctx); err != nil {
			return fmt.Errorf("the OpenAI key: %w", err)
		}
	}
	if keys.Deepgram != "" {
		if ch, ok := recogniser.(interface{ Check(context.Context) error }); ok {
			if err := ch.Check(ctx); err != nil {
				return fmt.Errorf("the Deepgram key: %w", err)
			}
		}
	}
	return nil
}
