package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReportRequestsAreLimitedAndLogged: one user asking again and again
// for new reports, from the page or the API, is refused with 429 past
// reportRequestsPerMinute a minute, told how long to wait, and logged;
// refused requests reach no report writer; another user is unaffected
// and the user may ask again a minute later.
func TestReportRequestsAreLimitedAndLogged(t *testing.T) {
	reqs := &fakeRequester{}
	ts := newTestServer(t, func(o *Options) { o.Reports = reqs })
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()))
	regenerate := func(user string, api bool) *httptest.ResponseRecorder {
		path := "/review/" + r.ID + "/report/regenerate"
		if api {
			path = "/api/interviews/" + r.ID + "/report"
		}
		req := httptest.NewRequest(http.MethodPost, path, nil)
		ts.authorize(req, user)
		return ts.do(req)
	}
	const flood = 100
	refused := 0
	for i := range flood {
		rec := regenerate(testReviewer, i%2 == 1)
		switch rec.Code {
		case http.StatusSeeOther, http.StatusAccepted:
		case http.StatusTooManyRequests:
			refused++
			if !strings.Contains(rec.Body.String(), "Wait ") {
				t.Fatalf("the refusal does not say how long to wait: %s", rec.Body)
			}
		default:
			t.Fatalf("request %d: status %d %s", i, rec.Code, rec.Body)
		}
	}
	if got := len(reqs.ids); got != reportRequestsPerMinute || refused != flood-reportRequestsPerMinute {
		t.Errorf("%d of %d requests reached the report writer, %d refused; want %d and %d", got, flood, refused, reportRequestsPerMinute, flood-reportRequestsPerMinute)
	}
	if !strings.Contains(ts.logs.String(), "report request refused: too many") {
		t.Error("the refusals are not logged")
	}
	if rec := regenerate(testAdmin, false); rec.Code != http.StatusSeeOther {
		t.Errorf("another user's request: %d", rec.Code)
	}
	ts.clock.Advance(time.Minute)
	if rec := regenerate(testReviewer, true); rec.Code != http.StatusAccepted {
		t.Errorf("a minute later: %d", rec.Code)
	}
}
