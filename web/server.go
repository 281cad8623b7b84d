// Package web is viva's HTTP server: the recruiter's registration form and
// API, LiveKit tokens that dispatch the interviewer agent, the candidate's
// room page, and the reviewer's pages and API behind a login.
//
// Recruiters, reviewers and administrators sign in (package accounts):
// registering candidates needs the recruiter or admin role, reading
// interviews the reviewer or admin role; API clients send a user's API
// token as a bearer token. The candidate's room page and its join endpoint
// stay public: the interview id in the link is the candidate's key.
//
// Everything it serves is embedded in the binary (templates and static
// assets). Pages are rendered with html/template, carry a strict Content
// Security Policy (no inline script) and never contain a secret other than
// the candidate's own LiveKit token. Résumé and job-description texts stay
// on the server, in the interview record.
package web

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/lkagent/lkurl"
	"github.com/viva-interviews/viva/stages"
)

// Defaults applied by New to zero Options fields.
const (
	// DefaultRateLimit is how many requests per minute one client address
	// may send to the endpoints that create interviews, mint tokens or sign
	// in, when Options.RateLimit is zero. The same number is the burst.
	DefaultRateLimit = 20
	// MinReviewerTokenLen is the shortest reviewer password New accepts.
	MinReviewerTokenLen = 16
)

// Options configures a Server. Store, LiveKitURL, APIKey, APISecret and
// at least one of Accounts and ReviewerToken are required; the other fields
// have working defaults.
type Options struct {
	// Store holds the interview records.
	Store interviews.Store
	// LiveKitURL is the LiveKit server the candidate's browser connects to
	// (ws://, wss://, http:// or https://). It is also allowed by the
	// Content Security Policy.
	LiveKitURL string
	// APIKey and APISecret sign the candidates' room tokens.
	APIKey, APISecret string
	// AgentName is the agent each candidate token dispatches into its room
	// (default config.DefaultAgentName).
	AgentName string
	// Accounts are the users who may sign in, with their roles and API
	// tokens (an *accounts.Service).
	Accounts Accounts
	// ReviewerToken is the shared development password: signing in with it
	// (no email address) or sending it as a bearer token acts as
	// SharedPasswordUser, with every permission. Empty disables it; else at
	// least MinReviewerTokenLen characters.
	ReviewerToken string
	// TokenTTL is the lifetime of a candidate's room token (default
	// config.DefaultTokenTTL). The join endpoint mints a fresh one on every call.
	TokenTTL time.Duration
	// LinkTTL is how long a candidate's link stays valid after
	// registration unless the interview has started (default
	// interviews.DefaultLinkTTL).
	LinkTTL time.Duration
	// RejoinGrace is how long the interviewer waits for a candidate who
	// left to come back (the worker's setting of the same name). Rooms are
	// created to outlive the candidate's departure by that long, so the
	// interviewer is still there when they rejoin.
	RejoinGrace time.Duration
	// PublicURL is the public address of the web app (http:// or
	// https://), used to build join links. Empty means the address the
	// request came to.
	PublicURL string
	// Blueprints are the interview plans offered in the registration form,
	// by name; the first is the default choice, or "default" when listed.
	// Empty means stages.BuiltinNames().
	Blueprints []string
	// Templates are the role templates offered in the registration form
	// (stages.Template), in order; a registration may name one of them or
	// none. Empty means the form offers no template.
	Templates []TemplateChoice
	// Logger receives the server's logs (default slog.Default()). Tokens,
	// the reviewer password, résumé and job-description texts are never
	// logged.
	Logger *slog.Logger
	// Now is the clock (default time.Now); tests inject their own.
	Now func() time.Time
	// RateLimit is how many requests per minute one client address may
	// send to the rate-limited endpoints, and the size of the burst
	// (default DefaultRateLimit).
	RateLimit int
	// SecureCookies marks the reviewer session cookie Secure; set it when
	// the app is served over HTTPS.
	SecureCookies bool
	// Reports regenerates reports on a reviewer's request (a
	// *reports.Runner); nil refuses such requests.
	Reports ReportRequester
	// Webhooks tells hiring systems about reviewers' decisions (a
	// *webhooks.Sender); nil tells nobody.
	Webhooks interviews.Notifier
	// FindBlueprint returns the blueprint an interview record names, to
	// read its settings (candidate feedback); default stages.Builtin.
	FindBlueprint func(name string) (*stages.Blueprint, error)
	// Mailer emails candidates the link to their feedback
	// (NotifyFeedbackReady); nil sends no email.
	Mailer Mailer
	// Recordings holds the interviews' audio recordings, played on the
	// reviewer page; nil plays none.
	Recordings *recordings.Dir
	// BrandName is the company name candidates see in headers, page titles
	// and the join page (default config.DefaultBrandName).
	BrandName string
	// BrandLogo is the company logo: a path to an image file, served by
	// the app, or an https:// URL of one; empty shows the name alone.
	BrandLogo string
	// ConsentText is the wording candidates agree to before joining;
	// empty means DefaultConsentText, which follows RecordsAudio.
	ConsentText string
	// RecordsAudio says the worker records the interviews' audio (its
	// --record-audio setting), so the join page says so; false says only
	// a transcript is kept.
	RecordsAudio bool
	// TimeScale is the worker's factor on every stage limit (default 1),
	// so the room page shows the interview's true expected length.
	TimeScale float64
	// Metrics counts requests by route pattern and status code, their
	// durations, and the interviews created; nil counts nothing.
	Metrics *metrics.Web
	// MetricsHandler, when set, is served at GET /metrics (the process's
	// Prometheus metrics: counts and timings, no secrets or candidate
	// data), without a sign-in so that Prometheus can scrape it.
	MetricsHandler http.Handler
}

