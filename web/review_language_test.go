package web

import (
	"strings"
	"testing"
)

// TestReviewNamesLanguage: the reviewer page, the printable report and
// its PDF's subtitle of a Spanish interview say it was held in Spanish,
// beside its design and version, and the CSV export has a language
// column; an English interview's pages leave the language unsaid.
func TestReviewNamesLanguage(t *testing.T) {
	ts := newTestServer(t)
	es := withReport(t, ts, "Ada Lovelace", fixtureReport(ts.clock.Now()))
	es.Language = "es"
	if err := ts.store.Save(t.Context(), es); err != nil {
		t.Fatal(err)
	}
	en := withReport(t, ts, "Alan Turing", fixtureReport(ts.clock.Now()))

	detail := ts.reviewerGet(t, "/review/"+es.ID)
	if !strings.Contains(detail, ` · <span class="interview-language">in Spanish</span></p>`) {
		t.Errorf("the reviewer page of a Spanish interview does not say its language")
	}
	if report := ts.reviewerGet(t, "/review/"+es.ID+"/report"); !strings.Contains(report, " · in Spanish · ") {
		t.Errorf("the printable report of a Spanish interview does not say its language")
	}
	if got := designLabel(es); got != "Behavioural interview, in Spanish" {
		t.Errorf("the PDF's subtitle names %q", got)
	}
	if detail := ts.reviewerGet(t, "/review/"+en.ID); strings.Contains(detail, "interview-language") {
		t.Errorf("the reviewer page of an English interview names its language")
	}
	header, rows := csvExport(t, ts, "")
	if got, want := cell(header, rows[es.ID], "Language")+"/"+cell(header, rows[en.ID], "Language"), "Spanish/English"; got != want {
		t.Errorf("the CSV's languages are %s, want %s", got, want)
	}
}
