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

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
