package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The basic report's strengths, areas to improve, key questions and
// topics, each quoting the candidate.

// candidatePoint is a possible strength or improvement with its weight
// and the turn it quotes.
type candidatePoint struct {
	point  interviews.Point
	weight float64
	seq    int
}

// pickPoints keeps the MaxPoints heaviest, one per question, ties in
// order, and returns them with the turns they quote.
func pickPoints(cands []candidatePoint) ([]interviews.Point, map[int]bool) {
	slices.SortStableFunc(cands, func(a, b candidatePoint) int { return cmp.Compare(b.weight, a.weight) })
	var out []interviews.Point
	seen, turns := map[string]bool{}, map[int]bool{}
	for _, c := range cands {
		key := c.point.QuestionID
		if key == "" {
			key = c.point.Quote
		}
		if seen[key] || c.point.Quote == "" {
			continue
		}
		seen[key], turns[c.seq] = true, true
		out = append(out, c.point)
		if len(out) == MaxPoints {
			break
		}
	}
	return out, turns
}

// pickWithFallback picks from cands, and from fallback too when cands
// give fewer than MinPoints.
func pickWithFallback(cands, fallback []candidatePoint) ([]interviews.Point, map[int]bool) {
	out, turns := pickPoints(cands)
	if len(out) < MinPoints {
		out, turns = pickPoints(append(cands, fallback...))
	}
	return out, turns
}

// maxRefBytes bounds the question quoted in a point's text.
const maxRefBytes = 70

// questionRef names a question in a point's text by its words, as the
// reviewer heard it asked ("the answer to “Why Go?”"); by its id when
// its words are unknown.
func (v *view) questionRef(id string) string {
	q, ok := v.questions[id]
	switch {
	case id == "":
		return "an answer"
	case !ok || strings.TrimSpace(q.Text) == "":
		return "the answer to " + id
	}
	text := strings.Join(strings.Fields(q.Text), " ")
	if len(text) > maxRefBytes {
		cut := strings.LastIndexByte(text[:maxRefBytes], ' ')
		text = strings.TrimRight(text[:max(cut, 1)], " ,;:") + "…"
	}
	return "the answer to “" + text + "”"
}

// strengths picks judged answers with high confidence, figures or
// ownership, and returns them with the turns they quote.
func strengths(v *view) ([]interviews.Point, map[int]bool) {
	var cands, fallback []candidatePoint
	for _, a := range v.quotable() {
		figure, owns := hasFigure(a.turn.Text), hasAny(a.norm, OwnershipCues)
		conf := 0.0
		if a.analysis != nil {
			conf = a.analysis.Confidence.Score()
		}
		depth := 0.0
		if a.assessment != nil {
			depth = float64(a.assessment.DepthScore) / 5
		}
		ref, seq := v.questionRef(a.questionID), a.turn.Seq
		switch {
		case figure && (conf >= interviews.ConfidenceHigh.Score() || a.analysis == nil):
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "Concrete figures: " + ref + " put numbers on the work and its outcome.",
				Quote: pickSentence(a.turn.Text, hasFigure), QuestionID: a.questionID,
			}, 2 + conf + depth + boolWeight(owns), seq})
		case owns && (conf >= interviews.ConfidenceMedium.Score() || a.analysis == nil):
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "Clear ownership: " + ref + ownershipEnding,
				Quote: pickSentence(a.turn.Text, func(s string) bool { return hasAny(normalized(s), OwnershipCues) }), QuestionID: a.questionID,
			}, 1.5 + conf + depth, seq})
		case conf >= interviews.ConfidenceHigh.Score() || depth >= 0.8:
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "A full, specific answer: " + ref + " answered the question directly.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 1 + conf + depth, seq})
		case a.words >= MinHealthyAnswerWords:
			fallback = append(fallback, candidatePoint{interviews.Point{
				Text:  "A detailed answer: " + ref + detailedEnding,
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, float64(a.words) / 1000, seq})
		}
	}
	return pickWithFallback(cands, fallback)
}

