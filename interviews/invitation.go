package interviews

import (
	"fmt"
	"time"

	"github.com/viva-interviews/viva/config"
)

// DefaultLinkTTL is how long a candidate's link stays valid when the
// operator sets nothing (VIVA_LINK_TTL): the setting's default, written
// once in package config.
const DefaultLinkTTL = config.DefaultLinkTTL

// maxConsentTextLen bounds the consent wording kept in a record, in bytes.
const maxConsentTextLen = 4 << 10

// InvitationState is where a candidate's link is in its life, as the
// recruiter's list of invitations shows it.
type InvitationState string

// The states of an invitation, derived from the record (see
// Record.Invitation): nothing stores them.
const (
	// InvitationCreated means the link was issued and not opened yet.
	InvitationCreated InvitationState = "created"
	// InvitationOpened means the candidate opened the link; the interview
	// has not started.
	InvitationOpened InvitationState = "opened"
	// InvitationInProgress means the interview is running (or waiting for
	// the candidate to rejoin).
	InvitationInProgress InvitationState = "in_progress"
	// InvitationCompleted means the interview ended, however it ended.
	InvitationCompleted InvitationState = "completed"
	// InvitationExpired means the link lapsed before the interview started.
	InvitationExpired InvitationState = "expired"
	// InvitationRevoked means a recruiter revoked the link.
	InvitationRevoked InvitationState = "revoked"
)

// InvitationStates lists every state, in life-cycle order.
var InvitationStates = []InvitationState{InvitationCreated, InvitationOpened, InvitationInProgress,
	InvitationCompleted, InvitationExpired, InvitationRevoked}

// Invitation returns the state of the interview's link at now. A revoked
// link is revoked whatever else happened; a link that lapsed before the
// interview started is expired; otherwise the interview's status decides.
func (r *Record) Invitation(now time.Time) InvitationState {
	return invitationState(r.Status, r.StartedAt, r.ExpiresAt, r.OpenedAt, r.RevokedAt, now)
}

// Invitation returns the state of the interview's link at now, as
// Record.Invitation does.
func (s *Summary) Invitation(now time.Time) InvitationState {
	return invitationState(s.Status, s.StartedAt, s.ExpiresAt, s.OpenedAt, s.RevokedAt, now)
}

func invitationState(status Status, started, expires, opened, revoked *time.Time, now time.Time) InvitationState {
	switch {
	case revoked != nil:
		return InvitationRevoked
	case status.Finished():
		return InvitationCompleted
	case status == StatusInProgress:
		return InvitationInProgress
	case linkExpired(expires, started, now):
		return InvitationExpired
	case opened != nil:
		return InvitationOpened
	}
	return InvitationCreated
}

// LinkExpired reports whether the candidate's link has lapsed at now: it
// has an expiry, now is past it, and the interview never started (a started
// interview stays joinable for rejoining).
func (r *Record) LinkExpired(now time.Time) bool {
	return linkExpired(r.ExpiresAt, r.StartedAt, now)
}

func linkExpired(expires, started *time.Time, now time.Time) bool {
	return expires != nil && !now.Before(*expires) && started == nil
}

// Joinable says whether the candidate's link may be used at now, and when
// not, why in words for the candidate (nil when it may).
func (r *Record) Joinable(now time.Time) error {
	switch {
	case r.RevokedAt != nil:
		return fmt.Errorf("this interview link was withdrawn: ask the recruiter who sent it for a new one")
	case r.LinkExpired(now):
		return fmt.Errorf("this interview link expired on %s: ask the recruiter who sent it for a new one", r.ExpiresAt.UTC().Format("2 January 2006"))
	}
	return nil
}

// Revoke withdraws the candidate's link: by is who revoked it (a signed-in
// user's email). Revoking twice keeps the first time.
func (r *Record) Revoke(by string, at time.Time) {
	if r.RevokedAt != nil {
		return
	}
	r.RevokedAt = &at
	r.RevokedBy = by
}

// Audit actions of a recruiter on an invitation (AuditEntry.Action).
const (
	// AuditInvitationRevoked: the candidate's link was withdrawn.
	AuditInvitationRevoked = "invitation.revoked"
	// AuditInvitationReissued: the link was withdrawn and a new interview
	// created in its place (Detail names it).
	AuditInvitationReissued = "invitation.reissued"
)

// The emails viva sends a candidate about their invitation (Mailing.Kind).
const (
	// MailInvitation is the invitation: the link, the interview's planned
	// length and the link's expiry.
	MailInvitation = "invitation"
	// MailReminder is the reminder sent before the link expires, to a
	// candidate who has not started.
	MailReminder = "reminder"
)

// Mailing is one email viva sent, or tried to send, a candidate about
// their invitation. Kept in the record, so a restart never sends one twice.
type Mailing struct {
	// Kind is MailInvitation or MailReminder.
	Kind string `json:"kind"`
	// At is when it was sent (or tried).
	At time.Time `json:"at"`
	// To is the address it went to.
	To string `json:"to"`
	// By is who had it sent: a recruiter's email, or AuditSystem for a
	// reminder.
	By string `json:"by,omitempty"`
	// Error says why it could not be sent (secret-free); empty when it
	// was.
	Error string `json:"error,omitempty"`
}

// Mailed reports whether an email of kind was sent to the candidate.
func (r *Record) Mailed(kind string) bool {
	for _, m := range r.Mailings {
		if m.Kind == kind && m.Error == "" {
			return true
		}
	}
	return false
}

// MailAttempts counts the emails of kind sent or tried.
func (r *Record) MailAttempts(kind string) int {
	n := 0
	for _, m := range r.Mailings {
		if m.Kind == kind {
			n++
		}
	}
	return n
}

// Consent is the candidate's agreement, given on the join page before the
// microphone is asked for, to be interviewed by an AI interviewer, to what is
// recorded and to a person reviewing the result.
type Consent struct {
	// At is when the candidate agreed.
	At time.Time `json:"at"`
	// Version identifies the wording agreed to: "sha256:" and the first 12
	// hex digits of the text's hash, so changed wording is a new version.
	Version string `json:"version"`
	// Text is the wording the candidate saw, as shown.
	Text string `json:"text"`
}

// Validate checks that the consent says when and to what.
func (c *Consent) Validate() error {
	switch {
	case c.At.IsZero():
		return fmt.Errorf("consent has no time")
	case c.Version == "" || len(c.Version) > 80:
		return fmt.Errorf("consent version is empty or longer than 80 bytes")
	case c.Text == "" || len(c.Text) > maxConsentTextLen:
		return fmt.Errorf("consent text is empty or larger than %d bytes", maxConsentTextLen)
	}
	return nil
}
