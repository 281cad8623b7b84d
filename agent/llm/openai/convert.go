package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/viva-interviews/viva/agent/llm"
)

// emptyToolResult stands in for a tool result with no text: OpenAI rejects
// tool messages without content, and one bad message in the history would
// break every later turn.
const emptyToolResult = "(no output)"

// emptySchema is the parameter schema of a tool that takes no arguments.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// messages converts the conversation to go-openai messages. An assistant
// message with tool calls and no text is sent without content, as OpenAI
// expects; a tool message keeps its tool_call_id and name.
func messages(in []llm.Message) ([]goopenai.ChatCompletionMessage, error) {
	out := make([]goopenai.ChatCompletionMessage, 0, len(in))
	for i, m := range in {
		msg := goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name}
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser:
		case llm.RoleAssistant:
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, goopenai.ToolCall{
					ID:   tc.ID,
					Type: goopenai.ToolTypeFunction,
					Function: goopenai.FunctionCall{
						Name:      tc.Name,
						Arguments: arguments(tc.Arguments),
					},
				})
			}
		case llm.RoleTool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("llm: openai: messages[%d]: tool message without tool_call_id", i)
			}
			msg.ToolCallID = m.ToolCallID
			if msg.Content == "" {
				msg.Content = emptyToolResult
			}
		default:
			return nil, fmt.Errorf("llm: openai: messages[%d]: unknown role %q (want system, user, assistant or tool)", i, m.Role)
		}
		out = append(out, msg)
	}
	return out, nil
}

// tools converts the tool definitions to OpenAI function tools.
func tools(in []llm.Tool) []goopenai.Tool {
	if len(in) == 0 {
		return nil
	}
	out := make([]goopenai.Tool, len(in))
	for i, t := range in {
		params := t.Parameters
		if len(params) == 0 {
			params = emptySchema
		}
		out[i] = goopenai.Tool{
			Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		}
	}
	return out
}

// arguments normalises a call's arguments: a call without arguments is the
// empty object, so the text always parses as JSON.
func arguments(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

// responseFormat converts a structured-output request to OpenAI's strict
// json_schema response format; nil when the request wants free text. A
// format with tools, without a name or with a schema that is not a JSON
// object is refused before anything is sent.
func responseFormat(f *llm.Format, toolCount int) (*goopenai.ChatCompletionResponseFormat, error) {
	if f == nil {
		return nil, nil
	}
	switch {
	case toolCount > 0:
		return nil, errors.New("llm: openai: a structured-output request (Format) cannot offer tools")
	case f.Name == "":
		return nil, errors.New("llm: openai: a structured-output request (Format) needs a schema name")
	case !json.Valid(f.Schema) || !bytes.HasPrefix(bytes.TrimSpace(f.Schema), []byte("{")):
		return nil, fmt.Errorf("llm: openai: the schema of structured output %q is not a JSON object", f.Name)
	}
	return &goopenai.ChatCompletionResponseFormat{
		Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
			Name:   f.Name,
			Schema: f.Schema,
			Strict: true,
		},
	}, nil
}
