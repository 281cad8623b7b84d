package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

// TestNavigationShowsOnlyWhatTheRoleMayOpen: a recruiter's pages never
// link to the interviews, a reviewer's never to the registration; an
// administrator sees both. Every link shown answers 200.
func TestNavigationShowsOnlyWhatTheRoleMayOpen(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		who, page string
		want      []string
	}{
		{testRecruiter, "/invitations", []string{"/", "/invitations"}},
		{testReviewer, "/review", []string{"/review"}},
		{testAdmin, "/review", []string{"/", "/invitations", "/review", "/designs"}},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.page, nil)
		ts.authorize(req, tc.who)
		body := ts.do(req).Body.String()
		nav := body[strings.Index(body, `<nav class="site-nav"`):]
		nav = nav[:strings.Index(nav, "</nav>")]
		var links []string
		for _, part := range strings.Split(nav, `href="`)[1:] {
			links = append(links, part[:strings.Index(part, `"`)])
		}
		if strings.Join(links, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s on %s sees links %v, want %v", tc.who, tc.page, links, tc.want)
		}
		for _, l := range links {
			req := httptest.NewRequest(http.MethodGet, l, nil)
			ts.authorize(req, tc.who)
			if code := ts.do(req).Code; code != http.StatusOK {
				t.Errorf("%s follows %s: %d", tc.who, l, code)
			}
		}
	}
}

// TestRecruiterSeesHowTheirCandidateDid: the invitations list shows the
// recruiter the score and decision of their own candidate's interview.
func TestRecruiterSeesHowTheirCandidateDid(t *testing.T) {
	ts := newTestServer(t)
	id := registerForm(t, ts)
	rep := fixtureReport(ts.clock.Now())
	if _, err := ts.store.Update(t.Context(), id, func(r *interviews.Record) error {
		r.Start(ts.clock.Now())
		r.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, ts.clock.Now())
		r.Report = rep
		r.Decisions = append(r.Decisions, interviews.Decision{Decision: interviews.DecisionAdvance, By: testReviewer, At: ts.clock.Now()})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	list := ts.asRecruiter(invitationsPath).Body.String()
	if !strings.Contains(list, "Score 72 · Advance") {
		t.Errorf("the recruiter's list does not show how the interview went:\n%s", list)
	}
}

// TestNavigationBeforeSignIn: the sign-in page shows a visitor no staff
// links.
func TestNavigationBeforeSignIn(t *testing.T) {
	ts := newTestServer(t)
	for _, page := range []string{loginPath} {
		body := ts.get(page, "Accept", "text/html").Body.String()
		i := strings.Index(body, `<nav class="site-nav"`)
		if i < 0 {
			t.Fatalf("%s has no navigation:\n%s", page, body)
		}
		nav := body[i:]
		nav = nav[:strings.Index(nav, "</nav>")]
		if strings.Contains(nav, "href=") {
			t.Errorf("%s shows a visitor staff links: %s", page, nav)
		}
	}
}
