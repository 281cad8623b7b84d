package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

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
	if !interviews.Status(lq.Status).Valid() {
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
	Items    []interviews.Summary
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
func (s *Server) handleReviewList(w http.ResponseWriter, r *http.Request) {
	lq := readListQuery(r.URL.Query())
	page, err := s.store.List(r.Context(), interviews.ListOptions{
		Status: interviews.Status(lq.Status), Role: lq.Role, Query: lq.Query,
		Offset: (lq.Page - 1) * reviewPageSize, Limit: reviewPageSize, Sort: lq.Sort,
	})
	if err != nil {
		s.log.Error("web: listing interviews", "err", err)
		s.serverError(w, r)
		return
	}
	p := listPage{
		view:     view{Title: "Interviews", SignedIn: true},
		Filter:   lq,
		Items:    page.Items,
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
	for _, st := range interviews.Statuses {
		p.Statuses = append(p.Statuses, statusOption{Value: string(st), Label: statusLabel(st), Selected: lq.Status == string(st)})
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
func (s *Server) handleAPIList(w http.ResponseWriter, r *http.Request) {
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

// readRecord reads the interview named by the path, answering 404 or 500
// itself (as JSON when asJSON) and returning nil when it cannot.
func (s *Server) readRecord(w http.ResponseWriter, r *http.Request, id string, asJSON bool) *interviews.Record {
	rec, err := s.store.Get(r.Context(), id)
	if err == nil {
		return rec
	}
	if errors.Is(err, interviews.ErrNotFound) {
		s.noInterview(w, r, asJSON)
		return nil
	}
	s.log.Error("web: reading an interview", "interview_id", id, "err", err)
	s.serverError(w, r)
	return nil
}

// noInterview answers 404 for an interview there is none of (or the user
// may not see), as JSON when asJSON.
func (s *Server) noInterview(w http.ResponseWriter, r *http.Request, asJSON bool) {
	const msg = "There is no interview with this id. Go back to the list of interviews."
	if asJSON {
		s.writeJSON(w, http.StatusNotFound, apiError{Error: msg})
		return
	}
	s.render(w, r, http.StatusNotFound, "message.html", messagePage{view: view{Title: "Interview not found", SignedIn: true}, Message: msg})
}

// handleAPIGet answers GET /api/interviews/{id} with the public record:
// everything but the résumé and job-description texts.
func (s *Server) handleAPIGet(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), true)
	if rec == nil {
		return
	}
	s.writeJSON(w, http.StatusOK, rec.Public())
}

// handleReviewDetail shows one interview as a timeline, or downloads its
// public JSON for /review/{id}.json and ?download=1.
func (s *Server) handleReviewDetail(w http.ResponseWriter, r *http.Request) {
	id, download := strings.CutSuffix(r.PathValue("id"), ".json")
	download = download || r.URL.Query().Get("download") == "1"
	rec := s.readRecord(w, r, id, false)
	if rec == nil {
		return
	}
	if download {
		data, err := json.MarshalIndent(rec.Public(), "", "  ")
		if err != nil {
			s.log.Error("web: encoding an interview", "interview_id", rec.ID, "err", err)
			s.serverError(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="interview-`+rec.ID+`.json"`)
		_, _ = w.Write(append(data, '\n'))
		return
	}
	s.render(w, r, http.StatusOK, "review_detail.html", s.detailPage(rec))
}

// detailPage is the data of review_detail.html.
type detailPage struct {
	view
	Rec         *interviews.Record
	Blueprint   string
	Duration    time.Duration
	Groups      []stageGroup
	InProgress  bool
	DownloadURL string
	TurnCount   int
	Interrupted int
	Incidents   []incidentView
	Unrecovered int
	// EndedBy says in words what ended the interview; empty while it runs.
	EndedBy string
	// Summary is the interview at a glance, shown at the top.
	Summary detailSummary
	// FinalStage is the title of the stage the interview ended in.
	FinalStage string
	// LiveURL is polled for the summary and the timeline while the
	// interview runs.
	LiveURL string
	// Learned is what the interview learned, shown beside the timeline.
	Learned knowledgeView
	// Report is the feedback report; nil when the interview has none.
	Report *reportView
	// Decisions are the decision form, the decisions and the audit list.
	Decisions decisionsView
	// PrintURL and PDFURL are the printable report and its PDF.
	PrintURL, PDFURL string
	// Decidable is true once the interview has finished: reviewers may
	// record a decision.
	Decidable bool
	// Recordings are the interview's audio players.
	Recordings recordingsView
}

// HasVerdict reports whether the page opens with a verdict: the report,
// the decision form, or both.
func (p detailPage) HasVerdict() bool { return p.Report != nil || p.Decidable }

// HasSide reports whether the column beside the timeline has anything to
// show.
func (p detailPage) HasSide() bool { return !p.Learned.Empty() }

// stageGroup is one stage visit of the timeline with what happened in it.
type stageGroup struct {
	Name      string
	Title     string
	EnteredAt *time.Time
	LeftAt    *time.Time
	Forced    bool
	Reason    string
	Recorded  bool // false for a group made up for turns of no recorded visit
	// ReasonLabel says in words why the stage was entered; empty when
	// there is nothing to say beyond the timer badge.
	ReasonLabel string
	Turns       []turnView
	Questions   []questionView
	// Assessments are the stage's assessments that judge no answer shown
	// in it; the others sit beside their answer (turnView.Assessments).
	Assessments []assessmentView
}

// questionView is a question asked, with what it was for in words.
type questionView struct {
	stages.Question
	// ContextLabel says where the question came from ("From the role
	// template — Architecture"); empty when its context says nothing.
	ContextLabel string
}

// turnView is a turn as the timeline shows it.
type turnView struct {
	interviews.Turn
	Speaker   string
	Agent     bool
	Offset    string
	Questions []stages.Question
	// StandIn says, in words, who wrote an interviewer turn in place of
	// the failing model; empty when the model wrote it.
	StandIn string
	// Anchor is the turn's id in the page ("turn-3"), the target of the
	// links from the rubric, gaps and backlog.
	Anchor string
	// Asks are the questions an interviewer turn asked, with what each
	// was for in words.
	Asks []askView
	// Answer is the analysis of a candidate turn; nil when none was made.
	Answer *answerView
	// SourceLabel says how a turn arrived when not by voice ("typed").
	SourceLabel string
	// Assessments are the interviewer's judgements of this answer.
	Assessments []assessmentView
	// Play seeks the recording to the turn; nil when no recording holds it.
	Play *playView
}

// incidentView is a provider fault as the page tells it: in words, never
// by its codes.
type incidentView struct {
	incident.Incident
	What   string
	Offset string
}

// assessmentView is an assessment with the text of its question.
type assessmentView struct {
	interviews.Assessment
	Question string
}

// detailPage arranges rec as a timeline: its stage visits in order, each
// with the turns in the order they were spoken, the questions asked and
// the assessments, each beside the answer it judges.
func (s *Server) detailPage(rec *interviews.Record) detailPage {
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
	if rec.FinalStage != "" {
		p.FinalStage = stageTitle(rec, rec.FinalStage)
	}
	qi := newQuestionIndex(rec)
	p.Learned = newKnowledgeView(rec, qi)
	p.Report = newReportView(rec)
	p.Decisions = newDecisionsView(rec)
	p.Decidable = rec.Status.Finished() && !p.InProgress
	p.PrintURL, p.PDFURL = "/review/"+rec.ID+"/report", "/review/"+rec.ID+"/report.pdf"
	p.Summary = s.summarize(rec, p.InProgress)
	p.Recordings = s.recordingsView(rec)
	answers := answersBySeq(rec)
	if p.InProgress {
		p.LiveURL = "/review/" + rec.ID + "/live"
	} else if p.Report != nil && p.Report.Pending {
		p.Refresh = true
	}
	questions := qi.byID
	for _, v := range rec.Stages {
		if v.Name == stages.Done {
			continue
		}
		title := v.Title
		if title == "" {
			title = v.Name
		}
		p.Groups = append(p.Groups, stageGroup{
			Name: v.Name, Title: title, EnteredAt: &v.EnteredAt, LeftAt: v.LeftAt,
			Forced: v.Forced, Reason: v.Reason, Recorded: true, ReasonLabel: stageReasonLabel(v.Reason, v.ExitReason),
		})
	}
	// group returns the index of the group for something said or done in
	// stage at time t: the visit of that stage that spans t, else the last
	// visit of that stage, else a group added for it.
	group := func(stage string, t time.Time) int {
		last := -1
		for i, g := range p.Groups {
			if g.Name != stage || !g.Recorded {
				continue
			}
			last = i
			if !t.IsZero() && !t.Before(*g.EnteredAt) && (g.LeftAt == nil || t.Before(*g.LeftAt)) {
				return i
			}
		}
		if last >= 0 {
			return last
		}
		for i, g := range p.Groups {
			if !g.Recorded && g.Name == stage {
				return i
			}
		}
		title := stage
		if stage == "" {
			title = "Outside any stage"
		}
		p.Groups = append(p.Groups, stageGroup{Name: stage, Title: title})
		return len(p.Groups) - 1
	}
	// where finds a turn shown in the timeline by its seq.
	type place struct{ group, turn int }
	where := map[int]place{}
	for _, t := range rec.TurnsInOrder() {
		tv := turnView{Turn: t, Agent: t.Role == interviews.RoleAgent, Offset: formatOffset(rec.StartedAt, t.StartedAt),
			Anchor: turnAnchor(t.Seq)[1:], SourceLabel: turnSourceLabel(t.Source)}
		tv.Play = p.Recordings.playAt(t.StartedAt)
		if a, ok := answers[t.Seq]; ok && !tv.Agent {
			tv.Answer = &a
		}
		if tv.Agent {
			tv.Speaker = "Interviewer"
		} else {
			tv.Speaker = rec.Candidate.Name
		}
		if t.Interrupted {
			p.Interrupted++
		}
		if tv.Agent {
			tv.StandIn = standInLabel(t.Fallback)
		}
		for _, id := range t.QuestionIDs {
			if q, ok := questions[id]; ok {
				tv.Questions = append(tv.Questions, q)
				tv.Asks = append(tv.Asks, askView{ID: q.ID, Context: questionContextLabel(rec, q)})
			}
		}
		i := group(t.Stage, t.StartedAt)
		where[t.Seq] = place{i, len(p.Groups[i].Turns)}
		p.Groups[i].Turns = append(p.Groups[i].Turns, tv)
	}
	for _, inc := range rec.Incidents {
		p.Incidents = append(p.Incidents, incidentView{Incident: inc, What: incidentLabel(inc), Offset: formatOffset(rec.StartedAt, inc.At)})
		if !inc.Recovered {
			p.Unrecovered++
		}
	}
	for _, q := range rec.Questions {
		i := group(q.Stage, q.AskedAt)
		p.Groups[i].Questions = append(p.Groups[i].Questions, questionView{Question: q, ContextLabel: questionContextLabel(rec, q)})
	}
	answerOf := answerTurns(rec)
	for _, a := range rec.Assessments {
		av := assessmentView{Assessment: a}
		if q, ok := questions[a.QuestionID]; ok {
			av.Question = q.Text
		}
		if seq, ok := answerOf(a); ok {
			if at, ok := where[seq]; ok {
				tv := &p.Groups[at.group].Turns[at.turn]
				tv.Assessments = append(tv.Assessments, av)
				continue
			}
		}
		i := group(a.Stage, a.At)
		p.Groups[i].Assessments = append(p.Groups[i].Assessments, av)
	}
	return p
}

// answerTurns returns a function that finds the candidate turn an
// assessment judges: the answer the analysis tied to its question (the
// latest one made by the assessment's time), else the first candidate
// turn spoken after the interviewer asked the question. It reports false
// when the assessment names no question or no answer to it was recorded.
func answerTurns(rec *interviews.Record) func(interviews.Assessment) (int, bool) {
	turns := rec.TurnsInOrder()
	asked := map[string]int{} // question id → index in turns of the turn that asked it
	for i, t := range turns {
		for _, id := range t.QuestionIDs {
			if _, seen := asked[id]; !seen && t.Role == interviews.RoleAgent {
				asked[id] = i
			}
		}
	}
	return func(a interviews.Assessment) (int, bool) {
		if a.QuestionID == "" {
			return 0, false
		}
		first, before := 0, 0 // seqs of the first answer, and the latest made by the assessment's time
		for _, an := range rec.Answers {
			if an.QuestionID != a.QuestionID {
				continue
			}
			if first == 0 {
				first = an.TurnSeq
			}
			if a.At.IsZero() || !an.At.After(a.At) {
				before = an.TurnSeq
			}
		}
		if before != 0 {
			return before, true
		}
		if first != 0 {
			return first, true
		}
		i, ok := asked[a.QuestionID]
		if !ok {
			return 0, false
		}
		for _, t := range turns[i+1:] {
			if t.Role == interviews.RoleCandidate {
				return t.Seq, true
			}
		}
		return 0, false
	}
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
func (s *Server) summarize(rec *interviews.Record, live bool) detailSummary {
	sum := detailSummary{
		Outcome: statusLabel(rec.Status), OutcomeClass: statusClass(rec.Status),
		Answers: rec.AnswerTurns(), Duration: rec.Duration(),
	}
	switch {
	case live && rec.Status == interviews.StatusCandidateLeft:
		sum.Outcome, sum.OutcomeClass = "Waiting for the candidate to rejoin", statusClass(interviews.StatusInProgress)
	case rec.Status.Finished():
		sum.Ending = endReasonLabel(rec.EndedBy)
	}
	reached := map[string]bool{}
	for _, v := range rec.Stages {
		if v.Name != stages.Done {
			reached[v.Name] = true
		}
	}
	sum.StagesReached = len(reached)
	if bp, err := s.findBlueprint(rec.Blueprint); err == nil {
		sum.StagesTotal = len(bp.Stages)
	}
	for _, q := range rec.Questions {
		if q.SpokenAt != nil {
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

// turnSourceLabels say how a turn arrived, for the sources other than
// voice.
var turnSourceLabels = map[string]string{
	"voice": "",
	"text":  "typed",
	"timer": "after the timer",
}

// turnSourceLabel says how a turn arrived when not by voice; empty for
// voice.
func turnSourceLabel(source string) string {
	if l, ok := turnSourceLabels[source]; ok || source == "" {
		return l
	}
	return strings.ToLower(humanize(source))
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
