package deepgram

import (
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/incident"
)

// writeLoop owns all writes to the connection: audio, control messages and
// KeepAlive. While disconnected it queues audio (up to the replay buffer,
// oldest dropped first) and replays it on the next connection.
func (s *stream) writeLoop(conn *websocket.Conn) {
	defer close(s.writerDone)
	w := &connWriter{s: s, cur: conn}
	interval := s.e.opts.KeepAlive
	ka := time.NewTimer(interval)
	defer ka.Stop()
	for {
		select {
		case <-s.ctx.Done():
			w.discard()
			for {
				select {
				case m := <-s.out:
					w.release(m)
				default:
					return
				}
			}
		case c := <-s.conns:
			if c == nil {
				w.requeueUnacked()
			}
			w.cur = c
			if c != nil {
				w.replay()
				ka.Reset(interval)
			}
		case m := <-s.out:
			if w.send(m) && m.kind == msgAudio {
				ka.Reset(interval)
			}
		case <-ka.C:
			if w.cur != nil {
				if err := w.write(websocket.TextMessage, keepAliveJSON); err != nil {
					w.lost(err)
				}
			}
			ka.Reset(interval)
		}
	}
}

// connWriter is the writer goroutine's state.
type connWriter struct {
	s      *stream
	cur    *websocket.Conn // nil while disconnected
	queue  []outMsg        // waiting for the next connection
	queued int             // audio bytes in queue
	shed   int             // audio bytes dropped during this outage

	// unacked is the audio sent on sentOn that Deepgram has not finalised
	// yet (the words of an utterance in progress), from byte unackedFrom
	// of that connection on, at most the replay buffer. A connection lost
	// mid-utterance takes those words with it: they are sent again first
	// on the next connection.
	unacked     []byte
	unackedFrom int64
	sentOn      *websocket.Conn
}

// sent remembers audio written on the current connection until Deepgram
// finalises it.
func (w *connWriter) sent(audio []byte) {
	if w.sentOn != w.cur {
		w.sentOn, w.unacked, w.unackedFrom = w.cur, w.unacked[:0], 0
	}
	w.unacked = append(w.unacked, audio...)
	w.trimUnacked()
}

// trimUnacked forgets the audio Deepgram has finalised, and the oldest
// beyond the replay buffer.
func (w *connWriter) trimUnacked() {
	if n := min(w.s.acked(w.sentOn)-w.unackedFrom, int64(len(w.unacked))); n > 0 {
		w.unacked = w.unacked[n:]
		w.unackedFrom += n
	}
	if over := len(w.unacked) - w.s.replayBytes(); over > 0 {
		w.unacked = w.unacked[over:]
		w.unackedFrom += int64(over)
	}
}

// requeueUnacked puts the audio the lost connection had not finalised in
// front of the replay queue, in 20 ms messages. The reader has stopped
// reading that connection, so its acknowledgements are complete.
func (w *connWriter) requeueUnacked() {
	w.trimUnacked()
	var msgs []outMsg
	for b := w.unacked; len(b) > 0; {
		n := min(batchBytes20ms, len(b))
		buf := getBuf()
		*buf = append(*buf, b[:n]...)
		msgs = append(msgs, outMsg{kind: msgAudio, buf: buf})
		w.queued += n
		b = b[n:]
	}
	w.queue = append(msgs, w.queue...)
	w.unacked, w.unackedFrom, w.sentOn = nil, 0, nil
}

// send writes m, or queues it while disconnected. It reports whether m went
// out on the connection.
func (w *connWriter) send(m outMsg) bool {
	if m.kind == msgCloseStream {
		if w.cur != nil {
			if err := w.write(websocket.TextMessage, closeStreamJSON); err != nil {
				w.lost(err)
			}
		}
		return false
	}
	if w.cur == nil {
		w.enqueue(m)
		return false
	}
	if err := w.writeMsg(m); err != nil {
		w.lost(err)
		w.enqueue(m)
		return false
	}
	if m.kind == msgAudio {
		w.sent(*m.buf)
	}
	w.release(m)
	return true
}

func (w *connWriter) writeMsg(m outMsg) error {
	if m.kind == msgAudio {
		return w.write(websocket.BinaryMessage, *m.buf)
	}
	return w.write(websocket.TextMessage, finalizeJSON)
}

func (w *connWriter) write(mt int, data []byte) error {
	_ = w.cur.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.cur.WriteMessage(mt, data)
}

// lost closes a connection that failed a write; the reader sees it fail
// and reconnects.
func (w *connWriter) lost(err error) {
	w.s.log.Debug("stt: deepgram write failed", "err", err.Error())
	w.cur.Close()
	w.cur = nil
}

func (w *connWriter) enqueue(m outMsg) {
	w.queue = append(w.queue, m)
	if m.kind == msgAudio {
		w.queued += len(*m.buf)
	}
	for w.queued > w.s.replayBytes() && len(w.queue) > 0 {
		old := w.queue[0]
		w.queue = w.queue[1:]
		if old.kind == msgAudio {
			w.queued -= len(*old.buf)
			w.shed += len(*old.buf)
		}
		w.release(old)
	}
}

// replay sends what was queued while disconnected.
func (w *connWriter) replay() {
	if w.shed > 0 {
		lost := time.Duration(w.shed/2) * time.Second / stt.SampleRate
		w.s.log.Warn("stt: deepgram outage outlasted the replay buffer; audio lost", "lost", lost)
		w.s.incident(incident.AudioLost, false,
			fmt.Sprintf("the outage outlasted the %s replay buffer: %s of the candidate's audio was not transcribed", w.s.e.opts.ReplayBuffer, lost))
		w.shed = 0
	}
	for len(w.queue) > 0 {
		m := w.queue[0]
		if err := w.writeMsg(m); err != nil {
			w.lost(err)
			return
		}
		w.queue = w.queue[1:]
		if m.kind == msgAudio {
			w.queued -= len(*m.buf)
			w.sent(*m.buf)
		}
		w.release(m)
	}
	w.queue = nil
}

// replayBytes is the size of the replay buffer: 16 kHz PCM16.
func (s *stream) replayBytes() int {
	return int(s.e.opts.ReplayBuffer * stt.SampleRate / time.Second * 2)
}

func (w *connWriter) release(m outMsg) {
	if m.buf != nil {
		putBuf(m.buf)
	}
}

func (w *connWriter) discard() {
	for _, m := range w.queue {
		w.release(m)
	}
	w.queue = nil
	w.queued = 0
}
