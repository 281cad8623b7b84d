package agent

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// What the guide suggests asking next, in its order, and how it words
// a question it asks itself.

// suggestion is a question the guide would ask next.
type suggestion struct {
	Text    string
	Context stages.QuestionContext
}

// next returns the question the guide suggests in stage, or false when it
// has none (the stage is not guided, or everything it wants is asked or
// in flight). Follow-ups on this stage's answers come first, then P0
// backlog questions, the stage's open rubric fields, the job's required
// skills' gaps, the role template's questions, other gaps and P1 backlog
// questions; within each, what continues the last answer's topic.
func (g *guide) next(stage string) (suggestion, bool) {
	if !g.bp.Guided(stage) {
		return suggestion{}, false
	}
	all := g.candidates(stage)
	if len(all) == 0 {
		return suggestion{}, false
	}
	return all[0], true
}

// candidates lists every suggestion for stage in the order next prefers.
func (g *guide) candidates(stage string) []suggestion {
	qs := g.m.Questions()
	st := g.askState(qs, stage)
	var p suggestionPools
	g.rec.View(func(r *interviews.Record) {
		if n := len(r.Turns); n > 0 && r.Turns[n-1].Role == interviews.RoleCandidate {
			p.lastAnswer = r.Turns[n-1].Text
		}
		p.backlog(r, qs, stage, st)
		p.rubric = g.rubricSuggestions(r, stage, st)
		p.gaps(r, st)
		if g.tpl != nil && !g.bp.KnowledgeCapture() {
			job := jobText(r)
			for _, tq := range g.tpl.Questions {
				if !st.free(tq.ID, 1) || g.skip(r, tq) || !fitsJob(tq.Context.Targets.Category, job) {
					continue
				}
				c := tq.Context.Clone()
				c.Kind, c.Ref = stages.KindTemplate, tq.ID
				p.tpl = append(p.tpl, suggestion{Text: tq.Text, Context: c})
			}
		}
	})
	out := p.ordered(stage == g.mainStage(), st.kinds)
	// Never what has been asked already, whatever ref it came from: the
	// machine would refuse it as a repeat.
	return slices.DeleteFunc(out, func(s suggestion) bool {
		return slices.ContainsFunc(qs, func(q stages.Question) bool {
			return !q.Withdrawn && fsm.Similarity(s.Text, q.Text) >= fsm.RepeatThreshold
		})
	})
}

// askedState is what has been asked, from which refs, when candidates
// looks for what to ask next.
type askedState struct {
	asked        map[string]int              // questions asked from each ref, withdrawn ones excepted
	followed     map[string]int              // follow-ups asked on each question
	justAnswered []string                    // the refs of the last question heard: never asked twice in a row
	kinds        map[stages.QuestionKind]int // the kinds heard in this stage
	inflight     map[string]int              // refs whose answers are being analysed
	refused      map[string]bool             // refs the machine refused as repeats
}

// askState reads what has been asked in qs, with stage the current stage.
func (g *guide) askState(qs []stages.Question, stage string) *askedState {
	st := &askedState{asked: map[string]int{}, followed: map[string]int{}, kinds: map[stages.QuestionKind]int{}}
	for _, q := range qs {
		if q.Withdrawn {
			continue
		}
		if q.Context.Ref != "" {
			st.asked[q.Context.Ref]++
		}
		if q.Context.FollowsUp != "" {
			st.followed[q.Context.FollowsUp]++
		}
		if q.Spoken() {
			st.justAnswered = targetRefs(q)
			if q.Stage == stage {
				st.kinds[q.Context.Kind]++
			}
		}
	}
	g.mu.Lock()
	st.inflight, st.refused = maps.Clone(g.inflight), maps.Clone(g.refused)
	g.mu.Unlock()
	return st
}

