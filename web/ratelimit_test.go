package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRateLimitEndpoints(t *testing.T) {
	tests := []struct {
		name    string
		request func() *http.Request
		okCode  int
	}{
		{"create", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader(`{"name":"Ada","role":"x"}`))
			r.Header.Set("Content-Type", "application/json")
			return r
		}, http.StatusCreated},
		{"token", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/api/token", strings.NewReader(`{"name":"Ada","role":"x"}`))
			r.Header.Set("Content-Type", "application/json")
			return r
		}, http.StatusOK},
		{"join", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/api/interviews/0000000000000000/join", nil)
		}, http.StatusNotFound},
		{"login", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/review/login", strings.NewReader("password=wrong"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, func(o *Options) { o.RateLimit = 3 })
			send := func(addr string) *httptest.ResponseRecorder {
				r := tt.request()
				r.RemoteAddr = addr
				ts.authorize(r, testRecruiter)
				return ts.do(r)
			}
			for i := range 3 {
				if rec := send("203.0.113.5:1000"); rec.Code != tt.okCode {
					t.Fatalf("request %d: status %d, want %d: %s", i+1, rec.Code, tt.okCode, rec.Body)
				}
			}
			rec := send("203.0.113.5:2000")
			if rec.Code != http.StatusTooManyRequests {
				t.Fatalf("request 4: status %d, want 429", rec.Code)
			}
			if got := rec.Header().Get("Retry-After"); got != "20" {
				t.Errorf("Retry-After %q, want 20 (one request every 20 s at 3 a minute)", got)
			}
			if !strings.Contains(rec.Body.String(), "Too many requests") {
				t.Errorf("429 body %q", rec.Body)
			}
			// Another address has its own bucket.
			if rec := send("203.0.113.6:1000"); rec.Code != tt.okCode {
				t.Errorf("other client: status %d", rec.Code)
			}
			// A token comes back after 20 s.
			ts.clock.Advance(19 * time.Second)
			if rec := send("203.0.113.5:1000"); rec.Code != http.StatusTooManyRequests {
				t.Errorf("after 19 s: status %d, want 429", rec.Code)
			}
			ts.clock.Advance(time.Second)
			if rec := send("203.0.113.5:1000"); rec.Code != tt.okCode {
				t.Errorf("after 20 s: status %d, want %d", rec.Code, tt.okCode)
			}
		})
	}
}

func TestRateLimitAnswersInKind(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.RateLimit = 1 })
	post := func(accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader("name=Ada&role=x&ui=html"))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Accept", accept)
		return ts.do(r)
	}
	post("text/html")
	if rec := post("text/html"); rec.Code != 429 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Errorf("browser: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := post("application/json"); rec.Code != 429 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("API client: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestClientKey(t *testing.T) {
	tests := []struct{ remote, want string }{
		{"198.51.100.7:4000", "198.51.100.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{"[::ffff:198.51.100.7]:80", "198.51.100.7"},
		{"pipe", "pipe"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tt.remote
		if got := clientKey(r); got != tt.want {
			t.Errorf("clientKey(%q) = %q, want %q", tt.remote, got, tt.want)
		}
	}
}
