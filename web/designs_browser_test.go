package web

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// TestBrowserDesignFlow: in headless Chromium an admin writes a blueprint
// with a mistake and is shown its line, nothing saved; fixes it and
// previews it; saves it; then registers a candidate with it from the
// form, and the interview keeps the design's version.
func TestBrowserDesignFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	ts := newTestServer(t)
	web := httptest.NewServer(ts.Handler())
	t.Cleanup(web.Close)
	b := newReportBrowser(t)
	good := storetest.BlueprintYAML("billing", "Which release of the billing service did you ship last?") + `problems:
  - id: ledger
    title: a double-entry ledger
    statement: Design the ledger of a billing service.
`
	broken := strings.Replace(good, "limit: 2m", "limit: forever", 1)

	var problems string
	b.run(t, "a design with a mistake",
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + ts.tokens[testAdmin]}),
		chromedp.Navigate(web.URL+"/designs"),
		chromedp.Click(`a[href="/designs/new?kind=blueprint"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#content", chromedp.ByID),
		chromedp.SetValue("#name", "billing", chromedp.ByID),
		chromedp.SetValue("#content", broken, chromedp.ByID),
		chromedp.Click(`button[value="save"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#problems", chromedp.ByID),
		chromedp.Text("#problems", &problems, chromedp.ByID))
	if !strings.Contains(problems, "Line 8: stages[0].limit") || !strings.Contains(problems, "not saved") {
		t.Errorf("problems shown: %q", problems)
	}
	if list, _ := ts.store.Designs(t.Context(), interviews.KindBlueprint); len(list) != 0 {
		t.Fatalf("a design with a mistake was saved: %+v", list)
	}
	b.shot(t, "design-error")

	var preview string
	b.run(t, "fix and preview",
		chromedp.SetValue("#content", good, chromedp.ByID),
		chromedp.Click(`button[value="check"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#preview", chromedp.ByID),
		chromedp.Text("#preview", &preview, chromedp.ByID))
	for _, want := range []string{"Warm-up", "Which release of the billing service did you ship last?", "Wrap-up", "takes about"} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview lacks %q: %q", want, preview)
		}
	}
	b.shot(t, "design-preview")

	var heading string
	b.run(t, "save",
		chromedp.Click(`button[value="save"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`form[action="/designs/blueprint/billing/try"]`, chromedp.ByQuery),
		chromedp.Text("h1", &heading, chromedp.ByQuery))
	saved, err := ts.store.Design(t.Context(), interviews.KindBlueprint, "billing", "")
	if err != nil || heading != "blueprint billing" {
		t.Fatalf("saved %v, page %q", err, heading)
	}

	// The problems offered are those of the plan picked.
	pick := func(plan string, offered *[]string) chromedp.Action {
		return chromedp.Evaluate(`(() => {
			const plan = document.getElementById('blueprint');
			plan.value = `+strconv.Quote(plan)+`;
			plan.dispatchEvent(new Event('change'));
			if (document.getElementById('problem').closest('.field').hidden) return [];
			return [...document.querySelectorAll('#problem optgroup:not([hidden]) option')].map(o => o.value);
		})()`, offered)
	}
	var none, mine []string
	b.run(t, "the problems of the plan picked",
		chromedp.Navigate(web.URL+"/"),
		chromedp.WaitVisible("#name", chromedp.ByID),
		pick("default", &none),
		pick("billing", &mine))
	if len(none) != 0 || strings.Join(mine, ",") != "ledger" {
		t.Errorf("problems offered: %q for the default plan, %q for billing; want none and ledger", none, mine)
	}

	var result string
	b.run(t, "register a candidate with it",
		chromedp.SetValue("#name", "Ada Lovelace", chromedp.ByID),
		chromedp.SetValue("#role", "Backend engineer", chromedp.ByID),
		chromedp.SetValue("#blueprint", "billing", chromedp.ByID),
		chromedp.SetValue("#problem", "ledger", chromedp.ByID),
		chromedp.Submit("#name", chromedp.ByID),
		chromedp.WaitVisible("#join-url", chromedp.ByID),
		chromedp.Text("dl.facts", &result, chromedp.ByQuery))
	if !strings.Contains(result, "billing (version "+saved.ShortVersion()+")") {
		t.Errorf("the invitation page does not name the design and its version: %q", result)
	}
	page, _ := ts.store.List(t.Context(), interviews.ListOptions{})
	if page.Total != 1 {
		t.Fatalf("%d interviews registered", page.Total)
	}
	rec, err := ts.store.Get(t.Context(), page.Items[0].ID)
	if err != nil || rec.Blueprint != "billing" || rec.BlueprintVersion != saved.Version || rec.Problem != "ledger" {
		t.Errorf("registered %s@%s (%v), want billing@%s", rec.Blueprint, rec.BlueprintVersion, err, saved.Version)
	}
}
