package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/reports"
)

// notifySpy records the events the server sends.
type notifySpy struct {
	mu     sync.Mutex
	events []string
}

func (n *notifySpy) Notify(event string, rec *interviews.Record) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.events = append(n.events, event+" "+rec.ID)
}

// requestSpy is a report runner that remembers requests.
type requestSpy struct {
	store interviews.Store
	mu    sync.Mutex
	got   []string
}

func (r *requestSpy) Request(ctx context.Context, id, who string) error {
	rec, err := r.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if rec.Status != interviews.StatusCompleted {
		return reports.ErrNotDue
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, id+" by "+who)
	return nil
}

// saveFinished stores an interview with the given status and a ready
// report of version 3.
func saveFinished(t *testing.T, store interviews.Store, id string, status interviews.Status) {
	t.Helper()
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	r := &interviews.Record{ID: id, Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer", Level: "senior"}, Blueprint: "default",
		CreatedAt: at, Status: interviews.StatusScheduled}
	r.Start(at)
	if status.Finished() {
		r.Finish(status, interviews.EndedClosingDelivered, at.Add(20*time.Minute))
		r.Report = &interviews.Report{Status: interviews.ReportReady, Version: 3, OverallScore: 70}
	}
	if err := store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
}

func (ts *testServer) postAs(path, email, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	ts.authorize(req, email)
	return ts.do(req)
}

