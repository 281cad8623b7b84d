package recording

import (
	"sync"
	"time"
)

// queue holds the audio handed over and not yet mixed. The taps append to
// it under a lock and never wake the recorder's goroutine, which takes the
// whole batch on its tick: a session's audio path costs the recording no
// goroutine wake-up per packet. The audio and packets are copied into the
// batch's own two buffers, which the goroutine hands back emptied, so a
// chunk costs no allocation once they have grown.
type queue struct {
	mu     sync.Mutex
	b      batch
	limit  int  // the most chunks held
	closed bool // the recording stopped: nothing more is taken
}

// batch is chunks of audio, with the samples and packets they hold.
type batch struct {
	chunks  []chunk
	pcm     []int16
	packets []byte
}

// chunk is audio handed over by a tap, with its packet when it came with
// one (empty spans when not), or a withdrawal (clear).
type chunk struct {
	voice       Voice
	at          time.Time
	pcm, packet span
	clear       bool
}

// span is where a chunk's samples or bytes lie in its batch.
type span struct{ off, n int }

// samples is c's audio in b.
func (b *batch) samples(c chunk) []int16 { return b.pcm[c.pcm.off : c.pcm.off+c.pcm.n] }

// packet is c's packet in b, or nil.
func (b *batch) packet(c chunk) []byte {
	if c.packet.n == 0 {
		return nil
	}
	return b.packets[c.packet.off : c.packet.off+c.packet.n]
}

// push appends a chunk of voice v at time at, holding pcm and packet (a
// withdrawal when clear), unless the recording stopped or the queue holds
// its limit; full reports the latter.
func (q *queue) push(v Voice, at time.Time, pcm []int16, packet []byte, clear bool) (full bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closed:
		return false
	case len(q.b.chunks) >= q.limit:
		return true
	}
	c := chunk{voice: v, at: at, clear: clear,
		pcm: span{len(q.b.pcm), len(pcm)}, packet: span{len(q.b.packets), len(packet)}}
	q.b.pcm = append(q.b.pcm, pcm...)
	q.b.packets = append(q.b.packets, packet...)
	q.b.chunks = append(q.b.chunks, c)
	return false
}

// swap hands out the batch queued, in order, and keeps spare (emptied)
// for the next chunks.
func (q *queue) swap(spare batch) batch {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.b
	q.b = batch{chunks: spare.chunks[:0], pcm: spare.pcm[:0], packets: spare.packets[:0]}
	return out
}

// close refuses further chunks.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
}
