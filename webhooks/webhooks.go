// Package webhooks tells hiring systems what happened to an interview: it
// POSTs a signed JSON event to each configured URL when an interview is
// completed, when its report is ready and when a reviewer records a
// decision. Each body is signed with HMAC-SHA256 over the timestamp and the
// body, so a receiver can check that viva sent it and that it is fresh.
// Failed deliveries (network errors, HTTP 5xx and 429) are retried with
// backoff for a bounded time; every delivery's outcome is appended to the
// interview's audit list.
//
// Deliveries run in the background (Notify and Run), never while a worker
// or a page waits.
package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/internal/retry"
	"github.com/viva-interviews/viva/interviews"
)

// The headers of every delivery. HeaderSignature is
// SignaturePrefix + hex(HMAC-SHA256(secret, timestamp + "." + body)), where
// timestamp is HeaderTimestamp's value: unix seconds.
const (
	HeaderTimestamp = "Viva-Timestamp"
	HeaderSignature = "Viva-Signature"
	HeaderEvent     = "Viva-Event"
	SignaturePrefix = "sha256="
)

// Limits and defaults.
const (
	// MinSecretLen is the shortest signing secret New accepts.
	MinSecretLen = 16
	// DefaultMaxElapsed bounds the retries of one delivery when
	// Options.MaxElapsed is zero.
	DefaultMaxElapsed = 2 * time.Minute
	// DefaultAttemptTimeout bounds one POST of the default client.
	DefaultAttemptTimeout = 10 * time.Second
	// FirstBackoff is the wait before the first retry; each later wait
	// doubles, up to MaxBackoff.
	FirstBackoff = time.Second
	// MaxBackoff caps the wait between two attempts.
	MaxBackoff = 30 * time.Second
	// DefaultQueueSize is how many events Notify holds for Run when
	// Options.QueueSize is zero.
	DefaultQueueSize = 256
	// maxConcurrentEvents bounds the events Run delivers at once.
	maxConcurrentEvents = 8
	// maxErrorLen bounds the error text kept in a Delivery's audit entry.
	maxErrorLen = 160
)

// Auditor appends a delivery's outcome to the record it concerns;
// interviews.Store is one.
type Auditor interface {
	Update(ctx context.Context, id string, change func(*interviews.Record) error) (*interviews.Record, error)
}

// Options configures a Sender. With no URLs the Sender does nothing.
type Options struct {
	// URLs receive every event (http:// or https://).
	URLs []string
	// Secret signs every body; required with URLs, at least MinSecretLen
	// characters.
	Secret string
	// Client posts the events (default: DefaultAttemptTimeout per POST,
	// redirects not followed).
	Client *http.Client
	// Audit receives the outcome of the deliveries Run makes (usually the
	// interview store); nil records none.
	Audit Auditor
	// Logger receives delivery failures (default slog.Default()); it
	// never sees the secret or a URL's path.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sleep waits d or until ctx ends (default: a timer); tests inject
	// a fake clock's.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxElapsed bounds how long one delivery is retried (default
	// DefaultMaxElapsed).
	MaxElapsed time.Duration
	// QueueSize is how many events Notify holds for Run (default
	// DefaultQueueSize); events beyond it are dropped and logged.
	QueueSize int
	// OnDelivery, when set, is told the outcome of every delivery of an
	// event to one URL, once its retries are over (metrics count them).
	// It must not block.
	OnDelivery func(Delivery)
}

// Sender delivers events to the configured URLs. Create one with New; a
// nil *Sender does nothing. It is safe for concurrent use.
type Sender struct {
	urls       []*url.URL
	secret     []byte
	client     *http.Client
	audit      Auditor
	log        *slog.Logger
	now        func() time.Time
	sleep      func(ctx context.Context, d time.Duration) error
	maxElapsed time.Duration
	queue      chan job
	onDelivery func(Delivery)
}

// job is one event waiting for Run.
type job struct {
	id, event     string
	reportVersion int
	body          []byte
}

