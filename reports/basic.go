package reports

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Basic is the offline Generator: a deterministic report computed from
// the record alone — the answers' analyses and the interviewer's
// assessments, the rubric, the gaps and the transcript's figures —
// labelled as the basic report (Report.Basic). It works on records with
// none of the intelligence fields too, from turns and assessments.
type Basic struct{}

var _ Generator = Basic{}

// ErrNoRecord is returned for an Input without a record.
var ErrNoRecord = errors.New("reports: no record to report on")

// Generate writes the basic report of in; see Generator.
func (Basic) Generate(_ context.Context, in Input) (interviews.Report, error) {
	if in.Record == nil {
		return interviews.Report{}, ErrNoRecord
	}
	return basicReport(in), nil
}

// The names of the competencies the basic report can judge
// (DefaultCompetencies), matched ignoring case.
const (
	CompetencyCommunication = "communication"
	CompetencyTechnical     = "technical depth"
	CompetencyStructure     = "structure of answers"
	CompetencyRoleFit       = "role fit"
)

// NeutralScore is the score of a competency there is nothing to judge
// from: neither good nor bad.
const NeutralScore = 50

// Healthy answer lengths, in words: shorter reads as thin, longer as
// rambling.
const (
	MinHealthyAnswerWords = 15
	MaxHealthyAnswerWords = 180
)

// fillersPer100WordsAtZero is the filler rate (per 100 words) at which the
// filler part of communication scores zero.
const fillersPer100WordsAtZero = 10

// BehaviouralCues mark a behavioural question, one that asks for a story
// the STAR structure fits; matched on whole words, ignoring case.
var BehaviouralCues = []string{"tell me about a time", "describe a time", "walk me through", "example", "a situation where", "a time when", "share a time", "tell me about when"}

// The cue phrases of the STAR parts, matched on whole words in the
// candidate's answer; a figure (hasFigure) is a result too.
var (
	SituationCues = []string{"when", "at my last job", "at my previous job", "at my last company", "at my previous company",
		"we had", "there was", "back in", "at the time", "our team", "in my last role", "in my previous role"}
	TaskCues = []string{"my goal", "the goal", "i needed to", "i had to", "we needed to", "i was asked", "i was responsible",
		"my job was", "my task", "my role was", "i was tasked", "the challenge was"}
	ActionCues = []string{"i built", "i decided", "i led", "i wrote", "i designed", "i set up", "i created", "i implemented",
		"i introduced", "i moved", "i changed", "i proposed", "i ran", "i migrated", "i rewrote", "i added", "i organised",
		"i organized", "i started", "i convinced", "i owned", "i fixed", "i split"}
	ResultCues = []string{"as a result", "which cut", "cut", "reduced", "increased", "improved", "saved", "resulted",
		"in the end", "the outcome", "so that", "halved", "doubled", "dropped", "went from"}
)

// OwnershipCues mark an answer in which the candidate says what they did
// themselves (the action cues and a few more).
var OwnershipCues = append(slices.Clone(ActionCues), "i owned", "i was responsible", "my decision", "i chose", "i pushed")

// answer is one candidate turn with what is known about it.
type answer struct {
	turn       *interviews.Turn
	questionID string
	question   *stages.Question
	analysis   *interviews.Answer
	assessment *interviews.Assessment
	words      int
	fillers    int
	fillerList []string
	norm       string
	// unclear is true for a transcript too unsure to quote or judge
	// (see unclear); opening for an answer in the opening stage, never
	// judged (see openingStage).
	unclear, opening bool
}

// view is the record read once for the report.
type view struct {
	rec     *interviews.Record
	bp      *stages.Blueprint
	answers []*answer
	// byQuestion maps a question id to its answers, in order.
	byQuestion map[string][]*answer
	questions  map[string]*stages.Question
	// opening is the stage whose answers are never judged (openingStage).
	opening string
}

