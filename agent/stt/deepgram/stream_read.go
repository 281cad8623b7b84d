package deepgram

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/incident"
)

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
	var err error
	attempt := 0
	for attempt < reconnectAttempts {
		attempt++
		if attempt > 1 {
			t := time.NewTimer(reconnectBackoff.Delay(attempt - 2))
			select {
			case <-t.C:
			case <-s.ctx.Done():
				t.Stop()
				return nil, s.ctx.Err()
			case <-s.closeReq:
				t.Stop()
				return nil, errClosed
			}
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
