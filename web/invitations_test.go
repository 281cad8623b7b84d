package web

import (
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
)

// registerForm registers Ada from the form and returns her interview's id
// (read from the redirect).
func registerForm(t *testing.T, ts *testServer, extra ...string) string {
	t.Helper()
	rec := ts.postForm(t, validForm(extra...))
	loc := rec.Header().Get("Location")
	id, ok := strings.CutPrefix(loc, invitationsPath+"/")
	if rec.Code != http.StatusSeeOther || !ok || !interviews.ValidID(id) {
		t.Fatalf("registration: %d, Location %q", rec.Code, loc)
	}
	return id
}

// postAction posts an invitation action's form as the recruiter.
func (ts *testServer) postAction(path string, form url.Values) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	ts.authorize(req, testRecruiter)
	return ts.do(req)
}

// asRecruiter reads path as the recruiter.
func (ts *testServer) asRecruiter(path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	ts.authorize(req, testRecruiter)
	return ts.do(req)
}

// TestRegistrationPostRedirectGet: the form's registration answers 303 to
// the invitation's own page; reading that page again (a refresh) creates
// nothing.
func TestRegistrationPostRedirectGet(t *testing.T) {
	ts := newTestServer(t)
	id := registerForm(t, ts)
	for range 3 {
		page := ts.asRecruiter(invitationPath(id))
		if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), "Interview ready for Ada Lovelace") {
			t.Fatalf("invitation page: %d", page.Code)
		}
	}
	if list, _ := ts.store.List(t.Context(), interviews.ListOptions{}); list.Total != 1 {
		t.Errorf("%d interviews after reloading the result page, want 1", list.Total)
	}
	body := ts.asRecruiter(invitationPath(id)).Body.String()
	for _, want := range []string{`<script src="/static/copy.js" defer></script>`, `data-copy="join-url"`, `aria-live="polite"`, "The link works until 2026-03-09 09:30 UTC"} {
		if !strings.Contains(body, want) {
			t.Errorf("invitation page lacks %q", want)
		}
	}
	if strings.Contains(body, "Open the room") || strings.Contains(body, `href="https://interviews.example.com/interview/`) {
		t.Error("the invitation page offers to open the candidate's room")
	}
	// The JSON API still answers 201 with the join details.
	if resp := registerJSON(t, ts, map[string]string{"name": "Grace", "role": "Engineer"}); resp.JoinURL == "" || resp.Token == "" {
		t.Errorf("JSON registration: %+v", resp)
	}
	// Unknown invitations and other roles.
	if rec := ts.asRecruiter(invitationPath("nope")); rec.Code != http.StatusNotFound {
		t.Errorf("unknown invitation: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodGet, invitationsPath, nil)
	ts.authorize(req, testReviewer)
	if rec := ts.do(req); rec.Code != http.StatusForbidden {
		t.Errorf("a reviewer reads the invitations: %d", rec.Code)
	}
}

// TestLinkExpiresAtTTL: the link works until the configured lifetime has
// passed since registration, then the candidate is told it expired; a
// started interview stays joinable.
func TestLinkExpiresAtTTL(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.LinkTTL = 48 * time.Hour })
	id := registerForm(t, ts)
	r, _ := ts.store.Get(t.Context(), id)
	if r.ExpiresAt == nil || !r.ExpiresAt.Equal(r.CreatedAt.Add(48*time.Hour)) {
		t.Fatalf("expires_at %v, created %v", r.ExpiresAt, r.CreatedAt)
	}
	join := func() *httptest.ResponseRecorder {
		return ts.do(httptest.NewRequest(http.MethodPost, "/api/interviews/"+id+"/join", strings.NewReader(ts.agree())))
	}
	ts.clock.Advance(48*time.Hour - time.Second)
	if rec := join(); rec.Code != http.StatusOK {
		t.Fatalf("a second before the expiry: %d %s", rec.Code, rec.Body)
	}
	ts.clock.Advance(time.Second)
	rec := join()
	if rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "This interview link expired on 4 March 2026: ask the recruiter who sent it for a new one.") {
		t.Errorf("at the expiry: %d %s", rec.Code, rec.Body)
	}
	page := ts.get("/interview/" + id)
	if page.Code != http.StatusGone || !strings.Contains(page.Body.String(), "This interview link expired on 4 March 2026") {
		t.Errorf("room page at the expiry: %d", page.Code)
	}
	if list := ts.asRecruiter(invitationsPath + "?state=expired").Body.String(); !strings.Contains(list, "Ada Lovelace") || !strings.Contains(list, ">Expired</span>") {
		t.Error("the invitations list does not show the expired link")
	}
	// A started interview may be rejoined after the expiry.
	r, _ = ts.store.Get(t.Context(), id)
	r.Start(ts.clock.Now())
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if rec := join(); rec.Code != http.StatusOK {
		t.Errorf("a started interview after the expiry: %d", rec.Code)
	}
}