func newView(in Input) *view {
	rec := in.Record
	v := &view{rec: rec, bp: in.Blueprint, byQuestion: map[string][]*answer{}, questions: map[string]*stages.Question{}}
	for i := range rec.Questions {
		v.questions[rec.Questions[i].ID] = &rec.Questions[i]
	}
	analyses := map[int]*interviews.Answer{}
	for i := range rec.Answers {
		analyses[rec.Answers[i].TurnSeq] = &rec.Answers[i]
	}
	assessments := map[string]*interviews.Assessment{}
	for i := range rec.Assessments {
		if id := rec.Assessments[i].QuestionID; id != "" {
			if _, ok := assessments[id]; !ok {
				assessments[id] = &rec.Assessments[i]
			}
		}
	}
	lastAsked, opening := "", openingStage(rec, in.Blueprint)
	v.opening = opening
	for i := range rec.Turns {
		t := &rec.Turns[i]
		if t.Role == interviews.RoleAgent {
			if n := len(t.QuestionIDs); n > 0 {
				lastAsked = t.QuestionIDs[n-1]
			}
			continue
		}
		if t.Role != interviews.RoleCandidate || strings.TrimSpace(t.Text) == "" || t.Aside != "" || analysis.IsRepeatRequest(t.Text) {
			continue // an aside (a request to hear the question again, their own question at the closing) is no answer
		}
		a := &answer{turn: t, questionID: lastAsked, analysis: analyses[t.Seq], words: wordCount(t.Text), norm: normalized(t.Text),
			unclear: unclear(t), opening: opening != "" && t.Stage == opening}
		if a.analysis != nil && a.analysis.QuestionID != "" {
			a.questionID = a.analysis.QuestionID
		}
		a.question = v.questions[a.questionID]
		a.assessment = assessments[a.questionID]
		a.fillers, a.fillerList = countFillers(t.Text)
		v.answers = append(v.answers, a)
		if a.questionID != "" {
			v.byQuestion[a.questionID] = append(v.byQuestion[a.questionID], a)
		}
	}
	return v
}

// basicReport computes the whole basic report.
func basicReport(in Input) interviews.Report {
	v := newView(in)
	r := interviews.Report{Basic: true}
	fillFigures(&r, v)
	if in.Blueprint != nil && in.Blueprint.KnowledgeCapture() {
		r.Topics = topics(v)
		r.Headline = captureHeadline(len(r.Topics), len(v.answers))
		return r
	}
	r.STAR = starOf(v)
	r.Competencies = competencies(v, r)
	r.OverallScore = overall(r.Competencies)
	r.Headline = headline(r.OverallScore, r.Competencies)
	var strong map[int]bool
	r.Strengths, strong = strengths(v)
	r.Improvements = improvements(v, r.STAR, strong)
	r.KeyQuestions = keyQuestions(v)
	return r
}

// fillFigures sets what the code always computes, with or without a
// model: the transcript's figures, the stages, the rubric coverage and
// the unresolved gaps.
func fillFigures(r *interviews.Report, v *view) {
	r.Stats = stats(v)
	r.Stages = stageCoverage(v.rec)
	r.RubricCoverage, _ = rubricCoverage(v.rec)
	r.UnresolvedGaps = unresolvedGaps(v.rec)
	r.UnclearTurns = unclearTurns(v)
}

// stats computes the transcript's figures.
func stats(v *view) interviews.TranscriptStats {
	var s interviews.TranscriptStats
	words := make([]int, 0, len(v.answers))
	total := 0
	for _, a := range v.answers {
		if a.turn.Typed() {
			s.TypedAnswers++
		} else {
			s.SpokenAnswers++
		}
		s.FillerWords += a.fillers
		words = append(words, a.words)
		total += a.words
	}
	s.Answers = len(words)
	if len(words) == 0 {
		return s
	}
	slices.Sort(words)
	s.MeanAnswerWords = round(float64(total)/float64(len(words)), 1)
	if n := len(words); n%2 == 1 {
		s.MedianAnswerWord = float64(words[n/2])
	} else {
		s.MedianAnswerWord = float64(words[n/2-1]+words[n/2]) / 2
	}
	s.MaxAnswerWords = words[len(words)-1]
	if s.SpokenAnswers > 0 {
		s.TalkTimeRatio = talkTime(v.rec)
	}
	return s
}

