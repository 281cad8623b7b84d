package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

func TestReviewerAuthPages(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada", "role": "Engineer"}).ID
	for _, path := range []string{"/review", "/review/", "/review/" + id, "/review/" + id + ".json", "/review?status=completed&q=ada"} {
		t.Run(path, func(t *testing.T) {
			rec := ts.get(path)
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("status %d, want 303", rec.Code)
			}
			if want := loginPath + "?next=" + url.QueryEscape(path); rec.Header().Get("Location") != want {
				t.Errorf("Location %q, want %q", rec.Header().Get("Location"), want)
			}
			if strings.Contains(rec.Body.String(), "Ada") {
				t.Error("redirect leaks the record")
			}
		})
	}
}

func TestReviewerLogin(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.SecureCookies = true })
	login := ts.get("/review/login?next=/review/abc")
	if login.Code != 200 || !strings.Contains(login.Body.String(), `name="next" value="/review/abc"`) || !strings.Contains(login.Body.String(), `type="password"`) {
		t.Fatalf("login form: %d %s", login.Code, login.Body)
	}

	post := func(password, next string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/review/login", strings.NewReader(url.Values{"password": {password}, "next": {next}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://interviews.example.com")
		return ts.do(req)
	}
	for _, wrong := range []string{"", "nope", testReviewerToken + "x", strings.ToUpper(testReviewerToken)} {
		rec := post(wrong, "/review/abc")
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "do not match an account") ||
			!strings.Contains(rec.Body.String(), `value="/review/abc"`) || len(rec.Result().Cookies()) != 0 {
			t.Errorf("wrong password %q: %d cookies %v", wrong, rec.Code, rec.Result().Cookies())
		}
	}

	rec := post(testReviewerToken, "/review/abc?q=1")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/review/abc?q=1" {
		t.Fatalf("login: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if c.Name != sessionCookie || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge <= 0 {
		t.Errorf("session cookie %+v", c)
	}
	if strings.Contains(c.Value, testReviewerToken) || len(c.Value) < 40 {
		t.Errorf("cookie value %q is not a random session id", c.Value)
	}
	if logs := ts.logs.String(); strings.Contains(logs, testReviewerToken) || strings.Contains(logs, c.Value) {
		t.Errorf("logs carry the password or session:\n%s", logs)
	}

	page := func(c *http.Cookie) int {
		req := httptest.NewRequest(http.MethodGet, "/review", nil)
		if c != nil {
			req.AddCookie(c)
		}
		return ts.do(req).Code
	}
	if got := page(c); got != 200 {
		t.Errorf("with session: %d", got)
	}
	if got := page(&http.Cookie{Name: sessionCookie, Value: "forged"}); got != http.StatusSeeOther {
		t.Errorf("forged session: %d", got)
	}
	// Signed in, the login form moves on.
	req := httptest.NewRequest(http.MethodGet, "/review/login?next=/review", nil)
	req.AddCookie(c)
	if rec := ts.do(req); rec.Code != http.StatusSeeOther {
		t.Errorf("login form when signed in: %d", rec.Code)
	}

	// Sessions expire.
	ts.clock.Advance(accounts.SessionTTL)
	if got := page(c); got != http.StatusSeeOther {
		t.Errorf("expired session: %d", got)
	}

	// Logout ends the session.
	c = ts.login(t)
	req = httptest.NewRequest(http.MethodPost, "/review/logout", nil)
	req.AddCookie(c)
	rec = ts.do(req)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != loginPath {
		t.Errorf("logout: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if got := page(c); got != http.StatusSeeOther {
		t.Errorf("after logout: %d", got)
	}
}

func TestSafeNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/review"},
		{"/review", "/review"},
		{"/review/abc?download=1", "/review/abc?download=1"},
		{"/review?status=completed&page=2", "/review?status=completed&page=2"},
		{"https://evil.example/review", "/review"},
		{"//evil.example/review", "/review"},
		{`/\evil.example`, "/review"},
		{"/api/interviews", "/review"},
		{"/review/login", "/review"},
		{"/reviewer", "/review"},
		{"/", "/"},
		{"/?x=1", "/?x=1"},
		{"javascript:alert(1)", "/review"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.in); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReviewerAPIAuth(t *testing.T) {
	ts := newTestServer(t)
	id := registerJSON(t, ts, map[string]string{"name": "Ada", "role": "Engineer", "resume_text": "SECRET RÉSUMÉ", "job_description": "SECRET JD"}).ID
	cookie := ts.login(t)
	tests := []struct {
		name   string
		header string
		cookie *http.Cookie
		want   int
	}{
		{"none", "", nil, 401},
		{"wrong bearer", "Bearer not-the-token", nil, 401},
		{"basic scheme", "Basic " + testReviewerToken, nil, 401},
		{"bearer", "Bearer " + testReviewerToken, nil, 200},
		{"bearer lower-case scheme", "bearer " + testReviewerToken, nil, 200},
		{"session cookie", "", cookie, 200},
		{"wrong bearer beats cookie", "Bearer nope", cookie, 401},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/interviews", "/api/interviews/" + id} {
			t.Run(tt.name+" "+path, func(t *testing.T) {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				if tt.header != "" {
					req.Header.Set("Authorization", tt.header)
				}
				if tt.cookie != nil {
					req.AddCookie(tt.cookie)
				}
				rec := ts.do(req)
				if rec.Code != tt.want {
					t.Fatalf("status %d, want %d", rec.Code, tt.want)
				}
				if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
					t.Errorf("content type %q", rec.Header().Get("Content-Type"))
				}
				body := rec.Body.String()
				if tt.want == 401 {
					if !strings.Contains(body, "Authorization: Bearer") || rec.Header().Get("WWW-Authenticate") == "" {
						t.Errorf("401 body %q", body)
					}
					return
				}
				if strings.Contains(body, "SECRET") {
					t.Errorf("API leaks server-side text: %s", body)
				}
			})
		}
	}
	rec := ts.get("/api/interviews/"+id, "Authorization", "Bearer "+testReviewerToken)
	got := decodeJSON[interviews.Record](t, rec.Body)
	if got.ID != id || got.Candidate.Name != "Ada" || got.ResumeText != "" || got.ResumeSummary != "" || got.JobDescription != "" {
		t.Errorf("record %+v", got)
	}
	if rec := ts.get("/api/interviews/zzzzzzzz", "Authorization", "Bearer "+testReviewerToken); rec.Code != 404 {
		t.Errorf("unknown id: %d", rec.Code)
	}
}

