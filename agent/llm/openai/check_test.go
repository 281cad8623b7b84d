package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// TestCheck: the startup check accepts the right key, reports a wrong one
// as llm.ErrAuth, and an unreachable server as a network problem.
func TestCheck(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	good, _ := New(Options{APIKey: fakeopenai.Key, BaseURL: srv.URL})
	if err := good.Check(t.Context()); err != nil {
		t.Errorf("good key: %v", err)
	}
	bad, _ := New(Options{APIKey: "sk-wrong", BaseURL: srv.URL})
	if err := bad.Check(t.Context()); !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("wrong key: %v", err)
	}
	gone, _ := New(Options{APIKey: fakeopenai.Key, BaseURL: "http://127.0.0.1:1/v1"})
	if err := gone.Check(t.Context()); err == nil || errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("unreachable server: %v", err)
	}
}
