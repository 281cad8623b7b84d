package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/reports"
	"github.com/viva-interviews/viva/stages"
)

// Mailer sends a plain-text email (a *mail.Sender).
type Mailer interface {
	Send(ctx context.Context, to, subject, text string) error
}

// feedbackPage is the data of feedback.html: what a candidate may see of
// their report.
type feedbackPage struct {
	view
	Name, Role string
	// Pending is true while the report is being written (the page
	// refreshes); Unavailable when it failed.
	Pending, Unavailable bool
	// ShowScores is the blueprint's candidate_feedback_scores.
	ShowScores   bool
	Overall      int
	Headline     string
	Competencies []competencyView
	Strengths    []pointView
	Improvements []pointView
	Questions    []keyQuestionView
}

// feedbackPath is a candidate's feedback page; the interview id in it is
// the candidate's key, as for the room page.
func feedbackPath(id string) string { return "/interview/" + id + "/feedback" }

// blueprintFinder finds the blueprint an interview record follows: its
// design of the library at the record's version, with the record's
// options applied (interviews.RecordBlueprint).
type blueprintFinder struct{ lib interviews.Library }

// find returns rec's blueprint.
func (f blueprintFinder) find(ctx context.Context, rec *interviews.Record) (*stages.Blueprint, error) {
	bp, _, err := interviews.RecordBlueprint(ctx, f.lib, rec)
	return bp, err
}

// feedbackBlueprint returns the blueprint of rec when it gives candidates
// their feedback, else nil.
func (f blueprintFinder) feedbackBlueprint(ctx context.Context, rec *interviews.Record) *stages.Blueprint {
	b, err := f.find(ctx, rec)
	if err != nil || !b.CandidateFeedback {
		return nil
	}
	return b
}

// handleFeedback serves /interview/{id}/feedback: the candidate's
// strengths, improvements and questions to revisit, without scores unless
// the blueprint shows them; "being prepared" while the report is written.
func (s *roomPages) handleFeedback(w http.ResponseWriter, r *http.Request) {
	// A link that has no feedback: the interview is unknown, or its plan
	// gives candidates none.
	tag := lang.FromAccept(r.Header.Get("Accept-Language"))
	notFound := func() {
		s.renderCandidateMessage(w, r, http.StatusNotFound, tag, lang.MsgNoFeedbackTitle, lang.MsgNoFeedback)
	}
	rec, err := s.store.Get(r.Context(), r.PathValue("id"))
	if err == nil {
		tag = candidateLang(rec)
	}
	switch {
	case errors.Is(err, interviews.ErrNotFound):
		notFound()
		return
	case err != nil:
		s.log.Error("web: reading an interview for its feedback", "err", err)
		s.serverError(w, r)
		return
	}
	bp := s.findBlueprint.feedbackBlueprint(r.Context(), rec)
	if bp == nil {
		notFound()
		return
	}
	s.render(w, r, http.StatusOK, "feedback.html", newFeedbackPage(rec, bp))
}

// newFeedbackPage is what the candidate of rec sees of its report.
func newFeedbackPage(rec *interviews.Record, bp *stages.Blueprint) feedbackPage {
	p := feedbackPage{
		view: view{Title: lang.Text(rec.Language, lang.FeedbackTitle), Candidate: true, Lang: candidateLang(rec)},
		Name: rec.Candidate.Name, Role: rec.Candidate.Role,
		ShowScores: bp.FeedbackScores,
	}
	rv := newReportView(rec.Public())
	switch {
	case rv == nil || rv.Pending || !rec.Status.Finished():
		p.Pending, p.Refresh = true, true
		return p
	case rv.Failed:
		p.Unavailable = true
		return p
	}
	p.Headline = rv.Headline
	if p.ShowScores && !rv.Knowledge {
		p.Overall, p.Competencies = rv.Overall, competenciesIn(p.Lang, rv.Competencies, rec.Report.Competencies)
	}
	// The candidate's page links nowhere into the reviewer's timeline, and
	// speaks to the candidate, not about them.
	strip := func(ps []pointView) []pointView {
		out := make([]pointView, len(ps))
		for i, pt := range ps {
			out[i] = pointView{Text: reports.ForCandidate(pt.Text), Quote: pt.Quote}
		}
		return out
	}
	p.Strengths, p.Improvements = strip(rv.Strengths), strip(rv.Improvements)
	p.Headline = reports.ForCandidate(p.Headline)
	for _, q := range rv.KeyQuestions {
		p.Questions = append(p.Questions, keyQuestionView{Question: q.Question, Good: reports.ForCandidate(q.Good), Missing: reports.ForCandidate(q.Missing)})
	}
	return p
}

