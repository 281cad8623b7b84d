package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews"
)

// TestRoutesByRole sends every guarded route as each kind of caller: no
// one (401 for API clients, the sign-in form for pages), each role's API
// token and session, and the shared password.
func TestRoutesByRole(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada", "role": "Engineer"}).ID
	type route struct {
		name        string
		method      string
		path        string
		body        string // JSON; empty: none
		perm        accounts.Permission
		okCode      int
		pageOnGuard bool // a browser page: redirected to sign in
	}
	routes := []route{
		{"registration form", http.MethodGet, "/", "", accounts.Register, 200, true},
		{"register", http.MethodPost, "/api/interviews", `{"name":"Grace","role":"Engineer"}`, accounts.Register, 201, false},
		{"token", http.MethodPost, "/api/token", `{"name":"Grace","role":"Engineer"}`, accounts.Register, 200, false},
		{"review list", http.MethodGet, "/review", "", accounts.Review, 200, true},
		{"review detail", http.MethodGet, "/review/" + id, "", accounts.Review, 200, true},
		{"API list", http.MethodGet, "/api/interviews", "", accounts.Review, 200, false},
		{"API get", http.MethodGet, "/api/interviews/" + id, "", accounts.Review, 200, false},
	}
	type caller struct {
		name   string
		role   accounts.Role // "": anonymous
		auth   func(*http.Request)
		shared bool
	}
	callers := []caller{{name: "anonymous", auth: func(*http.Request) {}}}
	for _, email := range []string{testAdmin, testRecruiter, testReviewer} {
		u, err := ts.users.User(t.Context(), email)
		if err != nil {
			t.Fatal(err)
		}
		cookie := ts.signIn(t, email)
		callers = append(callers,
			caller{name: string(u.Role) + " token", role: u.Role, auth: func(r *http.Request) { ts.authorize(r, email) }},
			caller{name: string(u.Role) + " session", role: u.Role, auth: func(r *http.Request) { r.AddCookie(cookie) }})
	}
	shared := ts.login(t)
	callers = append(callers,
		caller{name: "shared password bearer", role: accounts.RoleAdmin, shared: true, auth: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testReviewerToken) }},
		caller{name: "shared password session", role: accounts.RoleAdmin, shared: true, auth: func(r *http.Request) { r.AddCookie(shared) }},
		caller{name: "forged token", auth: func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+accounts.TokenPrefix+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		}},
	)
	for _, rt := range routes {
		for _, c := range callers {
			t.Run(rt.name+"/"+c.name, func(t *testing.T) {
				req := httptest.NewRequest(rt.method, rt.path, strings.NewReader(rt.body))
				if rt.body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				c.auth(req)
				rec := ts.do(req)
				want := rt.okCode
				switch {
				case c.role == "" && rt.pageOnGuard:
					want = http.StatusSeeOther
				case c.role == "":
					want = http.StatusUnauthorized
				case !c.role.Allows(rt.perm):
					want = http.StatusForbidden
				}
				if rec.Code != want {
					t.Fatalf("status %d, want %d: %.300s", rec.Code, want, rec.Body)
				}
				if want == http.StatusSeeOther && !strings.HasPrefix(rec.Header().Get("Location"), loginPath+"?next=") {
					t.Errorf("redirect to %q", rec.Header().Get("Location"))
				}
				if want == http.StatusForbidden && !strings.Contains(rec.Body.String(), "Ask an administrator") {
					t.Errorf("403 body %.300s", rec.Body)
				}
			})
		}
	}
}

