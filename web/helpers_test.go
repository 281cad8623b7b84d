package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews/filestore"
)

const (
	testReviewerToken = "reviewer-token-0123456789abcdef"
	testAPIKey        = "devkey"
	testAPISecret     = "secret-secret-secret-secret-secret"
	testLiveKitURL    = "ws://127.0.0.1:7880"
	testUserPassword  = "a user password 0123"
)

// Test users, one per role.
const (
	testAdmin     = "admin@example.com"
	testRecruiter = "recruiter@example.com"
	testReviewer  = "reviewer@example.com"
)

// testHashParams keep password hashing cheap in tests.
var testHashParams = accounts.Params{Time: 1, MemoryKiB: 64, Threads: 1}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testServer is a Server on a fresh store with a fake clock.
type testServer struct {
	*Server
	h     http.Handler
	store *filestore.Store
	clock *fakeClock
	logs  *syncBuffer
	// users holds the test users (testAdmin, testRecruiter, testReviewer).
	users *accounts.Service
	// tokens are the test users' API tokens, by email address.
	tokens map[string]string
}

// syncBuffer collects logs from concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestServer(t testing.TB, edit ...func(*Options)) *testServer {
	t.Helper()
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	logs := &syncBuffer{}
	ctx := t.Context()
	userStore, err := accounts.OpenFile(t.TempDir() + "/users.json")
	if err != nil {
		t.Fatal(err)
	}
	users, err := accounts.NewService(userStore, testHashParams, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for email, role := range map[string]accounts.Role{testAdmin: accounts.RoleAdmin, testRecruiter: accounts.RoleRecruiter, testReviewer: accounts.RoleReviewer} {
		if _, err := users.AddUser(ctx, email, role, testUserPassword); err != nil {
			t.Fatal(err)
		}
		if tokens[email], err = users.CreateToken(ctx, email); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{
		Accounts:      users,
		Store:         store,
		LiveKitURL:    testLiveKitURL,
		APIKey:        testAPIKey,
		APISecret:     testAPISecret,
		ReviewerToken: testReviewerToken,
		TokenTTL:      90 * time.Minute,
		PublicURL:     "https://interviews.example.com",
		Logger:        slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:           clock.Now,
		RateLimit:     1000,
	}
	for _, e := range edit {
		e(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &testServer{Server: s, h: s.Handler(), store: store, clock: clock, logs: logs, users: users, tokens: tokens}
}

// do serves req and returns the recorded response.
func (ts *testServer) do(req *http.Request) *httptest.ResponseRecorder {
	if req.RemoteAddr == "" || req.RemoteAddr == "192.0.2.1:1234" {
		req.RemoteAddr = "198.51.100.7:40000"
	}
	rec := httptest.NewRecorder()
	ts.h.ServeHTTP(rec, req)
	return rec
}

// agree is the body of a join request whose candidate agreed to the
// server's consent notice.
func (ts *testServer) agree() string {
	return `{"consent":true,"consent_version":"` + ts.room.consent.For("").Version + `"}`
}

func (ts *testServer) get(path string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return ts.do(req)
}

func (ts *testServer) postJSON(path string, body any) *httptest.ResponseRecorder {
	var data []byte
	switch b := body.(type) {
	case string:
		data = []byte(b)
	case []byte:
		data = b
	default:
		var err error
		if data, err = json.Marshal(body); err != nil {
			panic(err)
		}
	}
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	ts.authorize(req, testRecruiter)
	return ts.do(req)
}

// authorize makes req carry the API token of the test user email (unless
// email is empty: an anonymous request).
func (ts *testServer) authorize(req *http.Request, email string) {
	if email != "" {
		req.Header.Set("Authorization", "Bearer "+ts.tokens[email])
	}
}

// formFile is a file part of a multipart form.
type formFile struct {
	field, name string
	data        []byte
}

// multipartBody encodes fields (in order, as pairs) and files.
func multipartBody(t testing.TB, fields []string, files ...formFile) (string, []byte) {
	t.Helper()
	return encodeMultipart(t, "", fields, files)
}

// encodeMultipart encodes fields and files with the given boundary (a
// random one when empty) and returns the content type and the body.
func encodeMultipart(t testing.TB, boundary string, fields []string, files []formFile) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if boundary != "" {
		if err := mw.SetBoundary(boundary); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(fields); i += 2 {
		if err := mw.WriteField(fields[i], fields[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

// postForm posts a multipart form as the registration page does (a
// browser asking for HTML).
func (ts *testServer) postForm(t testing.TB, fields []string, files ...formFile) *httptest.ResponseRecorder {
	ct, body := multipartBody(t, fields, files...)
	req := httptest.NewRequest(http.MethodPost, "/api/interviews", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	req.AddCookie(ts.signIn(t, testRecruiter))
	return ts.do(req)
}

// signIn signs in as the test user email through the sign-in form and
// returns the session cookie.
func (ts *testServer) signIn(t testing.TB, email string) *http.Cookie {
	t.Helper()
	return ts.signInWith(t, email, testUserPassword)
}

// login signs in with the shared reviewer password and returns the
// session cookie.
func (ts *testServer) login(t *testing.T) *http.Cookie {
	t.Helper()
	return ts.signInWith(t, "", testReviewerToken)
}

// signInWith posts the sign-in form and returns the session cookie.
func (ts *testServer) signInWith(t testing.TB, email, password string) *http.Cookie {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"email": {email}, "password": {password}, "next": {"/review"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := ts.do(req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("login: status %d, body %s", rec.Code, rec.Body)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	t.Fatal("login: no session cookie")
	return nil
}

func decodeJSON[T any](t testing.TB, r io.Reader) T {
	t.Helper()
	var v T
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		t.Fatalf("decoding JSON: %v", err)
	}
	return v
}

// validForm is a complete, valid registration form.
func validForm(extra ...string) []string {
	f := []string{"ui", "html", "name", "Ada Lovelace", "email", "ada@example.com", "role", "Backend engineer", "level", "senior", "blueprint", "default"}
	return append(f, extra...)
}

// resultPage checks that a registration from the form answered 303 to its
// invitation page (post/redirect/get) and returns that page, read as the
// recruiter.
func (ts *testServer) resultPage(t testing.TB, posted *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	t.Helper()
	loc := posted.Header().Get("Location")
	if posted.Code != http.StatusSeeOther || !strings.HasPrefix(loc, invitationsPath+"/") {
		t.Fatalf("registration answered %d, Location %q, want 303 to the invitation's page: %s", posted.Code, loc, posted.Body)
	}
	req := httptest.NewRequest(http.MethodGet, loc, nil)
	ts.authorize(req, testRecruiter)
	return ts.do(req)
}
