package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// reviewPages are the reviewer's reading of interviews: the list (page,
// API and CSV), one interview as a timeline (page, live part, API) and its
// recordings.
type reviewPages struct {
	records
	findBlueprint blueprintFinder
	recordings    *recordings.Dir // nil: no recordings are played
}

// reviewPageSize is how many interviews a page of the reviewer list shows.
const reviewPageSize = 25

// listQuery is the reviewer list's filters, read from the query string.
type listQuery struct {
	Status string
	Role   string
	Query  string
	Page   int
	// Sort is the order: interviews.SortNewest, SortScore or SortDecision.
	Sort string
}

func readListQuery(q url.Values) listQuery {
	lq := listQuery{
		Status: strings.TrimSpace(q.Get("status")),
		Role:   interviews.CleanLine(q.Get("role")),
		Query:  interviews.CleanLine(q.Get("q")),
		Page:   1,
	}
	if !slices.Contains(interviews.Standings, interviews.Standing(lq.Status)) {
		lq.Status = ""
	}
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 1 {
		lq.Page = p
	}
	switch sort := q.Get("sort"); sort {
	case interviews.SortScore, interviews.SortDecision:
		lq.Sort = sort
	}
	return lq
}

// listOptions is what the list and its CSV ask the store for at now: the
// status filter is a standing, as every row shows one, so "Scheduled"
// leaves out the withdrawn and lapsed links.
func (lq listQuery) listOptions(now time.Time) interviews.ListOptions {
	opts := interviews.ListOptions{Role: lq.Role, Query: lq.Query, Sort: lq.Sort, At: now}
	if lq.Status != "" {
		opts = interviews.Standing(lq.Status).Narrow(opts)
	}
	return opts
}

// url returns the list page URL with these filters, on page.
func (lq listQuery) url(page int) string {
	v := url.Values{}
	if lq.Status != "" {
		v.Set("status", lq.Status)
	}
	if lq.Role != "" {
		v.Set("role", lq.Role)
	}
	if lq.Query != "" {
		v.Set("q", lq.Query)
	}
	if lq.Sort != "" {
		v.Set("sort", lq.Sort)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/review"
	}
	return "/review?" + v.Encode()
}

// csvURL is the CSV export of every interview these filters match.
func (lq listQuery) csvURL() string {
	_, query, _ := strings.Cut(lq.withSort(lq.Sort).url(1), "?")
	if query == "" {
		return "/review.csv"
	}
	return "/review.csv?" + query
}

// statusOption is one choice of the status filter.
type statusOption struct {
	Value    string
	Label    string
	Selected bool
}

// listPage is the data of review_list.html.
type listPage struct {
	view
	Filter   listQuery
	Statuses []statusOption
	Items    []listRow
	Total    int
	First    int // 1-based index of the first item shown
	Last     int
	PrevURL  string
	NextURL  string
	Filtered bool
	// SortScoreURL, SortDecisionURL and SortNewestURL reorder the list
	// with the same filters; OrderLabel says the current order.
	SortScoreURL, SortDecisionURL, SortNewestURL string
	OrderLabel                                   string
	// CompareURL compares the candidates of the role filtered on; empty
	// without a role filter.
	CompareURL string
	// CSVURL exports every interview these filters match as CSV.
	CSVURL string
}

// listRow is one interview of the list, with how it stands.
type listRow struct {
	interviews.Summary
	Standing interviews.Standing
}

func listRows(items []interviews.Summary, now time.Time) []listRow {
	out := make([]listRow, len(items))
	for i, sum := range items {
		out[i] = listRow{Summary: sum, Standing: sum.Standing(now)}
	}
	return out
}

// orderLabels say in words what each list order is.
var orderLabels = map[string]string{
	interviews.SortNewest:   "newest first",
	interviews.SortScore:    "highest score first",
	interviews.SortDecision: "by decision: advance, hold, reject",
}

// withSort returns lq ordered by sort, back on the first page.
func (lq listQuery) withSort(sort string) listQuery {
	lq.Sort, lq.Page = sort, 1
	return lq
}

