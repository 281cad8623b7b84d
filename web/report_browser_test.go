package web

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/testrig/browsertest"
)

// reportBrowser is headless Chromium for the report pages, desktop-sized,
// noting uncaught exceptions and Content Security Policy violations.
type reportBrowser struct {
	ctx      context.Context
	dir      string
	mu       sync.Mutex
	problems []string
}

func newReportBrowser(t *testing.T) *reportBrowser {
	t.Helper()
	ctx := browsertest.Start(t, browsertest.Desktop)
	b := &reportBrowser{ctx: ctx, dir: t.ArtifactDir()}
	t.Logf("screenshots: %s", b.dir)
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "uncaught: "+e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if strings.Contains(e.Entry.Text, "Content Security Policy") {
				b.problems = append(b.problems, e.Entry.Text)
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("starting %s: %v", browsertest.ChromiumPath, err)
	}
	return b
}

// run runs actions within a minute, failing the test with the page's text.
func (b *reportBrowser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		var text string
		tctx, c := context.WithTimeout(b.ctx, 5*time.Second)
		defer c()
		_ = chromedp.Run(tctx, chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &text))
		t.Fatalf("%s: %v\n--- page text:\n%s", what, err, text)
	}
}

// shot saves a full-page screenshot as name.png and logs its path.
func (b *reportBrowser) shot(t *testing.T, name string) {
	t.Helper()
	var png []byte
	b.run(t, "screenshot "+name, chromedp.FullScreenshot(&png, 100))
	path := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot: %s", path)
}

// TestBrowserReportPages renders the reviewer page with a report, the
// printable report (with print styles) and the candidate's feedback page
// in headless Chromium, and saves a screenshot of each.
func TestBrowserReportPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ts := newTestServer(t)
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()), "hold", "advance")
	practice(r, false)
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(ts.Handler())
	t.Cleanup(web.Close)
	b := newReportBrowser(t)

	var text string
	b.run(t, "reviewer page",
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + testReviewerToken}),
		chromedp.Navigate(web.URL+"/review/"+r.ID),
		chromedp.WaitVisible("#report-h", chromedp.ByQuery),
		chromedp.Text("#verdict", &text, chromedp.ByQuery))
	for _, want := range []string{"72", "Clear communicator", "Technical depth", "Named the engine but not its limits.", "Strengths", "“I built a difference engine”",
		"Concerns", "Advance", "Record a decision", "Written by openai:gpt-4o-mini, prompt report-v1"} {
		if !strings.Contains(text, want) {
			t.Errorf("reviewer page: the verdict lacks %q", want)
		}
	}
	b.checkVerdictFirst(t)
	b.shot(t, "reviewer-page")

	var hidden bool
	b.run(t, "printable page",
		chromedp.Navigate(web.URL+"/review/"+r.ID+"/report"),
		chromedp.WaitVisible("#report-h", chromedp.ByQuery),
		emulation.SetEmulatedMedia().WithMedia("print"),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.site-header')).display === 'none' &&
		  getComputedStyle(document.querySelector('.key-questions')).breakBefore !== 'page'`, &hidden))
	if !hidden {
		t.Error("printing shows the navigation or puts each section on a page of its own")
	}
	b.shot(t, "printable-report")

	b.run(t, "feedback page",
		emulation.SetEmulatedMedia().WithMedia(""),
		network.SetExtraHTTPHeaders(network.Headers{}),
		chromedp.Navigate(web.URL+"/interview/"+r.ID+"/feedback"),
		chromedp.WaitVisible("article.feedback", chromedp.ByQuery),
		chromedp.Text("article.feedback", &text, chromedp.ByQuery))
	for _, want := range []string{"Your interview feedback", "What went well", "You said: “I built a difference engine”", "What to work on", "Questions to revisit"} {
		if !strings.Contains(text, want) {
			t.Errorf("feedback page lacks %q", want)
		}
	}
	if strings.Contains(text, "/ 100") {
		t.Error("the feedback page shows scores")
	}
	b.shot(t, "feedback-page")

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

// checkVerdictFirst checks, at desktop and phone size, that the page
// opens with the verdict and the decision form, the summary under them,
// the details folded, the timeline last, and that the phone's decision
// form is reachable without the timeline in the way; it logs the page's
// height at each size.
func (b *reportBrowser) checkVerdictFirst(t *testing.T) {
	t.Helper()
	for _, size := range browsertest.ScreenSizes {
		var got struct {
			Order, Folded, DecisionInView bool
			Height                        float64
		}
		b.run(t, "verdict first at "+size.Name, browsertest.Emulate(size, "light"),
			chromedp.Evaluate(`(() => {
			  const top = (sel) => document.querySelector(sel).getBoundingClientRect().top + window.scrollY;
			  const parts = ['#verdict .overall', '#verdict #comp-h', '#verdict #strengths-h', '#verdict #improvements-h', '#summary', '#details', '#timeline'];
			  const tops = parts.map(top);
			  const form = top('.decision-form');
			  return {
			    Order: tops.every((v, i) => i === 0 || v >= tops[i - 1]) && form > tops[0] && form < top('#summary'),
			    Folded: !document.querySelector('#details').open && !document.querySelector('#report-more').open,
			    DecisionInView: form < top('#timeline'),
			    Height: document.documentElement.scrollHeight,
			  };
			})()`, &got))
		if !got.Order || !got.Folded || !got.DecisionInView {
			t.Errorf("at %s: verdict first %v, details folded %v, decision before the timeline %v", size.Name, got.Order, got.Folded, got.DecisionInView)
		}
		t.Logf("reviewer page at %s: %.0f px tall", size.Name, got.Height)
	}
	b.run(t, "reset the emulation", emulation.ClearDeviceMetricsOverride())
}
