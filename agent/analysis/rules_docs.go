package analysis

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Where a skill came from (interviews.Skill.Sources).
const (
	SourceResume       = "resume"
	SourceJobRequired  = "job_required"
	SourceJobPreferred = "job_preferred"
	SourceAnswer       = "answer"
)

// resumeConfidence is the confidence of an attribute the résumé states.
const resumeConfidence = 0.6

// Résumé durations: "Python (5 years)", "Go - 3 yrs", "5+ years of Go",
// "five years of experience with Python".
var (
	yearsWord     = `(\d+(?:\.\d+)?\+?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\+?\s*(?:years?|yrs?)`
	durationAfter = regexp.MustCompile(`(?i)^\s*(?:[(:,–—-]|\s)\s*(?:over\s+|about\s+)?` + yearsWord)
	durationLeft  = regexp.MustCompile(`(?i)` + yearsWord + `(?:\s+of)?(?:\s+(?:professional|commercial|hands-on|production))?(?:\s+experience)?\s+(?:of|with|in|using|writing)\s+$`)
)

// Skills reads the résumé and the job description by the dictionary; see
// Analyzer.
func (Rules) Skills(_ context.Context, resume, jobDescription string) ([]interviews.Skill, error) {
	var out []interviews.Skill
	index := map[string]int{}
	get := func(name string) *interviews.Skill {
		if i, ok := index[name]; ok {
			return &out[i]
		}
		index[name] = len(out)
		out = append(out, interviews.Skill{Name: name, By: interviews.ByRules})
		return &out[len(out)-1]
	}
	addSource := func(s *interviews.Skill, src string) {
		for _, have := range s.Sources {
			if have == src {
				return
			}
		}
		s.Sources = append(s.Sources, src)
	}

	for _, m := range findSkills(resume) {
		s := get(m.name)
		addSource(s, SourceResume)
	}
	// Every mention may state a duration, not only the first.
	for _, e := range dictionary {
		hay := resume
		if !e.exact {
			hay = strings.ToLower(resume)
		}
		for from := 0; ; {
			k := strings.Index(hay[from:], e.text)
			if k < 0 {
				break
			}
			start, end := from+k, from+k+len(e.text)
			from = end
			s, ok := index[e.name]
			if !ok || out[s].Duration != "" || !bounded(resume, start, end) {
				continue
			}
			if m := durationAfter.FindStringSubmatch(resume[end:]); m != nil {
				out[s].Duration = strings.TrimSpace(durationValue(m[0]))
			} else if m := durationLeft.FindStringSubmatch(resume[max(0, start-60):start]); m != nil {
				out[s].Duration = durationValue(m[0])
			} else {
				continue
			}
			out[s].Evidence = append(out[s].Evidence, clipWords(lineAround(resume, start), evidenceWords))
			out[s].Confidence = resumeConfidence
		}
	}

	for _, sec := range jobSections(jobDescription) {
		src := SourceJobRequired
		if sec.preferred {
			src = SourceJobPreferred
		}
		for _, m := range findSkills(sec.text) {
			s := get(m.name)
			if src == SourceJobPreferred && contains(s.Sources, SourceJobRequired) {
				continue
			}
			if src == SourceJobRequired {
				s.Sources = remove(s.Sources, SourceJobPreferred)
			}
			addSource(s, src)
		}
	}
	return out, nil
}

// durationValue keeps the number and unit of a matched duration: "5+
// years", "3 yrs".
func durationValue(m string) string {
	return strings.TrimSpace(yearsOnly.FindString(m))
}

// yearsOnly is a duration on its own.
var yearsOnly = regexp.MustCompile(`(?i)` + yearsWord)

