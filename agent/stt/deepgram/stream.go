package deepgram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/incident"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/viva-interviews/viva/agent/stt"
)

// errClosed is returned by Write and EndOfSpeech after Close.
var errClosed = errors.New("stt: deepgram: stream is closed")

// Control messages, as Deepgram expects them.
var (
	keepAliveJSON   = []byte(`{"type":"KeepAlive"}`)
	finalizeJSON    = []byte(`{"type":"Finalize"}`)
	closeStreamJSON = []byte(`{"type":"CloseStream"}`)
)

type msgKind uint8

const (
	msgAudio msgKind = iota
	msgFinalize
	msgCloseStream
)

// outMsg is one message for the writer goroutine. Audio travels in pooled
// buffers, returned to the pool once written or dropped.
type outMsg struct {
	kind msgKind
	buf  *[]byte
}

var bufPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 2*batchBytes20ms)
	return &b
}}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	*b = (*b)[:0]
	bufPool.Put(b)
}

// stream is one live recognition session. Write, EndOfSpeech and Close hand
// messages to the writer goroutine, which alone writes to the connection;
// the reader goroutine alone reads, turns results into events and
// reconnects when the connection drops.
type stream struct {
	e      *Engine
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc

	events     chan stt.Event
	out        chan outMsg
	conns      chan *websocket.Conn // reader → writer: new connection, nil when lost
	closeReq   chan struct{}        // closed by Close
	readerDone chan struct{}
	writerDone chan struct{}

	wmu     sync.Mutex // guards batch, closed, dropped
	batch   *[]byte
	closed  bool
	dropped int

	closing atomic.Bool // CloseStream sent: the server closing is expected

	cmu     sync.Mutex // guards cur and failErr
	cur     *websocket.Conn
	failErr error

	wordsPending bool            // reader only: a Final with text since the last UtteranceEnd
	reading      *websocket.Conn // reader only: the connection being read

	amu      sync.Mutex // guards ackConn and ackBytes
	ackConn  *websocket.Conn
	ackBytes int64 // audio bytes of ackConn that Deepgram has finalised
}

// ackMargin is taken off Deepgram's finalised end times, which it rounds to
// the millisecond, so a few milliseconds too many are replayed after a drop
// rather than a few too few.
const ackMargin = time.Millisecond

// ack records that Deepgram has finalised the audio of conn up to endSec
// seconds: that audio need not be sent again if the connection drops.
func (s *stream) ack(conn *websocket.Conn, endSec float64) {
	b := int64(math.Floor((endSec-ackMargin.Seconds())*stt.SampleRate)) * 2
	s.amu.Lock()
	defer s.amu.Unlock()
	if s.ackConn != conn {
		s.ackConn, s.ackBytes = conn, 0
	}
	s.ackBytes = max(s.ackBytes, b)
}

// acked is how many audio bytes of conn Deepgram has finalised.
func (s *stream) acked(conn *websocket.Conn) int64 {
	s.amu.Lock()
	defer s.amu.Unlock()
	if s.ackConn != conn {
		return 0
	}
	return s.ackBytes
}

func newStream(parent context.Context, e *Engine, conn *websocket.Conn) *stream {
	ctx, cancel := context.WithCancel(parent)
	s := &stream{
		e:          e,
		log:        e.log,
		ctx:        ctx,
		cancel:     cancel,
		events:     make(chan stt.Event, eventQueue),
		out:        make(chan outMsg, outQueue),
		conns:      make(chan *websocket.Conn),
		closeReq:   make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		batch:      getBuf(),
		cur:        conn,
	}
	context.AfterFunc(ctx, func() { s.setCur(nil) })
	go s.readLoop(conn)
	go s.writeLoop(conn)
	return s
}

// Write queues one frame; it never waits for the network. Frames are sent in
// messages of about 20 ms. inUtterance is ignored: Deepgram gets every frame.
func (s *stream) Write(frame []int16, _ bool) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	b := *s.batch
	for _, v := range frame {
		b = append(b, byte(v), byte(uint16(v)>>8))
	}
	*s.batch = b
	if len(b) >= batchBytes20ms {
		s.flushLocked()
	}
	return nil
}

// EndOfSpeech sends the pending audio and a Finalize message, so Deepgram
// returns the utterance's last words at once (from_finalize).
func (s *stream) EndOfSpeech() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	s.flushLocked()
	select {
	case s.out <- outMsg{kind: msgFinalize}:
		return nil
	case <-s.ctx.Done():
		return s.usable()
	}
}

