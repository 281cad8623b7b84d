package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews/filestore"
)

func TestNewValidatesOptions(t *testing.T) {
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := func() Options {
		return Options{Store: store, LiveKitURL: testLiveKitURL, APIKey: testAPIKey, APISecret: testAPISecret, ReviewerToken: testReviewerToken}
	}
	tests := []struct {
		name    string
		edit    func(*Options)
		wantErr string // empty: New succeeds
	}{
		{"defaults", func(*Options) {}, ""},
		{"no store", func(o *Options) { o.Store = nil }, "no interview store"},
		{"no livekit url", func(o *Options) { o.LiveKitURL = "" }, "set LIVEKIT_URL"},
		{"ftp livekit url", func(o *Options) { o.LiveKitURL = "ftp://host:7880" }, `scheme "ftp"`},
		{"livekit url without host", func(o *Options) { o.LiveKitURL = "ws://" }, "is not a ws://"},
		{"https livekit url", func(o *Options) { o.LiveKitURL = "https://x.livekit.cloud" }, ""},
		{"no key", func(o *Options) { o.APIKey = "" }, "LIVEKIT_API_KEY"},
		{"no secret", func(o *Options) { o.APISecret = "" }, "LIVEKIT_API_SECRET"},
		{"short reviewer token", func(o *Options) { o.ReviewerToken = "short" }, "VIVA_REVIEWER_TOKEN"},
		{"tiny ttl", func(o *Options) { o.TokenTTL = time.Second }, "at least 1m"},
		{"negative rejoin grace", func(o *Options) { o.RejoinGrace = -time.Second }, "rejoin grace -1s is negative"},
		{"bad public url", func(o *Options) { o.PublicURL = "interviews.example.com" }, "public URL"},
		{"good public url", func(o *Options) { o.PublicURL = "https://interviews.example.com/" }, ""},
		{"empty blueprint name", func(o *Options) { o.Blueprints = []string{"default", " "} }, "blueprint name is empty"},
		{"negative rate limit", func(o *Options) { o.RateLimit = -1 }, "rate limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good()
			tt.edit(&o)
			s, err := New(o)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if s.Handler() == nil {
					t.Fatal("nil handler")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.AgentName, o.TokenTTL, o.RateLimit = "", 0, 0 })
	if ts.registrar.tokens.agentName != config.DefaultAgentName || ts.registrar.tokens.tokenTTL != config.DefaultTokenTTL {
		t.Errorf("agent %q ttl %s, want %q %s", ts.registrar.tokens.agentName, ts.registrar.tokens.tokenTTL, config.DefaultAgentName, config.DefaultTokenTTL)
	}
	if got := ts.registrar.blueprints[0].Name; got != "default" {
		t.Errorf("first blueprint %q, want default", got)
	}
	ts2 := newTestServer(t, func(o *Options) { o.Blueprints = []string{"system-design", "default", "default"} })
	if len(ts2.registrar.blueprints) != 2 || ts2.registrar.blueprints[0].Name != "default" {
		t.Errorf("blueprints %+v, want default first and no duplicates", ts2.registrar.blueprints)
	}
}

func TestSecurityHeaders(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada", "role": "Engineer"}).ID
	requests := map[string]*http.Request{
		"form":        httptest.NewRequest(http.MethodGet, "/", nil),
		"healthz":     httptest.NewRequest(http.MethodGet, "/healthz", nil),
		"static":      httptest.NewRequest(http.MethodGet, "/static/app.css", nil),
		"login":       httptest.NewRequest(http.MethodGet, "/review/login", nil),
		"review 303":  httptest.NewRequest(http.MethodGet, "/review", nil),
		"api 401":     httptest.NewRequest(http.MethodGet, "/api/interviews", nil),
		"room":        httptest.NewRequest(http.MethodGet, "/interview/"+id, nil),
		"room 404":    httptest.NewRequest(http.MethodGet, "/interview/nope", nil),
		"join":        httptest.NewRequest(http.MethodPost, "/api/interviews/"+id+"/join", nil),
		"unsupported": httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader("x")),
	}
	want := map[string]string{
		"Content-Security-Policy":    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:7880 http://127.0.0.1:7880; media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
		"X-Content-Type-Options":     "nosniff",
		"Referrer-Policy":            "no-referrer",
		"X-Frame-Options":            "DENY",
		"Cross-Origin-Opener-Policy": "same-origin",
	}
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			rec := ts.do(req)
			h := rec.Header()
			for k, v := range want {
				if got := h.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if got := h.Get("Permissions-Policy"); !strings.Contains(got, "microphone=(self)") {
				t.Errorf("Permissions-Policy = %q, want microphone=(self)", got)
			}
			if name != "static" && h.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", h.Get("Cache-Control"))
			}
			for k := range h {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("CORS header %s set", k)
				}
			}
		})
	}
}