// Server serves the web app. Create one with New; it is safe for
// concurrent use.
type Server struct {
	records
	links
	tokens     *roomTokens
	liveKitURL string // as configured
	// interviews carries out registration, the invitation actions and
	// decisions: the rules live there, the handlers speak HTTP.
	interviews     *interviews.Service
	findBlueprint  blueprintFinder
	brand          brand
	metrics        *metrics.Web // nil: nothing counted
	metricsHandler http.Handler // nil: no /metrics

	static       fs.FS
	csp          string
	createLim    *rateLimiter
	handler      http.Handler
	access       *access
	registrar    *registrar
	invitations  *invitations
	room         *roomPages
	feedbackMail *feedbackMail
	review       *reviewPages
	decisions    *decisionActions
	reports      *reportPages
}

// blueprintOption is one interview plan offered in the form.
type blueprintOption struct {
	Name  string
	Title string
	// KnowledgeCapture is true for a plan that records what a person
	// knows from a brief: the form then requires the brief.
	KnowledgeCapture bool
	// NoTemplate says why the plan asks no role template's questions;
	// empty when it does.
	NoTemplate string
}

// TemplateChoice is a role template offered in the registration form.
type TemplateChoice struct {
	// Name identifies the template; it is stored in the record.
	Name string
	// Title is what the form shows ("Senior full-stack engineer"); empty
	// means the name.
	Title string
}

