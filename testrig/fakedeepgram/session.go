package fakedeepgram

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Energy detector settings: 20 ms frames; speech starts after 100 ms of
// frames above the threshold and ends after 300 ms below it (or the
// endpointing parameter, when larger).
const (
	frameSamples20ms   = SampleRate16kHz / 50
	rmsThreshold       = 300.0 // about -40 dBFS
	onsetFrames        = 5     // 100 ms
	minHangoverFrames  = 15    // 300 ms
	firstInterimAfter  = 250 * time.Millisecond
	secondInterimAfter = 750 * time.Millisecond
	writeTimeout       = 5 * time.Second
)

// Model details reported in Results and Metadata, shaped like nova-3's.
const (
	modelUUID    = "40bd3654-e622-47c4-a111-63a61b23bfe4"
	modelName    = "general-nova-3"
	modelVersion = "2025-01-01.0"
	modelArch    = "nova-3"
)

// session is one websocket connection: it reads audio and control messages
// and writes results. Only its own goroutine writes to the connection.
type session struct {
	srv       *Server
	conn      *websocket.Conn
	requestID string
	created   time.Time

	interim       bool
	vadEvents     bool
	utteranceEnd  bool
	hangoverFrame int

	sum     hash.Hash
	samples int64 // samples received on this connection
	odd     []byte
	frame   []int16

	// detector state
	inSpeech   bool
	loudRun    int
	candidate  int64 // first sample of the current run of loud frames
	quietRun   int
	onset      int64 // first sample of the utterance
	lastLoud   int64 // sample just after the last loud frame
	text       string
	interims   int
	lastResult int64 // end of the audio covered by the last final result
}

func newSession(s *Server, conn *websocket.Conn, q url.Values, requestID string) *session {
	ss := &session{
		srv:           s,
		conn:          conn,
		requestID:     requestID,
		created:       time.Now().UTC(),
		interim:       q.Get("interim_results") == "true",
		vadEvents:     q.Get("vad_events") == "true",
		utteranceEnd:  q.Get("utterance_end_ms") != "",
		hangoverFrame: minHangoverFrames,
		sum:           sha256.New(),
		frame:         make([]int16, 0, frameSamples20ms),
	}
	if ms, err := strconv.Atoi(q.Get("endpointing")); err == nil && ms > minHangoverFrames*20 {
		ss.hangoverFrame = (ms + 19) / 20
	}
	return ss
}

func (ss *session) run() {
	ss.conn.SetReadLimit(4 << 20)
	lastActivity := time.Now()
	for {
		_ = ss.conn.SetReadDeadline(lastActivity.Add(IdleTimeout))
		mt, data, err := ss.conn.ReadMessage()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				ss.closeWith(websocket.CloseInternalServerErr, "NET-0001")
			}
			return
		}
		switch mt {
		case websocket.BinaryMessage:
			if len(data) == 0 { // the deprecated way of saying CloseStream
				ss.closeStream()
				return
			}
			lastActivity = time.Now()
			if err := ss.audio(data); err != nil {
				return
			}
		case websocket.TextMessage:
			var msg struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(data, &msg) != nil {
				ss.closeWith(websocket.CloseUnsupportedData, "DATA-0000")
				return
			}
			switch msg.Type {
			case "KeepAlive":
				lastActivity = time.Now()
				ss.srv.count(&ss.srv.keepAlives)
			case "Finalize":
				ss.srv.count(&ss.srv.finalizes)
				if err := ss.finalize(); err != nil {
					return
				}
			case "CloseStream":
				ss.srv.count(&ss.srv.closeStream)
				ss.closeStream()
				return
			}
		}
	}
}

