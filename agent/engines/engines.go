// Package engines builds the engines an interviewer runs with from viva's
// settings: the speech recogniser, the speech synthesiser, the language
// model and the answer analyser, each with its offline fallback; it checks
// provider keys before any interview starts; and it holds the policy for
// interviews that bring their own provider keys (ForOwnKeys).
//
// The provider packages (agent/llm/…, agent/stt/…, agent/tts/…) know
// nothing of viva's settings; this package is where the two meet, so
// every command (viva agent, viva dev, viva chat, viva web's reports)
// builds engines the same way.
package engines

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/agent/stt"
	dgstt "github.com/viva-interviews/viva/agent/stt/deepgram"
	oaistt "github.com/viva-interviews/viva/agent/stt/openai"
	"github.com/viva-interviews/viva/agent/stt/sphinx"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/tts/flite"
	oaitts "github.com/viva-interviews/viva/agent/tts/openai"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/stages"
)

// LLMFactory makes the interviewer model of one interview.
type LLMFactory = func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client

// STT makes the speech recogniser the configuration asks for.
func STT(cfg *config.Config, log *slog.Logger) (stt.Engine, error) {
	switch cfg.ResolvedSTT() {
	case config.EngineDeepgram:
		return dgstt.New(dgstt.Options{APIKey: cfg.DeepgramAPIKey, Model: cfg.DeepgramModel, Logger: log})
	case config.EngineOpenAI:
		return oaistt.New(oaistt.Options{APIKey: OpenAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAISTTModel, Logger: log})
	default:
		return sphinx.New(sphinx.Options{Logger: log})
	}
}

// TTS makes the speech synthesiser the configuration asks for. A speech
// service is backed by flite: an utterance the service fails to start is
// spoken offline rather than not at all.
func TTS(cfg *config.Config, log *slog.Logger) (tts.Engine, error) {
	switch cfg.ResolvedTTS() {
	case config.EngineOpenAI:
		primary, err := oaitts.New(oaitts.Options{APIKey: OpenAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAITTSModel, Voice: cfg.OpenAITTSVoice, Logger: log})
		if err != nil {
			return nil, err
		}
		backup, err := flite.New(flite.Options{Logger: log})
		if err != nil {
			return nil, fmt.Errorf("the offline voice that backs OpenAI speech: %w", err)
		}
		return tts.WithFallback(primary, backup, log), nil
	default:
		return flite.New(flite.Options{Logger: log})
	}
}

// LLM returns how to make the interviewer model the configuration asks
// for, and its name for logs and records.
func LLM(cfg *config.Config, log *slog.Logger) (LLMFactory, string, error) {
	switch cfg.ResolvedLLM() {
	case config.EngineOpenAI:
		client, err := openai.New(openai.Options{APIKey: OpenAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAIModel,
			FirstTokenTimeout: cfg.LLMFirstTokenTimeout, ChunkGapTimeout: cfg.LLMChunkGapTimeout, Logger: log})
		if err != nil {
			return nil, "", err
		}
		// While the model is down the scripted interviewer carries the
		// stage on, so the candidate is never left in silence.
		return func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
			return llm.WithFallback(client, scripted.New(m, bp, p), llm.FallbackOptions{Primary: "openai", Secondary: "scripted"})
		}, "openai:" + cfg.OpenAIModel, nil
	default:
		return func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
			return scripted.New(m, bp, p)
		}, config.EngineScripted, nil
	}
}

// Analyzer returns the engine that analyses answers: with the openai
// language model, the analysis model answering in structured output, the
// offline rules standing in whenever it fails; otherwise the rules alone.
func Analyzer(cfg *config.Config, log *slog.Logger) (analysis.Analyzer, error) {
	if cfg.ResolvedLLM() != config.EngineOpenAI {
		return analysis.Rules{}, nil
	}
	model := cmp.Or(cfg.AnalysisModel, cfg.OpenAIModel)
	client, err := openai.New(openai.Options{APIKey: OpenAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: model,
		FirstTokenTimeout: cfg.LLMFirstTokenTimeout, ChunkGapTimeout: cfg.LLMChunkGapTimeout, Logger: log})
	if err != nil {
		return nil, err
	}
	return analysis.WithFallback(analysis.NewModel(client, analysis.ModelOptions{}), analysis.Rules{}, func(method string, err error) {
		log.Warn("the analysis model failed; the offline rules stood in", "method", method, "model", model, "err", err)
	}), nil
}

// OpenAIKey is the key for OpenAI-compatible services: OPENAI_API_KEY, or
// a placeholder for a local server (OPENAI_BASE_URL) that needs none.
func OpenAIKey(cfg *config.Config) string {
	if cfg.OpenAIAPIKey == "" && cfg.OpenAIBaseURL != "" {
		return "none"
	}
	return cfg.OpenAIAPIKey
}

// keyCheckTimeout bounds the checks of provider keys with their services.
const keyCheckTimeout = 20 * time.Second

// CheckKeys makes sure, before any interview starts, that every keyed
// service in use accepts its key (engines are the engines made, checked
// when they can be): a rejected key stops viva with a clear error instead
// of failing the first interview.
func CheckKeys(ctx context.Context, cfg *config.Config, engines ...any) error {
	ctx, cancel := context.WithTimeout(ctx, keyCheckTimeout)
	defer cancel()
	if cfg.ResolvedLLM() == config.EngineOpenAI || cfg.ResolvedSTT() == config.EngineOpenAI || cfg.ResolvedTTS() == config.EngineOpenAI {
		c, err := openai.New(openai.Options{APIKey: OpenAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, MaxRetries: -1})
		if err != nil {
			return err
		}
		if err := c.Check(ctx); err != nil {
			return err
		}
	}
	for _, e := range engines {
		if c, ok := e.(interface{ Check(context.Context) error }); ok {
			if err := c.Check(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