// seedInterviews stores n interviews, one minute apart, cycling statuses
// and roles.
func seedInterviews(t *testing.T, ts *testServer, n int) {
	t.Helper()
	statuses := []interviews.Status{interviews.StatusCompleted, interviews.StatusScheduled, interviews.StatusCandidateLeft}
	roles := []string{"Backend engineer", "Designer"}
	base := ts.clock.Now()
	for i := range n {
		at := base.Add(time.Duration(i) * time.Minute)
		r := &interviews.Record{
			Candidate: interviews.Candidate{Name: fmt.Sprintf("Person %02d", i), Role: roles[i%2], Level: "mid"},
			Blueprint: "default", CreatedAt: at, Room: fmt.Sprintf("interview-person-%02d-abcdef", i),
		}
		if st := statuses[i%3]; st != interviews.StatusScheduled {
			r.Start(at)
			r.EnterStage("intro", "Introduction", at, false, "")
			r.Finish(st, "test", at.Add(12*time.Minute+30*time.Second))
		}
		if err := ts.store.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReviewList(t *testing.T) {
	ts := newTestServer(t)
	seedInterviews(t, ts, 60)
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	rows := func(body string) []string {
		var names []string
		for _, part := range strings.Split(body, `<td data-label="Candidate">`)[1:] {
			start := strings.Index(part, `">`) + 2
			names = append(names, part[start:strings.Index(part, "</a>")])
		}
		return names
	}
	tests := []struct {
		name      string
		query     string
		total     int
		first     string
		count     int
		next      string
		prev      string
		rowChecks []string
	}{
		{"all, newest first", "", 60, "Person 59", 25, "/review?page=2", "", []string{"12m 30s", "Completed", `<td data-label="Final stage">Introduction</td>`}},
		{"page 3", "?page=3", 60, "Person 09", 10, "", "/review?page=2", nil},
		{"status filter", "?status=completed", 20, "Person 57", 20, "", "", []string{"Completed"}},
		{"role filter", "?role=design", 30, "Person 59", 25, "/review?page=2&amp;role=design", "", []string{"Designer"}},
		{"role and status, page 2", "?role=backend&status=candidate_left&page=1", 10, "Person 56", 10, "", "", nil},
		{"filters kept across pages", "?status=completed&role=Backend+engineer&q=person&page=1", 10, "Person 54", 10, "", "", nil},
		{"name search", "?q=person+0", 10, "Person 09", 10, "", "", nil},
		{"unknown status ignored", "?status=bogus", 60, "Person 59", 25, "/review?page=2", "", nil},
		{"no match", "?q=nobody", 0, "", 0, "", "", []string{"No interview matches these filters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.get("/review"+tt.query, auth...)
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			body := rec.Body.String()
			names := rows(body)
			if len(names) != tt.count {
				t.Fatalf("%d rows, want %d", len(names), tt.count)
			}
			if tt.count > 0 {
				if names[0] != tt.first {
					t.Errorf("first row %q, want %q", names[0], tt.first)
				}
				if !strings.Contains(body, fmt.Sprintf("of %d interview", tt.total)) {
					t.Errorf("total %d not shown", tt.total)
				}
			}
			if (tt.next == "") != !strings.Contains(body, `rel="next"`) || tt.next != "" && !strings.Contains(body, `href="`+tt.next+`" rel="next"`) {
				t.Errorf("next link, want %q", tt.next)
			}
			if (tt.prev == "") != !strings.Contains(body, `rel="prev"`) || tt.prev != "" && !strings.Contains(body, `href="`+tt.prev+`" rel="prev"`) {
				t.Errorf("prev link, want %q", tt.prev)
			}
			for _, want := range tt.rowChecks {
				if !strings.Contains(body, want) {
					t.Errorf("list lacks %q", want)
				}
			}
		})
	}
	// The filter form shows the filters in use.
	body := ts.get("/review?status=scheduled&role=Designer&q=Person", auth...).Body.String()
	for _, want := range []string{`<option value="scheduled" selected>`, `id="role" name="role" type="text" value="Designer"`, `value="Person"`, `href="/review">Clear</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("filter form lacks %q", want)
		}
	}
	rec := ts.get("/review?role=Designer&status=scheduled&q=Person&page=1", auth...)
	if !strings.Contains(rec.Body.String(), "Showing 1–10 of 10") {
		t.Errorf("combined filters: %s", rec.Body)
	}
}

func TestReviewListPaginationKeepsFilters(t *testing.T) {
	ts := newTestServer(t)
	seedInterviews(t, ts, 160)
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	body := ts.get("/review?status=completed&role=Backend&q=Person&page=2", auth...).Body.String()
	// 160 interviews: 27 completed backend ones, so page 2 has prev only…
	for _, want := range []string{
		`href="/review?q=Person&amp;role=Backend&amp;status=completed" rel="prev"`,
		"Showing 26–27 of 27",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page 2 lacks %q", want)
		}
	}
	body = ts.get("/review?status=completed&role=Backend&q=Person", auth...).Body.String()
	if want := `href="/review?page=2&amp;q=Person&amp;role=Backend&amp;status=completed" rel="next"`; !strings.Contains(body, want) {
		t.Errorf("page 1 lacks %q", want)
	}
}

func TestReviewerListAPI(t *testing.T) {
	ts := newTestServer(t)
	seedInterviews(t, ts, 7)
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	tests := []struct {
		query        string
		code, total  int
		items        int
		firstName    string
		errorMessage string
	}{
		{"", 200, 7, 7, "Person 06", ""},
		{"?status=completed", 200, 3, 3, "Person 06", ""},
		{"?role=designer&limit=2", 200, 3, 2, "Person 05", ""},
		{"?offset=5", 200, 7, 2, "Person 01", ""},
		{"?q=person+03", 200, 1, 1, "Person 03", ""},
		{"?status=nope", 400, 0, 0, "", "status must be one of"},
		{"?limit=-1", 400, 0, 0, "", "limit must be a whole number"},
		{"?offset=x", 400, 0, 0, "", "offset must be a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rec := ts.get("/api/interviews"+tt.query, auth...)
			if rec.Code != tt.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.code != 200 {
				if got := decodeJSON[apiError](t, rec.Body); !strings.Contains(got.Error, tt.errorMessage) {
					t.Errorf("error %q", got.Error)
				}
				return
			}
			page := decodeJSON[interviews.ListPage](t, rec.Body)
			if page.Total != tt.total || len(page.Items) != tt.items || page.Items[0].Candidate.Name != tt.firstName {
				t.Errorf("page total %d items %d first %q", page.Total, len(page.Items), page.Items[0].Candidate.Name)
			}
		})
	}
}

// detailRecord is an interview with two stage visits (the second forced by
// the timer), turns with metrics, an interruption, questions and an
// assessment.
func detailRecord(t *testing.T, ts *testServer, status interviews.Status) *interviews.Record {
	t.Helper()
	t0 := ts.clock.Now()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	r := &interviews.Record{
		Room: "interview-ada-lovelace-abc123", Blueprint: "default",
		Candidate:      interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior", Email: "ada@example.com"},
		ResumeText:     "RESUME-SECRET",
		JobDescription: "JD-SECRET",
		CreatedAt:      t0,
		Engines:        &interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"},
	}
	r.Start(at(0))
	r.EnterStage("greeting", "Greeting", at(0), false, "")
	r.Questions = append(r.Questions, stages.Question{ID: "q1", Stage: "greeting", Text: "How are you today?", Context: stages.QuestionContext{Kind: "bank", Ref: "greet-1"}, AskedAt: at(1), SpokenAt: ptr(at(2))})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "greeting", Text: "Hello Ada, how are you today?", Source: "voice", StartedAt: at(1), EndedAt: at(4), Interrupted: true, QuestionIDs: []string{"q1"}})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "greeting", Text: "Very well, thank you.", StartedAt: at(4), EndedAt: at(6)})
	r.EnterStage("intro", "Introduction", at(65), true, "deadline")
	r.Questions = append(r.Questions, stages.Question{ID: "q2", Stage: "intro", Text: "Tell me about a system you built.", Context: stages.QuestionContext{Kind: "follow_up", Ref: "q1", Note: "answer lacked specifics"}, AskedAt: at(66)})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "Let's move on. Tell me about a system you built.", Source: "timer", StartedAt: at(66), EndedAt: at(70), QuestionIDs: []string{"q2"},
		Metrics: &interviews.TurnMetrics{EndOfUtteranceMs: 512.4, STTFinalMs: 181, LLMFirstTokenMs: 240.6, TTSFirstByteMs: 95, EndToEndMs: 1034}})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "intro", Text: "I built a difference engine.", Source: "text", StartedAt: at(71), EndedAt: at(80)})
	r.Assessments = append(r.Assessments, interviews.Assessment{QuestionID: "q2", Stage: "intro", DepthScore: 4, KeyPoints: []string{"mechanical computation", "punched cards"}, Guidance: "go deeper on trade-offs", At: at(81)})
	if status.Finished() {
		r.Finish(status, interviews.EndedClosingDelivered, at(120))
	}
	if err := ts.store.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

func TestReviewDetail(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	rec := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken)
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	greeting := strings.Index(body, `<h3 id="stage-0">Greeting</h3>`)
	intro := strings.Index(body, `<h3 id="stage-1">Introduction</h3>`)
	if greeting < 0 || intro < greeting {
		t.Fatalf("stages missing or out of order (greeting %d, intro %d)", greeting, intro)
	}
	inGreeting, inIntro := body[greeting:intro], body[intro:]
	for _, c := range []struct {
		section, name, want string
	}{
		{inGreeting, "entered/left", "entered 09:30:00, left 09:31:05"},
		{inGreeting, "agent turn", "Hello Ada, how are you today?"},
		{inGreeting, "speaker", `<span class="speaker">Interviewer</span>`},
		{inGreeting, "candidate speaker", `<span class="speaker">Ada Lovelace</span>`},
		{inGreeting, "interrupted badge", `<span class="badge badge-interrupted">interrupted</span>`},
		{inGreeting, "turn time", `<time datetime="2026-03-02T09:30:01Z">09:30:01</time> <span class="offset">&#43;0:01</span>`},
		{inGreeting, "question with context", `<span class="qref">q1</span> How are you today?`},
		{inGreeting, "question kind", `<span class="badge">From the question bank</span> ref greet-1`},
		{inIntro, "forced marker", "moved on by the timer"},
		{inIntro, "left time", "entered 09:31:05, left 09:32:00"},
		{inIntro, "end of utterance", "<dt>End of utterance</dt><dd>512 ms</dd>"},
		{inIntro, "stt", "<dt>STT final</dt><dd>181 ms</dd>"},
		{inIntro, "llm", "<dt>LLM first token</dt><dd>241 ms</dd>"},
		{inIntro, "tts", "<dt>TTS first byte</dt><dd>95 ms</dd>"},
		{inIntro, "e2e", "<dt>End to end</dt><dd>1034 ms</dd>"},
		{inIntro, "typed source", `<span class="badge">typed</span>`},
		{inIntro, "follow-up context", "ref q1 — answer lacked specifics"},
		{inIntro, "unspoken question", "not spoken"},
		{inIntro, "assessment", "Depth 4/5</span> <span class=\"qref\">q2</span> Tell me about a system you built."},
		{inIntro, "key points", "<li>mechanical computation</li><li>punched cards</li>"},
		{inIntro, "guidance", "Next: go deeper on trade-offs"},
		{body, "download", `href="/review/` + r.ID + `.json" download`},
		{body, "status", "Completed"},
		{body, "duration", "<dt>Duration</dt><dd>2m 00s</dd>"},
		{body, "interrupted count", "4 (1 interrupted)"},
		{body, "engines", "LLM scripted · STT sphinx · TTS flite"},
	} {
		if !strings.Contains(c.section, c.want) {
			t.Errorf("%s: lacks %q", c.name, c.want)
		}
	}
	if strings.Contains(inGreeting, "moved on by the timer") {
		t.Error("the greeting was not forced")
	}
	if strings.Contains(body, "RESUME-SECRET") || strings.Contains(body, "JD-SECRET") {
		t.Error("detail shows server-side text")
	}
	if strings.Contains(body, `http-equiv="refresh"`) || strings.Contains(body, "data-live-url") {
		t.Error("a finished interview refreshes")
	}
}

func TestReviewDetailRefreshesWhileInProgress(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusInProgress)
	body := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	if !strings.Contains(body, `data-live-url="/review/`+r.ID+`/live"`) || !strings.Contains(body, "Live — this page updates as the interview goes on") ||
		!strings.Contains(body, `<script src="/static/review.js" defer></script>`) {
		t.Error("in-progress interview does not update itself")
	}
	if !strings.Contains(body, "entered 09:31:05, current") {
		t.Error("current stage not marked")
	}
}

// TestReviewDetailShowsAbsences: the times the candidate left, and whether
// they came back; the page stays live while they still may.
func TestReviewDetailShowsAbsences(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusInProgress)
	t0 := ts.clock.Now()
	r.Leave(t0.Add(30*time.Second), t0.Add(90*time.Second))
	if err := r.Rejoin(t0.Add(42 * time.Second)); err != nil {
		t.Fatal(err)
	}
	r.Leave(t0.Add(100*time.Second), t0.Add(160*time.Second))
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	get := func() string {
		return ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	}
	body := get()
	for _, want := range []string{
		"<dt>Left the room</dt>",
		"<li>09:30:30 — back at 09:30:42</li>",
		"<li>09:31:40 — may rejoin until 09:32:40</li>",
		`data-live-url="/review/` + r.ID + `/live"`,
		"Waiting for the candidate to rejoin",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("while the candidate may rejoin, the page lacks %q", want)
		}
	}
	r.CloseRejoin()
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body = get()
	if !strings.Contains(body, "<li>09:31:40 — did not come back</li>") || strings.Contains(body, `data-live-url`) {
		t.Errorf("after the rejoin window closed the page shows:\n%s", body)
	}
}