// New checks opts and returns a Server. Its errors say which option is
// wrong and what to set instead.
func New(opts Options) (*Server, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("web: "+format, args...)) }
	if opts.Store == nil {
		bad("no interview store: open one with filestore.Open(dataDir) or postgres.Open(ctx, url)")
	}
	var clientURL string
	if lk, err := lkurl.Parse(opts.LiveKitURL); err != nil {
		bad("%v", err)
	} else {
		clientURL = lk.String()
	}
	if opts.APIKey == "" || opts.APISecret == "" {
		bad("LiveKit API key and secret are required to sign room tokens: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET (devkey and secret for livekit-server --dev)")
	}
	if opts.AgentName == "" {
		opts.AgentName = config.DefaultAgentName
	}
	if opts.Accounts == nil && opts.ReviewerToken == "" {
		bad("no one can sign in: give the user accounts (run viva users add --email you@example.com --role admin), or, for development only, set VIVA_REVIEWER_TOKEN to a shared password")
	}
	if opts.ReviewerToken != "" && len(opts.ReviewerToken) < MinReviewerTokenLen {
		bad("the reviewer token is shorter than %d characters: set VIVA_REVIEWER_TOKEN to a random value, for example from: openssl rand -hex 16", MinReviewerTokenLen)
	}
	switch {
	case opts.TokenTTL == 0:
		opts.TokenTTL = config.DefaultTokenTTL
	case opts.TokenTTL < time.Minute:
		bad("token lifetime %s is too short: use at least 1m, such as 2h", opts.TokenTTL)
	}
	switch {
	case opts.LinkTTL == 0:
		opts.LinkTTL = interviews.DefaultLinkTTL
	case opts.LinkTTL < time.Minute:
		bad("link lifetime %s is too short: use at least 1h, such as 168h (7 days)", opts.LinkTTL)
	}
	if opts.RejoinGrace < 0 {
		bad("rejoin grace %s is negative: use 0 to end an interview as soon as the candidate leaves, or a duration such as 60s", opts.RejoinGrace)
	}
	publicURL := strings.TrimRight(opts.PublicURL, "/")
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			bad("public URL %q is not an http:// or https:// address such as https://interviews.example.com", opts.PublicURL)
		}
	}
	if len(opts.Blueprints) == 0 {
		opts.Blueprints = stages.BuiltinNames()
	}
	var blueprints []blueprintOption
	for _, name := range opts.Blueprints {
		name = strings.TrimSpace(name)
		if name == "" {
			bad("a blueprint name is empty: list names such as default or system-design")
			continue
		}
		if slices.ContainsFunc(blueprints, func(b blueprintOption) bool { return b.Name == name }) {
			continue
		}
		blueprints = append(blueprints, blueprintOption{Name: name, Title: blueprintTitle(name), KnowledgeCapture: knowledgeCapture(name), NoTemplate: noTemplate(name)})
	}
	if i := slices.IndexFunc(blueprints, func(b blueprintOption) bool { return b.Name == "default" }); i > 0 {
		d := blueprints[i]
		blueprints = append([]blueprintOption{d}, slices.Delete(blueprints, i, i+1)...)
	}
	var templates []TemplateChoice
	for _, tc := range opts.Templates {
		tc.Name, tc.Title = strings.TrimSpace(tc.Name), strings.TrimSpace(tc.Title)
		if tc.Name == "" {
			bad("a role template name is empty: list names such as fullstack-senior")
			continue
		}
		if slices.ContainsFunc(templates, func(t TemplateChoice) bool { return t.Name == tc.Name }) {
			continue
		}
		if tc.Title == "" {
			tc.Title = tc.Name
		}
		templates = append(templates, tc)
	}
	switch {
	case opts.RateLimit == 0:
		opts.RateLimit = DefaultRateLimit
	case opts.RateLimit < 0:
		bad("rate limit %d is negative: use a number of requests per minute such as 20", opts.RateLimit)
	}
	brand, err := newBrand(opts.BrandName, opts.BrandLogo)
	if err != nil {
		errs = append(errs, err)
	}
	consent, err := newConsent(opts.ConsentText, brand.Name, opts.RecordsAudio)
	if err != nil {
		errs = append(errs, err)
	}
	switch {
	case opts.TimeScale == 0:
		opts.TimeScale = 1
	case !(opts.TimeScale > 0):
		bad("time scale %v is not above 0: use 1 for real time or 0.1 for ten times faster", opts.TimeScale)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FindBlueprint == nil {
		opts.FindBlueprint = stages.Builtin
	}

	s := &Server{
		records: records{site: &site{log: opts.Logger, now: opts.Now}, store: opts.Store},
		links:   links{publicURL: publicURL},
		tokens: &roomTokens{apiKey: opts.APIKey, apiSecret: opts.APISecret, agentName: opts.AgentName, tokenTTL: opts.TokenTTL,
			rejoinGrace: opts.RejoinGrace, clientURL: clientURL},
		liveKitURL: opts.LiveKitURL,
		interviews: &interviews.Service{Store: opts.Store, NewRoom: RoomName, Notifier: opts.Webhooks,
			LinkTTL: opts.LinkTTL, Now: opts.Now},
		findBlueprint:  blueprintFinder(opts.FindBlueprint),
		brand:          brand,
		csp:            contentSecurityPolicy(opts.LiveKitURL, brand.logoOrigin()),
		metrics:        opts.Metrics,
		metricsHandler: opts.MetricsHandler,
		createLim:      newRateLimiter(opts.RateLimit, opts.Now),
	}
	pl := &plans{blueprints: blueprints, templates: templates}
	s.registrar = &registrar{records: s.records, plans: pl, links: s.links, tokens: s.tokens, interviews: s.interviews, metrics: s.metrics}
	s.invitations = &invitations{records: s.records, plans: pl, links: s.links, interviews: s.interviews}
	s.room = &roomPages{records: s.records, tokens: s.tokens, interviews: s.interviews, findBlueprint: s.findBlueprint,
		consent: consent, timeScale: opts.TimeScale}
	s.feedbackMail = &feedbackMail{records: s.records, links: s.links, mailer: opts.Mailer, findBlueprint: s.findBlueprint}
	s.review = &reviewPages{records: s.records, findBlueprint: s.findBlueprint, recordings: opts.Recordings}
	s.decisions = &decisionActions{records: s.records, interviews: s.interviews, reports: opts.Reports,
		reportLim: newRateLimiter(reportRequestsPerMinute, opts.Now)}
	s.reports = &reportPages{records: s.records}
	s.access = &access{site: s.site, accounts: opts.Accounts, reviewerHash: sha256.Sum256([]byte(opts.ReviewerToken)),
		sharedPassword: opts.ReviewerToken != "", secureCookies: opts.SecureCookies,
		sessions: newSessionStore(sessionTTL, maxSessions, maxSessionsPerUser, opts.Now),
		loginLim: newRateLimiter(opts.RateLimit, opts.Now), bearerLim: newRateLimiter(opts.RateLimit, opts.Now)}
	if err := s.loadAssets(); err != nil {
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// blueprintTitle is the human name of a blueprint: its title when it is
// built in, else its name.
// noTemplate says why the built-in blueprint name asks no role
// template's questions; empty when it does.
func noTemplate(name string) string {
	b, err := stages.Builtin(name)
	if err != nil {
		return ""
	}
	if err := b.TakesTemplate(); err != nil {
		return strings.TrimPrefix(err.Error(), "stages: ")
	}
	return ""
}

func blueprintTitle(name string) string {
	if b, err := stages.Builtin(name); err == nil && b.Title != "" {
		return b.Title
	}
	return name
}

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

// Handler returns the handler of every route, wrapped with the security
// headers, cross-origin protection for state-changing requests and panic
// recovery.
func (s *Server) Handler() http.Handler { return s.handler }

// routes builds the request router.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	register := func(h http.HandlerFunc) http.HandlerFunc { return s.access.require(accounts.Register, h) }
	review := func(h http.HandlerFunc) http.HandlerFunc { return s.access.require(accounts.Review, h) }
	mux.HandleFunc("GET /{$}", register(s.registrar.handleForm))
	mux.HandleFunc("GET /healthz", s.handleHealth)
	if s.metricsHandler != nil {
		mux.Handle("GET "+MetricsPath, s.metricsHandler)
	}
	mux.Handle("GET /static/", s.staticHandler())

	mux.Handle("POST /api/interviews", s.limited(s.createLim, register(s.registrar.handleCreate)))
	mux.Handle("POST /api/token", s.limited(s.createLim, register(s.registrar.handleToken)))
	mux.Handle("POST /api/interviews/{id}/join", s.limited(s.createLim, http.HandlerFunc(s.room.handleJoin)))
	mux.HandleFunc("GET /interview/{id}", s.room.handleRoom)
	mux.HandleFunc("GET /invitations", register(s.invitations.handleInvitations))
	mux.HandleFunc("GET /invitations/{id}", register(s.invitations.handleInvitation))
	mux.HandleFunc("POST /invitations/{id}/revoke", register(s.invitations.handleRevoke))
	mux.HandleFunc("POST /invitations/{id}/reissue", register(s.invitations.handleReissue))
	mux.HandleFunc("GET /api/interviews/{id}/transcript", s.room.handleTranscript)
	mux.HandleFunc("GET "+faviconPath, s.handleFavicon)
	mux.HandleFunc("GET "+brandLogoPath, s.handleLogo)

	for _, path := range []string{loginPath, reviewerLoginPath} {
		mux.HandleFunc("GET "+path, s.access.handleLoginForm)
		mux.Handle("POST "+path, s.limited(s.access.loginLim, http.HandlerFunc(s.access.handleLogin)))
	}
	for _, path := range []string{logoutPath, reviewerLogoutPath} {
		mux.HandleFunc("POST "+path, s.access.handleLogout)
	}
	mux.HandleFunc("GET /review", review(s.review.handleReviewList))
	mux.HandleFunc("GET /review/{$}", review(s.review.handleReviewList))
	mux.HandleFunc("GET /review/{id}", review(s.review.handleReviewDetail))
	mux.HandleFunc("GET /review/{id}/live", review(s.review.handleReviewLive))
	mux.HandleFunc("GET /review.csv", review(s.review.handleReviewCSV))
	mux.HandleFunc("GET /review/compare", review(s.reports.handleCompare))
	mux.HandleFunc("GET /review/{id}/report", review(s.reports.handleReportPrint))
	mux.HandleFunc("GET /review/{id}/report.pdf", review(s.reports.handleReportPDF))
	mux.HandleFunc("GET /review/{id}/recordings/{name}", review(s.review.handleRecording))
	mux.HandleFunc("GET /interview/{id}/feedback", s.room.handleFeedback)
	mux.HandleFunc("POST /review/{id}/decision", review(s.decisions.handleDecisionForm))
	mux.HandleFunc("POST /review/{id}/report/regenerate", review(s.decisions.handleRegenerateForm))
	mux.HandleFunc("GET /api/interviews", review(s.review.handleAPIList))
	mux.HandleFunc("GET /api/interviews/{id}", review(s.review.handleAPIGet))
	mux.HandleFunc("POST /api/interviews/{id}/decision", review(s.decisions.handleAPIDecision))
	mux.HandleFunc("POST /api/interviews/{id}/report", review(s.decisions.handleAPIReport))

	cop := http.NewCrossOriginProtection()
	if s.publicURL != "" {
		if u, err := url.Parse(s.publicURL); err == nil {
			_ = cop.AddTrustedOrigin(u.Scheme + "://" + u.Host) // checked in New
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(s.handleCrossOrigin))
	return s.observeRequests(mux, s.recoverPanics(s.securityHeaders(cop.Handler(mux))))
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
