package fakeopenai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// maxChatBodyBytes bounds a chat request body, as a real server would.
const maxChatBodyBytes = 8 << 20

// defaultChunk is the number of characters per streamed text or argument
// piece when a Reply does not say.
const defaultChunk = 4

// ToolCall is one function call the scripted assistant makes, or one call
// found in a received assistant message.
type ToolCall struct {
	// ID is the call id ("call_…"). Empty in a Reply means the server makes
	// one up, as OpenAI always sends one.
	ID string
	// Name is the function's name.
	Name string
	// Arguments is the JSON object text of the arguments.
	Arguments string
}

// Reply is one scripted chat completion: the assistant text, the tool calls,
// or an HTTP error, and how to stream it.
type Reply struct {
	// Text is the assistant text, streamed in pieces of Chunk characters.
	// When Status is set, Text is the error message instead.
	Text string
	// JSON, when set, is marshalled and sent as the text: the content of a
	// structured-output answer (a request with a json_schema
	// response_format). A malformed answer is scripted as Text instead.
	JSON any
	// ToolCalls are the calls to stream after the text; several calls are
	// streamed interleaved by index, like parallel calls.
	ToolCalls []ToolCall
	// Status, when non-zero, makes the server answer with this HTTP status
	// and an OpenAI error body instead of a completion (for retry and error
	// tests).
	Status int
	// RetryAfter, with Status, is sent as a Retry-After header (whole
	// seconds, rounded up).
	RetryAfter time.Duration
	// Chunk is the number of characters per text or argument piece; zero
	// means 4.
	Chunk int
	// Delay is the pause between streamed events; zero means none. The pause
	// ends early when the client goes away.
	Delay time.Duration
	// FinishReason overrides the reported finish reason; empty means "stop",
	// or "tool_calls" when the reply has tool calls.
	FinishReason string
	// DropAfter, when positive, cuts the connection after that many events
	// (the first event carries only the assistant role), to imitate a
	// network failure mid-stream.
	DropAfter int
	// StallAfter, when positive, stops the stream after that many events
	// without ending it, until the client goes away, to imitate a hung
	// server or a client cancelling mid-stream.
	StallAfter int
	// Hang, when true, makes the server read the request and then send
	// nothing at all, not even headers, until the client goes away: a
	// request that is never answered.
	Hang bool
	// CutMidEvent, when positive, sends that many whole events, then the
	// first half of the next one, then cuts the connection: a stream broken
	// in the middle of a chunk.
	CutMidEvent int
	// EndAfter, when positive, ends the response cleanly after that many
	// events, without the finish reason and without [DONE], as a proxy does
	// when its upstream connection breaks.
	EndAfter int
	// Raw, when set, replaces the generated stream: each element is sent
	// as-is as one `data:` event, then `data: [DONE]`. It imitates servers
	// whose chunks differ from OpenAI's (no tool-call index, no ids, usage
	// chunks with no choices).
	Raw []string
}

// Request is one chat request as the server received it.
type Request struct {
	// Model is the requested model.
	Model string
	// Messages are the conversation sent, in order.
	Messages []Message
	// Tools are the function tools offered.
	Tools []Tool
	// Stream is true for a streamed (server-sent events) request.
	Stream bool
	// Temperature is the requested temperature; zero when not sent.
	Temperature float32
	// Format is the requested response_format; nil when not sent (free
	// text).
	Format *ResponseFormat
	// Body is the request body exactly as received.
	Body []byte
}

// ResponseFormat is a received response_format.
type ResponseFormat struct {
	// Type is "text", "json_object" or "json_schema".
	Type string
	// Name, Schema and Strict are the json_schema's, for that type.
	Name   string
	Schema json.RawMessage
	Strict bool
}

// SchemaName is the name of the requested JSON schema; empty when the
// request asks for free text.
func (r Request) SchemaName() string {
	if r.Format == nil {
		return ""
	}
	return r.Format.Name
}

// ToolNames lists the names of the offered tools, in order.
func (r Request) ToolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names
}