// audio runs the detector over one binary message.
func (ss *session) audio(data []byte) error {
	ss.sum.Write(data)
	if len(ss.odd) > 0 {
		data = append(ss.odd, data...)
		ss.odd = nil
	}
	if len(data)%2 == 1 {
		ss.odd = []byte{data[len(data)-1]}
		data = data[:len(data)-1]
	}
	n := len(data) / 2
	ss.srv.mu.Lock()
	ss.srv.samples += int64(n)
	ss.srv.mu.Unlock()
	for i := 0; i < n; i++ {
		ss.frame = append(ss.frame, int16(uint16(data[2*i])|uint16(data[2*i+1])<<8))
		ss.samples++
		if len(ss.frame) == frameSamples20ms {
			err := ss.detect(rms(ss.frame) >= rmsThreshold)
			ss.frame = ss.frame[:0]
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func rms(frame []int16) float64 {
	var sum float64
	for _, v := range frame {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(frame)))
}

// detect advances the detector by one 20 ms frame ending at ss.samples.
func (ss *session) detect(loud bool) error {
	end := ss.samples
	start := end - frameSamples20ms
	if !ss.inSpeech {
		if !loud {
			ss.loudRun = 0
			return nil
		}
		if ss.loudRun == 0 {
			ss.candidate = start
		}
		ss.loudRun++
		if ss.loudRun < onsetFrames {
			return nil
		}
		ss.inSpeech = true
		ss.onset = ss.candidate
		ss.lastLoud = end
		ss.quietRun = 0
		ss.interims = 0
		ss.text = ss.srv.nextScript()
		if ss.vadEvents {
			return ss.send(speechStarted{Type: "SpeechStarted", Channel: []int{0}, Timestamp: seconds(ss.onset)})
		}
		return nil
	}
	if loud {
		ss.quietRun = 0
		ss.lastLoud = end
	} else if ss.quietRun++; ss.quietRun >= ss.hangoverFrame {
		return ss.endUtterance(false)
	}
	if !ss.interim {
		return nil
	}
	spoken := time.Duration(end-ss.onset) * time.Second / SampleRate16kHz
	if (ss.interims == 0 && spoken >= firstInterimAfter) || (ss.interims == 1 && spoken >= secondInterimAfter) {
		ss.interims++
		words := strings.Fields(ss.text)
		n := len(words) * ss.interims / 3
		if n == 0 && len(words) > 0 {
			n = 1
		}
		return ss.send(ss.results(strings.Join(words[:n], " "), ss.onset, end, false, false, false))
	}
	return nil
}

// endUtterance sends the final result of the utterance in progress and the
// UtteranceEnd that follows it.
func (ss *session) endUtterance(fromFinalize bool) error {
	end := ss.lastLoud
	if fromFinalize {
		end = ss.samples
	}
	ss.inSpeech = false
	ss.loudRun = 0
	ss.lastResult = ss.samples
	if err := ss.send(ss.results(ss.text, ss.onset, end, true, true, fromFinalize)); err != nil {
		return err
	}
	if !ss.utteranceEnd {
		return nil
	}
	return ss.send(utteranceEnd{Type: "UtteranceEnd", Channel: []int{0, 1}, LastWordEnd: seconds(ss.lastLoud)})
}

// finalize answers a Finalize message: the utterance in progress is
// finished at once; without one, the buffered audio gets an empty final.
func (ss *session) finalize() error {
	if ss.inSpeech {
		return ss.endUtterance(true)
	}
	ss.loudRun = 0
	start := ss.lastResult
	ss.lastResult = ss.samples
	return ss.send(ss.results("", start, ss.samples, true, false, true))
}

// closeStream flushes the utterance in progress, sends the summary Metadata
// and closes the connection normally.
func (ss *session) closeStream() {
	if ss.inSpeech {
		if ss.endUtterance(false) != nil {
			return
		}
	}
	meta := metadata{
		Type:           "Metadata",
		TransactionKey: "deprecated",
		RequestID:      ss.requestID,
		SHA256:         hex.EncodeToString(ss.sum.Sum(nil)),
		Created:        ss.created.Format("2006-01-02T15:04:05.000Z"),
		Duration:       seconds(ss.samples),
		Channels:       1,
		Models:         []string{modelUUID},
		ModelInfo:      map[string]modelInfo{modelUUID: {Name: modelName, Version: modelVersion, Arch: modelArch}},
	}
	if ss.send(meta) != nil {
		return
	}
	ss.closeWith(websocket.CloseNormalClosure, "")
}

func (ss *session) closeWith(code int, reason string) {
	msg := websocket.FormatCloseMessage(code, reason)
	_ = ss.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(writeTimeout))
}

func (ss *session) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_ = ss.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return ss.conn.WriteMessage(websocket.TextMessage, b)
}

