// Package openai is the llm.Client for OpenAI's chat completions API and any
// server that speaks it (Ollama, vLLM, LM Studio): one streamed completion
// with function tools per call, tool-call deltas accumulated by index,
// retries with backoff on rate limits, server errors and broken connections
// (only while no text has reached the caller), and errors that say what to
// do next.
//
// A stream is watched: no first token within FirstTokenTimeout, or no chunk
// for ChunkGapTimeout once the answer has started, ends the attempt; so
// does a stream that ends before the model's finish reason. Such an attempt
// is retried once from scratch when nothing has reached the caller yet, and
// otherwise returned as an error wrapping llm.ErrCut, never as a complete
// answer. Final errors wrap llm.ErrTimeout, llm.ErrRateLimited,
// llm.ErrUnavailable or llm.ErrCut; every call that met a fault reports an
// incident.Incident to the observer in its context.
package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/internal/openaiapi"
	"github.com/viva-interviews/viva/internal/retry"
)

// DefaultModel is the model used when Options.Model is empty.
const DefaultModel = "gpt-4o-mini"

// DefaultBaseURL is OpenAI's API, used when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults for the retry policy.
const (
	DefaultMaxRetries = 3
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
)

// defaultResponseHeaderTimeout bounds the wait for a server to start
// answering, so a hung server becomes a retryable error instead of a silent
// interviewer.
const defaultResponseHeaderTimeout = 60 * time.Second

// ErrNoAPIKey is returned by New when no API key is given. It wraps
// llm.ErrAuth.
var ErrNoAPIKey error = noKeyError{}

type noKeyError struct{}

func (noKeyError) Error() string {
	return "OPENAI_API_KEY is not set: set it, or use --llm scripted for the offline interviewer"
}

func (noKeyError) Unwrap() error { return llm.ErrAuth }

// Options configure a Client. Only APIKey is required.
type Options struct {
	// APIKey is the bearer key (OPENAI_API_KEY). Local servers that ignore
	// keys still need a non-empty value.
	APIKey string
	// BaseURL is the API root ending in /v1 (OPENAI_BASE_URL), for example
	// http://localhost:11434/v1 for Ollama; empty means OpenAI. A trailing
	// slash is accepted.
	BaseURL string
	// Model is the chat model; empty means DefaultModel.
	Model string
	// Temperature is used when a request does not set one; zero leaves the
	// server's default.
	Temperature float32
	// MaxRetries is how many times a failed request is retried; zero means
	// DefaultMaxRetries, negative means never.
	MaxRetries int
	// Backoff is the base of the exponential backoff between retries (the
	// n-th retry waits about Backoff·2ⁿ⁻¹, with jitter); zero means
	// DefaultBackoff.
	Backoff time.Duration
	// MaxBackoff caps a wait between retries. A server that asks (with
	// Retry-After) for a longer wait gets no retry: the error is returned at
	// once. Zero means DefaultMaxBackoff.
	MaxBackoff time.Duration
	// FirstTokenTimeout bounds the wait, in each attempt, from sending the
	// request to the first token (text or tool call); zero means
	// DefaultFirstTokenTimeout (8 s), negative means no limit.
	FirstTokenTimeout time.Duration
	// ChunkGapTimeout bounds the wait between chunks once the first token
	// has arrived; zero means DefaultChunkGapTimeout (5 s), negative means no
	// limit.
	ChunkGapTimeout time.Duration
	// HTTPClient sends the requests; nil means a client whose transport
	// gives up when a server sends no response headers within 60 s.
	HTTPClient *http.Client
	// Logger receives retry warnings; nil means slog.Default(). The key is
	// never logged.
	Logger *slog.Logger
}

// LogValue keeps the API key out of logs when Options are logged.
func (o Options) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", o.BaseURL),
		slog.String("model", o.Model),
		slog.Bool("api_key_set", o.APIKey != ""),
		slog.Int("max_retries", o.MaxRetries),
	)
}

// String keeps the API key out of formatted output.
func (o Options) String() string {
	return fmt.Sprintf("openai.Options{BaseURL: %q, Model: %q, APIKey set: %t}", o.BaseURL, o.Model, o.APIKey != "")
}

// Client is an llm.Client backed by an OpenAI-compatible chat completions
// API. It is safe for concurrent use.
type Client struct {
	api         *goopenai.Client
	baseURL     string
	model       string
	temperature float32
	maxRetries  int
	backoff     time.Duration
	maxBackoff  time.Duration
	firstToken  time.Duration // ≤ 0: no limit
	chunkGap    time.Duration // ≤ 0: no limit
	log         *slog.Logger
	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter picks each wait in [d/2, d] (see retry.Backoff); tests may
	// replace it.
	jitter func() float64
}

var _ llm.Client = (*Client)(nil)