// Message is one received chat message.
type Message struct {
	// Role is system, user, assistant or tool.
	Role string
	// Content is the text; parts of an array content are concatenated.
	Content string
	// ToolCalls are the calls of an assistant message.
	ToolCalls []ToolCall
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string
	// Name is the optional name field.
	Name string
}

// Tool is one received function tool.
type Tool struct {
	// Name is the function's name.
	Name string
	// Description is the function's description.
	Description string
	// Parameters is the JSON Schema of the arguments, as received.
	Parameters json.RawMessage
}

// chatState is the scripted chat behaviour, guarded by Server.mu.
type chatState struct {
	script   []Reply
	fn       func(Request) Reply
	requests []Request
	served   int // completions served, for ids
}

// ScriptChat queues replies; each chat request takes the next one. Queued
// replies are used before the function set with ChatFunc.
func (s *Server) ScriptChat(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.script = append(s.chat.script, replies...)
}

// ChatFunc sets a function that computes the reply from the request, used
// when the script is empty. It is called outside the server's lock, so it may
// call the server's methods.
func (s *Server) ChatFunc(f func(req Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.fn = f
}

// ChatRequests returns every chat request received so far (authorised ones),
// in order of arrival.
func (s *Server) ChatRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.chat.requests))
	copy(out, s.chat.requests)
	return out
}

// ForgetChatRequests drops the chat requests received so far, so a
// long-running test (a soak) does not hold every request in memory.
func (s *Server) ForgetChatRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.requests = nil
}

// ChatRepliesLeft is the number of scripted replies not yet used.
func (s *Server) ChatRepliesLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.chat.script)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxChatBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body is too large")
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "could not read the request body: "+err.Error())
		return
	}
	req, wire, err := decodeChatRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "We could not parse the JSON body of your request. ("+err.Error()+")")
		return
	}

	s.mu.Lock()
	s.chat.requests = append(s.chat.requests, req)
	s.mu.Unlock()

	if err := validateChatRequest(wire); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}

	reply, seq, ok := s.nextReply(req)
	if !ok {
		writeError(w, http.StatusInternalServerError, "no_scripted_reply",
			"fakeopenai: no chat reply left: queue one with ScriptChat or set ChatFunc")
		return
	}
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	if reply.Status != 0 {
		writeReplyError(w, reply)
		return
	}
	if reply.JSON != nil {
		text, err := json.Marshal(reply.JSON)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "bad_scripted_reply", "fakeopenai: scripted JSON does not marshal: "+err.Error())
			return
		}
		reply.Text = string(text)
	}
	reply.ToolCalls = withIDs(reply.ToolCalls, seq)
	id := "chatcmpl-fake-" + strconv.Itoa(seq)
	if !req.Stream {
		writeCompletion(w, id, req.Model, reply)
		return
	}
	streamCompletion(w, r, id, req.Model, reply)
}

// nextReply takes the next scripted reply, or asks the chat function.
func (s *Server) nextReply(req Request) (Reply, int, bool) {
	s.mu.Lock()
	s.chat.served++
	seq := s.chat.served
	if len(s.chat.script) > 0 {
		reply := s.chat.script[0]
		s.chat.script = s.chat.script[1:]
		s.mu.Unlock()
		return reply, seq, true
	}
	fn := s.chat.fn
	s.mu.Unlock()
	if fn == nil {
		return Reply{}, seq, false
	}
	return fn(req), seq, true
}

