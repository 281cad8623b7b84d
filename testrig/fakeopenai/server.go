// Package fakeopenai is a local server that speaks OpenAI's HTTP wire format
// (chat completions streamed as server-sent events, audio speech, audio
// transcriptions) so tests run the real client code against it.
package fakeopenai

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Key is the API key the server accepts; any other gets 401 with OpenAI's
// error body.
const Key = "sk-test-viva"

// Server is a running fake. Its URL is the base URL a client is given
// (OPENAI_BASE_URL), ending in /v1.
type Server struct {
	URL string

	srv   *httptest.Server
	mu    sync.Mutex
	chat  chatState  // chat.go
	audio audioState // audio.go
}

// New starts a server on 127.0.0.1. Close it when done.
func New() *Server {
	s := &Server{}
	s.srv = httptest.NewServer(s.auth(s.mux()))
	s.URL = s.srv.URL + "/v1"
	return s
}

// mux routes the API's endpoints to the server's handlers.
func (s *Server) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/audio/speech", s.handleSpeech)
	mux.HandleFunc("POST /v1/audio/transcriptions", s.handleTranscription)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","created":1700000000,"owned_by":"fake"}]}`))
	})
	return mux
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") != Key {
			writeError(w, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeError writes an error in OpenAI's JSON shape.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":{"message":` + quote(msg) + `,"type":"invalid_request_error","code":` + quote(code) + `}}`))
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