// results builds a Results message for the audio [start, end) samples, with
// word timings spread evenly over it.
func (ss *session) results(text string, start, end int64, isFinal, speechFinal, fromFinalize bool) results {
	words := strings.Fields(text)
	ws := make([]word, len(words))
	span := seconds(end - start)
	for i, w := range words {
		ws[i] = word{
			Word:           strings.ToLower(strings.Trim(w, ".,!?;:\"'")),
			Start:          seconds(start) + span*float64(i)/float64(len(words)),
			End:            seconds(start) + span*float64(i+1)/float64(len(words)),
			Confidence:     0.98,
			PunctuatedWord: w,
		}
	}
	confidence := 0.0
	if len(words) > 0 {
		confidence = 0.98
	}
	r := results{
		Type:         "Results",
		ChannelIndex: []int{0, 1},
		Duration:     span,
		Start:        seconds(start),
		IsFinal:      isFinal,
		SpeechFinal:  speechFinal,
		FromFinalize: fromFinalize,
		Metadata: resultMetadata{
			RequestID: ss.requestID,
			ModelInfo: modelInfo{Name: modelName, Version: modelVersion, Arch: modelArch},
			ModelUUID: modelUUID,
		},
	}
	r.Channel.Alternatives = []alternative{{Transcript: text, Confidence: confidence, Words: ws}}
	return r
}

func seconds(samples int64) float64 {
	return math.Round(float64(samples)/SampleRate16kHz*1000) / 1000
}

// Wire messages, field for field as Deepgram sends them.
type (
	results struct {
		Type         string  `json:"type"`
		ChannelIndex []int   `json:"channel_index"`
		Duration     float64 `json:"duration"`
		Start        float64 `json:"start"`
		IsFinal      bool    `json:"is_final"`
		SpeechFinal  bool    `json:"speech_final"`
		Channel      struct {
			Alternatives []alternative `json:"alternatives"`
		} `json:"channel"`
		Metadata     resultMetadata `json:"metadata"`
		FromFinalize bool           `json:"from_finalize"`
	}
	alternative struct {
		Transcript string  `json:"transcript"`
		Confidence float64 `json:"confidence"`
		Words      []word  `json:"words"`
	}
	word struct {
		Word           string  `json:"word"`
		Start          float64 `json:"start"`
		End            float64 `json:"end"`
		Confidence     float64 `json:"confidence"`
		PunctuatedWord string  `json:"punctuated_word"`
	}
	resultMetadata struct {
		RequestID string    `json:"request_id"`
		ModelInfo modelInfo `json:"model_info"`
		ModelUUID string    `json:"model_uuid"`
	}
	modelInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Arch    string `json:"arch"`
	}
	speechStarted struct {
		Type      string  `json:"type"`
		Channel   []int   `json:"channel"`
		Timestamp float64 `json:"timestamp"`
	}
	utteranceEnd struct {
		Type        string  `json:"type"`
		Channel     []int   `json:"channel"`
		LastWordEnd float64 `json:"last_word_end"`
	}
	metadata struct {
		Type           string               `json:"type"`
		TransactionKey string               `json:"transaction_key"`
		RequestID      string               `json:"request_id"`
		SHA256         string               `json:"sha256"`
		Created        string               `json:"created"`
		Duration       float64              `json:"duration"`
		Channels       int                  `json:"channels"`
		Models         []string             `json:"models"`
		ModelInfo      map[string]modelInfo `json:"model_info"`
	}
)
