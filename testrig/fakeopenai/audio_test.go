package fakeopenai

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	webrtcvad "github.com/maxhawkins/go-webrtcvad"
	openai "github.com/sashabaranov/go-openai"

	"github.com/viva-interviews/viva/internal/wav"
)

func postAudio(t *testing.T, url, contentType string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+Key)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// speechPCM asks for speech and returns the decoded 24 kHz samples.
func speechPCM(t *testing.T, s *Server, text, format string) []int16 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini-tts", "input": text, "voice": "alloy", "response_format": format})
	resp := postAudio(t, s.URL+"/audio/speech", "application/json", body)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
		t.Errorf("Transfer-Encoding = %q, want chunked (streamed)", resp.TransferEncoding)
	}
	switch format {
	case "pcm":
		if got := resp.Header.Get("Content-Type"); got != "audio/pcm" {
			t.Errorf("Content-Type = %q, want audio/pcm", got)
		}
		if len(data)%2 != 0 {
			t.Fatalf("pcm body has %d bytes, want whole 16-bit samples", len(data))
		}
		pcm := make([]int16, len(data)/2)
		for i := range pcm {
			pcm[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
		}
		return pcm
	default:
		pcm, rate, err := wav.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("wav body: %v", err)
		}
		if rate != SpeechSampleRate {
			t.Fatalf("wav rate %d, want %d", rate, SpeechSampleRate)
		}
		return pcm
	}
}

func dur24k(pcm []int16) time.Duration {
	return time.Duration(len(pcm)) * time.Second / SpeechSampleRate
}

// voicedShare is the share of 20 ms frames WebRTC's VAD (mode 3, the
// strictest) calls speech, on the audio resampled to 16 kHz.
func voicedShare(t *testing.T, pcm24k []int16) float64 {
	t.Helper()
	vad, err := webrtcvad.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := vad.SetMode(3); err != nil {
		t.Fatal(err)
	}
	pcm16k := make([]int16, len(pcm24k)*2/3)
	for i := range pcm16k {
		pcm16k[i] = pcm24k[i*3/2]
	}
	const frame = 320
	buf := make([]byte, 2*frame)
	var voiced, total int
	for off := 0; off+frame <= len(pcm16k); off += frame {
		for i, v := range pcm16k[off : off+frame] {
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(v))
		}
		ok, err := vad.Process(16000, buf)
		if err != nil {
			t.Fatal(err)
		}
		total++
		if ok {
			voiced++
		}
	}
	return float64(voiced) / float64(total)
}

func pcmRMS(pcm []int16) float64 {
	var sum float64
	for _, v := range pcm {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(pcm)))
}

func TestSpeech(t *testing.T) {
	const short, long = "Hello there.", "Tell me about a project you are proud of and what you learned from it."
	for _, tc := range []struct {
		name      string
		synthetic bool
		format    string
	}{
		{"synthetic pcm", true, "pcm"},
		{"synthetic wav", true, "wav"},
		{"flite pcm", false, "pcm"},
		{"flite wav", false, "wav"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.synthetic && !fliteInstalled() {
				t.Skip("flite is not installed")
			}
			s := New()
			defer s.Close()
			s.audio.synthetic = tc.synthetic
			a, b := speechPCM(t, s, short, tc.format), speechPCM(t, s, long, tc.format)
			if tc.synthetic {
				if got, want := dur24k(a), 720*time.Millisecond; got != want {
					t.Errorf("short text: %v of audio, want %v (60 ms per character)", got, want)
				}
				if got, want := dur24k(b), time.Duration(utf8.RuneCountInString(long))*60*time.Millisecond; got != want {
					t.Errorf("long text: %v of audio, want %v", got, want)
				}
			}
			ratio := float64(len(b)) / float64(len(a))
			wantRatio := float64(len(long)) / float64(len(short))
			if ratio < wantRatio/2 || ratio > wantRatio*2 {
				t.Errorf("long/short audio ratio %.2f, want about %.2f (proportional to text)", ratio, wantRatio)
			}
			if dur24k(a) < 300*time.Millisecond {
				t.Errorf("short text: %v of audio, want at least 300ms", dur24k(a))
			}
			for _, pcm := range [][]int16{a, b} {
				if r := pcmRMS(pcm); r < 500 {
					t.Errorf("RMS %.0f: audio is too quiet to be heard", r)
				}
				if v := voicedShare(t, pcm); v < 0.6 {
					t.Errorf("VAD hears speech in %.0f%% of frames, want at least 60%%", v*100)
				}
			}
			reqs := s.SpeechRequests()
			if len(reqs) != 2 {
				t.Fatalf("recorded %d speech requests, want 2", len(reqs))
			}
			want := SpeechRequest{Model: "gpt-4o-mini-tts", Input: short, Voice: "alloy", ResponseFormat: tc.format, Speed: 1, Samples: len(a)}
			if reqs[0] != want {
				t.Errorf("recorded %+v, want %+v", reqs[0], want)
			}
		})
	}
}

