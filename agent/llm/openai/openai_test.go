package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

const testModel = "gpt-test"

// sleeps records the waits a client asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d)
}

// newClient returns a client of the fake whose waits are recorded, not slept.
func newClient(t *testing.T, srv *fakeopenai.Server, edit func(*Options)) (*Client, *sleeps) {
	t.Helper()
	opts := Options{APIKey: fakeopenai.Key, BaseURL: srv.URL, Model: testModel}
	if edit != nil {
		edit(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := &sleeps{}
	c.sleep = rec.sleep
	return c, rec
}

var userHello = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "Hello"}}}

// collect runs Complete and gathers the deltas.
func collect(ctx context.Context, c *Client, req llm.Request) ([]string, llm.Response, error) {
	var deltas []string
	resp, err := c.Complete(ctx, req, func(s string) { deltas = append(deltas, s) })
	return deltas, resp, err
}

func TestCompleteStreamsText(t *testing.T) {
	const text = "Hello Ada, welcome to your interview. Shall we begin?"
	tests := []struct {
		chunk      int
		wantDeltas int
	}{
		{chunk: 1, wantDeltas: len(text)},
		{chunk: 4, wantDeltas: (len(text) + 3) / 4},
		{chunk: 20, wantDeltas: 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("chunk ", tt.chunk), func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.ScriptChat(fakeopenai.Reply{Text: text, Chunk: tt.chunk})
			c, _ := newClient(t, srv, nil)

			deltas, resp, err := collect(t.Context(), c, userHello)
			if err != nil {
				t.Fatal(err)
			}
			if len(deltas) != tt.wantDeltas || strings.Join(deltas, "") != text {
				t.Errorf("deltas %q (%d), want %d pieces of %q", deltas, len(deltas), tt.wantDeltas, text)
			}
			for _, d := range deltas {
				if len(d) > tt.chunk {
					t.Errorf("delta %q longer than a chunk: pieces were merged", d)
				}
			}
			if resp.Text != text || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
				t.Errorf("response %+v", resp)
			}
			if resp.FirstToken <= 0 {
				t.Errorf("FirstToken %v, want > 0", resp.FirstToken)
			}
		})
	}
}

