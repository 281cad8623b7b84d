package interviews

import (
	"slices"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// Public returns a deep copy of r without the server-side texts (job
// description, résumé text and summary), for responses that leave the
// server.
func (r *Record) Public() *Record {
	c := r.Clone()
	c.JobDescription, c.ResumeText, c.ResumeSummary, c.Brief = "", "", "", ""
	return c
}

// TextsDropped notes that a record's server-side texts were removed.
type TextsDropped struct {
	// At is when they were removed.
	At time.Time `json:"at"`
	// Reason says why ("report ready").
	Reason string `json:"reason"`
}

// DropReasonReportReady is the TextsDropped.Reason of texts removed once
// the interview's report was written.
const DropReasonReportReady = "report ready"

// HasServerTexts reports whether r holds any of the server-side texts
// DropServerTexts removes.
func (r *Record) HasServerTexts() bool {
	return r.JobDescription != "" || r.ResumeText != "" || r.ResumeSummary != "" || r.Brief != ""
}

// DropServerTexts removes the server-side texts — the job description, the
// résumé text and its summary, a knowledge capture's brief — that served
// the interview and its report, and notes when and why. It reports whether
// there was anything to remove; a record without them is left as it is.
func (r *Record) DropServerTexts(at time.Time, reason string) bool {
	if !r.HasServerTexts() {
		return false
	}
	r.JobDescription, r.ResumeText, r.ResumeSummary, r.Brief = "", "", "", ""
	r.TextsDropped = &TextsDropped{At: at.UTC().Round(0), Reason: reason}
	return true
}

// Clone returns a deep copy of r that shares no memory with it, so a
// snapshot can be saved outside the lock that guards r.
func (r *Record) Clone() *Record {
	c := *r
	if r.TextsDropped != nil {
		d := *r.TextsDropped
		c.TextsDropped = &d
	}
	c.StartedAt = cloneTime(r.StartedAt)
	c.EndedAt = cloneTime(r.EndedAt)
	c.RejoinUntil = cloneTime(r.RejoinUntil)
	c.ExpiresAt = cloneTime(r.ExpiresAt)
	c.OpenedAt = cloneTime(r.OpenedAt)
	c.RevokedAt = cloneTime(r.RevokedAt)
	if r.Consent != nil {
		cs := *r.Consent
		c.Consent = &cs
	}
	c.Options = r.Options.Clone()
	c.Recordings = cloneEach(r.Recordings, func(rc *Recording) { rc.DeletedAt = cloneTime(rc.DeletedAt) })
	c.Absences = cloneEach(r.Absences, func(a *Absence) { a.BackAt = cloneTime(a.BackAt) })
	c.Stages = cloneEach(r.Stages, func(s *StageVisit) { s.LeftAt = cloneTime(s.LeftAt) })
	c.Turns = cloneEach(r.Turns, func(t *Turn) {
		t.QuestionIDs = slices.Clone(t.QuestionIDs)
		if t.Metrics != nil {
			m := *t.Metrics
			t.Metrics = &m
		}
	})
	c.Questions = cloneEach(r.Questions, func(q *stages.Question) { *q = q.Clone() })
	c.Assessments = cloneEach(r.Assessments, func(a *Assessment) { a.KeyPoints = slices.Clone(a.KeyPoints) })
	c.Incidents = slices.Clone(r.Incidents)
	c.Signals = slices.Clone(r.Signals)
	c.Mailings = slices.Clone(r.Mailings)
	if r.TurnTaking != nil {
		tt := *r.TurnTaking
		c.TurnTaking = &tt
	}
	c.Report = r.Report.Clone()
	c.Decisions = slices.Clone(r.Decisions)
	c.Audit = slices.Clone(r.Audit)
	if r.Engines != nil {
		e := *r.Engines
		c.Engines = &e
	}
	c.Skills = cloneEach(r.Skills, func(s *Skill) {
		s.Sources = slices.Clone(s.Sources)
		s.Evidence = slices.Clone(s.Evidence)
	})
	c.Gaps = cloneEach(r.Gaps, func(g *Gap) { g.QuestionIDs = slices.Clone(g.QuestionIDs) })
	c.Rubric = cloneEach(r.Rubric, func(f *RubricItem) { f.QuestionIDs = slices.Clone(f.QuestionIDs) })
	c.Answers = cloneEach(r.Answers, func(a *Answer) { a.Facts = slices.Clone(a.Facts) })
	c.Backlog = slices.Clone(r.Backlog)
	c.Phases = cloneEach(r.Phases, func(p *Phase) { p.Gaps = slices.Clone(p.Gaps) })
	if r.Exit != nil {
		e := *r.Exit
		c.Exit = &e
	}
	if r.Summary != nil {
		s := *r.Summary
		s.Topics = cloneEach(s.Topics, func(t *SummaryTopic) { t.Points = slices.Clone(t.Points) })
		c.Summary = &s
	}
	return &c
}

// cloneEach copies s element by element and lets deep give each copy its
// own memory where the element holds pointers or slices; nil stays nil.
func cloneEach[T any](s []T, deep func(*T)) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s))
	for i := range s {
		c[i] = s[i]
		deep(&c[i])
	}
	return c
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}