// TestReviewDetailSaysTextsWereDropped: once the résumé and job
// description left the record, the page says when and why.
func TestReviewDetailSaysTextsWereDropped(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	r.ResumeText = "Ada's résumé"
	path := "/review/" + r.ID
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if body := ts.get(path, "Authorization", "Bearer "+testReviewerToken).Body.String(); strings.Contains(body, "texts-dropped") {
		t.Fatal("the page says the texts were removed while they are kept")
	}
	r.DropServerTexts(ts.clock.Now(), interviews.DropReasonReportReady)
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.get(path, "Authorization", "Bearer "+testReviewerToken).Body.String()
	if want := "Removed from the record 2026-03-02 09:30 UTC (report ready)"; !strings.Contains(body, want) {
		t.Errorf("the page lacks %q", want)
	}
}

func TestReviewDetailGroupsUnrecordedStages(t *testing.T) {
	ts := newTestServer(t)
	r := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default", CreatedAt: ts.clock.Now()}
	r.Start(ts.clock.Now())
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: "before any stage", StartedAt: ts.clock.Now()})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "mystery", Text: "in an unrecorded stage", StartedAt: ts.clock.Now()})
	if err := ts.store.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	for _, want := range []string{"Outside any stage", "before any stage", ">mystery</h3>", "in an unrecorded stage", "no recorded visit"} {
		if !strings.Contains(body, want) {
			t.Errorf("lacks %q", want)
		}
	}
}