// writeReplyError answers with the reply's HTTP error status.
func writeReplyError(w http.ResponseWriter, reply Reply) {
	if reply.RetryAfter > 0 {
		secs := int64((reply.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	code := "invalid_request_error"
	switch {
	case reply.Status == http.StatusTooManyRequests:
		code = "rate_limit_exceeded"
	case reply.Status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case reply.Status >= 500:
		code = "server_error"
	}
	msg := reply.Text
	if msg == "" {
		msg = fmt.Sprintf("scripted error: HTTP %d %s", reply.Status, http.StatusText(reply.Status))
	}
	writeError(w, reply.Status, code, msg)
}

// withIDs gives every call without an id a stable one.
func withIDs(calls []ToolCall, seq int) []ToolCall {
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_fake_%d_%d", seq, i)
		}
		out[i] = c
	}
	return out
}

// finishReason is the reason reported for a reply.
func finishReason(reply Reply) string {
	switch {
	case reply.FinishReason != "":
		return reply.FinishReason
	case len(reply.ToolCalls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

// writeCompletion answers a non-streamed request with one completion object.
func writeCompletion(w http.ResponseWriter, id, model string, reply Reply) {
	msg := wireRespMessage{Role: "assistant"}
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		text := reply.Text
		msg.Content = &text
	}
	for _, c := range reply.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{
			ID: c.ID, Type: "function",
			Function: wireFunction{Name: c.Name, Arguments: c.Arguments},
		})
	}
	resp := wireCompletion{
		ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: model,
		Choices: []wireCompletionChoice{{Index: 0, Message: msg, FinishReason: finishReason(reply)}},
		Usage:   wireUsage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// streamCompletion answers a streamed request with server-sent events in
// OpenAI's chunk format, flushing after every event.
func streamCompletion(w http.ResponseWriter, r *http.Request, id, model string, reply Reply) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)

	events := reply.Raw
	if events == nil {
		events = chunkEvents(id, model, time.Now().Unix(), reply)
	}
	for i, ev := range events {
		if i > 0 && reply.Delay > 0 && !pause(r, reply.Delay) {
			return
		}
		if reply.EndAfter > 0 && i >= reply.EndAfter {
			return
		}
		if reply.CutMidEvent > 0 && i >= reply.CutMidEvent {
			_, _ = io.WriteString(w, "data: "+ev[:len(ev)/2])
			if flusher != nil {
				flusher.Flush()
			}
			panic(http.ErrAbortHandler)
		}
		if _, err := io.WriteString(w, "data: "+ev+"\n\n"); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		if reply.StallAfter > 0 && i+1 >= reply.StallAfter {
			<-r.Context().Done()
			return
		}
		if reply.DropAfter > 0 && i+1 >= reply.DropAfter {
			// Abort the response: the client sees the connection cut
			// before the stream's end.
			panic(http.ErrAbortHandler)
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// pause waits d, or less when the client goes away; it reports whether the
// client is still there.
func pause(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// chunkEvents renders a reply as the JSON payloads of its stream: the role,
// the text in pieces, the tool calls (each call's id and name first, then its
// arguments in pieces, several calls interleaved round-robin by index), and
// the finish reason.
func chunkEvents(id, model string, created int64, reply Reply) []string {
	size := reply.Chunk
	if size <= 0 {
		size = defaultChunk
	}
	var events []string
	add := func(delta wireDelta, finish *string) {
		c := wireChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			SystemFingerprint: "fp_fake",
			Choices:           []wireChunkChoice{{Index: 0, Delta: delta, FinishReason: finish}},
		}
		b, err := json.Marshal(c)
		if err != nil {
			panic(err) // the chunk types always marshal
		}
		events = append(events, string(b))
	}

	empty := ""
	add(wireDelta{Role: "assistant", Content: &empty}, nil)
	for _, piece := range split(reply.Text, size) {
		add(wireDelta{Content: &piece}, nil)
	}

	pieces := make([][]string, len(reply.ToolCalls))
	rounds := 0
	for i, c := range reply.ToolCalls {
		pieces[i] = split(c.Arguments, size)
		rounds = max(rounds, len(pieces[i])+1)
	}
	for round := range rounds {
		for i, c := range reply.ToolCalls {
			switch {
			case round == 0:
				add(wireDelta{ToolCalls: []wireToolCall{{
					Index: new(i), ID: c.ID, Type: "function",
					Function: wireFunction{Name: c.Name, Arguments: ""},
				}}}, nil)
			case round-1 < len(pieces[i]):
				add(wireDelta{ToolCalls: []wireToolCall{{
					Index: new(i), Function: wireFunction{Arguments: pieces[i][round-1]},
				}}}, nil)
			}
		}
	}

	reason := finishReason(reply)
	add(wireDelta{}, &reason)
	return events
}

// split cuts s into pieces of at most n characters (runes).
func split(s string, n int) []string {
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}