// TestLinkTTLDefault: the setting's default and the web app's are the
// record's seven days.
func TestLinkTTLDefault(t *testing.T) {
	cfg, err := config.Load(nil, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LinkTTL != interviews.DefaultLinkTTL {
		t.Errorf("VIVA_LINK_TTL default %s, the record's %s", cfg.LinkTTL, interviews.DefaultLinkTTL)
	}
	ts := newTestServer(t)
	if ts.invitations.interviews.LinkTTL != interviews.DefaultLinkTTL {
		t.Errorf("web default %s", ts.invitations.interviews.LinkTTL)
	}
}

// TestOpenedAtOnce: opening the room page notes the first time only; the
// join endpoint does not count.
func TestOpenedAtOnce(t *testing.T) {
	ts := newTestServer(t)
	id := registerForm(t, ts)
	ts.do(httptest.NewRequest(http.MethodPost, "/api/interviews/"+id+"/join", strings.NewReader(ts.agree())))
	if r, _ := ts.store.Get(t.Context(), id); r.OpenedAt != nil {
		t.Fatal("the join endpoint marked the link opened")
	}
	first := ts.clock.Now()
	ts.get("/interview/" + id)
	ts.clock.Advance(time.Hour)
	ts.get("/interview/" + id)
	r, _ := ts.store.Get(t.Context(), id)
	if r.OpenedAt == nil || !r.OpenedAt.Equal(first) {
		t.Errorf("opened_at %v, want the first opening %v", r.OpenedAt, first)
	}
	if st := r.Invitation(ts.clock.Now()); st != interviews.InvitationOpened {
		t.Errorf("state %s", st)
	}
}

// TestRevoke: Revoke asks first; a revoked link answers 410 with the
// reason on the room page and the join endpoint; the list says so and
// offers to undo it; a started interview's link cannot be revoked.
func TestRevoke(t *testing.T) {
	ts := newTestServer(t)
	id := registerForm(t, ts)
	ask := ts.asRecruiter(invitationPath(id) + "/revoke?back=" + url.QueryEscape("/invitations?state=created")).Body.String()
	if !strings.Contains(ask, "Withdraw the link") || !strings.Contains(ask, "undo this for 10 minutes") || !strings.Contains(ask, `href="/invitations?state=created"`) {
		t.Errorf("the confirmation page does not ask, offer the way back or say how long undo lasts:\n%s", ask)
	}
	if r, _ := ts.store.Get(t.Context(), id); r.RevokedAt != nil {
		t.Fatal("asking for confirmation withdrew the link")
	}
	rec := ts.postAction(invitationPath(id)+"/revoke", url.Values{"back": {"/invitations?state=created"}})
	if want := "/invitations?state=created&withdrawn=" + id; rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
		t.Fatalf("revoke: %d %q, want %q", rec.Code, rec.Header().Get("Location"), want)
	}
	if list := ts.asRecruiter(rec.Header().Get("Location")).Body.String(); !strings.Contains(list, "link was withdrawn.") || !strings.Contains(list, invitationPath(id)+"/restore") {
		t.Error("after withdrawing, the list offers no undo")
	}
	r, _ := ts.store.Get(t.Context(), id)
	if r.RevokedAt == nil || r.RevokedBy != testRecruiter || len(r.Audit) != 1 || r.Audit[0].Action != interviews.AuditInvitationRevoked {
		t.Fatalf("record after revoke: revoked %v by %q, audit %+v", r.RevokedAt, r.RevokedBy, r.Audit)
	}
	const msg = "This interview link was withdrawn: ask the recruiter who sent it for a new one."
	if page := ts.get("/interview/" + id); page.Code != http.StatusGone || !strings.Contains(page.Body.String(), msg) {
		t.Errorf("room page: %d", page.Code)
	}
	if join := ts.do(httptest.NewRequest(http.MethodPost, "/api/interviews/"+id+"/join", nil)); join.Code != http.StatusGone || !strings.Contains(join.Body.String(), msg) {
		t.Errorf("join: %d %s", join.Code, join.Body)
	}
	if list := ts.asRecruiter(invitationsPath + "?state=revoked").Body.String(); !strings.Contains(list, ">Withdrawn</span>") || strings.Contains(list, "/revoke") {
		t.Error("the list does not show the withdrawn link, or offers to revoke it again")
	}
	// Undo brings the link back; after the undo window it is refused.
	if rec := ts.postAction(invitationPath(id)+"/restore", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("undo: %d %s", rec.Code, rec.Body)
	}
	if page := ts.get("/interview/" + id); page.Code != http.StatusOK {
		t.Errorf("room page after undo: %d", page.Code)
	}
	ts.postAction(invitationPath(id)+"/revoke", nil)
	ts.clock.Advance(interviews.UndoWindow + time.Second)
	if rec := ts.postAction(invitationPath(id)+"/restore", nil); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "withdrawal stands") {
		t.Errorf("undo after the window: %d", rec.Code)
	}
	// Revoking a link whose interview started is refused.
	started := registerForm(t, ts)
	s, _ := ts.store.Get(t.Context(), started)
	s.Start(ts.clock.Now())
	_ = ts.store.Save(t.Context(), s)
	if rec := ts.postAction(invitationPath(started)+"/revoke", nil); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "already started") {
		t.Errorf("revoking a started interview: %d", rec.Code)
	}
	// A form from another site is refused.
	req := httptest.NewRequest(http.MethodPost, invitationPath(started)+"/revoke", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	ts.authorize(req, testRecruiter)
	if rec := ts.do(req); rec.Code != http.StatusForbidden {
		t.Errorf("cross-site revoke: %d", rec.Code)
	}
}