// improvements picks, among the judged answers no strength quotes, vague
// answers, stories missing STAR parts, fillers and answers without
// figures. It is written to the reviewer, about the candidate.
func improvements(v *view, star []interviews.STAR, strong map[int]bool) []interviews.Point {
	var cands, fallback []candidatePoint
	starByQ := map[string]interviews.STAR{}
	for _, s := range star {
		starByQ[s.QuestionID] = s
	}
	for _, a := range v.quotable() {
		if strong[a.turn.Seq] {
			continue
		}
		ref, seq := v.questionRef(a.questionID), a.turn.Seq
		if a.analysis != nil && (a.analysis.Confidence == interviews.ConfidenceLow || a.analysis.Confidence == interviews.ConfidenceMedium) {
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  "Stayed general: " + ref + generalEnding,
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 3 - a.analysis.Confidence.Score(), seq})
		}
		if s, ok := starByQ[a.questionID]; ok && starCount(s) < 4 && v.judgedFor(a.questionID)[0] == a {
			missing := missingParts(s)
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  fmt.Sprintf("An incomplete story: %s had no %s.", ref, joinOr(missing)),
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 2 + float64(len(missing))/4, seq})
		}
		if a.fillers >= 2 {
			cands = append(cands, candidatePoint{interviews.Point{
				Text:  fmt.Sprintf("Many fillers: %s had %d (%s).", ref, a.fillers, quoteList(a.fillerList)),
				Quote: pickSentence(a.turn.Text, func(s string) bool { n, _ := countFillers(s); return n > 0 }), QuestionID: a.questionID,
			}, 1.5 + float64(a.fillers)/10, seq})
		}
		switch {
		case a.words < MinHealthyAnswerWords:
			fallback = append(fallback, candidatePoint{interviews.Point{
				Text:  "A short answer: " + ref + " gave little context and no outcome.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 1, seq})
		case !hasFigure(a.turn.Text):
			fallback = append(fallback, candidatePoint{interviews.Point{
				Text:  "No figures: " + ref + " did not say how much, how many or how fast.",
				Quote: longestSentence(a.turn.Text), QuestionID: a.questionID,
			}, 0.5, seq})
		}
	}
	out, _ := pickWithFallback(cands, fallback)
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
	for _, q := range v.rec.ListedQuestions() {
		if !key(q) || q.Withdrawn || v.opening != "" && q.Stage == v.opening {
			continue
		}
		out = append(out, feedbackOn(v, q))
		if len(out) == MaxKeyQuestions {
			break
		}
	}
	return out
}

// feedbackOn says what was good and what was missing in the judged
// answers to q, quoting the candidate verbatim; the answers' extracted
// facts are not the candidate's words and are never given as theirs.
func feedbackOn(v *view, q stages.Question) interviews.QuestionFeedback {
	fb := interviews.QuestionFeedback{QuestionID: q.ID, Question: q.Text}
	if len(v.byQuestion[q.ID]) == 0 {
		fb.Missing = "No answer was recorded."
		return fb
	}
	as := v.judgedFor(q.ID)
	switch {
	case len(as) > 0:
	case slices.ContainsFunc(v.byQuestion[q.ID], func(a *answer) bool { return a.unclear }):
		fb.Missing = "The speech recogniser was unsure of the answer, so it is not judged; listen to the recording."
		return fb
	default:
		fb.Missing = "The answer was too short to judge."
		return fb
	}
	conf := interviews.Confidence("")
	for _, a := range as {
		if a.analysis != nil && a.analysis.Confidence.Score() > conf.Score() {
			conf = a.analysis.Confidence
		}
	}
	fb.Quote = quoteOf(as)
	var good, missing []string
	switch conf {
	case interviews.ConfidenceHigh:
		good = append(good, "Answered fully and specifically.")
	case interviews.ConfidenceMedium, interviews.ConfidenceLow:
		missing = append(missing, fmt.Sprintf("The answer stayed general (%s confidence).", conf))
	}
	if slices.ContainsFunc(as, func(a *answer) bool { return hasFigure(a.turn.Text) }) {
		good = append(good, "Put figures on it.")
	}
	missing = append(missing, stillOpen(v, q)...)
	if q.Expected != "" && conf != interviews.ConfidenceHigh {
		missing = append(missing, "A good answer covers: "+q.Expected)
	}
	fb.Good = strings.Join(good, " ")
	fb.Missing = strings.Join(missing, " ")
	return fb
}

// quoteOf is the sentence that best stands for answers: the first with a
// figure, else the longest of the longest answer.
func quoteOf(as []*answer) string {
	for _, a := range as {
		if s := pickSentence(a.turn.Text, hasFigure); s != "" {
			return s
		}
	}
	longest := slices.MaxFunc(as, func(a, b *answer) int { return cmp.Compare(a.words, b.words) })
	return longestSentence(longest.turn.Text)
}

// stillOpen says what q was asked to establish and is still unknown.
func stillOpen(v *view, q stages.Question) []string {
	var out []string
	t := q.Context.Targets
	switch q.Context.Kind {
	case stages.KindGap:
		for _, g := range v.rec.Gaps {
			if strings.EqualFold(g.Skill, t.Skill) && g.Attribute == t.Attribute && g.Status != interviews.StatusResolved {
				out = append(out, upperFirst(g.InWords())+" is still unknown.")
			}
		}
	case stages.KindRubric:
		for _, f := range v.rec.Rubric {
			if f.ID == t.Field && f.Status != interviews.StatusCovered {
				out = append(out, fmt.Sprintf("%s was not established.", f.Label))
			}
		}
	}
	return out
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
		if a.unclear {
			continue
		}
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

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