func TestContentSecurityPolicyLiveKit(t *testing.T) {
	tests := []struct{ url, want string }{
		{"ws://127.0.0.1:7880", "connect-src 'self' ws://127.0.0.1:7880 http://127.0.0.1:7880;"},
		{"wss://lk.example.com", "connect-src 'self' wss://lk.example.com https://lk.example.com;"},
		{"https://lk.example.com:8443", "connect-src 'self' wss://lk.example.com:8443 https://lk.example.com:8443;"},
		{"wss://proj.livekit.cloud", "connect-src 'self' wss://proj.livekit.cloud https://proj.livekit.cloud wss://*.livekit.cloud https://*.livekit.cloud;"},
	}
	for _, tt := range tests {
		if got := contentSecurityPolicy(tt.url, ""); !strings.Contains(got, tt.want) {
			t.Errorf("CSP for %s = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestHealthzAndStatic(t *testing.T) {
	ts := newTestServer(t)
	if rec := ts.get("/healthz"); rec.Code != 200 || rec.Body.String() != "ok" {
		t.Errorf("healthz: %d %q", rec.Code, rec.Body)
	}
	rec := ts.get("/static/app.css")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") || !strings.Contains(rec.Body.String(), ":focus-visible") {
		t.Errorf("app.css: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, p := range []string{"/static/", "/static/dist/", "/static/nope.js"} {
		if rec := ts.get(p); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404 (no listings)", p, rec.Code)
		}
	}
}

func TestRegistrationFormPage(t *testing.T) {
	ts := newTestServer(t)
	rec := ts.get("/", "Authorization", "Bearer "+ts.tokens[testRecruiter])
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{
		`<form class="form" method="post" action="/api/interviews" enctype="multipart/form-data"`,
		`<label for="name">`, `<label for="email">`, `<label for="role">`, `<label for="level">`,
		`<label for="blueprint">`, `<label for="job_description">`, `<label for="resume">`,
		`<option value="staff">Staff</option>`, `<option value="entry">Entry</option>`,
		`<option value="default" selected>`, `value="system-design"`,
		`name="resume" type="file"`, `maxlength="20000"`,
		`<link rel="stylesheet" href="/static/app.css">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("form page lacks %q", want)
		}
	}
	if strings.Count(body, "<script") != strings.Count(body, `<script src="/static/`) || strings.Contains(body, " style=") || strings.Contains(body, "onclick") {
		t.Error("form page has inline script or style")
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name   string
		path   string
		header map[string]string
		want   int
	}{
		{"cross-site fetch", "/review/login", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"foreign origin", "/review/login", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"foreign origin api", "/api/token", map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json"}, http.StatusForbidden},
		{"same origin", "/review/login", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusUnauthorized},
		{"trusted public origin", "/review/login", map[string]string{"Origin": "https://interviews.example.com"}, http.StatusUnauthorized},
		{"no browser headers", "/review/login", nil, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader("password=wrong"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if rec := ts.do(req); rec.Code != tt.want {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
		})
	}
}

func TestJoinURLWithoutPublicURL(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.PublicURL = "" })
	for _, tls := range []bool{false, true} {
		req := httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader(`{"name":"Ada","role":"x"}`))
		req.Host = "interviews.local:8080"
		req.Header.Set("Content-Type", "application/json")
		want := "http://interviews.local:8080/interview/"
		if tls {
			req = httptest.NewRequest(http.MethodPost, "https://interviews.local:8080/api/interviews", strings.NewReader(`{"name":"Ada","role":"x"}`))
			req.Header.Set("Content-Type", "application/json")
			want = "https://interviews.local:8080/interview/"
		}
		ts.authorize(req, testRecruiter)
		got := decodeJSON[createdResponse](t, ts.do(req).Body)
		if got.JoinURL != want+got.ID {
			t.Errorf("join_url %q, want %s%s", got.JoinURL, want, got.ID)
		}
	}
}
