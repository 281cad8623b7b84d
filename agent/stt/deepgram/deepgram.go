// Package deepgram is the Deepgram live speech-to-text engine: a small
// websocket client of Deepgram's /v1/listen streaming API.
//
// Every frame the pipeline writes is streamed (linear16, 16 kHz, mono) in
// messages of about 20 ms. Results become stt events:
//
//   - Results with is_final false and a non-empty transcript → stt.Interim.
//   - Results with is_final true and a non-empty transcript → stt.Final.
//   - SpeechStarted → stt.SpeechStarted.
//   - UtteranceEnd → stt.UtteranceEnd.
//
// UtteranceEnd rule: an stt.UtteranceEnd is emitted once per utterance that
// produced text, at the first of (a) a final Results with speech_final or
// from_finalize true, or (b) Deepgram's UtteranceEnd message. Whichever comes
// second is swallowed, and so is any end marker while no Final with text has
// been emitted since the last UtteranceEnd; an utterance without words yields
// no events at all.
//
// EndOfSpeech sends Finalize so the last words come back at once instead of
// after Deepgram's endpointing delay. When no audio has been sent for the
// KeepAlive interval a KeepAlive message keeps the connection open. If the
// connection drops, the stream reconnects with backoff and sends again the
// audio the lost connection had not finalised (the start of an utterance
// cut in the middle, known from the results' start and duration), then the
// audio written meanwhile: up to ReplayBuffer, 10 s by default, in all.
// When it gives up, Events is closed and Write returns the error. Each drop,
// each loss of audio past the buffer and each give-up is logged and
// reported as an incident.Incident to the observer in NewStream's context.
package deepgram

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/internal/retry"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultURL            = "wss://api.deepgram.com/v1/listen"
	DefaultModel          = "nova-3"
	DefaultLanguage       = "en"
	DefaultEndpointingMs  = 300
	DefaultUtteranceEndMs = 1000
	DefaultKeepAlive      = 5 * time.Second
	// DefaultReplayBuffer is how much audio a stream keeps while
	// disconnected, to replay on the next connection: longer than the
	// reconnection backoff (under 4 s), short enough to bound memory
	// (320 KB).
	DefaultReplayBuffer = 10 * time.Second
)

// Connection behaviour.
const (
	handshakeTimeout = 10 * time.Second
	writeTimeout     = 5 * time.Second
	// closeWait bounds how long Close waits for Deepgram to send its last
	// results and close the connection after CloseStream.
	closeWait = 2 * time.Second
	// Reconnection: first attempt at once, then reconnectBackoff,
	// reconnectAttempts in all.
	reconnectAttempts = 5
	// batchBytes20ms is the size at which written frames are sent as one
	// websocket message.
	batchBytes20ms = stt.SampleRate / 50 * 2
	// outQueue is how many messages may wait for the writer (about 5 s of
	// audio in 20 ms messages) before Write starts dropping audio.
	outQueue = 256
	// eventQueue is the buffer of the Events channel.
	eventQueue = 64
)

// reconnectBackoff is the wait before each reconnection after the first:
// doubling from 250 ms up to 2 s.
var reconnectBackoff = retry.Backoff{First: 250 * time.Millisecond, Max: 2 * time.Second}

