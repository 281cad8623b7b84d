package agent

import (
	"context"
	"strings"
	"sync"
	"time"
)

// scriptedCandidate is a transport whose candidate takes part on their
// own: after the greeting and after each reply to one of their answers has
// been delivered, they think for a while and give the next answer of their
// script; when the script runs out they end the interview themselves.
// Replies are taken whole as they are generated, as a text chat shows
// them; a reply cut short keeps what was shown of it. It serves tests that
// run many interviews at once without steering each one, under
// testing/synctest or in real time.
type scriptedCandidate struct {
	answers   []string
	think     time.Duration
	inputs    chan Input
	yourTurn  chan struct{} // one signal per reply the candidate waits for
	stop      chan struct{} // closed by close: the loop has returned
	stopOnce  sync.Once
	finished  chan struct{} // closed when the candidate's goroutine returns
	greetOnce sync.Once

	mu    sync.Mutex
	given []string // answers the loop received, in order
	said  int      // replies the loop started
}

// newScriptedCandidate starts a candidate who gives answers in order, each
// after think. Call close once the loop has returned.
func newScriptedCandidate(answers []string, think time.Duration) *scriptedCandidate {
	c := &scriptedCandidate{
		answers: answers, think: think,
		inputs: make(chan Input), yourTurn: make(chan struct{}, 1),
		stop: make(chan struct{}), finished: make(chan struct{}),
	}
	go c.run()
	return c
}

// run is the candidate: wait for their turn, think, speak.
func (c *scriptedCandidate) run() {
	defer close(c.finished)
	for next := 0; ; next++ {
		select {
		case <-c.yourTurn:
		case <-c.stop:
			return
		}
		if c.think > 0 {
			t := time.NewTimer(c.think)
			select {
			case <-t.C:
			case <-c.stop:
				t.Stop()
				return
			}
		}
		var in Input = EndRequested{}
		if next < len(c.answers) {
			in = CandidateTurn{Text: c.answers[next], Source: SourceText}
		}
		select {
		case c.inputs <- in:
		case <-c.stop:
			return
		}
		turn, ok := in.(CandidateTurn)
		if !ok {
			return
		}
		c.mu.Lock()
		c.given = append(c.given, turn.Text)
		c.mu.Unlock()
	}
}

// close stops the candidate and waits until they have gone.
func (c *scriptedCandidate) close() {
	c.stopOnce.Do(func() { close(c.stop) })
	<-c.finished
}

// Given returns the answers the loop received, in order.
func (c *scriptedCandidate) Given() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.given...)
}

func (c *scriptedCandidate) Inputs() <-chan Input     { return c.inputs }
func (c *scriptedCandidate) Listening()               {}
func (c *scriptedCandidate) StageEntered(StageChange) {}

// Say shows the reply as it is generated. The candidate's turn comes when
// the greeting, or a reply to one of their answers, has been shown; an
// interjection (a stage change acknowledged on the timer) does not give
// them the turn, so each signal answers exactly one of their inputs.
func (c *scriptedCandidate) Say(_ context.Context, r *Reply) Playback {
	c.mu.Lock()
	first := c.said == 0
	c.said++
	c.mu.Unlock()
	p := &textPlayback{reply: r, cut: make(chan struct{}), done: make(chan struct{})}
	answers := r.in.Text != ""
	go func() {
		p.run()
		if first || answers {
			// The channel holds at most one signal: the candidate answers
			// before the loop can reply again.
			select {
			case c.yourTurn <- struct{}{}:
			default:
			}
		}
	}()
	return p
}

// textPlayback shows a reply's text as it is generated; cut, it keeps
// what was shown.
type textPlayback struct {
	reply   *Reply
	cut     chan struct{}
	cutOnce sync.Once
	done    chan struct{}
	d       Delivery
}

func (p *textPlayback) run() {
	defer close(p.done)
	var (
		b       strings.Builder
		started time.Time // when the first text was shown
	)
	for {
		select {
		case s, ok := <-p.reply.Deltas():
			if !ok {
				p.d = Delivery{Text: strings.TrimSpace(b.String()), StartedAt: started}
				return
			}
			if started.IsZero() {
				started = time.Now()
			}
			b.WriteString(s)
		case <-p.cut:
			p.d = Delivery{Text: strings.TrimSpace(b.String()), Interrupted: true, StartedAt: started}
			return
		}
	}
}

func (p *textPlayback) Done() <-chan struct{} { return p.done }
func (p *textPlayback) Interrupt()            { p.cutOnce.Do(func() { close(p.cut) }) }
func (p *textPlayback) Wait() Delivery        { <-p.done; return p.d }
