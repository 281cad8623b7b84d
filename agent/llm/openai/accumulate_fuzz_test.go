package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// FuzzAccumulate folds arbitrary stream chunks (one JSON chunk per line, as
// the server's "data:" lines carry them) into an accumulator. It must never
// panic; the response's text is exactly the text the chunks returned, and
// its tool calls are no more than the fragments that made them, each with
// an id and arguments that hold every fragment's bytes.
func FuzzAccumulate(f *testing.F) {
	chunk := func(delta string) string {
		return `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `}]}`
	}
	seeds := [][]string{
		{chunk(`{"role":"assistant","content":"Hello"}`), chunk(`{"content":" there."}`), `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`},
		{
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ask_question","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"assess_response","arguments":"{\"sc"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"id\":\"q1\"}"}}]}`),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"ore\":3}"}}]}`),
		},
		// Servers that number every call 0, or omit the index.
		{
			chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{}"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{}"}}]}`),
		},
		{
			chunk(`{"tool_calls":[{"function":{"name":"x","arguments":"{\"a\":1}"}}]}`),
			chunk(`{"tool_calls":[{"function":{"name":"y"}}]}`),
			chunk(`{"tool_calls":[{"function":{"arguments":"{}"}}]}`),
		},
		{chunk(`{"tool_calls":[{"index":-1,"function":{"name":"x"}},{"index":9223372036854775807,"function":{"name":"y"}}]}`)},
		{`{"choices":[{"index":1,"delta":{"content":"other choice"}}]}`, `{"choices":[],"usage":{"total_tokens":3}}`},
		{`{"choices":null}`, `not json`, `{"choices":[{"index":0,"delta":{"content":"\ud800\u0000"}}]}`},
	}
	for _, s := range seeds {
		f.Add([]byte(strings.Join(s, "\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a accumulator
		var text strings.Builder
		fragments, argBytes := 0, 0
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			var c goopenai.ChatCompletionStreamResponse
			if json.Unmarshal(line, &c) != nil {
				continue
			}
			for _, ch := range c.Choices {
				if ch.Index == 0 {
					fragments += len(ch.Delta.ToolCalls)
					for _, tc := range ch.Delta.ToolCalls {
						argBytes += len(tc.Function.Arguments)
					}
				}
			}
			got, _ := a.add(c)
			text.WriteString(got)
		}
		resp := a.response()
		if resp.Text != text.String() {
			t.Fatalf("response text %q, chunks returned %q", resp.Text, text.String())
		}
		if len(resp.ToolCalls) > fragments {
			t.Fatalf("%d tool calls from %d fragments", len(resp.ToolCalls), fragments)
		}
		total := 0
		for _, c := range resp.ToolCalls {
			if c.ID == "" || c.Arguments == "" {
				t.Fatalf("tool call without an id or arguments: %+v", c)
			}
			if c.Arguments != "{}" {
				total += len(c.Arguments)
			}
		}
		if total > argBytes {
			t.Fatalf("tool calls hold %d bytes of arguments, fragments had %d", total, argBytes)
		}
	})
}
