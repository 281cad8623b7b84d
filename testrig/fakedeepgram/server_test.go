package fakedeepgram

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

func dial(t *testing.T, s *Server, key string, query url.Values) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Token "+key)
	}
	return websocket.DefaultDialer.DialContext(t.Context(), s.URL+"?"+query.Encode(), h)
}

func goodQuery() url.Values {
	return url.Values{
		"model": {"nova-3"}, "encoding": {"linear16"}, "sample_rate": {"16000"}, "channels": {"1"},
		"interim_results": {"true"}, "vad_events": {"true"}, "utterance_end_ms": {"1000"}, "endpointing": {"300"},
	}
}

func TestHandshakeChecks(t *testing.T) {
	s := New()
	defer s.Close()
	for _, tc := range []struct {
		name       string
		key        string
		change     func(url.Values)
		wantStatus int
		wantCode   string
	}{
		{"wrong key", "dg-wrong", nil, 401, "INVALID_AUTH"},
		{"no key", "", nil, 401, "INVALID_AUTH"},
		{"no model", Key, func(q url.Values) { q.Del("model") }, 400, "Bad Request"},
		{"opus", Key, func(q url.Values) { q.Set("encoding", "opus") }, 400, "Bad Request"},
		{"48 kHz", Key, func(q url.Values) { q.Set("sample_rate", "48000") }, 400, "Bad Request"},
		{"stereo", Key, func(q url.Values) { q.Set("channels", "2") }, 400, "Bad Request"},
		{"no channels", Key, func(q url.Values) { q.Del("channels") }, 400, "Bad Request"},
		{"short utterance_end_ms", Key, func(q url.Values) { q.Set("utterance_end_ms", "500") }, 400, "Bad Request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := goodQuery()
			if tc.change != nil {
				tc.change(q)
			}
			conn, resp, err := dial(t, s, tc.key, q)
			if err == nil {
				conn.Close()
				t.Fatal("handshake succeeded")
			}
			if !errors.Is(err, websocket.ErrBadHandshake) || resp == nil || resp.StatusCode != tc.wantStatus {
				t.Fatalf("err %v, response %v; want HTTP %d", err, resp, tc.wantStatus)
			}
			var body struct {
				ErrCode   string `json:"err_code"`
				ErrMsg    string `json:"err_msg"`
				RequestID string `json:"request_id"`
			}
			b, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(b, &body); err != nil || body.ErrMsg == "" || body.RequestID == "" {
				t.Errorf("body %s is not Deepgram's error shape", b)
			}
			if body.ErrCode != tc.wantCode {
				t.Errorf("err_code %q, want %q", body.ErrCode, tc.wantCode)
			}
		})
	}
	if s.Connections() != 0 {
		t.Errorf("accepted %d connections", s.Connections())
	}
}