// handleReviewList lists interviews, newest first, filtered and paged.
func (s *reviewPages) handleReviewList(w http.ResponseWriter, r *http.Request) {
	lq := readListQuery(r.URL.Query())
	opts := lq.listOptions(s.now())
	opts.Offset, opts.Limit = (lq.Page-1)*reviewPageSize, reviewPageSize
	page, err := s.store.List(r.Context(), opts)
	if err != nil {
		s.log.Error("web: listing interviews", "err", err)
		s.serverError(w, r)
		return
	}
	p := listPage{
		view:     view{Title: "Interviews", SignedIn: true},
		Filter:   lq,
		Items:    listRows(page.Items, s.now()),
		Total:    page.Total,
		Filtered: lq.Status != "" || lq.Role != "" || lq.Query != "",

		SortScoreURL:    lq.withSort(interviews.SortScore).url(1),
		SortDecisionURL: lq.withSort(interviews.SortDecision).url(1),
		SortNewestURL:   lq.withSort(interviews.SortNewest).url(1),
		OrderLabel:      orderLabels[lq.Sort],
		CSVURL:          lq.csvURL(),
	}
	if lq.Role != "" {
		p.CompareURL = compareURL(lq.Role)
	}
	p.Statuses = append(p.Statuses, statusOption{Value: "", Label: "Any status", Selected: lq.Status == ""})
	for _, st := range interviews.Standings {
		p.Statuses = append(p.Statuses, statusOption{Value: string(st), Label: st.Label(), Selected: lq.Status == string(st)})
	}
	if len(page.Items) > 0 {
		p.First = (lq.Page-1)*reviewPageSize + 1
		p.Last = p.First + len(page.Items) - 1
	}
	if lq.Page > 1 {
		p.PrevURL = lq.url(lq.Page - 1)
	}
	if lq.Page*reviewPageSize < page.Total {
		p.NextURL = lq.url(lq.Page + 1)
	}
	s.render(w, r, http.StatusOK, "review_list.html", p)
}

// handleAPIList answers GET /api/interviews: {items, total}, filtered by
// status, role and q (name), ordered by sort (score, decision or newest
// first), paged by offset and limit.
func (s *reviewPages) handleAPIList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := interviews.ListOptions{
		Status: interviews.Status(strings.TrimSpace(q.Get("status"))),
		Role:   interviews.CleanLine(q.Get("role")),
		Query:  interviews.CleanLine(q.Get("q")),
		Sort:   strings.TrimSpace(q.Get("sort")),
	}
	if opts.Sort != interviews.SortNewest && opts.Sort != interviews.SortScore && opts.Sort != interviews.SortDecision {
		s.writeJSON(w, http.StatusBadRequest, apiError{Error: "sort must be " + interviews.SortScore + ", " + interviews.SortDecision + " or empty (newest first)"})
		return
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"offset", &opts.Offset}, {"limit", &opts.Limit}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				s.writeJSON(w, http.StatusBadRequest, apiError{Error: p.name + " must be a whole number of at least 0"})
				return
			}
			*p.dst = n
		}
	}
	if opts.Status != "" && !opts.Status.Valid() {
		s.writeJSON(w, http.StatusBadRequest, apiError{Error: "status must be one of scheduled, in_progress, completed, candidate_left, failed"})
		return
	}
	page, err := s.store.List(r.Context(), opts)
	if err != nil {
		s.log.Error("web: listing interviews", "err", err)
		s.serverError(w, r)
		return
	}
	s.writeJSON(w, http.StatusOK, page)
}

// handleAPIGet answers GET /api/interviews/{id} with the public record:
// everything but the résumé and job-description texts.
func (s *reviewPages) handleAPIGet(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), true)
	if rec == nil {
		return
	}
	s.writeJSON(w, http.StatusOK, rec.Public())
}

