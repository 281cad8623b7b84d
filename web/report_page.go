package web

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// reportPages are the printable report of one interview (page and PDF)
// and the comparison of candidates.
type reportPages struct {
	records
}

// reportView is a feedback report as the reviewer, printable and PDF
// pages show it: in words, scores rounded, quotes linked to the turns
// they come from.
type reportView struct {
	Pending, Ready, Failed bool
	// StatusLabel says where the report is ("Being written").
	StatusLabel string
	// Error says why the last attempt failed.
	Error    string
	Attempts int
	// NextAttempt is when a pending report is tried again; nil when not
	// scheduled.
	NextAttempt *time.Time
	// ByLabel says what wrote it: "Basic report …" or "Written by …".
	ByLabel     string
	Version     int
	GeneratedAt *time.Time
	// Knowledge is true for a knowledge capture: Topics replace scores.
	Knowledge bool
	Overall   int
	Headline  string

	Competencies   []competencyView
	Strengths      []pointView
	Improvements   []pointView
	KeyQuestions   []keyQuestionView
	STAR           []starView
	Stats          statsView
	Stages         []stageCoverageView
	RubricCoverage int
	Gaps           []string
	Topics         []interviews.SummaryTopic
	// Unclear are the answers the speech recogniser was unsure of: not
	// quoted nor judged, linked for the reviewer to listen to.
	Unclear []unclearView
}

// unclearView is an answer whose transcript the report did not trust.
type unclearView struct {
	Label string
	Href  string
}

// competencyView is one scored competency.
type competencyView struct {
	Name      string
	Score     int
	Rationale string
}

// pointView is a strength or improvement with its quote and the turn the
// quote comes from.
type pointView struct {
	Text  string
	Quote string
	// Href is "#turn-N", the candidate's turn; empty when unknown.
	Href string
}

// keyQuestionView is feedback on one key question.
type keyQuestionView struct {
	Question string
	Good     string
	Missing  string
	// Quote is the candidate's words, verbatim.
	Quote string
	Href  string
}

// starView is the STAR structure of one behavioural answer.
type starView struct {
	Question string
	Href     string
	Parts    []starPart
	// Complete is true when all four parts were there.
	Complete bool
}

// starPart is one of Situation, Task, Action, Result and whether the
// answer had it.
type starPart struct {
	Label   string
	Present bool
}

// statsView are the transcript's figures in words.
type statsView struct {
	Answers     int
	FillerWords int
	// Mode says how the candidate answered: "spoken", "typed", "spoken
	// and typed"; TalkTime is false when no answer was spoken, when the
	// talk time means nothing.
	Mode            string
	TalkTime        bool
	TalkTimePercent int
	MeanWords       string
	MedianWords     string
	MaxWords        int
}

// stageCoverageView is how one stage went.
type stageCoverageView struct {
	Title     string
	Questions int
	Forced    bool
}

// reportStatusLabels are the human words of interviews.ReportStatus.
var reportStatusLabels = map[interviews.ReportStatus]string{
	interviews.ReportPending: "Being written",
	interviews.ReportReady:   "Ready",
	interviews.ReportFailed:  "Failed",
}

// basicReportLabel says what the offline report is.
const basicReportLabel = "Basic report: computed offline from the answers' analyses, the rubric and the transcript"

// newReportView arranges rec's report for the pages; nil when the record
// has none.
func newReportView(rec *interviews.Record) *reportView {
	r := rec.Report
	if r == nil {
		return nil
	}
	v := &reportView{
		Pending: r.Status == interviews.ReportPending, Ready: r.Status == interviews.ReportReady, Failed: r.Status == interviews.ReportFailed,
		StatusLabel: reportStatusLabels[r.Status], Error: r.Error, Attempts: r.Attempts, NextAttempt: r.NextAttempt,
		Version: r.Version, GeneratedAt: r.GeneratedAt,
		Knowledge: len(r.Topics) > 0 || knowledgeCapture(rec.Blueprint),
		Overall:   score100(r.OverallScore), Headline: r.Headline,
		RubricCoverage: percent(r.RubricCoverage), Gaps: r.UnresolvedGaps, Topics: r.Topics,
	}
	if v.StatusLabel == "" {
		v.StatusLabel = interviews.Humanize(string(r.Status))
	}
	switch {
	case r.Basic:
		v.ByLabel = basicReportLabel
	case r.Model != "":
		v.ByLabel = "Written by " + r.Model + prefixed(", prompt ", r.PromptVersion)
	}
	turns := newTurnFinder(rec)
	for _, c := range r.Competencies {
		v.Competencies = append(v.Competencies, competencyView{Name: interviews.Humanize(c.Name), Score: score100(c.Score), Rationale: c.Rationale})
	}
	point := func(p interviews.Point) pointView {
		return pointView{Text: p.Text, Quote: p.Quote, Href: turns.answer(p.Quote, p.QuestionID)}
	}
	for _, p := range r.Strengths {
		v.Strengths = append(v.Strengths, point(p))
	}
	for _, p := range r.Improvements {
		v.Improvements = append(v.Improvements, point(p))
	}
	for _, q := range r.KeyQuestions {
		text := q.Question
		if text == "" {
			text = turns.questionText(q.QuestionID)
		}
		v.KeyQuestions = append(v.KeyQuestions, keyQuestionView{Question: text, Good: q.Good, Missing: q.Missing, Quote: q.Quote,
			Href: turns.answer(q.Quote, q.QuestionID)})
	}
	for _, s := range r.STAR {
		sv := starView{Question: turns.questionText(s.QuestionID), Href: turns.answer("", s.QuestionID),
			Parts:    []starPart{{"Situation", s.Situation}, {"Task", s.Task}, {"Action", s.Action}, {"Result", s.Result}},
			Complete: s.Situation && s.Task && s.Action && s.Result}
		v.STAR = append(v.STAR, sv)
	}
	v.Stats = newStatsView(r.Stats)
	for _, seq := range r.UnclearTurns {
		v.Unclear = append(v.Unclear, unclearView{Label: fmt.Sprintf("Answer at turn %d", seq), Href: turnAnchor(seq)})
	}
	for _, sc := range r.Stages {
		title := sc.Title
		if title == "" {
			title = rec.StageTitle(sc.Stage)
		}
		v.Stages = append(v.Stages, stageCoverageView{Title: title, Questions: sc.Questions, Forced: sc.Forced})
	}
	return v
}