// voiced16k is n samples of a loud 150 Hz harmonic tone.
func voiced16k(n int) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := int16(8000 * math.Sin(2*math.Pi*150*float64(i)/16000))
		b[2*i], b[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	return b
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestWireFormat(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptTranscripts("Hello there, I'm Alex.")
	conn, _, err := dial(t, s, Key, goodQuery())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// 200 ms silence, 1 s speech, 500 ms silence, in messages of 100 ms with
	// an odd byte split across the first two speech messages.
	audio := append(append(make([]byte, 6400), voiced16k(16000)...), make([]byte, 16000)...)
	sum := sha256.Sum256(audio)
	sent := 0
	for _, n := range append([]int{6400, 3201, 3199}, slices.Repeat([]int{3200}, 13)...) {
		if err := conn.WriteMessage(websocket.BinaryMessage, audio[sent:sent+n]); err != nil {
			t.Fatal(err)
		}
		sent += n
	}
	if sent != len(audio) {
		t.Fatalf("sent %d of %d bytes", sent, len(audio))
	}
	for _, m := range []string{`{"type":"KeepAlive"}`, `{"type":"Finalize"}`, `{"type":"CloseStream"}`} {
		if err := conn.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}

	var got []string
	var msgs []map[string]json.RawMessage
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Errorf("connection ended with %v, want a normal close", err)
			}
			break
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		var typ string
		_ = json.Unmarshal(m["type"], &typ)
		if typ == "Results" {
			var r struct {
				IsFinal, SpeechFinal, FromFinalize bool `json:"-"`
			}
			_ = json.Unmarshal(m["is_final"], &r.IsFinal)
			_ = json.Unmarshal(m["speech_final"], &r.SpeechFinal)
			_ = json.Unmarshal(m["from_finalize"], &r.FromFinalize)
			switch {
			case !r.IsFinal:
				typ = "Interim"
			case r.FromFinalize:
				typ = "Final(from_finalize)"
			case r.SpeechFinal:
				typ = "Final(speech_final)"
			}
		}
		got = append(got, typ)
		msgs = append(msgs, m)
	}
	want := []string{"SpeechStarted", "Interim", "Interim", "Final(speech_final)", "UtteranceEnd", "Final(from_finalize)", "Metadata"}
	if !slices.Equal(got, want) {
		t.Fatalf("messages %q, want %q", got, want)
	}

	wantKeys := map[string][]string{
		"SpeechStarted": {"channel", "timestamp", "type"},
		"Interim":       {"channel", "channel_index", "duration", "from_finalize", "is_final", "metadata", "speech_final", "start", "type"},
		"UtteranceEnd":  {"channel", "last_word_end", "type"},
		"Metadata":      {"channels", "created", "duration", "model_info", "models", "request_id", "sha256", "transaction_key", "type"},
	}
	wantKeys["Final(speech_final)"] = wantKeys["Interim"]
	wantKeys["Final(from_finalize)"] = wantKeys["Interim"]
	for i, m := range msgs {
		if k := keys(m); !slices.Equal(k, wantKeys[got[i]]) {
			t.Errorf("%s keys %q, want %q", got[i], k, wantKeys[got[i]])
		}
	}

	var started struct{ Timestamp float64 }
	_ = json.Unmarshal(mustJSON(msgs[0]), &started)
	if started.Timestamp != 0.2 {
		t.Errorf("SpeechStarted timestamp %v, want 0.2", started.Timestamp)
	}
	type result struct {
		Start, Duration float64
		Channel         struct {
			Alternatives []struct {
				Transcript string
				Confidence float64
				Words      []json.RawMessage
			}
		}
		Metadata struct {
			RequestID string `json:"request_id"`
		}
	}
	var interim1, interim2, final result
	_ = json.Unmarshal(mustJSON(msgs[1]), &interim1)
	_ = json.Unmarshal(mustJSON(msgs[2]), &interim2)
	_ = json.Unmarshal(mustJSON(msgs[3]), &final)
	for i, tc := range []struct {
		r    result
		want string
	}{{interim1, "Hello"}, {interim2, "Hello there,"}, {final, "Hello there, I'm Alex."}} {
		if got := tc.r.Channel.Alternatives[0].Transcript; got != tc.want {
			t.Errorf("result %d transcript %q, want %q", i, got, tc.want)
		}
		if n := len(tc.r.Channel.Alternatives[0].Words); n != len(strings.Fields(tc.want)) {
			t.Errorf("result %d has %d words, want %d", i, n, len(strings.Fields(tc.want)))
		}
	}
	if final.Start != 0.2 || final.Duration != 1.0 {
		t.Errorf("final covers %v+%v s, want 0.2+1.0", final.Start, final.Duration)
	}

	var meta struct {
		SHA256   string
		Duration float64
		Channels int
	}
	_ = json.Unmarshal(mustJSON(msgs[6]), &meta)
	if meta.SHA256 != hex.EncodeToString(sum[:]) || meta.Duration != 1.7 || meta.Channels != 1 {
		t.Errorf("metadata %+v, want sha256 of the audio, 1.7 s, 1 channel", meta)
	}
	if s.KeepAlives() != 1 || s.Finalizes() != 1 || s.CloseStreams() != 1 {
		t.Errorf("counted %d KeepAlive, %d Finalize, %d CloseStream; want 1 each", s.KeepAlives(), s.Finalizes(), s.CloseStreams())
	}
	if got := s.Received().Seconds(); got != 1.7 {
		t.Errorf("Received %v s, want 1.7", got)
	}
}

func mustJSON(m map[string]json.RawMessage) []byte {
	b, _ := json.Marshal(m)
	return b
}