// New checks the options and returns a Client. It makes no request.
func New(opts Options) (*Client, error) {
	if !openaiapi.HasKey(opts.APIKey) {
		return nil, ErrNoAPIKey
	}
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: openai: OPENAI_BASE_URL %q is not an http(s) URL: use the API root, for example https://api.openai.com/v1 or http://localhost:11434/v1", opts.BaseURL)
	}

	httpClient := opts.HTTPClient
	if httpClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = defaultResponseHeaderTimeout
		httpClient = &http.Client{Transport: tr}
	}
	cfg := openaiapi.Config(opts.APIKey, base)
	cfg.HTTPClient = statusRecorder{next: httpClient}

	c := &Client{
		api:         goopenai.NewClientWithConfig(cfg),
		baseURL:     base,
		model:       cmp.Or(opts.Model, DefaultModel),
		temperature: opts.Temperature,
		maxRetries:  opts.MaxRetries,
		backoff:     opts.Backoff,
		maxBackoff:  opts.MaxBackoff,
		firstToken:  cmp.Or(opts.FirstTokenTimeout, DefaultFirstTokenTimeout),
		chunkGap:    cmp.Or(opts.ChunkGapTimeout, DefaultChunkGapTimeout),
		log:         opts.Logger,
		sleep:       retry.Sleep,
		jitter:      rand.Float64,
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.backoff <= 0 {
		c.backoff = DefaultBackoff
	}
	if c.maxBackoff <= 0 {
		c.maxBackoff = DefaultMaxBackoff
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With("llm", engineName, "base_url", base, "model", c.model)
	return c, nil
}

// Model is the model the client asks for.
func (c *Client) Model() string { return c.model }

// Complete streams one chat completion; see llm.Client. A failed attempt is
// retried (429, 5xx, connection errors: up to MaxRetries; timeouts and cut
// streams: once) only while no text has been passed to onDelta, so text is
// never delivered twice. When an error ends a stream after text was
// delivered, the returned Response holds what arrived and the error wraps
// llm.ErrCut: that text is not a whole answer. FirstToken counts from the
// call, retries included, because that is the wait the candidate hears.
func (c *Client) Complete(ctx context.Context, req llm.Request, onDelta func(text string)) (resp llm.Response, err error) {
	creq, err := c.request(req)
	if err != nil {
		return llm.Response{}, err
	}
	start := time.Now()
	var history faults
	defer func() { history.report(ctx, err, start) }()
	quick := 0 // retries spent on timeouts and cuts
	for attempt := 0; ; attempt++ {
		var info attemptInfo
		resp, delivered, err := c.attempt(context.WithValue(ctx, attemptKey{}, &info), creq, start, onDelta, req.TextDone)
		if err == nil {
			return resp, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return resp, fmt.Errorf("llm: openai: %w", ctxErr)
		}
		f := classify(err, &info)
		if f.auth {
			return resp, wrap(fmt.Sprintf("llm: openai: %s rejected the API key (HTTP %d: %s): check OPENAI_API_KEY, and OPENAI_BASE_URL if you use another OpenAI-compatible server",
				c.baseURL, f.status, f.message), llm.ErrAuth, err)
		}
		history.add(attempt+1, f)
		if !f.retryable {
			return resp, c.finalError(f, err, attempt+1)
		}
		if delivered {
			c.log.Warn("llm stream failed after text was delivered; the partial answer is dropped", "attempt", attempt+1, "error", f.message)
			return resp, wrap(fmt.Sprintf("llm: openai: stream broke after text was delivered (not retried, to avoid repeating it; the text is a partial answer): %s", f.message),
				llm.ErrCut, f.kindErr(), err)
		}
		if f.timeout || f.cut {
			if quick >= maxQuickRetries || attempt >= c.maxRetries {
				return resp, c.finalError(f, err, attempt+1)
			}
			quick++
		} else if attempt >= c.maxRetries {
			return resp, c.finalError(f, err, attempt+1)
		}
		wait := retry.Backoff{First: c.backoff, Max: c.maxBackoff, Jitter: c.jitter}.Delay(attempt)
		if f.timeout {
			wait = 0 // the candidate has already waited: ask again at once
		}
		if f.retryAfter > 0 {
			if f.retryAfter > c.maxBackoff {
				return resp, wrap(fmt.Sprintf("llm: openai: %s asks to retry after %s, longer than the %s this client waits (HTTP %d: %s): try again later or raise the rate limit",
					c.baseURL, f.retryAfter, c.maxBackoff, f.status, f.message), f.kindErr(), err)
			}
			wait = f.retryAfter
		}
		c.log.Warn("llm request failed, retrying",
			"attempt", attempt+1, "max_retries", c.maxRetries, "status", f.status, "wait", wait, "error", f.message)
		if wait > 0 {
			if err := c.sleep(ctx, wait); err != nil {
				return llm.Response{}, fmt.Errorf("llm: openai: waiting to retry: %w", err)
			}
		}
	}
}

// finalError words an error that ends Complete.
func (c *Client) finalError(f failure, err error, attempts int) error {
	kind := f.kindErr()
	switch {
	case f.timeout:
		return wrap(fmt.Sprintf("llm: openai: %s timed out after %d attempt(s): %s; check the model's load, or raise the stream timeouts for a slow local server",
			c.baseURL, attempts, f.message), kind, err)
	case f.cut:
		return wrap(fmt.Sprintf("llm: openai: %s cut the stream after %d attempt(s): %s", c.baseURL, attempts, f.message), kind, err)
	case f.inStream:
		return wrap(fmt.Sprintf("llm: openai: %s reported an error mid-stream after %d attempt(s): %s", c.baseURL, attempts, f.message), kind, err)
	case f.status == http.StatusNotFound:
		return wrap(fmt.Sprintf("llm: openai: %s answered 404 (%s): check the model name %q and that OPENAI_BASE_URL is the API root ending in /v1",
			c.baseURL, f.message, c.model), err)
	case f.status >= 400 && f.status < 500 && f.status != http.StatusTooManyRequests:
		return wrap(fmt.Sprintf("llm: openai: request rejected (HTTP %d): %s", f.status, f.message), err)
	case f.status != 0:
		return wrap(fmt.Sprintf("llm: openai: %s failed after %d attempt(s) (HTTP %d: %s)", c.baseURL, attempts, f.status, f.message), kind, err)
	case f.retryable:
		return wrap(fmt.Sprintf("llm: openai: no answer from %s after %d attempt(s): check OPENAI_BASE_URL and the network: %v", c.baseURL, attempts, err), kind, err)
	default:
		return fmt.Errorf("llm: openai: %w", err)
	}
}

// request builds the go-openai request for an llm.Request.
func (c *Client) request(req llm.Request) (goopenai.ChatCompletionRequest, error) {
	msgs, err := messages(req.Messages)
	if err != nil {
		return goopenai.ChatCompletionRequest{}, err
	}
	temp := req.Temperature
	if temp == 0 {
		temp = c.temperature
	}
	format, err := responseFormat(req.Format, len(req.Tools))
	if err != nil {
		return goopenai.ChatCompletionRequest{}, err
	}
	return goopenai.ChatCompletionRequest{
		Model:          c.model,
		Messages:       msgs,
		Tools:          tools(req.Tools),
		Temperature:    temp,
		Stream:         true,
		ResponseFormat: format,
	}, nil
}

// attempt runs one streamed request under a watchdog. delivered reports
// whether onDelta was called. A stream that ends or breaks before its
// finish reason is a *cutError; a watchdog timeout is a *timeoutError.
func (c *Client) attempt(ctx context.Context, creq goopenai.ChatCompletionRequest, start time.Time, onDelta func(string), textDone func()) (resp llm.Response, delivered bool, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := &watchdog{cancel: cancel, firstToken: c.firstToken, gap: c.chunkGap}
	wd.start()
	defer wd.stop()
	// timedOut puts the watchdog's verdict in place of the error it caused.
	timedOut := func(err error) error {
		var t *timeoutError
		if cause := context.Cause(actx); ctx.Err() == nil && errors.As(cause, &t) {
			return t
		}
		return err
	}

	stream, err := c.api.CreateChatCompletionStream(actx, creq)
	if err != nil {
		return llm.Response{}, false, timedOut(err)
	}
	defer stream.Close()
	var acc accumulator
	started := false // a token has arrived: the gap timeout applies
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if acc.finish == "" {
				return acc.response(), delivered, &cutError{}
			}
			break
		}
		if err != nil {
			if t := timedOut(err); t != err {
				return acc.response(), delivered, t
			}
			var apiErr *goopenai.APIError
			if ctx.Err() == nil && !errors.As(err, &apiErr) {
				err = &cutError{cause: err}
			}
			return acc.response(), delivered, err
		}
		if ctx.Err() != nil {
			// Never deliver text of a stale generation.
			return acc.response(), delivered, ctx.Err()
		}
		text, token := acc.add(chunk)
		if token && acc.firstToken == 0 {
			acc.firstToken = max(time.Since(start), time.Nanosecond)
		}
		if token || started {
			started = true
			wd.chunk()
		}
		if text != "" && onDelta != nil {
			onDelta(text)
			delivered = true
		}
		if textDone != nil && delivered && len(acc.calls) > 0 {
			textDone()
			textDone = nil
		}
	}
	return acc.response(), delivered, nil
}

// Check asks the server for its models with the configured key, so a
// rejected key or a wrong OPENAI_BASE_URL is reported at startup rather than
// in the first interview. A rejected key wraps llm.ErrAuth.
func (c *Client) Check(ctx context.Context) error {
	_, err := c.api.ListModels(ctx)
	if err == nil {
		return nil
	}
	status := openaiapi.HTTPStatus(err)
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("llm: openai: the server at %s rejected OPENAI_API_KEY (HTTP %d): check the key and OPENAI_BASE_URL: %w", c.baseURL, status, llm.ErrAuth)
	case 0:
		return fmt.Errorf("llm: openai: cannot reach %s: %v; check OPENAI_BASE_URL and the network", c.baseURL, err)
	default:
		return fmt.Errorf("llm: openai: checking the key at %s: %w", c.baseURL, err)
	}
}
