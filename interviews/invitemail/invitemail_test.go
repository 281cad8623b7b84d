package invitemail_test

import (
	"errors"
	"log/slog"
	"mime"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/internal/mail"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/invitemail"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakesmtp"
)

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }

// rig is a file store, a fake SMTP server and a sender between them.
type rig struct {
	store  interviews.Store
	smtp   *fakesmtp.Server
	clock  *clock
	sender func() *invitemail.Sender // a new one each time, as after a restart
}

func newRig(t *testing.T) *rig {
	t.Helper()
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakesmtp.Start("viva@example.com", "pw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	m, err := mail.New(srv.URL(), mail.WithTLSConfig(srv.ClientTLSConfig()))
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{store: store, smtp: srv, clock: &clock{now: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}}
	r.sender = func() *invitemail.Sender {
		return &invitemail.Sender{Store: store, Mailer: m, Link: func(id string) string { return "https://jobs.example.com/interview/" + id },
			Brand: "Acme", Now: r.clock.Now, Logger: slog.New(slog.DiscardHandler)}
	}
	return r
}

// register stores a scheduled interview for email, its link valid 7 days.
func (r *rig) register(t *testing.T, email string) *interviews.Record {
	t.Helper()
	now := r.clock.Now()
	exp := now.Add(7 * 24 * time.Hour)
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Email: email, Role: "Backend engineer"},
		Blueprint: "default", CreatedAt: now, ExpiresAt: &exp}
	if err := r.store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// body is the text of message i.
