package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/viva-interviews/viva/accounts"
)

// access decides who may do what: the sign-in pages, the sessions they
// open, API tokens and the shared password, and the middleware that asks
// each request for a permission.
type access struct {
	*site
	accounts Accounts // nil: only the shared password signs in
	// reviewerHash is the shared password's hash; sharedPassword says it
	// is set.
	reviewerHash   [sha256.Size]byte
	sharedPassword bool
	secureCookies  bool
	sessions       accounts.Sessions
	// loginLim counts each client's sign-in attempts; bearerLim their
	// refused Authorization headers.
	loginLim, bearerLim accounts.Limiter
}

// sessionCookie names the session cookie of a signed-in user; it lasts
// accounts.SessionTTL.
const sessionCookie = "viva_review"

// Sign-in pages.
const (
	// loginPath is the sign-in form; the same form is also served under
	// /review/login, where reviewers' links have always pointed.
	loginPath = "/login"
	// reviewerLoginPath is the sign-in form's older address.
	reviewerLoginPath = "/review/login"
	// logoutPath ends a session (POST); /review/logout does the same.
	logoutPath = "/logout"
	// reviewerLogoutPath is the sign-out's older address.
	reviewerLogoutPath = "/review/logout"
	// loginTitle is the sign-in page's title.
	loginTitle = "Sign in"
)

// SharedPasswordUser is who a request signed in with the shared reviewer
// password (Options.ReviewerToken) acts as, and what records it registers
// name as their creator. It has every permission: the shared password is a
// convenience for development (viva dev), not for production.
const SharedPasswordUser = "shared-password"

// Accounts is what the web app asks of the user accounts;
// *accounts.Service implements it.
type Accounts interface {
	// Authenticate returns the user whose email address and password
	// these are, or accounts.ErrBadCredentials.
	Authenticate(ctx context.Context, email, password string) (*accounts.User, error)
	// AuthenticateToken returns the user holding the API token, or
	// accounts.ErrBadCredentials.
	AuthenticateToken(ctx context.Context, token string) (*accounts.User, error)
	// User returns the user with the email address, or
	// accounts.ErrNotFound; sessions read it on every request, so a removed
	// user or a changed role takes effect at once.
	User(ctx context.Context, email string) (*accounts.User, error)
}

// principal is who a request is made by.
type principal struct {
	// Email is the user's email address, or SharedPasswordUser.
	Email string
	// Role is what the user may do.
	Role accounts.Role
}

// sharedPrincipal is the user of the shared reviewer password.
var sharedPrincipal = principal{Email: SharedPasswordUser, Role: accounts.RoleAdmin}

// principalKey is the context key of the request's principal.
type principalKey struct{}

// withPrincipal returns ctx carrying p.
func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// principalOf returns the principal a guard put in ctx.
func principalOf(ctx context.Context) (principal, bool) {
	p, ok := ctx.Value(principalKey{}).(principal)
	return p, ok
}

// sessionsFullRetry is the Retry-After of a sign-in refused because
// accounts.MaxSessions are live.
const sessionsFullRetry = 5 * time.Minute

// busyRetry is the Retry-After of a sign-in refused because every
// password-hashing slot was taken: a hash takes about 100 ms.
const busyRetry = 2 * time.Second

// checkPassword compares got with the shared reviewer password in constant
// time (hashes of equal length are compared, so neither the content nor
// the length leaks). It is false when no shared password is set.
func (s *access) checkPassword(got string) bool {
	if !s.sharedPassword {
		return false
	}
	h := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(h[:], s.reviewerHash[:]) == 1
}

// authenticate returns who r is made by: the holder of its bearer token (a
// user's API token, or the shared password) or of its session cookie. A
// request with an Authorization header is judged by it alone.
func (s *access) authenticate(r *http.Request) (principal, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		p, ok := s.authenticateBearer(r, h)
		if !ok {
			s.bearerFailed(r)
		}
		return p, ok
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return principal{}, false
	}
	signedIn, err := s.sessions.Lookup(r.Context(), c.Value)
	switch {
	case errors.Is(err, accounts.ErrNoSession):
		return principal{}, false
	case err != nil:
		s.log.Error("web: reading a session", "err", err)
		return principal{}, false
	case signedIn.Email == SharedPasswordUser:
		return sharedPrincipal, s.sharedPassword
	case s.accounts == nil:
		return principal{}, false
	}
	u, err := s.accounts.User(r.Context(), signedIn.Email)
	switch {
	case errors.Is(err, accounts.ErrNotFound):
		s.endSession(r.Context(), c.Value)
		return principal{}, false
	case err != nil:
		s.log.Error("web: reading a signed-in user", "err", err)
		return principal{}, false
	case !u.SameAccount(&signedIn):
		// Removed and added again, password reset or role changed since
		// the sign-in: the session is over for good.
		s.endSession(r.Context(), c.Value)
		s.log.Info("web: session ended: the account changed since it signed in", "user", u.Email)
		return principal{}, false
	}
	return principal{Email: u.Email, Role: u.Role}, true
}