// newStatsView puts the transcript's figures in words. A report from
// before answers were counted by mode counts them all as spoken.
func newStatsView(st interviews.TranscriptStats) statsView {
	v := statsView{
		Answers: st.Answers, FillerWords: st.FillerWords, TalkTimePercent: percent(st.TalkTimeRatio),
		MeanWords: oneDecimal(st.MeanAnswerWords), MedianWords: oneDecimal(st.MedianAnswerWord), MaxWords: st.MaxAnswerWords,
	}
	switch {
	case st.TypedAnswers > 0 && st.SpokenAnswers > 0:
		v.Mode, v.TalkTime = "spoken and typed", true
	case st.TypedAnswers > 0:
		v.Mode = "typed"
	default:
		v.Mode, v.TalkTime = "spoken", true
	}
	return v
}

// linkFrom makes the links to turns point into the timeline at page, for
// a page without the timeline (the printable report).
func (v *reportView) linkFrom(page string) {
	fix := func(href *string) {
		if *href != "" {
			*href = page + *href
		}
	}
	for i := range v.Strengths {
		fix(&v.Strengths[i].Href)
	}
	for i := range v.Improvements {
		fix(&v.Improvements[i].Href)
	}
	for i := range v.KeyQuestions {
		fix(&v.KeyQuestions[i].Href)
	}
	for i := range v.STAR {
		fix(&v.STAR[i].Href)
	}
	for i := range v.Unclear {
		fix(&v.Unclear[i].Href)
	}
}

// score100 rounds a 0–100 score to a whole number, clamped.
func score100(v float64) int {
	if math.IsNaN(v) {
		return 0
	}
	return int(math.Round(min(max(v, 0), 100)))
}

