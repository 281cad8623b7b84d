// Package llm is the interface between the conductor and a language model:
// one streamed chat completion with tools. Providers live in subpackages
// named after what they wrap (openai, scripted).
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a tool message.
	Name string `json:"name,omitempty"`
}

// ToolCall is one complete function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON object text
}

// Tool is a function the model may call, as an OpenAI function schema.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema object
}

// Request is one completion request.
type Request struct {
	Messages []Message
	Tools    []Tool
	// Temperature 0 means the provider's default.
	Temperature float32
	// Format, when set, asks for the answer as JSON matching a schema
	// (structured output) instead of free text; such a request offers no
	// tools.
	Format *Format
	// TextDone, when set, is called once when the model turns from its
	// text to tool calls: the text passed to onDelta so far is whole, so
	// a speaking caller may say its last sentence without waiting for the
	// end of the stream. Providers that cannot tell do not call it.
	TextDone func()
	// Suggestions are the questions the interview's guide would ask next,
	// best first. A model reads them in the system prompt; the scripted
	// interviewer asks the first as written. Providers send nothing of
	// them.
	Suggestions []Suggestion
}

// Format is a structured-output contract: the model's whole text is one
// JSON value valid against Schema.
type Format struct {
	// Name names the schema to the provider ("answer_analysis"): letters,
	// digits, underscores and dashes.
	Name string
	// Schema is a JSON Schema object. Providers enforcing it strictly need
	// every property listed in "required" and "additionalProperties": false
	// on every object.
	Schema json.RawMessage
}

// Suggestion is a question the guide suggests asking next.
type Suggestion struct {
	// Ref is what the question is asked from (a gap, a rubric field, a
	// backlog item, a template or bank question): pass it to ask_question.
	Ref string
	// Text is the question as written.
	Text string
}

// Response is what a completion produced once the stream ended.
type Response struct {
	// Text is the whole assistant text (the concatenation of the deltas).
	Text string
	// ToolCalls are complete calls, in the order the model made them.
	ToolCalls []ToolCall
	// FinishReason as the provider reported it ("stop", "tool_calls", …).
	FinishReason string
	// FirstToken is the time from the request to the first streamed token
	// (text or tool call); zero when nothing was streamed.
	FirstToken time.Duration
	// Fallback names the engine that answered in place of a failing one
	// (see WithFallback); empty when the client answered itself.
	Fallback string
}

// Client is a chat model. Complete streams one completion: onDelta is called
// with each piece of assistant text as it arrives (never concurrently), and
// the returned Response holds the whole text and the accumulated tool calls.
// Cancelling ctx stops the stream and returns ctx's error.
type Client interface {
	Complete(ctx context.Context, req Request, onDelta func(text string)) (Response, error)
}

// ErrAuth is wrapped by errors that mean the provider rejected or lacks the
// credentials; retrying will not help.
var ErrAuth = errors.New("llm: authentication failed")

// Kinds of provider failure. Errors returned by a Client wrap at most one of
// these (besides ErrAuth), so a caller can tell a model that is slow from
// one that is down or one whose answer was lost half way (WithFallback
// replaces neither a rejected key nor an answer already half said).
var (
	// ErrTimeout: the model sent no first token, or stopped sending between
	// chunks, for longer than the client allows.
	ErrTimeout = errors.New("llm: model timed out")
	// ErrRateLimited: the provider kept answering 429 (too many requests)
	// through every retry, or asked for a longer wait than the client allows.
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrUnavailable: the provider kept failing (5xx, refused or reset
	// connections) through every retry.
	ErrUnavailable = errors.New("llm: model unavailable")
	// ErrCut: the stream ended before the model said it had finished, after
	// text had already been delivered. The text delivered is a partial
	// answer: drop it rather than keep it as a complete turn.
	ErrCut = errors.New("llm: stream cut before the answer was complete")
)
