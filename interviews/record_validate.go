package interviews

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews/lang"
)

// maxCreatedByLen bounds Record.CreatedBy (an email address's limit).
const maxCreatedByLen = 254

// Validate checks that r is a well-formed record: a valid id and status, a
// candidate that passes Candidate.Validate, texts within their limits, stage
// visits and turns in order, unique question ids that turns and assessments
// refer to, depth scores from 1 to 5 and finite metrics. It returns every
// problem found, joined.
func (r *Record) Validate() error {
	p := &recordProblems{id: r.ID}
	r.validateIdentity(p)
	r.validateTexts(p)
	r.validateDesigns(p)
	r.validateLife(p)
	r.validateStages(p)
	qids := r.validateQuestions(p)
	r.validateTurns(p, qids)
	r.validateOutcome(p, qids)
	return errors.Join(p.errs...)
}

// recordProblems collects what Validate finds wrong with one record, each
// problem prefixed with the record's id.
type recordProblems struct {
	id   string
	errs []error
}

func (p *recordProblems) bad(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("interviews: record %q: "+format, append([]any{p.id}, args...)...))
}

// validateIdentity checks the id, status, creation and the candidate.
func (r *Record) validateIdentity(p *recordProblems) {
	if !ValidID(r.ID) {
		p.bad("invalid id %q: use 1 to 64 lower-case letters, digits, '-' or '_', such as NewID returns", r.ID)
	}
	if _, err := lang.Parse(r.Language); err != nil {
		p.bad("language: %v", err)
	}
	if !r.Status.Valid() {
		p.bad("invalid status %q: use one of %s", r.Status, joinStatuses())
	}
	if r.CreatedAt.IsZero() {
		p.bad("created_at is not set")
	}
	if len(r.CreatedBy) > maxCreatedByLen || CleanLine(r.CreatedBy) != r.CreatedBy {
		p.bad("created_by is not one line of at most %d bytes", maxCreatedByLen)
	}
	if err := r.Candidate.Validate(); err != nil {
		fe, _ := err.(FieldErrors)
		for _, f := range slices.Sorted(maps.Keys(fe)) {
			p.bad("candidate %s: %s", f, fe[f])
		}
	}
}

// validateDesigns checks the design versions and the options.
func (r *Record) validateDesigns(p *recordProblems) {
	for _, v := range []string{r.BlueprintVersion, r.TemplateVersion} {
		if v != "" && !ValidDesignVersion(v) {
			p.bad("design version %q is not a version of the design library", v)
		}
	}
	if r.Options != nil {
		if err := r.Options.Validate(); err != nil {
			p.bad("options: %v", err)
		}
	}
}

// validateTexts checks the free texts against their size limits.
func (r *Record) validateTexts(p *recordProblems) {
	if utf8.RuneCountInString(r.JobDescription) > MaxJobDescriptionLen {
		p.bad("job description is longer than %d characters", MaxJobDescriptionLen)
	}
	if utf8.RuneCountInString(r.Brief) > MaxBriefLen {
		p.bad("brief is longer than %d characters", MaxBriefLen)
	}
	if len(r.ResumeText) > MaxResumeTextLen {
		p.bad("résumé text is larger than %d bytes", MaxResumeTextLen)
	}
}

// validateLife checks the interview's times, consent, recordings, revocation,
// re-issue links and rejoin window.
func (r *Record) validateLife(p *recordProblems) {
	if r.StartedAt != nil && r.EndedAt != nil && r.EndedAt.Before(*r.StartedAt) {
		p.bad("ended_at %s is before started_at %s", r.EndedAt.Format(time.RFC3339Nano), r.StartedAt.Format(time.RFC3339Nano))
	}
	if r.Status.Finished() && r.EndedAt == nil {
		p.bad("status %s needs ended_at: end the interview with Finish", r.Status)
	}
	if r.Consent != nil {
		if err := r.Consent.Validate(); err != nil {
			p.bad("%v", err)
		}
	}
	for i := range r.Recordings {
		if err := r.Recordings[i].Validate(); err != nil {
			p.bad("%v", err)
		}
	}
	if err := r.validateSignals(); err != nil {
		p.bad("%v", err)
	}
	if len(r.RevokedBy) > maxCreatedByLen || CleanLine(r.RevokedBy) != r.RevokedBy {
		p.bad("revoked_by is not one line of at most %d bytes", maxCreatedByLen)
	}
	for _, other := range []string{r.ReissuedAs, r.ReissuedFrom} {
		if other != "" && !ValidID(other) {
			p.bad("reissued_as/reissued_from %q is not an interview id", other)
		}
	}
	if r.RejoinUntil != nil && r.Status != StatusCandidateLeft {
		p.bad("rejoin_until is set but the interview is %s: only a candidate who left can rejoin", r.Status)
	}
}

