package web

import (
	"bytes"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// registerJSON registers a candidate through the JSON API.
func registerJSON(t *testing.T, ts *testServer, body map[string]string) createdResponse {
	t.Helper()
	rec := ts.postJSON("/api/interviews", body)
	if rec.Code != http.StatusCreated {
		t.Fatalf("register: status %d: %s", rec.Code, rec.Body)
	}
	return decodeJSON[createdResponse](t, rec.Body)
}

func TestCreateJSON(t *testing.T) {
	ts := newTestServer(t)
	resp := registerJSON(t, ts, map[string]string{
		"name": "  Ada   Lovelace ", "email": "ada@example.com", "role": "Backend engineer", "level": "Senior",
		"blueprint": "system-design", "job_description": "Build engines.\r\nAnalytical ones.", "resume_text": "Ada Lovelace\n\n\n\nMathematician   \n",
	})
	if !interviews.ValidID(resp.ID) || resp.Token == "" || resp.LiveKitURL != testLiveKitURL {
		t.Fatalf("response %+v", resp)
	}
	if want := "https://interviews.example.com/interview/" + resp.ID; resp.JoinURL != want {
		t.Errorf("join_url %q, want %q", resp.JoinURL, want)
	}
	if !strings.HasPrefix(resp.Room, "interview-ada-lovelace-") || len(resp.Room) != len("interview-ada-lovelace-")+roomSuffixLen {
		t.Errorf("room %q", resp.Room)
	}
	rec, err := ts.store.Get(t.Context(), resp.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := interviews.Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"}
	if rec.Candidate != want || rec.Status != interviews.StatusScheduled || rec.Room != resp.Room || rec.Blueprint != "system-design" {
		t.Errorf("record %+v", rec)
	}
	if rec.JobDescription != "Build engines.\nAnalytical ones." {
		t.Errorf("job description %q", rec.JobDescription)
	}
	if rec.ResumeText != "Ada Lovelace\n\nMathematician" || rec.ResumeSummary != "Ada Lovelace Mathematician" {
		t.Errorf("résumé %q summary %q", rec.ResumeText, rec.ResumeSummary)
	}
	if !rec.CreatedAt.Equal(ts.clock.Now()) {
		t.Errorf("created_at %s, want the server clock %s", rec.CreatedAt, ts.clock.Now())
	}
	if logs := ts.logs.String(); strings.Contains(logs, "Analytical") || strings.Contains(logs, "Mathematician") || strings.Contains(logs, resp.Token) {
		t.Errorf("logs leak the job description, résumé or token:\n%s", logs)
	}
}

func TestCreateJSONFieldErrors(t *testing.T) {
	ts := newTestServer(t)
	valid := func() map[string]any {
		return map[string]any{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Engineer", "level": "mid"}
	}
	tests := []struct {
		name  string
		edit  func(map[string]any)
		field string
		msg   string
	}{
		{"missing name", func(m map[string]any) { delete(m, "name") }, "name", "Enter the candidate's name"},
		{"blank name", func(m map[string]any) { m["name"] = " \t\n" }, "name", "Enter the candidate's name"},
		{"long name", func(m map[string]any) { m["name"] = strings.Repeat("a", 201) }, "name", "200 characters or fewer"},
		{"bad email", func(m map[string]any) { m["email"] = "ada-at-example" }, "email", "That doesn't look like an email address"},
		{"email with name", func(m map[string]any) { m["email"] = "Ada <ada@example.com>" }, "email", "That doesn't look like an email address"},
		{"email without dot", func(m map[string]any) { m["email"] = "ada@localhost" }, "email", "That doesn't look like an email address"},
		{"missing role", func(m map[string]any) { m["role"] = "" }, "role", "Enter the role"},
		{"bad level", func(m map[string]any) { m["level"] = "guru" }, "level", "Choose a level: entry, junior, mid, senior, lead, staff"},
		{"unknown blueprint", func(m map[string]any) { m["blueprint"] = "../../etc/passwd" }, "blueprint", "Choose one of the interview plans offered"},
		{"long job description", func(m map[string]any) { m["job_description"] = strings.Repeat("é", 20_001) }, "job_description", "has 20,001 characters; shorten it to 20,000"},
		{"long résumé text", func(m map[string]any) { m["resume_text"] = strings.Repeat("a", interviews.MaxResumeTextLen+1) }, "resume_text", "larger than 100 KB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := valid()
			tt.edit(body)
			rec := ts.postJSON("/api/interviews", body)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422: %s", rec.Code, rec.Body)
			}
			got := decodeJSON[apiError](t, rec.Body)
			if len(got.Fields) != 1 || !strings.Contains(got.Fields[tt.field], tt.msg) {
				t.Errorf("fields %v, want only %s: %q", got.Fields, tt.field, tt.msg)
			}
		})
	}
	// A job description at the limit, with CRLF line ends, is accepted.
	body := valid()
	body["job_description"] = strings.Repeat("line\r\n", 20_000/5)
	if rec := ts.postJSON("/api/interviews", body); rec.Code != http.StatusCreated {
		t.Errorf("20,000-character job description with CRLF: status %d: %s", rec.Code, rec.Body)
	}
	page, err := ts.store.List(t.Context(), interviews.ListOptions{})
	if err != nil || page.Total != 1 {
		t.Errorf("records stored: %d (%v), want only the valid one", page.Total, err)
	}
}

func TestCreateRequestErrors(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name        string
		contentType string
		body        []byte
		want        int
		msg         string
	}{
		{"unknown field", "application/json", []byte(`{"name":"Ada","role":"x","resume":"x"}`), 400, `unknown field "resume"`},
		{"wrong type", "application/json", []byte(`{"name":5,"role":"x"}`), 400, `Field "name" must be a string`},
		{"malformed", "application/json", []byte(`{"name":`), 400, "could not be read"},
		{"empty", "application/json", nil, 400, "body is empty"},
		{"two objects", "application/json", []byte(`{"name":"a","role":"b"} {}`), 400, "single object"},
		{"plain text", "text/plain", []byte("name=Ada"), 415, "Send the registration as JSON"},
		{"no content type", "", []byte("name=Ada"), 415, "Send the registration as JSON"},
		{"json too large", "application/json", append([]byte(`{"name":"`), bytes.Repeat([]byte("a"), maxRegistrationBody)...), 413, "too large"},
		{"multipart without boundary", "multipart/form-data", []byte("x"), 400, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/api/interviews", bytes.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			ts.authorize(req, testRecruiter)
			rec := ts.do(req)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			if got := decodeJSON[apiError](t, rec.Body); !strings.Contains(got.Error, tt.msg) {
				t.Errorf("error %q, want %q", got.Error, tt.msg)
			}
		})
	}
}

