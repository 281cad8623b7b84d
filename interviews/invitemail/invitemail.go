// Package invitemail emails candidates their invitation — the link, the
// interview's planned length (interviews.PlannedLength) and when the link
// expires — and, before the link expires, a reminder to a candidate who
// has not started. What was sent is kept in the record
// (interviews.Record.Mailings), so a restart never sends anything twice;
// the reminder sweep reads its clock from Sender.Now.
package invitemail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/viva-interviews/viva/internal/every"
	"github.com/viva-interviews/viva/interviews"
)

// Defaults applied to zero Sender fields.
const (
	// DefaultRemindBefore is how long before the link expires the reminder
	// goes out.
	DefaultRemindBefore = 24 * time.Hour
	// DefaultSweepInterval is how often Run looks for reminders due.
	DefaultSweepInterval = 5 * time.Minute
	// maxReminderAttempts bounds the tries of a reminder that fails.
	maxReminderAttempts = 3
)

// ErrNoAddress is returned by Invite for a candidate registered without an
// email address.
var ErrNoAddress = errors.New("the candidate has no email address: add one, or send the link yourself")

// ErrUnavailable is returned by Invite for an invitation whose link can no
// longer be used (withdrawn, expired, or the interview already started).
var ErrUnavailable = errors.New("this link can no longer be used, so it is not emailed")

// Mailer sends a plain-text email (a *mail.Sender).
type Mailer interface {
	Send(ctx context.Context, to, subject, text string) error
}

// Sender emails invitations and reminders. Store, Mailer and Link are
// required; the rest have working defaults. It is safe for concurrent use.
type Sender struct {
	// Store holds the interview records; what is sent is noted there.
	Store interviews.Store
	// Mailer sends the emails.
	Mailer Mailer
	// Link is the candidate's join link of an interview id.
	Link func(id string) string
	// Designs is the design library a record's blueprint is read from,
	// at the record's version, for its planned length (nil: the built-in
	// designs only).
	Designs interviews.Designs
	// TimeScale is the worker's factor on every stage limit (0 means 1).
	TimeScale float64
	// Brand is the company name the emails speak for; empty says "the
	// company".
	Brand string
	// RemindBefore is how long before expiry the reminder is sent
	// (default DefaultRemindBefore).
	RemindBefore time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives what was sent and what failed (default
	// slog.Default()); never the link.
	Logger *slog.Logger
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sender) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Length is the planned length of rec's interview
// (interviews.RecordLength); zero when its blueprint cannot be read.
func (s *Sender) Length(ctx context.Context, rec *interviews.Record) time.Duration {
	return interviews.RecordLength(ctx, s.Designs, rec, s.TimeScale)
}

// Invite emails the candidate of interview id their invitation now, on
// by's behalf (a recruiter's email), and notes it in the record. It fails
// with ErrNoAddress, ErrUnavailable, or the mail server's refusal (also
// noted in the record).
func (s *Sender) Invite(ctx context.Context, id, by string) error {
	rec, err := s.Store.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("invitemail: reading %s: %w", id, err)
	}
	switch {
	case strings.TrimSpace(rec.Candidate.Email) == "":
		return ErrNoAddress
	case rec.Joinable(s.now()) != nil || rec.StartedAt != nil:
		return ErrUnavailable
	}
	return s.send(ctx, rec, interviews.MailInvitation, by)
}

// send emails rec's candidate the message of kind and notes it.
func (s *Sender) send(ctx context.Context, rec *interviews.Record, kind, by string) error {
	subject, text := Compose(kind, LetterOf(rec, s.Brand, s.Link(rec.ID), s.Length(ctx, rec)))
	to := strings.TrimSpace(rec.Candidate.Email)
	m := interviews.Mailing{Kind: kind, At: s.now().UTC(), To: to, By: by}
	sendErr := s.Mailer.Send(ctx, to, subject, text)
	if sendErr != nil {
		m.Error = interviews.Clip(sendErr.Error(), interviews.AuditDetailLen)
		s.log().Warn("invitemail: an email to a candidate failed", "interview_id", rec.ID, "kind", kind, "err", sendErr)
	} else {
		s.log().Info("invitemail: emailed a candidate", "interview_id", rec.ID, "kind", kind)
	}
	if _, err := s.Store.Update(ctx, rec.ID, func(r *interviews.Record) error {
		r.Mailings = append(r.Mailings, m)
		return nil
	}); err != nil {
		return errors.Join(sendErr, fmt.Errorf("invitemail: noting the %s of %s: %w", kind, rec.ID, err))
	}
	if sendErr != nil {
		return fmt.Errorf("invitemail: the mail server did not take the %s: %w", kind, sendErr)
	}
	return nil
}

// Run sends the reminders due every interval (default
// DefaultSweepInterval) until ctx ends.
func (s *Sender) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	every.Run(ctx, interval, func(ctx context.Context) {
		if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.log().Error("invitemail: sending reminders failed; will try again", "err", err)
		}
	})
}

// Sweep sends the reminders due now and returns how many it sent: to each
// candidate with an email address whose link is unused (not opened into a
// started interview, not withdrawn), expires within RemindBefore, was
// emailed or created more than RemindBefore before expiry, and has had no
// reminder yet. A failing reminder is tried again at later sweeps, up to
// three times.
func (s *Sender) Sweep(ctx context.Context) (int, error) {
	before := s.RemindBefore
	if before <= 0 {
		before = DefaultRemindBefore
	}
	now := s.now()
	sums, err := interviews.ListAll(ctx, s.Store, interviews.ListOptions{Status: interviews.StatusScheduled})
	if err != nil {
		return 0, fmt.Errorf("invitemail: %w", err)
	}
	sent := 0
	var errs []error
	for _, sum := range sums {
		st := sum.Invitation(now)
		if (st != interviews.InvitationCreated && st != interviews.InvitationOpened) || sum.ExpiresAt == nil ||
			strings.TrimSpace(sum.Candidate.Email) == "" || now.Before(sum.ExpiresAt.Add(-before)) ||
			!sum.CreatedAt.Before(sum.ExpiresAt.Add(-before)) {
			continue
		}
		rec, err := s.Store.Get(ctx, sum.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rec.Mailed(interviews.MailReminder) || rec.MailAttempts(interviews.MailReminder) >= maxReminderAttempts || rec.StartedAt != nil {
			continue
		}
		if err := s.send(ctx, rec, interviews.MailReminder, interviews.AuditSystem); err != nil {
			errs = append(errs, err)
			continue
		}
		sent++
	}
	return sent, errors.Join(errs...)
}
