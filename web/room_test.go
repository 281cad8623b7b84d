package web

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
)

// TestJoinNeedsConsent: the first join needs the candidate's agreement to
// the current notice, and stores it in the record (when, which version,
// the wording); later joins find it there.
func TestJoinNeedsConsent(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer"}).ID
	if !regexp.MustCompile(`^sha256:[0-9a-f]{12}$`).MatchString(ts.room.consent.For("").Version) {
		t.Fatalf("consent version %q is not sha256: and 12 hex digits", ts.room.consent.For("").Version)
	}
	tests := []struct {
		name string
		body string
		want int
		msg  string
	}{
		{"no body", "", http.StatusBadRequest, "tick “I agree” before joining"},
		{"empty object", "{}", http.StatusBadRequest, "tick “I agree” before joining"},
		{"not agreed", `{"consent":false,"consent_version":"` + ts.room.consent.For("").Version + `"}`, http.StatusBadRequest, "tick “I agree”"},
		{"another wording", `{"consent":true,"consent_version":"sha256:000000000000"}`, http.StatusConflict, "has changed since this page was opened"},
		{"not JSON", "consent", http.StatusBadRequest, "could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.postJSON("/api/interviews/"+id+"/join", tt.body)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			if got := decodeJSON[apiError](t, rec.Body); !strings.Contains(got.Error, tt.msg) {
				t.Errorf("error %q, want it to contain %q", got.Error, tt.msg)
			}
			if r, _ := ts.store.Get(t.Context(), id); r.Consent != nil {
				t.Errorf("consent stored after a refused join: %+v", r.Consent)
			}
		})
	}

	if rec := ts.postJSON("/api/interviews/"+id+"/join", ts.agree()); rec.Code != http.StatusOK {
		t.Fatalf("join with consent: %d %s", rec.Code, rec.Body)
	}
	r, _ := ts.store.Get(t.Context(), id)
	want := interviews.Consent{At: ts.clock.Now(), Version: ts.room.consent.For("").Version, Text: DefaultConsentText("viva", false)}
	if r.Consent == nil || !r.Consent.At.Equal(want.At) || r.Consent.Version != want.Version || r.Consent.Text != want.Text {
		t.Fatalf("stored consent %+v, want %+v", r.Consent, want)
	}
	// A reconnect or rejoin finds the agreement in the record.
	ts.clock.Advance(time.Minute)
	if rec := ts.postJSON("/api/interviews/"+id+"/join", ""); rec.Code != http.StatusOK {
		t.Fatalf("join again: %d %s", rec.Code, rec.Body)
	}
	if r, _ := ts.store.Get(t.Context(), id); !r.Consent.At.Equal(want.At) {
		t.Errorf("the consent's time moved to %v on a rejoin", r.Consent.At)
	}
	// The reviewer sees when and to which wording the candidate agreed.
	review := ts.get("/review/"+id, "Authorization", "Bearer "+testReviewerToken).Body.String()
	if want := "Consent given at 2026-03-02 09:30 UTC (version <code>" + ts.room.consent.For("").Version + "</code>)"; !strings.Contains(review, want) {
		t.Errorf("the reviewer page lacks %q", want)
	}
	// The room page shows the agreement as given.
	page := ts.get("/interview/" + id).Body.String()
	if !strings.Contains(page, `id="consent" checked`) {
		t.Error("the room page of a candidate who agreed does not show the box ticked")
	}
}