func TestReviewDownload(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	for _, path := range []string{"/review/" + r.ID + ".json", "/review/" + r.ID + "?download=1"} {
		rec := ts.get(path, "Authorization", "Bearer "+testReviewerToken)
		if rec.Code != 200 {
			t.Fatalf("%s: %d", path, rec.Code)
		}
		if got := rec.Header().Get("Content-Disposition"); got != `attachment; filename="interview-`+r.ID+`.json"` {
			t.Errorf("Content-Disposition %q", got)
		}
		body := rec.Body.String()
		if strings.Contains(body, "SECRET") {
			t.Error("download carries server-side text")
		}
		got := decodeJSON[interviews.Record](t, strings.NewReader(body))
		if got.ID != r.ID || len(got.Turns) != 4 || len(got.Stages) != 2 || !got.Turns[0].Interrupted {
			t.Errorf("downloaded record %+v", got)
		}
	}
	if rec := ts.get("/review/nope.json", "Authorization", "Bearer "+testReviewerToken); rec.Code != 404 {
		t.Errorf("unknown download: %d", rec.Code)
	}
	if rec := ts.get("/review/nope", "Authorization", "Bearer "+testReviewerToken); rec.Code != 404 || !strings.Contains(rec.Body.String(), "There is no interview with this id") {
		t.Errorf("unknown detail: %d", rec.Code)
	}
}

