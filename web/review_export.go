package web

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// liveParts are the parts of review_detail.html (its blocks) that the
// reviewer page replaces while the interview runs, each an element with
// the id and data-live-part of the same name.
var liveParts = []string{"summary", "timeline"}

// handleReviewLive answers GET /review/{id}/live with the parts of the
// reviewer page that change while the interview runs: its summary and
// timeline, as HTML fragments. The page's script polls it and swaps them
// in; a timeline without data-live-url tells it the interview is over.
func (s *reviewPages) handleReviewLive(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), false)
	if rec == nil {
		return
	}
	t := s.pages["review_detail.html"]
	p := s.detailPage(r.Context(), rec)
	var buf bytes.Buffer
	for _, part := range liveParts {
		if err := t.ExecuteTemplate(&buf, part, p); err != nil {
			s.log.Error("web: rendering the live reviewer page", "interview_id", rec.ID, "part", part, "err", err)
			s.serverError(w, r)
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w)
}

// csvColumns are the columns of the list's CSV export, in order; the
// competencies the reports scored come between the score and the
// decision, one column each.
var csvColumns = struct{ head, tail []string }{
	head: []string{"Candidate", "Email", "Role", "Level", "Plan", "Language", "Registered", "Started", "Ended",
		"Duration (seconds)", "Status", "How it ended", "Final stage", "Score"},
	tail: []string{"Decision", "Decision note", "Interview id"},
}

// csvCompetencies names the competencies the reports of the interviews
// opts matches scored, in the order first met: a first walk over the
// interviews, holding only the names, before the rows go out.
func (s *reviewPages) csvCompetencies(ctx context.Context, opts interviews.ListOptions) ([]string, error) {
	var names []string
	err := s.store.Walk(ctx, opts, func(sum interviews.Summary) error {
		for _, c := range sum.Competencies {
			if n := interviews.Humanize(c.Name); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		return nil
	})
	return names, err
}

// handleReviewCSV answers GET /review.csv: every interview the list's
// filters (status, role, q, sort) match, one row each, as CSV (RFC 4180,
// UTF-8, CRLF line ends). Cells are neutralised for spreadsheets: one
// starting with =, +, -, @, a tab or a carriage return is prefixed with a
// quote, so it is never run as a formula. The rows stream out as the
// store reads them (Store.Walk), in pieces of csvBufferBytes, so an export
// of any size holds little memory.
func (s *reviewPages) handleReviewCSV(w http.ResponseWriter, r *http.Request) {
	lq := readListQuery(r.URL.Query())
	opts := lq.listOptions(s.now())
	name := "interviews-" + s.now().UTC().Format("2006-01-02") + ".csv"
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	out := &sentWriter{w: w}
	buf := bufio.NewWriterSize(out, csvBufferBytes)
	cw := csv.NewWriter(buf)
	cw.UseCRLF = true
	comps, err := s.csvCompetencies(r.Context(), opts)
	if err == nil {
		now := s.now()
		_ = cw.Write(slices.Concat(csvColumns.head, comps, csvColumns.tail)) // errors surface from Flush below
		err = s.store.Walk(r.Context(), opts, func(sum interviews.Summary) error {
			return cw.Write(safeCells(csvRow(sum, comps, now)))
		})
	}
	if err == nil {
		cw.Flush()
		if err = cw.Error(); err == nil {
			err = buf.Flush()
		}
	}
	switch {
	case err == nil:
	case !out.sent:
		s.log.Error("web: exporting interviews", "err", err)
		w.Header().Del("Content-Disposition")
		s.serverError(w, r)
	case r.Context().Err() == nil:
		// Rows went out already: cut the download rather than let it
		// look whole.
		s.log.Error("web: exporting interviews: the export was cut short", "err", err)
		panic(http.ErrAbortHandler)
	}
}

// csvBufferBytes is how much of the export is held before it is sent:
// the rows stream out in pieces of this size, whatever the number of
// interviews.
const csvBufferBytes = 32 << 10

// sentWriter is a response writer that remembers whether anything was
// written: until then an error can still be answered as one.
type sentWriter struct {
	w    http.ResponseWriter
	sent bool
}

func (s *sentWriter) Write(p []byte) (int, error) {
	s.sent = true
	return s.w.Write(p)
}

// csvRow is one interview as a row of csvColumns with the competencies
// comps, standing as it does at now.
func csvRow(sum interviews.Summary, comps []string, now time.Time) []string {
	at := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	var ending, score, decision, duration string
	if sum.Status.Finished() {
		ending = endReasonLabel(sum.EndedBy)
	}
	if sum.Score != nil {
		score = strconv.Itoa(score100(*sum.Score))
	}
	if sum.Decision != "" {
		decision = decisionLabel(sum.Decision)
	}
	if sum.StartedAt != nil {
		duration = strconv.FormatInt(int64(sum.Duration.Round(time.Second)/time.Second), 10)
	}
	scores := make([]string, len(comps))
	for _, c := range sum.Competencies {
		scores[slices.Index(comps, interviews.Humanize(c.Name))] = strconv.Itoa(score100(c.Score))
	}
	stage := cmp.Or(sum.FinalStageTitle, stageLabel(sum.Blueprint, sum.FinalStage))
	return slices.Concat([]string{
		sum.Candidate.Name, sum.Candidate.Email, sum.Candidate.Role, sum.Candidate.Level, blueprintTitle(sum.Blueprint), lang.Lookup(sum.Language).Name,
		sum.CreatedAt.UTC().Format(time.RFC3339), at(sum.StartedAt), at(sum.EndedAt), duration,
		sum.Standing(now).Label(), ending, stage, score,
	}, scores, []string{decision, sum.DecisionNote, sum.ID})
}

// languageName names the language of an interview whose tag is tag, as
// the reviewer's pages and the report say it ("Spanish"); empty for
// English, which they leave unsaid.
func languageName(tag string) string {
	if lang.IsDefault(tag) {
		return ""
	}
	return lang.Lookup(tag).Name
}

// formulaStarts are the first characters that make a spreadsheet read a
// cell as a formula (OWASP's list for CSV injection).
const formulaStarts = "=+-@\t\r"

// safeCells prefixes with a quote every cell a spreadsheet would run as a
// formula; it changes cells in place and returns them.
func safeCells(cells []string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune(formulaStarts, rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