func TestCreateURLEncoded(t *testing.T) {
	ts := newTestServer(t)
	form := url.Values{"name": {"Grace Hopper"}, "role": {"Compiler engineer"}, "level": {"staff"}}
	// An API client posting a form gets JSON…
	req := httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	ts.authorize(req, testRecruiter)
	rec := ts.do(req)
	if rec.Code != http.StatusCreated || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	// …and the registration page's form, marked ui=html, gets the result page.
	form.Set("ui", "html")
	req = httptest.NewRequest(http.MethodPost, "/api/interviews", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(ts.signIn(t, testRecruiter))
	rec = ts.resultPage(t, ts.do(req))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Interview ready for Grace Hopper") {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

func TestCreateFormResultPage(t *testing.T) {
	ts := newTestServer(t)
	rec := ts.resultPage(t, ts.postForm(t, validForm("job_description", "Owns the billing service.")))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	page, err := ts.store.List(t.Context(), interviews.ListOptions{})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("list: %v %+v", err, page)
	}
	it := page.Items[0]
	join := "https://interviews.example.com/interview/" + it.ID
	for _, want := range []string{
		"Interview ready for Ada Lovelace",
		`value="` + join + `"`, `data-copy="join-url"`,
		"What happens next",
		`its score show in the <a href="/invitations">list of invitations</a>`, // a recruiter cannot open the interview page
		`href="mailto:ada@example.com?subject=Your%20interview%20for%20the%20Backend%20engineer%20role&amp;body=Hello%20Ada%20Lovelace`,
		"<dt>Job description</dt><dd>Kept on the server</dd>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("result page lacks %q", want)
		}
	}
	if strings.Contains(body, "eyJ") {
		t.Error("result page shows a token; the room page fetches its own")
	}
	if strings.Contains(body, "<script>") || strings.Count(body, "<script") != strings.Count(body, `<script src="/static/`) {
		t.Error("result page has an inline script")
	}
	if strings.Contains(body, `href="`+join+`"`) || strings.Contains(body, "Open the room") {
		t.Error("the result page lets the recruiter open the candidate's room")
	}
}

