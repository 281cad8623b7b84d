package recording

import "sync"

// queue holds the audio handed over and not yet mixed. The taps append to
// it under a lock and never wake the recorder's goroutine, which takes the
// whole batch on its tick: a session's audio path costs the recording no
// goroutine wake-up per packet.
type queue struct {
	mu     sync.Mutex
	chunks []chunk
	limit  int  // the most chunks held
	closed bool // the recording stopped: nothing more is taken
}

// push appends c; full when the queue holds its limit, closed when the
// recording stopped (c is not kept in either case).
func (q *queue) push(c chunk) (full, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closed:
		return false, true
	case len(q.chunks) >= q.limit:
		return true, false
	}
	q.chunks = append(q.chunks, c)
	return false, false
}

// swap hands out the chunks queued, in order, and keeps spare (emptied)
// for the next ones.
func (q *queue) swap(spare []chunk) []chunk {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.chunks
	q.chunks = spare[:0]
	return out
}

// close refuses further chunks.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
}