// Options configures the engine. Zero fields take the defaults above.
type Options struct {
	// APIKey is the Deepgram API key (DEEPGRAM_API_KEY). Required.
	APIKey string
	// Model is the Deepgram model, "nova-3" by default.
	Model string
	// Language is the BCP-47 language of the speech, "en" by default.
	Language string
	// URL is the live endpoint, wss://api.deepgram.com/v1/listen by default;
	// tests point it at a local fake.
	URL string
	// EndpointingMs is the silence in milliseconds after which Deepgram marks
	// a final result speech_final (default 300; negative disables it).
	EndpointingMs int
	// UtteranceEndMs is the gap in milliseconds after the last word after
	// which Deepgram sends UtteranceEnd (default 1000, minimum 1000).
	UtteranceEndMs int
	// KeepAlive is how long the connection may go without audio before a
	// KeepAlive message is sent (default 5 s; Deepgram closes idle
	// connections after 10 s).
	KeepAlive time.Duration
	// ReplayBuffer is how much audio is kept while disconnected and
	// replayed once reconnected (default 10 s); older audio is dropped
	// first, and its loss reported.
	ReplayBuffer time.Duration
	// Logger receives connection events; slog.Default() when nil.
	Logger *slog.Logger
	// NetDialContext, when set, opens the network connection in place of
	// the default dialer (a proxy, or an in-memory fake in tests).
	NetDialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Engine opens Deepgram live streams. It is safe for concurrent use.
type Engine struct {
	opts   Options
	url    string
	header http.Header
	dialer *websocket.Dialer
	log    *slog.Logger
}

var _ stt.Engine = (*Engine)(nil)

// New checks opts, applies defaults and returns an engine. It does not
// connect: NewStream does.
func New(opts Options) (*Engine, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, errors.New("stt: deepgram: no API key: set DEEPGRAM_API_KEY, or choose another STT engine")
	}
	opts.Model = cmp.Or(opts.Model, DefaultModel)
	opts.Language = cmp.Or(opts.Language, DefaultLanguage)
	opts.URL = cmp.Or(opts.URL, DefaultURL)
	opts.EndpointingMs = cmp.Or(opts.EndpointingMs, DefaultEndpointingMs)
	opts.UtteranceEndMs = cmp.Or(opts.UtteranceEndMs, DefaultUtteranceEndMs)
	if opts.UtteranceEndMs < 1000 {
		return nil, fmt.Errorf("stt: deepgram: UtteranceEndMs %d is below Deepgram's minimum of 1000", opts.UtteranceEndMs)
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = DefaultKeepAlive
	}
	if opts.ReplayBuffer <= 0 {
		opts.ReplayBuffer = DefaultReplayBuffer
	}
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return nil, fmt.Errorf("stt: deepgram: URL %q is not a ws:// or wss:// URL", opts.URL)
	}
	q := u.Query()
	q.Set("model", opts.Model)
	q.Set("language", opts.Language)
	q.Set("encoding", "linear16")
	q.Set("sample_rate", strconv.Itoa(stt.SampleRate))
	q.Set("channels", "1")
	q.Set("interim_results", "true")
	q.Set("punctuate", "true")
	q.Set("smart_format", "true")
	if opts.EndpointingMs < 0 {
		q.Set("endpointing", "false")
	} else {
		q.Set("endpointing", strconv.Itoa(opts.EndpointingMs))
	}
	q.Set("utterance_end_ms", strconv.Itoa(opts.UtteranceEndMs))
	q.Set("vad_events", "true")
	u.RawQuery = q.Encode()

	d := &websocket.Dialer{
		HandshakeTimeout: handshakeTimeout,
		ReadBufferSize:   8 << 10,
		WriteBufferSize:  4 << 10,
	}
	if opts.NetDialContext != nil {
		d.NetDialContext = opts.NetDialContext
	} else {
		d.Proxy = http.ProxyFromEnvironment
	}
	return &Engine{
		opts:   opts,
		url:    u.String(),
		header: http.Header{"Authorization": {"Token " + opts.APIKey}},
		dialer: d,
		log:    opts.Logger.With("stt", "deepgram"),
	}, nil
}

// Name returns "deepgram".
func (e *Engine) Name() string { return "deepgram" }

// NewStream connects to Deepgram and returns a live stream; ctx bounds its
// whole life. A rejected key is an error wrapping stt.ErrAuth.
func (e *Engine) NewStream(ctx context.Context) (stt.Stream, error) {
	conn, err := e.dial(ctx)
	if err != nil {
		return nil, err
	}
	return newStream(ctx, e, conn), nil
}

// Check connects once with the configured key and model and closes again,
// so a rejected key or an unreachable service is reported at startup rather
// than in the first interview. A rejected key wraps stt.ErrAuth.
func (e *Engine) Check(ctx context.Context) error {
	conn, err := e.dial(ctx)
	if err != nil {
		return err
	}
	_ = conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"CloseStream"}`))
	return conn.Close()
}

// dial opens one websocket connection.
func (e *Engine) dial(ctx context.Context) (*websocket.Conn, error) {
	conn, resp, err := e.dialer.DialContext(ctx, e.url, e.header)
	if err == nil {
		return conn, nil
	}
	if resp == nil {
		return nil, fmt.Errorf("stt: deepgram connect: %w", err)
	}
	detail := errorDetail(resp.Body)
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return nil, fmt.Errorf("stt: deepgram connect: the API key was rejected (HTTP 401%s); check DEEPGRAM_API_KEY: %w", detail, stt.ErrAuth)
	case http.StatusForbidden:
		return nil, fmt.Errorf("stt: deepgram connect: the API key may not use this model or feature (HTTP 403%s); check DEEPGRAM_API_KEY's project and the model: %w", detail, stt.ErrAuth)
	case http.StatusBadRequest:
		return nil, fmt.Errorf("stt: deepgram connect: request rejected (HTTP 400%s); check the model and language: %w", detail, err)
	default:
		return nil, fmt.Errorf("stt: deepgram connect: HTTP %d%s: %w", resp.StatusCode, detail, err)
	}
}

// errorDetail extracts Deepgram's error message from a failed handshake's
// body, as ": message", or "".
func errorDetail(body io.Reader) string {
	if body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(body, 1024))
	var e struct {
		Code string `json:"err_code"`
		Msg  string `json:"err_msg"`
	}
	if json.Unmarshal(b, &e) == nil && e.Msg != "" {
		return ": " + e.Msg
	}
	return ""
}

// InLanguage returns an engine like e for speech in tag (es, de-AT), sent
// as the listen URL's language parameter.
func (e *Engine) InLanguage(tag string) stt.Engine {
	c := *e
	c.opts.Language = tag
	u, err := url.Parse(e.url)
	if err != nil {
		return e // New built the URL: it parses
	}
	q := u.Query()
	q.Set("language", tag)
	u.RawQuery = q.Encode()
	c.url = u.String()
	return &c
}
