package openai

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/viva-interviews/viva/agent/llm"
)

// accumulator assembles a streamed completion: the text, and the tool calls
// whose id and name come in the first delta of an index and whose arguments
// come in fragments over many chunks, several indices interleaved.
type accumulator struct {
	text       strings.Builder
	calls      []*partialCall       // in order of first appearance
	byIndex    map[int]*partialCall // the latest call seen at each index
	finish     string
	firstToken time.Duration
}

// partialCall is a tool call being assembled.
type partialCall struct {
	index int
	seq   int // order of first appearance, to keep sorting stable
	id    string
	name  string
	args  strings.Builder
}

// add folds one chunk in. It returns the chunk's text and whether the chunk
// carried any token (text or tool call). Chunks without choices (usage
// chunks) carry nothing.
func (a *accumulator) add(chunk goopenai.ChatCompletionStreamResponse) (text string, token bool) {
	var b strings.Builder
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // only one choice is requested
		}
		if ch.Delta.Content != "" {
			b.WriteString(ch.Delta.Content)
			token = true
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.toolDelta(tc)
			token = true
		}
		if ch.FinishReason != "" {
			a.finish = string(ch.FinishReason)
		}
	}
	a.text.WriteString(b.String())
	return b.String(), token
}

// toolDelta folds one tool-call fragment in. A fragment with an index goes
// to the call at that index, unless it carries a different id than the call
// there (servers that number every call 0). A fragment without an index (some
// OpenAI-compatible servers omit it) continues the last call, unless it
// visibly starts a new one: a different id, or a name after the last call's
// arguments already form complete JSON.
func (a *accumulator) toolDelta(tc goopenai.ToolCall) {
	if a.byIndex == nil {
		a.byIndex = map[int]*partialCall{}
	}
	var c *partialCall
	if tc.Index != nil {
		c = a.byIndex[*tc.Index]
		if c == nil || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
			c = a.newCall(*tc.Index)
		}
	} else {
		if n := len(a.calls); n > 0 {
			c = a.calls[n-1]
		}
		switch {
		case c == nil:
			c = a.newCall(0)
		case tc.ID != "" && c.id != "" && tc.ID != c.id,
			tc.ID == "" && tc.Function.Name != "" && c.name != "" && json.Valid([]byte(c.args.String())):
			c = a.newCall(c.index + 1)
		}
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
}

func (a *accumulator) newCall(index int) *partialCall {
	c := &partialCall{index: index, seq: len(a.calls)}
	a.calls = append(a.calls, c)
	a.byIndex[index] = c
	return c
}

// response is the completion so far: calls in index order, each with an id
// (made up when the server sent none) and arguments that are at least "{}".
func (a *accumulator) response() llm.Response {
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *partialCall) int {
		return cmp.Or(cmp.Compare(x.index, y.index), cmp.Compare(x.seq, y.seq))
	})
	var out []llm.ToolCall
	for _, c := range calls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%016x", rand.Uint64())
		}
		out = append(out, llm.ToolCall{ID: id, Name: c.name, Arguments: arguments(c.args.String())})
	}
	return llm.Response{
		Text:         a.text.String(),
		ToolCalls:    out,
		FinishReason: a.finish,
		FirstToken:   a.firstToken,
	}
}
