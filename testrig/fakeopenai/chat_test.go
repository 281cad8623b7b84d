package fakeopenai

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// chunk is a streamed chunk as a client decodes it.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      *string `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

const simpleBody = `{"model":"gpt-test","stream":true,"messages":[{"role":"user","content":"hi"}]}`

func post(t *testing.T, ctx context.Context, url, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads server-sent events and returns their data payloads, checking
// that every event is one `data:` line followed by a blank line.
func events(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	var out []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" {
				return out, nil
			}
			return out, err
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("event line %q does not start with %q", line, "data: ")
		}
		out = append(out, strings.TrimSuffix(data, "\n"))
		blank, err := br.ReadString('\n')
		if err != nil {
			return out, err
		}
		if blank != "\n" {
			t.Fatalf("event %q not followed by a blank line but %q", data, blank)
		}
	}
}

func decodeChunks(t *testing.T, payloads []string) []chunk {
	t.Helper()
	if len(payloads) == 0 || payloads[len(payloads)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", payloads)
	}
	var out []chunk
	for _, p := range payloads[:len(payloads)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(p), &c); err != nil {
			t.Fatalf("chunk %q: %v", p, err)
		}
		out = append(out, c)
	}
	return out
}

func TestChatStreamWireFormat(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantText   []string // the content pieces after the role chunk
		wantCalls  []ToolCall
		wantOrder  []int // the index of every tool-call delta, in order
		wantFinish string
	}{
		{
			name:       "text in chunks of 4",
			reply:      Reply{Text: "Hello there, Ada."},
			wantText:   []string{"Hell", "o th", "ere,", " Ada", "."},
			wantFinish: "stop",
		},
		{
			name:       "chunk size and runes",
			reply:      Reply{Text: "héllo wörld", Chunk: 3},
			wantText:   []string{"hél", "lo ", "wör", "ld"},
			wantFinish: "stop",
		},
		{
			name:       "one call, arguments in pieces",
			reply:      Reply{ToolCalls: []ToolCall{{ID: "call_a", Name: "ask_question", Arguments: `{"question":"Why?"}`}}, Chunk: 5},
			wantCalls:  []ToolCall{{ID: "call_a", Name: "ask_question", Arguments: `{"question":"Why?"}`}},
			wantOrder:  []int{0, 0, 0, 0, 0},
			wantFinish: "tool_calls",
		},
		{
			name: "two parallel calls interleaved, ids made up",
			reply: Reply{Text: "Ok.", ToolCalls: []ToolCall{
				{Name: "assess_response", Arguments: `{"depth_score":4}`},
				{Name: "transition_stage", Arguments: `{"reason":"done"}`},
			}, Chunk: 6},
			wantText: []string{"Ok."},
			wantCalls: []ToolCall{
				{ID: "call_fake_1_0", Name: "assess_response", Arguments: `{"depth_score":4}`},
				{ID: "call_fake_1_1", Name: "transition_stage", Arguments: `{"reason":"done"}`},
			},
			wantOrder:  []int{0, 1, 0, 1, 0, 1, 0, 1},
			wantFinish: "tool_calls",
		},
		{
			name:       "finish reason override",
			reply:      Reply{Text: "cut", FinishReason: "length"},
			wantText:   []string{"cut"},
			wantFinish: "length",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			defer s.Close()
			s.ScriptChat(tt.reply)
			resp := post(t, t.Context(), s.URL, Key, simpleBody)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			payloads, err := events(t, resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			chunks := decodeChunks(t, payloads)

			first := chunks[0]
			if len(first.Choices) != 1 || first.Choices[0].Delta.Role != "assistant" {
				t.Errorf("first chunk has no assistant role: %s", payloads[0])
			}
			var text []string
			calls := map[int]*ToolCall{}
			var order []int
			for i, c := range chunks {
				if c.ID != first.ID || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Object != "chat.completion.chunk" ||
					c.Model != "gpt-test" || c.Created == 0 || len(c.Choices) != 1 {
					t.Fatalf("chunk %d header wrong: %s", i, payloads[i])
				}
				ch := c.Choices[0]
				if (ch.FinishReason != nil) != (i == len(chunks)-1) {
					t.Errorf("finish_reason on chunk %d of %d: %s", i, len(chunks), payloads[i])
				}
				if i > 0 && ch.Delta.Content != nil {
					text = append(text, *ch.Delta.Content)
				}
				for _, tc := range ch.Delta.ToolCalls {
					if tc.Index == nil {
						t.Fatalf("tool call delta without index: %s", payloads[i])
					}
					order = append(order, *tc.Index)
					call := calls[*tc.Index]
					if call == nil {
						// The first delta of an index carries id, type, name and empty arguments.
						if tc.ID == "" || tc.Type != "function" || tc.Function.Name == nil || tc.Function.Arguments == nil || *tc.Function.Arguments != "" {
							t.Fatalf("first delta of index %d incomplete: %s", *tc.Index, payloads[i])
						}
						calls[*tc.Index] = &ToolCall{ID: tc.ID, Name: *tc.Function.Name}
						continue
					}
					if tc.ID != "" || tc.Function.Name != nil {
						t.Errorf("later delta of index %d repeats id or name: %s", *tc.Index, payloads[i])
					}
					call.Arguments += *tc.Function.Arguments
				}
			}
			if !slices.Equal(text, tt.wantText) {
				t.Errorf("text pieces %q, want %q", text, tt.wantText)
			}
			var got []ToolCall
			for i := range len(calls) {
				got = append(got, *calls[i])
			}
			if !slices.Equal(got, tt.wantCalls) {
				t.Errorf("calls %+v, want %+v", got, tt.wantCalls)
			}
			if !slices.Equal(order, tt.wantOrder) {
				t.Errorf("tool delta order %v, want %v", order, tt.wantOrder)
			}
			if f := chunks[len(chunks)-1].Choices[0].FinishReason; *f != tt.wantFinish {
				t.Errorf("finish_reason %q, want %q", *f, tt.wantFinish)
			}
		})
	}
}