// detailPage arranges rec as a timeline: its stage visits in order, each
// with the turns in the order they were spoken, the questions asked and
// the assessments, each beside the answer it judges.
func (s *reviewPages) detailPage(ctx context.Context, rec *interviews.Record) detailPage {
	rec = rec.Public()
	p := detailPage{
		view:        view{Title: rec.Candidate.Name, SignedIn: true},
		Rec:         rec,
		Blueprint:   blueprintTitle(rec.Blueprint),
		Duration:    rec.Duration(),
		InProgress:  rec.Status == interviews.StatusInProgress || rec.CanRejoin(s.now()),
		DownloadURL: "/review/" + rec.ID + ".json",
		TurnCount:   len(rec.Turns),
	}
	if rec.EndedBy != "" {
		p.EndedBy = endReasonLabel(rec.EndedBy)
	}
	if rec.Status.Finished() {
		p.FinalStage = rec.StageTitle(rec.LastStage())
	}
	qi := newQuestionIndex(rec)
	p.Learned = newKnowledgeView(rec, qi)
	p.Report = newReportView(rec)
	p.Decisions = newDecisionsView(rec)
	p.Decidable = rec.Status.Finished() && !p.InProgress
	p.PrintURL, p.PDFURL = "/review/"+rec.ID+"/report", "/review/"+rec.ID+"/report.pdf"
	p.Summary = s.summarize(ctx, rec, p.InProgress)
	p.Recordings = s.recordingsView(ctx, rec)
	answers := answersBySeq(rec)
	if p.InProgress {
		p.LiveURL = "/review/" + rec.ID + "/live"
	} else if p.Report != nil && p.Report.Pending {
		p.Refresh = true
	}
	p.addTimeline(rec, qi.byID, answers)
	return p
}

// detailSummary is the interview at a glance: how it stands or ended, in
// words, and its figures.
type detailSummary struct {
	// Outcome is the status in words ("Completed", "Ended early"), and
	// Ending how it ended ("The candidate ended the interview"); Ending is
	// empty while the interview runs.
	Outcome, Ending string
	// OutcomeClass is the CSS class of the outcome's badge.
	OutcomeClass string
	// StagesReached counts the blueprint's stages the interview entered;
	// StagesTotal is how many the blueprint has (0 when it is unknown).
	StagesReached, StagesTotal int
	// QuestionsAsked counts the questions spoken to the candidate.
	QuestionsAsked int
	// Answers counts the candidate's turns.
	Answers int
	// Duration is how long the interview ran.
	Duration time.Duration
	// Score is the report's overall score (0–100); nil without one.
	Score *int
}

// summarize gives rec at a glance.
func (s *reviewPages) summarize(ctx context.Context, rec *interviews.Record, live bool) detailSummary {
	sum := detailSummary{
		Outcome: rec.Standing(s.now()).Label(), OutcomeClass: statusClass(rec.Standing(s.now())),
		Answers: rec.AnswerTurns(), Duration: rec.Duration(),
	}
	switch {
	case live && rec.Status == interviews.StatusCandidateLeft:
		sum.Outcome, sum.OutcomeClass = "Waiting for the candidate to rejoin", statusClass(interviews.Standing(interviews.StatusInProgress))
	case rec.Status.Finished():
		sum.Ending = endReasonLabel(rec.EndedBy)
	}
	sum.StagesReached = rec.StagesReached()
	if bp, err := s.findBlueprint.find(ctx, rec); err == nil {
		sum.StagesTotal = len(bp.Stages)
	}
	for _, q := range rec.ListedQuestions() {
		if q.Spoken() {
			sum.QuestionsAsked++
		}
	}
	if r := rec.Report; r != nil && r.Status == interviews.ReportReady && len(r.Topics) == 0 {
		v := score100(r.OverallScore)
		sum.Score = &v
	}
	return sum
}

// Stage reasons (StageVisit.Reason) the interview writes itself; any
// other reason is the interviewer's own words for moving on.
const (
	stageReasonStart    = "start"
	stageReasonResume   = "resume"
	stageReasonDeadline = "deadline"
	stageReasonClosing  = "closing delivered"
	// stageReasonStopPrefix starts the reason of a jump to the last stage
	// because the candidate asked to stop.
	stageReasonStopPrefix = "candidate_request: "
	// stageReasonExitPrefix starts the reason of a jump to the last stage
	// because an exit condition was met.
	stageReasonExitPrefix = "exit: "
)

// stageReasonLabel says in words why a stage was entered (resumed, the
// candidate asked to stop, the interview had what it needed) and why the
// interviewer left it (its own words, on the stage they are about); empty
// when the page has nothing to add (the first stage, a timer's move,
// which its badge shows).
func stageReasonLabel(entered, left string) string {
	in := enteredLabel(entered)
	if ownWords(entered) {
		in = ""
	}
	out := ""
	if left = strings.TrimSpace(left); ownWords(left) {
		out = "The interviewer moved on: " + left
	}
	if in != "" && out != "" {
		return in + ". " + out
	}
	return in + out
}

