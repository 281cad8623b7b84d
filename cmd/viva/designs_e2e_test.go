package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/interviews/storetest"
	"github.com/viva-interviews/viva/testrig/browsertest"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/testrig/pgtest"
	"github.com/viva-interviews/viva/web"
)

// The questions of the blueprint and the role template the admin
// installs in the end-to-end test, and the admin.
const (
	e2eDesignQuestion   = "Which release of the billing service did you ship last quarter?"
	e2eTemplateQuestion = "How would you plan the migration of the ledger tables?"
	e2eAdmin            = "admin@example.com"
)

// e2eBlueprint is the test design of the library with a guided stage
// before its wrap-up.
var e2eBlueprint = strings.Replace(storetest.BlueprintYAML("billing", e2eDesignQuestion), "  - name: wrapup", `  - name: ledger
    title: Ledger questions
    instructions: Ask the role's questions, one at a time.
    guided: true
    limit: 3m
  - name: wrapup`, 1)

// TestDesignsInstalledInWebAppRunOnAnotherMachine is the design library
// end to end, across machines: in headless Chromium an admin installs a
// YAML blueprint and a markdown role template in the web app and
// registers a candidate with them on the form; a "viva agent" process that
// shares only the PostgreSQL store with the web app (its own data
// directory stays empty) runs the spoken interview over livekit-server:
// the candidate hears the design's question in its first stage, answers
// aloud, and hears the template's question in the design's guided stage.
// The record and the reviewer page name both designs' versions.
func TestDesignsInstalledInWebAppRunOnAnotherMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, livekit-server, a worker process and Chromium")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dbURL := pgtest.Database(t)
	lk := lktest.Start(t)
	startAgentProcess(t, lk, t.TempDir(), "worker", "VIVA_DATABASE_URL="+dbURL)
	store, site, token := startWebOnPostgres(t, ctx, dbURL, lk)

	b := browsertest.Start(t, browsertest.Desktop)
	bctx, bcancel := context.WithTimeout(b, 2*time.Minute)
	defer bcancel()
	var joinURL, invitation string
	err := chromedp.Run(bctx,
		network.Enable(),
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + token}),
		installDesign(site, "blueprint", "billing", e2eBlueprint),
		installDesign(site, "template", "payments", storetest.TemplateMarkdown("Payments engineer", e2eTemplateQuestion)),
		chromedp.Navigate(site+"/"),
		chromedp.WaitVisible("#name", chromedp.ByID),
		chromedp.SetValue("#name", "Ada Lovelace", chromedp.ByID),
		chromedp.SetValue("#role", "Backend engineer", chromedp.ByID),
		chromedp.SetValue("#blueprint", "billing", chromedp.ByID),
		chromedp.SetValue("#template", "payments", chromedp.ByID),
		chromedp.Submit("#name", chromedp.ByID),
		chromedp.WaitVisible("#join-url", chromedp.ByID),
		chromedp.Value("#join-url", &joinURL, chromedp.ByID),
		chromedp.Text("dl.facts", &invitation, chromedp.ByQuery))
	if err != nil {
		t.Fatalf("installing the designs and registering in Chromium: %v", err)
	}
	bp, err := store.Design(ctx, interviews.KindBlueprint, "billing", "")
	if err != nil {
		t.Fatalf("the blueprint saved in the web app is not in PostgreSQL: %v", err)
	}
	tpl, err := store.Design(ctx, interviews.KindTemplate, "payments", "")
	if err != nil {
		t.Fatalf("the role template saved in the web app is not in PostgreSQL: %v", err)
	}
	if !strings.Contains(invitation, "billing (version "+bp.ShortVersion()+")") {
		t.Errorf("the invitation does not name the design's version %s: %q", bp.ShortVersion(), invitation)
	}
	id := joinURL[strings.LastIndex(joinURL, "/")+1:]

	bot := joinAsCandidate(t, ctx, site, lk, id)
	if _, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == "warmup" }); err != nil {
		t.Fatalf("the interview did not start in the design's first stage: %v; attributes %v", err, bot.AgentAttributes())
	}
	heard := func(what, text string) {
		t.Helper()
		if _, err := bot.WaitCaption(ctx, func(c candidatebot.Caption) bool {
			return c.Sender == bot.AgentIdentity() && c.Final && strings.Contains(c.Text, text)
		}); err != nil {
			t.Fatalf("the candidate never heard %s: %v; captions %+v", what, err, bot.Captions())
		}
	}
	heard("the design's question", "billing service")
	if err := bot.SayText(ctx, "We shipped the invoicing release in June and I led the ledger work."); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == "ledger" }); err != nil {
		t.Fatalf("the interview did not move to the design's guided stage: %v; attributes %v", err, bot.AgentAttributes())
	}
	heard("the role template's question", "ledger tables")

	rec, err := store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.BlueprintVersion != bp.Version || rec.Template != "payments" || rec.TemplateVersion != tpl.Version || len(rec.Turns) == 0 {
		t.Errorf("the record names %s@%s and %s@%s with %d turns, want billing@%s and payments@%s",
			rec.Blueprint, rec.BlueprintVersion, rec.Template, rec.TemplateVersion, len(rec.Turns), bp.Version, tpl.Version)
	}
	var subtitle string
	if err := chromedp.Run(bctx, chromedp.Navigate(site+"/review/"+id), chromedp.Text("p.subtitle", &subtitle, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"billing (version " + bp.ShortVersion() + ")", "role template payments (version " + tpl.ShortVersion() + ")"} {
		if !strings.Contains(subtitle, want) {
			t.Errorf("the reviewer page's subtitle %q lacks %q", subtitle, want)
		}
	}
}