// TestRoomStaysPublic: the candidate's page and join endpoint need no
// sign-in; the link's interview id is the candidate's key.
func TestRoomStaysPublic(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada", "role": "Engineer"}).ID
	if rec := ts.get("/interview/" + id); rec.Code != 200 {
		t.Errorf("room page: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/interviews/"+id+"/join", strings.NewReader(ts.agree()))
	if rec := ts.do(req); rec.Code != 200 {
		t.Errorf("join: %d %s", rec.Code, rec.Body)
	}
}

func TestRegistrationRecordsItsCreator(t *testing.T) {
	ts := newTestServer(t)
	byToken := registerJSON(t, ts, map[string]string{"name": "Ada", "role": "Engineer"}).ID
	rec := ts.resultPage(t, ts.postForm(t, validForm()))
	if rec.Code != http.StatusOK {
		t.Fatalf("form: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/token", strings.NewReader(`{"name":"Grace","role":"Engineer"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testReviewerToken)
	shared := decodeJSON[tokenResponse](t, ts.do(req).Body).ID
	page, err := ts.store.List(t.Context(), interviews.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 {
		t.Fatalf("%d records", len(page.Items))
	}
	for _, s := range page.Items {
		r, err := ts.store.Get(t.Context(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := testRecruiter
		if r.ID == shared {
			want = SharedPasswordUser
		}
		if r.CreatedBy != want {
			t.Errorf("record %s created_by %q, want %q", r.ID, r.CreatedBy, want)
		}
	}
	detail := ts.get("/review/"+byToken, "Authorization", "Bearer "+ts.tokens[testReviewer])
	if !strings.Contains(detail.Body.String(), testRecruiter) {
		t.Error("the review page does not say who registered the interview")
	}
	for _, secret := range []string{testUserPassword, ts.tokens[testRecruiter], testReviewerToken} {
		if strings.Contains(ts.logs.String(), secret) {
			t.Errorf("logs carry a secret %q", secret)
		}
	}
}

func TestSignInAndOut(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.SecureCookies = true })
	post := func(email, password, next string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"email": {email}, "password": {password}, "next": {next}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return ts.do(req)
	}
	for _, c := range [][2]string{
		{testRecruiter, "wrong password 123"}, {"nobody@example.com", testUserPassword},
		{testRecruiter, ""}, {"", testUserPassword}, {testRecruiter, testReviewerToken},
	} {
		rec := post(c[0], c[1], "/")
		if rec.Code != http.StatusUnauthorized || len(rec.Result().Cookies()) != 0 || !strings.Contains(rec.Body.String(), "do not match an account") {
			t.Errorf("sign-in %q/%q: %d %v", c[0], c[1], rec.Code, rec.Result().Cookies())
		}
	}
	// Upper-case email addresses sign in; a recruiter lands on the form
	// when no page was asked for.
	rec := post("Recruiter@Example.com", testUserPassword, "")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
		t.Fatalf("recruiter sign-in: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	c := rec.Result().Cookies()[0]
	if c.Name != sessionCookie || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || strings.Contains(c.Value, testRecruiter) {
		t.Errorf("cookie %+v", c)
	}
	if rec := post(testReviewer, testUserPassword, "/review/abc"); rec.Header().Get("Location") != "/review/abc" {
		t.Errorf("reviewer goes to %q", rec.Header().Get("Location"))
	}
	// Signed in as a recruiter, the sign-in form for a reviewer page is
	// offered again (to switch accounts); for the form it moves on.
	for next, want := range map[string]int{"/review": 200, "/": http.StatusSeeOther} {
		req := httptest.NewRequest(http.MethodGet, loginPath+"?next="+url.QueryEscape(next), nil)
		req.AddCookie(c)
		if got := ts.do(req).Code; got != want {
			t.Errorf("sign-in form for %s when signed in as a recruiter: %d, want %d", next, got, want)
		}
	}
	form := func(c *http.Cookie) int {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.AddCookie(c)
		return ts.do(req).Code
	}
	if got := form(c); got != 200 {
		t.Fatalf("form with session: %d", got)
	}
	// A role change applies to live sessions at once; removing the user
	// ends them.
	if err := ts.users.Store().Update(t.Context(), testRecruiter, func(u *accounts.User) error { u.Role = accounts.RoleReviewer; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := form(c); got != http.StatusForbidden {
		t.Errorf("after the role change: %d", got)
	}
	if err := ts.users.Store().Remove(t.Context(), testRecruiter); err != nil {
		t.Fatal(err)
	}
	if got := form(c); got != http.StatusSeeOther {
		t.Errorf("after removal: %d", got)
	}
	// Sign-out ends the session.
	c = ts.signIn(t, testAdmin)
	req := httptest.NewRequest(http.MethodPost, logoutPath, nil)
	req.AddCookie(c)
	if rec := ts.do(req); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != loginPath {
		t.Errorf("sign-out: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if got := form(c); got != http.StatusSeeOther {
		t.Errorf("after sign-out: %d", got)
	}
	if logs := ts.logs.String(); strings.Contains(logs, testUserPassword) || strings.Contains(logs, c.Value) {
		t.Errorf("logs carry a password or session:\n%s", logs)
	}
}

func TestSignInIsRateLimited(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.RateLimit = 2 })
	codes := []int{}
	for range 3 {
		req := httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"email": {testAdmin}, "password": {"guess guess guess"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		codes = append(codes, ts.do(req).Code)
	}
	if codes[0] != 401 || codes[1] != 401 || codes[2] != http.StatusTooManyRequests {
		t.Errorf("codes %v, want 401 401 429", codes)
	}
}

func TestWithoutSharedPassword(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.ReviewerToken = "" })
	if rec := ts.get("/api/interviews", "Authorization", "Bearer "+testReviewerToken); rec.Code != 401 {
		t.Errorf("old shared password as bearer: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"password": {""}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := ts.do(req); rec.Code != 401 {
		t.Errorf("empty password: %d", rec.Code)
	}
	if body := ts.get(loginPath).Body.String(); strings.Contains(body, "shared password") {
		t.Error("the sign-in form offers the shared password, which is not set")
	}
	if rec := ts.get("/api/interviews", "Authorization", "Bearer "+ts.tokens[testReviewer]); rec.Code != 200 {
		t.Errorf("reviewer token: %d", rec.Code)
	}
	if _, err := New(Options{Store: ts.store, LiveKitURL: testLiveKitURL, APIKey: testAPIKey, APISecret: testAPISecret}); err == nil || !strings.Contains(err.Error(), "viva users add") {
		t.Errorf("New without accounts or a shared password: %v", err)
	}
}

// busyAccounts is an account service whose every password-hashing slot is
// taken.
type busyAccounts struct{ Accounts }

func (busyAccounts) Authenticate(context.Context, string, string) (*accounts.User, error) {
	return nil, accounts.ErrBusy
}

// TestSignInRefusedWhileHashingIsFull: when every password-hashing slot is
// taken, a sign-in is refused at once with 503 and Retry-After, and the
// form says to wait and try again.
func TestSignInRefusedWhileHashingIsFull(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.Accounts = busyAccounts{o.Accounts} })
	req := httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"email": {testAdmin}, "password": {testUserPassword}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := ts.do(req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if body := rec.Body.String(); !strings.Contains(body, "Wait a few seconds and sign in again") {
		t.Errorf("the form does not say to wait and sign in again:\n%s", body)
	}
	if !strings.Contains(ts.logs.String(), "every password-hashing slot is taken") {
		t.Errorf("the refusal is not logged:\n%s", ts.logs.String())
	}
}

// TestBearerGuessesAreLimitedAndLogged: wrong bearer tokens (guesses of
// the shared password) are logged and, past the rate limit, refused with
// 429 and Retry-After before being checked at all, even a right one; the
// client's attempts come back with time, and other clients are unaffected.
func TestBearerGuessesAreLimitedAndLogged(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.RateLimit = 5 })
	bearer := func(token, addr string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/api/interviews", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.RemoteAddr = addr
		return ts.do(req)
	}
	const attacker, other = "198.51.100.7:4000", "203.0.113.9:4000"
	for i := range 5 {
		if rec := bearer(fmt.Sprintf("guess-%d", i), attacker); rec.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d, want 401", i, rec.Code)
		}
	}
	for _, token := range []string{"guess-6", testReviewerToken} {
		rec := bearer(token, attacker)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("after 5 wrong tokens, %q: %d, Retry-After %q; want 429 with Retry-After", token, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if rec := bearer(testReviewerToken, other); rec.Code != http.StatusOK {
		t.Errorf("another address with the right password: %d, want 200", rec.Code)
	}
	logs := ts.logs.String()
	if n := strings.Count(logs, "bearer token refused\""); n < 5 || !strings.Contains(logs, "198.51.100.7") {
		t.Errorf("%d wrong tokens logged with the client, want 5:\n%s", n, logs)
	}
	if strings.Contains(logs, "guess-") {
		t.Errorf("the guessed tokens are in the logs:\n%s", logs)
	}
	ts.clock.Advance(time.Minute)
	if rec := bearer(testReviewerToken, attacker); rec.Code != http.StatusOK {
		t.Errorf("a minute later, the right password: %d, want 200", rec.Code)
	}
}

// TestSignInFloodDoesNotSignOthersOut: 1,040 sign-ins of one account
// through the form leave an admin signed in; with every session slot
// taken, a sign-in is refused with 503 and Retry-After, says to try
// later, is logged, and ends no one's session.
func TestSignInFloodDoesNotSignOthersOut(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.RateLimit = 5000 })
	admin := ts.signIn(t, testAdmin)
	for range 1040 {
		ts.login(t)
	}
	ts.signIn(t, testReviewer)
	req := httptest.NewRequest(http.MethodGet, "/review", nil)
	req.AddCookie(admin)
	if rec := ts.do(req); rec.Code != http.StatusOK {
		t.Fatalf("the admin after 1,040 sign-ins of another account: %d, want 200", rec.Code)
	}
	if n := ts.access.sessions.(*accounts.MemorySessions).Len(); n != 2+accounts.MaxSessionsPerUser {
		t.Errorf("%d sessions held, want %d", n, 2+accounts.MaxSessionsPerUser)
	}

	ts.access.sessions = accounts.NewMemorySessions(accounts.SessionLimits{Max: 2}, ts.clock.Now)
	admin, reviewer := ts.signIn(t, testAdmin), ts.signIn(t, testReviewer)
	req = httptest.NewRequest(http.MethodPost, loginPath, strings.NewReader(url.Values{"email": {testRecruiter}, "password": {testUserPassword}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := ts.do(req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || len(rec.Result().Cookies()) != 0 {
		t.Fatalf("sign-in past the cap: %d, Retry-After %q, cookies %v; want 503 with Retry-After and no cookie", rec.Code, rec.Header().Get("Retry-After"), rec.Result().Cookies())
	}
	if !strings.Contains(rec.Body.String(), "Try again in a few minutes") || !strings.Contains(ts.logs.String(), "every session slot is taken") {
		t.Errorf("the refusal does not say what to do or is not logged:\n%s", rec.Body.String())
	}
	for _, c := range []*http.Cookie{admin, reviewer} {
		req := httptest.NewRequest(http.MethodGet, "/review", nil)
		req.AddCookie(c)
		if rec := ts.do(req); rec.Code != http.StatusOK {
			t.Errorf("a session after the refused sign-in: %d", rec.Code)
		}
	}
}

// TestSessionsEndWithTheAccountVersion: a session lasts only as long as
// the account it signed in to, at the same generation. Removing the user
// and adding them again (with another role), resetting the password or
// changing the role ends it for good; signing in again works.
func TestSessionsEndWithTheAccountVersion(t *testing.T) {
	ts := newTestServer(t)
	ctx := t.Context()
	reviewPage := func(c *http.Cookie) int {
		req := httptest.NewRequest(http.MethodGet, "/review", nil)
		req.AddCookie(c)
		return ts.do(req).Code
	}
	old := ts.signIn(t, testRecruiter)
	oldToken := ts.tokens[testRecruiter]
	if err := ts.users.Store().Remove(ctx, testRecruiter); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.users.AddUser(ctx, testRecruiter, accounts.RoleAdmin, testUserPassword); err != nil {
		t.Fatal(err)
	}
	if got := reviewPage(old); got != http.StatusSeeOther {
		t.Errorf("a session from before the user was removed and added again as admin: %d, want a redirect to sign in", got)
	}
	if rec := ts.get("/api/interviews", "Authorization", "Bearer "+oldToken); rec.Code != http.StatusUnauthorized {
		t.Errorf("an API token from before the removal: %d, want 401", rec.Code)
	}
	if !strings.Contains(ts.logs.String(), "session ended: the account changed") {
		t.Error("the ended session is not logged")
	}

	c := ts.signIn(t, testRecruiter)
	if got := reviewPage(c); got != http.StatusOK {
		t.Fatalf("signed in again as admin: %d", got)
	}
	const newPassword = "violet spoon harbour kettle"
	if _, err := ts.users.SetPassword(ctx, testRecruiter, newPassword); err != nil {
		t.Fatal(err)
	}
	if got := reviewPage(c); got != http.StatusSeeOther {
		t.Errorf("a session from before the password reset: %d", got)
	}
	c = ts.signInWith(t, testRecruiter, newPassword)
	if _, err := ts.users.SetRole(ctx, testRecruiter, accounts.RoleReviewer); err != nil {
		t.Fatal(err)
	}
	if got := reviewPage(c); got != http.StatusSeeOther {
		t.Errorf("a session from before the role change: %d", got)
	}
	// The session is over even were the role changed back.
	if _, err := ts.users.SetRole(ctx, testRecruiter, accounts.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	if got := reviewPage(c); got != http.StatusSeeOther {
		t.Errorf("the session after the role was changed back: %d", got)
	}
	if got := reviewPage(ts.signInWith(t, testRecruiter, newPassword)); got != http.StatusOK {
		t.Errorf("signed in after the changes: %d", got)
	}
}