// free reports whether ref may be asked now: not in flight, not just
// asked, not refused as a repeat, and asked fewer than times times.
func (st *askedState) free(ref string, times int) bool {
	return st.asked[ref] < times && st.inflight[ref] == 0 && !slices.Contains(st.justAnswered, ref) && !st.refused[ref]
}

// suggestionPools are the suggestions by where they come from, before
// ordered puts them in the order next prefers.
type suggestionPools struct {
	lastAnswer                                  string // the candidate's last turn, for continuing its topic
	follow, p0, rubric, gapsP0, tpl, gapsP1, p1 []suggestion
}

// backlog sorts the open backlog questions free to ask into follow-ups on
// this stage's answers, P0 and P1 questions.
func (p *suggestionPools) backlog(r *interviews.Record, qs []stages.Question, stage string, st *askedState) {
	for _, b := range r.Backlog {
		if b.Status != interviews.StatusOpen || !st.free(b.ID, 1) {
			continue
		}
		s := suggestion{Text: b.Text, Context: stages.QuestionContext{Kind: backlogKind(b.Origin), Ref: b.ID, Priority: b.Priority, FollowsUp: b.FollowsUp}}
		switch {
		case b.Origin == interviews.OriginFollowUp:
			fq, ok := questionByID(qs, b.FollowsUp)
			if !ok || fq.Stage != stage || st.followed[b.FollowsUp] >= stages.DefaultFollowUps {
				continue
			}
			s.Context.Targets = fq.Context.Clone().Targets
			p.follow = append(p.follow, s)
		case b.Priority == stages.P0:
			p.p0 = append(p.p0, s)
		default:
			p.p1 = append(p.p1, s)
		}
	}
}

// gaps sorts the open gaps free to probe by priority.
func (p *suggestionPools) gaps(r *interviews.Record, st *askedState) {
	for _, gp := range r.Gaps {
		if gp.Status != interviews.StatusOpen || !st.free(gp.ID, stages.DefaultGapProbes) {
			continue
		}
		s := suggestion{Text: gapQuestion(gp.Skill, gp.Attribute, gp.Probes), Context: stages.QuestionContext{Kind: stages.KindGap, Ref: gp.ID,
			Priority: gp.Priority, Targets: stages.Targets{Skill: gp.Skill, Attribute: gp.Attribute}}}
		if gp.Priority == stages.P0 {
			p.gapsP0 = append(p.gapsP0, s)
		} else {
			p.gapsP1 = append(p.gapsP1, s)
		}
	}
}

// rubricSuggestions are the questions for stage's open rubric fields: a
// bank question of the stage that asks for the field, as written, before
// the field's own question.
func (g *guide) rubricSuggestions(r *interviews.Record, stage string, st *askedState) []suggestion {
	var out []suggestion
	bank, _, _ := g.bp.Stage(stage)
	for _, f := range g.bp.RubricFor(stage) {
		ref := rubricRef + f.ID
		item, ok := rubricItem(r, f.ID)
		if !ok || item.Status != interviews.StatusOpen || !st.free(ref, stages.DefaultGapProbes) || item.Probes >= stages.DefaultGapProbes {
			continue
		}
		var s suggestion
		for _, bq := range bank.Questions {
			if bq.Context.Targets.Field == f.ID && st.asked[bq.ID] == 0 && !slices.Contains(st.justAnswered, ref) {
				s = suggestion{Text: bq.Text, Context: bankContext(bq)}
				break
			}
		}
		if s.Text == "" {
			s = suggestion{Text: rubricQuestion(f, item.Probes), Context: stages.QuestionContext{Kind: stages.KindRubric, Ref: ref, Targets: stages.Targets{Field: f.ID}}}
		}
		out = append(out, s)
	}
	return out
}