// TestReviewDetailShowsIncidents: provider faults are listed in words after
// the report, with their details escaped and whether the interview got
// over them, and turns of the backup interviewer are marked as such.
func TestReviewDetailShowsIncidents(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	t0 := ts.clock.Now()
	r.AddIncident(incident.Incident{At: t0.Add(30 * time.Second), Provider: incident.LLM, Engine: "openai", Kind: incident.RateLimited, Detail: "HTTP 429 <retry after 2s>", Recovered: true})
	r.AddIncident(incident.Incident{At: t0.Add(40 * time.Second), Provider: incident.STT, Engine: "deepgram", Kind: incident.Disconnected, Detail: "connection reset"})
	r.AddIncident(incident.Incident{At: t0.Add(50 * time.Second), Provider: incident.TTS, Engine: "openai", Kind: incident.Fallback, Recovered: true})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "Could you say more about that?", StartedAt: t0.Add(82 * time.Second), EndedAt: t0.Add(85 * time.Second), Fallback: config.EngineScripted})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	incidents := strings.Index(body, `<h2 id="incidents">Incidents</h2>`)
	timeline := strings.Index(body, "<h2>Timeline</h2>")
	if incidents < 0 || timeline < incidents {
		t.Fatalf("incidents section missing or after the timeline (incidents %d, timeline %d)", incidents, timeline)
	}
	section := body[incidents:timeline]
	for _, want := range []string{
		`<time datetime="2026-03-02T09:30:30Z">09:30:30</time> <span class="offset">&#43;0:30</span>`,
		`<strong class="incident-what">Language model rate-limited</strong> <span class="engine">openai</span> <span class="badge badge-recovered">recovered</span>`,
		"HTTP 429 &lt;retry after 2s&gt;",
		`<li class="incident unrecovered">`,
		`Speech recognition disconnected</strong> <span class="engine">deepgram</span> <span class="badge badge-unrecovered">not recovered</span>`,
		"connection reset",
		"Backup voice used",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("incidents lack %q", want)
		}
	}
	for _, code := range []string{"rate_limited", "fallback", ">llm", ">stt", ">tts"} {
		if strings.Contains(section, code) {
			t.Errorf("incidents show the code %q", code)
		}
	}
	if !strings.Contains(body, `<dt>Provider incidents</dt><dd><a href="#incidents">3</a> (1 not recovered)</dd>`) {
		t.Error("facts lack the count of incidents")
	}
	const standIn = "said by the backup interviewer (model unavailable)"
	if n := strings.Count(body, standIn); n != 1 {
		t.Fatalf("%d turns marked as said by the backup interviewer, want 1", n)
	}
	if turn := body[strings.Index(body, standIn):]; !strings.Contains(turn[:strings.Index(turn, "</li>")], "Could you say more about that?") {
		t.Error("the marker is not on the backup interviewer's turn")
	}
}