// TestReissue: re-issuing withdraws the link and registers the same
// candidate again with every server-side field, a new id and link, each
// naming the other, with audit entries on both.
func TestReissue(t *testing.T) {
	ts := captureServer(t)
	id := registerForm(t, ts, "blueprint", "capture", "brief", "# Billing\n- Who owns the invoices?", "job_description", "Owns billing.",
		"resume_text", "Ada Lovelace\nAnalyst")
	ts.clock.Advance(time.Hour)
	rec := ts.postAction(invitationPath(id)+"/reissue", nil)
	loc := rec.Header().Get("Location")
	newID, _ := strings.CutPrefix(loc, invitationsPath+"/")
	if rec.Code != http.StatusSeeOther || !interviews.ValidID(newID) || newID == id {
		t.Fatalf("reissue: %d %q", rec.Code, loc)
	}
	old, _ := ts.store.Get(t.Context(), id)
	fresh, err := ts.store.Get(t.Context(), newID)
	if err != nil {
		t.Fatal(err)
	}
	if old.RevokedAt == nil || old.ReissuedAs != newID || fresh.ReissuedFrom != id {
		t.Errorf("links: old revoked %v as %q, new from %q", old.RevokedAt, old.ReissuedAs, fresh.ReissuedFrom)
	}
	for _, c := range []struct{ name, got, want string }{
		{"name", fresh.Candidate.Name, old.Candidate.Name}, {"email", fresh.Candidate.Email, old.Candidate.Email},
		{"role", fresh.Candidate.Role, old.Candidate.Role}, {"level", fresh.Candidate.Level, old.Candidate.Level},
		{"blueprint", fresh.Blueprint, "capture"}, {"brief", fresh.Brief, old.Brief}, {"template", fresh.Template, old.Template},
		{"job description", fresh.JobDescription, "Owns billing."}, {"résumé", fresh.ResumeText, old.ResumeText},
		{"résumé summary", fresh.ResumeSummary, old.ResumeSummary}, {"creator", fresh.CreatedBy, testRecruiter},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	if old.Brief == "" || old.ResumeText == "" {
		t.Fatal("the original lacks the fields to copy")
	}
	if fresh.Status != interviews.StatusScheduled || fresh.Room == "" || fresh.Room == old.Room || fresh.ExpiresAt == nil || !fresh.ExpiresAt.Equal(ts.clock.Now().Add(interviews.DefaultLinkTTL)) {
		t.Errorf("new interview: status %s room %q expires %v", fresh.Status, fresh.Room, fresh.ExpiresAt)
	}
	if len(old.Audit) != 1 || old.Audit[0].Action != interviews.AuditInvitationReissued || !strings.Contains(old.Audit[0].Detail, newID) ||
		len(fresh.Audit) != 1 || !strings.Contains(fresh.Audit[0].Detail, id) {
		t.Errorf("audit: old %+v new %+v", old.Audit, fresh.Audit)
	}
	page := ts.asRecruiter(loc).Body.String()
	if !strings.Contains(page, `href="/invitations/`+id+`"`) || !strings.Contains(page, "https://interviews.example.com/interview/"+newID) {
		t.Error("the new invitation's page lacks its link or the one it replaces")
	}
	if again := ts.postAction(invitationPath(id)+"/reissue", nil); again.Code != http.StatusConflict {
		t.Errorf("re-issuing twice: %d", again.Code)
	}
	if list, _ := ts.store.List(t.Context(), interviews.ListOptions{}); list.Total != 2 {
		t.Errorf("%d interviews, want 2", list.Total)
	}
}

// TestInvitationsList: every state in words with its times, newest
// first, filtered by state.
func TestInvitationsList(t *testing.T) {
	ts := newTestServer(t)
	add := func(name string, edit func(*interviews.Record)) {
		ts.clock.Advance(time.Minute)
		now := ts.clock.Now()
		exp := now.Add(interviews.DefaultLinkTTL)
		r := &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Engineer"}, Blueprint: "default", CreatedAt: now, ExpiresAt: &exp, CreatedBy: testRecruiter}
		if edit != nil {
			edit(r)
		}
		if err := ts.store.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	add("Created Carol", nil)
	add("Opened Olga", func(r *interviews.Record) { r.OpenedAt = ptr(r.CreatedAt) })
	add("Running Rita", func(r *interviews.Record) { r.Start(r.CreatedAt) })
	add("Done Dora", func(r *interviews.Record) {
		r.Start(r.CreatedAt)
		r.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateRequest, r.CreatedAt.Add(time.Minute))
	})
	add("Lapsed Lena", func(r *interviews.Record) { r.ExpiresAt = ptr(r.CreatedAt.Add(-time.Second)) })
	add("Revoked Rosa", func(r *interviews.Record) { r.Revoke(testRecruiter, r.CreatedAt) })

	body := ts.asRecruiter(invitationsPath).Body.String()
	last := -1
	for _, c := range []struct{ name, state string }{
		{"Revoked Rosa", "Withdrawn"}, {"Lapsed Lena", "Expired"}, {"Done Dora", "Completed"},
		{"Running Rita", "In progress"}, {"Opened Olga", "Opened"}, {"Created Carol", "Not opened yet"},
	} {
		i := strings.Index(body, ">"+c.name+"</a>")
		if i < 0 || i < last {
			t.Errorf("%s missing or out of order", c.name)
			continue
		}
		last = i
		if row := body[i:]; !strings.Contains(row[:strings.Index(row, "</tr>")], ">"+c.state+"</span>") {
			t.Errorf("%s is not shown as %q", c.name, c.state)
		}
	}
	if !strings.Contains(body, `action="/invitations/`) || !strings.Contains(body, "Re-issue") || !strings.Contains(body, "Revoke") {
		t.Error("the list offers no actions")
	}
	for _, st := range interviews.InvitationStates {
		filtered := ts.asRecruiter(invitationsPath + "?state=" + string(st)).Body.String()
		if n := strings.Count(filtered, `<td data-label="Candidate">`); n != 1 {
			t.Errorf("state %s: %d rows, want 1", st, n)
		}
	}
}

// TestReviewCSV: the export has the list's filters, one row per
// interview in words, RFC 4180 quoting, and no cell a spreadsheet would
// run as a formula.
func TestReviewCSV(t *testing.T) {
	ts := newTestServer(t)
	for _, name := range []string{`=HYPERLINK("https://evil.example","x")`, `Ada "the Countess", Lovelace`, "+Plus", "-Minus", "@At"} {
		ts.clock.Advance(time.Minute)
		r := &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Engineer"}, Blueprint: "default", CreatedAt: ts.clock.Now()}
		r.Start(ts.clock.Now())
		r.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateRequest, ts.clock.Now().Add(90*time.Second))
		if err := ts.store.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	other := &interviews.Record{Candidate: interviews.Candidate{Name: "Grace", Role: "Designer"}, Blueprint: "default", CreatedAt: ts.clock.Now()}
	if err := ts.store.Create(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	rec := ts.get("/review.csv?role=Engineer", "Authorization", "Bearer "+testReviewerToken)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") {
		t.Fatalf("%d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Disposition"))
	}
	raw := rec.Body.String()
	if !strings.Contains(raw, "\r\n") || !strings.Contains(raw, `"Ada ""the Countess"", Lovelace"`) {
		t.Errorf("not RFC 4180 quoted with CRLF:\n%s", raw)
	}
	rows, err := csv.NewReader(strings.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || strings.Join(rows[0], ",") != strings.Join(slices.Concat(csvColumns.head, csvColumns.tail), ",") {
		t.Fatalf("%d rows, header %q", len(rows), rows[0])
	}
	names := map[string]bool{}
	for _, row := range rows[1:] {
		names[row[0]] = true
		if row[10] != "Ended early" || row[11] != "The candidate ended the interview" || row[9] != "90" || row[4] != blueprintTitle("default") || row[5] != "English" {
			t.Errorf("row %q", row)
		}
		if strings.ContainsRune("=+-@", rune(row[0][0])) {
			t.Errorf("a cell starts a formula: %q", row[0])
		}
	}
	for _, want := range []string{`'=HYPERLINK("https://evil.example","x")`, "'+Plus", "'-Minus", "'@At", `Ada "the Countess", Lovelace`} {
		if !names[want] {
			t.Errorf("export lacks %q: %v", want, names)
		}
	}
	if body := ts.get("/review?role=Engineer", "Authorization", "Bearer "+testReviewerToken).Body.String(); !strings.Contains(body, `href="/review.csv?role=Engineer"`) {
		t.Error("the list does not link its CSV export with its filters")
	}
	if rec := ts.get("/review.csv"); rec.Code == http.StatusOK {
		t.Error("the export is served without signing in")
	}
}

// TestRecruitersManageTheirOwnInvitations: a recruiter lists, reads,
// withdraws and re-issues only the invitations they sent; another
// recruiter's answer 404 as unknown ones do, and admins see and act on
// every one.
func TestRecruitersManageTheirOwnInvitations(t *testing.T) {
	ts := newTestServer(t)
	const other = "other-recruiter@example.com"
	if _, err := ts.users.AddUser(t.Context(), other, accounts.RoleRecruiter, testUserPassword); err != nil {
		t.Fatal(err)
	}
	tok, err := ts.users.CreateToken(t.Context(), other)
	if err != nil {
		t.Fatal(err)
	}
	ts.tokens[other] = tok
	mine := registerForm(t, ts) // sent by testRecruiter
	as := func(email, method, path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(url.Values{}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "text/html")
		ts.authorize(req, email)
		return ts.do(req)
	}
	if body := as(other, http.MethodGet, invitationsPath).Body.String(); strings.Contains(body, invitationPath(mine)) {
		t.Error("another recruiter lists the invitation")
	}
	for _, path := range []string{invitationPath(mine)} {
		if rec := as(other, http.MethodGet, path); rec.Code != http.StatusNotFound {
			t.Errorf("another recruiter reads %s: %d, want 404", path, rec.Code)
		}
	}
	for _, action := range []string{"/revoke", "/reissue"} {
		if rec := as(other, http.MethodPost, invitationPath(mine)+action); rec.Code != http.StatusNotFound {
			t.Errorf("another recruiter posts %s: %d, want 404", action, rec.Code)
		}
	}
	if rec, _ := ts.store.Get(t.Context(), mine); rec.RevokedAt != nil || rec.ReissuedAs != "" {
		t.Fatalf("another recruiter changed the invitation: %+v", rec)
	}
	if body := as(testRecruiter, http.MethodGet, invitationsPath).Body.String(); !strings.Contains(body, invitationPath(mine)) {
		t.Error("the recruiter does not list their own invitation")
	}
	if body := as(testAdmin, http.MethodGet, invitationsPath).Body.String(); !strings.Contains(body, invitationPath(mine)) {
		t.Error("an admin does not list the invitation")
	}
	if rec := as(testAdmin, http.MethodPost, invitationPath(mine)+"/revoke"); rec.Code != http.StatusSeeOther {
		t.Errorf("an admin withdraws it: %d", rec.Code)
	}
}
