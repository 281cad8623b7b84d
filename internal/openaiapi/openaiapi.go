// Package openaiapi is what viva's OpenAI engines (speech to text, text to
// speech, the interviewer model) share about the go-openai client: building
// it from a key and an optional base URL, and reading the HTTP status out of
// its errors.
package openaiapi

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"
)

// HasKey reports whether apiKey holds more than white space.
func HasKey(apiKey string) bool { return strings.TrimSpace(apiKey) != "" }

// Config is go-openai's configuration for apiKey and baseURL (the API root
// ending in /v1, OPENAI_BASE_URL; trailing slashes dropped). An empty
// baseURL keeps go-openai's default, https://api.openai.com/v1.
func Config(apiKey, baseURL string) goopenai.ClientConfig {
	cfg := goopenai.DefaultConfig(apiKey)
	if baseURL != "" {
		cfg.BaseURL = strings.TrimRight(baseURL, "/")
	}
	return cfg
}

// NewClient is a go-openai client for apiKey and baseURL (see Config).
func NewClient(apiKey, baseURL string) *goopenai.Client {
	return goopenai.NewClientWithConfig(Config(apiKey, baseURL))
}

// Speech is what a speech engine on OpenAI (speech to text, text to speech)
// holds: its client and its logger.
type Speech struct {
	Client *goopenai.Client
	Log    *slog.Logger
}

// NewSpeech checks apiKey and returns the Speech of the kind ("stt" or
// "tts") engine: a client for apiKey and baseURL (see Config) and logger
// (slog.Default() when nil) tagged kind=openai. Without a key the error
// says to set OPENAI_API_KEY or choose another engine.
func NewSpeech(kind, apiKey, baseURL string, logger *slog.Logger) (Speech, error) {
	if !HasKey(apiKey) {
		return Speech{}, fmt.Errorf("%s: openai: no API key: set OPENAI_API_KEY, or choose another %s engine", kind, strings.ToUpper(kind))
	}
	return Speech{Client: NewClient(apiKey, baseURL), Log: cmp.Or(logger, slog.Default()).With(kind, "openai")}, nil
}

// HTTPStatus is the HTTP status of a go-openai error, or 0 when the request
// got no answer (or err is no go-openai error).
func HTTPStatus(err error) int {
	var apiErr *goopenai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *goopenai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}
