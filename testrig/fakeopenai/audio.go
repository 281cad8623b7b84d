package fakeopenai

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/viva-interviews/viva/internal/wav"
)

// SpeechSampleRate is the rate of the audio /v1/audio/speech returns, as
// OpenAI's "pcm" format: 24 kHz, mono, signed 16-bit little-endian.
const SpeechSampleRate = 24000

const (
	maxSpeechInputChars = 4096
	maxSpeechBodyBytes  = 64 << 10
	maxUploadBytes      = 25 << 20 // OpenAI's limit for audio uploads
	minTranscribeAudio  = 100 * time.Millisecond
	// speechChunkBytes is the size of each streamed piece of speech: about
	// 100 ms, and odd on purpose so clients meet samples split across reads.
	speechChunkBytes = 4801
	// syntheticPerChar and syntheticMin set the length of the synthetic
	// voice used when flite is not installed.
	syntheticPerChar = 60 * time.Millisecond
	syntheticMin     = 300 * time.Millisecond
	speechCacheSize  = 256
)

// SpeechRequest is one request the server received on /v1/audio/speech.
type SpeechRequest struct {
	Model          string
	Input          string
	Voice          string
	ResponseFormat string
	Instructions   string
	Speed          float64
	// Samples is the number of 24 kHz samples the response carried.
	Samples int
}

// TranscriptionRequest is one request the server received on
// /v1/audio/transcriptions.
type TranscriptionRequest struct {
	Model          string
	Language       string
	ResponseFormat string
	Prompt         string
	Filename       string
	// SampleRateHz and Duration describe the uploaded WAV audio.
	SampleRateHz int
	Duration     time.Duration
	// Text is the transcript the server answered with.
	Text string
}

// audioState is the speech and transcription behaviour; Server.mu guards it.
type audioState struct {
	speech         []SpeechRequest
	transcriptions []TranscriptionRequest
	scripts        []string
	// speechFailures are the HTTP statuses the next speech requests answer
	// with, one per request, before speech is served again.
	speechFailures []int
	// synthetic forces the synthetic voice even when flite is installed.
	synthetic bool
	cache     map[string][]int16
}

// ScriptTranscripts queues the texts /v1/audio/transcriptions returns, one
// per request in order; once they run out it returns "".
func (s *Server) ScriptTranscripts(texts ...string) {
	s.mu.Lock()
	s.audio.scripts = append(s.audio.scripts, texts...)
	s.mu.Unlock()
}

// SpeakSynthetic makes /v1/audio/speech answer with the synthetic voiced
// signal even when flite is installed: voiced from its first frame (flite
// leads with about 250 ms of silence) and costing no synthesis, as a
// benchmark of the agent's own latency and CPU wants.
func (s *Server) SpeakSynthetic() {
	s.mu.Lock()
	s.audio.synthetic = true
	s.mu.Unlock()
}

// FailSpeech makes the next speech requests fail, one per status given
// (500, 503, 429…), with OpenAI's error body; later requests are served.
func (s *Server) FailSpeech(statuses ...int) {
	s.mu.Lock()
	s.audio.speechFailures = append(s.audio.speechFailures, statuses...)
	s.mu.Unlock()
}

// SpeechRequests returns the speech requests received so far, oldest first.
func (s *Server) SpeechRequests() []SpeechRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SpeechRequest(nil), s.audio.speech...)
}

// TranscriptionRequests returns the transcription requests received so far,
// oldest first.
func (s *Server) TranscriptionRequests() []TranscriptionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TranscriptionRequest(nil), s.audio.transcriptions...)
}