func TestSpeechWithGoOpenAI(t *testing.T) {
	s := New()
	defer s.Close()
	s.audio.synthetic = true
	cfg := openai.DefaultConfig(Key)
	cfg.BaseURL = s.URL
	resp, err := openai.NewClientWithConfig(cfg).CreateSpeech(t.Context(), openai.CreateSpeechRequest{
		Model: openai.TTSModelGPT4oMini, Input: "Welcome to the interview.", Voice: openai.VoiceAlloy,
		ResponseFormat: openai.SpeechResponseFormatPcm, Instructions: "Warm and calm.", Speed: 2,
	})
	if err != nil {
		t.Fatalf("CreateSpeech: %v", err)
	}
	data, err := io.ReadAll(resp)
	resp.Close()
	if err != nil {
		t.Fatal(err)
	}
	// 25 characters at 60 ms each, at double speed: 750 ms.
	if got, want := len(data), 2*SpeechSampleRate*750/1000; got != want {
		t.Errorf("body has %d bytes, want %d", got, want)
	}
	got := s.SpeechRequests()[0]
	if got.Instructions != "Warm and calm." || got.Speed != 2 {
		t.Errorf("recorded %+v, want the instructions and speed sent", got)
	}
}

func TestSpeechValidation(t *testing.T) {
	s := New()
	defer s.Close()
	for _, tc := range []struct {
		name, body, wantCode string
	}{
		{"not JSON", `{"model":`, "invalid_json"},
		{"no model", `{"input":"hi","voice":"alloy","response_format":"pcm"}`, "missing_required_parameter"},
		{"no input", `{"model":"tts-1","voice":"alloy","response_format":"pcm"}`, "missing_required_parameter"},
		{"empty input", `{"model":"tts-1","input":"","voice":"alloy","response_format":"pcm"}`, "missing_required_parameter"},
		{"no voice", `{"model":"tts-1","input":"hi","response_format":"pcm"}`, "missing_required_parameter"},
		{"mp3 by default", `{"model":"tts-1","input":"hi","voice":"alloy"}`, "invalid_value"},
		{"opus", `{"model":"tts-1","input":"hi","voice":"alloy","response_format":"opus"}`, "invalid_value"},
		{"speed out of range", `{"model":"tts-1","input":"hi","voice":"alloy","response_format":"pcm","speed":9}`, "invalid_value"},
		{"input too long", `{"model":"tts-1","input":"` + strings.Repeat("a", 4097) + `","voice":"alloy","response_format":"pcm"}`, "string_above_max_length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := postAudio(t, s.URL+"/audio/speech", "application/json", []byte(tc.body))
			defer resp.Body.Close()
			checkAudioError(t, resp, http.StatusBadRequest, tc.wantCode)
		})
	}
	if n := len(s.SpeechRequests()); n != 0 {
		t.Errorf("recorded %d invalid requests, want 0", n)
	}
}

func checkAudioError(t *testing.T, resp *http.Response, status int, code string) {
	t.Helper()
	e := readAPIError(t, resp, status)
	if e.Code != code || e.Message == "" || e.Type != "invalid_request_error" {
		t.Errorf("error = %+v, want code %q with a message", e, code)
	}
}