// lineAround is the line of text holding offset i.
func lineAround(text string, i int) string {
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		return strings.TrimSpace(text[start:])
	}
	return strings.TrimSpace(text[start : i+end])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func remove(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// jobSection is a stretch of a job description, required or preferred.
type jobSection struct {
	text      string
	preferred bool
}

// Headings and phrases that switch a job description between what is
// required and what is preferred.
var (
	requiredMark  = regexp.MustCompile(`(?i)\b(requirements?|required|must[- ]haves?|must have|what you'?ll need|what we'?re looking for|qualifications|you have|you bring|essential|minimum)\b`)
	preferredMark = regexp.MustCompile(`(?i)\b(nice[- ]to[- ]haves?|preferred|bonus|a plus|pluses|desirable|desired|optional|good to have|extra credit|ideally)\b`)
)

// jobSections splits a job description by its headings (markdown, lines
// ending in a colon, short lines) into required and preferred stretches; a
// line that itself says "preferred" or "a plus" is preferred whatever its
// section. Text before any heading counts as required.
func jobSections(jd string) []jobSection {
	var out []jobSection
	preferred := false
	for _, line := range strings.Split(jd, "\n") {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if isHeading(l) {
			switch {
			case preferredMark.MatchString(l):
				preferred = true
			case requiredMark.MatchString(l):
				preferred = false
			}
		}
		linePreferred := preferred || preferredMark.MatchString(l)
		if n := len(out); n > 0 && out[n-1].preferred == linePreferred {
			out[n-1].text += "\n" + l
			continue
		}
		out = append(out, jobSection{text: l, preferred: linePreferred})
	}
	return out
}

// isHeading reports whether a line of a document is a heading: markdown,
// ending in a colon, or short without a full stop and not a bullet.
func isHeading(l string) bool {
	if strings.HasPrefix(l, "#") || strings.HasSuffix(l, ":") {
		return true
	}
	if bullet.MatchString(l) {
		return false
	}
	return len(strings.Fields(l)) <= 5 && !strings.ContainsAny(l, ".?!")
}

// bullet matches a list item's marker.
var bullet = regexp.MustCompile(`^\s*(?:[-*+•]|\d+[.)])\s+`)

// Brief priority markers.
var (
	markP0 = regexp.MustCompile(`(?i)\(\s*P0\s*\)|\[\s*P0\s*\]|\bmust\b`)
	markP1 = regexp.MustCompile(`(?i)\(\s*P1\s*\)|\[\s*P1\s*\]`)
	marks  = regexp.MustCompile(`(?i)\s*(?:\(\s*P[01]\s*\)|\[\s*P[01]\s*\])\s*`)
	// knowWords make a statement a "what should someone know" question.
	knowWords = regexp.MustCompile(`(?i)\b(risk|gotcha|rule|careful|watch out|never|always|quirk|caveat|fragile|undocumented|unwritten|trap|pitfall|beware|contact|owner|who)\b`)
)

// p0PerTopic is how many first items of each brief topic are P0.
const p0PerTopic = 2

// briefItem is one question-worthy line of a brief under its heading.
type briefItem struct {
	topic, text string
}

// briefTopics reads a brief's headings, in order, and the items under each.
func briefTopics(brief string) (topics []string, items []briefItem) {
	topic := ""
	for _, line := range strings.Split(brief, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "#"):
			topic = strings.TrimSpace(strings.TrimLeft(l, "#"))
			topics = append(topics, topic)
			continue
		case bullet.MatchString(l):
			items = append(items, briefItem{topic, strings.TrimSpace(bullet.ReplaceAllString(l, ""))})
			continue
		}
		for _, s := range sentences(l) {
			items = append(items, briefItem{topic, strings.TrimSpace(l[s.start:s.end])})
		}
	}
	return topics, items
}

// Backlog turns a brief's headings into topics and its bullets and
// sentences into questions; see Analyzer.
func (Rules) Backlog(_ context.Context, brief string) ([]interviews.BacklogItem, error) {
	_, items := briefTopics(brief)
	var out []interviews.BacklogItem
	perTopic := map[string]int{}
	for _, it := range items {
		text := strings.TrimSpace(marks.ReplaceAllString(it.text, " "))
		if len(tokenize(text)) < 2 {
			continue
		}
		priority := stages.P1
		if perTopic[it.topic] < p0PerTopic || markP0.MatchString(it.text) {
			priority = stages.P0
		}
		if markP1.MatchString(it.text) {
			priority = stages.P1
		}
		perTopic[it.topic]++
		out = append(out, interviews.BacklogItem{
			ID:       fmt.Sprintf("b%d", len(out)+1),
			Text:     briefQuestion(text),
			Priority: priority,
			Origin:   interviews.OriginBrief,
			Topic:    it.topic,
			Status:   interviews.StatusOpen,
			By:       interviews.ByRules,
		})
	}
	return out, nil
}

