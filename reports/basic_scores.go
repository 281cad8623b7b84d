package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The basic report's competencies and their scores, the overall score
// and the headline.

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
			score, why = communication(v)
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
	for _, a := range v.judged() {
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
func communication(v *view) (float64, string) {
	as := v.judged()
	if len(as) == 0 {
		return NeutralScore, "No clear answer to judge; scored neutral."
	}
	inBand, words, fillers := 0, 0, 0
	for _, a := range as {
		words += a.words
		fillers += a.fillers
		if a.words >= MinHealthyAnswerWords && a.words <= MaxHealthyAnswerWords {
			inBand++
		}
	}
	rate := 0.0
	if words > 0 {
		rate = 100 * float64(fillers) / float64(words)
	}
	ps := []float64{float64(inBand) / float64(len(as)), 1 - rate/fillersPer100WordsAtZero}
	why := []string{
		fmt.Sprintf("%d of %d answers judged were %d–%d words long (mean %.0f)", inBand, len(as), MinHealthyAnswerWords, MaxHealthyAnswerWords, float64(words)/float64(len(as))),
		fmt.Sprintf("%d filler words in %d words (%.1f per 100)", fillers, words, rate),
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
	if known, all := skillsKnown(v); all > 0 {
		ps = append(ps, float64(len(known))/float64(all))
		why = append(why, fmt.Sprintf("%d of %d skills discussed%s", len(known), all, enclosedList(known)))
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

// skillsKnown names the candidate's skills (the record's, those they said
// they lack left out) that something is known of: an attribute filled,
// or a clear answer naming the skill; all is how many skills there are.
func skillsKnown(v *view) (known []string, all int) {
	for _, sk := range v.rec.Skills {
		if sk.Absent {
			continue
		}
		all++
		filled := slices.ContainsFunc(stages.SkillAttributes, func(attr string) bool { return sk.Attribute(attr) != "" })
		if filled || slices.ContainsFunc(v.judged(), func(a *answer) bool { return names(a.turn.Text, sk.Name) }) {
			known = append(known, sk.Name)
		}
	}
	return known, all
}

// names reports whether text names skill as a whole word: ignoring case
// for names of four letters or more, as written for shorter ones ("Go",
// not "go").
func names(text, skill string) bool {
	skill = strings.TrimSpace(skill)
	if skill == "" {
		return false
	}
	for i := 0; ; {
		j := indexFold(text[i:], skill, len(skill) >= 4)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(skill)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func indexFold(s, sub string, fold bool) int {
	if fold {
		return strings.Index(strings.ToLower(s), strings.ToLower(sub))
	}
	return strings.Index(s, sub)
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b >= 0x80
}

// enclosedList is " (a, b and c)", or "" for none.
func enclosedList(words []string) string {
	if len(words) == 0 {
		return ""
	}
	if len(words) > 4 {
		words = append(slices.Clone(words[:4]), "more")
	}
	return " (" + joinAnd(words) + ")"
}

// joinAnd joins words as "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
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
