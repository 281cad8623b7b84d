package web

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/web/reportpdf"
)

// fullestReport is a report as long as a report gets: every list at its
// bound, long rationales and quotes, gaps and unclear answers; typed.
func fullestReport(at time.Time) *interviews.Report {
	rep := fixtureReport(at)
	long := strings.Repeat("A rationale that says what the evidence was and why it scores so. ", 3)
	quote := strings.Repeat("I moved the billing jobs to a queue and it cut failures by 30%, ", 3)
	for i := range rep.Competencies {
		rep.Competencies[i].Rationale = long
	}
	rep.Competencies = append(rep.Competencies, interviews.Competency{Name: "ownership", Score: 66, Rationale: long})
	rep.Strengths, rep.Improvements = nil, nil
	for i := range 3 {
		rep.Strengths = append(rep.Strengths, interviews.Point{Text: fmt.Sprintf("Strength %d, said in one sentence about the candidate.", i), Quote: quote})
		rep.Improvements = append(rep.Improvements, interviews.Point{Text: fmt.Sprintf("Concern %d, said in one sentence about the candidate.", i), Quote: quote})
	}
	rep.KeyQuestions = nil
	for i := range 8 {
		rep.KeyQuestions = append(rep.KeyQuestions, interviews.QuestionFeedback{QuestionID: "q2", Question: fmt.Sprintf("Key question %d: tell me about a system you built and what limited it?", i),
			Good: "Answered fully and specifically.", Missing: "The scale of their Python work is still unknown.", Quote: quote})
	}
	rep.UnresolvedGaps = []string{"the scale of their Python work", "whether their Rust work ran in production", "how long they have used Kafka"}
	rep.UnclearTurns = []int{2, 4}
	rep.Stats.TypedAnswers, rep.Stats.SpokenAnswers, rep.Stats.TalkTimeRatio = 2, 0, 0
	return rep
}

// TestScorecardPDF: the PDF is a scorecard of one or two pages, however
// long the report, opening with the decision and its note, quoting the
// candidate, with figures that fit a typed interview.
func TestScorecardPDF(t *testing.T) {
	ts := newTestServer(t)
	r := withReport(t, ts, "Zoë Bérénice", fullestReport(ts.clock.Now()), interviews.DecisionHold, interviews.DecisionAdvance)
	rec, err := ts.store.Get(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	doc := scorecard(rec, newReportView(rec), newDecisionsView(rec), ts.clock.Now())
	var headings []string
	var text strings.Builder
	for _, s := range doc.Sections {
		headings = append(headings, s.Heading)
		for _, l := range s.Lines {
			text.WriteString(l.Text + "\n")
		}
	}
	if got := strings.Join(headings, ", "); got != "Decision, Verdict, Competencies, Strengths, Concerns, Key questions, Figures" {
		t.Errorf("sections %s", got)
	}
	if l := doc.Sections[0].Lines; len(l) != 2 || !strings.HasPrefix(l[0].Text, "Advance — by "+testReviewer) || l[1].Text != "note advance" {
		t.Errorf("decision %+v", l)
	}
	for _, want := range []string{"“I moved the billing jobs", "… and 3 more on the interview's page.", "2 answers (typed)", "2 answers not quoted nor judged"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the scorecard lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "talk time") {
		t.Error("a typed interview's scorecard gives a talk time")
	}
	resp := ts.get("/review/"+r.ID+"/report.pdf", "Authorization", "Bearer "+testReviewerToken)
	if n := reportpdf.CountPages(resp.Body.Bytes()); n < 1 || n > 2 {
		t.Errorf("the fullest scorecard has %d pages, want one or two", n)
	}
	var buf bytes.Buffer
	if err := reportpdf.Write(&buf, doc); err != nil || reportpdf.CountPages(buf.Bytes()) != reportpdf.CountPages(resp.Body.Bytes()) {
		t.Errorf("the served PDF is not the scorecard (err %v)", err)
	}
}

// TestReportPageTrust: the report on the interview's page lists the
// answers it did not judge with links to them, quotes the candidate under
// each key question, calls the improvements concerns and gives a typed
// interview no talk time.
func TestReportPageTrust(t *testing.T) {
	ts := newTestServer(t)
	r := withReport(t, ts, "Typed Person", fullestReport(ts.clock.Now()))
	body := ts.reviewerGet(t, "/review/"+r.ID)
	for _, want := range []string{
		`<h3 id="unclear-h">Not judged: unsure transcripts</h3>`,
		`<a href="#turn-2">Answer at turn 2</a>`, `<a href="#turn-4">Answer at turn 4</a>`,
		`<h3 id="improvements-h">Concerns</h3>`,
		"<dd>2 (typed)</dd>",
		`</a></p><blockquote class="evidence">“I moved the billing jobs`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(body, "talk time") {
		t.Error("a typed interview's report gives a talk time")
	}
}

// TestReviewDetailVerdictFirst: the interview's page opens with the
// verdict — score and headline, competencies, strengths and concerns
// with quotes — and the decision form; the key questions and figures,
// then the room, engines and consent are folded below, before the
// timeline.
func TestReviewDetailVerdictFirst(t *testing.T) {
	ts := newTestServer(t)
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()))
	r.Consent = &interviews.Consent{At: ts.clock.Now(), Version: "sha256:0123456789ab", Text: "An AI interviewer conducts this interview."}
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.reviewerGet(t, "/review/"+r.ID)
	order := []string{
		`<section class="verdict with-decision" id="verdict"`,
		`<strong>72</strong><span> / 100</span>`,
		"Clear communicator, light on trade-offs",
		`<h3 id="comp-h">Competencies</h3>`,
		`<h3 id="strengths-h">Strengths</h3>`, "“I built a difference engine”",
		`<h3 id="improvements-h">Concerns</h3>`,
		`<form class="decision-form"`,
		`id="summary"`,
		`<details class="report-more" id="report-more">`, `<h3 id="kq-h">Key questions</h3>`,
		`<details class="interview-details" id="details">`, "<dt>Consent</dt>", "<code>" + r.Room + "</code>", "<dt>Engines</dt>",
		`id="timeline"`,
	}
	last := -1
	for _, want := range order {
		i := strings.Index(body, want)
		if i < 0 {
			t.Errorf("page lacks %q", want)
			continue
		}
		if i < last {
			t.Errorf("%q comes before what precedes it in the verdict-first order", want)
		}
		last = i
	}
}
