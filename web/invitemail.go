package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/invitemail"
)

// fieldSendEmail is the registration form's "email the invitation" box.
const fieldSendEmail = "send_email"

// inviteMail is how candidates hear of their invitation: the email viva
// sends (when the server can send email), the draft a recruiter sends
// themselves otherwise, and the planned length both promise. The
// registration and the invitations share it.
type inviteMail struct {
	// sender emails invitations and reminders; nil when the server has
	// no mailer or no public address to link to.
	sender        *invitemail.Sender
	brand         string
	findBlueprint blueprintFinder
	timeScale     float64
}

// newInviteMail is the invitations' email of a server configured with
// opts, publicURL and brand name.
func newInviteMail(opts Options, publicURL, brandName string, find blueprintFinder) *inviteMail {
	m := &inviteMail{brand: brandName, findBlueprint: find, timeScale: opts.TimeScale}
	if opts.Mailer != nil && publicURL != "" {
		m.sender = &invitemail.Sender{Store: opts.Store, Mailer: opts.Mailer,
			Link:    func(id string) string { return publicURL + "/interview/" + url.PathEscape(id) },
			Designs: find.lib, TimeScale: opts.TimeScale, Brand: brandName, Now: opts.Now, Logger: opts.Logger}
	}
	return m
}

// InviteMail is what emails candidates their invitation and, run in the
// background (its Run), the reminder before the link expires; nil when the
// server sends no email (no Options.Mailer or no Options.PublicURL).
func (s *Server) InviteMail() *invitemail.Sender { return s.invitations.mail.sender }

// plannedLength is the length rec's interview promises.
func (m *inviteMail) plannedLength(ctx context.Context, rec *interviews.Record) time.Duration {
	return interviews.RecordLength(ctx, m.findBlueprint.lib, rec, m.timeScale)
}

// mailTo is a mailto: link that drafts rec's invitation to the candidate,
// in the words of the email viva sends.
func (m *inviteMail) mailTo(ctx context.Context, rec *interviews.Record, join string) string {
	if rec.Candidate.Email == "" {
		return ""
	}
	subject, body := invitemail.Compose(interviews.MailInvitation, invitemail.LetterOf(rec, m.brand, join, m.plannedLength(ctx, rec)))
	return "mailto:" + url.PathEscape(rec.Candidate.Email) + "?subject=" + url.PathEscape(subject) + "&body=" + url.PathEscape(body)
}

// canEmail reports whether rec's invitation may be emailed at now.
func (m *inviteMail) canEmail(rec *interviews.Record, now time.Time) bool {
	return m.sender != nil && rec.Candidate.Email != "" && rec.Joinable(now) == nil && rec.StartedAt == nil
}

// emailNew emails the invitation of a candidate just registered when the
// recruiter asked for it; a failure is noted in the record, which the
// invitation page shows.
func (m *inviteMail) emailNew(r *http.Request, rec *interviews.Record, asked bool) error {
	if !asked || m.sender == nil || rec.Candidate.Email == "" {
		return nil
	}
	return m.sender.Invite(r.Context(), rec.ID, reviewerOf(r))
}

// mailingView is one email sent about an invitation, in words.
type mailingView struct {
	What  string
	At    time.Time
	Error string
}

// mailingsView lists the emails sent about rec's invitation.
func mailingsView(rec *interviews.Record) []mailingView {
	var out []mailingView
	for _, m := range rec.Mailings {
		what := "Invitation emailed to " + m.To
		if m.Kind == interviews.MailReminder {
			what = "Reminder emailed to " + m.To
		}
		out = append(out, mailingView{What: what, At: m.At, Error: m.Error})
	}
	return out
}

// handleInviteEmail emails the candidate their invitation now (POST from
// the invitation page) and shows the page again, which lists it.
func (s *invitations) handleInviteEmail(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.ownsInterview(w, r, id) {
		return
	}
	notSent := func(msg string) {
		s.render(w, r, http.StatusConflict, "message.html", messagePage{view: view{Title: "Email not sent", SignedIn: true}, Message: msg})
	}
	if s.mail.sender == nil {
		notSent("This server sends no email: its operator sets VIVA_SMTP_URL and VIVA_PUBLIC_URL to turn it on. Copy the link and send it yourself.")
		return
	}
	err := s.mail.sender.Invite(r.Context(), id, reviewerOf(r))
	switch {
	case errors.Is(err, invitemail.ErrNoAddress), errors.Is(err, invitemail.ErrUnavailable):
		notSent(sentence(err) + " Go back to the invitation.")
		return
	case err != nil:
		// Noted in the record: the invitation's page says what failed.
		s.log.Warn("web: emailing an invitation failed", "interview_id", id, "err", err)
	}
	http.Redirect(w, r, invitationPath(id), http.StatusSeeOther)
}

// sentence is err's message as a sentence for people: capitalised, with a
// full stop.
func sentence(err error) string {
	msg := err.Error()
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}
