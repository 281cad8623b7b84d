package web

import (
	"bytes"
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/web/reportpdf"
)

// fixtureReport is a ready report written by a model on detailRecord's
// interview, made by hand.
func fixtureReport(at time.Time) *interviews.Report {
	return &interviews.Report{
		Status: interviews.ReportReady, Version: 2, Attempts: 1,
		Model: "openai:gpt-4o-mini", PromptVersion: "report-v1", GeneratedAt: &at,
		OverallScore: 72.4, Headline: "Clear communicator, light on trade-offs",
		Competencies: []interviews.Competency{
			{Name: "communication", Score: 81, Rationale: "Answers were direct and well paced."},
			{Name: "technical depth", Score: 58.6, Rationale: "Named the engine but not its limits."},
			{Name: "structure of answers", Score: 70, Rationale: "Mostly situation and action."},
			{Name: "role fit", Score: 75, Rationale: "Built systems like the team's."},
		},
		Strengths:      []interviews.Point{{Text: "Names concrete work", Quote: "I built a difference engine", QuestionID: "q2"}, {Text: "Calm opening", Quote: "Very well, thank you."}},
		Improvements:   []interviews.Point{{Text: "Explain trade-offs", QuestionID: "q2"}, {Text: "Give numbers"}},
		KeyQuestions:   []interviews.QuestionFeedback{{QuestionID: "q2", Good: "A real system.", Missing: "Scale and limits."}},
		STAR:           []interviews.STAR{{QuestionID: "q2", Situation: true, Action: true}},
		Stats:          interviews.TranscriptStats{FillerWords: 3, TalkTimeRatio: 0.42, Answers: 2, MeanAnswerWords: 4.5, MedianAnswerWord: 4.5, MaxAnswerWords: 5},
		Stages:         []interviews.StageCoverage{{Stage: "greeting", Questions: 1}, {Stage: "intro", Questions: 1, Forced: true}},
		RubricCoverage: 0.5, UnresolvedGaps: []string{"Python — scale"},
	}
}

// withReport gives detailRecord's record rep, decisions and an audit.
func withReport(t *testing.T, ts *testServer, name string, rep *interviews.Report, decisions ...interviews.DecisionKind) *interviews.Record {
	t.Helper()
	r := detailRecord(t, ts, interviews.StatusCompleted)
	r.Candidate.Name = name
	r.Report = rep
	at := ts.clock.Now().Add(time.Hour)
	r.Audit = append(r.Audit, interviews.AuditEntry{At: at, Who: "viva", Action: interviews.AuditReportGenerated, ReportVersion: rep.Version, Model: rep.Model})
	for i, d := range decisions {
		r.Decisions = append(r.Decisions, interviews.Decision{Decision: d, Note: "note " + string(d), By: testReviewer, At: at.Add(time.Duration(i+1) * time.Minute), ReportVersion: rep.Version})
		r.Audit = append(r.Audit, interviews.AuditEntry{At: at.Add(time.Duration(i+1) * time.Minute), Who: testReviewer, Action: interviews.AuditDecision, Detail: string(d)})
	}
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (ts *testServer) reviewerGet(t *testing.T, path string) string {
	t.Helper()
	rec := ts.get(path, "Authorization", "Bearer "+testReviewerToken)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: status %d\n%s\n%s", path, rec.Code, rec.Body, ts.logs)
	}
	return rec.Body.String()
}