// TestReviewDetailWithoutIncidents: an interview without faults has no
// incidents section and no turn marked as the backup interviewer's.
func TestReviewDetailWithoutIncidents(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	body := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	for _, unwanted := range []string{"Incidents", "incident", "backup", "stand-in"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("page shows %q", unwanted)
		}
	}
}

func TestIncidentLabel(t *testing.T) {
	for _, c := range []struct {
		inc  incident.Incident
		want string
	}{
		{incident.Incident{Provider: incident.LLM, Kind: incident.Timeout}, "Language model timed out"},
		{incident.Incident{Provider: incident.LLM, Kind: incident.Cut}, "Language model cut off mid-answer"},
		{incident.Incident{Provider: incident.LLM, Kind: incident.Fallback}, "Backup interviewer used"},
		{incident.Incident{Provider: incident.STT, Kind: incident.AudioLost}, "Speech recognition lost audio"},
		{incident.Incident{Provider: incident.TTS, Kind: incident.Unavailable}, "Voice unavailable"},
		{incident.Incident{Provider: "vision", Kind: "out_of_credit"}, "Provider vision out of credit"},
	} {
		if got := incidentLabel(c.inc); got != c.want {
			t.Errorf("%s/%s: %q, want %q", c.inc.Provider, c.inc.Kind, got, c.want)
		}
	}
	if got := standInLabel(""); got != "" {
		t.Errorf("a model's turn is labelled %q", got)
	}
	if got := standInLabel("openai"); got != "said by the backup model, openai (main model unavailable)" {
		t.Errorf("backup model label %q", got)
	}
}