// oneDecimal shows a figure with at most one decimal, "12.5", "12".
func oneDecimal(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// turnFinder finds the candidate's turn a quote or an answer comes from.
type turnFinder struct {
	rec *interviews.Record
	qi  questionIndex
}

func newTurnFinder(rec *interviews.Record) turnFinder {
	return turnFinder{rec: rec, qi: newQuestionIndex(rec)}
}

// answer returns the anchor of the candidate turn that holds quote, else
// of the first candidate turn after the turn asking questionID; empty
// when neither is found.
func (f turnFinder) answer(quote, questionID string) string {
	if q := strings.ToLower(strings.Trim(strings.TrimSpace(quote), `"“”…. `)); q != "" {
		for _, t := range f.rec.Turns {
			if t.Role == interviews.RoleCandidate && strings.Contains(strings.ToLower(t.Text), q) {
				return turnAnchor(t.Seq)
			}
		}
	}
	asked, ok := f.qi.turnOf[questionID]
	if !ok {
		return ""
	}
	for _, t := range f.rec.Turns {
		if t.Seq > asked && t.Role == interviews.RoleCandidate {
			return turnAnchor(t.Seq)
		}
	}
	return ""
}

// questionText is the text of question id; the id when unknown.
func (f turnFinder) questionText(id string) string {
	if q, ok := f.qi.byID[id]; ok && q.Text != "" {
		return q.Text
	}
	return id
}

// decisionLabels are the human words of interviews.DecisionKind.
var decisionLabels = map[interviews.DecisionKind]string{
	interviews.DecisionAdvance: "Advance",
	interviews.DecisionHold:    "Hold",
	interviews.DecisionReject:  "Reject",
}

// decisionKinds are the decisions in the order the form offers them.
var decisionKinds = []interviews.DecisionKind{interviews.DecisionAdvance, interviews.DecisionHold, interviews.DecisionReject}

// decisionLabel is the human word of a decision; "—" for none.
func decisionLabel(d interviews.DecisionKind) string {
	if l, ok := decisionLabels[d]; ok {
		return l
	}
	if d == "" {
		return "—"
	}
	return interviews.Humanize(string(d))
}

// decisionClass is the CSS class of a decision badge.
func decisionClass(d interviews.DecisionKind) string {
	if d.Valid() {
		return "decision-" + string(d)
	}
	return "decision-none"
}

// auditLabels are the human words of the audit actions.
var auditLabels = map[string]string{
	interviews.AuditDecision:          "Decision recorded",
	interviews.AuditReportGenerated:   "Report written",
	interviews.AuditReportRegenerate:  "New report requested",
	interviews.AuditReportFailed:      "Report failed",
	interviews.AuditWebhookDelivered:  "Hiring system notified",
	interviews.AuditWebhookFailed:     "Hiring system not reached",
	interviews.AuditFeedbackEmailed:   "Feedback emailed to the candidate",
	interviews.AuditFeedbackEmailFail: "Feedback email failed",
}

// auditLabel is the human words of an audit action.
func auditLabel(action string) string {
	if l, ok := auditLabels[action]; ok {
		return l
	}
	return interviews.Humanize(strings.ReplaceAll(action, ".", " "))
}

// whoLabel names who did something: a reviewer's email, the shared
// password's user or the system.
func whoLabel(who string) string {
	switch who {
	case SharedPasswordUser:
		return "Shared reviewer password"
	case interviews.AuditSystem:
		return "viva (automatic)"
	}
	return who
}

// decisionView is one recorded decision in words.
type decisionView struct {
	Label         string
	Class         string
	Note          string
	By            string
	At            time.Time
	ReportVersion int
}

// auditView is one audit entry in words.
type auditView struct {
	At            time.Time
	Who           string
	What          string
	Detail        string
	ReportVersion int
	Model         string
}

// decisionOption is one choice of the decision form.
type decisionOption struct {
	Value string
	Label string
}

// decisionsView is the decision form, the decisions and the audit list,
// newest first.
type decisionsView struct {
	Latest    *decisionView
	History   []decisionView
	Audit     []auditView
	Options   []decisionOption
	ActionURL string
	// RegenerateURL asks for a new report.
	RegenerateURL string
}

func newDecisionsView(rec *interviews.Record) decisionsView {
	v := decisionsView{ActionURL: "/review/" + rec.ID + "/decision", RegenerateURL: "/review/" + rec.ID + "/report/regenerate"}
	for _, k := range decisionKinds {
		v.Options = append(v.Options, decisionOption{Value: string(k), Label: decisionLabel(k)})
	}
	for i := len(rec.Decisions) - 1; i >= 0; i-- {
		d := rec.Decisions[i]
		v.History = append(v.History, decisionView{Label: decisionLabel(d.Decision), Class: decisionClass(d.Decision), Note: d.Note, By: whoLabel(d.By), At: d.At, ReportVersion: d.ReportVersion})
	}
	if len(v.History) > 0 {
		v.Latest = &v.History[0]
	}
	for i := len(rec.Audit) - 1; i >= 0; i-- {
		a := rec.Audit[i]
		v.Audit = append(v.Audit, auditView{At: a.At, Who: whoLabel(a.Who), What: auditLabel(a.Action), Detail: a.Detail, ReportVersion: a.ReportVersion, Model: a.Model})
	}
	return v
}

// printPage is the data of report.html, the printable report.
type printPage struct {
	view
	Rec       *interviews.Record
	Blueprint string
	Report    *reportView
	Decisions decisionsView
	PDFURL    string
	BackURL   string
}

// handleReportPrint serves /review/{id}/report, the printable report.
func (s *reportPages) handleReportPrint(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), false)
	if rec == nil {
		return
	}
	rec = rec.Public()
	p := printPage{
		view:      view{Title: "Report — " + rec.Candidate.Name, SignedIn: true},
		Rec:       rec,
		Blueprint: blueprintTitle(rec.Blueprint),
		Report:    newReportView(rec),
		Decisions: newDecisionsView(rec),
		PDFURL:    "/review/" + rec.ID + "/report.pdf",
		BackURL:   "/review/" + rec.ID,
	}
	if p.Report != nil {
		p.Report.linkFrom(p.BackURL)
		p.Refresh = p.Report.Pending
	}
	s.render(w, r, http.StatusOK, "report.html", p)
}

// nonEmpty returns the values that are not empty or "—".
func nonEmpty(values ...string) []string {
	var out []string
	for _, v := range values {
		if v != "" && v != "—" {
			out = append(out, v)
		}
	}
	return out
}

// routes registers the printable report and the comparison.
func (s *reportPages) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("GET /review/compare", g.review(s.handleCompare))
	mux.HandleFunc("GET /review/{id}/report", g.review(s.handleReportPrint))
	mux.HandleFunc("GET /review/{id}/report.pdf", g.review(s.handleReportPDF))
}