// competenciesIn is views (of the report's competencies, in order) with
// the default competencies' names in the language tag.
func competenciesIn(tag string, views []competencyView, cs []interviews.Competency) []competencyView {
	out := slices.Clone(views)
	for i := range out {
		if i < len(cs) {
			if name, ok := lang.CompetencyName(tag, cs[i].Name); ok {
				out[i].Name = name
			}
		}
	}
	return out
}

// NotifyFeedbackReady emails the candidate of rec the link to their
// feedback page, once its report is ready. It sends nothing, and returns
// (false, nil), when no mailer is configured, the blueprint gives no
// candidate feedback, the report is not ready, the candidate gave no email
// address or the server has no public URL to link to. Whatever it sends,
// or fails to send, is appended to the record's audit list. viva web calls
// it when the report runner says a report is ready.
func (s *Server) NotifyFeedbackReady(ctx context.Context, rec *interviews.Record) (sent bool, err error) {
	return s.feedbackMail.notify(ctx, rec)
}

// feedbackMail emails candidates the link to their feedback.
type feedbackMail struct {
	log *slog.Logger
	links
	interviews    *interviews.Service
	mailer        Mailer
	findBlueprint blueprintFinder
}

// notify is Server.NotifyFeedbackReady.
func (s *feedbackMail) notify(ctx context.Context, rec *interviews.Record) (sent bool, err error) {
	if s.mailer == nil || s.publicURL == "" || strings.TrimSpace(rec.Candidate.Email) == "" {
		return false, nil
	}
	if s.findBlueprint.feedbackBlueprint(ctx, rec) == nil || rec.Report == nil || rec.Report.Status != interviews.ReportReady {
		return false, nil
	}
	subject, text := feedbackEmail(rec, s.publicURL+feedbackPath(rec.ID))
	sendErr := s.mailer.Send(ctx, rec.Candidate.Email, subject, text)
	if sendErr != nil {
		s.log.Warn("web: emailing a candidate their feedback failed", "interview_id", rec.ID, "err", sendErr)
	}
	if err := s.interviews.FeedbackMailed(ctx, rec.ID, rec.Candidate.Email, rec.Report.Version, sendErr); err != nil {
		s.log.Error("web: recording a feedback email in the audit list", "interview_id", rec.ID, "err", err)
	}
	if sendErr != nil {
		return false, fmt.Errorf("web: emailing interview %s its feedback: %w", rec.ID, sendErr)
	}
	return true, nil
}

// feedbackEmail is the subject and text of the email that tells rec's
// candidate their feedback is ready at link, in the interview's language.
func feedbackEmail(rec *interviews.Record, link string) (subject, text string) {
	tag := rec.Language
	thanks := lang.Text(tag, lang.MailFeedbackThanks)
	if rec.Candidate.Role != "" {
		thanks = lang.Textf(tag, lang.MailFeedbackThanksRolef, rec.Candidate.Role)
	}
	text = lang.Textf(tag, lang.MailHellof, rec.Candidate.Name) + "\n\n" + thanks + " " + lang.Text(tag, lang.MailFeedbackReady) +
		"\n\n" + lang.Text(tag, lang.MailReadHere) + "\n" + link + "\n\n" + lang.Text(tag, lang.MailPrivate) + "\n\n-- viva\n"
	return lang.Text(tag, lang.MailFeedbackSubject), text
}