func TestCompleteToolCalls(t *testing.T) {
	tests := []struct {
		name     string
		reply    fakeopenai.Reply
		wantText string
		want     []llm.ToolCall
	}{
		{
			name: "one call in many chunks",
			reply: fakeopenai.Reply{Chunk: 3, ToolCalls: []fakeopenai.ToolCall{
				{ID: "call_q1", Name: "ask_question", Arguments: `{"question":"What did you build last year?"}`},
			}},
			want: []llm.ToolCall{{ID: "call_q1", Name: "ask_question", Arguments: `{"question":"What did you build last year?"}`}},
		},
		{
			name: "two parallel calls interleaved after text",
			reply: fakeopenai.Reply{Text: "Thanks, that helps.", Chunk: 2, ToolCalls: []fakeopenai.ToolCall{
				{ID: "call_a", Name: "assess_response", Arguments: `{"depth_score":4,"key_points":["led a migration","measured latency"]}`},
				{ID: "call_b", Name: "transition_stage", Arguments: `{"reason":"experience covered"}`},
			}},
			wantText: "Thanks, that helps.",
			want: []llm.ToolCall{
				{ID: "call_a", Name: "assess_response", Arguments: `{"depth_score":4,"key_points":["led a migration","measured latency"]}`},
				{ID: "call_b", Name: "transition_stage", Arguments: `{"reason":"experience covered"}`},
			},
		},
		{
			name: "three calls",
			reply: fakeopenai.Reply{Chunk: 5, ToolCalls: []fakeopenai.ToolCall{
				{ID: "c0", Name: "a", Arguments: `{"x":"0123456789"}`},
				{ID: "c1", Name: "b", Arguments: `{}`},
				{ID: "c2", Name: "c", Arguments: `{"y":[1,2,3,4,5,6]}`},
			}},
			want: []llm.ToolCall{
				{ID: "c0", Name: "a", Arguments: `{"x":"0123456789"}`},
				{ID: "c1", Name: "b", Arguments: `{}`},
				{ID: "c2", Name: "c", Arguments: `{"y":[1,2,3,4,5,6]}`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.ScriptChat(tt.reply)
			c, _ := newClient(t, srv, nil)

			deltas, resp, err := collect(t.Context(), c, userHello)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(deltas, "") != tt.wantText || resp.Text != tt.wantText {
				t.Errorf("text %q / deltas %q, want %q", resp.Text, deltas, tt.wantText)
			}
			if !slices.Equal(resp.ToolCalls, tt.want) {
				t.Errorf("calls\n got %+v\nwant %+v", resp.ToolCalls, tt.want)
			}
			for _, call := range resp.ToolCalls {
				if !json.Valid([]byte(call.Arguments)) {
					t.Errorf("arguments of %s not JSON: %q", call.Name, call.Arguments)
				}
			}
			if resp.FinishReason != "tool_calls" || resp.FirstToken <= 0 {
				t.Errorf("finish %q, first token %v", resp.FinishReason, resp.FirstToken)
			}
		})
	}
}

// TestCompleteServerVariants feeds chunks as OpenAI-compatible servers send
// them when they differ from OpenAI.
func TestCompleteServerVariants(t *testing.T) {
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	tests := []struct {
		name      string
		raw       []string
		wantText  string
		want      []llm.ToolCall
		generated []int // calls whose id must be made up
	}{
		{
			name: "no index, one call in fragments",
			raw: []string{
				chunk(`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ask_question","arguments":""}}]}`, ""),
				chunk(`{"tool_calls":[{"function":{"arguments":"{\"question\":"}}]}`, ""),
				chunk(`{"tool_calls":[{"function":{"arguments":"\"Why?\"}"}}]}`, ""),
				chunk(`{}`, "tool_calls"),
			},
			want: []llm.ToolCall{{ID: "c1", Name: "ask_question", Arguments: `{"question":"Why?"}`}},
		},
		{
			name: "no index, no ids, whole calls one per chunk",
			raw: []string{
				chunk(`{"role":"assistant","content":"","tool_calls":[{"function":{"name":"assess_response","arguments":"{\"depth_score\":3}"}}]}`, ""),
				chunk(`{"tool_calls":[{"function":{"name":"ask_question","arguments":"{\"question\":\"Next?\"}"}}]}`, ""),
				chunk(`{}`, "stop"),
			},
			want: []llm.ToolCall{
				{Name: "assess_response", Arguments: `{"depth_score":3}`},
				{Name: "ask_question", Arguments: `{"question":"Next?"}`},
			},
			generated: []int{0, 1},
		},
		{
			name: "no index, two calls in one delta",
			raw: []string{
				chunk(`{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{\"k\":1}"}}]}`, "tool_calls"),
			},
			want: []llm.ToolCall{{ID: "a", Name: "f", Arguments: `{}`}, {ID: "b", Name: "g", Arguments: `{"k":1}`}},
		},
		{
			name: "every call numbered 0, distinct ids",
			raw: []string{
				chunk(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"n\":"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"g","arguments":"{\"n\":2}"}}]}`, ""),
				chunk(`{}`, "tool_calls"),
			},
			want: []llm.ToolCall{{ID: "a", Name: "f", Arguments: `{"n":1}`}, {ID: "b", Name: "g", Arguments: `{"n":2}`}},
		},
		{
			name: "indices out of order, id missing, empty arguments",
			raw: []string{
				chunk(`{"tool_calls":[{"index":1,"id":"second","type":"function","function":{"name":"g","arguments":""}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"name":"f","arguments":""}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"k\":true}"}}]}`, ""),
				chunk(`{}`, "tool_calls"),
			},
			want:      []llm.ToolCall{{Name: "f", Arguments: `{}`}, {ID: "second", Name: "g", Arguments: `{"k":true}`}},
			generated: []int{0},
		},
		{
			name: "usage chunk without choices, keep-alive chunk without delta",
			raw: []string{
				chunk(`{"role":"assistant","content":"Hi "}`, ""),
				`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}`,
				chunk(`{"content":"there."}`, ""),
				chunk(`{}`, "stop"),
				`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`,
			},
			wantText: "Hi there.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.ScriptChat(fakeopenai.Reply{Raw: tt.raw})
			c, _ := newClient(t, srv, nil)

			deltas, resp, err := collect(t.Context(), c, userHello)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.wantText || strings.Join(deltas, "") != tt.wantText {
				t.Errorf("text %q, deltas %q, want %q", resp.Text, deltas, tt.wantText)
			}
			if len(resp.ToolCalls) != len(tt.want) {
				t.Fatalf("calls %+v, want %+v", resp.ToolCalls, tt.want)
			}
			ids := map[string]bool{}
			for i, got := range resp.ToolCalls {
				want := tt.want[i]
				if slices.Contains(tt.generated, i) {
					if !strings.HasPrefix(got.ID, "call_") {
						t.Errorf("call %d: made-up id %q", i, got.ID)
					}
					want.ID = got.ID
				}
				if got != want {
					t.Errorf("call %d = %+v, want %+v", i, got, want)
				}
				if ids[got.ID] {
					t.Errorf("duplicate id %q", got.ID)
				}
				ids[got.ID] = true
			}
		})
	}
}

func TestCompleteRetries(t *testing.T) {
	const text = "Tell me about a project you are proud of."
	base := DefaultBackoff
	tests := []struct {
		name         string
		script       []fakeopenai.Reply
		opts         func(*Options)
		wantRequests int
		wantSleeps   [][2]time.Duration // inclusive bounds of every wait
		wantErr      string             // substring; empty means success
		wantText     string             // the text delivered (and returned)
	}{
		{
			name:         "429 then success",
			script:       []fakeopenai.Reply{{Status: 429}, {Text: text}},
			wantRequests: 2,
			wantSleeps:   [][2]time.Duration{{base / 2, base}},
			wantText:     text,
		},
		{
			name:         "500 on every attempt",
			script:       []fakeopenai.Reply{{Status: 500}, {Status: 500}, {Status: 502}, {Status: 500, Text: "boom"}, {Text: "never"}},
			wantRequests: DefaultMaxRetries + 1,
			wantSleeps:   [][2]time.Duration{{base / 2, base}, {base, 2 * base}, {2 * base, 4 * base}},
			wantErr:      "failed after 4 attempt(s) (HTTP 500: boom)",
		},
		{
			name:         "backoff capped",
			script:       []fakeopenai.Reply{{Status: 503}, {Status: 503}, {Text: text}},
			opts:         func(o *Options) { o.Backoff = time.Second; o.MaxBackoff = 1500 * time.Millisecond },
			wantRequests: 3,
			wantSleeps:   [][2]time.Duration{{500 * time.Millisecond, time.Second}, {750 * time.Millisecond, 1500 * time.Millisecond}},
			wantText:     text,
		},
		{
			name:         "Retry-After honoured",
			script:       []fakeopenai.Reply{{Status: 429, RetryAfter: 7 * time.Second}, {Text: text}},
			wantRequests: 2,
			wantSleeps:   [][2]time.Duration{{7 * time.Second, 7 * time.Second}},
			wantText:     text,
		},
		{
			name:         "Retry-After beyond the cap gives up at once",
			script:       []fakeopenai.Reply{{Status: 429, RetryAfter: 2 * time.Minute}, {Text: text}},
			wantRequests: 1,
			wantErr:      "asks to retry after 2m0s",
		},
		{
			name:         "retries disabled",
			script:       []fakeopenai.Reply{{Status: 500}, {Text: text}},
			opts:         func(o *Options) { o.MaxRetries = -1 },
			wantRequests: 1,
			wantErr:      "failed after 1 attempt(s) (HTTP 500",
		},
		{
			name:         "connection cut before any text is retried",
			script:       []fakeopenai.Reply{{Text: text, DropAfter: 1}, {Text: text}},
			wantRequests: 2,
			wantSleeps:   [][2]time.Duration{{base / 2, base}},
			wantText:     text,
		},
		{
			name:         "connection cut during tool calls is retried",
			script:       []fakeopenai.Reply{{ToolCalls: []fakeopenai.ToolCall{{Name: "f", Arguments: `{"a":"bcdefgh"}`}}, DropAfter: 3}, {Text: text}},
			wantRequests: 2,
			wantSleeps:   [][2]time.Duration{{base / 2, base}},
			wantText:     text,
		},
		{
			name:         "connection cut after text is not retried",
			script:       []fakeopenai.Reply{{Text: text, Chunk: 5, DropAfter: 3}, {Text: text}},
			wantRequests: 1,
			wantErr:      "not retried, to avoid repeating it",
			wantText:     text[:10],
		},
		{
			name: "server error event before text is retried",
			script: []fakeopenai.Reply{
				{Raw: []string{`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`}},
				{Text: text},
			},
			wantRequests: 2,
			wantSleeps:   [][2]time.Duration{{base / 2, base}},
			wantText:     text,
		},
		{
			name:         "other error event is not retried",
			script:       []fakeopenai.Reply{{Raw: []string{`{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`}}},
			wantRequests: 1,
			wantErr:      "reported an error mid-stream after 1 attempt(s): context length exceeded",
		},
		{
			name:         "400 not retried, server message kept",
			script:       []fakeopenai.Reply{{Status: 400, Text: "Invalid schema for function 'ask_question'"}},
			wantRequests: 1,
			wantErr:      "request rejected (HTTP 400): Invalid schema for function 'ask_question'",
		},
		{
			name:         "404 names the model",
			script:       []fakeopenai.Reply{{Status: 404, Text: "The model `gpt-test` does not exist"}},
			wantRequests: 1,
			wantErr:      `check the model name "gpt-test"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.ScriptChat(tt.script...)
			c, rec := newClient(t, srv, tt.opts)

			deltas, resp, err := collect(t.Context(), c, userHello)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if errors.Is(err, llm.ErrAuth) {
				t.Errorf("error %v wraps ErrAuth", err)
			}
			if got := len(srv.ChatRequests()); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
			if got := strings.Join(deltas, ""); got != tt.wantText || resp.Text != tt.wantText {
				t.Errorf("delivered %q, returned %q, want %q once", got, resp.Text, tt.wantText)
			}
			got := rec.all()
			if len(got) != len(tt.wantSleeps) {
				t.Fatalf("waits %v, want %d waits", got, len(tt.wantSleeps))
			}
			for i, d := range got {
				if d < tt.wantSleeps[i][0] || d > tt.wantSleeps[i][1] {
					t.Errorf("wait %d = %v, want in %v", i, d, tt.wantSleeps[i])
				}
			}
		})
	}
}

