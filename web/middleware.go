package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// contentSecurityPolicy allows only this origin, plus the LiveKit server
// (its websocket address and its http twin, which livekit-client uses to
// validate a failed connection) for connections, and the brand logo's
// origin (logoOrigin, when not empty) for images.
func contentSecurityPolicy(liveKitURL, logoOrigin string) string {
	connect := []string{"'self'"}
	if u, err := url.Parse(liveKitURL); err == nil && u.Host != "" {
		ws, web := "ws", "http"
		if u.Scheme == "wss" || u.Scheme == "https" {
			ws, web = "wss", "https"
		}
		connect = append(connect, ws+"://"+u.Host, web+"://"+u.Host)
		if strings.HasSuffix(u.Hostname(), ".livekit.cloud") {
			// LiveKit Cloud hands out regional servers under the same domain.
			connect = append(connect, "wss://*.livekit.cloud", "https://*.livekit.cloud")
		}
	}
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self'",
		"style-src 'self'",
		strings.TrimSpace("img-src 'self' data: " + logoOrigin),
		"connect-src " + strings.Join(connect, " "),
		"media-src 'self' blob:",
		"frame-ancestors 'none'",
		"base-uri 'none'",
		"form-action 'self'",
	}, "; ")
}

// MetricsPath is where Options.MetricsHandler is served.
const MetricsPath = "/metrics"

// observeRequests counts every request next answers by the route pattern
// mux matched (never the path, which holds interview ids), with its status
// code and duration.
func (s *Server) observeRequests(mux *http.ServeMux, next http.Handler) http.Handler {
	if s.metrics == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			_, pattern := mux.Handler(r)
			s.metrics.Request(pattern, sw.code(), time.Since(start))
		}()
		next.ServeHTTP(sw, r)
	})
}

// statusWriter remembers the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records code and passes it on.
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write passes b on; a response written without WriteHeader is a 200.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the response's status: 200 when nothing set one.
func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

func (s *Server) handleCrossOrigin(w http.ResponseWriter, r *http.Request) {
	s.log.Warn("web: cross-origin request refused", "method", r.Method, "path", r.URL.Path, "origin", r.Header.Get("Origin"))
	msg := "This request came from another site and was refused. Open the page on this site and submit it from there."
	if wantsJSON(r) {
		s.writeJSON(w, http.StatusForbidden, apiError{Error: msg})
		return
	}
	s.renderMessage(w, r, http.StatusForbidden, "Request refused", msg)
}

// securityHeaders sets the headers every response carries.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", s.csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Permissions-Policy", "microphone=(self), camera=(), geolocation=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "no-cache")
		} else {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// recoverPanics turns a panic in a handler into a logged 500 instead of a
// dropped connection.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("web: handler panicked", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				s.serverError(w, r)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
