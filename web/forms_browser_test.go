package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRegistrationFormErrorsClear: on the registration form a field the
// server marked wrong stops being shown wrong as soon as the recruiter
// corrects it; the level choices are written as the rest of the form.
func TestRegistrationFormErrorsClear(t *testing.T) {
	sys := startSystem(t)
	b := newBrowser(t)
	var levels []string
	var before, after bool
	b.step(t, "sign in and submit a wrong email address",
		signIn(sys.web.URL+"/", e2eRecruiter),
		chromedp.WaitVisible(`#name`, chromedp.ByID),
		chromedp.Evaluate(`[...document.querySelectorAll('#level option')].map(o => o.textContent)`, &levels),
		chromedp.SendKeys(`#name`, "Ada Lovelace", chromedp.ByID),
		chromedp.SendKeys(`#role`, "Backend engineer", chromedp.ByID),
		chromedp.SendKeys(`#email`, "ada-at-example", chromedp.ByID),
		// The browser's own check would stop the form; the server's is tested.
		chromedp.Evaluate(`document.querySelector('main form').noValidate = true`, nil),
		chromedp.Click(`main form button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#email-error`, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('email').closest('.field').classList.contains('has-error')`, &before),
		chromedp.SendKeys(`#email`, "@example.com", chromedp.ByID),
		chromedp.WaitNotVisible(`#email-error`, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('email').closest('.field').classList.contains('has-error') || document.getElementById('email').hasAttribute('aria-invalid')`, &after),
	)
	if !before || after {
		t.Errorf("the email field shown wrong before correcting %v, after %v; want true then false", before, after)
	}
	for _, l := range levels {
		if l == "" || strings.ToUpper(l[:1]) != l[:1] {
			t.Errorf("level options %q: want each capitalised, as Not specified is", levels)
			break
		}
	}
	b.checkClean(t)
}