// endSession ends the session id, logging a failure: the session then
// ends when it expires.
func (s *access) endSession(ctx context.Context, id string) {
	if err := s.sessions.End(ctx, id); err != nil {
		s.log.Error("web: ending a session", "err", err)
	}
}

// authenticateBearer judges the Authorization header h of r: a Bearer
// API token or the shared password.
func (s *access) authenticateBearer(r *http.Request, h string) (principal, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	switch {
	case !ok || !strings.EqualFold(scheme, "Bearer"):
		return principal{}, false
	case accounts.LooksLikeToken(token) && s.accounts != nil:
		u, err := s.accounts.AuthenticateToken(r.Context(), token)
		if err != nil {
			if !errors.Is(err, accounts.ErrBadCredentials) {
				s.log.Error("web: checking an API token", "err", err)
			}
			return principal{}, false
		}
		return principal{Email: u.Email, Role: u.Role}, true
	case s.checkPassword(token):
		return sharedPrincipal, true
	}
	return principal{}, false
}

// bearerFailed counts a refused Authorization header against r's client
// and logs it: guesses of the shared password or of API tokens are
// limited like sign-ins (see bearerRefused).
func (s *access) bearerFailed(r *http.Request) {
	if _, _, err := s.bearerLim.Allow(r.Context(), clientKey(r)); err != nil {
		s.log.Error("web: counting a refused bearer token", "err", err)
	}
	s.log.Warn("web: bearer token refused", "client", clientKey(r), "path", r.URL.Path)
}

// bearerRefused answers 429 with Retry-After, without checking the
// header, when r carries an Authorization header and its client has used
// up its failed attempts; it reports whether it answered.
func (s *access) bearerRefused(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Authorization") == "" {
		return false
	}
	wait, out, err := s.bearerLim.Exhausted(r.Context(), clientKey(r))
	if err != nil {
		// The header is checked as usual: a refused one is counted again.
		s.log.Error("web: reading the bearer token limit", "err", err)
	}
	if !out {
		return false
	}
	s.log.Warn("web: bearer token refused unchecked: too many failed attempts", "client", clientKey(r), "path", r.URL.Path)
	secs := retryAfter(w, wait)
	s.writeJSON(w, http.StatusTooManyRequests, apiError{Error: "Too many requests with a wrong token from your address. Wait " + secs + " seconds, check the token (viva users token creates a new one) and try again."})
	return true
}

// require lets requests whose user has permission perm through to h, with
// the user in the request's context. Others are answered in kind: an API
// client gets 401 (not signed in) or 403 (wrong role) in JSON; a browser
// asking for a page is sent to the sign-in form, remembering the page; a
// browser posting a form gets a page saying to sign in, or that the role
// does not allow it.
func (s *access) require(perm accounts.Permission, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.bearerRefused(w, r) {
			return
		}
		p, ok := s.authenticate(r)
		switch {
		case !ok && wantsJSON(r):
			w.Header().Set("WWW-Authenticate", `Bearer realm="viva"`)
			s.writeJSON(w, http.StatusUnauthorized, apiError{Error: "Authentication required: send Authorization: Bearer <API token> (viva users token --email you@example.com creates one; a token stops working when it expires, is revoked, or its user's password or role changes), or sign in at " + loginPath + "."})
		case !ok && r.Method == http.MethodGet:
			http.Redirect(w, r, loginPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		case !ok:
			s.renderMessage(w, r, http.StatusUnauthorized, "Sign in first", "You are not signed in, or your session has ended. Sign in at "+loginPath+" and send the form again.")
		case !p.Role.Allows(perm):
			s.log.Info("web: request refused for the user's role", "user", p.Email, "role", string(p.Role), "path", r.URL.Path)
			msg := "Your account (" + p.Email + ", " + string(p.Role) + ") may not " + perm.String() + ": that needs the role " + joinRoles(accounts.RolesAllowing(perm)) + ". Ask an administrator."
			if wantsJSON(r) {
				s.writeJSON(w, http.StatusForbidden, apiError{Error: msg})
				return
			}
			s.renderMessage(w, r, http.StatusForbidden, "Not allowed", msg)
		default:
			h(w, r.WithContext(withPrincipal(r.Context(), p)))
		}
	}
}

// joinRoles lists roles as "admin or reviewer".
func joinRoles(roles []accounts.Role) string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return strings.Join(names, " or ")
}

// safeNext returns next when it is the registration form or a reviewer
// page of this site, else "/review", so the sign-in form cannot redirect
// anywhere else.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "//") || strings.Contains(next, `\`) {
		return "/review"
	}
	if u.Path == "/" {
		return u.RequestURI()
	}
	if u.Path != "/review" && !strings.HasPrefix(u.Path, "/review/") || strings.HasPrefix(u.Path, "/review/log") {
		return "/review"
	}
	return u.RequestURI()
}

