package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
)

const testSecret = "a-webhook-secret-of-32-characters"

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// fakeClock is a clock whose Sleep moves time on at once and remembers
// each wait.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.waits)
}

// receiver is a hiring system's endpoint: it answers the scripted statuses
// in turn (then 200), and checks each request's signature with its own
// implementation of the scheme the README documents.
type receiver struct {
	t        *testing.T
	statuses []int

	mu       sync.Mutex
	bodies   [][]byte
	badSigns int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ts := r.Header.Get("Viva-Timestamp")
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	_, tsErr := strconv.ParseInt(ts, 10, 64)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if tsErr != nil || !hmac.Equal([]byte(r.Header.Get("Viva-Signature")), []byte(want)) || r.Method != http.MethodPost {
		rc.badSigns++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	n := len(rc.bodies)
	rc.bodies = append(rc.bodies, body)
	if n < len(rc.statuses) {
		w.WriteHeader(rc.statuses[n])
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (rc *receiver) requests() ([][]byte, int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.bodies), rc.badSigns
}

func finishedRecord() *interviews.Record {
	r := &interviews.Record{ID: "hook1", Candidate: interviews.Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Engineer", Level: "senior"},
		Blueprint: "default", CreatedAt: t0, Status: interviews.StatusScheduled,
		ResumeText: "RESUME-TEXT-SECRET", JobDescription: "JOB-DESCRIPTION-SECRET", ResumeSummary: "RESUME-SUMMARY-SECRET", Brief: "BRIEF-SECRET"}
	r.Start(t0)
	r.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, t0.Add(20*time.Minute))
	gen := t0.Add(21 * time.Minute)
	r.Report = &interviews.Report{Status: interviews.ReportReady, Version: 2, Basic: true, GeneratedAt: &gen, OverallScore: 72, Headline: "Solid",
		Competencies: []interviews.Competency{{Name: "communication", Score: 80, Rationale: "clear"}}}
	return r
}

func newSender(t *testing.T, clock *fakeClock, opts Options) *Sender {
	t.Helper()
	opts.Secret, opts.Now, opts.Sleep = testSecret, clock.Now, clock.Sleep
	opts.Logger = slog.New(slog.DiscardHandler)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSendRetriesThenDelivers: a receiver that fails with 503 and 429
// first, then accepts, gets the event after waits of 1 s and 2 s, each
// request signed; the payload carries the report's summary and nothing
// server-side.
func TestSendRetriesThenDelivers(t *testing.T) {
	rc := &receiver{t: t, statuses: []int{http.StatusServiceUnavailable, http.StatusTooManyRequests}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	clock := &fakeClock{now: t0}
	var told []Delivery
	s := newSender(t, clock, Options{URLs: []string{srv.URL + "/hooks/viva?token=abc"}, OnDelivery: func(d Delivery) { told = append(told, d) }})

	ds := s.Send(context.Background(), interviews.EventReportReady, finishedRecord())
	if len(ds) != 1 {
		t.Fatalf("%d deliveries, want 1", len(ds))
	}
	d := ds[0]
	if len(told) != 1 || !told[0].OK() || told[0].Event != interviews.EventReportReady || told[0].Attempts != 3 {
		t.Errorf("OnDelivery told %+v, want the one delivery once its retries were over", told)
	}
	if !d.OK() || d.Attempts != 3 || d.StatusCode != http.StatusOK {
		t.Fatalf("delivery = %+v, want accepted after 3 attempts", d)
	}
	if got, want := clock.Waits(), []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("waits between attempts = %v, want %v", got, want)
	}
	bodies, bad := rc.requests()
	if bad != 0 || len(bodies) != 3 {
		t.Fatalf("receiver saw %d signed requests and %d badly signed, want 3 and 0", len(bodies), bad)
	}
	for _, secret := range []string{"RESUME-TEXT-SECRET", "JOB-DESCRIPTION-SECRET", "RESUME-SUMMARY-SECRET", "BRIEF-SECRET", testSecret} {
		if strings.Contains(string(bodies[2]), secret) {
			t.Errorf("the payload carries %s: %s", secret, bodies[2])
		}
	}
	var p struct {
		Event       string    `json:"event"`
		InterviewID string    `json:"interview_id"`
		OccurredAt  time.Time `json:"occurred_at"`
		Data        struct {
			Candidate struct{ Name, Email, Role string }
			Status    string `json:"status"`
			EndedBy   string `json:"ended_by"`
			Report    struct {
				Version      int     `json:"version"`
				OverallScore float64 `json:"overall_score"`
				Headline     string  `json:"headline"`
				Competencies []struct {
					Name  string
					Score float64
				}
			}
		}
	}
	if err := json.Unmarshal(bodies[2], &p); err != nil {
		t.Fatal(err)
	}
	if p.Event != interviews.EventReportReady || p.InterviewID != "hook1" || !p.OccurredAt.Equal(t0) || p.Data.Candidate.Email != "ada@example.com" ||
		p.Data.Status != "completed" || p.Data.EndedBy != "closing_delivered" || p.Data.Report.Version != 2 || p.Data.Report.OverallScore != 72 ||
		p.Data.Report.Headline != "Solid" || len(p.Data.Report.Competencies) != 1 {
		t.Errorf("payload = %s", bodies[2])
	}
	e := d.AuditEntry(2)
	if e.Action != interviews.AuditWebhookDelivered || e.Who != interviews.AuditSystem || e.ReportVersion != 2 ||
		!strings.Contains(e.Detail, "HTTP 200 after 3 attempts") || strings.Contains(e.Detail, "token") || strings.Contains(e.Detail, "/hooks") {
		t.Errorf("audit entry = %+v", e)
	}
}

// TestSendFinalAndBounded: a 4xx other than 429 ends the delivery at once;
// a receiver that always fails is retried with doubling waits until the
// time allowed runs out; an unreachable one likewise.
func TestSendFinalAndBounded(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/hook"
	closed.Close()
	cases := []struct {
		name       string
		statuses   []int
		url        string
		maxElapsed time.Duration
		attempts   int
		waits      []time.Duration
		status     int
	}{
		{"bad request", []int{http.StatusBadRequest}, "", 0, 1, nil, http.StatusBadRequest},
		{"gone", []int{http.StatusGone}, "", 0, 1, nil, http.StatusGone},
		{"always 500", slices.Repeat([]int{http.StatusInternalServerError}, 100), "", 10 * time.Second, 4,
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, http.StatusInternalServerError},
		{"default bound", slices.Repeat([]int{http.StatusBadGateway}, 100), "", 0, 8,
			[]time.Duration{1, 2, 4, 8, 16, 30, 30}, http.StatusBadGateway},
		{"unreachable", nil, closedURL, 5 * time.Second, 3, []time.Duration{time.Second, 2 * time.Second}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := &receiver{t: t, statuses: c.statuses}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			u := c.url
			if u == "" {
				u = srv.URL + "/hook"
			}
			clock := &fakeClock{now: t0}
			s := newSender(t, clock, Options{URLs: []string{u}, MaxElapsed: c.maxElapsed})
			d := s.Send(context.Background(), interviews.EventInterviewCompleted, finishedRecord())[0]
			if d.OK() || d.Attempts != c.attempts || d.StatusCode != c.status {
				t.Errorf("delivery = %+v, want failed after %d attempts with status %d", d, c.attempts, c.status)
			}
			want := c.waits
			if c.name == "default bound" {
				want = nil
				for _, w := range c.waits {
					want = append(want, w*time.Second)
				}
			}
			if got := clock.Waits(); !slices.Equal(got, want) {
				t.Errorf("waits = %v, want %v", got, want)
			}
			e := d.AuditEntry(0)
			if e.Action != interviews.AuditWebhookFailed || strings.Contains(e.Detail, "/hook") {
				t.Errorf("audit entry = %+v", e)
			}
		})
	}
}

// auditSpy is the store, telling the test each time an outcome is
// recorded.
type auditSpy struct {
	interviews.Store
	recorded chan string
}

func (a auditSpy) Update(ctx context.Context, id string, change func(*interviews.Record) error) (*interviews.Record, error) {
	r, err := a.Store.Update(ctx, id, change)
	a.recorded <- id
	return r, err
}

// TestRunDeliversInBackground: events queued with Notify are delivered by
// Run to every URL, and each outcome lands in the record's audit list;
// stopping Run stops it.
func TestRunDeliversInBackground(t *testing.T) {
	store, err := filestore.Open(filepath.Join(t.TempDir(), "interviews"))
	if err != nil {
		t.Fatal(err)
	}
	rec := finishedRecord()
	if err := store.Save(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	flaky := &receiver{t: t, statuses: []int{http.StatusInternalServerError}}
	srvA := httptest.NewServer(flaky)
	defer srvA.Close()
	refusing := &receiver{t: t, statuses: []int{http.StatusForbidden}}
	srvB := httptest.NewServer(refusing)
	defer srvB.Close()
	clock := &fakeClock{now: t0}
	spy := auditSpy{Store: store, recorded: make(chan string, 4)}
	s := newSender(t, clock, Options{URLs: []string{srvA.URL, srvB.URL + "/x"}, Audit: spy})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	s.Notify(interviews.EventReportReady, rec)
	if id := <-spy.recorded; id != rec.ID {
		t.Fatalf("recorded for %q", id)
	}
	cancel()
	<-done

	got, err := store.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Audit) != 2 {
		t.Fatalf("audit = %+v, want two deliveries", got.Audit)
	}
	entryFor := func(srv *httptest.Server) interviews.AuditEntry {
		for _, e := range got.Audit {
			if strings.Contains(e.Detail, " to "+strings.TrimPrefix(srv.URL, "http://")+": ") {
				return e
			}
		}
		return interviews.AuditEntry{}
	}
	a, b := entryFor(srvA), entryFor(srvB)
	if a.Action != interviews.AuditWebhookDelivered || !strings.Contains(a.Detail, "HTTP 200 after 2 attempts") || a.ReportVersion != 2 {
		t.Errorf("flaky receiver's entry = %+v", a)
	}
	if b.Action != interviews.AuditWebhookFailed || !strings.Contains(b.Detail, "HTTP 403 after 1 attempt:") {
		t.Errorf("refusing receiver's entry = %+v", b)
	}
}

// TestNewChecksSettings: bad URLs and a short or missing secret are refused
// with messages that never show a URL's path; no URLs is a Sender that
// does nothing.
func TestNewChecksSettings(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{URLs: []string{"ftp://h/secret-path"}, Secret: testSecret}, "is not an http:// or https:// URL"},
		{Options{URLs: []string{"https://h/secret-path"}, Secret: "short"}, "at least 16"},
		{Options{URLs: []string{"https://h/secret-path"}}, "VIVA_WEBHOOK_SECRET"},
	} {
		_, err := New(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret-path") {
			t.Errorf("New(%v) = %v, want an error saying %q without the path", c.opts.URLs, err, c.want)
		}
	}
	s, err := New(Options{})
	if err != nil || s.Enabled() {
		t.Fatalf("New with no URLs = %v, %v; want a disabled sender", s, err)
	}
	s.Notify(interviews.EventReportReady, finishedRecord()) // does nothing, never blocks
	var nilSender *Sender
	nilSender.Notify(interviews.EventReportReady, finishedRecord())
	if ds := nilSender.Send(context.Background(), interviews.EventReportReady, finishedRecord()); ds != nil {
		t.Errorf("a nil sender delivered %v", ds)
	}
}

// TestVerify: Verify accepts what the sender signs and refuses a changed
// body, another secret and an old timestamp.
func TestVerify(t *testing.T) {
	body := []byte(`{"event":"report.ready"}`)
	now := time.Unix(1_800_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	h := http.Header{}
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, Sign([]byte(testSecret), ts, body))
	if err := Verify([]byte(testSecret), h, body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Errorf("Verify refused a good event: %v", err)
	}
	if Verify([]byte(testSecret), h, append(body, ' '), now, 5*time.Minute) == nil {
		t.Error("Verify accepted a changed body")
	}
	if Verify([]byte("another-secret-of-enough-length"), h, body, now, 5*time.Minute) == nil {
		t.Error("Verify accepted another secret")
	}
	if Verify([]byte(testSecret), h, body, now.Add(time.Hour), 5*time.Minute) == nil {
		t.Error("Verify accepted an hour-old event")
	}
}
