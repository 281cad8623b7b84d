package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/viva-interviews/viva/agent/engines"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/internal/mail"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/internal/sidehttp"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/invitemail"
	"github.com/viva-interviews/viva/interviews/privacy"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/reports"
	"github.com/viva-interviews/viva/rescue"
	"github.com/viva-interviews/viva/web"
	"github.com/viva-interviews/viva/webhooks"
)

// runWeb serves the web app: registration, the candidate's room page and
// the reviewer pages.
func runWeb(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var allowNoRoomPage *bool
	cfg, err := loadConfig("web", args, stderr, func(fs *flag.FlagSet) { allowNoRoomPage = roomPageFlag(fs) })
	if err != nil {
		return err
	}
	if err := cfg.RequireLiveKit(); err != nil {
		return cli.UsageError("%v", err)
	}
	log := newLogger(stderr, cfg.LogLevel)
	if err := checkRoomPage(web.CheckRoomBundle, *allowNoRoomPage, log); err != nil {
		return err
	}
	if cfg.ReviewerToken != "" {
		log.Warn("the shared password VIVA_REVIEWER_TOKEN is set: it signs in with every permission; use it for development only and give people accounts with viva users add")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another viva web running? choose another address with --addr)", cfg.Addr, err)
	}
	side := &sidehttp.Servers{Logger: log}
	defer side.Stop()
	if _, err := startPprof(side, cfg); err != nil {
		ln.Close()
		return err
	}
	return serveWeb(ctx, ln, cfg, log, metrics.NewRegistry())
}

// serveWeb serves the web app on ln until ctx ends; its metrics join reg,
// which GET /metrics serves.
func serveWeb(ctx context.Context, ln net.Listener, cfg *config.Config, log *slog.Logger, reg *prometheus.Registry) error {
	webMetrics := metrics.NewWeb(reg)
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeStore(store)
	users, err := openAccounts(ctx, cfg, store)
	if err != nil {
		return err
	}
	defer users.Close()
	recs, err := openRecordings(ctx, cfg, false)
	if err != nil {
		return err
	}
	if list, err := users.Store().List(ctx); err != nil {
		return err
	} else if len(list) == 0 && cfg.ReviewerToken == "" {
		return cli.UsageError("no one could sign in: %s has no users. Add the first administrator with: viva users add --email you@example.com --role admin (or, for development only, set VIVA_REVIEWER_TOKEN to a shared password)", users.Where)
	}
	templates, err := installedTemplates()
	if err != nil {
		return err
	}
	hooks, err := webhooks.New(webhooks.Options{URLs: cfg.WebhookURLList(), Secret: cfg.WebhookSecret, Audit: store, Logger: log,
		OnDelivery: func(d webhooks.Delivery) { webMetrics.Webhook(d.Event, d.OK()) }})
	if err != nil {
		return err
	}
	gen, err := reportGenerator(cfg, log)
	if err != nil {
		return err
	}
	mailer, err := newMailer(cfg, log)
	if err != nil {
		return err
	}
	// The runner's events go to the webhooks and, with a mailer, a ready
	// report also emails the candidate their feedback link.
	events := &reports.ReadyHook{Next: hooks}
	runner, err := reports.NewRunner(reports.RunnerOptions{Store: store, Generator: gen, Webhooks: events, Logger: log,
		OnReport: webMetrics.Report, DropTexts: cfg.DropTextsAfterReport})
	if err != nil {
		return err
	}
	consentText, err := consentWording(cfg)
	if err != nil {
		return err
	}
	srv, err := web.New(web.Options{Store: store, Templates: templates, Accounts: users, Sessions: users.Sessions, Limiter: users.Limiter, LiveKitURL: cfg.LiveKitURL, APIKey: cfg.LiveKitAPIKey, APISecret: cfg.LiveKitAPISecret,
		AgentName: cfg.AgentName, ReviewerToken: cfg.ReviewerToken, TokenTTL: cfg.TokenTTL, LinkTTL: cfg.LinkTTL, RejoinGrace: cfg.RejoinGrace, PublicURL: cfg.PublicURL,
		SecureCookies: strings.HasPrefix(cfg.PublicURL, "https://"), Logger: log, Reports: runner, Webhooks: hooks, Mailer: mailer,
		Recordings:    recs,
		CheckLanguage: func(tag string, keys interviews.Keys) error { return engines.CheckLanguage(cfg, tag, keys) },
		BrandName:     cfg.BrandName, BrandLogo: cfg.BrandLogo, ConsentText: consentText, RecordsAudio: cfg.RecordAudio, TimeScale: cfg.TimeScale,
		Metrics: webMetrics, MetricsHandler: metrics.Handler(reg)})
	if err != nil {
		return err
	}
	// Reports and webhooks run beside the web app and stop with it.
	var background sync.WaitGroup
	defer background.Wait()
	bgCtx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	if mailer != nil {
		events.Start(bgCtx, &background, func(ctx context.Context, rec *interviews.Record) { _, _ = srv.NotifyFeedbackReady(ctx, rec) })
	}
	background.Go(func() { _ = runner.Run(bgCtx) })
	background.Go(func() { hooks.Run(bgCtx) })
	startSweepers(bgCtx, &background, store, recs, cfg, log)
	// Candidates who have not started are reminded before their link expires.
	if invites := srv.InviteMail(); invites != nil {
		background.Go(func() { invites.Run(bgCtx, invitemail.DefaultSweepInterval) })
	}
	if err := web.CheckResumeParser(ctx); err != nil {
		return err
	}
	return serveHTTP(ctx, ln, srv.Handler(), log)
}

