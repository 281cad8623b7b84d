package worker

import (
	"github.com/viva-interviews/viva/interviews/lang"
	"strings"
	"sync"
	"time"
)

// Limits on how typed messages become turns, so a candidate who floods
// the chat costs a few turns, not one turn, answer analysis, model call
// and record save per message.
const (
	// chatMessageBurst messages are accepted at once, and
	// chatMessagesPerMinute a minute after that; beyond, messages are
	// dropped and the candidate is asked to slow down.
	chatMessageBurst      = 10
	chatMessagesPerMinute = 30
	// chatTurnBurst turns may start at once, then one every chatTurnEvery;
	// messages typed meanwhile wait and are joined into the next turn.
	chatTurnBurst = 2
	chatTurnEvery = 2 * time.Second
	// maxPendingChatBytes bounds the messages waiting to become one turn;
	// past it, messages are dropped and the candidate is asked to slow
	// down.
	maxPendingChatBytes = MaxChatBytes
	// chatMaxHold is the longest messages wait for a reply to end: a
	// reply that never says it ended does not hold them for ever.
	chatMaxHold = 30 * time.Second
	// chatNoticeEvery spaces the requests to slow down.
	chatNoticeEvery = 10 * time.Second
)

// chatGate turns the messages a candidate types into the loop's turns:
// messages typed while the interviewer replies are joined into one turn
// sent when the reply ends; turns start at most chatTurnBurst at once and
// one every chatTurnEvery after; messages beyond chatMessagesPerMinute, or
// beyond maxPendingChatBytes waiting, are dropped and the candidate is
// told, at most once every chatNoticeEvery. It is safe for concurrent
// use; Close stops its timer.
type chatGate struct {
	// turn hands a joined turn to the loop; it may block briefly and is
	// never called with the gate's lock held.
	turn func(text string, startedAt, endedAt time.Time)
	// notice tells the candidate the catalogue's sentence key in the chat.
	notice func(key lang.Key)

	mu          sync.Mutex
	replying    bool // the interviewer is thinking or speaking
	pending     []string
	pendingSize int
	firstAt     time.Time // when the first pending message came
	lastAt      time.Time
	messages    tokens
	turns       tokens
	noticedAt   time.Time
	timer       *time.Timer
	closed      bool
}

// tokens is a token bucket on the real clock.
type tokens struct {
	have, burst float64
	every       time.Duration // one token more each
	last        time.Time
}

func newTokens(burst int, every time.Duration) tokens {
	return tokens{have: float64(burst), burst: float64(burst), every: every}
}

// refill adds the tokens earned since the last call.
func (b *tokens) refill(now time.Time) {
	if !b.last.IsZero() {
		b.have = min(b.burst, b.have+float64(now.Sub(b.last))/float64(b.every))
	}
	b.last = now
}

// take takes a token if there is one.
func (b *tokens) take(now time.Time) bool {
	b.refill(now)
	if b.have < 1 {
		return false
	}
	b.have--
	return true
}

// wait is how long until a token is there.
func (b *tokens) wait(now time.Time) time.Duration {
	b.refill(now)
	if b.have >= 1 {
		return 0
	}
	return time.Duration((1 - b.have) * float64(b.every))
}

func newChatGate(turn func(text string, startedAt, endedAt time.Time), notice func(lang.Key)) *chatGate {
	g := &chatGate{turn: turn, notice: notice,
		messages: newTokens(chatMessageBurst, time.Minute/chatMessagesPerMinute),
		turns:    newTokens(chatTurnBurst, chatTurnEvery)}
	g.timer = time.AfterFunc(time.Hour, g.flush)
	g.timer.Stop()
	return g
}

// Add takes a message the candidate typed, and reports whether it was
// kept (to become part of a turn).
func (g *chatGate) Add(text string) bool {
	now := time.Now()
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	if !g.messages.take(now) || g.pendingSize+len(text) > maxPendingChatBytes {
		tell := now.Sub(g.noticedAt) >= chatNoticeEvery || g.noticedAt.IsZero()
		if tell {
			g.noticedAt = now
		}
		g.mu.Unlock()
		if tell {
			g.notice(lang.ChatSlowDown)
		}
		return false
	}
	if len(g.pending) == 0 {
		g.firstAt = now
	}
	g.pending = append(g.pending, text)
	g.pendingSize += len(text) + 1
	g.lastAt = now
	g.mu.Unlock()
	g.flush()
	return true
}

// Replying says whether the interviewer is replying (thinking or
// speaking); when the reply ends, the messages typed meanwhile go on as
// one turn.
func (g *chatGate) Replying(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.replying = on
	if !on && len(g.pending) > 0 && !g.closed {
		// Not flushed here: the loop says it listens, and must not wait
		// for its own input.
		g.timer.Reset(0)
	}
}

// flush hands the pending messages on as one turn when the interviewer
// is not replying (or has held them chatMaxHold) and a turn may start;
// otherwise it sets the timer for when to try again.
func (g *chatGate) flush() {
	now := time.Now()
	g.mu.Lock()
	if g.closed || len(g.pending) == 0 {
		g.mu.Unlock()
		return
	}
	if g.replying {
		if held := now.Sub(g.firstAt); held < chatMaxHold {
			g.timer.Reset(chatMaxHold - held)
			g.mu.Unlock()
			return
		}
	}
	if !g.turns.take(now) {
		g.timer.Reset(g.turns.wait(now))
		g.mu.Unlock()
		return
	}
	text, first, last := strings.Join(g.pending, "\n"), g.firstAt, g.lastAt
	g.pending, g.pendingSize = nil, 0
	g.replying = true // until the loop says otherwise
	g.mu.Unlock()
	g.turn(text, first, last)
}

// Close drops what is pending and stops the timer.
func (g *chatGate) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.pending, g.pendingSize = nil, 0
	g.timer.Stop()
}