// handleSpeech serves POST /v1/audio/speech: it validates the request like
// OpenAI and streams speech-like audio whose length follows the text, in
// flushed chunks (chunked transfer encoding).
func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string   `json:"model"`
		Input          *string  `json:"input"`
		Voice          string   `json:"voice"`
		ResponseFormat string   `json:"response_format"`
		Instructions   string   `json:"instructions"`
		Speed          *float64 `json:"speed"`
	}
	body := http.MaxBytesReader(w, r.Body, maxSpeechBodyBytes)
	if err := json.NewDecoder(body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	switch {
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "missing_required_parameter", "Missing required parameter: 'model'.")
		return
	case req.Input == nil || *req.Input == "":
		writeError(w, http.StatusBadRequest, "missing_required_parameter", "Missing required parameter: 'input'.")
		return
	case utf8.RuneCountInString(*req.Input) > maxSpeechInputChars:
		writeError(w, http.StatusBadRequest, "string_above_max_length",
			fmt.Sprintf("Invalid 'input': string too long. Expected a string with maximum length %d.", maxSpeechInputChars))
		return
	case req.Voice == "":
		writeError(w, http.StatusBadRequest, "missing_required_parameter", "Missing required parameter: 'voice'.")
		return
	case req.ResponseFormat != "pcm" && req.ResponseFormat != "wav":
		writeError(w, http.StatusBadRequest, "invalid_value",
			fmt.Sprintf("Unsupported response_format %q: this server produces only 'pcm' and 'wav'.", req.ResponseFormat))
		return
	case req.Speed != nil && (*req.Speed < 0.25 || *req.Speed > 4):
		writeError(w, http.StatusBadRequest, "invalid_value", "Invalid 'speed': expected a number between 0.25 and 4.0.")
		return
	}
	s.mu.Lock()
	fail := 0
	if len(s.audio.speechFailures) > 0 {
		fail = s.audio.speechFailures[0]
		s.audio.speechFailures = s.audio.speechFailures[1:]
	}
	s.mu.Unlock()
	if fail != 0 {
		writeReplyError(w, Reply{Status: fail})
		return
	}
	speed := 1.0
	if req.Speed != nil {
		speed = *req.Speed
	}
	pcm := s.speechPCM24k(r.Context(), *req.Input, speed)

	s.mu.Lock()
	s.audio.speech = append(s.audio.speech, SpeechRequest{
		Model: req.Model, Input: *req.Input, Voice: req.Voice, ResponseFormat: req.ResponseFormat,
		Instructions: req.Instructions, Speed: speed, Samples: len(pcm),
	})
	s.mu.Unlock()

	var data []byte
	if req.ResponseFormat == "wav" {
		w.Header().Set("Content-Type", "audio/wav")
		var out bytes.Buffer
		_ = wav.Encode(&out, pcm, SpeechSampleRate)
		data = out.Bytes()
	} else {
		w.Header().Set("Content-Type", "audio/pcm")
		data = make([]byte, 2*len(pcm))
		for i, v := range pcm {
			binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
		}
	}
	flusher, _ := w.(http.Flusher)
	w.WriteHeader(http.StatusOK)
	for b := data; len(b) > 0; {
		n := min(speechChunkBytes, len(b))
		if _, err := w.Write(b[:n]); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		b = b[n:]
	}
}

// handleTranscription serves POST /v1/audio/transcriptions: the upload must
// be a WAV file of at least 0.1 s; the answer is the next scripted text.
func (s *Server) handleTranscription(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes+1<<20)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "Could not parse multipart form: "+err.Error())
		return
	}
	defer r.MultipartForm.RemoveAll()
	req := TranscriptionRequest{
		Model:          r.FormValue("model"),
		Language:       r.FormValue("language"),
		ResponseFormat: r.FormValue("response_format"),
		Prompt:         r.FormValue("prompt"),
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "missing_required_parameter", "Missing required parameter: 'model'.")
		return
	}
	switch req.ResponseFormat {
	case "", "json", "text", "verbose_json":
	default:
		writeError(w, http.StatusBadRequest, "unsupported_value",
			fmt.Sprintf("response_format '%s' is not supported by this server; use json, text or verbose_json.", req.ResponseFormat))
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "missing_required_parameter", "Missing required parameter: 'file'.")
		return
	}
	defer f.Close()
	req.Filename = hdr.Filename
	pcm, rate, err := wav.Decode(f)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_value",
			"Invalid file format. Supported formats: ['wav'] ("+err.Error()+")")
		return
	}
	req.SampleRateHz = rate
	req.Duration = time.Duration(len(pcm)) * time.Second / time.Duration(rate)
	if req.Duration < minTranscribeAudio {
		writeError(w, http.StatusBadRequest, "audio_too_short", "Audio file is too short. Minimum audio length is 0.1 seconds.")
		return
	}

	s.mu.Lock()
	if len(s.audio.scripts) > 0 {
		req.Text = s.audio.scripts[0]
		s.audio.scripts = s.audio.scripts[1:]
	}
	s.audio.transcriptions = append(s.audio.transcriptions, req)
	s.mu.Unlock()

	switch req.ResponseFormat {
	case "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(req.Text + "\n"))
	case "verbose_json":
		writeAudioJSON(w, map[string]any{
			"task": "transcribe", "language": languageName(req.Language),
			"duration": req.Duration.Seconds(), "text": req.Text, "segments": []any{},
		})
	default:
		writeAudioJSON(w, map[string]any{"text": req.Text})
	}
}

func writeAudioJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func languageName(code string) string {
	if code == "" || strings.HasPrefix(code, "en") {
		return "english"
	}
	return code
}

// speechPCM24k returns the audio for text: flite's voice resampled to
// 24 kHz when flite is installed, else a synthetic voiced signal of 60 ms per
// character (at least 300 ms). Either way a voice activity detector hears
// speech. Results are cached per text and speed.
func (s *Server) speechPCM24k(ctx context.Context, text string, speed float64) []int16 {
	s.mu.Lock()
	synthetic := s.audio.synthetic
	key := fmt.Sprintf("%t|%.3f|%s", synthetic, speed, text)
	pcm, ok := s.audio.cache[key]
	s.mu.Unlock()
	if ok {
		return pcm
	}
	if !synthetic && fliteInstalled() {
		p, err := fliteSpeech(ctx, text, speed)
		if err != nil || len(p) == 0 {
			// Not cached: flite may work next time (a cancelled request).
			return syntheticVoice24k(syntheticLength(text, speed))
		}
		pcm = resample16kTo24k(p)
	} else {
		pcm = syntheticVoice24k(syntheticLength(text, speed))
	}
	s.mu.Lock()
	if s.audio.cache == nil || len(s.audio.cache) >= speechCacheSize {
		s.audio.cache = make(map[string][]int16)
	}
	s.audio.cache[key] = pcm
	s.mu.Unlock()
	return pcm
}

// syntheticLength is 60 ms per character divided by speed, at least 300 ms.
func syntheticLength(text string, speed float64) time.Duration {
	d := time.Duration(float64(time.Duration(utf8.RuneCountInString(text))*syntheticPerChar) / speed)
	return max(syntheticMin, d)
}

var fliteInstalled = sync.OnceValue(func() bool {
	_, err := exec.LookPath("flite")
	return err == nil
})

// fliteSpeech speaks text with flite's slt voice (16 kHz).
func fliteSpeech(ctx context.Context, text string, speed float64) ([]int16, error) {
	dir, err := os.MkdirTemp("", "fakeopenai-speech-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "speech.wav")
	args := []string{"-voice", "slt"}
	if speed != 1 {
		args = append(args, "--setf", "duration_stretch="+strconv.FormatFloat(1/speed, 'f', 3, 64))
	}
	args = append(args, "-t", text, "-o", path)
	if out, err := exec.CommandContext(ctx, "flite", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("flite: %w: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pcm, rate, err := wav.Decode(f)
	if err != nil {
		return nil, err
	}
	if rate != 16000 {
		return nil, errors.New("flite: unexpected sample rate " + strconv.Itoa(rate))
	}
	return pcm, nil
}

// resample16kTo24k converts 16 kHz audio to 24 kHz by linear interpolation.
func resample16kTo24k(in []int16) []int16 {
	out := make([]int16, len(in)*3/2)
	for i := range out {
		pos := float64(i) * 2 / 3
		j := int(pos)
		frac := pos - float64(j)
		a := float64(in[j])
		b := a
		if j+1 < len(in) {
			b = float64(in[j+1])
		}
		out[i] = int16(math.Round(a + (b-a)*frac))
	}
	return out
}

// syntheticVoice24k is a voiced, speech-like signal at 24 kHz: harmonics of
// a 150 Hz fundamental, amplitude-modulated at 4 Hz like syllables, with
// short fades at both ends.
func syntheticVoice24k(d time.Duration) []int16 {
	n := int(d * SpeechSampleRate / time.Second)
	pcm := make([]int16, n)
	fade := SpeechSampleRate / 100 // 10 ms
	for i := range pcm {
		t := float64(i) / SpeechSampleRate
		var v float64
		for h := 1; h <= 8; h++ {
			v += math.Sin(2*math.Pi*150*float64(h)*t) / float64(h)
		}
		env := 0.55 + 0.45*math.Sin(2*math.Pi*4*t-math.Pi/2)
		if i < fade {
			env *= float64(i) / float64(fade)
		}
		if n-1-i < fade {
			env *= float64(n-1-i) / float64(fade)
		}
		pcm[i] = int16(7000 * env * v)
	}
	return pcm
}