// knowledgeRecord is detailRecord with everything the interview learned:
// an exit, the rubric, skills, gaps, answer analyses, the questions'
// contexts, phase scores, a backlog and a basic summary.
func knowledgeRecord(t *testing.T, ts *testServer) *interviews.Record {
	t.Helper()
	r := detailRecord(t, ts, interviews.StatusCompleted)
	at := func(s int) time.Time { return ts.clock.Now().Add(time.Duration(s) * time.Second) }
	r.Questions[0].Context = stages.QuestionContext{Kind: stages.KindTemplate, Ref: "architecture-1", Targets: stages.Targets{Category: "Architecture", Assesses: []string{"trade-offs"}}}
	r.Questions[1].Context = stages.QuestionContext{Kind: stages.KindGap, Ref: "g1", Targets: stages.Targets{Skill: "Python", Attribute: "duration"}}
	r.Questions = append(r.Questions,
		stages.Question{ID: "q3", Stage: "intro", Text: "How many years have you worked?", Context: stages.QuestionContext{Kind: stages.KindRubric, Targets: stages.Targets{Field: "years_experience"}}, AskedAt: at(82)},
		stages.Question{ID: "q4", Stage: "intro", Text: "What did that engine compute?", Context: stages.QuestionContext{Kind: stages.KindFollowUp, FollowsUp: "q2"}, AskedAt: at(83)},
		stages.Question{ID: "q5", Stage: "intro", Text: "Who is Charles?", Context: stages.QuestionContext{Kind: stages.KindDiscovered, Priority: stages.P0, Ref: "b1"}, AskedAt: at(84)},
	)
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "How many years have you worked? And what did it compute? Who is Charles?", StartedAt: at(82), EndedAt: at(85), QuestionIDs: []string{"q3", "q4", "q5"}})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "intro", Text: "Eight years; tables; Charles Babbage designed it.", StartedAt: at(86), EndedAt: at(90)})
	r.Answers = []interviews.Answer{
		{QuestionID: "q2", TurnSeq: 4, Confidence: interviews.ConfidenceMedium, ConfidenceScore: 0.6, Facts: []string{"Built a difference engine"}, By: interviews.ByRules, At: at(81)},
		{QuestionID: "q3", TurnSeq: 6, Confidence: interviews.ConfidenceHigh, ConfidenceScore: 0.9, Facts: []string{"Eight years of experience", "Worked with Charles Babbage"}, By: interviews.ByLLM, At: at(91)},
	}
	r.Rubric = []interviews.RubricItem{
		{ID: "years_experience", Label: "Years of experience", Required: true, Status: interviews.StatusCovered, Value: "8 years", Evidence: "Eight years", QuestionIDs: []string{"q3"}, By: interviews.ByRules},
		{ID: "impact", Label: "Impact in numbers", Required: true, Status: interviews.StatusUnknown, QuestionIDs: []string{"q3"}, Probes: 1},
		{ID: "why_role", Label: "Why this role", Status: interviews.StatusOpen},
	}
	r.Skills = []interviews.Skill{
		{Name: "Python", Sources: []string{"resume", "job_required"}, Duration: "3 years", Depth: "built a compiler", Evidence: []string{"I have used Python for 3 years"}, Confidence: 0.9, By: interviews.ByRules},
		{Name: "Rust", Sources: []string{"job_preferred"}},
	}
	r.Gaps = []interviews.Gap{
		{ID: "g1", Skill: "Python", Attribute: "duration", Priority: stages.P0, Status: interviews.StatusResolved, Probes: 1, QuestionIDs: []string{"q2"}},
		{ID: "g2", Skill: "Rust", Attribute: "production_vs_prototype", Priority: stages.P1, Status: interviews.StatusUnknown, Probes: 2},
	}
	r.Phases = []interviews.Phase{{ID: "data_design", Name: "Data design", Score: 6.5, Decision: interviews.PhaseAdvance, Feedback: "Covered the schema.", Gaps: []string{"indexes", "sharding"}, By: interviews.ByRules, At: at(100)}}
	r.Backlog = []interviews.BacklogItem{
		{ID: "b1", Text: "Who is Charles?", Priority: stages.P0, Origin: interviews.OriginDiscovered, Status: interviews.StatusAnswered, QuestionID: "q5"},
		{ID: "b2", Text: "How are releases shipped?", Priority: stages.P1, Origin: interviews.OriginBrief, Topic: "Operations", Status: interviews.StatusOpen},
	}
	r.Exit = &interviews.Exit{Reason: interviews.ExitRubricComplete, Coverage: 0.834, Turns: 3, At: at(110)}
	r.Summary = &interviews.TopicSummary{Basic: true, By: interviews.ByRules, Topics: []interviews.SummaryTopic{{Title: "Operations", Points: []string{"Releases go out on Fridays"}}}}
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// section returns the part of body from the heading with id to the end of
// its section.
func section(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no section %q", id)
	}
	rest := body[i:]
	if j := strings.Index(rest, "</section>"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// turnItem returns the timeline item of turn seq.
func turnItem(t *testing.T, body string, seq int) string {
	t.Helper()
	i := strings.Index(body, fmt.Sprintf(`<li id="turn-%d"`, seq))
	if i < 0 {
		t.Fatalf("no turn %d", seq)
	}
	rest := body[i:]
	return rest[:strings.Index(rest, "</li>\n")]
}

// TestReviewDetailShowsWhatTheInterviewLearned: beside the timeline the
// page tells, in words, how the interview ended, the rubric with quotes
// and the turns that asked, the skills matrix with unknown cells, the
// gaps, the phases, the backlog and the summary; each answer's
// confidence and facts sit on its turn, each question's purpose on the
// turn that asked it.
func TestReviewDetailShowsWhatTheInterviewLearned(t *testing.T) {
	ts := newTestServer(t)
	r := knowledgeRecord(t, ts)
	rec := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken)
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	for _, c := range []struct {
		section string
		want    []string
	}{
		{"exit-h", []string{"Ended early: every required topic was covered", "83 %", "of the required topics covered", "3 answers"}},
		{"rubric-h", []string{
			"Years of experience", "required", "covered", "8 years", "“Eight years”", `href="#turn-5" title="How many years have you worked?">q3</a>`, "extracted by rules",
			"Impact in numbers", "unknown", "Why this role", "open",
		}},
		{"skills-h", []string{
			"<th scope=\"col\">Duration</th><th scope=\"col\">Depth</th><th scope=\"col\">Scale</th><th scope=\"col\">Autonomy</th><th scope=\"col\">Production or prototype</th><th scope=\"col\">Constraints</th>",
			"Python", "résumé", "job required", "job preferred", ">3 years<", ">built a compiler<", "“I have used Python for 3 years”", "90 % confidence",
			`<td data-label="Scale" class="unknown">unknown</td>`,
		}},
		{"gaps-h", []string{"Python — Duration", "P0", "resolved", "Probed 1 time", `href="#turn-3"`, "Rust — Production or prototype", "unknown after 2 probes"}},
		{"phases-h", []string{"Data design", "6.5/10", "moved on", "Covered the schema.", "Still missing: indexes, sharding"}},
		{"backlog-h", []string{"Who is Charles?", "answered", "discovered in an answer", `href="#turn-5"`, "How are releases shipped?", "P1", "open", "from the brief", "Operations"}},
		{"summary-h", []string{"basic offline summary", "Operations", "Releases go out on Fridays"}},
	} {
		sec := section(t, body, c.section)
		for _, w := range c.want {
			if !strings.Contains(sec, w) {
				t.Errorf("%s lacks %q", c.section, w)
			}
		}
	}
	if n := strings.Count(section(t, body, "skills-h"), `class="unknown">unknown</td>`); n != 4+6 {
		t.Errorf("%d unknown cells in the skills matrix, want 10 (4 for Python, 6 for Rust)", n)
	}

	// Questions' purposes on the turns that asked them, answers' analyses
	// on the candidate's turns.
	for seq, want := range map[int][]string{
		1: {`<span class="qref">q1</span> <span class="qctx">From the role template — Architecture</span>`},
		3: {"Probing a gap: Python — duration"},
		4: {"medium confidence", "<li>Built a difference engine</li>", "extracted by rules"},
		5: {"Rubric: Years of experience", "Follow-up on q2", "Discovered (P0)"},
		6: {"high confidence", "<li>Eight years of experience</li><li>Worked with Charles Babbage</li>", "extracted by the model"},
	} {
		item := turnItem(t, body, seq)
		for _, w := range want {
			if !strings.Contains(item, w) {
				t.Errorf("turn %d lacks %q:\n%s", seq, w, item)
			}
		}
	}
	if strings.Contains(turnItem(t, body, 2), "confidence") {
		t.Error("a turn without analysis shows a confidence")
	}
	if !strings.Contains(body, "<dt>Ended</dt><dd>2026-03-02 09:32 UTC — The closing remarks were delivered</dd>") {
		t.Error("the ending is not told in words")
	}
	for _, code := range []string{"rubric_complete", "job_required", "production_vs_prototype", "years_experience", ">follow_up", ">template<", "closing_delivered"} {
		if strings.Contains(body, code) {
			t.Errorf("the page shows the code %q", code)
		}
	}
}