// TestConsentWording: the notice says only what is true of the recording,
// names who reviews, and a configured wording replaces it (a new version).
func TestConsentWording(t *testing.T) {
	transcript := DefaultConsentText("Example Corp", false)
	audio := DefaultConsentText("Example Corp", true)
	for _, want := range []string{"AI interviewer", "transcript", "your audio is not recorded", "A person at Example Corp reviews"} {
		if !strings.Contains(transcript, want) {
			t.Errorf("notice without audio recording %q lacks %q", transcript, want)
		}
	}
	if !strings.Contains(audio, "audio of the conversation and a transcript") || strings.Contains(audio, "not recorded") {
		t.Errorf("notice with audio recording %q", audio)
	}
	if ConsentVersion(transcript) == ConsentVersion(audio) {
		t.Error("two wordings share a version")
	}

	ts := newTestServer(t, func(o *Options) { o.ConsentText = "Custom notice.\nSecond line." })
	id := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer"}).ID
	page := ts.get("/interview/" + id).Body.String()
	if !strings.Contains(page, "Custom notice.\nSecond line.") || !strings.Contains(page, `data-consent-version="`+ConsentVersion("Custom notice.\nSecond line.")+`"`) {
		t.Errorf("the room page lacks the configured notice and its version:\n%s", page)
	}
	if _, err := New(testOptions(t, func(o *Options) { o.ConsentText = strings.Repeat("x", maxConsentTextBytes+1) })); err == nil || !strings.Contains(err.Error(), "consent wording") {
		t.Errorf("New with an overlong notice: %v", err)
	}
}

