package openaiapi

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

func TestConfigBaseURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", goopenai.DefaultConfig("k").BaseURL},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"http://localhost:11434/v1//", "http://localhost:11434/v1"},
	} {
		if got := Config("k", tc.in).BaseURL; got != tc.want {
			t.Errorf("Config(%q).BaseURL = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHasKey(t *testing.T) {
	if HasKey(" \t") || !HasKey("sk-x") {
		t.Error("HasKey: blank keys are missing, others present")
	}
}

func TestHTTPStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("wrapped: %w", &goopenai.APIError{HTTPStatusCode: http.StatusUnauthorized}), http.StatusUnauthorized},
		{&goopenai.RequestError{HTTPStatusCode: http.StatusBadGateway}, http.StatusBadGateway},
		{errors.New("connection refused"), 0},
	} {
		if got := HTTPStatus(tc.err); got != tc.want {
			t.Errorf("HTTPStatus(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