// startWebOnPostgres runs the web app in this process on the PostgreSQL
// database dbURL (its own connection, as on another machine) and returns
// that store, the site's address and an admin's API token.
func startWebOnPostgres(t *testing.T, ctx context.Context, dbURL string, lk *lktest.Server) (*postgres.Store, string, string) {
	t.Helper()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	userStore, err := accounts.OpenFile(filepath.Join(t.TempDir(), "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	users, err := accounts.NewService(userStore, accounts.Params{Time: 1, MemoryKiB: 64, Threads: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.AddUser(ctx, e2eAdmin, accounts.RoleAdmin, "tundra ladle orbit pepper"); err != nil {
		t.Fatal(err)
	}
	token, err := users.CreateToken(ctx, e2eAdmin)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Options{Store: store, Accounts: users, LiveKitURL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret,
		AgentName: rescueAgentName, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(srv.Handler())
	t.Cleanup(site.Close)
	return store, site.URL, token
}

// installDesign adds a design of kind in the web app's editor, as an
// admin does: it opens the editor, types the text and saves it.
func installDesign(site, kind, name, content string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(site + "/designs/new?kind=" + kind),
		chromedp.WaitVisible("#content", chromedp.ByID),
		chromedp.SetValue("#name", name, chromedp.ByID),
		chromedp.SetValue("#content", content, chromedp.ByID),
		chromedp.Click(`button[value="save"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`form[action="/designs/`+kind+`/`+name+`/try"]`, chromedp.ByQuery),
	}
}

// consentVersion reads the consent notice's version from the room page.
var consentVersion = regexp.MustCompile(`data-consent-version="([^"]+)"`)

// joinAsCandidate joins interview id as the candidate's room page does:
// it reads the room page, agrees to the notice, takes the token the web
// app gives (which dispatches the interviewer) and joins the room.
func joinAsCandidate(t *testing.T, ctx context.Context, site string, lk *lktest.Server, id string) *candidatebot.Bot {
	t.Helper()
	page, err := httpGet(ctx, site+"/interview/"+id)
	if err != nil {
		t.Fatal(err)
	}
	m := consentVersion.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the room page has no consent version:\n%s", page)
	}
	body := fmt.Sprintf(`{"consent":true,"consent_version":%q}`, m[1])
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, site+"/api/interviews/"+id+"/join", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", site)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var join struct {
		Token string `json:"token"`
	}
	if raw, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &join) != nil || join.Token == "" {
		t.Fatalf("joining: %d %s", resp.StatusCode, bytes.TrimSpace(raw))
	}
	bot, err := candidatebot.Join(ctx, candidatebot.Options{URL: lk.URL, Token: join.Token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bot.Leave)
	return bot
}

// httpGet returns the body of a GET of url.
func httpGet(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return string(b), err
}