func TestCreateFormErrorsKeepValues(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name   string
		fields []string
		files  []formFile
		field  string // the field whose message must show
		msg    string
	}{
		{"no name", validForm("name", ""), nil, "name", "Enter the candidate&#39;s name"},
		{"bad email", validForm("email", "not-an-email"), nil, "email", "That doesn&#39;t look like an email address"},
		{"no role", validForm("role", " "), nil, "role", "Enter the role the candidate is applying for"},
		{"bad level", validForm("level", "wizard"), nil, "level", "Choose a level"},
		{"bad blueprint", validForm("blueprint", "nope"), nil, "blueprint", "Choose one of the interview plans offered"},
		{"long job description", validForm("job_description", strings.Repeat("x", 20_001)), nil, "jd", "shorten it to 20,000 or fewer"},
		{"png résumé", validForm(), []formFile{{"resume", "cv.pdf", pngBytes()}}, "resume", "Résumé must be a PDF, DOCX, TXT or Markdown file of at most 5 MB"},
		{"exe résumé", validForm(), []formFile{{"resume", "cv.exe", []byte("MZ\x90\x00\x03\x00\x00\x00")}}, "resume", "Résumé must be a PDF, DOCX, TXT or Markdown file of at most 5 MB"},
		{"oversized résumé", validForm(), []formFile{{"resume", "cv.txt", bytes.Repeat([]byte("a"), MaxResumeFileSize+1)}}, "resume", "larger than 5 MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.postForm(t, tt.fields, tt.files...)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", rec.Code)
			}
			body := rec.Body.String()
			errID := tt.field + "-error"
			if !strings.Contains(body, `<p class="field-error" id="`+errID+`">`) || !strings.Contains(body, tt.msg) {
				t.Errorf("no inline message %q at %s", tt.msg, errID)
			}
			if strings.Count(body, `class="field-error"`) != 1 {
				t.Errorf("%d field messages, want 1", strings.Count(body, `class="field-error"`))
			}
			if !strings.Contains(body, `role="alert"`) {
				t.Error("no error summary")
			}
			// Every typed value is kept (the last of repeated fields counts).
			typed := map[string]string{}
			for i := 0; i+1 < len(tt.fields); i += 2 {
				typed[tt.fields[i]] = tt.fields[i+1]
			}
			for name, v := range typed {
				if name == "ui" || strings.TrimSpace(v) == "" {
					continue
				}
				switch name {
				case "level", "blueprint":
					if tt.field != name && !strings.Contains(body, `value="`+v+`" selected`) {
						t.Errorf("%s %q not selected", name, v)
					}
				case "job_description":
					if !strings.Contains(body, ">"+v+"</textarea>") {
						t.Errorf("job description not kept")
					}
				default:
					if !strings.Contains(body, `value="`+html.EscapeString(v)+`"`) {
						t.Errorf("%s %q not kept", name, v)
					}
				}
			}
		})
	}
	if page, _ := ts.store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Errorf("%d records stored from invalid forms", page.Total)
	}
}