func (r *rig) body(t *testing.T, i int) string {
	t.Helper()
	msgs := r.smtp.Messages()
	if i >= len(msgs) {
		t.Fatalf("%d messages, want message %d", len(msgs), i+1)
	}
	text, err := msgs[i].Text()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestInviteSaysLinkLengthAndExpiry(t *testing.T) {
	r := newRig(t)
	rec := r.register(t, "ada@example.com")
	if err := r.sender().Invite(t.Context(), rec.ID, "recruiter@example.com"); err != nil {
		t.Fatal(err)
	}
	body := r.body(t, 0)
	length := interviews.LengthInWords(interviews.PlannedLength(stages.Default(), 1))
	for _, want := range []string{"Hello Ada Lovelace", "with Acme", "https://jobs.example.com/interview/" + rec.ID,
		"plan for about " + length, "The link works until Monday 11 May 2026, 09:00 UTC"} {
		if !strings.Contains(body, want) {
			t.Errorf("the invitation does not say %q:\n%s", want, body)
		}
	}
	got, _ := r.store.Get(t.Context(), rec.ID)
	if !got.Mailed(interviews.MailInvitation) || got.Mailings[0].By != "recruiter@example.com" || got.Mailings[0].To != "ada@example.com" {
		t.Errorf("the record notes %+v", got.Mailings)
	}
}

func TestInviteRefusals(t *testing.T) {
	r := newRig(t)
	none := r.register(t, "")
	if err := r.sender().Invite(t.Context(), none.ID, "r@example.com"); !errors.Is(err, invitemail.ErrNoAddress) {
		t.Errorf("no address: %v", err)
	}
	gone := r.register(t, "ada@example.com")
	if _, err := r.store.Update(t.Context(), gone.ID, func(rec *interviews.Record) error {
		rec.Revoke("r@example.com", r.clock.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.sender().Invite(t.Context(), gone.ID, "r@example.com"); !errors.Is(err, invitemail.ErrUnavailable) {
		t.Errorf("withdrawn: %v", err)
	}
	if n := len(r.smtp.Messages()); n != 0 {
		t.Errorf("%d emails sent, want none", n)
	}
}

// TestReminderOnceBeforeExpiry: the reminder goes out a day before the
// link expires, once, even across restarts; never to a candidate who
// started or whose link was withdrawn.
func TestReminderOnceBeforeExpiry(t *testing.T) {
	r := newRig(t)
	waiting := r.register(t, "ada@example.com")
	started := r.register(t, "grace@example.com")
	withdrawn := r.register(t, "alan@example.com")
	ctx := t.Context()
	if _, err := r.store.Update(ctx, started.ID, func(rec *interviews.Record) error { rec.Start(r.clock.Now()); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.store.Update(ctx, withdrawn.ID, func(rec *interviews.Record) error { rec.Revoke("r@example.com", r.clock.Now()); return nil }); err != nil {
		t.Fatal(err)
	}
	sweep := func(at time.Duration, want int) {
		t.Helper()
		r.clock.Set(waiting.CreatedAt.Add(at))
		n, err := r.sender().Sweep(ctx)
		if err != nil || n != want {
			t.Errorf("sweep at +%v: %d sent, %v; want %d", at, n, err, want)
		}
	}
	sweep(5*24*time.Hour, 0)             // two days before expiry
	sweep(6*24*time.Hour+time.Hour, 1)   // within the last day
	sweep(6*24*time.Hour+2*time.Hour, 0) // already reminded, whatever restarted
	sweep(8*24*time.Hour, 0)             // expired
	if len(r.smtp.Messages()) != 1 || r.smtp.Messages()[0].To[0] != "ada@example.com" {
		t.Fatalf("emails %+v, want one reminder to ada", r.smtp.Messages())
	}
	if body := r.body(t, 0); !strings.Contains(body, "A reminder: your interview with Acme") || !strings.Contains(body, waiting.ID) {
		t.Errorf("reminder:\n%s", body)
	}
	got, _ := r.store.Get(ctx, waiting.ID)
	if !got.Mailed(interviews.MailReminder) || got.Mailings[0].By != interviews.AuditSystem {
		t.Errorf("the record notes %+v", got.Mailings)
	}
}

// TestReminderRetriedWhenTheServerFails: a mail server that is down is
// noted in the record, and the reminder tried again at later sweeps, three
// times at most.
func TestReminderRetriedWhenTheServerFails(t *testing.T) {
	r := newRig(t)
	rec := r.register(t, "ada@example.com")
	_ = r.smtp.Close()
	s := r.sender()
	for i := range 5 {
		r.clock.Set(rec.CreatedAt.Add(6*24*time.Hour + time.Duration(i)*time.Hour))
		if _, err := s.Sweep(t.Context()); (err == nil) != (i >= 3) {
			t.Errorf("sweep %d against a closed mail server: %v; want an error for the first three only", i+1, err)
		}
	}
	got, _ := r.store.Get(t.Context(), rec.ID)
	if n := got.MailAttempts(interviews.MailReminder); n != 3 || got.Mailed(interviews.MailReminder) || got.Mailings[0].Error == "" {
		t.Errorf("attempts %d, mailings %+v; want three failed attempts noted", n, got.Mailings)
	}
}

// An interview in Spanish or German is offered in its language: subject,
// greeting, planned length and expiry written that language's way.
func TestInviteInTheInterviewsLanguage(t *testing.T) {
	for _, tc := range []struct {
		tag, subject string
		says         []string
	}{
		{"es-MX", "Su entrevista para el puesto de Backend engineer", []string{"Hola, Ada Lovelace:", "Su entrevista con Acme está lista.",
			"reserve unos " + lang.Minutes("es", interviews.PlannedLength(stages.Default(), 1)), "El enlace funciona hasta el lunes, 11 de mayo de 2026, 09:00 UTC."}},
		{"de", "Ihr Interview für die Stelle Backend engineer", []string{"Guten Tag Ada Lovelace,", "Ihr Interview mit Acme ist bereit.",
			lang.Minutes("de", interviews.PlannedLength(stages.Default(), 1)) + " ein.", "Der Link gilt bis Montag, 11. Mai 2026, 09:00 UTC."}},
	} {
		r := newRig(t)
		rec := r.register(t, "ada@example.com")
		if _, err := r.store.Update(t.Context(), rec.ID, func(rec *interviews.Record) error { rec.Language = tc.tag; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := r.sender().Invite(t.Context(), rec.ID, "recruiter@example.com"); err != nil {
			t.Fatal(err)
		}
		body := r.body(t, 0)
		if !strings.Contains(r.smtp.Messages()[0].Data, "Subject: ") || !strings.Contains(decodedSubject(t, r.smtp.Messages()[0].Data), tc.subject) {
			t.Errorf("%s: subject %q, want %q", tc.tag, decodedSubject(t, r.smtp.Messages()[0].Data), tc.subject)
		}
		for _, want := range tc.says {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the invitation does not say %q:\n%s", tc.tag, want, body)
			}
		}
	}
}

// decodedSubject is the Subject header of a message as sent, decoded.
func decodedSubject(t *testing.T, data string) string {
	t.Helper()
	msg, err := netmail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