// ordered lists the pools in the order next prefers; kinds counts the
// kinds of question heard in the stage.
func (p *suggestionPools) ordered(mainStage bool, kinds map[stages.QuestionKind]int) []suggestion {
	byTopic := func(list []suggestion) []suggestion { return continuing(list, p.lastAnswer) }
	if !mainStage {
		// Before the main stage the guide asks only for what this stage is
		// for (its rubric fields) and follows up what it heard.
		return slices.Concat(p.follow, byTopic(p.p0), p.rubric)
	}
	// The main stage probes the job's required skills first, taking
	// turns with the stage's rubric fields and the role template's
	// questions, so none crowds the others out: whichever has been
	// asked least comes first.
	lists := [][]suggestion{p.gapsP0, p.rubric, p.tpl}
	asked := []int{kinds[stages.KindGap], kinds[stages.KindRubric] + kinds[stages.KindBank], kinds[stages.KindTemplate]}
	order := []int{0, 1, 2}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(asked[a], asked[b]) })
	return slices.Concat(p.follow, byTopic(p.p0), interleave(lists[order[0]], lists[order[1]], lists[order[2]]), p.gapsP1, byTopic(p.p1))
}

// jobText is what the interview knows of the job: the role and its
// description, in lower case.
func jobText(r *interviews.Record) string {
	return strings.ToLower(r.Candidate.Role + "\n" + r.JobDescription)
}

// specialties are the areas a role template's section may be about, with
// the words that show a job asks for them.
var specialties = map[string][]string{
	"frontend": {"frontend", "front-end", "front end", "react", "vue", "angular", "css", "browser", "web app", "ui ", "user interface", "full-stack", "full stack", "fullstack"},
	"mobile":   {"mobile", "ios", "android", "swift", "kotlin", "react native", "flutter"},
	"backend":  {"backend", "back-end", "back end", "api", "server", "service", "full-stack", "full stack", "fullstack"},
	"data":     {"data", "database", "sql", "postgres", "storage", "pipeline", "kafka", "warehouse", "backend", "back-end", "back end", "full-stack", "full stack", "fullstack"},
}

// fitsJob reports whether a template section (category) fits the job: a
// section about a specialty (Frontend, Mobile, …) fits only a job whose
// role or description names it; general sections always fit, and so does
// every section when nothing is known of the job.
func fitsJob(category, job string) bool {
	if strings.TrimSpace(job) == "" {
		return true
	}
	cat := strings.ToLower(category)
	for area, words := range specialties {
		if !strings.Contains(cat, area) {
			continue
		}
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(job, w) })
	}
	return true
}

// mainStage is the last guided stage of the interview's path: where gaps,
// template questions and discovered questions are asked.
func (g *guide) mainStage() string { return g.bp.MainStage() }

// interleave merges the lists, one from each in turn.
func interleave(lists ...[]suggestion) []suggestion {
	var out []suggestion
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				out = append(out, l[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

func backlogKind(origin string) stages.QuestionKind {
	switch origin {
	case interviews.OriginFollowUp:
		return stages.KindFollowUp
	case interviews.OriginBrief:
		return stages.KindBrief
	case interviews.OriginTemplate:
		return stages.KindTemplate
	}
	return stages.KindDiscovered
}

// bankContext is the context of a question asked from a bank question.
func bankContext(bq stages.Question) stages.QuestionContext {
	c := bq.Context.Clone()
	c.Kind, c.Ref = stages.KindBank, bq.ID
	if c.Note == "" {
		c.Note = bq.Purpose
	}
	return c
}

// continuing orders suggestions so that those sharing the most words with
// the last answer come first (stable otherwise): the conversation follows
// its topic rather than jumping about.
func continuing(list []suggestion, lastAnswer string) []suggestion {
	if len(list) < 2 || lastAnswer == "" {
		return list
	}
	words := contentWords(lastAnswer)
	overlap := func(s suggestion) int {
		n := 0
		for w := range contentWords(s.Text) {
			if words[w] {
				n++
			}
		}
		return n
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b suggestion) int { return cmp.Compare(overlap(b), overlap(a)) })
	return out
}

func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if len(w) >= 4 {
			out[w] = true
		}
	}
	return out
}