func TestCreateFormKeepsExtractedResume(t *testing.T) {
	ts := newTestServer(t)
	rec := ts.postForm(t, validForm("email", "nope"), formFile{"resume", "cv.md", []byte("# Ada Lovelace\n\nWrote the first program.\n")})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, "# Ada Lovelace\n\nWrote the first program.</textarea>") || !strings.Contains(body, "The text of cv.md is kept below") {
		t.Errorf("extracted résumé text not kept in the form:\n%s", body)
	}
	// Submitting again without the file keeps the résumé.
	rec = ts.resultPage(t, ts.postForm(t, validForm("resume_text", "# Ada Lovelace\n\nWrote the first program.")))
	if rec.Code != http.StatusOK {
		t.Fatalf("resubmit: status %d", rec.Code)
	}
	page, _ := ts.store.List(t.Context(), interviews.ListOptions{})
	r, err := ts.store.Get(t.Context(), page.Items[0].ID)
	if err != nil || r.ResumeText != "# Ada Lovelace\n\nWrote the first program." {
		t.Errorf("résumé %q, %v", r.ResumeText, err)
	}
}

func TestCreateMultipartLimits(t *testing.T) {
	ts := newTestServer(t)
	// A body over the multipart cap is refused whole with 413.
	ct, body := multipartBody(t, validForm(), formFile{"resume", "cv.txt", bytes.Repeat([]byte("a"), maxMultipartBody)})
	req := httptest.NewRequest(http.MethodPost, "/api/interviews", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	ts.authorize(req, testRecruiter)
	rec := ts.do(req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(decodeJSON[apiError](t, rec.Body).Error, "at most 5 MB") {
		t.Errorf("JSON client: status %d", rec.Code)
	}
	req = httptest.NewRequest(http.MethodPost, "/api/interviews", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Accept", "text/html")
	ts.authorize(req, testRecruiter)
	rec = ts.do(req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "The request is too large") || !strings.Contains(rec.Body.String(), "<form") {
		t.Errorf("browser: status %d: %s", rec.Code, rec.Body)
	}
	// Too many parts.
	var many []string
	for range maxMultipartParts + 1 {
		many = append(many, "x", "y")
	}
	ct, body = multipartBody(t, many)
	req = httptest.NewRequest(http.MethodPost, "/api/interviews", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	ts.authorize(req, testRecruiter)
	if rec := ts.do(req); rec.Code != http.StatusBadRequest {
		t.Errorf("too many parts: status %d", rec.Code)
	}
}

func TestTokenEndpointForPythonFrontends(t *testing.T) {
	ts := newTestServer(t)
	rec := ts.postJSON("/api/token", `{"name":"Ada Lovelace","email":"ada@example.com","role":"Engineer","level":"junior","extra":"ignored"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	got := decodeJSON[tokenResponse](t, rec.Body)
	if got.Token == "" || got.URL != testLiveKitURL || got.Candidate != "Ada Lovelace" || !strings.HasPrefix(got.Room, "interview-ada-lovelace-") {
		t.Errorf("response %+v", got)
	}
	r, err := ts.store.Get(t.Context(), got.ID)
	if err != nil || r.Room != got.Room || r.Candidate.Level != "junior" || r.Blueprint != "default" {
		t.Errorf("record %+v, %v", r, err)
	}
	_, grants := verifyToken(t, got.Token)
	if grants.Video.Room != got.Room || grants.Identity != got.Identity {
		t.Errorf("token room %q identity %q", grants.Video.Room, grants.Identity)
	}

	tests := []struct {
		name, ct, body string
		want           int
	}{
		{"no name", "application/json", `{"role":"x"}`, 422},
		{"form body", "application/x-www-form-urlencoded", "name=Ada", 415},
		{"too large", "application/json", `{"name":"` + strings.Repeat("a", maxSmallBody) + `"}`, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/api/token", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ct)
			ts.authorize(req, testRecruiter)
			if rec := ts.do(req); rec.Code != tt.want {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
		})
	}
}

func TestScriptNameEscapedEverywhere(t *testing.T) {
	ts := newTestServer(t)
	const evil = `<script>alert(1)</script>`
	const escaped = `&lt;script&gt;alert(1)&lt;/script&gt;`
	pages := map[string]string{}

	rec := ts.postForm(t, validForm("name", evil, "email", "bad"))
	pages["form with error"] = rec.Body.String()
	rec = ts.resultPage(t, ts.postForm(t, validForm("name", evil, "role", evil)))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	pages["result page"] = rec.Body.String()
	list, _ := ts.store.List(t.Context(), interviews.ListOptions{})
	id := list.Items[0].ID
	r, _ := ts.store.Get(t.Context(), id)
	r.Start(ts.clock.Now())
	r.EnterStage("greeting", evil, ts.clock.Now(), false, evil)
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "greeting", Text: evil, StartedAt: ts.clock.Now(), EndedAt: ts.clock.Now()})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	pages["review list"] = ts.get("/review", auth...).Body.String()
	pages["review detail"] = ts.get("/review/"+id, auth...).Body.String()
	pages["room page"] = ts.get("/interview/" + id).Body.String()
	for name, body := range pages {
		if strings.Contains(body, evil) || strings.Contains(body, "<script>alert") {
			t.Errorf("%s renders the name as markup", name)
		}
		if !strings.Contains(body, escaped) {
			t.Errorf("%s does not show the escaped name", name)
		}
	}
}

// captureServer is a test server offering a role template and, beside the
// built-in plans, a knowledge-capture plan.
func captureServer(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t, func(o *Options) {
		o.Templates = []TemplateChoice{{Name: "fullstack-senior", Title: "Senior full-stack engineer"}, {Name: "data-engineer"}}
	})
	// The knowledge-capture plan is a design installed in the library.
	src, err := stages.BuiltinSource(stages.KnowledgeCaptureName)
	if err != nil {
		t.Fatal(err)
	}
	capture := interviews.Design{Kind: interviews.KindBlueprint, Name: "capture",
		Content: strings.Replace(string(src), "name: "+stages.KnowledgeCaptureName, "name: capture", 1)}
	if err := ts.store.AddDesign(t.Context(), &capture); err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestFormOffersTemplatesAndBrief: the form offers the role templates and,
// when a knowledge-capture plan is offered, the brief; without them it
// shows neither.
func TestFormOffersTemplatesAndBrief(t *testing.T) {
	ts := captureServer(t)
	body := ts.get("/", "Cookie", sessionCookie+"="+ts.signIn(t, testRecruiter).Value).Body.String()
	for _, want := range []string{
		`<label for="template">Role template</label>`,
		`<option value="" selected>None</option>`,
		`<option value="fullstack-senior">Senior full-stack engineer</option>`,
		`<option value="data-engineer">data-engineer</option>`,
		`<option value="capture" data-capture>Knowledge capture</option>`,
		`<textarea id="brief" name="brief"`,
		`up to 20,000 characters`,
		`<input id="brief_file" name="brief_file" type="file"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("form lacks %q", want)
		}
	}
	plain := newTestServer(t, func(o *Options) { o.Blueprints = []string{"default", "system-design"} })
	body = plain.get("/", "Cookie", sessionCookie+"="+plain.signIn(t, testRecruiter).Value).Body.String()
	for _, unwanted := range []string{`name="template"`, `name="brief"`, `name="brief_file"`, "data-capture"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("a server with no templates or knowledge capture offers %q", unwanted)
		}
	}
}

// TestCreateWithTemplateAndBrief: the record keeps the chosen template and
// the brief, typed (JSON) or uploaded; the brief stays on the server.
func TestCreateWithTemplateAndBrief(t *testing.T) {
	ts := captureServer(t)
	resp := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer", "template": " fullstack-senior "})
	rec, err := ts.store.Get(t.Context(), resp.ID)
	if err != nil || rec.Template != "fullstack-senior" || rec.Blueprint != "default" || rec.Brief != "" {
		t.Fatalf("record %+v, %v", rec, err)
	}

	resp = registerJSON(t, ts, map[string]string{"name": "Grace Hopper", "role": "Departing lead", "blueprint": "capture", "brief": "# Deployments\r\n- How do releases ship?\r\n"})
	if rec, err = ts.store.Get(t.Context(), resp.ID); err != nil || rec.Brief != "# Deployments\n- How do releases ship?" {
		t.Fatalf("typed brief %q, %v", rec.Brief, err)
	}
	api := ts.get("/api/interviews/"+resp.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	if strings.Contains(api, "Deployments") {
		t.Error("the API sends the brief")
	}

	// A plan that asks no template's questions refuses one, saying so.
	refused := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Engineer", "blueprint": "system-design", "template": "fullstack-senior"})
	if refused.Code != http.StatusUnprocessableEntity && refused.Code != http.StatusBadRequest || !strings.Contains(refused.Body.String(), "asks no role template") {
		t.Errorf("a template with the system design plan: %d %s", refused.Code, refused.Body)
	}

	form := ts.resultPage(t, ts.postForm(t, validForm("blueprint", "capture"), formFile{"brief_file", "handover.md", []byte("\uFEFF# Billing\n- Who owns the invoices?\n")}))
	if form.Code != http.StatusOK {
		t.Fatalf("uploaded brief: status %d: %s", form.Code, form.Body)
	}
	if body := form.Body.String(); !strings.Contains(body, "<dt>Brief</dt><dd>Kept on the server</dd>") || strings.Contains(body, "invoices") {
		t.Errorf("result page does not say the brief is kept, or shows it:\n%s", body)
	}
	form = ts.resultPage(t, ts.postForm(t, validForm("template", "fullstack-senior")))
	if form.Code != http.StatusOK || !strings.Contains(form.Body.String(), "<dt>Role template</dt><dd>Senior full-stack engineer</dd>") {
		t.Errorf("result page lacks the role template: %d", form.Code)
	}
	page, _ := ts.store.List(t.Context(), interviews.ListOptions{Query: "Ada"})
	var uploaded *interviews.Record
	for _, it := range page.Items {
		if r, _ := ts.store.Get(t.Context(), it.ID); r != nil && r.Blueprint == "capture" {
			uploaded = r
		}
	}
	if uploaded == nil || uploaded.Brief != "# Billing\n- Who owns the invoices?" {
		t.Fatalf("uploaded brief: %+v", uploaded)
	}
	if logs := ts.logs.String(); strings.Contains(logs, "invoices") || strings.Contains(logs, "releases ship") {
		t.Errorf("logs carry a brief:\n%s", logs)
	}
}

// TestCreateTemplateAndBriefErrors: what is wrong with the template or
// the brief is said beside the field, and nothing is stored.
func TestCreateTemplateAndBriefErrors(t *testing.T) {
	ts := captureServer(t)
	capture := func(extra ...string) []string {
		return validForm(append([]string{"blueprint", "capture"}, extra...)...)
	}
	tests := []struct {
		name   string
		fields []string
		files  []formFile
		errID  string
		msg    string
	}{
		{"unknown template", validForm("template", "astronaut"), nil, "template-error", "Choose one of the role templates offered: fullstack-senior, data-engineer"},
		{"capture without brief", capture(), nil, "brief-error", "A knowledge-capture interview needs a brief"},
		{"blank brief", capture("brief", " \n\t"), nil, "brief-error", "A knowledge-capture interview needs a brief"},
		{"brief for an interview", validForm("brief", "# Topics"), nil, "brief-error", "Only a knowledge-capture plan uses a brief"},
		{"long brief", capture("brief", strings.Repeat("é", interviews.MaxBriefLen+1)), nil, "brief-error", "The brief has 20,001 characters; shorten it to 20,000 or fewer"},
		{"pdf brief", capture(), []formFile{{"brief_file", "brief.pdf", []byte("%PDF-1.4")}}, "brief-file-error", "The brief must be a Markdown (.md) or plain text (.txt) file"},
		{"binary brief", capture(), []formFile{{"brief_file", "brief.txt", []byte("\x00\xff\xfe")}}, "brief-file-error", "The brief file is not text"},
		{"large brief file", capture(), []formFile{{"brief_file", "brief.md", bytes.Repeat([]byte("a"), maxBriefFileSize+1)}}, "brief-file-error", "The brief file is larger than 97 KB"},
		{"file and text", capture("brief", "# Typed"), []formFile{{"brief_file", "brief.md", []byte("# Uploaded")}}, "brief-file-error", "either as a file or as text, not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.postForm(t, tt.fields, tt.files...)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", rec.Code)
			}
			body := rec.Body.String()
			if !strings.Contains(body, `<p class="field-error" id="`+tt.errID+`">`) || !strings.Contains(body, html.EscapeString(tt.msg)) {
				t.Errorf("no inline message %q at %s", tt.msg, tt.errID)
			}
			if n := strings.Count(body, `class="field-error"`); n != 1 {
				t.Errorf("%d field messages, want 1", n)
			}
			if !strings.Contains(body, `class="field brief-field has-error"`) && tt.errID != "template-error" {
				t.Error("the brief field is not marked, so it could stay hidden")
			}
		})
	}
	// The JSON API says the same.
	rec := ts.postJSON("/api/interviews", map[string]string{"name": "Ada", "role": "Engineer", "blueprint": "capture"})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(decodeJSON[apiError](t, rec.Body).Fields["brief"], "needs a brief") {
		t.Errorf("JSON without a brief: %d", rec.Code)
	}
	if page, _ := ts.store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Errorf("%d records stored from invalid registrations", page.Total)
	}
}

