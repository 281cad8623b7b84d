package worker

import (
	"github.com/viva-interviews/viva/interviews/lang"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// gateRecorder is a loop and a chat behind a chatGate: it counts turns
// and notices, and replies to each turn for a while before listening
// again.
type gateRecorder struct {
	mu      sync.Mutex
	turns   []string
	notices int
	reply   time.Duration
	g       *chatGate
	stop    chan struct{}
}

func newGateRecorder(reply time.Duration) *gateRecorder {
	r := &gateRecorder{reply: reply, stop: make(chan struct{})}
	r.g = newChatGate(func(text string, _, _ time.Time) {
		r.mu.Lock()
		r.turns = append(r.turns, text)
		r.mu.Unlock()
		r.g.Replying(true)
		go func() {
			select {
			case <-time.After(r.reply):
				r.g.Replying(false)
			case <-r.stop:
			}
		}()
	}, func(lang.Key) {
		r.mu.Lock()
		r.notices++
		r.mu.Unlock()
	})
	return r
}

// close stops the gate and the replies.
func (r *gateRecorder) close() {
	r.g.Close()
	close(r.stop)
}

func (r *gateRecorder) counts() (turns []string, notices int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.turns...), r.notices
}

// TestChatFloodBecomesAFewTurns: 1,000 messages of 16 KB typed in 8 s
// (the flood that took a worker to 3.4 GB) become a handful of turns,
// each within the pending bound; the candidate is asked to slow down a
// few times, not a thousand.
func TestChatFloodBecomesAFewTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newGateRecorder(time.Second)
		defer r.close()
		msg := strings.Repeat("x", MaxChatBytes)
		kept := 0
		for range 1000 {
			if r.g.Add(msg) {
				kept++
			}
			time.Sleep(8 * time.Millisecond)
		}
		time.Sleep(time.Minute) // whatever is pending goes on
		synctest.Wait()
		turns, notices := r.counts()
		t.Logf("1000 messages: %d kept, %d turns, %d notices", kept, len(turns), notices)
		if len(turns) > chatTurnBurst+int(8*time.Second/chatTurnEvery) {
			t.Errorf("%d turns from a flood of 8 s, want at most %d at once and one per %s", len(turns), chatTurnBurst, chatTurnEvery)
		}
		if len(turns) == 0 || kept != len(turns) {
			t.Errorf("%d messages kept in %d turns; want each kept 16 KB message its own turn", kept, len(turns))
		}
		for i, turn := range turns {
			if len(turn) > maxPendingChatBytes {
				t.Errorf("turn %d holds %d bytes, want at most %d", i, len(turn), maxPendingChatBytes)
			}
		}
		if notices == 0 || notices > 1+8/int(chatNoticeEvery/time.Second) {
			t.Errorf("%d requests to slow down in 8 s, want one every %s", notices, chatNoticeEvery)
		}
	})
}

// TestChatMessagesTypedDuringAReplyJoinIntoOneTurn: what the candidate
// types while the interviewer replies waits, and goes on as one turn
// when the reply ends; a message typed while the interviewer listens
// goes on at once.
func TestChatMessagesTypedDuringAReplyJoinIntoOneTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newGateRecorder(time.Hour) // replies end when the test says
		defer r.close()
		r.g.Add("I used Go.")
		synctest.Wait()
		if turns, _ := r.counts(); len(turns) != 1 || turns[0] != "I used Go." {
			t.Fatalf("turns %q, want the first message at once", turns)
		}
		for _, m := range []string{"Sorry,", "I meant Go and Postgres.", "Mostly Postgres."} {
			r.g.Add(m)
			time.Sleep(time.Second)
		}
		synctest.Wait()
		if turns, _ := r.counts(); len(turns) != 1 {
			t.Fatalf("turns %q while the interviewer replies, want the new messages held", turns)
		}
		r.g.Replying(false)
		synctest.Wait()
		turns, notices := r.counts()
		if len(turns) != 2 || turns[1] != "Sorry,\nI meant Go and Postgres.\nMostly Postgres." || notices != 0 {
			t.Fatalf("turns %q (%d notices), want the three messages joined into one turn", turns, notices)
		}
	})
}

// TestChatHeldAtMostChatMaxHold: a reply that never says it ended holds
// typed messages no longer than chatMaxHold.
func TestChatHeldAtMostChatMaxHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newGateRecorder(time.Hour)
		defer r.close()
		r.g.Add("first")
		r.g.Add("second")
		time.Sleep(chatMaxHold - time.Second)
		synctest.Wait()
		if turns, _ := r.counts(); len(turns) != 1 {
			t.Fatalf("turns %q before chatMaxHold, want the second held", turns)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if turns, _ := r.counts(); len(turns) != 2 || turns[1] != "second" {
			t.Fatalf("turns %q after chatMaxHold, want the second sent", turns)
		}
	})
}
