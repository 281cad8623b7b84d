// Package reports writes the feedback report of a finished interview: with
// a language model, a structured answer validated against a JSON schema and
// retried when malformed; offline, the basic report computed from the
// answers' analyses, the rubric and the transcript. A Runner generates
// reports in the background for every interview that ends, retries failed
// ones with backoff, regenerates on request and tells hiring systems by
// webhook; no worker or page waits for it.
package reports

import (
	"context"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Generator writes one report. It returns the report's content (Status,
// Version, Attempts and the audit are the Runner's business) or an error
// when it produced nothing usable.
type Generator interface {
	Generate(ctx context.Context, in Input) (interviews.Report, error)
}

// Input is a finished interview to report on.
type Input struct {
	// Record is the interview's record (with its résumé and job
	// description: the generator runs server-side).
	Record *interviews.Record
	// Blueprint is the blueprint the interview followed; it names the
	// competencies (stages.Blueprint.Competencies) and says whether the
	// candidate sees feedback.
	Blueprint *stages.Blueprint
}

// DefaultCompetencies are the competencies scored when a blueprint names
// none.
var DefaultCompetencies = []string{"communication", "technical depth", "structure of answers", "role fit"}

// Due reports whether a finished interview gets a report: it completed,
// or the candidate left after answering at least MinAnswers questions.
func Due(r *interviews.Record) bool {
	switch r.Status {
	case interviews.StatusCompleted:
		return true
	case interviews.StatusCandidateLeft:
		return r.AnswerTurns() >= MinAnswers && r.RejoinUntil == nil
	}
	return false
}

// MinAnswers is how many answers an interview the candidate left needs to
// be worth a report.
const MinAnswers = 3
