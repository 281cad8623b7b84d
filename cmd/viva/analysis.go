package main

import (
	"cmp"
	"log/slog"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/config"
)

// analyzerFor returns the engine that analyses answers: with the openai
// language model, the analysis model answering in structured output, the
// offline rules standing in whenever it fails; otherwise the rules alone.
func analyzerFor(cfg *config.Config, log *slog.Logger) (analysis.Analyzer, error) {
	if cfg.ResolvedLLM() != config.EngineOpenAI {
		return analysis.Rules{}, nil
	}
	model := cmp.Or(cfg.AnalysisModel, cfg.OpenAIModel)
	client, err := openai.New(openai.Options{APIKey: openAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: model,
		FirstTokenTimeout: cfg.LLMFirstTokenTimeout, ChunkGapTimeout: cfg.LLMChunkGapTimeout, Logger: log})
	if err != nil {
		return nil, err
	}
	return analysis.WithFallback(analysis.NewModel(client, analysis.ModelOptions{}), analysis.Rules{}, func(method string, err error) {
		log.Warn("the analysis model failed; the offline rules stood in", "method", method, "model", model, "err", err)
	}), nil
}