func testWAV(t *testing.T, d time.Duration, rate int) []byte {
	t.Helper()
	pcm := make([]int16, int(d*time.Duration(rate)/time.Second))
	for i := range pcm {
		pcm[i] = int16(3000 * math.Sin(float64(i)/5))
	}
	var b bytes.Buffer
	if err := wav.Encode(&b, pcm, rate); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTranscriptions(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptTranscripts("I am Alex.", "I build backends.")
	cfg := openai.DefaultConfig(Key)
	cfg.BaseURL = s.URL
	client := openai.NewClientWithConfig(cfg)
	for i, tc := range []struct {
		format   openai.AudioResponseFormat
		audio    time.Duration
		wantText string
	}{
		{openai.AudioResponseFormatJSON, 1500 * time.Millisecond, "I am Alex."},
		{openai.AudioResponseFormatText, 2 * time.Second, "I build backends."},
		{openai.AudioResponseFormatVerboseJSON, 700 * time.Millisecond, ""}, // script exhausted
	} {
		resp, err := client.CreateTranscription(t.Context(), openai.AudioRequest{
			Model: openai.GPT4oMiniTranscribe, Language: "en", Format: tc.format,
			FilePath: "utterance.wav", Reader: bytes.NewReader(testWAV(t, tc.audio, 16000)),
		})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got := strings.TrimSpace(resp.Text); got != tc.wantText {
			t.Errorf("request %d (%s): text %q, want %q", i, tc.format, got, tc.wantText)
		}
		got := s.TranscriptionRequests()[i]
		want := TranscriptionRequest{Model: openai.GPT4oMiniTranscribe, Language: "en", ResponseFormat: string(tc.format),
			Filename: "utterance.wav", SampleRateHz: 16000, Duration: tc.audio, Text: tc.wantText}
		if got != want {
			t.Errorf("request %d recorded %+v, want %+v", i, got, want)
		}
	}
}

func TestTranscriptionValidation(t *testing.T) {
	s := New()
	defer s.Close()
	s.ScriptTranscripts("kept for the valid request")
	form := func(fields map[string]string, file []byte) (string, []byte) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		for k, v := range fields {
			_ = mw.WriteField(k, v)
		}
		if file != nil {
			fw, _ := mw.CreateFormFile("file", "a.wav")
			_, _ = fw.Write(file)
		}
		_ = mw.Close()
		return mw.FormDataContentType(), b.Bytes()
	}
	model := map[string]string{"model": "gpt-4o-mini-transcribe"}
	for _, tc := range []struct {
		name     string
		fields   map[string]string
		file     []byte
		wantCode string
	}{
		{"not a WAV", model, []byte("ID3 this is an mp3, honestly"), "invalid_value"},
		{"truncated WAV", model, testWAV(t, time.Second, 16000)[:30], "invalid_value"},
		{"too short", model, testWAV(t, 50*time.Millisecond, 16000), "audio_too_short"},
		{"no file", model, nil, "missing_required_parameter"},
		{"no model", map[string]string{}, testWAV(t, time.Second, 16000), "missing_required_parameter"},
		{"srt", map[string]string{"model": "whisper-1", "response_format": "srt"}, testWAV(t, time.Second, 16000), "unsupported_value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := form(tc.fields, tc.file)
			resp := postAudio(t, s.URL+"/audio/transcriptions", ct, body)
			defer resp.Body.Close()
			checkAudioError(t, resp, http.StatusBadRequest, tc.wantCode)
		})
	}
	if n := len(s.TranscriptionRequests()); n != 0 {
		t.Errorf("recorded %d invalid requests, want 0", n)
	}
	ct, body := form(model, testWAV(t, time.Second, 16000))
	resp := postAudio(t, s.URL+"/audio/transcriptions", ct, body)
	defer resp.Body.Close()
	var out struct{ Text string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Text != "kept for the valid request" {
		t.Errorf("valid request after invalid ones: text %q (err %v), want the first script", out.Text, err)
	}
}

// apiErrorBody is the inside of OpenAI's JSON error body.
type apiErrorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
}

// readAPIError checks resp's status and decodes its body, which must be
// OpenAI's JSON error shape.
func readAPIError(t *testing.T, resp *http.Response, status int) apiErrorBody {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("status %d, want %d", resp.StatusCode, status)
	}
	var e struct {
		Error apiErrorBody `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatalf("error body is not OpenAI's JSON shape: %v", err)
	}
	return e.Error
}
