package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
	// garbled is true for text that reads like a speech recogniser's
	// garble (analysis.Plausible): it is never quoted.
	garbled bool
}

// view is the record read once for the report.
type view struct {
	rec     *interviews.Record
	bp      *stages.Blueprint
	answers []*answer
	// byQuestion maps a question id to its answers, in order.
	byQuestion map[string][]*answer
	questions  map[string]*stages.Question
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
	lastAsked := ""
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
			garbled: !analysis.Plausible(t.Text)}
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
	r.Strengths = strengths(v)
	r.Improvements = improvements(v, r.STAR)
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
}

// stats computes the transcript's figures.
func stats(v *view) interviews.TranscriptStats {
	var s interviews.TranscriptStats
	var candidate, agent float64
	for _, t := range v.rec.Turns {
		d := t.EndedAt.Sub(t.StartedAt).Seconds()
		if t.StartedAt.IsZero() || t.EndedAt.IsZero() || d <= 0 {
			continue
		}
		switch t.Role {
		case interviews.RoleCandidate:
			candidate += d
		case interviews.RoleAgent:
			agent += d
		}
	}
	if candidate+agent > 0 {
		s.TalkTimeRatio = round(candidate/(candidate+agent), 3)
	}
	words := make([]int, 0, len(v.answers))
	total := 0
	for _, a := range v.answers {
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
	return s
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
	for _, q := range rec.Questions {
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
	for _, q := range v.rec.Questions {
		as := v.byQuestion[q.ID]
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

// competencies scores each competency the blueprint names (or the
// defaults).
func competencies(v *view, r interviews.Report) []interviews.Competency {
	names := DefaultCompetencies
	if v.bp != nil && len(v.bp.Competencies) > 0 {
		names = v.bp.Competencies
	}
	out := make([]interviews.Competency, 0, len(names))
	for _, name := range names {
		var score float64
		var why string
		switch strings.ToLower(strings.TrimSpace(name)) {
		case CompetencyCommunication:
			score, why = communication(v, r.Stats)
		case CompetencyTechnical:
			score, why = technicalDepth(v)
		case CompetencyStructure:
			score, why = structure(r.STAR)
		case CompetencyRoleFit:
			score, why = roleFit(v.rec)
		default:
			score, why = NeutralScore, fmt.Sprintf("The basic report cannot judge %s from the transcript alone; it is scored neutral. A model's report or a reviewer can.", name)
		}
		out = append(out, interviews.Competency{Name: name, Score: math.Round(score), Rationale: why})
	}
	return out
}

// parts averages the parts of a score that could be measured (each 0–1)
// into 0–100; none measured gives NeutralScore.
func parts(ps []float64) float64 {
	if len(ps) == 0 {
		return NeutralScore
	}
	sum := 0.0
	for _, p := range ps {
		sum += clamp01(p)
	}
	return 100 * sum / float64(len(ps))
}

// confidenceMix counts the answers' confidence levels and returns their
// mean, mapped from low–high to 0–1.
func confidenceMix(v *view) (share float64, text string, ok bool) {
	counts := map[interviews.Confidence]int{}
	sum, n := 0.0, 0
	for _, a := range v.answers {
		if a.analysis == nil || !a.analysis.Confidence.Valid() {
			continue
		}
		counts[a.analysis.Confidence]++
		sum += a.analysis.Confidence.Score()
		n++
	}
	if n == 0 {
		return 0, "", false
	}
	low, high := interviews.ConfidenceLow.Score(), interviews.ConfidenceHigh.Score()
	return (sum/float64(n) - low) / (high - low),
		fmt.Sprintf("answers' confidence: %d high, %d medium, %d low", counts[interviews.ConfidenceHigh], counts[interviews.ConfidenceMedium], counts[interviews.ConfidenceLow]),
		true
}

// communication weighs answer length, fillers and the confidence mix.
func communication(v *view, s interviews.TranscriptStats) (float64, string) {
	if len(v.answers) == 0 {
		return NeutralScore, "No answers to judge; scored neutral."
	}
	inBand, words := 0, 0
	for _, a := range v.answers {
		words += a.words
		if a.words >= MinHealthyAnswerWords && a.words <= MaxHealthyAnswerWords {
			inBand++
		}
	}
	rate := 0.0
	if words > 0 {
		rate = 100 * float64(s.FillerWords) / float64(words)
	}
	ps := []float64{float64(inBand) / float64(len(v.answers)), 1 - rate/fillersPer100WordsAtZero}
	why := []string{
		fmt.Sprintf("%d of %d answers were %d–%d words long (mean %.0f)", inBand, len(v.answers), MinHealthyAnswerWords, MaxHealthyAnswerWords, s.MeanAnswerWords),
		fmt.Sprintf("%d filler words in %d words (%.1f per 100)", s.FillerWords, words, rate),
	}
	if share, text, ok := confidenceMix(v); ok {
		ps = append(ps, share)
		why = append(why, text)
	}
	return parts(ps), sentence(why)
}

// technicalDepth weighs the assessments' depth, the answers' confidence,
// the skill attributes filled and the design phases' scores.
func technicalDepth(v *view) (float64, string) {
	var ps []float64
	var why []string
	depth, n := 0, 0
	for _, a := range v.rec.Assessments {
		if !a.Declined && a.DepthScore >= 1 && a.DepthScore <= 5 {
			depth += a.DepthScore
			n++
		}
	}
	if n > 0 {
		mean := float64(depth) / float64(n)
		ps = append(ps, (mean-1)/4)
		why = append(why, fmt.Sprintf("assessed depth %.1f of 5 over %d answers", mean, n))
	}
	if share, text, ok := confidenceMix(v); ok {
		ps = append(ps, share)
		why = append(why, text)
	}
	if len(v.rec.Skills) > 0 {
		filled := 0
		for _, sk := range v.rec.Skills {
			for _, attr := range stages.SkillAttributes {
				if sk.Attribute(attr) != "" {
					filled++
				}
			}
		}
		all := len(v.rec.Skills) * len(stages.SkillAttributes)
		ps = append(ps, float64(filled)/float64(all))
		why = append(why, fmt.Sprintf("%d of %d skill attributes known across %d skills", filled, all, len(v.rec.Skills)))
	}
	if len(v.rec.Phases) > 0 {
		best := map[string]float64{}
		for _, p := range v.rec.Phases {
			best[p.ID] = max(best[p.ID], p.Score)
		}
		sum := 0.0
		for _, s := range best {
			sum += s
		}
		mean := sum / float64(len(best))
		ps = append(ps, mean/10)
		why = append(why, fmt.Sprintf("design phases scored %.1f of 10 on average over %d phases", mean, len(best)))
	}
	if len(ps) == 0 {
		return NeutralScore, "No assessments, analyses or phase scores to judge depth from; scored neutral."
	}
	return parts(ps), sentence(why)
}

// structure scores the STAR completeness of the behavioural answers.
func structure(star []interviews.STAR) (float64, string) {
	if len(star) == 0 {
		return NeutralScore, "No behavioural question (\"tell me about a time…\") was answered, so the structure of stories could not be judged; scored neutral."
	}
	total, complete := 0, 0
	for _, s := range star {
		c := starCount(s)
		total += c
		if c == 4 {
			complete++
		}
	}
	share := float64(total) / float64(4*len(star))
	return 100 * share, fmt.Sprintf("%d of %d behavioural answers had all four STAR parts (situation, task, action, result); %d of %d parts present overall.",
		complete, len(star), total, 4*len(star))
}

// roleFit weighs the rubric coverage and the required skills' gaps
// resolved.
func roleFit(rec *interviews.Record) (float64, string) {
	var ps []float64
	var why []string
	if cov, ok := rubricCoverage(rec); ok {
		ps = append(ps, cov)
		why = append(why, fmt.Sprintf("%.0f%% of the required rubric fields covered", 100*cov))
	}
	required, resolved := 0, 0
	for _, g := range rec.Gaps {
		if g.Priority == stages.P0 {
			required++
			if g.Status == interviews.StatusResolved {
				resolved++
			}
		}
	}
	if required > 0 {
		ps = append(ps, float64(resolved)/float64(required))
		why = append(why, fmt.Sprintf("%d of %d gaps on skills the job requires resolved", resolved, required))
	}
	if len(ps) == 0 {
		return NeutralScore, "The interview had no rubric and no job requirements to measure fit against; scored neutral."
	}
	return parts(ps), sentence(why)
}

// overall is the mean competency score.
func overall(cs []interviews.Competency) float64 {
	if len(cs) == 0 {
		return 0
	}
	sum := 0.0
	for _, c := range cs {
		sum += c.Score
	}
	return math.Round(sum / float64(len(cs)))
}

// Overall score bands of the headline.
const (
	StrongScore = 75
	SolidScore  = 55
	MixedScore  = 40
)

// headline says the overall score in one line, with the best and the
// weakest competency.
func headline(score float64, cs []interviews.Competency) string {
	var h string
	switch {
	case score >= StrongScore:
		h = "Strong interview"
	case score >= SolidScore:
		h = "Solid interview"
	case score >= MixedScore:
		h = "Mixed interview"
	default:
		h = "Thin interview"
	}
	if len(cs) == 0 {
		return h
	}
	best := slices.MaxFunc(cs, func(a, b interviews.Competency) int { return cmp.Compare(a.Score, b.Score) })
	worst := slices.MinFunc(cs, func(a, b interviews.Competency) int { return cmp.Compare(a.Score, b.Score) })
	if best.Score-worst.Score < 10 {
		return h + ", even across competencies"
	}
	return fmt.Sprintf("%s, strongest in %s; %s could be better", h, best.Name, worst.Name)
}

// captureHeadline says how much a knowledge capture recorded.
func captureHeadline(topics, answers int) string {
	return fmt.Sprintf("Captured %d %s from %d %s", topics, plural(topics, "topic", "topics"), answers, plural(answers, "answer", "answers"))
}

// MaxPoints is how many strengths or improvements a report gives at most;
// MinPoints at least, when the answers allow.
const (
	MinPoints = 2
	MaxPoints = 3
)

// candidatePoint is a possible strength or improvement with its weight.
type candidatePoint struct {
	point  interviews.Point
	weight float64
}

// pickPoints keeps the MaxPoints heaviest, one per question, ties in
// order.
func pickPoints(cands []candidatePoint) []interviews.Point {
	slices.SortStableFunc(cands, func(a, b candidatePoint) int { return cmp.Compare(b.weight, a.weight) })
	var out []interviews.Point
	seen := map[string]bool{}
	for _, c := range cands {
		key := c.point.QuestionID
		if key == "" {
			key = c.point.Quote
		}
		if seen[key] || c.point.Quote == "" {
			continue
		}
		seen[key] = true
		out = append(out, c.point)
		if len(out) == MaxPoints {
			break
		}
	}
	return out
}

// questionRef names a question in a point's text.
func questionRef(id string) string {
	if id == "" {
		return "an answer"
	}
	return "the answer to " + id
}

// strengths picks answers with high confidence, figures or ownership;
// never a garbled one.
func strengths(v *view) []interviews.Point {
	var cands, fallback []candidatePoint
	for _, a := range v.answers {
		if a.garbled {
			continue
		}
		figure, owns := hasFigure(a.turn.Text), hasAny(a.norm, OwnershipCues)
		conf := 0.0
		if a.analysis != nil {
			conf = a.analysis.Confidence.Score()
		}
		depth := 0.0
		if a.assessment != nil {
			depth = float64(a.assessment.DepthScore) / 5
		}
		ref := questionRef(a.questionID)
		switch {
		case figure && (conf >= interviews.ConfidenceHigh.Score() || a.analysis == nil):
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "Concrete figures: " + ref + " put numbers on the work and its outcome.",
				Quote: pickSentence(a.turn.Text, hasFigure), QuestionID: a.questionID,
			}, 2 + conf + depth + boolWeight(owns)})
		case owns && (conf >= interviews.ConfidenceMedium.Score() || a.analysis == nil):
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "Clear ownership: " + ref + " says what the candidate did themselves.",
				Quote: pickSentence(a.turn.Text, func(s string) bool { return hasAny(normalized(s), OwnershipCues) }), QuestionID: a.questionID,
			}, 1.5 + conf + depth})
		case conf >= interviews.ConfidenceHigh.Score() || depth >= 0.8:
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "A full, specific answer: " + ref + " answered the question directly.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 1 + conf + depth})
		case a.words >= MinHealthyAnswerWords:
			fallback = append(fallback, candidatePoint{interviews.Point{
				Text:  "A detailed answer: " + ref + " gave context in the candidate's own words.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, float64(a.words) / 1000})
		}
	}
	out := pickPoints(cands)
	if len(out) < MinPoints {
		out = pickPoints(append(cands, fallback...))
	}
	return out
}

// improvements picks vague answers, stories missing STAR parts, fillers
// and answers without figures; never a garbled one.
func improvements(v *view, star []interviews.STAR) []interviews.Point {
	var cands, fallback []candidatePoint
	starByQ := map[string]interviews.STAR{}
	for _, s := range star {
		starByQ[s.QuestionID] = s
	}
	for _, a := range v.answers {
		if a.garbled {
			continue
		}
		ref := questionRef(a.questionID)
		if a.analysis != nil && (a.analysis.Confidence == interviews.ConfidenceLow || a.analysis.Confidence == interviews.ConfidenceMedium) {
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "Be more specific: " + ref + " stayed general; add an example, your own part and the outcome.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 3 - a.analysis.Confidence.Score()})
		}
		if s, ok := starByQ[a.questionID]; ok && starCount(s) < 4 && v.byQuestion[a.questionID][0] == a {
			missing := missingParts(s)
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  fmt.Sprintf("Tell the whole story: %s had no %s; a situation, your task, what you did and the result make it land.", ref, joinOr(missing)),
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 2 + float64(len(missing))/4})
		}
		if a.fillers >= 2 {
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  fmt.Sprintf("Fewer fillers: %s had %d (%s); a short pause reads better.", ref, a.fillers, quoteList(a.fillerList)),
				Quote: pickSentence(a.turn.Text, func(s string) bool { n, _ := countFillers(s); return n > 0 }), QuestionID: a.questionID,
			}, 1.5 + float64(a.fillers)/10})
		}
		switch {
		case a.words < MinHealthyAnswerWords:
			fallback = append(fallback, candidatePoint{interviews.Point{
				Text:  "Say more: " + ref + " was short; a sentence of context and one of outcome would help.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 1})
		case !hasFigure(a.turn.Text):
			fallback = append(fallback, candidatePoint{interviews.Point{
				Text:  "Put numbers on it: " + ref + " had no figures; say how much, how many or how fast.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 0.5})
		}
	}
	out := pickPoints(cands)
	if len(out) < MinPoints {
		out = pickPoints(append(cands, fallback...))
	}
	return out
}

// keyKinds are the kinds of question whose feedback the report gives.
var keyKinds = []stages.QuestionKind{stages.KindRubric, stages.KindTemplate, stages.KindGap}

// MaxKeyQuestions bounds the key questions of a report.
const MaxKeyQuestions = 8

// keyQuestions gives feedback on the rubric, template and gap questions;
// on a record without question kinds, on the questions answered.
func keyQuestions(v *view) []interviews.QuestionFeedback {
	key := func(q stages.Question) bool { return slices.Contains(keyKinds, q.Context.Kind) }
	if !slices.ContainsFunc(v.rec.Questions, key) {
		key = func(q stages.Question) bool { return len(v.byQuestion[q.ID]) > 0 }
	}
	var out []interviews.QuestionFeedback
	for _, q := range v.rec.Questions {
		if !key(q) || q.Withdrawn {
			continue
		}
		out = append(out, feedbackOn(v, q))
		if len(out) == MaxKeyQuestions {
			break
		}
	}
	return out
}

// feedbackOn says what was good and what was missing in the answers to q.
func feedbackOn(v *view, q stages.Question) interviews.QuestionFeedback {
	fb := interviews.QuestionFeedback{QuestionID: q.ID, Question: q.Text}
	as := v.byQuestion[q.ID]
	if len(as) == 0 {
		fb.Missing = "No answer was recorded."
		return fb
	}
	var facts []string
	conf := interviews.Confidence("")
	for _, a := range as {
		if a.analysis != nil {
			facts = append(facts, a.analysis.Facts...)
			if a.analysis.Confidence.Score() > conf.Score() {
				conf = a.analysis.Confidence
			}
		} else if a.assessment != nil {
			facts = append(facts, a.assessment.KeyPoints...)
		}
	}
	if len(facts) > 2 {
		facts = facts[:2]
	}
	var good, missing []string
	if len(facts) > 0 {
		good = append(good, strings.Join(facts, " "))
	}
	switch conf {
	case interviews.ConfidenceHigh:
		good = append(good, "Answered fully and specifically.")
	case interviews.ConfidenceMedium, interviews.ConfidenceLow:
		missing = append(missing, fmt.Sprintf("The answer stayed general (%s confidence).", conf))
	}
	t := q.Context.Targets
	switch q.Context.Kind {
	case stages.KindGap:
		for _, g := range v.rec.Gaps {
			if strings.EqualFold(g.Skill, t.Skill) && g.Attribute == t.Attribute && g.Status != interviews.StatusResolved {
				missing = append(missing, upperFirst(g.InWords())+" is still unknown.")
			}
		}
	case stages.KindRubric:
		for _, f := range v.rec.Rubric {
			if f.ID == t.Field && f.Status != interviews.StatusCovered {
				missing = append(missing, fmt.Sprintf("%s was not established.", f.Label))
			}
		}
	}
	if q.Expected != "" && conf != interviews.ConfidenceHigh {
		missing = append(missing, "A good answer covers: "+q.Expected)
	}
	fb.Good = strings.Join(good, " ")
	fb.Missing = strings.Join(missing, " ")
	return fb
}

// OtherTopic holds a knowledge capture's points that belong to no topic
// of its backlog.
const OtherTopic = "Other"

// topics is a knowledge capture's summary: the record's own, or the
// answers' facts grouped by the topic of the question they answered.
func topics(v *view) []interviews.SummaryTopic {
	if v.rec.Summary != nil && len(v.rec.Summary.Topics) > 0 {
		return (&interviews.Report{Topics: v.rec.Summary.Topics}).Clone().Topics
	}
	topicOf := map[string]string{}
	for _, b := range v.rec.Backlog {
		if b.QuestionID != "" && b.Topic != "" {
			topicOf[b.QuestionID] = b.Topic
		}
	}
	var out []interviews.SummaryTopic
	index := map[string]int{}
	for _, a := range v.answers {
		var points []string
		if a.analysis != nil {
			points = a.analysis.Facts
		}
		if len(points) == 0 {
			if s := longestSentence(a.turn.Text); s != "" {
				points = []string{s}
			}
		}
		if len(points) == 0 {
			continue
		}
		title := cmp.Or(topicOf[a.questionID], OtherTopic)
		i, ok := index[title]
		if !ok {
			i = len(out)
			index[title] = i
			out = append(out, interviews.SummaryTopic{Title: title})
		}
		out[i].Points = append(out[i].Points, points...)
	}
	return out
}

// sentence joins clauses into one sentence.
func sentence(clauses []string) string {
	if len(clauses) == 0 {
		return ""
	}
	s := strings.Join(clauses, "; ")
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:] + "."
}

// joinOr joins words as "a, b or c".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// quoteList quotes each word: "um", "you know".
func quoteList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func boolWeight(b bool) float64 {
	if b {
		return 0.5
	}
	return 0
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }

// round rounds x to the given number of decimals.
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