// TestDecisionAPI: a reviewer records decisions, appended with the report
// version and audited, each sent as decision.recorded; wrong inputs and
// roles are refused with what to do.
func TestDecisionAPI(t *testing.T) {
	spy := &notifySpy{}
	ts := newTestServer(t, func(o *Options) { o.Webhooks = spy })
	saveFinished(t, ts.store, "done1", interviews.StatusCompleted)
	saveFinished(t, ts.store, "live1", interviews.StatusInProgress)

	resp := ts.postAs("/api/interviews/done1/decision", testReviewer, `{"decision":"advance","note":"Strong system design.\nClear trade-offs."}`)
	if resp.Code != http.StatusCreated {
		t.Fatalf("decision: %d %s", resp.Code, resp.Body)
	}
	got := decodeJSON[decisionResponse](t, resp.Body)
	if got.Decision.Decision != interviews.DecisionAdvance || got.Decision.By != testReviewer || got.Decision.ReportVersion != 3 ||
		got.Decision.Note != "Strong system design.\nClear trade-offs." || len(got.Decisions) != 1 || !got.Decision.At.Equal(ts.clock.Now()) {
		t.Errorf("response = %+v", got)
	}
	ts.clock.Advance(time.Minute)
	if resp := ts.postAs("/api/interviews/done1/decision", testAdmin, `{"decision":"hold"}`); resp.Code != http.StatusCreated {
		t.Fatalf("second decision: %d %s", resp.Code, resp.Body)
	}
	rec, err := ts.store.Get(t.Context(), "done1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Decisions) != 2 || rec.Decisions[0].Decision != interviews.DecisionAdvance || rec.Decisions[1].Decision != interviews.DecisionHold {
		t.Errorf("decisions = %+v", rec.Decisions)
	}
	if len(rec.Audit) != 2 || rec.Audit[0].Action != interviews.AuditDecision || rec.Audit[0].Who != testReviewer ||
		rec.Audit[0].Detail != "advance: Strong system design. Clear trade-offs." || rec.Audit[0].ReportVersion != 3 || rec.Audit[1].Detail != "hold" {
		t.Errorf("audit = %+v", rec.Audit)
	}
	if want := []string{interviews.EventDecisionRecorded + " done1", interviews.EventDecisionRecorded + " done1"}; fmt.Sprint(spy.events) != fmt.Sprint(want) {
		t.Errorf("events = %v, want %v", spy.events, want)
	}

	for _, c := range []struct {
		name, path, email, body string
		status                  int
		says                    string
	}{
		{"recruiter", "/api/interviews/done1/decision", testRecruiter, `{"decision":"advance"}`, http.StatusForbidden, "reviewer"},
		{"anonymous", "/api/interviews/done1/decision", "", `{"decision":"advance"}`, http.StatusUnauthorized, "Authentication required"},
		{"bad decision", "/api/interviews/done1/decision", testReviewer, `{"decision":"maybe"}`, http.StatusUnprocessableEntity, "advance, hold or reject"},
		{"long note", "/api/interviews/done1/decision", testReviewer, `{"decision":"hold","note":"` + strings.Repeat("x", MaxDecisionNoteLen+1) + `"}`, http.StatusUnprocessableEntity, "at most 2,000"},
		{"unknown field", "/api/interviews/done1/decision", testReviewer, `{"decision":"hold","score":9}`, http.StatusBadRequest, "could not be read"},
		{"not ended", "/api/interviews/live1/decision", testReviewer, `{"decision":"hold"}`, http.StatusConflict, "not ended"},
		{"unknown", "/api/interviews/nosuch/decision", testReviewer, `{"decision":"hold"}`, http.StatusNotFound, "no interview"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := ts.postAs(c.path, c.email, c.body)
			if resp.Code != c.status || !strings.Contains(resp.Body.String(), c.says) {
				t.Errorf("%d %s; want %d saying %q", resp.Code, resp.Body, c.status, c.says)
			}
		})
	}
	req := httptest.NewRequest(http.MethodPost, "/api/interviews/done1/decision", strings.NewReader("decision=hold"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	ts.authorize(req, testReviewer)
	if resp := ts.do(req); resp.Code != http.StatusUnsupportedMediaType {
		t.Errorf("a form body: %d, want 415", resp.Code)
	}
	if rec, _ := ts.store.Get(t.Context(), "done1"); len(rec.Decisions) != 2 {
		t.Errorf("refused requests changed the decisions: %+v", rec.Decisions)
	}
}

// TestConcurrentDecisionsKept: two reviewers deciding at the same moment
// both have their decision kept.
func TestConcurrentDecisionsKept(t *testing.T) {
	ts := newTestServer(t)
	saveFinished(t, ts.store, "both", interviews.StatusCompleted)
	var wg sync.WaitGroup
	for i, d := range []interviews.DecisionKind{interviews.DecisionAdvance, interviews.DecisionReject, interviews.DecisionHold, interviews.DecisionAdvance} {
		wg.Go(func() {
			if _, err := ts.decisions.recordDecision(context.Background(), "both", fmt.Sprintf("r%d@example.com", i), d, "note"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	rec, err := ts.store.Get(t.Context(), "both")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Decisions) != 4 || len(rec.Audit) != 4 {
		t.Errorf("%d decisions and %d audit entries kept, want 4 and 4", len(rec.Decisions), len(rec.Audit))
	}
}

// TestReportRequestAPI: a reviewer's request reaches the runner and is
// answered 202; an interview with no report is a conflict; a server
// without a runner says so.
func TestReportRequestAPI(t *testing.T) {
	var spy *requestSpy
	ts := newTestServer(t, func(o *Options) {
		spy = &requestSpy{store: o.Store}
		o.Reports = spy
	})
	saveFinished(t, ts.store, "done1", interviews.StatusCompleted)
	saveFinished(t, ts.store, "left1", interviews.StatusCandidateLeft)

	resp := ts.postAs("/api/interviews/done1/report", testReviewer, "")
	if resp.Code != http.StatusAccepted {
		t.Fatalf("request: %d %s", resp.Code, resp.Body)
	}
	if got := decodeJSON[reportResponse](t, resp.Body); got.Version != 3 || got.Status != interviews.ReportReady {
		t.Errorf("response = %+v", got)
	}
	if fmt.Sprint(spy.got) != "[done1 by "+testReviewer+"]" {
		t.Errorf("runner got %v", spy.got)
	}
	for _, c := range []struct {
		path, email string
		status      int
	}{
		{"/api/interviews/left1/report", testReviewer, http.StatusConflict},
		{"/api/interviews/nosuch/report", testReviewer, http.StatusNotFound},
		{"/api/interviews/done1/report", testRecruiter, http.StatusForbidden},
	} {
		if resp := ts.postAs(c.path, c.email, ""); resp.Code != c.status {
			t.Errorf("POST %s as %s: %d %s, want %d", c.path, c.email, resp.Code, resp.Body, c.status)
		}
	}

	bare := newTestServer(t)
	saveFinished(t, bare.store, "done1", interviews.StatusCompleted)
	err := bare.decisions.requestReport(context.Background(), "done1", testReviewer)
	if re, ok := errors.AsType[*requestError](err); !ok || re.status != http.StatusServiceUnavailable {
		t.Errorf("requestReport without a runner = %v", err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/interviews/done1/report", bytes.NewReader(nil))
	bare.authorize(req, testReviewer)
	if resp := bare.do(req); resp.Code != http.StatusServiceUnavailable {
		t.Errorf("without a runner: %d", resp.Code)
	}
}