func TestChatNonStream(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptChat(
		Reply{Text: "Plain answer."},
		Reply{ToolCalls: []ToolCall{{ID: "call_x", Name: "end_interview", Arguments: `{"reason":"asked"}`}}},
	)
	type completion struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role      string  `json:"role"`
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	body := strings.Replace(simpleBody, `"stream":true`, `"stream":false`, 1)

	var c completion
	resp := post(t, t.Context(), s.URL, Key, body)
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 || c.Choices[0].Message.Role != "assistant" ||
		c.Choices[0].Message.Content == nil || *c.Choices[0].Message.Content != "Plain answer." || c.Choices[0].FinishReason != "stop" {
		t.Errorf("text completion wrong: %+v", c)
	}

	c = completion{}
	resp = post(t, t.Context(), s.URL, Key, body)
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	m := c.Choices[0].Message
	if m.Content != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "call_x" || m.ToolCalls[0].Type != "function" ||
		m.ToolCalls[0].Function.Name != "end_interview" || m.ToolCalls[0].Function.Arguments != `{"reason":"asked"}` ||
		c.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("tool completion wrong: %+v", c)
	}
	if got := s.ChatRequests(); len(got) != 2 || got[0].Stream {
		t.Errorf("requests %+v, want two non-streamed", got)
	}
}

