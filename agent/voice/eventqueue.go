package voice

import (
	"fmt"
	"log/slog"
	"sync"
)

// eventQueue delivers events in order on a buffered channel without ever
// blocking the emitter. When the channel is full, interim transcripts are
// dropped (a later interim or the final supersedes them) and every other
// event is held back, in order, for a delivery loop (pending, delivered)
// to send as the reader catches up; while events are held back, new
// interims are dropped too, so order is never broken. Beyond maxHeld held
// events the reader is treated as gone and further events are dropped with
// an error log.
type eventQueue struct {
	log     *slog.Logger
	out     chan Event
	wake    chan struct{} // signalled when an event is held back
	maxHeld int

	mu      sync.Mutex
	closed  bool
	held    []Event
	dropped int // interim transcripts dropped so far
}

// newEventQueue delivers on a channel of bufferEvents capacity and holds
// back up to maxHeld events beyond it.
func newEventQueue(bufferEvents, maxHeld int, log *slog.Logger) *eventQueue {
	return &eventQueue{
		log:     log,
		out:     make(chan Event, bufferEvents),
		wake:    make(chan struct{}, 1),
		maxHeld: maxHeld,
	}
}

// events is the channel the reader receives from; close closes it.
func (q *eventQueue) events() <-chan Event { return q.out }

// woken receives a value when an event has been held back, so the
// delivery loop recomputes pending.
func (q *eventQueue) woken() <-chan struct{} { return q.wake }

// emit delivers ev or holds it back; after close it does nothing.
func (q *eventQueue) emit(ev Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if len(q.held) == 0 {
		select {
		case q.out <- ev:
			return
		default:
		}
	}
	if t, ok := ev.(Transcript); ok && !t.Final {
		q.dropped++
		if q.dropped == 1 || q.dropped%100 == 0 {
			q.log.Debug("voice: event reader is slow; dropping interim transcripts", "dropped", q.dropped)
		}
		return
	}
	if len(q.held) >= q.maxHeld {
		q.log.Error("voice: event reader stopped reading; dropping event", "event", fmt.Sprintf("%T", ev))
		return
	}
	q.held = append(q.held, ev)
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pending returns the channel and the oldest held-back event for the
// delivery loop to send, or a nil channel when nothing is held back.
// After a successful send the loop calls delivered.
func (q *eventQueue) pending() (chan<- Event, Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.held) == 0 {
		return nil, nil
	}
	return q.out, q.held[0]
}

// delivered removes the event pending returned, once it has been sent.
// Only the delivery loop calls it.
func (q *eventQueue) delivered() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.held) == 0 {
		return
	}
	q.held[0] = nil
	q.held = q.held[1:]
}

// close drops what is held back, closes the channel and makes later emits
// no-ops. Only the delivery loop calls it, once.
func (q *eventQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.held = nil
	close(q.out)
}