// TestReviewDetailWithoutKnowledge: a record written before interviews
// learned rubrics, skills and the rest shows its timeline as before and
// nothing of the rest.
func TestReviewDetailWithoutKnowledge(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	body := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	for _, unwanted := range []string{"What the interview learned", "How it ended", "Rubric coverage", "Skills", "Gaps", "Phase scores", "Backlog", "Summary", "confidence", "with-learned"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("page shows %q", unwanted)
		}
	}
	for _, want := range []string{"<h2>Timeline</h2>", "Hello Ada, how are you today?", "I built a difference engine."} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestExitAndQuestionLabels(t *testing.T) {
	for _, a := range stages.SkillAttributes {
		if _, ok := attributeLabels[a]; !ok {
			t.Errorf("skill attribute %q has no label", a)
		}
	}
	for _, c := range []struct {
		exit interviews.Exit
		want string
	}{
		{interviews.Exit{Reason: interviews.ExitMaxTurns, Turns: 30}, "Reached 30 answers"},
		{interviews.Exit{Reason: interviews.ExitAssessment}, "The interviewer judged nothing important was missing"},
		{interviews.Exit{Reason: interviews.ExitRoundCap, Turns: 10}, "Reached the limit of 10 rounds"},
		{interviews.Exit{Reason: string(interviews.EndedDeadline)}, "The time ran out"},
		{interviews.Exit{Reason: string(interviews.EndedCandidateRequest)}, "The candidate ended the interview"},
		{interviews.Exit{Reason: string(interviews.EndedByProviderError("llm"))}, "The language model failed"},
		{interviews.Exit{Reason: "battery_flat"}, "Battery flat"},
	} {
		if got := exitReasonLabel(&c.exit); got != c.want {
			t.Errorf("exit %q: %q, want %q", c.exit.Reason, got, c.want)
		}
	}
	rec := &interviews.Record{
		Stages:  []interviews.StageVisit{{Name: "data_design", Title: "Data design"}},
		Backlog: []interviews.BacklogItem{{ID: "b2", Topic: "Deployments"}},
	}
	for _, c := range []struct {
		ctx  stages.QuestionContext
		want string
	}{
		{stages.QuestionContext{}, ""},
		{stages.QuestionContext{Kind: stages.KindBrief, Ref: "b2", Priority: stages.P1}, "From the brief — Deployments (P1)"},
		{stages.QuestionContext{Kind: stages.KindPhase, Targets: stages.Targets{Phase: "data_design"}}, "Working on what the phase lacks: Data design"},
		{stages.QuestionContext{Kind: stages.KindFree}, "The interviewer's own question"},
		{stages.QuestionContext{Kind: stages.KindRubric, Targets: stages.Targets{Field: "current_role"}}, "Rubric: Current role"},
	} {
		if got := questionContextLabel(rec, stages.Question{Context: c.ctx}); got != c.want {
			t.Errorf("context %+v: %q, want %q", c.ctx, got, c.want)
		}
	}
}

// TestReviewListStandings: the status filter is the standing every row
// shows: "Scheduled" lists the links still waiting for their candidate,
// not those withdrawn or lapsed, which have filters of their own; the CSV
// follows the same filter.
func TestReviewListStandings(t *testing.T) {
	ts := newTestServer(t)
	now := ts.clock.Now()
	past, later := now.Add(-time.Hour), now.Add(24*time.Hour)
	for _, r := range []*interviews.Record{
		{Candidate: interviews.Candidate{Name: "Waiting Wu", Role: "Designer"}, ExpiresAt: &later},
		{Candidate: interviews.Candidate{Name: "Withdrawn Wade", Role: "Designer"}, ExpiresAt: &later, RevokedAt: &past},
		{Candidate: interviews.Candidate{Name: "Lapsed Lee", Role: "Designer"}, ExpiresAt: &past},
	} {
		r.Blueprint, r.CreatedAt = "default", past.Add(-time.Hour)
		if err := ts.store.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	names := []string{"Waiting Wu", "Withdrawn Wade", "Lapsed Lee"}
	for _, tt := range []struct {
		filter string
		want   string
	}{{"scheduled", "Waiting Wu"}, {"withdrawn", "Withdrawn Wade"}, {"expired", "Lapsed Lee"}} {
		for _, path := range []string{"/review?status=", "/review.csv?status="} {
			body := ts.get(path+tt.filter, auth...).Body.String()
			for _, name := range names {
				if got := strings.Contains(body, name); got != (name == tt.want) {
					t.Errorf("%s%s lists %s: %v, want %v", path, tt.filter, name, got, name == tt.want)
				}
			}
		}
	}
	body := ts.get("/review", auth...).Body.String()
	for _, want := range []string{`<option value="withdrawn">Withdrawn</option>`, `<option value="expired">Link expired</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the filter lacks %s", want)
		}
	}
}
