package deepgram

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/stt"
)

// FuzzHandleMessages feeds arbitrary server messages, one per line, to the
// stream's decoder. It must never panic, and its output is bounded by its
// input: at most two events per message (a Final and the UtteranceEnd it
// completes), texts trimmed, non-empty and no longer than the message, and
// an UtteranceEnd only after a Final with words since the previous one.
func FuzzHandleMessages(f *testing.F) {
	seeds := []string{
		`{"type":"Results","channel_index":[0,1],"duration":1.0,"start":0.0,"is_final":true,"speech_final":true,"channel":{"alternatives":[{"transcript":"hi there","confidence":0.9,"words":[]}]},"metadata":{"request_id":"x"},"from_finalize":false}`,
		`{"type":"Results","is_final":false,"channel":{"alternatives":[{"transcript":"  maybe  "}]}}` + "\n" + `{"type":"UtteranceEnd","channel":[0,1],"last_word_end":1.2}`,
		`{"type":"Results","is_final":true,"channel":{"alternatives":[{"transcript":"a"}]}}` + "\n" + `{"type":"UtteranceEnd"}` + "\n" + `{"type":"UtteranceEnd"}`,
		`{"type":"Results","is_final":true,"from_finalize":true,"channel":{"alternatives":[]}}`,
		`{"type":"SpeechStarted","channel":[0],"timestamp":0.5}`,
		`{"type":"Metadata","request_id":"x"}`,
		`{"type":"Error","description":"bad","message":"worse","variant":"x"}`,
		`{"type":"Error","description":5}`,
		`{"type":"Results","channel":[0]}`,
		`{"type":"Results","channel":{"alternatives":[{"transcript":5}]}}`,
		`{"type":"Results","is_final":"yes"}`,
		`{"type":"Results","channel":{"alternatives":null}}`,
		`{"type":"Results","is_final":true,"channel":{"alternatives":[{"transcript":"\u0000\ud800 é\t","confidence":1e999}]}}`,
		`{"type":5}`,
		`{"type":"Results"` + strings.Repeat(`,"x":[`, 100) + `}`,
		strings.Repeat(`[`, 20000),
		`not json`,
		"",
		"\xff\xfe",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &stream{log: quietLogger(), ctx: context.Background(), events: make(chan stt.Event, 8)}
		pending := false
		for msg := range bytes.SplitSeq(data, []byte("\n")) {
			s.handle(msg)
			if n := len(s.events); n > 2 {
				t.Fatalf("one message gave %d events: %q", n, msg)
			}
			for len(s.events) > 0 {
				ev := <-s.events
				switch ev.Type {
				case stt.Interim, stt.Final:
					if ev.Text == "" || ev.Text != strings.TrimSpace(ev.Text) || len(ev.Text) > len(msg) {
						t.Fatalf("%v event with text %q from message %q", ev.Type, ev.Text, msg)
					}
					if ev.Type == stt.Final {
						pending = true
					}
				case stt.UtteranceEnd:
					if !pending {
						t.Fatalf("UtteranceEnd without a Final since the last one, after %q", msg)
					}
					pending = false
				case stt.SpeechStarted:
				default:
					t.Fatalf("unexpected event %+v from %q", ev, msg)
				}
			}
		}
	})
}
