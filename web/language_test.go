package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/agent/engines"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
)

// languageServer is a test server whose interviewer runs the engines cfg
// chooses.
func languageServer(t *testing.T, cfg *config.Config) *testServer {
	return newTestServer(t, func(o *Options) {
		o.CheckLanguage = func(tag string, keys interviews.Keys) error { return engines.CheckLanguage(cfg, tag, keys) }
	})
}

// On a server whose engines are the offline ones, English only, an
// interview in Spanish is refused at registration with what the server
// lacks; English is registered as before. A language viva does not ship,
// or that is not a language tag, is refused with the languages to choose.
func TestRegisterLanguageOffline(t *testing.T) {
	ts := languageServer(t, &config.Config{})
	body := map[string]any{"name": "Ana García", "role": "Backend engineer"}
	for _, tc := range []struct{ language, msg string }{
		{"es", "This server cannot hold interviews in Spanish: the offline speech recogniser (pocketsphinx), the offline voice (flite) and the offline interviewer (scripted) work in English only."},
		{"fr", `Interviews cannot be held in "fr" yet: choose one of en (English), es (Spanish), de (German)`},
		{"castellano", `The language "castellano" is not a language tag`},
	} {
		body["language"] = tc.language
		rec := ts.postJSON("/api/interviews", body)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: status %d, want 422: %s", tc.language, rec.Code, rec.Body)
		}
		if got := decodeJSON[apiError](t, rec.Body); !strings.Contains(got.Fields["language"], tc.msg) {
			t.Errorf("%s: fields %v, want language: %q", tc.language, got.Fields, tc.msg)
		}
	}
	resp := registerJSON(t, ts, map[string]string{"name": "Ana García", "role": "Backend engineer", "language": "en-GB"})
	if rec, err := ts.store.Get(t.Context(), resp.ID); err != nil || rec.Language != "en-GB" {
		t.Errorf("English: record language %q (%v)", rec.Language, err)
	}
}

// With OpenAI, a Spanish interview is registered with its language as
// typed in canonical case; a registration that names none gets the plan's.
func TestRegisterLanguageOpenAI(t *testing.T) {
	ts := languageServer(t, &config.Config{OpenAIAPIKey: "sk-test"})
	resp := registerJSON(t, ts, map[string]string{"name": "Ana García", "role": "Backend engineer", "language": "es-mx"})
	rec, err := ts.store.Get(t.Context(), resp.ID)
	if err != nil || rec.Language != "es-MX" {
		t.Fatalf("record language %q (%v), want es-MX", rec.Language, err)
	}
	resp = registerJSON(t, ts, map[string]string{"name": "Ana García", "role": "Backend engineer"})
	if rec, err = ts.store.Get(t.Context(), resp.ID); err != nil || rec.Language != "" {
		t.Errorf("no language with an English plan: record language %q (%v), want none", rec.Language, err)
	}
	// The form offers the languages by their own names.
	page := ts.get("/", "Cookie", ts.signIn(t, testRecruiter).String())
	for _, want := range []string{`<option value="es" lang="es">Español</option>`, `<option value="de" lang="de">Deutsch</option>`} {
		if !strings.Contains(page.Body.String(), want) {
			t.Errorf("the registration form lacks %s", want)
		}
	}
}

// TestBrowserRoomPageInSpanish opens the room page of an interview in
// Spanish in Chromium: the page's own texts, the notice, the plan's stage
// titles and what its script writes (the join hint when the agreement is
// withdrawn) are Spanish.
func TestBrowserRoomPageInSpanish(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ts := languageServer(t, &config.Config{OpenAIAPIKey: "sk-test"})
	resp := registerJSON(t, ts, map[string]string{"name": "Ana García", "role": "Ingeniera backend", "language": "es"})
	web := httptest.NewServer(ts.Handler())
	t.Cleanup(web.Close)
	b := newReportBrowser(t)
	var htmlLang, hello, join, notice, plan, hint string
	b.run(t, "the room page",
		chromedp.Navigate(web.URL+"/interview/"+resp.ID),
		chromedp.WaitVisible("#join", chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.lang`, &htmlLang),
		chromedp.Text("#prejoin-title", &hello, chromedp.ByQuery),
		chromedp.Text("#join", &join, chromedp.ByQuery),
		chromedp.Text("#consent-text", &notice, chromedp.ByQuery),
		chromedp.Text("#plan", &plan, chromedp.ByQuery),
		chromedp.Click("#consent", chromedp.ByQuery),
		chromedp.Click("#consent", chromedp.ByQuery),
		chromedp.Text("#join-status", &hint, chromedp.ByQuery))
	for _, c := range []struct{ what, got, want string }{
		{"html lang", htmlLang, "es"},
		{"greeting", hello, "Hola, Ana García"},
		{"join button", join, "Unirse a la entrevista"},
		{"notice", notice, "Esta entrevista la realiza un entrevistador de inteligencia artificial, no una persona."},
		{"plan", plan, "Bienvenida"},
		{"join hint from the script", hint, "Marque «Acepto» para unirse."},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s = %q, want it to contain %q", c.what, c.got, c.want)
		}
	}
	b.shot(t, "room-spanish")
}
