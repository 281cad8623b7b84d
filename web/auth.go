package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Reviewer sessions.
const (
	// sessionCookie names the reviewer's session cookie.
	sessionCookie = "viva_review"
	// sessionTTL is how long a reviewer stays signed in.
	sessionTTL = 12 * time.Hour
	// maxSessions bounds the sessions held; the oldest go first.
	maxSessions = 1000
)

// sessionStore maps random session ids to their expiry. Only a hash of
// each id is kept, so a memory dump does not hand out live cookies.
type sessionStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	expires map[[sha256.Size]byte]time.Time
}

func newSessionStore(ttl time.Duration, max int, now func() time.Time) *sessionStore {
	return &sessionStore{ttl: ttl, max: max, now: now, expires: map[[sha256.Size]byte]time.Time{}}
}

// create starts a session and returns its id (32 random bytes, base64url).
func (s *sessionStore) create() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	id := base64.RawURLEncoding.EncodeToString(b[:])
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, exp := range s.expires {
		if !now.Before(exp) {
			delete(s.expires, k)
		}
	}
	for len(s.expires) >= s.max { // drop the session closest to expiry
		var oldest [sha256.Size]byte
		var first time.Time
		for k, exp := range s.expires {
			if first.IsZero() || exp.Before(first) {
				oldest, first = k, exp
			}
		}
		delete(s.expires, oldest)
	}
	s.expires[sha256.Sum256([]byte(id))] = now.Add(s.ttl)
	return id
}

// valid reports whether id names a live session.
func (s *sessionStore) valid(id string) bool {
	if id == "" {
		return false
	}
	key := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.expires[key]
	if ok && !s.now().Before(exp) {
		delete(s.expires, key)
		return false
	}
	return ok
}

// end ends the session id.
func (s *sessionStore) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.expires, sha256.Sum256([]byte(id)))
}

// checkPassword compares a reviewer password or bearer token with the
// configured one in constant time (hashes of equal length are compared, so
// neither the content nor the length leaks).
func (s *Server) checkPassword(got string) bool {
	h := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(h[:], s.reviewerHash[:]) == 1
}

// isReviewer reports whether r carries the reviewer bearer token or a live
// session cookie.
func (s *Server) isReviewer(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && s.checkPassword(strings.TrimSpace(token))
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && s.sessions.valid(c.Value)
}

// requirePage sends visitors who are not signed in to the login form,
// remembering the page they asked for.
func (s *Server) requirePage(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.isReviewer(r) {
			http.Redirect(w, r, "/review/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		h(w, r)
	}
}

// requireAPI answers 401 to API requests without the reviewer token or a
// session.
func (s *Server) requireAPI(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.isReviewer(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="viva reviewer"`)
			s.writeJSON(w, http.StatusUnauthorized, apiError{Error: "Reviewer authentication required: send Authorization: Bearer <reviewer token> (VIVA_REVIEWER_TOKEN), or sign in at /review/login."})
			return
		}
		h(w, r)
	}
}

// safeNext returns next when it is a reviewer page of this site, else
// "/review", so the login form cannot redirect anywhere else.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "//") || strings.Contains(next, `\`) {
		return "/review"
	}
	if u.Path != "/review" && !strings.HasPrefix(u.Path, "/review/") || strings.HasPrefix(u.Path, "/review/log") {
		return "/review"
	}
	return u.RequestURI()
}

// loginPage is the data of login.html.
type loginPage struct {
	view
	Next  string
	Error string
}

// handleLoginForm shows the reviewer login form, or goes on to the page
// asked for when already signed in.
func (s *Server) handleLoginForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if s.isReviewer(r) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login.html", loginPage{view: view{Title: "Reviewer sign-in"}, Next: next})
}

// handleLogin checks the reviewer password and starts a session.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	if err := r.ParseForm(); err != nil {
		s.render(w, r, bodyError(err, "The form could not be read").status, "login.html",
			loginPage{view: view{Title: "Reviewer sign-in"}, Next: "/review", Error: "The form could not be read. Try again."})
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	if !s.checkPassword(r.PostForm.Get("password")) {
		s.log.Warn("web: reviewer sign-in failed", "client", clientKey(r))
		s.render(w, r, http.StatusUnauthorized, "login.html", loginPage{
			view: view{Title: "Reviewer sign-in"}, Next: next,
			Error: "That password is not right. Use the reviewer token set in VIVA_REVIEWER_TOKEN (viva dev prints it when it starts).",
		})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.sessions.create(), Path: "/",
		MaxAge: int(sessionTTL / time.Second), HttpOnly: true, Secure: s.secureCookies, SameSite: http.SameSiteStrictMode,
	})
	s.log.Info("web: reviewer signed in", "client", clientKey(r))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// handleLogout ends the reviewer's session.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secureCookies, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/review/login", http.StatusSeeOther)
}