func TestReviewDetailShowsTheReport(t *testing.T) {
	ts := newTestServer(t)
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()), interviews.DecisionHold, interviews.DecisionAdvance)
	body := ts.reviewerGet(t, "/review/"+r.ID)
	for _, want := range []string{
		`<h2 id="report-h">Feedback report</h2>`,
		`<strong>72</strong><span> / 100</span>`,
		"Clear communicator, light on trade-offs",
		"Written by openai:gpt-4o-mini, prompt report-v1",
		`<span class="competency-name">Technical depth</span> <span class="score">59</span>`,
		`value="81"`,
		"Named the engine but not its limits.",
		"“I built a difference engine”",
		`<a href="#turn-4">Read the answer</a>`, // the quote's turn
		`<a href="#turn-2">Read the answer</a>`, // the calm opening
		`<a href="#turn-4">Tell me about a system you built.</a>`,
		"<strong>Missing:</strong> Scale and limits.",
		`<span class="badge star-yes">✓ Situation</span>`,
		`<span class="badge star-no">✗ Task</span>`,
		"mean 4.5 words, median 4.5, longest 5",
		"<dd>42 %</dd>", "<dd>50 %</dd>",
		`Introduction</span> — 1 question <span class="badge badge-forced">moved on by the timer</span>`,
		"Python — scale",
		`Latest: <span class="badge decision-advance">Advance</span> by ` + testReviewer,
		"note hold", "Decision recorded", "Report written", "viva (automatic)",
		`name="decision" value="reject"`,
		`href="/review/` + r.ID + `/report"`, `href="/review/` + r.ID + `/report.pdf"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Index(body, "note advance") > strings.Index(body, "note hold") {
		t.Error("the decisions are not newest first")
	}
	for _, code := range []string{"technical depth<", "report.generated", "decision.recorded", ">advance<", "openai:gpt-4o-mini, prompt report-v1 ·"} {
		if strings.Contains(body, code) {
			t.Errorf("page shows the code %q", code)
		}
	}
}

func TestReviewDetailReportStates(t *testing.T) {
	ts := newTestServer(t)
	pending := withReport(t, ts, "Pending Person", &interviews.Report{Status: interviews.ReportPending, Version: 1})
	body := ts.reviewerGet(t, "/review/"+pending.ID)
	for _, want := range []string{"Being written", "The report is being written", `http-equiv="refresh"`} {
		if !strings.Contains(body, want) {
			t.Errorf("pending: page lacks %q", want)
		}
	}
	failed := withReport(t, ts, "Failed Person", &interviews.Report{Status: interviews.ReportFailed, Version: 1, Attempts: 3, Error: "the model answered 503 three times"})
	body = ts.reviewerGet(t, "/review/"+failed.ID)
	for _, want := range []string{"The report could not be written</strong> after 3 attempts", "the model answered 503 three times", "Regenerate the report", `action="/review/` + failed.ID + `/report/regenerate"`} {
		if !strings.Contains(body, want) {
			t.Errorf("failed: page lacks %q", want)
		}
	}
	basic := fixtureReport(ts.clock.Now())
	basic.Basic, basic.Model, basic.PromptVersion = true, "", ""
	b := withReport(t, ts, "Basic Person", basic)
	if body := ts.reviewerGet(t, "/review/"+b.ID); !strings.Contains(body, html.EscapeString(basicReportLabel)) {
		t.Error("the basic report is not labelled")
	}
	know := &interviews.Report{Status: interviews.ReportReady, Version: 1, Basic: true, Headline: "What Kim knows",
		Topics: []interviews.SummaryTopic{{Title: "Deploys", Points: []string{"Deploys run nightly."}}}}
	k := withReport(t, ts, "Kim Knows", know)
	body = ts.reviewerGet(t, "/review/"+k.ID)
	if !strings.Contains(body, "Deploys run nightly.") || strings.Contains(body, "/ 100") || strings.Contains(body, "Competencies") {
		t.Error("a knowledge capture's report does not show its topics instead of scores")
	}
}

func TestPrintableReportAndPDF(t *testing.T) {
	ts := newTestServer(t)
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()), interviews.DecisionReject)
	body := ts.reviewerGet(t, "/review/"+r.ID+"/report")
	for _, want := range []string{`class="page print-page"`, "<h1>Zoë Bérénice</h1>", "Decision: <span class=\"badge decision-reject\">Reject</span>", "Competencies", "Give numbers", `href="/review/` + r.ID + `#turn-4"`} {
		if !strings.Contains(body, want) {
			t.Errorf("printable page lacks %q", want)
		}
	}
	rec := ts.get("/review/"+r.ID+"/report.pdf", "Authorization", "Bearer "+testReviewerToken)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/pdf" {
		t.Fatalf("PDF: status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	data := rec.Body.Bytes()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Fatalf("the PDF starts with %q", data[:min(16, len(data))])
	}
	if n := reportpdf.CountPages(data); n != 1 {
		t.Errorf("the PDF of a short report has %d pages, want one", n)
	}
	var name strings.Builder
	for _, c := range "Zoë Bérénice" {
		name.WriteString(hex4(c))
	}
	if !bytes.Contains(data, []byte(name.String())) {
		t.Error("the PDF does not carry the candidate's name")
	}
	if got := ts.get("/review/" + r.ID + "/report.pdf").Code; got == http.StatusOK {
		t.Error("the PDF is served without signing in")
	}
	p := withReport(t, ts, "Pending Person", &interviews.Report{Status: interviews.ReportPending, Version: 1})
	if got := ts.get("/review/"+p.ID+"/report.pdf", "Authorization", "Bearer "+testReviewerToken).Code; got != http.StatusConflict {
		t.Errorf("a pending report's PDF: status %d, want 409", got)
	}
}

func hex4(r rune) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}

func TestListSortsByScoreAndDecision(t *testing.T) {
	ts := newTestServer(t)
	low := fixtureReport(ts.clock.Now())
	low.OverallScore = 40
	withReport(t, ts, "Low Score", low, interviews.DecisionReject)
	ts.clock.Advance(time.Minute)
	withReport(t, ts, "High Score", fixtureReport(ts.clock.Now()), interviews.DecisionHold)
	ts.clock.Advance(time.Minute)
	withReport(t, ts, "No Report", &interviews.Report{Status: interviews.ReportPending, Version: 1}, interviews.DecisionAdvance)
	ts.clock.Advance(time.Minute)
	detailRecord(t, ts, interviews.StatusCompleted) // Ada: no report, no decision

	order := func(body string, names ...string) bool {
		last := -1
		for _, n := range names {
			i := strings.Index(body, ">"+n+"</a>")
			if i < last {
				return false
			}
			last = i
		}
		return true
	}
	body := ts.reviewerGet(t, "/review?sort=score")
	if !order(body, "High Score", "Low Score", "Ada Lovelace", "No Report") { // unscored: newest first
		t.Errorf("by score: wrong order")
	}
	for _, want := range []string{`<td data-label="Score" class="num">72</td>`, `<span class="badge decision-hold">Hold</span>`, "highest score first", `href="/review?sort=decision"`} {
		if !strings.Contains(body, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	body = ts.reviewerGet(t, "/review?sort=decision")
	if !order(body, "No Report", "High Score", "Low Score", "Ada Lovelace") {
		t.Errorf("by decision: wrong order")
	}
	body = ts.reviewerGet(t, "/review?role=backend&sort=score")
	if !strings.Contains(body, `href="/review/compare?role=backend"`) || !strings.Contains(body, `href="/review?role=backend&amp;sort=decision"`) {
		t.Error("the filtered list does not link the comparison and keep its filter in the sort links")
	}
}

func TestCompareByRole(t *testing.T) {
	ts := newTestServer(t)
	low := fixtureReport(ts.clock.Now())
	low.OverallScore = 40
	low.Competencies = append(low.Competencies[:1:1], interviews.Competency{Name: "system design", Score: 33})
	withReport(t, ts, "Low Score", low)
	withReport(t, ts, "High Score", fixtureReport(ts.clock.Now()), interviews.DecisionAdvance)
	withReport(t, ts, "No Report", &interviews.Report{Status: interviews.ReportPending, Version: 1})
	body := ts.reviewerGet(t, "/review/compare?"+url.Values{"role": {"Backend engineer"}}.Encode())
	hi, lo := strings.Index(body, ">High Score</a>"), strings.Index(body, ">Low Score</a>")
	if hi < 0 || lo < hi {
		t.Fatalf("columns missing or not best first (%d, %d)", hi, lo)
	}
	if strings.Contains(body, "No Report") {
		t.Error("an interview without a ready report is compared")
	}
	for _, want := range []string{"<th scope=\"row\">Technical depth</th>", "<th scope=\"row\">System design</th>", "<td>—</td>", `value="33"`, "decision-advance"} {
		if !strings.Contains(body, want) {
			t.Errorf("comparison lacks %q", want)
		}
	}
}

// practice makes r a practice interview: its options give the candidate
// their feedback page, with the scores when scores is set.
func practice(r *interviews.Record, scores bool) {
	r.Options = &interviews.Options{Feedback: new(true), FeedbackScores: new(scores)}
}

func TestCandidateFeedbackPage(t *testing.T) {
	ts := newTestServer(t)
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()))
	if got := ts.get("/interview/" + r.ID + "/feedback").Code; got != http.StatusNotFound {
		t.Errorf("a plan without candidate feedback: status %d, want 404", got)
	}
	practice(r, false)
	// Points written to the reviewer about the candidate, as the basic
	// report and the model write them.
	r.Report.Strengths = append(r.Report.Strengths, interviews.Point{Text: "Clear ownership: an answer says what the candidate did themselves."})
	r.Report.Improvements = append(r.Report.Improvements,
		interviews.Point{Text: "Stayed general: an answer gave no example, no part of the candidate's own and no outcome; worth probing."},
		interviews.Point{Text: "The candidate has not said how the outage ended."})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	rec := ts.get("/interview/" + r.ID + "/feedback")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{"Your interview feedback", "Names concrete work", "You said: “I built a difference engine”", "Explain trade-offs", "Tell me about a system you built.", "<strong>Next time, add:</strong> Scale and limits."} {
		if !strings.Contains(body, want) {
			t.Errorf("feedback lacks %q", want)
		}
	}
	for _, want := range []string{"says what you did yourself.", "no part of your own and no outcome; an example of what you did", "You have not said how the outage ended."} {
		if !strings.Contains(body, want) {
			t.Errorf("feedback does not address the candidate: lacks %q", want)
		}
	}
	for _, unwanted := range []string{"/ 100", "Competencies", "#turn-", "Sign out", `href="/review"`, "openai", "the candidate", "The candidate", "worth probing"} {
		if strings.Contains(body, unwanted) {
			t.Errorf("feedback shows %q", unwanted)
		}
	}
	if got := ts.get("/interview/unknown1234/feedback").Code; got != http.StatusNotFound {
		t.Errorf("an unknown link: status %d", got)
	}

	r.Report = &interviews.Report{Status: interviews.ReportPending, Version: 1}
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body = ts.get("/interview/" + r.ID + "/feedback").Body.String()
	if !strings.Contains(body, "being prepared") || !strings.Contains(body, `http-equiv="refresh"`) {
		t.Error("a pending report's feedback page does not say it is being prepared and refresh")
	}

	ts2 := newTestServer(t)
	r2 := withReport(t, ts2, "Sam Scores", fixtureReport(ts2.clock.Now()))
	practice(r2, true)
	if err := ts2.store.Save(t.Context(), r2); err != nil {
		t.Fatal(err)
	}
	body = ts2.get("/interview/" + r2.ID + "/feedback").Body.String()
	if !strings.Contains(body, "<strong>72</strong>") || !strings.Contains(body, "Technical depth") {
		t.Error("scores are not shown when the blueprint says so")
	}
}

func TestRoomPageOffersFeedbackLink(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusScheduled)
	if body := ts.get("/interview/" + r.ID).Body.String(); strings.Contains(body, "feedback-link") {
		t.Error("the room page offers feedback on a plan without it")
	}
	practice(r, false)
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.get("/interview/" + r.ID).Body.String()
	if !strings.Contains(body, `id="feedback-link"`) || !strings.Contains(body, `href="/interview/`+r.ID+`/feedback"`) {
		t.Errorf("the room page lacks the feedback link:\n%s", body)
	}
}

// recordingMailer keeps what it was asked to send.
type recordingMailer struct {
	mu   sync.Mutex
	sent []string
}

func (m *recordingMailer) Send(_ context.Context, to, subject, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, to+"|"+subject+"|"+text)
	return nil
}

func TestNotifyFeedbackReady(t *testing.T) {
	m := &recordingMailer{}
	ts := newTestServer(t, func(o *Options) { o.Mailer = m })
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()))
	if sent, err := ts.NotifyFeedbackReady(t.Context(), r); sent || err != nil {
		t.Errorf("a plan without feedback: sent %v, %v", sent, err)
	}
	practice(r, false)
	sent, err := ts.NotifyFeedbackReady(t.Context(), r)
	if !sent || err != nil {
		t.Fatalf("sent %v, %v", sent, err)
	}
	if len(m.sent) != 1 || !strings.HasPrefix(m.sent[0], "ada@example.com|Your interview feedback is ready|Hello Zoë Bérénice") ||
		!strings.Contains(m.sent[0], "https://interviews.example.com/interview/"+r.ID+"/feedback") {
		t.Errorf("sent %q", m.sent)
	}
	got, err := ts.store.Get(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := got.Audit[len(got.Audit)-1]
	if last.Action != interviews.AuditFeedbackEmailed || last.Who != interviews.AuditSystem || last.ReportVersion != 2 {
		t.Errorf("audit %+v", last)
	}
}

// fakeRequester records the reports requested.
type fakeRequester struct {
	mu  sync.Mutex
	ids []string
}

func (f *fakeRequester) Request(_ context.Context, id, who string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids = append(f.ids, id+" by "+who)
	return nil
}

func TestDecisionForm(t *testing.T) {
	reqs := &fakeRequester{}
	ts := newTestServer(t, func(o *Options) { o.Reports = reqs })
	r := withReport(t, ts, "Zoë Bérénice", fixtureReport(ts.clock.Now()))
	post := func(path string, form url.Values) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		ts.authorize(req, testReviewer)
		return ts.do(req).Result()
	}
	if res := post("/review/"+r.ID+"/decision", url.Values{"decision": {"maybe"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("an unknown decision: status %d", res.StatusCode)
	}
	res := post("/review/"+r.ID+"/decision", url.Values{"decision": {"advance"}, "note": {"strong on systems"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/review/"+r.ID+"#decisions" {
		t.Fatalf("status %d, location %q", res.StatusCode, res.Header.Get("Location"))
	}
	got, err := ts.store.Get(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Decisions); n != 1 || got.Decisions[0].By != testReviewer || got.Decisions[0].Note != "strong on systems" || got.Decisions[0].ReportVersion != 2 {
		t.Errorf("decisions %+v", got.Decisions)
	}
	if res := post("/review/"+r.ID+"/report/regenerate", nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/review/"+r.ID+"#report" {
		t.Errorf("regenerate: status %d", res.StatusCode)
	}
	if len(reqs.ids) != 1 || reqs.ids[0] != r.ID+" by "+testReviewer {
		t.Errorf("reports requested: %q", reqs.ids)
	}
	running := detailRecord(t, ts, interviews.StatusInProgress)
	if res := post("/review/"+running.ID+"/decision", url.Values{"decision": {"hold"}}); res.StatusCode != http.StatusConflict {
		t.Errorf("a decision on a running interview: status %d", res.StatusCode)
	}
	if res := post("/review/nosuchid1234/decision", url.Values{"decision": {"hold"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown interview: status %d", res.StatusCode)
	}
}