func TestCompleteAuthErrors(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		script []fakeopenai.Reply
		status string
	}{
		{name: "wrong key", key: "sk-wrong-key-123", status: "HTTP 401"},
		{name: "forbidden", key: fakeopenai.Key, script: []fakeopenai.Reply{{Status: 403, Text: "project has no access"}}, status: "HTTP 403: project has no access"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.ScriptChat(tt.script...)
			c, rec := newClient(t, srv, func(o *Options) { o.APIKey = tt.key })

			_, _, err := collect(t.Context(), c, userHello)
			if !errors.Is(err, llm.ErrAuth) {
				t.Fatalf("error %v does not wrap llm.ErrAuth", err)
			}
			msg := err.Error()
			for _, want := range []string{"rejected the API key", "check OPENAI_API_KEY", "OPENAI_BASE_URL", tt.status} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, tt.key) {
				t.Errorf("message %q contains the key", msg)
			}
			if n := len(rec.all()); n != 0 {
				t.Errorf("%d retries of a rejected key", n)
			}
		})
	}
}

func TestCompleteCancel(t *testing.T) {
	tests := []struct {
		name  string
		reply fakeopenai.Reply
		// cancelInDelta cancels from onDelta; otherwise another goroutine
		// cancels while the client waits for the stalled stream.
		cancelInDelta bool
		buffered      bool // the response body is read whole before the client sees it
	}{
		{
			name:          "cancelled from the delta callback",
			reply:         fakeopenai.Reply{Text: "First words, then nothing more.", Chunk: 6, StallAfter: 2},
			cancelInDelta: true,
		},
		{
			name:  "cancelled while waiting for the next chunk",
			reply: fakeopenai.Reply{Text: "First words, then nothing more.", Chunk: 6, StallAfter: 2},
		},
		{
			// The whole stream has arrived (a buffering proxy); none of the
			// rest may be delivered.
			name:          "cancelled with the rest of the stream received",
			reply:         fakeopenai.Reply{Text: "First " + strings.Repeat("stale text ", 20), Chunk: 6},
			cancelInDelta: true,
			buffered:      true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New()
			defer srv.Close()
			srv.ScriptChat(tt.reply)
			c, _ := newClient(t, srv, func(o *Options) {
				if tt.buffered {
					o.HTTPClient = &http.Client{Transport: bufferingTransport{}}
				}
			})

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			first := make(chan struct{})
			var once sync.Once
			var deltas []string
			done := make(chan error, 1)
			var resp llm.Response
			go func() {
				var err error
				resp, err = c.Complete(ctx, userHello, func(s string) {
					deltas = append(deltas, s)
					if tt.cancelInDelta {
						cancel()
					}
					once.Do(func() { close(first) })
				})
				done <- err
			}()
			<-first
			cancel()
			awaitCanceled(t, done, "Complete did not return after cancellation")
			if !slices.Equal(deltas, []string{"First "}) || resp.Text != "First " {
				t.Errorf("deltas %q, text %q, want only the first piece", deltas, resp.Text)
			}
		})
	}
}

