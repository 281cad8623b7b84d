package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/internal/mail"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakesmtp"
)

// mailServer is a test server that emails through a local SMTP server.
func mailServer(t *testing.T) (*testServer, *fakesmtp.Server) {
	t.Helper()
	srv, err := fakesmtp.Start("viva@example.com", "pw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	m, err := mail.New(srv.URL(), mail.WithTLSConfig(srv.ClientTLSConfig()))
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(t, func(o *Options) { o.Mailer = m; o.BrandName = "Acme" }), srv
}

// mailText is the text of message i.
func mailText(t *testing.T, srv *fakesmtp.Server, i int) string {
	t.Helper()
	msgs := srv.Messages()
	if i >= len(msgs) {
		t.Fatalf("%d emails, want at least %d", len(msgs), i+1)
	}
	text, err := msgs[i].Text()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestInvitationEmailed: a recruiter who ticks "Email the invitation"
// registers the candidate and viva emails them the link, the planned
// length of the interview (the same as the room page promises) and the
// link's expiry; the invitation page lists the email and offers to send
// it again.
func TestInvitationEmailed(t *testing.T) {
	ts, srv := mailServer(t)
	form := ts.asRecruiter("/").Body.String()
	if !strings.Contains(form, `name="send_email" value="on" checked`) {
		t.Fatal("the form does not offer to email the invitation")
	}
	id := registerForm(t, ts, "send_email", "on")
	text := mailText(t, srv, 0)
	length := interviews.LengthInWords(interviews.PlannedLength(stages.Default(), 1))
	for _, want := range []string{"Hello Ada Lovelace", "with Acme", "https://interviews.example.com/interview/" + id,
		"plan for about " + length, "The link works until"} {
		if !strings.Contains(text, want) {
			t.Errorf("the email does not say %q:\n%s", want, text)
		}
	}
	room := ts.get("/interview/" + id).Body.String()
	if !strings.Contains(room, ">"+length+"<") {
		t.Errorf("the room page does not promise %s as the email does", length)
	}
	page := ts.asRecruiter(invitationPath(id)).Body.String()
	for _, want := range []string{"Invitation emailed to ada@example.com", "Email the invitation again", "about " + length} {
		if !strings.Contains(page, want) {
			t.Errorf("the invitation page does not say %q", want)
		}
	}
	if rec := ts.postAction(invitationPath(id)+"/email", nil); rec.Code != http.StatusSeeOther || len(srv.Messages()) != 2 {
		t.Errorf("emailing again: %d, %d emails", rec.Code, len(srv.Messages()))
	}
	// Without the box ticked, nothing is sent.
	registerForm(t, ts)
	if n := len(srv.Messages()); n != 2 {
		t.Errorf("%d emails after a registration without the box, want 2", n)
	}
}

// TestNoEmailWithoutMailer: without a mail server the form offers no
// email, and the invitation page drafts one in viva's words instead.
func TestNoEmailWithoutMailer(t *testing.T) {
	ts := newTestServer(t)
	if form := ts.asRecruiter("/").Body.String(); strings.Contains(form, `name="send_email"`) {
		t.Error("the form offers to email though the server cannot")
	}
	id := registerForm(t, ts)
	page := ts.asRecruiter(invitationPath(id)).Body.String()
	length := interviews.LengthInWords(interviews.PlannedLength(stages.Default(), 1))
	if !strings.Contains(page, "mailto:ada@example.com?subject=") || !strings.Contains(page, url.PathEscape("plan for about "+length)) {
		t.Errorf("the draft does not promise %s", length)
	}
	if strings.Contains(page, "about 30 minutes") {
		t.Error("the draft promises a hard-coded length")
	}
}

// TestBulkInvite: a list is checked row by row as the form checks one
// candidate; nothing is created until the recruiter confirms, and then
// only the valid rows, each emailed when asked.
func TestBulkInvite(t *testing.T) {
	ts, srv := mailServer(t)
	list := "name,email,role,level\nAda Lovelace,ada@example.com,Backend engineer,senior\nGrace Hopper,not-an-address,Compilers,\n,alan@example.com,Cryptanalyst,staff\nKatherine Johnson,kj@example.com,Mathematician,junior\n"
	preview := ts.postAction(bulkPath, url.Values{"list": {list}})
	body := preview.Body.String()
	if preview.Code != http.StatusOK || !strings.Contains(body, "2 of 4 candidates can be invited") || !strings.Contains(body, "Create 2 invitations") {
		t.Fatalf("preview: %d\n%s", preview.Code, body)
	}
	for _, want := range []string{"name@example.com", "Enter the candidate&#39;s name"} {
		if !strings.Contains(body, want) {
			t.Errorf("the preview does not say %q", want)
		}
	}
	if page, _ := ts.store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Fatalf("the preview created %d interviews", page.Total)
	}
	done := ts.postAction(bulkPath, url.Values{"list": {list}, "confirm": {"yes"}, fieldSendEmail: {"on"}})
	if done.Code != http.StatusSeeOther || done.Header().Get("Location") != invitationsPath {
		t.Fatalf("confirm: %d %q", done.Code, done.Header().Get("Location"))
	}
	page, _ := ts.store.List(t.Context(), interviews.ListOptions{})
	if page.Total != 2 || len(srv.Messages()) != 2 {
		t.Fatalf("%d interviews created and %d emailed, want 2 and 2", page.Total, len(srv.Messages()))
	}
	bad := ts.postAction(bulkPath, url.Values{"list": {"a,b,c,d,e,f"}})
	if bad.Code != http.StatusUnprocessableEntity || !strings.Contains(bad.Body.String(), "Line 1 has 6 fields") {
		t.Errorf("a malformed list: %d", bad.Code)
	}
}
