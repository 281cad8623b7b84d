package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The reviewer's page of one interview: its timeline by stage, with
// the turns, questions, answers, assessments and incidents.

// handleReviewDetail shows one interview as a timeline, or downloads its
// public JSON for /review/{id}.json and ?download=1.
func (s *reviewPages) handleReviewDetail(w http.ResponseWriter, r *http.Request) {
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
	s.render(w, r, http.StatusOK, "review_detail.html", s.detailPage(r.Context(), rec))
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
	// SourceLabel says how a turn arrived when that is worth saying
	// (interviews.Turn.SourceLabel).
	SourceLabel string
	// Unsure is true for an answer the speech recogniser was unsure of,
	// which the report neither quotes nor judges.
	Unsure bool
	// Assessments are the interviewer's judgements of this answer.
	Assessments []assessmentView
	// Play seeks the recording to the turn; nil when no recording holds it.
	Play *playView
	// Signals are the integrity signals beside a candidate turn
	// (templates/signals.html): context, never a verdict.
	Signals []interviews.Signal
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

// turnPlace is where a turn is shown in the timeline: its group, its
// index there.
type turnPlace struct{ group, turn int }

// addTimeline groups what was said and done by stage visit: the turns
// (with their questions and answers), the incidents, the questions asked
// and the assessments (on the answer they judge when it is shown).
func (p *detailPage) addTimeline(rec *interviews.Record, questions map[string]stages.Question, answers map[int]answerView) {
	for _, v := range rec.Visits() {
		title := v.Title
		if title == "" {
			title = v.Name
		}
		p.Groups = append(p.Groups, stageGroup{
			Name: v.Name, Title: title, EnteredAt: &v.EnteredAt, LeftAt: v.LeftAt,
			Forced: v.Forced, Reason: v.Reason, Recorded: true, ReasonLabel: stageReasonLabel(v.Reason, v.ExitReason),
		})
	}
	where := p.addTurns(rec, questions, answers)
	for _, inc := range rec.Incidents {
		p.Incidents = append(p.Incidents, incidentView{Incident: inc, What: incidentLabel(inc), Offset: formatOffset(rec.StartedAt, inc.At)})
		if !inc.Recovered {
			p.Unrecovered++
		}
	}
	for _, q := range rec.ListedQuestions() {
		i := p.group(q.Stage, q.AskedAt)
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
		i := p.group(a.Stage, a.At)
		p.Groups[i].Assessments = append(p.Groups[i].Assessments, av)
	}
}

// addTurns adds the turns to their groups and returns where each is
// shown, by seq.
func (p *detailPage) addTurns(rec *interviews.Record, questions map[string]stages.Question, answers map[int]answerView) map[int]turnPlace {
	where := map[int]turnPlace{}
	unclear := map[int]bool{}
	if rec.Report != nil {
		for _, seq := range rec.Report.UnclearTurns {
			unclear[seq] = true
		}
	}
	for _, t := range rec.TurnsInOrder() {
		tv := turnView{Turn: t, Agent: t.Role == interviews.RoleAgent, Offset: formatOffset(rec.StartedAt, t.StartedAt),
			Anchor: turnAnchor(t.Seq)[1:], SourceLabel: t.SourceLabel(), Unsure: unclear[t.Seq]}
		tv.Play = p.Recordings.playAt(t.StartedAt)
		if a, ok := answers[t.Seq]; ok && !tv.Agent {
			tv.Answer = &a
		}
		if !tv.Agent {
			tv.Signals = rec.SignalsOf(t.Seq)
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
		i := p.group(t.Stage, t.StartedAt)
		where[t.Seq] = turnPlace{i, len(p.Groups[i].Turns)}
		p.Groups[i].Turns = append(p.Groups[i].Turns, tv)
	}
	return where
}

// group returns the index of the group for something said or done in
// stage at time t: the visit of that stage that spans t, else the last
// visit of that stage, else a group added for it.
func (p *detailPage) group(stage string, t time.Time) int {
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