// validateStages checks that stage visits are named and in order.
func (r *Record) validateStages(p *recordProblems) {
	for i, s := range r.Stages {
		if s.Name == "" {
			p.bad("stage visit %d has no name", i+1)
		}
		if s.LeftAt != nil && s.LeftAt.Before(s.EnteredAt) {
			p.bad("stage visit %d (%s) left before it was entered", i+1, s.Name)
		}
		if s.LeftAt == nil && i < len(r.Stages)-1 {
			p.bad("stage visit %d (%s) was never left although a later stage was entered", i+1, s.Name)
		}
	}
}

// validateQuestions checks the questions' ids and texts and returns the set
// of their ids, for the turns and assessments that refer to them.
func (r *Record) validateQuestions(p *recordProblems) map[string]bool {
	qids := make(map[string]bool, len(r.Questions))
	for i, q := range r.Questions {
		switch {
		case q.ID == "":
			p.bad("question %d has no id", i+1)
		case qids[q.ID]:
			p.bad("question id %q is used twice", q.ID)
		}
		qids[q.ID] = true
		if strings.TrimSpace(q.Text) == "" {
			p.bad("question %q has no text", q.ID)
		}
	}
	return qids
}

// validateTurns checks the turns' order, speakers, times, question
// references and metrics.
func (r *Record) validateTurns(p *recordProblems, qids map[string]bool) {
	prev := 0
	for i, t := range r.Turns {
		if t.Seq <= prev {
			p.bad("turn %d has seq %d, not above the previous %d: add turns with AppendTurn", i+1, t.Seq, prev)
		}
		prev = t.Seq
		if !t.Role.Valid() {
			p.bad("turn %d has role %q: use agent or candidate", t.Seq, t.Role)
		}
		if !t.StartedAt.IsZero() && !t.EndedAt.IsZero() && t.EndedAt.Before(t.StartedAt) {
			p.bad("turn %d ended before it started", t.Seq)
		}
		if c := t.STTConfidence; !(c >= 0 && c <= 1) {
			p.bad("turn %d has stt_confidence %v: use a number from 0 to 1", t.Seq, c)
		}
		for _, id := range t.QuestionIDs {
			if !qids[id] {
				p.bad("turn %d refers to unknown question %q", t.Seq, id)
			}
		}
		if m := t.Metrics; m != nil {
			for _, v := range []float64{m.EndOfUtteranceMs, m.STTFinalMs, m.LLMFirstTokenMs, m.TTSFirstByteMs, m.EndToEndMs, m.EndpointingDelayMs} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					p.bad("turn %d has a metric that is not a finite number", t.Seq)
					break
				}
			}
		}
	}
}

// validateOutcome checks the assessments, incidents, report and decisions.
func (r *Record) validateOutcome(p *recordProblems, qids map[string]bool) {
	for i, a := range r.Assessments {
		if a.DepthScore < 0 || a.DepthScore > 5 || a.DepthScore == 0 && !a.Declined {
			p.bad("assessment %d has depth score %d: use 1 to 5", i+1, a.DepthScore)
		}
		if a.QuestionID != "" && !qids[a.QuestionID] {
			p.bad("assessment %d refers to unknown question %q", i+1, a.QuestionID)
		}
	}
	if len(r.Incidents) > MaxIncidents {
		p.bad("%d incidents, more than %d: add them with AddIncident", len(r.Incidents), MaxIncidents)
	}
	for i, inc := range r.Incidents {
		if err := validateIncident(inc); err != nil {
			p.bad("incident %d %v", i+1, err)
		}
	}
	if r.Report != nil {
		if err := r.Report.Validate(); err != nil {
			p.bad("report: %v", err)
		}
	}
	for i, d := range r.Decisions {
		if !d.Decision.Valid() {
			p.bad("decision %d: %q is not advance, hold or reject", i+1, d.Decision)
		}
	}
}

func joinStatuses() string {
	s := make([]string, len(Statuses))
	for i, st := range Statuses {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}