func TestChatErrors(t *testing.T) {
	tests := []struct {
		name           string
		script         []Reply
		key            string
		body           string
		wantStatus     int
		wantMessage    string
		wantRetryAfter string
	}{
		{name: "empty script", body: simpleBody, wantStatus: 500, wantMessage: "queue one with ScriptChat or set ChatFunc"},
		{name: "wrong key", key: "sk-wrong", body: simpleBody, wantStatus: 401, wantMessage: "Incorrect API key"},
		{
			name: "rate limited", script: []Reply{{Status: 429, RetryAfter: 1500 * time.Millisecond}},
			body: simpleBody, wantStatus: 429, wantMessage: "scripted error: HTTP 429", wantRetryAfter: "2",
		},
		{name: "scripted message", script: []Reply{{Status: 503, Text: "overloaded"}}, body: simpleBody, wantStatus: 503, wantMessage: "overloaded"},
		{name: "bad json", body: `{"model":`, wantStatus: 400, wantMessage: "could not parse the JSON"},
		{name: "no model", body: `{"messages":[{"role":"user","content":"hi"}]}`, wantStatus: 400, wantMessage: "model parameter"},
		{name: "no messages", body: `{"model":"m","messages":[]}`, wantStatus: 400, wantMessage: "too short"},
		{name: "unknown role", body: `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, wantStatus: 400, wantMessage: "'messages[0].role'"},
		{name: "user without content", body: `{"model":"m","messages":[{"role":"user"}]}`, wantStatus: 400, wantMessage: "'messages[0].content'"},
		{
			name:        "tool result without a call",
			body:        `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"call_1","content":"ok"}]}`,
			wantStatus:  400,
			wantMessage: "must be a response to a preceeding message with 'tool_calls'",
		},
		{
			name: "call without a result",
			body: `{"model":"m","messages":[{"role":"user","content":"x"},` +
				`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},` +
				`{"id":"call_2","type":"function","function":{"name":"g","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"call_1","content":"ok"},{"role":"user","content":"y"}]}`,
			wantStatus:  400,
			wantMessage: "did not have response messages: call_2",
		},
		{
			name:        "assistant with neither content nor calls",
			body:        `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant"}]}`,
			wantStatus:  400,
			wantMessage: "'messages[1].content'",
		},
		{
			name:        "unknown response format",
			body:        `{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"yaml"}}`,
			wantStatus:  400,
			wantMessage: "'response_format.type'",
		},
		{
			name:        "json schema without name",
			body:        `{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object"}}}}`,
			wantStatus:  400,
			wantMessage: "'response_format.json_schema.name'",
		},
		{
			name: "strict schema with an optional property",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,` +
				`"schema":{"type":"object","additionalProperties":false,"properties":{"x":{"type":"string"}},"required":[]}}}}`,
			wantStatus:  400,
			wantMessage: "Missing 'x'",
		},
		{
			name: "strict schema with an open nested object",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,` +
				`"schema":{"type":"object","additionalProperties":false,"properties":{"x":{"type":"array","items":{"type":"object","properties":{}}}},"required":["x"]}}}}`,
			wantStatus:  400,
			wantMessage: "root/properties/x/items",
		},
		{
			name:        "tool without name",
			body:        `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"parameters":{}}}]}`,
			wantStatus:  400,
			wantMessage: "'tools[0].function.name'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			defer s.Close()
			s.ScriptChat(tt.script...)
			key := tt.key
			if key == "" {
				key = Key
			}
			resp := post(t, t.Context(), s.URL, key, tt.body)
			e := readAPIError(t, resp, tt.wantStatus)
			if !strings.Contains(e.Message, tt.wantMessage) || e.Code == "" {
				t.Errorf("error %+v, want message containing %q and a code", e, tt.wantMessage)
			}
			if got := resp.Header.Get("Retry-After"); got != tt.wantRetryAfter {
				t.Errorf("Retry-After %q, want %q", got, tt.wantRetryAfter)
			}
		})
	}
}

func TestChatRecordsRequests(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptChat(Reply{Text: "fine"})
	body := `{"model":"gpt-test","stream":true,"temperature":0.5,"messages":[
		{"role":"system","content":"You interview."},
		{"role":"user","content":[{"type":"text","text":"Hello, "},{"type":"text","text":"I am Ada."}]},
		{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"ask_question","arguments":"{\"question\":\"Why?\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","name":"ask_question","content":"question 1 of 2"}],
		"tools":[{"type":"function","function":{"name":"ask_question","description":"Ask.","parameters":{"type":"object"}}},
		         {"type":"function","function":{"name":"end_interview","parameters":{"type":"object"}}}]}`
	resp := post(t, t.Context(), s.URL, Key, body)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	_, _ = io.Copy(io.Discard, resp.Body)

	reqs := s.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	want := []Message{
		{Role: "system", Content: "You interview."},
		{Role: "user", Content: "Hello, I am Ada."},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_1", Name: "ask_question", Arguments: `{"question":"Why?"}`}}},
		{Role: "tool", ToolCallID: "call_1", Name: "ask_question", Content: "question 1 of 2"},
	}
	if r.Model != "gpt-test" || !r.Stream || r.Temperature != 0.5 || len(r.Messages) != len(want) {
		t.Fatalf("request %+v", r)
	}
	for i := range want {
		g, w := r.Messages[i], want[i]
		if g.Role != w.Role || g.Content != w.Content || g.ToolCallID != w.ToolCallID || g.Name != w.Name || !slices.Equal(g.ToolCalls, w.ToolCalls) {
			t.Errorf("message %d = %+v, want %+v", i, g, w)
		}
	}
	if got := r.ToolNames(); !slices.Equal(got, []string{"ask_question", "end_interview"}) {
		t.Errorf("tools %q", got)
	}
	if r.Tools[0].Description != "Ask." || string(r.Tools[0].Parameters) != `{"type":"object"}` {
		t.Errorf("tool 0 = %+v", r.Tools[0])
	}
	if !json.Valid(r.Body) {
		t.Errorf("body not kept: %q", r.Body)
	}
}