// gapQuestion is how the guide probes a skill attribute; a second probe
// (n = 1) asks from another angle, so it is never the same question twice.
func gapQuestion(skill, attr string, n int) string {
	first, second := fmt.Sprintf("Tell me more about your work with %s.", skill), fmt.Sprintf("What else should I know about your %s experience?", skill)
	switch attr {
	case "duration":
		first, second = fmt.Sprintf("How long have you worked with %s?", skill), fmt.Sprintf("When did you first start using %s?", skill)
	case "depth":
		first, second = fmt.Sprintf("What is the most complex thing you have built with %s?", skill), fmt.Sprintf("Which part of %s do you know inside out?", skill)
	case "scale":
		first, second = fmt.Sprintf("How big was the system you ran on %s, in users, traffic or data?", skill), fmt.Sprintf("Roughly how many people relied on what you built with %s?", skill)
	case "autonomy":
		first, second = fmt.Sprintf("When you worked with %s, which decisions were yours to make?", skill), fmt.Sprintf("Did you choose %s yourself, or was it chosen for you?", skill)
	case "production_vs_prototype":
		first, second = fmt.Sprintf("Was your %s work running in production for real users, or was it a prototype?", skill), fmt.Sprintf("Did anything you built with %s ship to customers?", skill)
	case "constraints":
		first, second = fmt.Sprintf("What constraints shaped how you used %s, such as deadlines, budget or legacy systems?", skill), fmt.Sprintf("What limits did you have to work within on your %s projects?", skill)
	}
	if n > 0 {
		return second
	}
	return first
}

// rubricQuestion is how the guide asks for a rubric field; a second ask
// (n = 1) comes back to it in other words.
func rubricQuestion(f stages.RubricField, n int) string {
	q := strings.TrimSpace(f.Question)
	if q == "" {
		q = fmt.Sprintf("Could you tell me about %s?", strings.ToLower(f.Label))
	}
	if n > 0 {
		return fmt.Sprintf("I'd still like to hear a little more about %s. Could you tell me in a sentence or two?", secondPerson(f.Label))
	}
	return q
}

// secondPerson turns a rubric label written about the candidate ("A
// project they are proud of") into words said to them ("a project you
// are proud of").
func secondPerson(label string) string {
	words := strings.Fields(label)
	for i, w := range words {
		lw := strings.ToLower(w)
		switch lw {
		case "they":
			words[i] = "you"
		case "their":
			words[i] = "your"
		case "them":
			words[i] = "you"
		case "themselves":
			words[i] = "yourself"
		default:
			if i == 0 {
				words[i] = lw
			}
		}
	}
	s := strings.Join(words, " ")
	if !strings.HasPrefix(s, "a ") && !strings.HasPrefix(s, "an ") && !strings.HasPrefix(s, "the ") && !strings.HasPrefix(s, "why ") && !strings.HasPrefix(s, "how ") && !strings.HasPrefix(s, "your ") {
		s = "your " + s
	}
	return s
}

// skip reports whether a template question's "Skip if" conditions hold
// for what the record already knows.
func (g *guide) skip(r *interviews.Record, q stages.Question) bool {
	for _, c := range stages.SkipConditions(q.SkipIf) {
		switch c.Kind {
		case "covered":
			if it, ok := rubricItem(r, c.Field); ok && it.Status == interviews.StatusCovered {
				return true
			}
		case "known":
			if s := skillByName(r, c.Skill); s != nil && (c.Attribute == "" || s.Attribute(c.Attribute) != "") {
				return true
			}
		case "mentioned":
			w := strings.ToLower(c.Word)
			for _, t := range r.Turns {
				if t.Role == interviews.RoleCandidate && strings.Contains(strings.ToLower(t.Text), w) {
					return true
				}
			}
		}
	}
	return false
}
