// Package fakedeepgram is a local websocket server that speaks Deepgram's
// live transcription wire format (GET /v1/listen upgraded to a websocket:
// binary linear16 audio in; Results, SpeechStarted, UtteranceEnd and Metadata
// JSON messages out; KeepAlive, Finalize and CloseStream control messages).
//
// It does not recognise speech. It finds utterances in the audio it receives
// with a small energy detector of its own and answers each one with the next
// transcript scripted by the test, so the real client code and the whole
// voice pipeline run against it unchanged.
package fakedeepgram

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/viva-interviews/viva/testrig/pipenet"
)

// Key is the only API key the server accepts (header "Authorization: Token
// dg-test-viva"); any other gets 401 at the handshake, as Deepgram does.
const Key = "dg-test-viva"

// SampleRate16kHz is the only audio rate the server accepts (sample_rate=16000).
const SampleRate16kHz = 16000

// IdleTimeout is how long a connection may go without audio or a KeepAlive
// before the server closes it with code 1011 (Deepgram's NET-0001 timeout).
const IdleTimeout = 10 * time.Second

// Server is a running fake. It is safe for concurrent use.
type Server struct {
	// URL is the websocket endpoint to give the client, e.g.
	// ws://127.0.0.1:41234/v1/listen.
	URL string

	srv       *http.Server
	pipe      *pipenet.Listener // non-nil for NewInMemory servers
	serveDone chan struct{}
	handlers  sync.WaitGroup

	mu          sync.Mutex
	closed      bool
	scripts     []string
	conns       map[*websocket.Conn]struct{}
	connections int
	refuse      int
	queries     []url.Values
	samples     int64 // audio samples received over all connections
	keepAlives  int
	finalizes   int
	closeStream int
}

var upgrader = websocket.Upgrader{
	ReadBufferSize:  16 << 10,
	WriteBufferSize: 16 << 10,
	// Deepgram accepts connections from any origin (browsers send tokens).
	CheckOrigin: func(*http.Request) bool { return true },
}

// New starts a server listening on 127.0.0.1 with a free port. Close it when
// done.
func New() *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakedeepgram: listen: %v", err))
	}
	s := newServer(ln)
	s.URL = "ws://" + ln.Addr().String() + "/v1/listen"
	return s
}

// inMemoryHost is the host name of a NewInMemory server's URL.
const inMemoryHost = "deepgram.in-memory"

// NewInMemory starts a server that is reachable only through DialContext,
// over in-memory pipes instead of sockets. Tests that run under
// testing/synctest use it: goroutines blocked on a real socket keep a bubble's
// fake clock from advancing, goroutines blocked on a pipe do not. Call it
// inside the bubble.
func NewInMemory() *Server {
	pl := pipenet.Listen(inMemoryHost)
	s := newServer(pl)
	s.pipe = pl
	s.URL = "ws://" + inMemoryHost + "/v1/listen"
	return s
}

func newServer(ln net.Listener) *Server {
	s := &Server{conns: make(map[*websocket.Conn]struct{}), serveDone: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/listen", s.handleListen)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.serveDone)
		_ = s.srv.Serve(ln)
	}()
	return s
}

// DialContext opens an in-memory connection to a NewInMemory server; give it
// to the client as its dial function. The address is ignored.
func (s *Server) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.pipe == nil {
		return nil, errors.New("fakedeepgram: DialContext needs a server made by NewInMemory")
	}
	return s.pipe.Dial(ctx, network, addr)
}

// Close stops the server and ends every open connection abruptly.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.NetConn().Close()
	}
	s.mu.Unlock()
	_ = s.srv.Close()
	<-s.serveDone
	s.handlers.Wait()
}

// ScriptTranscripts queues transcripts: each utterance the server detects,
// on any connection, is answered with the next one. When the queue is empty
// utterances get an empty transcript.
func (s *Server) ScriptTranscripts(texts ...string) {
	s.mu.Lock()
	s.scripts = append(s.scripts, texts...)
	s.mu.Unlock()
}

