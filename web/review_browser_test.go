package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/testrig/browsertest"
)

// shotEverywhere saves a screenshot of the current page at every size in
// both colour schemes, as name-size-scheme.png, checking that the page
// follows the scheme and does not scroll sideways.
func (b *reportBrowser) shotEverywhere(t *testing.T, name string) {
	t.Helper()
	for _, size := range browsertest.ScreenSizes {
		for _, scheme := range browsertest.ColourSchemes {
			var dark, overflow bool
			b.run(t, name+" "+size.Name+" "+scheme, browsertest.Emulate(size, scheme),
				// A page still loading (a reload under way, its stylesheet
				// not yet applied) has a transparent body: wait for it.
				chromedp.Poll(`document.readyState === "complete" && getComputedStyle(document.body).backgroundColor !== "rgba(0, 0, 0, 0)"`, nil),
				chromedp.Evaluate(`(() => {
				  const [r, g, bl] = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
				  return r + g + bl < 200;
				})()`, &dark),
				chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`, &overflow))
			if dark != (scheme == "dark") {
				t.Errorf("%s at %s: the page does not follow the %s preference", name, size.Name, scheme)
			}
			if overflow {
				t.Errorf("%s at %s: the page scrolls sideways", name, size.Name)
			}
			b.shot(t, fmt.Sprintf("%s-%s-%s", name, size.Name, scheme))
		}
	}
	b.run(t, "reset the emulation", emulation.ClearDeviceMetricsOverride(), emulation.SetEmulatedMedia().WithFeatures(nil))
}

// TestBrowserReviewerAndRecruiter: in headless Chromium, the reviewer
// page's summary at desktop and phone width in light and dark, its live
// update with a turn added after it loaded, the invitation page's copy
// button with the clipboard, and the invitations list.
func TestBrowserReviewerAndRecruiter(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusInProgress)
	r.Answers = append(r.Answers, interviews.Answer{QuestionID: "q1", TurnSeq: 2, Confidence: interviews.Confidence("high"), Facts: []string{"Feels well"}, At: r.StartedAt.Add(7 * time.Second)})
	r.Assessments = append(r.Assessments, interviews.Assessment{QuestionID: "q1", Stage: "greeting", DepthScore: 2, KeyPoints: []string{"polite"}, At: r.StartedAt.Add(8 * time.Second)})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(ts.Handler())
	t.Cleanup(web.Close)
	b := newReportBrowser(t)

	// The reviewer's page: the summary first, live while in progress.
	var summary string
	b.run(t, "reviewer page",
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + testReviewerToken}),
		chromedp.Navigate(web.URL+"/review/"+r.ID),
		chromedp.WaitVisible("#summary", chromedp.ByQuery),
		chromedp.Text("#summary", &summary, chromedp.ByQuery))
	for _, want := range []string{"In progress", "Live — this page updates", "Stages reached", "Questions asked", "Duration"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q: %q", want, summary)
		}
	}
	var beside bool
	b.run(t, "assessment beside its answer", chromedp.Evaluate(`!!document.querySelector('#turn-2 .assessments.beside-answer')`, &beside))
	if !beside {
		t.Error("the assessment of q1 is not shown in the answer's turn")
	}
	b.shotEverywhere(t, "reviewer-summary")

	// A turn saved after the page loaded appears without a reload.
	var marker string
	b.run(t, "mark the page", chromedp.Evaluate(`window.notReloaded = true; 'ok'`, &marker))
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "What trade-offs did the engine force on you?", StartedAt: r.StartedAt.Add(90 * time.Second), EndedAt: r.StartedAt.Add(95 * time.Second)})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	var same bool
	b.run(t, "live update",
		chromedp.Poll(`document.getElementById('timeline').innerText.includes('What trade-offs did the engine force on you?')`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`window.notReloaded === true`, &same))
	if !same {
		t.Error("the page reloaded instead of updating the timeline")
	}
	b.shot(t, "reviewer-live-update")
	// Once the interview ends the page reloads once and stops polling.
	r.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateRequest, r.StartedAt.Add(2*time.Minute))
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	b.run(t, "the end reloads the page",
		chromedp.WaitVisible(".summary-ending", chromedp.ByQuery),
		chromedp.Evaluate(`window.notReloaded === true`, &same),
		chromedp.Text("#summary", &summary, chromedp.ByQuery))
	if same {
		t.Error("the page did not reload once the interview ended")
	}
	if !strings.Contains(summary, "The candidate ended the interview") || strings.Contains(summary, "Live") {
		t.Errorf("summary after the end: %q", summary)
	}
	b.shotEverywhere(t, "reviewer-ended")

	// The recruiter: register, land on the invitation's page, copy the link.
	id := registerForm(t, ts)
	origin := web.URL
	var copied, clip, status string
	b.run(t, "copy the link",
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + ts.tokens[testRecruiter]}),
		grantClipboard(origin),
		chromedp.Navigate(web.URL+invitationPath(id)),
		chromedp.WaitVisible(`button[data-copy="join-url"]`, chromedp.ByQuery),
		chromedp.Click(`button[data-copy="join-url"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('button[data-copy="join-url"]').textContent === 'Copied'`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text(`button[data-copy="join-url"]`, &copied, chromedp.ByQuery),
		chromedp.Text(`[data-copy-status="join-url"]`, &status, chromedp.ByQuery),
		chromedp.Evaluate(`navigator.clipboard.readText()`, &clip, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if want := "https://interviews.example.com/interview/" + id; clip != want {
		t.Errorf("clipboard %q, want %q", clip, want)
	}
	if !strings.Contains(status, "Copied") {
		t.Errorf("no feedback after copying: %q", status)
	}
	var roomLinks int
	b.run(t, "no room link", chromedp.Evaluate(`document.querySelectorAll('a[href*="/interview/"]').length`, &roomLinks))
	if roomLinks != 0 {
		t.Errorf("the invitation page has %d links into the candidate's room", roomLinks)
	}
	b.shotEverywhere(t, "invitation-copied")

	// The list of invitations, with one withdrawn and one re-issued.
	other := registerForm(t, ts, "name", "Grace Hopper", "email", "grace@example.com")
	ts.postAction(invitationPath(other)+"/reissue", nil)
	var list string
	b.run(t, "invitations list",
		chromedp.Navigate(web.URL+invitationsPath),
		chromedp.WaitVisible("table.invitations", chromedp.ByQuery),
		chromedp.Text("table.invitations", &list, chromedp.ByQuery))
	for _, want := range []string{"Ada Lovelace", "Grace Hopper", "Withdrawn", "Not opened yet", "Revoke", "Re-issue"} {
		if !strings.Contains(list, want) {
			t.Errorf("invitations list lacks %q", want)
		}
	}
	b.shotEverywhere(t, "invitations")

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

// grantClipboard lets pages of origin read and write the clipboard, as a
// user who allowed it would.
func grantClipboard(origin string) chromedp.ActionFunc {
	return func(ctx context.Context) error {
		c := chromedp.FromContext(ctx)
		return cdpbrowser.GrantPermissions([]cdpbrowser.PermissionType{cdpbrowser.PermissionTypeClipboardReadWrite, cdpbrowser.PermissionTypeClipboardSanitizedWrite}).
			WithOrigin(origin).Do(cdp.WithExecutor(ctx, c.Browser))
	}
}
