package openai

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
)

// attemptKey is the context key under which one attempt's attemptInfo
// travels to statusRecorder.
type attemptKey struct{}

// attemptInfo is what the HTTP layer saw of one attempt's response, which
// go-openai's errors do not carry (Retry-After).
type attemptInfo struct {
	status int
	header http.Header
}

// statusRecorder is the go-openai HTTP doer: it sends with the configured
// client and notes the status and headers of failed responses in the
// request's attemptInfo.
type statusRecorder struct{ next *http.Client }

// Do sends req and records a failure status and its headers.
func (s statusRecorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := s.next.Do(req)
	if resp != nil && resp.StatusCode >= 400 {
		if info, ok := req.Context().Value(attemptKey{}).(*attemptInfo); ok {
			info.status = resp.StatusCode
			info.header = resp.Header.Clone()
		}
	}
	return resp, err
}

// failure is a classified attempt error.
type failure struct {
	status     int    // HTTP status; 0 when no response
	message    string // the server's message, or a short description
	auth       bool   // the key was rejected
	inStream   bool   // an error event inside an accepted stream
	retryable  bool
	timeout    bool          // a stream timeout fired
	cut        bool          // the stream ended or broke before its finish reason
	retryAfter time.Duration // the server's requested wait, if any
}

// classify decides what an attempt's error means.
func classify(err error, info *attemptInfo) failure {
	var f failure
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	var netErr net.Error
	var timeout *timeoutError
	var cut *cutError
	switch {
	case errors.As(err, &timeout):
		f.message, f.timeout, f.retryable = timeout.Error(), true, true
		return f
	case errors.As(err, &cut) && !errors.As(err, &apiErr):
		f.message, f.cut, f.retryable = cut.Error(), true, true
		return f
	case errors.As(err, &apiErr):
		f.status, f.message = apiErr.HTTPStatusCode, apiErr.Message
		if f.status == 0 {
			// An error event inside a stream: retry only server faults.
			f.inStream = true
			f.retryable = apiErr.Type == "server_error"
		}
	case errors.As(err, &reqErr):
		f.status = reqErr.HTTPStatusCode
		f.message = strings.TrimSpace(string(reqErr.Body))
		if len(f.message) > 200 {
			f.message = f.message[:200] + "…"
		}
		if f.message == "" {
			f.message = http.StatusText(f.status)
		}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &netErr):
		f.message = err.Error()
		f.retryable = true
	default:
		f.message = err.Error()
	}
	if f.status == 0 && info != nil {
		f.status = info.status
	}
	switch {
	case f.status == http.StatusUnauthorized || f.status == http.StatusForbidden:
		f.auth = true
	case f.status == http.StatusRequestTimeout, f.status == http.StatusConflict,
		f.status == http.StatusTooManyRequests, f.status >= 500:
		f.retryable = true
	}
	if f.retryable && info != nil {
		f.retryAfter = retryAfter(info.header, time.Now())
	}
	return f
}

// retryAfter reads the wait a server asks for: retry-after-ms (OpenAI), or
// Retry-After in seconds or as an HTTP date. Zero when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs > 0 {
			return time.Duration(secs * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// wrapped is an error with a message written for people that still unwraps
// to its causes (llm.ErrAuth, go-openai's *APIError, …).
type wrapped struct {
	msg    string
	causes []error
}

func (e *wrapped) Error() string   { return e.msg }
func (e *wrapped) Unwrap() []error { return e.causes }

// wrap returns an error saying msg and wrapping causes.
func wrap(msg string, causes ...error) error { return &wrapped{msg: msg, causes: errs(causes...)} }

// errs lists the non-nil errors among causes.
func errs(causes ...error) []error {
	out := causes[:0:0]
	for _, e := range causes {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
