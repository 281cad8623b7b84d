package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/web/reportpdf"
)

// The report of one interview as a PDF document: a scorecard a hiring
// manager reads in a minute — the decision, the verdict, the
// competencies, the strengths and concerns with the candidate's words,
// the key questions with their quotes and a line of figures, flowing on
// one or two pages (never a page per section). The full report stays on
// the interview's page.

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
	if err := reportpdf.Write(&buf, scorecard(rec, rv, newDecisionsView(rec), s.now())); err != nil {
		s.log.Error("web: writing a report PDF", "interview_id", rec.ID, "err", err)
		s.serverError(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `attachment; filename="report-`+rec.ID+`.pdf"`)
	_, _ = buf.WriteTo(w)
}

// scorecardKeyQuestions bounds the key questions of the scorecard.
const scorecardKeyQuestions = 5

// scorecard puts a ready report and its decision in words for the PDF.
func scorecard(rec *interviews.Record, rv *reportView, dv decisionsView, now time.Time) reportpdf.Document {
	doc := reportpdf.Document{
		Title: rec.Candidate.Name,
		Subtitle: strings.Join(nonEmpty(rec.Candidate.Role, rec.Candidate.Level, designLabel(rec),
			formatDateTime(rec.EndedAt), rec.Standing(now).Label()), " · "),
		CreatedAt: now,
	}
	doc.Sections = append(doc.Sections, scorecardDecision(dv), scorecardVerdict(rv))
	if rv.Knowledge {
		sec := reportpdf.Section{Heading: "Topics"}
		for _, t := range rv.Topics {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: t.Title, Bold: true})
			for _, p := range t.Points {
				sec.Lines = append(sec.Lines, reportpdf.Line{Text: "• " + p, Indent: true})
			}
		}
		doc.Sections = append(doc.Sections, sec)
	}
	if len(rv.Competencies) > 0 {
		sec := reportpdf.Section{Heading: "Competencies"}
		for _, c := range rv.Competencies {
			sec.Lines = append(sec.Lines,
				reportpdf.Line{Text: fmt.Sprintf("%s — %d", c.Name, c.Score), Bold: true, Score: float64(c.Score), HasScore: true},
				reportpdf.Line{Text: c.Rationale, Indent: true})
		}
		doc.Sections = append(doc.Sections, sec)
	}
	for _, p := range []struct {
		heading string
		points  []pointView
	}{{"Strengths", rv.Strengths}, {"Concerns", rv.Improvements}} {
		if len(p.points) == 0 {
			continue
		}
		sec := reportpdf.Section{Heading: p.heading}
		for _, pt := range p.points {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: "• " + pt.Text})
			if pt.Quote != "" {
				sec.Lines = append(sec.Lines, reportpdf.Line{Text: "“" + pt.Quote + "”", Indent: true})
			}
		}
		doc.Sections = append(doc.Sections, sec)
	}
	if kq := scorecardQuestions(rv.KeyQuestions); len(kq.Lines) > 0 {
		doc.Sections = append(doc.Sections, kq)
	}
	doc.Sections = append(doc.Sections, reportpdf.Section{Heading: "Figures", Lines: scorecardFigures(rv)})
	return doc
}

// scorecardDecision is the latest decision with its note, or that none
// was recorded.
func scorecardDecision(dv decisionsView) reportpdf.Section {
	sec := reportpdf.Section{Heading: "Decision"}
	d := dv.Latest
	if d == nil {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: "No decision recorded yet."})
		return sec
	}
	sec.Lines = append(sec.Lines, reportpdf.Line{Text: fmt.Sprintf("%s — by %s, %s", d.Label, d.By, formatDateTime(d.At)), Bold: true})
	if d.Note != "" {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: d.Note, Indent: true})
	}
	return sec
}

// scorecardVerdict is the overall score, the headline and who wrote the
// report.
func scorecardVerdict(rv *reportView) reportpdf.Section {
	sec := reportpdf.Section{Heading: "Verdict"}
	if !rv.Knowledge {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: fmt.Sprintf("Overall %d / 100", rv.Overall), Bold: true, Score: float64(rv.Overall), HasScore: true})
	}
	if rv.Headline != "" {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: rv.Headline})
	}
	if rv.ByLabel != "" {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: rv.ByLabel + fmt.Sprintf(" (version %d)", rv.Version)})
	}
	return sec
}

// scorecardQuestions are the first key questions, each with the
// candidate's words and what was missing.
func scorecardQuestions(qs []keyQuestionView) reportpdf.Section {
	sec := reportpdf.Section{Heading: "Key questions"}
	for _, q := range qs[:min(len(qs), scorecardKeyQuestions)] {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: q.Question, Bold: true})
		if q.Quote != "" {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: "“" + q.Quote + "”", Indent: true})
		}
		if q.Missing != "" {
			sec.Lines = append(sec.Lines, reportpdf.Line{Text: "Missing: " + q.Missing, Indent: true})
		}
	}
	if n := len(qs) - scorecardKeyQuestions; n > 0 {
		sec.Lines = append(sec.Lines, reportpdf.Line{Text: fmt.Sprintf("… and %d more on the interview's page.", n)})
	}
	return sec
}

// scorecardFigures are the transcript's figures in two or three lines,
// each fitting the interview's mode.
func scorecardFigures(rv *reportView) []reportpdf.Line {
	st := rv.Stats
	answers := fmt.Sprintf("%s (%s); mean %s words, longest %d; filler words: %d", plural(st.Answers, "answer"), st.Mode, st.MeanWords, st.MaxWords, st.FillerWords)
	if st.TalkTime {
		answers += fmt.Sprintf("; the candidate's share of talk time: %d %%", st.TalkTimePercent)
	}
	lines := []reportpdf.Line{{Text: answers}, {Text: fmt.Sprintf("Rubric coverage: %d %%", rv.RubricCoverage)}}
	if u := rv.Unclear; len(u) > 0 {
		lines = append(lines, reportpdf.Line{Text: unclearSentence(len(u))})
	}
	if len(rv.Gaps) > 0 {
		lines = append(lines, reportpdf.Line{Text: "Unresolved gaps: " + strings.Join(rv.Gaps, "; ")})
	}
	return lines
}

// unclearSentence says how many answers the report left unjudged because
// the speech recogniser was unsure of them.
func unclearSentence(n int) string {
	return fmt.Sprintf("%s not quoted nor judged: the speech recogniser was unsure of %s; listen to the recording.",
		plural(n, "answer"), map[bool]string{true: "it", false: "them"}[n == 1])
}

// designLabel names the plan an interview followed and its version, as
// the report's subtitle does: "Behavioural interview (version built-in)".
func designLabel(rec *interviews.Record) string {
	label := blueprintTitle(rec.Blueprint)
	if rec.BlueprintVersion != "" {
		label += " (version " + interviews.ShortVersion(rec.BlueprintVersion) + ")"
	}
	if name := languageName(rec.Language); name != "" {
		label += ", in " + name
	}
	return label
}
