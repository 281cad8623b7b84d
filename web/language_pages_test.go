package web

import (
	"html"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/testrig/fakesmtp"
)

// candidateViews renders everything a candidate of an interview in tag
// can read apart from the room's script: the message pages (unknown,
// ended, withdrawn and expired links, no feedback), the room page, the
// feedback page being prepared and ready, the join endpoint's refusals,
// and the emails (invitation, reminder, feedback ready) as sent through
// a real SMTP server. The record's data (names, the report's prose) is
// the same in every language; only viva's own words differ.
func candidateViews(t *testing.T, tag string) map[string]string {
	t.Helper()
	ts, smtp := mailServer(t)
	now := ts.clock.Now()
	accept := func(path string) string { return ts.get(path, "Accept-Language", tag).Body.String() }
	scheduled := func(edit func(*interviews.Record)) *interviews.Record {
		exp := now.Add(72 * time.Hour)
		rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer"},
			Blueprint: "default", Language: tag, CreatedAt: now, ExpiresAt: &exp}
		if edit != nil {
			edit(rec)
		}
		if err := ts.store.Create(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	saved := func(r *interviews.Record) *interviews.Record {
		r.Language = tag
		if err := ts.store.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	v := map[string]string{}
	v["unknown link"] = accept("/interview/no-such-interview")
	v["no feedback"] = accept("/interview/no-such-interview/feedback")
	v["ended"] = ts.get("/interview/" + saved(detailRecord(t, ts, interviews.StatusCompleted)).ID).Body.String()
	withdrawn := scheduled(func(r *interviews.Record) { r.Revoke("recruiter@example.com", now) })
	v["withdrawn"] = ts.get("/interview/" + withdrawn.ID).Body.String()
	expired := scheduled(func(r *interviews.Record) {
		r.CreatedAt = now.Add(-10 * 24 * time.Hour)
		r.ExpiresAt = new(now.Add(-time.Hour))
	})
	v["expired"] = ts.get("/interview/" + expired.ID).Body.String()
	room := scheduled(nil)
	v["room"] = ts.get("/interview/" + room.ID).Body.String()
	for name, body := range map[string]string{"no consent": `{"consent":false}`, "consent changed": `{"consent":true,"consent_version":"old"}`, "unreadable join": `{`} {
		req := httptest.NewRequest(http.MethodPost, "/api/interviews/"+room.ID+"/join", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		v[name] = decodeJSON[apiError](t, ts.do(req).Body).Error
	}
	pending := detailRecord(t, ts, interviews.StatusCompleted)
	practice(pending, false)
	v["feedback pending"] = ts.get("/interview/" + saved(pending).ID + "/feedback").Body.String()
	ready := withReport(t, ts, "Ada Lovelace", fixtureReport(now))
	practice(ready, true)
	v["feedback ready"] = ts.get("/interview/" + saved(ready).ID + "/feedback").Body.String()

	invited := scheduled(nil)
	if err := ts.InviteMail().Invite(t.Context(), invited.ID, testRecruiter); err != nil {
		t.Fatal(err)
	}
	v["invitation email"] = mailWithSubject(t, smtp, 0)
	ts.clock.Advance(50 * time.Hour) // within a day of the links' expiry
	if n, err := ts.InviteMail().Sweep(t.Context()); err != nil || n == 0 {
		t.Fatalf("reminders: %d sent, %v", n, err)
	}
	v["reminder email"] = mailWithSubject(t, smtp, 1)
	if sent, err := ts.NotifyFeedbackReady(t.Context(), ready); !sent || err != nil {
		t.Fatalf("feedback email: sent %v, %v", sent, err)
	}
	v["feedback email"] = mailWithSubject(t, smtp, len(smtp.Messages())-1)
	return v
}

// mailWithSubject is email i's subject, decoded, and text.
func mailWithSubject(t *testing.T, srv *fakesmtp.Server, i int) string {
	t.Helper()
	text := mailText(t, srv, i)
	msg, err := mail.ReadMessage(strings.NewReader(srv.Messages()[i].Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return subject + "\n" + text
}

var (
	hiddenHTML = regexp.MustCompile(`(?s)<(script|style|title)[^>]*>.*?</(script|style|title)>`)
	htmlTag    = regexp.MustCompile(`<[^>]*>`)
	wordRe     = regexp.MustCompile(`\pL{2,}`)
)

// sentences are the pieces of text a person reads in page or email text:
// the text between tags, line by line, of at least two words.
func sentences(text string) []string {
	text = html.UnescapeString(htmlTag.ReplaceAllString(hiddenHTML.ReplaceAllString(text, "\n"), "\n"))
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if len(wordRe.FindAllString(line, -1)) >= 2 && !strings.Contains(line, "://") {
			out = append(out, line)
		}
	}
	return out
}

// recordData is what the record says, in whatever language it was
// written: it may be the same on every language's page.
var recordData = []string{"Ada Lovelace", "Backend engineer", "Acme", "Tell me about a system you built."}

// TestCandidatePagesAndEmailsTranslated renders every candidate page and
// email of an interview in Spanish and in German and finds no sentence of
// the English rendering in them: a text added in English only, in a
// template or in the catalogue, fails it.
func TestCandidatePagesAndEmailsTranslated(t *testing.T) {
	en := candidateViews(t, "en")
	rep := fixtureReport(time.Now())
	data := slices.Clone(recordData)
	data = append(data, rep.Headline)
	for _, p := range append(rep.Strengths, rep.Improvements...) {
		data = append(data, p.Text)
	}
	for _, q := range rep.KeyQuestions {
		data = append(data, q.Question, q.Good, q.Missing)
	}
	for _, tag := range []string{"es", "de"} {
		other := candidateViews(t, tag)
		for what, enText := range en {
			got := sentences(other[what])
			if len(got) == 0 {
				t.Errorf("%s %s: nothing rendered", tag, what)
				continue
			}
			for _, s := range sentences(enText) {
				if slices.Contains(got, s) && !onlyData(s, data) {
					t.Errorf("%s %s still says in English: %q", tag, what, s)
				}
			}
		}
		if !strings.Contains(other["withdrawn"], `<html lang="`+tag+`">`) {
			t.Errorf("%s: the withdrawn link's page does not declare its language", tag)
		}
	}
}

// onlyData reports whether s says nothing but data, with at most one word
// of its own.
func onlyData(s string, data []string) bool {
	s = strings.ToLower(s)
	for _, d := range data {
		if d != "" {
			s = strings.ReplaceAll(s, strings.ToLower(d), " ")
		}
	}
	return len(wordRe.FindAllString(s, -1)) < 2
}

// TestBrowserCandidateMessagesInLanguage opens, in Chromium, the page of
// a withdrawn link of an interview in German, and an unknown link from a
// browser that asks for Spanish: each page is in its language and says
// so in its html lang.
func TestBrowserCandidateMessagesInLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ts := newTestServer(t)
	exp := ts.clock.Now().Add(72 * time.Hour)
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer"},
		Blueprint: "default", Language: "de-AT", CreatedAt: ts.clock.Now(), ExpiresAt: &exp}
	rec.Revoke(testRecruiter, ts.clock.Now())
	if err := ts.store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ts.Handler())
	t.Cleanup(srv.Close)
	b := newReportBrowser(t)
	var deLang, deTitle, deText, esLang, esTitle string
	b.run(t, "the withdrawn link in German",
		chromedp.Navigate(srv.URL+"/interview/"+rec.ID),
		chromedp.WaitVisible("main h1", chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.lang`, &deLang),
		chromedp.Text("main h1", &deTitle, chromedp.ByQuery),
		chromedp.Text("main p", &deText, chromedp.ByQuery))
	b.shot(t, "message-german")
	b.run(t, "an unknown link asked for in Spanish",
		network.Enable(),
		network.SetExtraHTTPHeaders(network.Headers{"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}),
		chromedp.Navigate(srv.URL+"/interview/no-such-link"),
		chromedp.WaitVisible("main h1", chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.lang`, &esLang),
		chromedp.Text("main h1", &esTitle, chromedp.ByQuery))
	for _, c := range []struct{ what, got, want string }{
		{"German html lang", deLang, "de-AT"},
		{"German title", deTitle, "Link nicht mehr gültig"},
		{"German message", deText, "Dieser Interview-Link wurde zurückgezogen"},
		{"Spanish html lang", esLang, "es"},
		{"Spanish title", esTitle, "Entrevista no encontrada"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s = %q, want it to contain %q", c.what, c.got, c.want)
		}
	}
}
