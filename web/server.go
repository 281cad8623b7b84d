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
//
// The handlers are grouped by area, each a small type holding only what it
// uses and registering its own routes (its routes method): registrar
// (the registration form and API), invitations, roomPages (the candidate's
// pages), reviewPages, decisionActions (decisions and report requests),
// reportPages (print, PDF, comparison) and access (sign-in, sessions, the
// permission middleware). They share site (templates, logger, clock, error
// pages, JSON) and records (site with the store). What is decided about an
// interview — registering it, withdrawing or re-issuing its link, a
// decision, consent — is interviews.Service's: handlers read and check the
// request, call the service and answer. Server checks every request
// (security headers, cross-origin protection, panics, metrics) and hands
// it to the area's route.
package web

import (
	"crypto/sha256"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
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
	// Sessions keeps the signed-in users' sessions (default: this
	// process's memory). Web apps serving the same users share one: the
	// database's (accounts/postgres), so a session started on one is
	// honoured by all.
	Sessions accounts.Sessions
	// Limiter returns the rate limiter called name allowing perMinute
	// requests a minute to each client (default: each in this process's
	// memory). Web apps serving the same users share the database's, so
	// a client's requests count once whichever app answers.
	Limiter func(name string, perMinute int) accounts.Limiter
	// SecureCookies marks the reviewer session cookie Secure; set it when
	// the app is served over HTTPS.
	SecureCookies bool
	// Reports regenerates reports on a reviewer's request (a
	// *reports.Runner); nil refuses such requests.
	Reports ReportRequester
	// Webhooks tells hiring systems about reviewers' decisions (a
	// *webhooks.Sender); nil tells nobody.
	Webhooks interviews.Notifier
	// CheckLanguage says why the interviewer's engines cannot hold an
	// interview in a language (a tag checked by lang.Parse; "" is
	// English), with the server's engines or, when given, the interview's
	// own provider keys; nil knows no reason, and the worker refuses such
	// an interview when the candidate joins.
	CheckLanguage func(language string, keys interviews.Keys) error
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

// Server serves the web app: it checks every request (security headers,
// cross-origin protection, panics, metrics) and hands it to the area that
// answers it. Create one with New; it is safe for concurrent use.
type Server struct {
	*site
	static         fs.FS
	brand          brand
	csp            string
	publicURL      string       // trusted origin for cross-origin protection; empty: none
	metrics        *metrics.Web // nil: nothing counted
	metricsHandler http.Handler // nil: no /metrics
	handler        http.Handler

	access       *access
	registrar    *registrar
	invitations  *invitations
	room         *roomPages
	feedbackMail *feedbackMail
	review       *reviewPages
	decisions    *decisionActions
	reports      *reportPages
	designs      *designPages
}

// New checks opts and returns a Server. Its errors say which option is
// wrong and what to set instead.
func New(opts Options) (*Server, error) {
	set, err := checkOptions(&opts)
	if err != nil {
		return nil, err
	}
	st := &site{log: opts.Logger, now: opts.Now}
	recs := records{site: st, store: opts.Store}
	svc := &interviews.Service{Store: opts.Store, NewRoom: RoomName, Notifier: opts.Webhooks, LinkTTL: opts.LinkTTL, Now: opts.Now}
	tokens := &roomTokens{apiKey: opts.APIKey, apiSecret: opts.APISecret, agentName: opts.AgentName,
		tokenTTL: opts.TokenTTL, rejoinGrace: opts.RejoinGrace, clientURL: set.clientURL}
	lnk := links{publicURL: set.publicURL}
	find := blueprintFinder{lib: interviews.Library{Store: opts.Store}}
	pl := &plans{blueprints: set.blueprints, templates: set.templates, designs: opts.Store, speaks: opts.CheckLanguage}
	mail := newInviteMail(opts, set.publicURL, set.brand.Name, find)
	s := &Server{
		site: st, brand: set.brand, csp: contentSecurityPolicy(opts.LiveKitURL, set.brand.logoOrigin()),
		publicURL: set.publicURL, metrics: opts.Metrics, metricsHandler: opts.MetricsHandler,
		access: &access{site: st, accounts: opts.Accounts, reviewerHash: sha256.Sum256([]byte(opts.ReviewerToken)),
			sharedPassword: opts.ReviewerToken != "", secureCookies: opts.SecureCookies,
			sessions: opts.Sessions, loginLim: opts.Limiter("login", opts.RateLimit), bearerLim: opts.Limiter("bearer", opts.RateLimit)},
		registrar:   &registrar{records: recs, plans: pl, links: lnk, tokens: tokens, interviews: svc, metrics: opts.Metrics, mail: mail},
		invitations: &invitations{records: recs, plans: pl, links: lnk, interviews: svc, mail: mail},
		room: &roomPages{records: recs, tokens: tokens, interviews: svc, findBlueprint: find,
			consent: set.consent, timeScale: opts.TimeScale},
		feedbackMail: &feedbackMail{log: opts.Logger, links: lnk, interviews: svc, mailer: opts.Mailer, findBlueprint: find},
		review:       &reviewPages{records: recs, findBlueprint: find, recordings: opts.Recordings},
		decisions: &decisionActions{records: recs, interviews: svc, reports: opts.Reports,
			reportLim: opts.Limiter("report", reportRequestsPerMinute)},
		reports: &reportPages{records: recs},
		designs: &designPages{records: recs, interviews: svc},
	}
	if err := s.loadAssets(); err != nil {
		return nil, err
	}
	s.handler = s.routes(opts.Limiter("create", opts.RateLimit))
	return s, nil
}

// Handler returns the handler of every route, wrapped with the security
// headers, cross-origin protection for state-changing requests and panic
// recovery.
func (s *Server) Handler() http.Handler { return s.handler }

// gates wrap an area's handlers with the checks its routes need.
type gates struct {
	// register and review ask for the permission of that name; design
	// for managing the design library.
	register, review, design func(http.HandlerFunc) http.HandlerFunc
	// limited counts each client's requests that create interviews or
	// mint tokens.
	limited func(http.Handler) http.Handler
}

// routes builds the request router: each area registers its own routes.
func (s *Server) routes(createLim accounts.Limiter) http.Handler {
	mux := http.NewServeMux()
	g := gates{
		register: func(h http.HandlerFunc) http.HandlerFunc { return s.access.require(accounts.Register, h) },
		review:   func(h http.HandlerFunc) http.HandlerFunc { return s.access.require(accounts.Review, h) },
		design:   func(h http.HandlerFunc) http.HandlerFunc { return s.access.require(accounts.Design, h) },
		limited:  func(h http.Handler) http.Handler { return s.limited(createLim, h) },
	}
	mux.HandleFunc("GET /healthz", s.handleHealth)
	if s.metricsHandler != nil {
		mux.Handle("GET "+MetricsPath, s.metricsHandler)
	}
	mux.Handle("GET /static/", s.staticHandler())
	mux.HandleFunc("GET "+faviconPath, s.handleFavicon)
	mux.HandleFunc("GET "+brandLogoPath, s.handleLogo)
	s.access.routes(mux)
	s.registrar.routes(mux, g)
	s.invitations.routes(mux, g)
	s.room.routes(mux, g)
	s.review.routes(mux, g)
	s.decisions.routes(mux, g)
	s.reports.routes(mux, g)
	s.designs.routes(mux, g)

	cop := http.NewCrossOriginProtection()
	if s.publicURL != "" {
		if u, err := url.Parse(s.publicURL); err == nil {
			_ = cop.AddTrustedOrigin(u.Scheme + "://" + u.Host) // checked in New
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(s.handleCrossOrigin))
	return s.observeRequests(mux, s.recoverPanics(s.securityHeaders(cop.Handler(mux))))
}