// Events delivers results; it is closed when the stream ends (Close, ctx
// cancelled, or reconnection given up).
func (s *stream) Events() <-chan stt.Event { return s.events }

// Close sends the pending audio and CloseStream, waits up to closeWait for
// Deepgram's last results, then stops both goroutines.
func (s *stream) Close() error {
	s.wmu.Lock()
	if s.closed {
		s.wmu.Unlock()
		return nil
	}
	s.closed = true
	s.closing.Store(true)
	close(s.closeReq)
	if s.ctx.Err() == nil {
		s.flushLocked()
		select {
		case s.out <- outMsg{kind: msgCloseStream}:
		case <-s.ctx.Done():
		}
	}
	s.wmu.Unlock()

	t := time.NewTimer(closeWait)
	select {
	case <-s.readerDone:
	case <-t.C:
		s.log.Warn("stt: deepgram did not close the stream in time; closing it", "wait", closeWait)
	}
	t.Stop()
	s.cancel()
	<-s.readerDone
	<-s.writerDone
	return nil
}

// usable reports why the stream can no longer take audio, or nil.
func (s *stream) usable() error {
	if s.closed {
		return errClosed
	}
	s.cmu.Lock()
	err := s.failErr
	s.cmu.Unlock()
	if err != nil {
		return err
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("stt: deepgram: stream ended: %w", err)
	}
	return nil
}

// flushLocked hands the current batch to the writer without waiting. If the
// writer is that far behind (about 5 s), the batch is dropped.
func (s *stream) flushLocked() {
	if len(*s.batch) == 0 {
		return
	}
	select {
	case s.out <- outMsg{kind: msgAudio, buf: s.batch}:
		s.batch = getBuf()
	default:
		s.dropped++
		if s.dropped == 1 || s.dropped%250 == 0 {
			s.log.Warn("stt: deepgram connection is not keeping up; dropping audio", "dropped_messages", s.dropped)
		}
		*s.batch = (*s.batch)[:0]
	}
}

// setCur records the live connection so cancelling ctx can close it.
func (s *stream) setCur(c *websocket.Conn) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.cur != nil && s.cur != c {
		s.cur.Close()
	}
	s.cur = c
	if c != nil && s.ctx.Err() != nil {
		c.Close()
		s.cur = nil
	}
}

// fail ends the stream with err: Write returns it and Events is closed.
func (s *stream) fail(err error) {
	s.cmu.Lock()
	s.failErr = err
	s.cmu.Unlock()
	s.cancel()
}

// incident reports a fault of this stream to the interview's observer.
func (s *stream) incident(kind incident.Kind, recovered bool, detail string) {
	incident.Report(s.ctx, incident.Incident{
		Provider: incident.STT, Engine: s.e.Name(), Kind: kind, Detail: detail, Recovered: recovered,
	})
}

func (s *stream) ending() bool { return s.closing.Load() || s.ctx.Err() != nil }

// readLoop reads results until the stream ends, reconnecting when the
// connection drops.
func (s *stream) readLoop(conn *websocket.Conn) {
	defer close(s.readerDone)
	defer close(s.events)
	for {
		cause := s.readConn(conn)
		conn.Close()
		if s.ending() {
			return
		}
		s.setCur(nil)
		if !s.toWriter(nil) {
			return
		}
		next, err := s.reconnect(cause)
		if err != nil {
			if !s.ending() {
				s.fail(err)
			}
			return
		}
		if s.ending() {
			next.Close()
			return
		}
		s.setCur(next)
		if !s.toWriter(next) {
			return
		}
		conn = next
	}
}