// TestCreateFormKeepsUploadedBrief: when another field is wrong, the
// uploaded brief's text is kept in the form.
func TestCreateFormKeepsUploadedBrief(t *testing.T) {
	ts := captureServer(t)
	rec := ts.postForm(t, validForm("blueprint", "capture", "email", "nope", "template", "data-engineer"), formFile{"brief_file", "handover.txt", []byte("Billing: who owns the invoices?")})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{
		">Billing: who owns the invoices?</textarea>",
		"The brief from handover.txt is kept below",
		`<option value="data-engineer" selected>`,
		`<option value="capture" data-capture selected>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("form lacks %q", want)
		}
	}
}

// TestCreateWithProblem: the record keeps the design problem chosen from
// the plan's pool; a problem the plan lacks is refused saying what can be
// chosen; the form offers each pool under its plan.
func TestCreateWithProblem(t *testing.T) {
	ts := newTestServer(t)
	resp := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer", "blueprint": "system-design", "problem": " Chat "})
	if rec, err := ts.store.Get(t.Context(), resp.ID); err != nil || rec.Problem != "chat" || rec.Blueprint != "system-design" {
		t.Fatalf("record %+v, %v", rec, err)
	}
	for _, tc := range []struct{ blueprint, problem, want string }{
		{"system-design", "elevator", "Choose one of the System design interview plan's problems: ticketing, ride-hailing, chat, url-shortener, notifications, or leave it empty to draw one"},
		{"default", "chat", "The Behavioural interview plan has no design problems to choose from: leave the problem empty"},
	} {
		refused := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Engineer", "blueprint": tc.blueprint, "problem": tc.problem})
		if refused.Code != http.StatusUnprocessableEntity && refused.Code != http.StatusBadRequest || !strings.Contains(refused.Body.String(), tc.want) {
			t.Errorf("%s with problem %s: %d %s", tc.blueprint, tc.problem, refused.Code, refused.Body)
		}
	}
	body := ts.get("/", "Cookie", sessionCookie+"="+ts.signIn(t, testRecruiter).Value).Body.String()
	for _, want := range []string{`<select id="problem" name="problem">`, `<option value="" selected>Drawn for the interview</option>`,
		`<optgroup label="System design interview" data-blueprint="system-design">`, `<option value="url-shortener">a link shortening service</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
}