// serveHTTP serves h on ln until ctx ends, then shuts down gracefully.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("web app listening", "url", "http://"+ln.Addr().String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}

// startSweepers starts, on wg until ctx ends, the web app's periodic
// sweeps: recordings and records past their retention, and interviews
// whose worker died (a candidate left waiting alone is sent an
// interviewer again).
func startSweepers(ctx context.Context, wg *sync.WaitGroup, store interviews.Store, recs *recordings.Dir, cfg *config.Config, log *slog.Logger) {
	// Recordings past their retention are deleted hourly.
	sweeper := &recordings.Sweeper{Dir: recs, Store: store, Retention: cfg.RecordingRetention, Logger: log}
	wg.Go(func() { sweeper.Run(ctx, recordings.DefaultSweepInterval) })
	// Records past the record retention are erased hourly, with their
	// recordings.
	expiry := &privacy.Sweeper{Eraser: &privacy.Eraser{Store: store, Recordings: recs},
		Retention: cfg.RecordRetention, Logger: log}
	wg.Go(func() { expiry.Run(ctx, privacy.DefaultSweepInterval) })
	// Interviews whose worker died are swept while the app runs, and a
	// candidate left waiting alone is sent an interviewer again.
	watchdog := &rescue.Watchdog{Store: store, AgentName: cfg.AgentName, CandidateIdentity: web.CandidateIdentity, Logger: log,
		Rooms:      lksdk.NewRoomServiceClient(httpURL(cfg.LiveKitURL), cfg.LiveKitAPIKey, cfg.LiveKitAPISecret),
		Dispatcher: lksdk.NewAgentDispatchServiceClient(httpURL(cfg.LiveKitURL), cfg.LiveKitAPIKey, cfg.LiveKitAPISecret)}
	wg.Go(func() { watchdog.Run(ctx, rescue.DefaultInterval) })
}

// reportGenerator returns what writes the feedback reports: with the
// openai language model, the model, the basic report standing in whenever
// it fails; otherwise the basic report.
func reportGenerator(cfg *config.Config, log *slog.Logger) (reports.Generator, error) {
	if cfg.ResolvedLLM() != config.EngineOpenAI {
		return reports.Basic{}, nil
	}
	client, err := openai.New(openai.Options{APIKey: engines.OpenAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAIModel,
		FirstTokenTimeout: cfg.LLMFirstTokenTimeout, ChunkGapTimeout: cfg.LLMChunkGapTimeout, Logger: log})
	if err != nil {
		return nil, err
	}
	model := reports.NewModel(client, reports.ModelOptions{Model: cfg.OpenAIModel})
	return reports.WithFallback(model, reports.Basic{}, func(err error) {
		log.Warn("the report model failed; the basic report stood in", "model", cfg.OpenAIModel, "err", err)
	}), nil
}

// randomToken returns n random bytes as hex.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newMailer is the sender of candidates' feedback emails, nil (no email)
// when VIVA_SMTP_URL is unset.
func newMailer(cfg *config.Config, log *slog.Logger) (web.Mailer, error) {
	if cfg.SMTPURL == "" {
		return nil, nil
	}
	m, err := mail.New(cfg.SMTPURL)
	if err != nil {
		return nil, cli.UsageError("VIVA_SMTP_URL: %v", err)
	}
	if cfg.PublicURL == "" {
		log.Warn("VIVA_SMTP_URL is set but VIVA_PUBLIC_URL is not: feedback emails need the public address to link to, so none are sent")
	}
	log.Info("feedback emails on", "smtp", m.String())
	return m, nil
}

// consentWording is the notice candidates agree to: the consent file's
// text, the consent text, or "" for the web app's built-in notice.
func consentWording(cfg *config.Config) (string, error) {
	if cfg.ConsentFile == "" {
		return cfg.ConsentText, nil
	}
	data, err := os.ReadFile(cfg.ConsentFile)
	if err != nil {
		return "", fmt.Errorf("consent file: %w: set VIVA_CONSENT_FILE to a readable text file, or use VIVA_CONSENT_TEXT", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", fmt.Errorf("consent file %s is empty: write the notice candidates agree to in it, or unset VIVA_CONSENT_FILE for the built-in notice", cfg.ConsentFile)
	}
	return string(data), nil
}