func (s *stream) toWriter(c *websocket.Conn) bool {
	select {
	case s.conns <- c:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// readConn handles messages until the connection fails or closes.
func (s *stream) readConn(conn *websocket.Conn) error {
	s.reading = conn
	for {
		mt, data, err := conn.ReadMessage()
		if err != nil {
			return err
		}
		if mt == websocket.TextMessage {
			s.handle(data)
		}
	}
}

// reconnect dials again with backoff. It logs one line for the whole
// episode.
func (s *stream) reconnect(cause error) (*websocket.Conn, error) {
	lostAt := time.Now()
	backoff := reconnectBackoffMin
	var err error
	attempt := 0
	for attempt < reconnectAttempts {
		attempt++
		if attempt > 1 {
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-s.ctx.Done():
				t.Stop()
				return nil, s.ctx.Err()
			case <-s.closeReq:
				t.Stop()
				return nil, errClosed
			}
			backoff = min(2*backoff, reconnectBackoffMax)
		}
		var conn *websocket.Conn
		if conn, err = s.e.dial(s.ctx); err == nil {
			down := time.Since(lostAt).Round(time.Millisecond)
			s.log.Warn("stt: deepgram connection lost; reconnected",
				"cause", cause.Error(), "attempts", attempt, "downtime", down)
			s.incident(incident.Disconnected, true,
				fmt.Sprintf("connection lost (%v); reconnected after %d attempt(s), %s down; the audio of the gap was replayed", cause, attempt, down))
			return conn, nil
		}
		if errors.Is(err, stt.ErrAuth) || s.ctx.Err() != nil {
			break
		}
	}
	err = fmt.Errorf("stt: deepgram: connection lost (%v) and reconnecting failed after %d attempts; start a new stream: %w", cause, attempt, err)
	s.log.Error("stt: deepgram connection lost; giving up", "cause", cause.Error(), "attempts", attempt, "err", err.Error())
	if s.ctx.Err() == nil {
		s.incident(incident.Disconnected, false,
			fmt.Sprintf("connection lost (%v); reconnecting failed after %d attempt(s): the stream ended", cause, attempt))
	}
	return nil, err
}

// Incoming messages. "channel" is an object in Results and an array in
// SpeechStarted and UtteranceEnd, so the type is read first.
type (
	msgHead struct {
		Type string `json:"type"`
	}
	resultsMsg struct {
		Start        float64 `json:"start"`    // seconds of the connection's audio
		Duration     float64 `json:"duration"` // seconds
		IsFinal      bool    `json:"is_final"`
		SpeechFinal  bool    `json:"speech_final"`
		FromFinalize bool    `json:"from_finalize"`
		Channel      struct {
			Alternatives []struct {
				Transcript string  `json:"transcript"`
				Confidence float64 `json:"confidence"`
			} `json:"alternatives"`
		} `json:"channel"`
	}
	errorMsg struct {
		Description string `json:"description"`
		Message     string `json:"message"`
		Variant     string `json:"variant"`
	}
)

// handle turns one server message into events (see the package comment for
// the UtteranceEnd rule).
func (s *stream) handle(data []byte) {
	var head msgHead
	if err := json.Unmarshal(data, &head); err != nil {
		s.log.Warn("stt: deepgram sent a message that is not JSON", "err", err.Error())
		return
	}
	switch head.Type {
	case "Results":
		var r resultsMsg
		if err := json.Unmarshal(data, &r); err != nil {
			s.log.Warn("stt: deepgram sent malformed Results", "err", err.Error())
			return
		}
		var text string
		var confidence float64
		if len(r.Channel.Alternatives) > 0 {
			text = strings.TrimSpace(r.Channel.Alternatives[0].Transcript)
			confidence = r.Channel.Alternatives[0].Confidence
		}
		if r.IsFinal && s.reading != nil {
			s.ack(s.reading, r.Start+r.Duration)
		}
		if !r.IsFinal {
			if text != "" {
				s.emit(stt.Event{Type: stt.Interim, Text: text, Confidence: confidence})
			}
			return
		}
		if text != "" {
			s.emit(stt.Event{Type: stt.Final, Text: text, Confidence: confidence})
			s.wordsPending = true
		}
		if r.SpeechFinal || r.FromFinalize {
			s.endUtterance()
		}
	case "UtteranceEnd":
		s.endUtterance()
	case "SpeechStarted":
		s.emit(stt.Event{Type: stt.SpeechStarted})
	case "Metadata":
		// Summary sent after CloseStream; nothing to report.
	case "Error":
		var m errorMsg
		_ = json.Unmarshal(data, &m)
		s.log.Warn("stt: deepgram reported an error", "description", m.Description, "message", m.Message, "variant", m.Variant)
	}
}

func (s *stream) endUtterance() {
	if !s.wordsPending {
		return
	}
	s.wordsPending = false
	s.emit(stt.Event{Type: stt.UtteranceEnd})
}

func (s *stream) emit(ev stt.Event) {
	ev.At = time.Now()
	select {
	case s.events <- ev:
	case <-s.ctx.Done():
	}
}

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