// briefQuestion turns a brief's line into a question: a question stays as
// it is; a statement about a risk, rule or person becomes "What should
// someone taking this over know about …?", any other "Can you walk me
// through …?".
func briefQuestion(s string) string {
	if strings.HasSuffix(s, "?") {
		return s
	}
	s = uncapitalize(strings.TrimRight(s, ".!:;"))
	if knowWords.MatchString(s) {
		return "What should someone taking this over know about " + s + "?"
	}
	return "Can you walk me through " + s + "?"
}

// Phase evaluates a design phase by keyword coverage; see Analyzer.
func (Rules) Phase(_ context.Context, in PhaseInput) (interviews.Phase, error) {
	pass := in.Pass
	if pass <= 0 {
		pass = stages.DefaultPhasePass
	}
	stems := map[string]bool{}
	for _, t := range in.Turns {
		for s := range stemSet(tokenize(t)) {
			stems[s] = true
		}
	}
	var covered int
	var gaps []string
	for _, k := range in.Stage.Keywords {
		if containsStems(stems, k) {
			covered++
		} else {
			gaps = append(gaps, k)
		}
	}
	coverage := 1.0
	if n := len(in.Stage.Keywords); n > 0 {
		coverage = float64(covered) / float64(n)
	}
	ph := interviews.Phase{
		ID:       in.Stage.Name,
		Name:     in.Stage.Title,
		Score:    math.Round(coverage*100) / 10,
		Decision: interviews.PhaseContinue,
		Gaps:     gaps,
		By:       interviews.ByRules,
		At:       time.Now(),
	}
	if coverage >= pass {
		ph.Decision = interviews.PhaseAdvance
	}
	switch {
	case len(gaps) == 0:
		ph.Feedback = fmt.Sprintf("The candidate covered all %d topics of this phase; move on.", covered)
	case ph.Decision == interviews.PhaseAdvance:
		ph.Feedback = fmt.Sprintf("The candidate covered %d of %d topics, enough to move on; %s remains untouched.", covered, len(in.Stage.Keywords), strings.Join(gaps, ", "))
	default:
		ph.Feedback = fmt.Sprintf("The candidate covered %d of %d topics; ask about %s before moving on.", covered, len(in.Stage.Keywords), strings.Join(gaps, ", "))
	}
	return ph, nil
}

// Missing lists the required rubric fields still open; see Analyzer.
func (Rules) Missing(_ context.Context, in MissingInput) ([]string, error) {
	var out []string
	for _, r := range in.Rubric {
		if r.Required && r.Status == interviews.StatusOpen {
			out = append(out, r.Label)
		}
	}
	return out, nil
}

// OtherTopic holds a basic summary's points that belong to none of the
// brief's headings.
const OtherTopic = "Other"

// Summarize groups the facts by the brief's headings, in order, with the
// rest under OtherTopic; see Analyzer.
func (Rules) Summarize(_ context.Context, in SummaryInput) (interviews.TopicSummary, error) {
	headings, _ := briefTopics(in.Brief)
	points := map[string][]string{}
	canonical := map[string]string{}
	for _, h := range headings {
		canonical[strings.ToLower(h)] = h
	}
	for _, it := range in.Items {
		topic, ok := canonical[strings.ToLower(strings.TrimSpace(it.Topic))]
		if !ok {
			topic = OtherTopic
		}
		said := it.Facts
		if len(said) == 0 && strings.TrimSpace(it.Answer) != "" {
			said = facts(parse(it.Answer))
		}
		points[topic] = append(points[topic], said...)
	}
	sum := interviews.TopicSummary{Basic: true, By: interviews.ByRules, GeneratedAt: time.Now()}
	for _, h := range append(headings, OtherTopic) {
		if len(points[h]) > 0 {
			sum.Topics = append(sum.Topics, interviews.SummaryTopic{Title: h, Points: points[h]})
			delete(points, h)
		}
	}
	return sum, nil
}