// cancelWait bounds the wait for a cancelled call to return; a test that
// hits it has failed, it is never slept on.
const cancelWait = 10 * time.Second

// awaitCanceled fails the test unless done yields context.Canceled within
// cancelWait; stuck says what went wrong when nothing comes.
func awaitCanceled(t *testing.T, done <-chan error, stuck string) {
	t.Helper()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(cancelWait):
		t.Fatal(stuck)
	}
}

// bufferingTransport reads each response body whole before returning it, as
// a buffering proxy does.
type bufferingTransport struct{}

func (bufferingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func TestCompleteCancelDuringBackoff(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	failed := make(chan struct{}, 1)
	srv.ChatFunc(func(fakeopenai.Request) fakeopenai.Reply {
		failed <- struct{}{}
		return fakeopenai.Reply{Status: 503}
	})
	// The real timer-based wait: an hour, unless cancelled.
	c, err := New(Options{APIKey: fakeopenai.Key, BaseURL: srv.URL, Backoff: time.Hour, MaxBackoff: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(ctx, userHello, nil)
		done <- err
	}()
	<-failed
	cancel()
	awaitCanceled(t, done, "backoff ignored cancellation")
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCompleteSendsConversation(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptChat(fakeopenai.Reply{Text: "ok"}, fakeopenai.Reply{Text: "ok"})
	c, _ := newClient(t, srv, func(o *Options) { o.Temperature = 0.25 })

	schema := json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`)
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are the interviewer."},
			{Role: llm.RoleUser, Content: "I built a payments service."},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "assess_response", Arguments: `{"depth_score":4}`},
				{ID: "call_2", Name: "end_interview", Arguments: ""},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "assess_response", Content: "stored; go deeper"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Name: "end_interview", Content: ""},
			{Role: llm.RoleAssistant, Content: "Tell me more."},
			{Role: llm.RoleUser, Content: "Sure."},
		},
		Tools: []llm.Tool{
			{Name: "ask_question", Description: "Ask one question.", Parameters: schema},
			{Name: "end_interview", Description: "End when asked."},
		},
	}
	if _, _, err := collect(t.Context(), c, req); err != nil {
		t.Fatal(err) // the fake rejects conversations OpenAI would reject
	}
	req.Temperature = 0.75
	if _, _, err := collect(t.Context(), c, req); err != nil {
		t.Fatal(err)
	}

	reqs := srv.ChatRequests()
	got := reqs[0]
	want := []fakeopenai.Message{
		{Role: "system", Content: "You are the interviewer."},
		{Role: "user", Content: "I built a payments service."},
		{Role: "assistant", ToolCalls: []fakeopenai.ToolCall{
			{ID: "call_1", Name: "assess_response", Arguments: `{"depth_score":4}`},
			{ID: "call_2", Name: "end_interview", Arguments: `{}`},
		}},
		{Role: "tool", ToolCallID: "call_1", Name: "assess_response", Content: "stored; go deeper"},
		{Role: "tool", ToolCallID: "call_2", Name: "end_interview", Content: emptyToolResult},
		{Role: "assistant", Content: "Tell me more."},
		{Role: "user", Content: "Sure."},
	}
	if got.Model != testModel || !got.Stream || got.Temperature != 0.25 || reqs[1].Temperature != 0.75 {
		t.Errorf("model %q stream %t temperatures %v, %v", got.Model, got.Stream, got.Temperature, reqs[1].Temperature)
	}
	if len(got.Messages) != len(want) {
		t.Fatalf("messages %+v", got.Messages)
	}
	for i := range want {
		g, w := got.Messages[i], want[i]
		if g.Role != w.Role || g.Content != w.Content || g.ToolCallID != w.ToolCallID || g.Name != w.Name || !slices.Equal(g.ToolCalls, w.ToolCalls) {
			t.Errorf("message %d = %+v, want %+v", i, g, w)
		}
	}
	if names := got.ToolNames(); !slices.Equal(names, []string{"ask_question", "end_interview"}) {
		t.Errorf("tools %q", names)
	}
	if string(got.Tools[0].Parameters) != string(schema) || got.Tools[0].Description != "Ask one question." ||
		string(got.Tools[1].Parameters) != string(emptySchema) {
		t.Errorf("tool schemas %s / %s", got.Tools[0].Parameters, got.Tools[1].Parameters)
	}

	// The assistant message with calls carries no content key at all, and
	// parallel_tool_calls is left to the server.
	var raw struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(got.Body, &raw); err != nil {
		t.Fatal(err)
	}
	if c, ok := raw.Messages[2]["content"]; ok {
		t.Errorf("assistant tool-call message has content %s", c)
	}
	if bytes.Contains(got.Body, []byte("parallel_tool_calls")) {
		t.Errorf("request sets parallel_tool_calls: %s", got.Body)
	}
}

func TestNew(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	tests := []struct {
		name     string
		opts     Options
		wantErr  string
		wantAuth bool
		wantBase string
	}{
		{name: "missing key", opts: Options{}, wantErr: "OPENAI_API_KEY is not set: set it, or use --llm scripted for the offline interviewer", wantAuth: true},
		{name: "blank key", opts: Options{APIKey: "  "}, wantErr: "OPENAI_API_KEY is not set", wantAuth: true},
		{name: "default base", opts: Options{APIKey: "k"}, wantBase: DefaultBaseURL},
		{name: "trailing slash", opts: Options{APIKey: "k", BaseURL: "http://localhost:11434/v1/"}, wantBase: "http://localhost:11434/v1"},
		{name: "not a URL", opts: Options{APIKey: "k", BaseURL: "localhost:11434"}, wantErr: "OPENAI_BASE_URL \"localhost:11434\" is not an http(s) URL"},
		{name: "no host", opts: Options{APIKey: "k", BaseURL: "http:///v1"}, wantErr: "is not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if errors.Is(err, llm.ErrAuth) != tt.wantAuth {
					t.Errorf("errors.Is(ErrAuth) = %t", !tt.wantAuth)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.baseURL != tt.wantBase || c.Model() != DefaultModel || c.maxRetries != DefaultMaxRetries || c.backoff != DefaultBackoff {
				t.Errorf("client base %q model %q retries %d backoff %v", c.baseURL, c.Model(), c.maxRetries, c.backoff)
			}
		})
	}

	// A base URL with a trailing slash reaches the same endpoint.
	for _, base := range []string{srv.URL, srv.URL + "/"} {
		srv.ScriptChat(fakeopenai.Reply{Text: "ok"})
		c, _ := newClient(t, srv, func(o *Options) { o.BaseURL = base })
		if _, resp, err := collect(t.Context(), c, userHello); err != nil || resp.Text != "ok" {
			t.Errorf("base %q: %q, %v", base, resp.Text, err)
		}
	}
}

func TestKeyNeverLogged(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptChat(fakeopenai.Reply{Status: 500}, fakeopenai.Reply{Text: "ok"})
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	opts := Options{APIKey: fakeopenai.Key, BaseURL: srv.URL, Logger: logger}
	c, rec := newClient(t, srv, func(o *Options) { o.Logger = logger })
	if _, _, err := collect(t.Context(), c, userHello); err != nil {
		t.Fatal(err)
	}
	if len(rec.all()) != 1 || !strings.Contains(buf.String(), "retrying") {
		t.Fatalf("no retry logged: %q", buf.String())
	}
	logger.Info("options", "opts", opts)
	out := buf.String() + fmt.Sprint(opts) + fmt.Sprintf("%v %+v", opts, opts)
	if strings.Contains(out, fakeopenai.Key) {
		t.Errorf("key in output: %s", out)
	}
	if !strings.Contains(buf.String(), "api_key_set=true") {
		t.Errorf("options not logged as a group: %s", buf.String())
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{name: "none", want: 0},
		{name: "seconds", header: map[string]string{"Retry-After": "7"}, want: 7 * time.Second},
		{name: "fractional seconds", header: map[string]string{"Retry-After": "1.5"}, want: 1500 * time.Millisecond},
		{name: "milliseconds win", header: map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, want: 250 * time.Millisecond},
		{name: "http date", header: map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, want: 90 * time.Second},
		{name: "date in the past", header: map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, want: 0},
		{name: "negative", header: map[string]string{"Retry-After": "-3"}, want: 0},
		{name: "garbage", header: map[string]string{"Retry-After": "soon"}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCompleteUnreachableServer(t *testing.T) {
	srv := fakeopenai.New()
	srv.Close() // nothing listens at its address any more
	c, rec := newClient(t, srv, nil)
	_, _, err := collect(t.Context(), c, userHello)
	if err == nil || !strings.Contains(err.Error(), "no answer from "+srv.URL+" after 4 attempt(s): check OPENAI_BASE_URL") {
		t.Fatalf("error %v", err)
	}
	if n := len(rec.all()); n != DefaultMaxRetries {
		t.Errorf("%d waits, want %d", n, DefaultMaxRetries)
	}
}

func TestCompleteStructuredOutput(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	srv.ScriptChat(fakeopenai.Reply{JSON: map[string]string{"answer": "yes"}})
	c, _ := newClient(t, srv, nil)
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"answer":{"type":"string"}},"required":["answer"]}`)
	req := userHello
	req.Format = &llm.Format{Name: "verdict", Schema: schema}
	_, resp, err := collect(t.Context(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"answer":"yes"}` {
		t.Errorf("text %q", resp.Text)
	}
	got := srv.ChatRequests()[0].Format
	if got == nil || got.Type != "json_schema" || got.Name != "verdict" || !got.Strict || string(got.Schema) != string(schema) {
		t.Errorf("response_format %+v", got)
	}
	if len(srv.ChatRequests()[0].Tools) != 0 {
		t.Error("structured request offered tools")
	}

	// Refused before anything is sent.
	for name, f := range map[string]*llm.Format{
		"no name":    {Schema: schema},
		"not object": {Name: "x", Schema: json.RawMessage(`[1]`)},
	} {
		r := userHello
		r.Format = f
		if _, _, err := collect(t.Context(), c, r); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	r := userHello
	r.Format = &llm.Format{Name: "x", Schema: schema}
	r.Tools = []llm.Tool{{Name: "t"}}
	if _, _, err := collect(t.Context(), c, r); err == nil || !strings.Contains(err.Error(), "tools") {
		t.Errorf("format with tools: %v", err)
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestTextDoneWhenToolCallsBegin: the caller hears that the model's text is
// whole when its tool calls begin, once and after the text, so the last
// sentence can be said while the calls stream; a reply of text alone or
// of calls alone never calls it.
func TestTextDoneWhenToolCallsBegin(t *testing.T) {
	srv := fakeopenai.New()
	defer srv.Close()
	c, _ := newClient(t, srv, nil)
	call := fakeopenai.ToolCall{Name: "ask_question", Arguments: `{"question":"And how did you measure it?"}`}
	for _, tc := range []struct {
		name  string
		reply fakeopenai.Reply
		want  string
	}{
		{"text then calls", fakeopenai.Reply{Text: "Thank you.", ToolCalls: []fakeopenai.ToolCall{call}, Chunk: 3}, "Thank you.|done"},
		{"text alone", fakeopenai.Reply{Text: "Thank you."}, "Thank you."},
		{"calls alone", fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{call}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.ScriptChat(tc.reply)
			var events strings.Builder
			_, err := c.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
				TextDone: func() { events.WriteString("|done") }}, func(s string) { events.WriteString(s) })
			if err != nil {
				t.Fatal(err)
			}
			if got := events.String(); got != tc.want {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}