// nextPermission is the permission the page next (from safeNext) needs.
func nextPermission(next string) accounts.Permission {
	if path, _, _ := strings.Cut(next, "?"); path == "/" {
		return accounts.Register
	}
	return accounts.Review
}

// home is where a user goes after signing in: next when their role opens
// it, else the reviewer list or the registration form, whichever it opens.
func home(p principal, next string) string {
	switch {
	case p.Role.Allows(nextPermission(next)):
		return next
	case p.Role.Allows(accounts.Review):
		return "/review"
	}
	return "/"
}

// loginPage is the data of login.html.
type loginPage struct {
	view
	Next  string
	Email string
	Error string
	// Shared says the shared development password is accepted (leave the
	// email address empty).
	Shared bool
}

func (s *access) loginPage(next, email, msg string) loginPage {
	return loginPage{view: view{Title: loginTitle}, Next: next, Email: email, Error: msg, Shared: s.sharedPassword}
}

// handleLoginForm shows the sign-in form, or goes on to the page asked for
// when already signed in.
func (s *access) handleLoginForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	// A signed-in user goes on, unless the page needs another role: then
	// the form lets them sign in with another account.
	if p, ok := s.authenticate(r); ok && p.Role.Allows(nextPermission(next)) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login.html", s.loginPage(next, "", ""))
}

// handleLogin checks an email address and password (or, with no email
// address, the shared development password) and starts a session.
func (s *access) handleLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	if err := r.ParseForm(); err != nil {
		s.render(w, r, bodyError(err, "The form could not be read").status, "login.html",
			s.loginPage("/review", "", "The form could not be read. Try again."))
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	email := accounts.NormalizeEmail(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	var (
		p       principal
		account accounts.User
	)
	ok := false
	switch {
	case email == "":
		if ok = s.checkPassword(password); ok {
			p, account = sharedPrincipal, accounts.User{Email: SharedPasswordUser}
		}
	case s.accounts != nil:
		u, err := s.accounts.Authenticate(r.Context(), email, password)
		switch {
		case err == nil:
			p, account, ok = principal{Email: u.Email, Role: u.Role}, *u, true
		case errors.Is(err, accounts.ErrBusy):
			s.log.Warn("web: sign-in refused: every password-hashing slot is taken", "client", clientKey(r))
			retryAfter(w, busyRetry)
			s.render(w, r, http.StatusServiceUnavailable, "login.html",
				s.loginPage(next, email, "Too many sign-ins are being checked right now. Wait a few seconds and sign in again."))
			return
		case !errors.Is(err, accounts.ErrBadCredentials):
			s.log.Error("web: signing in", "err", err)
			s.serverError(w, r)
			return
		}
	}
	if !ok {
		s.log.Warn("web: sign-in failed", "client", clientKey(r))
		msg := "That email address and password do not match an account. Check both, or ask an administrator to add you (viva users add)."
		if s.sharedPassword {
			msg += " For the shared development password, leave the email address empty."
		}
		page := s.loginPage(next, email, msg)
		s.render(w, r, http.StatusUnauthorized, "login.html", page)
		return
	}
	id, err := s.sessions.Create(r.Context(), account)
	if err != nil && !errors.Is(err, accounts.ErrSessionsFull) {
		s.log.Error("web: starting a session", "user", p.Email, "err", err)
		s.serverError(w, r)
		return
	}
	if err != nil {
		s.log.Warn("web: sign-in refused: every session slot is taken", "user", p.Email, "client", clientKey(r), "sessions", accounts.MaxSessions)
		retryAfter(w, sessionsFullRetry)
		s.render(w, r, http.StatusServiceUnavailable, "login.html",
			s.loginPage(next, email, "Too many people are signed in to this server right now. Try again in a few minutes, or ask an administrator."))
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: id, Path: "/",
		MaxAge: int(accounts.SessionTTL / time.Second), HttpOnly: true, Secure: s.secureCookies, SameSite: http.SameSiteStrictMode,
	})
	s.log.Info("web: signed in", "user", p.Email, "role", string(p.Role), "client", clientKey(r))
	http.Redirect(w, r, home(p, next), http.StatusSeeOther)
}

// handleLogout ends the session.
func (s *access) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.endSession(r.Context(), c.Value)
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secureCookies, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, loginPath, http.StatusSeeOther)
}

// routes registers the sign-in and sign-out pages, under their two
// addresses each.
func (s *access) routes(mux *http.ServeMux) {
	for _, path := range []string{loginPath, reviewerLoginPath} {
		mux.HandleFunc("GET "+path, s.handleLoginForm)
		mux.Handle("POST "+path, s.limited(s.loginLim, http.HandlerFunc(s.handleLogin)))
	}
	for _, path := range []string{logoutPath, reviewerLogoutPath} {
		mux.HandleFunc("POST "+path, s.handleLogout)
	}
}
