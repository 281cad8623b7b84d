package web

import (
	"net/http/httptest"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/testrig/browsertest"
)

// TestBrowserCompareOnAPhone: in headless Chromium, the comparison shows
// every candidate on a desktop; on a phone the page itself does not
// scroll sideways, a cue says the table does, and scrolling the table
// brings the second candidate into view with the competency names kept
// in sight, not covering it.
func TestBrowserCompareOnAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ts := newTestServer(t)
	comparedPair(t, ts)
	web := httptest.NewServer(ts.Handler())
	t.Cleanup(web.Close)
	b := newReportBrowser(t)
	b.run(t, "comparison",
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + testReviewerToken}),
		chromedp.Navigate(web.URL+"/review/compare?role=Backend+engineer"),
		chromedp.WaitVisible("table.compare-table", chromedp.ByQuery))
	type layout struct {
		Cue, PageScrolls, SecondInView, NamesInView bool
	}
	measure := `(() => {
	  const wrap = document.querySelector('.compare-wrap');
	  const cell = document.querySelectorAll('.compare-table .overall-row td')[1];
	  const second = cell.getBoundingClientRect();
	  const shown = document.elementFromPoint((second.left + second.right) / 2, (second.top + second.bottom) / 2);
	  const names = document.querySelector('.compare-table th[scope="row"]').getBoundingClientRect();
	  return {
	    Cue: getComputedStyle(document.querySelector('.scroll-cue')).display !== 'none',
	    PageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
	    SecondInView: second.left >= 0 && second.right <= window.innerWidth + 1 && cell.contains(shown),
	    NamesInView: names.left >= 0 && names.right <= window.innerWidth,
	  };
	})()`
	var desk, phone, scrolled layout
	b.run(t, "desktop", browsertest.Emulate(browsertest.Desktop, "light"), chromedp.Evaluate(measure, &desk))
	if desk.Cue || desk.PageScrolls || !desk.SecondInView {
		t.Errorf("desktop: %+v, want both candidates in view and no cue", desk)
	}
	b.shot(t, "compare-desktop")
	b.run(t, "phone", browsertest.Emulate(browsertest.ScreenSizes[1], "light"),
		chromedp.Evaluate(measure, &phone))
	if !phone.Cue || phone.PageScrolls {
		t.Errorf("phone: %+v, want a cue and a page that does not scroll sideways", phone)
	}
	b.shot(t, "compare-phone")
	b.run(t, "scroll the table",
		chromedp.Evaluate(`(() => { const w = document.querySelector('.compare-wrap'); w.scrollLeft = w.scrollWidth; return w.scrollLeft > 0; })()`, nil),
		chromedp.Evaluate(measure, &scrolled))
	if !scrolled.SecondInView || !scrolled.NamesInView {
		t.Errorf("phone, table scrolled: %+v, want the second candidate and the competency names in view", scrolled)
	}
	b.shot(t, "compare-phone-scrolled")
	b.run(t, "reset the emulation", emulation.ClearDeviceMetricsOverride())
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}