// talkTime is the candidate's share of the time either speaker spoke,
// their typed turns left out.
func talkTime(rec *interviews.Record) float64 {
	var candidate, agent float64
	for _, t := range rec.Turns {
		d := t.EndedAt.Sub(t.StartedAt).Seconds()
		if t.StartedAt.IsZero() || t.EndedAt.IsZero() || d <= 0 || t.Typed() {
			continue
		}
		switch t.Role {
		case interviews.RoleCandidate:
			candidate += d
		case interviews.RoleAgent:
			agent += d
		}
	}
	if candidate+agent == 0 {
		return 0
	}
	return round(candidate/(candidate+agent), 3)
}

// stageCoverage lists each stage visited once, in the order first
// entered, with the questions spoken there and whether a deadline forced
// the interview into it.
func stageCoverage(rec *interviews.Record) []interviews.StageCoverage {
	spokenTracked := slices.ContainsFunc(rec.Questions, func(q stages.Question) bool { return q.Spoken() })
	var out []interviews.StageCoverage
	index := map[string]int{}
	for _, s := range rec.Stages {
		i, ok := index[s.Name]
		if !ok {
			i = len(out)
			index[s.Name] = i
			out = append(out, interviews.StageCoverage{Stage: s.Name, Title: s.Title})
		}
		out[i].Forced = out[i].Forced || s.Forced
	}
	for _, q := range rec.ListedQuestions() {
		i, ok := index[q.Stage]
		if !ok || q.Withdrawn || (spokenTracked && !q.Spoken()) {
			continue
		}
		out[i].Questions++
	}
	return out
}

// rubricCoverage is the share of required rubric fields covered, and
// whether the record has any required field.
func rubricCoverage(rec *interviews.Record) (float64, bool) {
	required, covered := 0, 0
	for _, f := range rec.Rubric {
		if !f.Required {
			continue
		}
		required++
		if f.Status == interviews.StatusCovered {
			covered++
		}
	}
	if required == 0 {
		return 0, false
	}
	return round(float64(covered)/float64(required), 3), true
}

// unresolvedGaps names the gaps left open or unknown.
func unresolvedGaps(rec *interviews.Record) []string {
	var out []string
	for _, g := range rec.Gaps {
		if g.Status == interviews.StatusOpen || g.Status == interviews.StatusUnknown {
			out = append(out, g.InWords())
		}
	}
	return out
}

// behavioural reports whether a question asks for a story.
func behavioural(q *stages.Question) bool {
	return q != nil && hasAny(normalized(q.Text), BehaviouralCues)
}

// starOf judges the STAR structure of each behavioural question's answers
// (all the candidate's turns answering it, together).
func starOf(v *view) []interviews.STAR {
	var out []interviews.STAR
	for _, q := range v.rec.ListedQuestions() {
		as := v.judgedFor(q.ID)
		if len(as) == 0 || !behavioural(&q) {
			continue
		}
		var text strings.Builder
		for _, a := range as {
			text.WriteString(a.turn.Text)
			text.WriteByte(' ')
		}
		out = append(out, starParts(q.ID, text.String()))
	}
	return out
}

// starParts finds the STAR parts of one answer by their cue words.
func starParts(questionID, text string) interviews.STAR {
	norm := normalized(text)
	return interviews.STAR{
		QuestionID: questionID,
		Situation:  hasAny(norm, SituationCues),
		Task:       hasAny(norm, TaskCues),
		Action:     hasAny(norm, ActionCues),
		Result:     hasAny(norm, ResultCues) || hasFigure(text),
	}
}

func starCount(s interviews.STAR) int {
	n := 0
	for _, b := range []bool{s.Situation, s.Task, s.Action, s.Result} {
		if b {
			n++
		}
	}
	return n
}

// missingParts names the STAR parts an answer lacked.
func missingParts(s interviews.STAR) []string {
	var out []string
	for _, p := range []struct {
		name string
		has  bool
	}{{"situation", s.Situation}, {"task", s.Task}, {"action", s.Action}, {"result", s.Result}} {
		if !p.has {
			out = append(out, p.name)
		}
	}
	return out
}