// New checks opts and returns a Sender. Its errors say which setting is
// wrong and what to set instead.
func New(opts Options) (*Sender, error) {
	var errs []error
	s := &Sender{secret: []byte(opts.Secret), client: opts.Client, audit: opts.Audit, log: opts.Logger,
		now: opts.Now, sleep: opts.Sleep, maxElapsed: opts.MaxElapsed, onDelivery: opts.OnDelivery}
	for _, raw := range opts.URLs {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("webhooks: %q is not an http:// or https:// URL such as https://hr.example.com/hooks/viva", redact(raw)))
			continue
		}
		s.urls = append(s.urls, u)
	}
	if len(s.urls) > 0 && len(opts.Secret) < MinSecretLen {
		errs = append(errs, fmt.Errorf("webhooks: the signing secret has %d characters: set VIVA_WEBHOOK_SECRET to at least %d random characters, for example from: openssl rand -hex 32", len(opts.Secret), MinSecretLen))
	}
	if opts.MaxElapsed < 0 || opts.QueueSize < 0 {
		errs = append(errs, errors.New("webhooks: MaxElapsed and QueueSize must not be negative"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if s.client == nil {
		s.client = &http.Client{Timeout: DefaultAttemptTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = retry.Sleep
	}
	if s.maxElapsed == 0 {
		s.maxElapsed = DefaultMaxElapsed
	}
	size := opts.QueueSize
	if size == 0 {
		size = DefaultQueueSize
	}
	s.queue = make(chan job, size)
	return s, nil
}

// redact hides everything of a URL but its scheme and host: paths and
// queries of webhook URLs often carry tokens.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(hidden)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// Enabled reports whether s sends anything: it has at least one URL.
func (s *Sender) Enabled() bool { return s != nil && len(s.urls) > 0 }

// Delivery is the outcome of one event sent to one URL.
type Delivery struct {
	// Event is the event sent; Host the receiving URL's host (its path
	// may hold a token, so it is not kept).
	Event string
	Host  string
	// StatusCode is the last response's HTTP status; 0 when none came.
	StatusCode int
	// Attempts is how many POSTs were made.
	Attempts int
	// Err is why the delivery failed; nil when it was accepted (2xx).
	Err error
	// At is when the outcome was known.
	At time.Time
}

// OK reports whether the receiver accepted the event.
func (d Delivery) OK() bool { return d.Err == nil }

// AuditEntry is the delivery as the record's audit list keeps it:
// webhook.delivered or webhook.failed, with the event, the host, the status
// code and the number of attempts.
func (d Delivery) AuditEntry(reportVersion int) interviews.AuditEntry {
	e := interviews.AuditEntry{At: d.At, Who: interviews.AuditSystem, Action: interviews.AuditWebhookDelivered, ReportVersion: reportVersion}
	status := "no response"
	if d.StatusCode != 0 {
		status = "HTTP " + strconv.Itoa(d.StatusCode)
	}
	e.Detail = fmt.Sprintf("%s to %s: %s after %d attempt%s", d.Event, d.Host, status, d.Attempts, plural(d.Attempts))
	if d.Err != nil {
		e.Action = interviews.AuditWebhookFailed
		e.Detail += ": " + shortError(d.Err)
	}
	return e
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// shortError is err's text on one line, cut to maxErrorLen characters.
func shortError(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if r := []rune(msg); len(r) > maxErrorLen {
		msg = string(r[:maxErrorLen]) + "…"
	}
	return msg
}

// Payload is the JSON body of every event.
type Payload struct {
	Event       string    `json:"event"`
	InterviewID string    `json:"interview_id"`
	OccurredAt  time.Time `json:"occurred_at"`
	Data        Data      `json:"data"`
}

// Data is what an event says about the interview: never the résumé, the
// job description, a brief or a key.
type Data struct {
	Candidate Candidate            `json:"candidate"`
	Blueprint string               `json:"blueprint,omitempty"`
	Status    interviews.Status    `json:"status"`
	EndedBy   interviews.EndReason `json:"ended_by,omitempty"`
	// Report is set on report.ready.
	Report *ReportSummary `json:"report,omitempty"`
	// Decision is set on decision.recorded: the decision just recorded.
	Decision *interviews.Decision `json:"decision,omitempty"`
}

// Candidate is who was interviewed.
type Candidate struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	Role  string `json:"role"`
}

// ReportSummary is the part of the report a hiring system receives.
type ReportSummary struct {
	Version      int                     `json:"version"`
	Basic        bool                    `json:"basic,omitempty"`
	Model        string                  `json:"model,omitempty"`
	OverallScore float64                 `json:"overall_score"`
	Headline     string                  `json:"headline,omitempty"`
	Competencies []interviews.Competency `json:"competencies,omitempty"`
}

// NewPayload builds the event's payload from the record as it stands at.
func NewPayload(event string, rec *interviews.Record, at time.Time) Payload {
	p := Payload{Event: event, InterviewID: rec.ID, OccurredAt: at.UTC(), Data: Data{
		Candidate: Candidate{Name: rec.Candidate.Name, Email: rec.Candidate.Email, Role: rec.Candidate.Role},
		Blueprint: rec.Blueprint, Status: rec.Status, EndedBy: rec.EndedBy,
	}}
	switch event {
	case interviews.EventReportReady:
		if r := rec.Report; r != nil {
			p.Data.Report = &ReportSummary{Version: r.Version, Basic: r.Basic, Model: r.Model,
				OverallScore: r.OverallScore, Headline: r.Headline, Competencies: r.Competencies}
		}
	case interviews.EventDecisionRecorded:
		if n := len(rec.Decisions); n > 0 {
			d := rec.Decisions[n-1]
			p.Data.Decision = &d
		}
	}
	return p
}

// Sign returns the Viva-Signature value of body sent at timestamp (unix
// seconds): "sha256=" and the hex HMAC-SHA256 under secret of the
// timestamp, a dot and the body.
func Sign(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return SignaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a received event for a Go receiver: the signature in h
// matches body under secret, and the timestamp is within tolerance of now
// (a replayed old event is refused).
func Verify(secret []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	ts := h.Get(HeaderTimestamp)
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhooks: %s %q is not unix seconds", HeaderTimestamp, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("webhooks: the event was signed %s from now, beyond the tolerance of %s", d.Round(time.Second), tolerance)
	}
	if !hmac.Equal([]byte(h.Get(HeaderSignature)), []byte(Sign(secret, ts, body))) {
		return errors.New("webhooks: the signature does not match the body: check the secret")
	}
	return nil
}

// Send delivers event about rec to every URL at once and returns each
// outcome, retrying each as the package says; it returns when every
// delivery has ended or ctx has. It records nothing: Run does.
func (s *Sender) Send(ctx context.Context, event string, rec *interviews.Record) []Delivery {
	if !s.Enabled() {
		return nil
	}
	body, err := json.Marshal(NewPayload(event, rec, s.now()))
	if err != nil { // the payload's types always encode
		panic(fmt.Sprintf("webhooks: encoding a payload: %v", err))
	}
	return s.sendBody(ctx, event, body)
}

func (s *Sender) sendBody(ctx context.Context, event string, body []byte) []Delivery {
	out := make([]Delivery, len(s.urls))
	var wg sync.WaitGroup
	for i, u := range s.urls {
		wg.Go(func() { out[i] = s.deliver(ctx, u, event, body) })
	}
	wg.Wait()
	return out
}

// deliver POSTs body to u until it is accepted, refused for good, or the
// retries run out of time.
func (s *Sender) deliver(ctx context.Context, u *url.URL, event string, body []byte) Delivery {
	d := Delivery{Event: event, Host: u.Host}
	start := s.now()
	backoff := retry.Backoff{First: FirstBackoff, Max: MaxBackoff}
	for {
		d.Attempts++
		status, wait, err := s.post(ctx, u, event, body)
		d.StatusCode, d.Err, d.At = status, err, s.now()
		if err == nil || !retryable(status) || ctx.Err() != nil {
			break
		}
		wait = min(max(wait, backoff.Delay(d.Attempts-1)), MaxBackoff)
		if s.now().Add(wait).Sub(start) > s.maxElapsed {
			d.Err = fmt.Errorf("gave up after %s: %w", s.maxElapsed, err)
			break
		}
		if err := s.sleep(ctx, wait); err != nil {
			d.Err = fmt.Errorf("stopped while retrying: %w", d.Err)
			break
		}
	}
	if d.Err != nil {
		s.log.Warn("webhooks: delivery failed", "event", event, "host", u.Host, "status", d.StatusCode, "attempts", d.Attempts, "err", shortError(d.Err))
	}
	if s.onDelivery != nil {
		s.onDelivery(d)
	}
	return d
}

// statusError is a response other than 2xx.
type statusError struct{ code int }

func (e statusError) Error() string {
	return "HTTP " + strconv.Itoa(e.code) + " " + http.StatusText(e.code)
}

// retryable reports whether a failed attempt may succeed later: no
// response at all, a server error or 429 Too Many Requests.
func retryable(status int) bool {
	return status == 0 || status >= 500 || status == http.StatusTooManyRequests
}

// post makes one attempt. It returns the status code (0 without a
// response), how long a 429 or 503 asks to wait (Retry-After, in seconds),
// and an error unless the receiver answered 2xx.
func (s *Sender) post(ctx context.Context, u *url.URL, event string, body []byte) (int, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, 0, fmt.Errorf("building the request: %w", stripURL(err))
	}
	ts := strconv.FormatInt(s.now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "viva-webhooks/1")
	req.Header.Set(HeaderEvent, event)
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(HeaderSignature, Sign(s.secret, ts, body))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, 0, stripURL(err)
	}
	defer resp.Body.Close()
	var wait time.Duration
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n > 0 {
		wait = time.Duration(n) * time.Second
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, wait, statusError{resp.StatusCode}
	}
	return resp.StatusCode, 0, nil
}

// stripURL drops the URL from an HTTP client error: its path may hold a
// token.
func stripURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// Notify queues event about rec for Run to deliver, with the record as it
// is now; it never blocks. When the queue is full the event is dropped
// and logged. A nil or disabled Sender does nothing.
func (s *Sender) Notify(event string, rec *interviews.Record) {
	if !s.Enabled() {
		return
	}
	body, err := json.Marshal(NewPayload(event, rec, s.now()))
	if err != nil {
		panic(fmt.Sprintf("webhooks: encoding a payload: %v", err))
	}
	j := job{id: rec.ID, event: event, body: body}
	if rec.Report != nil {
		j.reportVersion = rec.Report.Version
	}
	select {
	case s.queue <- j:
	default:
		s.log.Error("webhooks: the delivery queue is full; event dropped", "event", event, "interview_id", rec.ID)
	}
}

// Run delivers the events Notify queues, several at once, and appends
// each outcome to the record's audit list, until ctx ends; it then stops
// the deliveries under way (their outcome is recorded as failed) and
// returns once they have. Events still queued are dropped and logged. A
// nil or disabled Sender returns when ctx ends.
func (s *Sender) Run(ctx context.Context) {
	if !s.Enabled() {
		<-ctx.Done()
		return
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxConcurrentEvents)
	for {
		select {
		case <-ctx.Done():
			if n := len(s.queue); n > 0 {
				s.log.Warn("webhooks: stopping with events not delivered", "events", n)
			}
			return
		case j := <-s.queue:
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				s.log.Warn("webhooks: stopping with events not delivered", "events", len(s.queue)+1)
				return
			}
			wg.Go(func() {
				defer func() { <-slots }()
				s.record(context.WithoutCancel(ctx), j, s.sendBody(ctx, j.event, j.body))
			})
		}
	}
}

// record appends the outcomes of a job's deliveries to its record's audit.
func (s *Sender) record(ctx context.Context, j job, ds []Delivery) {
	if s.audit == nil {
		return
	}
	_, err := s.audit.Update(ctx, j.id, func(r *interviews.Record) error {
		for _, d := range ds {
			r.Audit = append(r.Audit, d.AuditEntry(j.reportVersion))
		}
		return nil
	})
	if err != nil {
		s.log.Error("webhooks: recording deliveries in the audit list", "interview_id", j.id, "err", err)
	}
}