// ownWords reports whether a transition's reason is the interviewer's own
// words rather than one the interview writes itself.
func ownWords(reason string) bool {
	reason = strings.TrimSpace(reason)
	switch reason {
	case "", stageReasonStart, stageReasonDeadline, stageReasonClosing, stageReasonResume:
		return false
	}
	return !strings.HasPrefix(reason, stageReasonStopPrefix) && !strings.HasPrefix(reason, stageReasonExitPrefix)
}

// enteredLabel says in words why a stage was entered.
func enteredLabel(reason string) string {
	reason = strings.TrimSpace(reason)
	switch reason {
	case "", stageReasonStart, stageReasonDeadline, stageReasonClosing:
		return ""
	case stageReasonResume:
		return "Resumed here after the interviewer restarted"
	}
	if rest, ok := strings.CutPrefix(reason, stageReasonStopPrefix); ok {
		rest = strings.TrimSpace(rest)
		if rest == "" || strings.EqualFold(rest, "the candidate asked to stop") {
			return "The candidate asked to stop"
		}
		return "The candidate asked to stop: " + rest
	}
	if rest, ok := strings.CutPrefix(reason, stageReasonExitPrefix); ok {
		return exitReasonLabel(&interviews.Exit{Reason: strings.TrimSpace(rest)})
	}
	return "The interviewer moved on: " + reason
}

// standInLabel says who wrote an interviewer turn in place of the failing
// model, engine being Turn.Fallback; empty when the model wrote it.
func standInLabel(engine string) string {
	switch engine {
	case "":
		return ""
	case config.EngineScripted:
		return "said by the backup interviewer (model unavailable)"
	}
	return "said by the backup model, " + engine + " (main model unavailable)"
}

// incidentProviders are the human names of incident.Incident.Provider.
var incidentProviders = map[string]string{
	incident.LLM: "Language model",
	incident.STT: "Speech recognition",
	incident.TTS: "Voice",
}

// incidentKinds are the human words of incident.Kind, after the provider's
// name.
var incidentKinds = map[incident.Kind]string{
	incident.Timeout:      "timed out",
	incident.RateLimited:  "rate-limited",
	incident.Unavailable:  "unavailable",
	incident.Cut:          "cut off mid-answer",
	incident.Disconnected: "disconnected",
	incident.AudioLost:    "lost audio",
}

// incidentFallbacks say that a backup did a provider's work.
var incidentFallbacks = map[string]string{
	incident.LLM: "Backup interviewer used",
	incident.STT: "Backup speech recognition used",
	incident.TTS: "Backup voice used",
}

// incidentLabel says what failed, "Language model rate-limited"; providers
// and kinds it does not know are told in plain words too.
func incidentLabel(inc incident.Incident) string {
	if inc.Kind == incident.Fallback {
		if s, ok := incidentFallbacks[inc.Provider]; ok {
			return s
		}
	}
	who, ok := incidentProviders[inc.Provider]
	if !ok {
		who = "Provider " + inc.Provider
	}
	what, ok := incidentKinds[inc.Kind]
	if !ok {
		what = strings.ReplaceAll(string(inc.Kind), "_", " ")
	}
	return who + " " + what
}

// routes registers the review pages and the reading API.
func (s *reviewPages) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("GET /review", g.review(s.handleReviewList))
	mux.HandleFunc("GET /review/{$}", g.review(s.handleReviewList))
	mux.HandleFunc("GET /review/{id}", g.review(s.handleReviewDetail))
	mux.HandleFunc("GET /review/{id}/live", g.review(s.handleReviewLive))
	mux.HandleFunc("GET /review.csv", g.review(s.handleReviewCSV))
	mux.HandleFunc("GET /review/{id}/recordings/{name}", g.review(s.handleRecording))
	mux.HandleFunc("GET /api/interviews", g.review(s.handleAPIList))
	mux.HandleFunc("GET /api/interviews/{id}", g.review(s.handleAPIGet))
}
