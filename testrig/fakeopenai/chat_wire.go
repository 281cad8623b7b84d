package fakeopenai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The JSON shapes of OpenAI's chat completions API, as far as the fake needs
// them.

type wireRequest struct {
	Model       string        `json:"model"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools"`
	Stream      bool          `json:"stream"`
	Temperature float32       `json:"temperature"`
	// ResponseFormat is kept raw: validateChatRequest checks its shape.
	ResponseFormat *wireResponseFormat `json:"response_format"`
}

type wireResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	} `json:"json_schema"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireChunk struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	Created           int64             `json:"created"`
	Model             string            `json:"model"`
	SystemFingerprint string            `json:"system_fingerprint"`
	Choices           []wireChunkChoice `json:"choices"`
}

type wireChunkChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	Logprobs     any       `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role      string         `json:"role,omitempty"`
	Content   *string        `json:"content,omitempty"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireCompletion struct {
	ID      string                 `json:"id"`
	Object  string                 `json:"object"`
	Created int64                  `json:"created"`
	Model   string                 `json:"model"`
	Choices []wireCompletionChoice `json:"choices"`
	Usage   wireUsage              `json:"usage"`
}

type wireCompletionChoice struct {
	Index        int             `json:"index"`
	Message      wireRespMessage `json:"message"`
	FinishReason string          `json:"finish_reason"`
}

type wireRespMessage struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// decodeChatRequest decodes a chat request body into a Request.
func decodeChatRequest(body []byte) (Request, wireRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, w, err
	}
	req := Request{
		Model:       w.Model,
		Stream:      w.Stream,
		Temperature: w.Temperature,
		Body:        bytes.Clone(body),
	}
	if f := w.ResponseFormat; f != nil {
		req.Format = &ResponseFormat{Type: f.Type}
		if f.JSONSchema != nil {
			req.Format.Name, req.Format.Schema, req.Format.Strict = f.JSONSchema.Name, f.JSONSchema.Schema, f.JSONSchema.Strict
		}
	}
	for i, m := range w.Messages {
		content, err := decodeContent(m.Content)
		if err != nil {
			return Request{}, w, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		msg := Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{
			Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters,
		})
	}
	return req, w, nil
}

// decodeContent reads a message content: absent, null, a string, or an
// array of parts whose text parts are concatenated.
func decodeContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content must be a string or an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// validateChatRequest rejects what OpenAI rejects, with messages close to
// OpenAI's, so conversation bugs surface in tests.
func validateChatRequest(raw wireRequest) error {
	if raw.Model == "" {
		return errors.New("you must provide a model parameter")
	}
	if len(raw.Messages) == 0 {
		return errors.New("[] is too short - 'messages'")
	}
	for i, t := range raw.Tools {
		if t.Type != "function" {
			return fmt.Errorf("Invalid value: '%s'. Supported values are: 'function'. ('tools[%d].type')", t.Type, i)
		}
		if t.Function.Name == "" {
			return fmt.Errorf("Missing required parameter: 'tools[%d].function.name'.", i)
		}
		if len(t.Function.Parameters) > 0 && !bytes.HasPrefix(bytes.TrimSpace(t.Function.Parameters), []byte("{")) {
			return fmt.Errorf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"'.", t.Function.Name)
		}
	}

	if err := validateResponseFormat(raw.ResponseFormat); err != nil {
		return err
	}

	pending := map[string]bool{} // tool_call_ids awaiting a tool message
	var pendingOrder []string
	for i, m := range raw.Messages {
		if m.Role != "tool" && len(pending) > 0 {
			return fmt.Errorf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(missing(pendingOrder, pending), ", "))
		}
		hasContent := len(m.Content) > 0 && string(m.Content) != "null"
		switch m.Role {
		case "system", "developer", "user":
			if !hasContent {
				return fmt.Errorf("Missing required parameter: 'messages[%d].content'.", i)
			}
		case "assistant":
			if !hasContent && len(m.ToolCalls) == 0 {
				return fmt.Errorf("Invalid value for 'content': expected a string, got null. ('messages[%d].content')", i)
			}
			pendingOrder = pendingOrder[:0]
			for j, c := range m.ToolCalls {
				if c.ID == "" {
					return fmt.Errorf("Missing required parameter: 'messages[%d].tool_calls[%d].id'.", i, j)
				}
				if c.Type != "function" {
					return fmt.Errorf("Missing required parameter: 'messages[%d].tool_calls[%d].type'.", i, j)
				}
				if c.Function.Name == "" {
					return fmt.Errorf("Missing required parameter: 'messages[%d].tool_calls[%d].function.name'.", i, j)
				}
				pending[c.ID] = true
				pendingOrder = append(pendingOrder, c.ID)
			}
		case "tool":
			if !hasContent {
				return fmt.Errorf("Missing required parameter: 'messages[%d].content'.", i)
			}
			if !pending[m.ToolCallID] {
				return fmt.Errorf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. ('messages[%d]')", i)
			}
			delete(pending, m.ToolCallID)
		default:
			return fmt.Errorf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'. ('messages[%d].role')", m.Role, i)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(missing(pendingOrder, pending), ", "))
	}
	return nil
}

// missing lists, in order, the ids still pending.
func missing(order []string, pending map[string]bool) []string {
	var out []string
	for _, id := range order {
		if pending[id] {
			out = append(out, id)
		}
	}
	return out
}

// validateResponseFormat rejects a response_format OpenAI rejects: an
// unknown type, a json_schema without name or schema, and a strict schema
// that breaks the strict-mode rules (every object closed with
// "additionalProperties": false and listing all its properties as
// required).
func validateResponseFormat(f *wireResponseFormat) error {
	if f == nil {
		return nil
	}
	switch f.Type {
	case "text", "json_object":
		return nil
	case "json_schema":
	default:
		return fmt.Errorf("Invalid value: '%s'. Supported values are: 'json_object', 'json_schema', and 'text'. ('response_format.type')", f.Type)
	}
	if f.JSONSchema == nil {
		return errors.New("Missing required parameter: 'response_format.json_schema'.")
	}
	if f.JSONSchema.Name == "" {
		return errors.New("Missing required parameter: 'response_format.json_schema.name'.")
	}
	var schema map[string]any
	if err := json.Unmarshal(f.JSONSchema.Schema, &schema); err != nil || schema == nil {
		return fmt.Errorf("Invalid schema for response_format '%s': schema must be a JSON object.", f.JSONSchema.Name)
	}
	if schema["type"] != "object" {
		return fmt.Errorf("Invalid schema for response_format '%s': schema must be a JSON Schema of 'type: \"object\"'.", f.JSONSchema.Name)
	}
	if f.JSONSchema.Strict {
		if err := strictSchema(schema, "root"); err != nil {
			return fmt.Errorf("Invalid schema for response_format '%s': In context=('%s'), %s", f.JSONSchema.Name, err.path, err.msg)
		}
	}
	return nil
}

// schemaError is a strict-mode violation at a path of the schema.
type schemaError struct{ path, msg string }

// strictSchema checks the strict-mode rules on a schema and its children.
func strictSchema(s map[string]any, path string) *schemaError {
	if props, ok := s["properties"].(map[string]any); ok || s["type"] == "object" {
		if s["additionalProperties"] != false {
			return &schemaError{path, "'additionalProperties' is required to be supplied and to be false."}
		}
		required := map[string]bool{}
		if list, ok := s["required"].([]any); ok {
			for _, r := range list {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !required[k] {
				return &schemaError{path, fmt.Sprintf("'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", k)}
			}
			child, ok := props[k].(map[string]any)
			if !ok {
				return &schemaError{path + "/properties/" + k, "a property schema must be an object."}
			}
			if err := strictSchema(child, path+"/properties/"+k); err != nil {
				return err
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return strictSchema(items, path+"/items")
	}
	return nil
}
