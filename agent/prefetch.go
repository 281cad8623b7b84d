package agent

import (
	"context"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
)

// prefetch is the first model call of a reply, started on the candidate's
// likely last words while the endpointing delay runs (preemptive
// generation). Its text is held back: nothing is said before the turn
// has really ended, and it is thrown away if the candidate goes on or the
// turn ends with other words.
type prefetch struct {
	text   string // the candidate's words it answers
	hist   int    // the length of the history it was built on
	stage  string
	cancel context.CancelFunc
	done   chan struct{}

	// set before done is closed
	deltas    []string
	resp      llm.Response
	err       error
	firstAt   time.Time // when the first delta or tool call arrived
	requested time.Time
}

// Prefetch starts the first model call of the reply to text as if the
// candidate's turn ended now, and keeps its answer until Respond is
// called with the same words (then the reply starts with it) or the
// candidate goes on (CancelPrefetch). It does nothing unless
// Options.Preemptive is set, while a reply is being generated, or when a
// stage change is waiting to be acknowledged. The call changes nothing:
// its tool calls run only if it is used.
func (c *Conductor) Prefetch(ctx context.Context, text string) {
	text = strings.TrimSpace(text)
	if !c.preemptive || text == "" || c.machine.Done() || c.machine.PendingAck() {
		return
	}
	c.mu.Lock()
	busy := false
	if cur := c.current; cur != nil {
		select {
		case <-cur.generated:
		default:
			busy = true
		}
	}
	hist := len(c.history)
	c.mu.Unlock()
	if busy {
		return
	}
	c.preMu.Lock()
	if p := c.pre; p != nil && p.text == text && p.hist == hist {
		c.preMu.Unlock()
		return // already on its way
	}
	c.dropPrefetchLocked()
	if !c.spend() {
		c.preMu.Unlock()
		return // the reply itself says the budget is spent
	}
	msgs := append(c.promptFor("", false), llm.Message{Role: llm.RoleUser, Content: text})
	req := llm.Request{Messages: msgs, Tools: c.offeredTools(), Suggestions: c.suggestions()}
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &prefetch{text: text, hist: hist, stage: c.machine.Stage(), cancel: cancel, done: make(chan struct{}), requested: time.Now()}
	c.pre = p
	c.preMu.Unlock()
	client := c.llm
	if f, ok := client.(interface{ Primary() llm.Client }); ok {
		// A speculative call never reaches the stand-in: it would change
		// the stand-in's state for a turn that may not happen.
		client = f.Primary()
	}
	go func() {
		defer close(p.done)
		p.resp, p.err = client.Complete(pctx, req, func(d string) {
			if p.firstAt.IsZero() {
				p.firstAt = time.Now()
			}
			p.deltas = append(p.deltas, d)
		})
		if p.firstAt.IsZero() && p.err == nil {
			p.firstAt = time.Now()
		}
	}()
}

// CancelPrefetch throws away a reply started early: the candidate went on.
func (c *Conductor) CancelPrefetch() {
	c.preMu.Lock()
	c.dropPrefetchLocked()
	c.preMu.Unlock()
}

func (c *Conductor) dropPrefetchLocked() {
	if c.pre != nil {
		c.pre.cancel()
		c.pre = nil
	}
}

// takePrefetch returns the early call this reply may start with: only for
// its first round, for the same words, on the same history and stage.
// Any other early call is thrown away.
func (r *Reply) takePrefetch(round int) *prefetch {
	c := r.c
	c.preMu.Lock()
	defer c.preMu.Unlock()
	p := c.pre
	if p == nil {
		return nil
	}
	c.pre = nil
	c.mu.Lock()
	hist := len(c.history)
	c.mu.Unlock()
	// The reply appended the candidate's words to the history before its
	// first round.
	if round != 0 || p.text != strings.TrimSpace(r.in.Text) || p.hist != hist-1 || p.stage != c.machine.Stage() {
		p.cancel()
		return nil
	}
	return p
}

// use waits for the early call (it was sent before the turn ended, so
// what is left to wait is shorter) and plays its text into emit. Its
// FirstToken is the wait left after the turn ended. A failed early call is
// not retried here: the reply makes a fresh call instead.
func (p *prefetch) use(ctx context.Context, turnStarted time.Time, emit func(string)) (llm.Response, error) {
	defer p.cancel()
	select {
	case <-p.done:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	if p.err != nil {
		return llm.Response{}, p.err
	}
	for _, d := range p.deltas {
		emit(d)
	}
	resp := p.resp
	resp.FirstToken = max(0, p.firstAt.Sub(turnStarted))
	return resp, nil
}
