package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/web/reportpdf"
)

// The report of one interview as a PDF document.

// handleReportPDF serves /review/{id}/report.pdf: the ready report as a
// PDF download.
func (s *reportPages) handleReportPDF(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), false)
	if rec == nil {
		return
	}
	rec = rec.Public()
	rv := newReportView(rec)
	if rv == nil || !rv.Ready {
		s.render(w, r, http.StatusConflict, "message.html", messagePage{
			view:    view{Title: "No report yet", SignedIn: true},
			Message: "This interview's report is not ready, so there is no PDF yet. Open the interview to see where the report is.",
		})
		return
	}
	var buf bytes.Buffer
	if err := reportpdf.Write(&buf, s.reportDocument(rec, rv)); err != nil {
		s.log.Error("web: writing a report PDF", "interview_id", rec.ID, "err", err)
		s.serverError(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `attachment; filename="report-`+rec.ID+`.pdf"`)
	_, _ = buf.WriteTo(w)
}

// reportDocument puts a ready report in words for the PDF, in the order
// of the printable page.
func (s *reportPages) reportDocument(rec *interviews.Record, rv *reportView) reportpdf.Document {
	doc := reportpdf.Document{
		Title:      rec.Candidate.Name,
		Subtitle:   strings.Join(nonEmpty(rec.Candidate.Role, rec.Candidate.Level, blueprintTitle(rec.Blueprint), formatDateTime(rec.EndedAt)), " · "),
		PageBreaks: true,
		CreatedAt:  s.now(),
	}
	doc.Sections = append(doc.Sections, summarySection(rv))
	doc.Sections = append(doc.Sections, scoreSections(rv)...)
	doc.Sections = append(doc.Sections, pointSections("Strengths", rv.Strengths)...)
	doc.Sections = append(doc.Sections, pointSections("Improvements", rv.Improvements)...)
	doc.Sections = append(doc.Sections, keyQuestionSections(rv)...)
	doc.Sections = append(doc.Sections, figuresSection(rv))
	return doc
}

// summarySection is the report's overall score, headline and author.
func summarySection(rv *reportView) reportpdf.Section {
	summary := reportpdf.Section{Heading: "Summary"}
	if !rv.Knowledge {
		summary.Lines = append(summary.Lines, reportpdf.Line{Text: fmt.Sprintf("Overall %d / 100", rv.Overall), Bold: true, Score: float64(rv.Overall), HasScore: true})
	}
	if rv.Headline != "" {
		summary.Lines = append(summary.Lines, reportpdf.Line{Text: rv.Headline})
	}
	if rv.ByLabel != "" {
		summary.Lines = append(summary.Lines, reportpdf.Line{Text: rv.ByLabel + fmt.Sprintf(" (version %d)", rv.Version)})
	}
	return summary
}

// scoreSections are the topics of a knowledge capture, else the
// competencies with their scores; none when there are none.
func scoreSections(rv *reportView) []reportpdf.Section {
	if rv.Knowledge {
		sec := reportpdf.Section{Heading: "Topics"}
		for _, t := range rv.Topics {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: t.Title, Bold: true})
			for _, p := range t.Points {
				sec.Lines = append(sec.Lines, reportpdf.Line{Text: "• " + p, Indent: true})
			}
		}
		return []reportpdf.Section{sec}
	} else if len(rv.Competencies) > 0 {
		sec := reportpdf.Section{Heading: "Competencies"}
		for _, c := range rv.Competencies {
			sec.Lines = append(sec.Lines,
				reportpdf.Line{Text: fmt.Sprintf("%s — %d", c.Name, c.Score), Bold: true, Score: float64(c.Score), HasScore: true},
				reportpdf.Line{Text: c.Rationale, Indent: true})
		}
		return []reportpdf.Section{sec}
	}
	return nil
}

// pointSections is a section of points under heading, with their quotes;
// none without points.
func pointSections(heading string, ps []pointView) []reportpdf.Section {
	if len(ps) == 0 {
		return nil
	}
	sec := reportpdf.Section{Heading: heading}
	for _, p := range ps {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: "• " + p.Text})
		if p.Quote != "" {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: "“" + p.Quote + "”", Indent: true})
		}
	}
	return []reportpdf.Section{sec}
}

// keyQuestionSections are the key questions and the STAR answers; none
// when there are none.
func keyQuestionSections(rv *reportView) []reportpdf.Section {
	if len(rv.KeyQuestions) > 0 || len(rv.STAR) > 0 {
		sec := reportpdf.Section{Heading: "Key questions"}
		for _, q := range rv.KeyQuestions {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: q.Question, Bold: true})
			if q.Good != "" {
				sec.Lines = append(sec.Lines, reportpdf.Line{Text: "Good: " + q.Good, Indent: true})
			}
			if q.Missing != "" {
				sec.Lines = append(sec.Lines, reportpdf.Line{Text: "Missing: " + q.Missing, Indent: true})
			}
		}
		for _, st := range rv.STAR {
			var had []string
			for _, p := range st.Parts {
				mark := "✗ "
				if p.Present {
					mark = "✓ "
				}
				had = append(had, mark+p.Label)
			}
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: "STAR — " + st.Question + ": " + strings.Join(had, ", ")})
		}
		return []reportpdf.Section{sec}
	}
	return nil
}

// figuresSection is the answers' figures and the coverage.
func figuresSection(rv *reportView) reportpdf.Section {
	st := rv.Stats
	figures := reportpdf.Section{Heading: "Figures and coverage", Lines: []reportpdf.Line{
		{Text: fmt.Sprintf("%s; mean %s words, median %s, longest %d", plural(st.Answers, "answer"), st.MeanWords, st.MedianWords, st.MaxWords)},
		{Text: fmt.Sprintf("Candidate's share of talk time: %d %%; filler words: %d", st.TalkTimePercent, st.FillerWords)},
		{Text: fmt.Sprintf("Rubric coverage: %d %%", rv.RubricCoverage)},
	}}
	for _, sc := range rv.Stages {
		line := sc.Title + ": " + plural(sc.Questions, "question")
		if sc.Forced {
			line += " (moved on by the timer)"
		}
		figures.Lines = append(figures.Lines, reportpdf.Line{Text: line})
	}
	if len(rv.Gaps) > 0 {
		figures.Lines = append(figures.Lines, reportpdf.Line{Text: "Unresolved gaps: " + strings.Join(rv.Gaps, "; ")})
	}
	return figures
}