func TestChatFunc(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptChat(Reply{Text: "scripted first"})
	s.ChatFunc(func(req Request) Reply {
		last := req.Messages[len(req.Messages)-1]
		// The function may use the server (it runs outside the lock).
		return Reply{Text: "echo: " + last.Content + " #" + string(rune('0'+len(s.ChatRequests())))}
	})
	var got []string
	for _, msg := range []string{"one", "two", "three"} {
		body := strings.Replace(simpleBody, `"hi"`, `"`+msg+`"`, 1)
		resp := post(t, t.Context(), s.URL, Key, body)
		payloads, err := events(t, resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range decodeChunks(t, payloads) {
			if c.Choices[0].Delta.Content != nil {
				text += *c.Choices[0].Delta.Content
			}
		}
		got = append(got, text)
	}
	want := []string{"scripted first", "echo: two #2", "echo: three #3"}
	if !slices.Equal(got, want) {
		t.Errorf("replies %q, want %q", got, want)
	}
	if n := s.ChatRepliesLeft(); n != 0 {
		t.Errorf("%d replies left", n)
	}
}

func TestChatRaw(t *testing.T) {
	s := New()
	defer s.Close()
	raw := []string{`{"choices":[{"index":0,"delta":{"content":"x"}}]}`, `{"choices":[],"usage":{"total_tokens":3}}`}
	s.ScriptChat(Reply{Raw: raw})
	resp := post(t, t.Context(), s.URL, Key, simpleBody)
	payloads, err := events(t, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(raw), "[DONE]"); !slices.Equal(payloads, want) {
		t.Errorf("events %q, want %q", payloads, want)
	}
}

func TestChatDropAfter(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptChat(Reply{Text: "abcdefghijklmnop", DropAfter: 3})
	resp := post(t, t.Context(), s.URL, Key, simpleBody)
	payloads, err := events(t, resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error %v, want unexpected EOF", err)
	}
	if len(payloads) != 3 {
		t.Errorf("%d events before the cut, want 3", len(payloads))
	}
}

func TestChatStreamEndsWhenClientLeaves(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
	}{
		{name: "long delay", reply: Reply{Text: "slow text that never finishes", Delay: time.Hour}},
		{name: "stalled", reply: Reply{Text: "stalled text", StallAfter: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			s.ScriptChat(tt.reply)
			ctx, cancel := context.WithCancel(t.Context())
			resp := post(t, ctx, s.URL, Key, simpleBody)
			br := bufio.NewReader(resp.Body)
			if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, `"role":"assistant"`) {
				t.Fatalf("first event %q, %v", line, err)
			}
			cancel()
			start := time.Now()
			s.Close() // waits for the handler, which must notice the client left
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("handler kept streaming %s after the client left", d)
			}
		})
	}
}

func TestChatStructuredOutput(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptChat(Reply{Text: "not json"}, Reply{JSON: map[string]any{"confidence": "high"}})
	const body = `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}],` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,` +
		`"schema":{"type":"object","additionalProperties":false,"properties":{"confidence":{"type":"string","enum":["high","low"]}},"required":["confidence"]}}}}`
	var got []string
	for range 2 {
		payloads, err := events(t, post(t, t.Context(), s.URL, Key, body).Body)
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range decodeChunks(t, payloads) {
			if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil {
				text += *c.Choices[0].Delta.Content
			}
		}
		got = append(got, text)
	}
	if want := []string{"not json", `{"confidence":"high"}`}; !slices.Equal(got, want) {
		t.Errorf("contents %q, want %q", got, want)
	}
	reqs := s.ChatRequests()
	f := reqs[0].Format
	if f == nil || f.Type != "json_schema" || f.Name != "answer" || !f.Strict || !json.Valid(f.Schema) || reqs[1].SchemaName() != "answer" {
		t.Errorf("format %+v", f)
	}
}