// Connections reports how many websocket connections the server has accepted
// so far (a reconnecting client adds one per reconnect).
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// DropConnections breaks every open connection without a closing handshake,
// as a network failure would, so tests can exercise reconnection.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.NetConn().Close()
	}
}

// RefuseConnections makes the next n handshakes fail with 503, as an
// overloaded service would; reconnecting clients must retry.
func (s *Server) RefuseConnections(n int) {
	s.mu.Lock()
	s.refuse += n
	s.mu.Unlock()
}

// Received is the duration of audio received over all connections.
func (s *Server) Received() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.samples) * time.Second / SampleRate16kHz
}

// KeepAlives counts the KeepAlive messages received.
func (s *Server) KeepAlives() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keepAlives
}

// Finalizes counts the Finalize messages received.
func (s *Server) Finalizes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finalizes
}

// CloseStreams counts the CloseStream messages received.
func (s *Server) CloseStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeStream
}

// Queries returns the query parameters of every accepted connection, oldest
// first.
func (s *Server) Queries() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]url.Values, len(s.queries))
	copy(out, s.queries)
	return out
}

func (s *Server) nextScript() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.scripts) == 0 {
		return ""
	}
	t := s.scripts[0]
	s.scripts = s.scripts[1:]
	return t
}

func (s *Server) count(field *int) {
	s.mu.Lock()
	*field++
	s.mu.Unlock()
}

func (s *Server) handleListen(w http.ResponseWriter, r *http.Request) {
	requestID := newID()
	w.Header().Set("dg-request-id", requestID)
	if r.Header.Get("Authorization") != "Token "+Key {
		writeHTTPError(w, http.StatusUnauthorized, "INVALID_AUTH", "Invalid credentials.", requestID)
		return
	}
	q := r.URL.Query()
	if msg := validateQuery(q); msg != "" {
		writeHTTPError(w, http.StatusBadRequest, "Bad Request", msg, requestID)
		return
	}
	s.mu.Lock()
	if s.refuse > 0 {
		s.refuse--
		s.mu.Unlock()
		writeHTTPError(w, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "The service is temporarily unavailable.", requestID)
		return
	}
	if s.closed {
		s.mu.Unlock()
		writeHTTPError(w, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "The server is shutting down.", requestID)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	conn, err := upgrader.Upgrade(w, r, http.Header{"dg-request-id": {requestID}})
	if err != nil {
		return // Upgrade has answered the client.
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	s.conns[conn] = struct{}{}
	s.connections++
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
	}()
	newSession(s, conn, q, requestID).run()
}

// validateQuery checks the parameters the fake depends on, with messages in
// the spirit of Deepgram's 400 answers. It returns "" when they are fine.
func validateQuery(q url.Values) string {
	if q.Get("model") == "" {
		return "Missing required parameter: model."
	}
	want := map[string]string{"encoding": "linear16", "sample_rate": strconv.Itoa(SampleRate16kHz), "channels": "1"}
	for _, k := range []string{"encoding", "sample_rate", "channels"} {
		if got := q.Get(k); got != want[k] {
			return fmt.Sprintf("Unsupported %s %q: this server accepts only %s=%s.", k, got, k, want[k])
		}
	}
	for _, k := range []string{"interim_results", "punctuate", "smart_format", "vad_events"} {
		if v := q.Get(k); v != "" && v != "true" && v != "false" {
			return fmt.Sprintf("Invalid %s %q: want true or false.", k, v)
		}
	}
	if v := q.Get("endpointing"); v != "" && v != "false" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return fmt.Sprintf("Invalid endpointing %q: want a number of milliseconds or false.", v)
		}
	}
	if v := q.Get("utterance_end_ms"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1000 {
			return fmt.Sprintf("Invalid utterance_end_ms %q: want a number of milliseconds, at least 1000.", v)
		}
	}
	return ""
}

func writeHTTPError(w http.ResponseWriter, status int, code, msg, requestID string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"err_code":%q,"err_msg":%q,"request_id":%q}`, code, msg, requestID)
}

// newID returns a random UUID (version 4) string.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
