package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/accounts"
	apostgres "github.com/viva-interviews/viva/accounts/postgres"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

// TestTwoWebAppsShareOneDatabase: two web apps on one PostgreSQL database,
// as behind a load balancer, serve the same users. Signed in on one, a
// recruiter registers a candidate on the other and sees the invitation on
// the first; signed out on one, the session is over on both; a token
// revoked or a role changed on one is refused by the other; and wrong
// passwords count against one limit whichever app they reach.
func TestTwoWebAppsShareOneDatabase(t *testing.T) {
	dbURL := pgtest.Database(t)
	clock := newFakeClock()
	app := func() (*testServer, *accounts.Service) {
		store, err := postgres.Open(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(store.Close)
		db, err := apostgres.Open(context.Background(), store, clock.Now)
		if err != nil {
			t.Fatal(err)
		}
		users, err := accounts.NewService(db.Store(), testHashParams, clock.Now)
		if err != nil {
			t.Fatal(err)
		}
		return newTestServer(t, func(o *Options) {
			o.Store, o.Accounts, o.RateLimit = store, users, 3
			o.Sessions = db.Sessions(accounts.SessionLimits{})
			o.Limiter = func(name string, perMinute int) accounts.Limiter { return db.Limiter(name, perMinute) }
		}), users
	}
	a, usersA := app()
	b, usersB := app()
	for email, role := range map[string]accounts.Role{testAdmin: accounts.RoleAdmin, testRecruiter: accounts.RoleRecruiter} {
		if _, err := usersA.AddUser(t.Context(), email, role, testUserPassword); err != nil {
			t.Fatal(err)
		}
	}
	send := func(ts *testServer, method, path, body string, c *http.Cookie) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
		}
		if c != nil {
			req.AddCookie(c)
		}
		return ts.do(req)
	}

	recruiter := a.signIn(t, testRecruiter)
	if rec := send(b, http.MethodPost, "/api/interviews", `{"name":"Ada Lovelace","role":"Backend engineer"}`, recruiter); rec.Code != http.StatusCreated {
		t.Fatalf("registering on the other app with the session: %d %s", rec.Code, rec.Body)
	}
	if rec := send(a, http.MethodGet, "/invitations", "", recruiter); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Ada Lovelace") {
		t.Fatalf("the first app's invitations: %d, want 200 listing Ada Lovelace", rec.Code)
	}
	if rec := send(b, http.MethodPost, logoutPath, "", recruiter); rec.Code != http.StatusSeeOther {
		t.Fatalf("signing out on the other app: %d", rec.Code)
	}
	if rec := send(a, http.MethodGet, "/invitations", "", recruiter); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), loginPath) {
		t.Errorf("the first app after signing out on the other: %d %q, want a redirect to sign in", rec.Code, rec.Header().Get("Location"))
	}

	admin := b.signIn(t, testAdmin)
	if rec := send(a, http.MethodGet, "/review", "", admin); rec.Code != http.StatusOK {
		t.Fatalf("the admin's session on the other app: %d", rec.Code)
	}
	if _, err := usersA.SetRole(t.Context(), testAdmin, accounts.RoleReviewer); err != nil {
		t.Fatal(err)
	}
	if rec := send(b, http.MethodGet, "/review", "", admin); rec.Code != http.StatusSeeOther {
		t.Errorf("a session whose role changed on the other app: %d, want a redirect to sign in", rec.Code)
	}

	token, stored, err := usersB.CreateTokenValidFor(t.Context(), testRecruiter, accounts.DefaultTokenTTL)
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(ts *testServer) int {
		req := httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader(`{"name":"Alan Turing","role":"Data scientist"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		req.RemoteAddr = "203.0.113.9:1000" // not the address the failed sign-ins below use
		return ts.do(req).Code
	}
	if code := bearer(a); code != http.StatusCreated {
		t.Fatalf("a token made on the other app: %d, want 201", code)
	}
	if err := usersB.RevokeToken(t.Context(), testRecruiter, stored.ID); err != nil {
		t.Fatal(err)
	}
	if code := bearer(a); code != http.StatusUnauthorized {
		t.Errorf("a token revoked on the other app: %d, want 401", code)
	}

	wrong := func(ts *testServer) int {
		req := httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"email": {testAdmin}, "password": {"not the password at all"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = "192.0.2.77:5000"
		return ts.do(req).Code
	}
	for i, ts := range []*testServer{a, b, a} {
		if code := wrong(ts); code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d, want 401", i+1, code)
		}
	}
	if code := wrong(b); code != http.StatusTooManyRequests {
		t.Errorf("a fourth wrong password, on the other app, at 3 a minute: %d, want 429", code)
	}
}