// TestTranscriptIsCandidateScoped: the candidate's link reads back the
// turns (speaker, text, interruption, time, stage title) and nothing else
// of the record.
func TestTranscriptIsCandidateScoped(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer"}).ID
	now := ts.clock.Now()
	secrets := []string{"RESUME-SECRET", "JD-SECRET", "BRIEF-SECRET", "ASSESSMENT-SECRET", "SUMMARY-SECRET", "GUIDANCE-SECRET"}
	_, err := ts.store.Update(t.Context(), id, func(r *interviews.Record) error {
		r.Start(now)
		r.EnterStage("intro", "Introduction", now, false, "")
		r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "Describe", Interrupted: true, StartedAt: now, EndedAt: now.Add(time.Second)})
		r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "intro", Text: "Sorry, go on.", Source: "voice", StartedAt: now.Add(2 * time.Second), EndedAt: now.Add(3 * time.Second)})
		r.ResumeText, r.JobDescription, r.Brief, r.ResumeSummary = secrets[0], secrets[1], secrets[2], secrets[4]
		r.Assessments = []interviews.Assessment{{Stage: "intro", DepthScore: 3, KeyPoints: []string{secrets[3]}, Guidance: secrets[5]}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := ts.get("/api/interviews/" + id + "/transcript")
	if rec.Code != http.StatusOK {
		t.Fatalf("transcript: %d %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	for _, s := range secrets {
		if strings.Contains(body, s) {
			t.Errorf("the transcript carries %s: %s", s, body)
		}
	}
	var raw map[string][]map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 1 || len(raw["turns"]) != 2 {
		t.Fatalf("transcript %s: want only two turns", body)
	}
	for _, turn := range raw["turns"] {
		var keys []string
		for k := range turn {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if got := strings.Join(keys, ","); got != "at,interrupted,speaker,stage,text" {
			t.Errorf("a turn has the fields %s, want at,interrupted,speaker,stage,text", got)
		}
	}
	got := decodeJSON[transcriptResponse](t, strings.NewReader(body))
	want := []transcriptTurn{
		{Speaker: interviews.RoleAgent, Text: "Describe", Interrupted: true, At: now, Stage: "Introduction"},
		{Speaker: interviews.RoleCandidate, Text: "Sorry, go on.", At: now.Add(2 * time.Second), Stage: "Introduction"},
	}
	for i := range want {
		if g := got.Turns[i]; g.Speaker != want[i].Speaker || g.Text != want[i].Text || g.Interrupted != want[i].Interrupted || !g.At.Equal(want[i].At) || g.Stage != want[i].Stage {
			t.Errorf("turn %d = %+v, want %+v", i, g, want[i])
		}
	}
	if rec := ts.get("/api/interviews/0000000000000000/transcript"); rec.Code != http.StatusNotFound {
		t.Errorf("unknown interview: %d", rec.Code)
	}
	_, _ = ts.store.Update(t.Context(), id, func(r *interviews.Record) error {
		r.Finish(interviews.StatusCompleted, interviews.EndedCandidateRequest, now.Add(time.Minute))
		return nil
	})
	if rec := ts.get("/api/interviews/" + id + "/transcript"); rec.Code != http.StatusGone {
		t.Errorf("finished interview: %d", rec.Code)
	}
}

// TestRoomPagePlanAndBrand: the join page names the company, the expected
// length and every stage; the plan is a JSON block for the stepper; the
// candidate's pages carry the brand and no staff links.
func TestRoomPagePlanAndBrand(t *testing.T) {
	logo := filepath.Join(t.TempDir(), "logo.svg")
	if err := os.WriteFile(logo, []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(o *Options) { o.BrandName = "Example Corp"; o.BrandLogo = logo; o.TimeScale = 0.5 })
	id := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer"}).ID
	page := ts.get("/interview/" + id).Body.String()
	for _, want := range []string{
		"<title>Your interview for Engineer · Example Corp</title>",
		`<img class="brand-logo" src="/brand/logo"`, `<span class="brand-name">Example Corp</span>`,
		"Your interview with Example Corp takes about <strong id=\"expected-length\">5 minutes</strong>, in 4 parts:",
		"<li>Welcome</li><li>Introduction</li><li>Your experience</li><li>Closing</li>",
		`<script type="application/json" id="room-plan">{"stages":[{"name":"greeting","title":"Welcome","limit_ms":30000}`,
		`href="/static/favicon.svg"`, "A person at Example Corp reviews",
		`id="join" class="room-button room-button-primary room-button-large" disabled`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("room page lacks %q", want)
		}
	}
	logoResp := ts.get("/brand/logo")
	if logoResp.Code != http.StatusOK || logoResp.Header().Get("Content-Type") != "image/svg+xml" {
		t.Errorf("logo: %d %q", logoResp.Code, logoResp.Header().Get("Content-Type"))
	}

	// The candidate's other pages: the brand, and no staff links.
	for _, path := range []string{"/interview/0000000000000000", "/interview/" + id + "/feedback"} {
		body := ts.get(path, "Accept", "text/html").Body.String()
		if !strings.Contains(body, "· Example Corp</title>") || !strings.Contains(body, `class="site-header site-header-candidate"`) {
			t.Errorf("%s lacks the candidate's header and brand:\n%s", path, body)
		}
		for _, staff := range []string{`href="/review"`, "Register a candidate", "Sign out"} {
			if strings.Contains(body, staff) {
				t.Errorf("%s carries the staff link %q", path, staff)
			}
		}
	}
	// Staff pages keep the brand; before signing in they list no staff
	// pages (TestNavigationBeforeSignIn).
	if body := ts.get("/review/login").Body.String(); !strings.Contains(body, "Example Corp") || !strings.Contains(body, `class="site-header"`) {
		t.Errorf("the sign-in page lacks the brand or the staff header")
	}
}

// TestBrandLogoChecks: a logo is an existing image file or an https://
// URL, whose origin the Content Security Policy then allows.
func TestBrandLogoChecks(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "logo.txt")
	if err := os.WriteFile(text, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ logo, want string }{
		{filepath.Join(dir, "missing.png"), "set VIVA_BRAND_LOGO to an existing image file"},
		{text, "is not an image file"},
		{"http://example.com/logo.png", "is not an https:// URL"},
	} {
		if _, err := New(testOptions(t, func(o *Options) { o.BrandLogo = tt.logo })); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("logo %s: error %v, want %q", tt.logo, err, tt.want)
		}
	}
	ts := newTestServer(t, func(o *Options) { o.BrandLogo = "https://cdn.example.com/logo.png" })
	rec := ts.get("/healthz")
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: https://cdn.example.com;") {
		t.Errorf("CSP %q does not allow the logo's origin", csp)
	}
	if rec := ts.get("/brand/logo"); rec.Code != http.StatusNotFound {
		t.Errorf("/brand/logo with a remote logo: %d", rec.Code)
	}
}

// TestFavicon: the site icon answers where browsers look for it.
func TestFavicon(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/favicon.ico", "/static/favicon.svg"} {
		rec := ts.get(path)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/svg+xml" || !strings.Contains(rec.Body.String(), "<svg") {
			t.Errorf("%s: %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}

// testOptions are minimal valid Options, edited, for tests of New's checks.
func testOptions(t *testing.T, edit func(*Options)) Options {
	t.Helper()
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Store: store, LiveKitURL: testLiveKitURL, APIKey: testAPIKey, APISecret: testAPISecret, ReviewerToken: testReviewerToken}
	edit(&opts)
	return opts
}
