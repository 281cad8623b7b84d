package deepgram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/incident"
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
