package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Limits of the guide.
const (
	// maxGapSkills bounds the skills whose attributes become gaps, and
	// maxGaps the gaps: an interview has minutes, not hours.
	maxGapSkills = 4
	maxGaps      = 12
	// analysisWait bounds how long a finishing interview waits for the
	// analyses still running, and summaryWait for a knowledge capture's
	// summary, so an ending is never held up by a slow model.
	analysisWait = 15 * time.Second
	summaryWait  = 45 * time.Second
	// recentTurns is how much of the conversation a model analysing an
	// answer is shown.
	recentTurns = 6
)

// Refs of the guide's own items: a gap is "g1", a backlog item "b1", a
// rubric field "rubric:<id>", work on a design phase "phase:<stage>"; bank
// and template questions keep their ids.
const (
	rubricRef = "rubric:"
	phaseRef  = "phase:"
)

// guide is what the interviewer keeps in mind between turns: what the
// blueprint's rubric still needs, which skill attributes are unknown, the
// backlog of follow-ups and discovered questions, the role template's
// questions. It runs answer analysis beside the replies (never before
// them), folds each result into the record, suggests the next question of
// a guided stage and decides when the interview has what it needs.
//
// Its state lives in the record (so a resumed interview continues with
// it); the guide keeps only what is in flight.
type guide struct {
	bp    *stages.Blueprint
	tpl   *stages.Template
	an    analysis.Analyzer
	rules bool // the analyser is the offline rules alone
	rec   *Recorder
	m     *fsm.Machine
	log   *slog.Logger

	ctx    context.Context // analyses run under it; cancelled by stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]int  // refs whose answers are being analysed
	refused  map[string]bool // refs whose question the machine refused as a repeat
	ready    chan struct{}   // closed once the résumé, job description and brief are read
	exit     *interviews.Exit
	phases   map[string]interviews.Phase // the latest evaluation of each phase stage
}

func newGuide(bp *stages.Blueprint, tpl *stages.Template, an analysis.Analyzer, rec *Recorder, m *fsm.Machine, log *slog.Logger) *guide {
	_, rules := an.(analysis.Rules)
	if an == nil {
		an, rules = analysis.Rules{}, true
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &guide{
		bp: bp, tpl: tpl, an: an, rules: rules, rec: rec, m: m, log: log,
		ctx: ctx, cancel: cancel, inflight: map[string]int{}, refused: map[string]bool{}, ready: make(chan struct{}),
		phases: map[string]interviews.Phase{},
	}
}

// prepare sets the record up for guidance: the rubric's fields and the
// template's name at once; it returns the start of the reading of the
// résumé and job description for skills and gaps and of a knowledge
// capture's brief for its backlog, which the caller runs once the
// greeting's model call is done, so the greeting never waits on it. A
// resumed interview keeps what its record holds. Analyses run with ctx's
// values (its incident observer) but only finish stops them.
func (g *guide) prepare(ctx context.Context) (read func()) {
	g.mu.Lock()
	g.cancel()
	g.ctx, g.cancel = context.WithCancel(context.WithoutCancel(ctx))
	g.mu.Unlock()
	var resume, jd, brief string
	needSkills, needBacklog := false, false
	_ = g.rec.Update(func(r *interviews.Record) {
		if len(r.Rubric) == 0 {
			for _, f := range g.bp.Rubric {
				r.Rubric = append(r.Rubric, interviews.RubricItem{ID: f.ID, Label: f.Label, Required: f.Required, Status: interviews.StatusOpen})
			}
		}
		if g.tpl != nil && r.Template == "" {
			r.Template = g.tpl.Name
		}
		resume, jd, brief = r.ResumeText, r.JobDescription, r.Brief
		needSkills = len(r.Skills) == 0 && (strings.TrimSpace(resume) != "" || strings.TrimSpace(jd) != "")
		needBacklog = strings.TrimSpace(brief) != "" && !slices.ContainsFunc(r.Backlog, func(b interviews.BacklogItem) bool { return b.Origin == interviews.OriginBrief })
	})
	if !needSkills && !needBacklog {
		close(g.ready)
		return func() {}
	}
	return func() {
		g.wg.Go(func() {
			defer close(g.ready)
			if needSkills {
				skills, err := g.an.Skills(g.ctx, resume, jd)
				if err != nil {
					g.log.Warn("reading the résumé and job description for skills failed", "err", err)
				} else {
					_ = g.rec.Update(func(r *interviews.Record) { r.Skills = skills; r.Gaps = gapsOf(skills) })
				}
			}
			if needBacklog {
				items, err := g.an.Backlog(g.ctx, brief)
				if err != nil {
					g.log.Warn("turning the brief into questions failed", "err", err)
					return
				}
				_ = g.rec.Update(func(r *interviews.Record) {
					for _, it := range items {
						it.Origin, it.Status = interviews.OriginBrief, interviews.StatusOpen
						addBacklog(r, it)
					}
				})
			}
		})
	}
}

// gapsOf lists the unknown attributes of the skills worth probing: the
// job's required skills first, then its preferred ones, then the résumé's.
func gapsOf(skills []interviews.Skill) []interviews.Gap {
	rank := func(s interviews.Skill) int {
		switch {
		case slices.Contains(s.Sources, "job_required"):
			return 0
		case slices.Contains(s.Sources, "job_preferred"):
			return 1
		}
		return 2
	}
	sorted := slices.Clone(skills)
	slices.SortStableFunc(sorted, func(a, b interviews.Skill) int { return cmp.Compare(rank(a), rank(b)) })
	if len(sorted) > maxGapSkills {
		sorted = sorted[:maxGapSkills]
	}
	// Probe across skills before going deep on one: every skill's first
	// attribute, then every skill's second, … up to maxGaps.
	var gaps []interviews.Gap
	for _, attr := range stages.SkillAttributes {
		for _, s := range sorted {
			if s.Attribute(attr) != "" || len(gaps) == maxGaps {
				continue
			}
			prio := stages.P1
			if rank(s) == 0 {
				prio = stages.P0
			}
			gaps = append(gaps, interviews.Gap{ID: "g" + strconv.Itoa(len(gaps)+1), Skill: s.Name, Attribute: attr,
				Priority: prio, Status: interviews.StatusOpen})
		}
	}
	return gaps
}

func addBacklog(r *interviews.Record, it interviews.BacklogItem) interviews.BacklogItem {
	it.ID = "b" + strconv.Itoa(len(r.Backlog)+1)
	if it.Priority == "" {
		it.Priority = stages.P1
	}
	r.Backlog = append(r.Backlog, it)
	return it
}

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
	asked := map[string]int{} // questions asked from each ref, withdrawn ones excepted
	followed := map[string]int{}
	var justAnswered []string              // the refs of the last question heard: never asked twice in a row
	kinds := map[stages.QuestionKind]int{} // the kinds heard in this stage
	for _, q := range qs {
		if q.Withdrawn {
			continue
		}
		if q.Context.Ref != "" {
			asked[q.Context.Ref]++
		}
		if q.Context.FollowsUp != "" {
			followed[q.Context.FollowsUp]++
		}
		if q.Spoken() {
			justAnswered = targetRefs(q)
			if q.Stage == stage {
				kinds[q.Context.Kind]++
			}
		}
	}
	g.mu.Lock()
	inflight, refused := maps.Clone(g.inflight), maps.Clone(g.refused)
	g.mu.Unlock()
	// free reports whether ref may be asked now: not in flight, not just
	// asked, not refused as a repeat, and asked fewer than times times.
	free := func(ref string, times int) bool {
		return asked[ref] < times && inflight[ref] == 0 && !slices.Contains(justAnswered, ref) && !refused[ref]
	}

	var lastAnswer string
	var follow, p0, rubric, gapsP0, tpl, gapsP1, p1 []suggestion
	g.rec.View(func(r *interviews.Record) {
		if n := len(r.Turns); n > 0 && r.Turns[n-1].Role == interviews.RoleCandidate {
			lastAnswer = r.Turns[n-1].Text
		}
		for _, b := range r.Backlog {
			if b.Status != interviews.StatusOpen || !free(b.ID, 1) {
				continue
			}
			s := suggestion{Text: b.Text, Context: stages.QuestionContext{Kind: backlogKind(b.Origin), Ref: b.ID, Priority: b.Priority, FollowsUp: b.FollowsUp}}
			switch {
			case b.Origin == interviews.OriginFollowUp:
				fq, ok := questionByID(qs, b.FollowsUp)
				if !ok || fq.Stage != stage || followed[b.FollowsUp] >= stages.DefaultFollowUps {
					continue
				}
				s.Context.Targets = fq.Context.Clone().Targets
				follow = append(follow, s)
			case b.Priority == stages.P0:
				p0 = append(p0, s)
			default:
				p1 = append(p1, s)
			}
		}
		st, _, _ := g.bp.Stage(stage)
		for _, f := range g.bp.RubricFor(stage) {
			ref := rubricRef + f.ID
			item, ok := rubricItem(r, f.ID)
			if !ok || item.Status != interviews.StatusOpen || !free(ref, stages.DefaultGapProbes) || item.Probes >= stages.DefaultGapProbes {
				continue
			}
			// A bank question of the stage that asks for the field is asked
			// as written before the field's own question.
			var s suggestion
			for _, bq := range st.Questions {
				if bq.Context.Targets.Field == f.ID && asked[bq.ID] == 0 && !slices.Contains(justAnswered, ref) {
					s = suggestion{Text: bq.Text, Context: bankContext(bq)}
					break
				}
			}
			if s.Text == "" {
				s = suggestion{Text: rubricQuestion(f, item.Probes), Context: stages.QuestionContext{Kind: stages.KindRubric, Ref: ref, Targets: stages.Targets{Field: f.ID}}}
			}
			rubric = append(rubric, s)
		}
		for _, gp := range r.Gaps {
			if gp.Status != interviews.StatusOpen || !free(gp.ID, stages.DefaultGapProbes) {
				continue
			}
			s := suggestion{Text: gapQuestion(gp.Skill, gp.Attribute, gp.Probes), Context: stages.QuestionContext{Kind: stages.KindGap, Ref: gp.ID,
				Priority: gp.Priority, Targets: stages.Targets{Skill: gp.Skill, Attribute: gp.Attribute}}}
			if gp.Priority == stages.P0 {
				gapsP0 = append(gapsP0, s)
			} else {
				gapsP1 = append(gapsP1, s)
			}
		}
		if g.tpl != nil && !g.bp.KnowledgeCapture() {
			job := jobText(r)
			for _, tq := range g.tpl.Questions {
				if !free(tq.ID, 1) || g.skip(r, tq) || !fitsJob(tq.Context.Targets.Category, job) {
					continue
				}
				c := tq.Context.Clone()
				c.Kind, c.Ref = stages.KindTemplate, tq.ID
				tpl = append(tpl, suggestion{Text: tq.Text, Context: c})
			}
		}
	})
	byTopic := func(list []suggestion) []suggestion { return continuing(list, lastAnswer) }
	var out []suggestion
	if stage != g.mainStage() {
		// Before the main stage the guide asks only for what this stage is
		// for (its rubric fields) and follows up what it heard.
		out = slices.Concat(follow, byTopic(p0), rubric)
	} else {
		// The main stage probes the job's required skills first, taking
		// turns with the stage's rubric fields and the role template's
		// questions, so none crowds the others out: whichever has been
		// asked least comes first.
		lists := [][]suggestion{gapsP0, rubric, tpl}
		asked := []int{kinds[stages.KindGap], kinds[stages.KindRubric] + kinds[stages.KindBank], kinds[stages.KindTemplate]}
		order := []int{0, 1, 2}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(asked[a], asked[b]) })
		out = slices.Concat(follow, byTopic(p0), interleave(lists[order[0]], lists[order[1]], lists[order[2]]), gapsP1, byTopic(p1))
	}
	// Never what has been asked already, whatever ref it came from: the
	// machine would refuse it as a repeat.
	return slices.DeleteFunc(out, func(s suggestion) bool {
		return slices.ContainsFunc(qs, func(q stages.Question) bool {
			return !q.Withdrawn && fsm.Similarity(s.Text, q.Text) >= fsm.RepeatThreshold
		})
	})
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
	"data":     {"data", "database", "sql", "postgres", "storage", "pipeline", "kafka", "warehouse"},
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
func (g *guide) mainStage() string {
	main := ""
	for _, name := range g.bp.Path() {
		if g.bp.Guided(name) {
			main = name
		}
	}
	return main
}

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

func questionByID(qs []stages.Question, id string) (stages.Question, bool) {
	for _, q := range qs {
		if q.ID == id {
			return q, true
		}
	}
	return stages.Question{}, false
}

func rubricItem(r *interviews.Record, id string) (*interviews.RubricItem, bool) {
	for i := range r.Rubric {
		if r.Rubric[i].ID == id {
			return &r.Rubric[i], true
		}
	}
	return nil, false
}

func skillByName(r *interviews.Record, name string) *interviews.Skill {
	for i := range r.Skills {
		if strings.EqualFold(r.Skills[i].Name, name) {
			return &r.Skills[i]
		}
	}
	return nil
}

// resolve returns the context of a question asked from ref: a backlog
// item, a gap, a rubric field, a template question or a bank question of
// the blueprint. ok is false for a ref the guide does not know.
func (g *guide) resolve(ref string) (stages.QuestionContext, bool) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return stages.QuestionContext{}, false
	}
	var qc stages.QuestionContext
	found := false
	g.rec.View(func(r *interviews.Record) {
		for _, b := range r.Backlog {
			if b.ID == ref {
				qc, found = stages.QuestionContext{Kind: backlogKind(b.Origin), Ref: b.ID, Priority: b.Priority, FollowsUp: b.FollowsUp}, true
				if fq, ok := questionByID(g.m.Questions(), b.FollowsUp); ok {
					qc.Targets = fq.Context.Targets
				}
				return
			}
		}
		for _, gp := range r.Gaps {
			if gp.ID == ref {
				qc, found = stages.QuestionContext{Kind: stages.KindGap, Ref: gp.ID, Priority: gp.Priority, Targets: stages.Targets{Skill: gp.Skill, Attribute: gp.Attribute}}, true
				return
			}
		}
		if id, ok := strings.CutPrefix(ref, rubricRef); ok {
			if _, ok := rubricItem(r, id); ok {
				qc, found = stages.QuestionContext{Kind: stages.KindRubric, Ref: ref, Targets: stages.Targets{Field: id}}, true
			}
		}
	})
	if found {
		return qc, true
	}
	if stage, ok := strings.CutPrefix(ref, phaseRef); ok && g.bp.Index(stage) >= 0 {
		return stages.QuestionContext{Kind: stages.KindPhase, Ref: ref, Targets: stages.Targets{Phase: stage}}, true
	}
	if g.tpl != nil {
		for _, tq := range g.tpl.Questions {
			if tq.ID == ref {
				c := tq.Context.Clone()
				c.Kind, c.Ref = stages.KindTemplate, tq.ID
				return c, true
			}
		}
	}
	for _, st := range g.bp.Stages {
		for _, bq := range st.Questions {
			if bq.ID == ref {
				return bankContext(bq), true
			}
		}
	}
	return stages.QuestionContext{}, false
}

// attributeCues are words that show which skill attribute a question
// asks about.
var attributeCues = map[string][]string{
	"duration":                {"how long", "years", "since when", "when did you start", "first start"},
	"depth":                   {"complex", "inside out", "deep", "hardest", "most advanced"},
	"scale":                   {"scale", "how big", "users", "traffic", "volume", "throughput", "how many"},
	"autonomy":                {"decide", "decision", "your call", "choose", "chose", "own", "lead"},
	"production_vs_prototype": {"production", "prototype", "ship", "real users", "customers"},
	"constraints":             {"constraint", "deadline", "budget", "legacy", "limits"},
}

// infer is the context of a question the model asked without a ref: the
// suggestion it asks in its own words, else the open gap of the skill it
// names (targets, or the question itself) and the attribute it asks
// about, else the rubric field it targets. ok is false for a question
// that targets nothing the guide tracks.
func (g *guide) infer(stage, question, targets string) (stages.QuestionContext, bool) {
	for _, s := range g.candidates(stage) {
		if fsm.Similarity(question, s.Text) >= 0.5 {
			return s.Context, true
		}
	}
	about := strings.ToLower(targets + " " + question)
	var qc stages.QuestionContext
	found := false
	g.rec.View(func(r *interviews.Record) {
		for _, gp := range r.Gaps {
			if gp.Status != interviews.StatusOpen || !mentions(about, gp.Skill) {
				continue
			}
			c := stages.QuestionContext{Kind: stages.KindGap, Ref: gp.ID, Priority: gp.Priority, Targets: stages.Targets{Skill: gp.Skill, Attribute: gp.Attribute}}
			if !found {
				qc, found = c, true // the skill's first open gap, unless one matches the attribute
			}
			if slices.ContainsFunc(attributeCues[gp.Attribute], func(cue string) bool { return strings.Contains(about, cue) }) {
				qc = c
				return
			}
		}
		if found {
			return
		}
		for _, f := range g.bp.Rubric {
			it, ok := rubricItem(r, f.ID)
			if !ok || it.Status != interviews.StatusOpen {
				continue
			}
			if t := strings.ToLower(strings.TrimSpace(targets)); t != "" && (t == f.ID || strings.Contains(t, strings.ToLower(f.Label))) ||
				f.Question != "" && fsm.Similarity(question, f.Question) >= 0.5 {
				qc, found = stages.QuestionContext{Kind: stages.KindRubric, Ref: rubricRef + f.ID, Targets: stages.Targets{Field: f.ID}}, true
				return
			}
		}
	})
	return qc, found
}

// mentions reports whether text (lower case) names skill as a word.
func mentions(text, skill string) bool {
	s := strings.ToLower(strings.TrimSpace(skill))
	if s == "" {
		return false
	}
	for i := 0; ; {
		k := strings.Index(text[i:], s)
		if k < 0 {
			return false
		}
		start, end := i+k, i+k+len(s)
		before := start == 0 || !isWordByte(text[start-1])
		after := end == len(text) || !isWordByte(text[end])
		if before && after {
			return true
		}
		i = end
	}
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// refuse notes that the question suggested from ref repeats one already
// asked: the guide suggests it no more (its answer is, in effect, known).
func (g *guide) refuse(ref string) {
	if ref == "" {
		return
	}
	g.mu.Lock()
	g.refused[ref] = true
	g.mu.Unlock()
	_ = g.rec.Update(func(r *interviews.Record) {
		for i := range r.Backlog {
			if r.Backlog[i].ID == ref && r.Backlog[i].Status == interviews.StatusOpen {
				r.Backlog[i].Status = interviews.StatusDropped
			}
		}
	})
}

// spoken notes that question q reached the candidate: the gap, rubric
// field or backlog item it asks for counts the probe.
func (g *guide) spoken(q stages.Question) {
	_ = g.rec.Update(func(r *interviews.Record) {
		t := q.Context.Targets
		for i := range r.Gaps {
			gp := &r.Gaps[i]
			if gp.ID == q.Context.Ref || (q.Context.Kind != stages.KindFollowUp && t.Skill != "" && strings.EqualFold(gp.Skill, t.Skill) && gp.Attribute == t.Attribute) {
				gp.Probes++
				gp.QuestionIDs = append(gp.QuestionIDs, q.ID)
			}
		}
		if t.Field != "" {
			if it, ok := rubricItem(r, t.Field); ok {
				it.Probes++
				it.QuestionIDs = append(it.QuestionIDs, q.ID)
			}
		}
		for i := range r.Backlog {
			if r.Backlog[i].ID == q.Context.Ref && r.Backlog[i].Status == interviews.StatusOpen {
				r.Backlog[i].Status, r.Backlog[i].QuestionID = interviews.StatusAsked, q.ID
			}
			// A follow-up the interviewer asked of its own accord settles
			// the one analysis queued for the same question.
			if q.Context.Kind == stages.KindFollowUp && r.Backlog[i].Origin == interviews.OriginFollowUp &&
				r.Backlog[i].FollowsUp == q.Context.FollowsUp && r.Backlog[i].Status == interviews.StatusOpen {
				r.Backlog[i].Status, r.Backlog[i].QuestionID = interviews.StatusAsked, q.ID
			}
		}
	})
}

// declined notes that the candidate declined to answer q: what it asked
// for (a rubric field, a gap, a backlog item) is settled as unknown and
// not asked again.
func (g *guide) declined(q stages.Question) {
	_ = g.rec.Update(func(r *interviews.Record) { settleDeclined(r, q) })
}

// settleDeclined marks what q asked for unknown (a backlog item
// answered), so a declined answer is respected, not pressed.
func settleDeclined(r *interviews.Record, q stages.Question) {
	t := q.Context.Targets
	if t.Field != "" {
		if it, ok := rubricItem(r, t.Field); ok && it.Status == interviews.StatusOpen {
			it.Status = interviews.StatusUnknown
		}
	}
	for i := range r.Gaps {
		gp := &r.Gaps[i]
		if gp.Status == interviews.StatusOpen && (gp.ID == q.Context.Ref || t.Skill != "" && strings.EqualFold(gp.Skill, t.Skill) && gp.Attribute == t.Attribute) {
			gp.Status = interviews.StatusUnknown
		}
	}
	for i := range r.Backlog {
		if b := &r.Backlog[i]; b.Status == interviews.StatusOpen && b.FollowsUp != "" && b.FollowsUp == q.ID {
			b.Status = interviews.StatusDropped
		}
	}
}

// followUps counts the follow-ups asked of question id (withdrawn ones
// excepted); the guide allows stages.DefaultFollowUps.
func followUps(qs []stages.Question, id string) int {
	n := 0
	for _, q := range qs {
		if !q.Withdrawn && q.Context.FollowsUp == id {
			n++
		}
	}
	return n
}

// rootQuestion is the question a chain of follow-ups started from.
func rootQuestion(qs []stages.Question, id string) string {
	for range len(qs) {
		q, ok := questionByID(qs, id)
		if !ok || q.Context.FollowsUp == "" {
			return id
		}
		id = q.Context.FollowsUp
	}
	return id
}

// answered starts the analysis of a candidate turn beside the reply to
// it. The question answered is the last one the candidate heard.
func (g *guide) answered(turnSeq int, text, stage string) {
	qs := g.m.Questions()
	var q stages.Question
	for i := len(qs) - 1; i >= 0; i-- {
		if qs[i].Spoken() && !qs[i].Withdrawn {
			q = qs[i].Clone()
			break
		}
	}
	refs := targetRefs(q)
	if tq, ok := g.templateQuestion(q.Context.Ref); ok && q.Context.Kind == stages.KindTemplate {
		// What a good answer covers reaches the analysis with the question.
		q.Expected, q.SkipIf = tq.Expected, tq.SkipIf
	}
	in := analysis.AnswerInput{Question: q, Answer: text, Stage: stage}
	if st, _, ok := g.bp.Stage(stage); ok {
		in.Keywords = append(slices.Clone(st.Keywords), q.Keywords...)
	}
	g.rec.View(func(r *interviews.Record) {
		for _, f := range g.bp.Rubric {
			if it, ok := rubricItem(r, f.ID); ok && it.Status == interviews.StatusOpen {
				in.Rubric = append(in.Rubric, f)
			}
		}
		for _, s := range r.Skills {
			in.Skills = append(in.Skills, s.Name)
		}
		turns := r.Turns
		if n := len(turns); n > 1 {
			for _, t := range turns[max(0, n-1-recentTurns) : n-1] {
				who := "Candidate"
				if t.Role == interviews.RoleAgent {
					who = "Interviewer"
				}
				in.Recent = append(in.Recent, who+": "+t.Text)
			}
		}
	})
	phase := g.phaseStage(stage)
	var phaseTurns []string
	if phase {
		phaseTurns = g.turnsInStage(stage)
	}
	g.mu.Lock()
	for _, ref := range refs {
		g.inflight[ref]++
	}
	g.mu.Unlock()
	g.wg.Go(func() {
		defer func() {
			g.mu.Lock()
			for _, ref := range refs {
				if g.inflight[ref]--; g.inflight[ref] <= 0 {
					delete(g.inflight, ref)
				}
			}
			g.mu.Unlock()
		}()
		res, err := g.an.Answer(g.ctx, in)
		if err != nil {
			if g.ctx.Err() == nil {
				g.log.Warn("analysing an answer failed", "err", err, "turn", turnSeq)
			}
			return
		}
		g.apply(turnSeq, q, res)
		if phase {
			g.evaluate(stage, phaseTurns)
		}
		g.checkExit()
	})
}

// templateQuestion is the role template's question with id ref.
func (g *guide) templateQuestion(ref string) (stages.Question, bool) {
	if g.tpl == nil || ref == "" {
		return stages.Question{}, false
	}
	for _, tq := range g.tpl.Questions {
		if tq.ID == ref {
			return tq, true
		}
	}
	return stages.Question{}, false
}

// targetRefs are the refs an answer to q settles: the gap, rubric field
// or backlog item it asked for.
func targetRefs(q stages.Question) []string {
	var refs []string
	if q.Context.Ref != "" {
		refs = append(refs, q.Context.Ref)
	}
	if f := q.Context.Targets.Field; f != "" {
		refs = append(refs, rubricRef+f)
	}
	return refs
}

// apply folds one analysis into the record.
func (g *guide) apply(turnSeq int, q stages.Question, res analysis.AnswerResult) {
	now := time.Now()
	qs := g.m.Questions()
	_ = g.rec.Update(func(r *interviews.Record) {
		r.Answers = append(r.Answers, interviews.Answer{QuestionID: q.ID, TurnSeq: turnSeq, Confidence: res.Confidence,
			ConfidenceScore: res.Confidence.Score(), Facts: res.Facts, By: res.By, At: now})
		for _, name := range res.Skills {
			if strings.TrimSpace(name) != "" && skillByName(r, name) == nil {
				r.Skills = append(r.Skills, interviews.Skill{Name: name, Sources: []string{"answer"}, By: res.By})
			}
		}
		for _, name := range res.Absent {
			if strings.TrimSpace(name) == "" {
				continue
			}
			sk := skillByName(r, name)
			if sk == nil {
				r.Skills = append(r.Skills, interviews.Skill{Name: name, Sources: []string{"answer"}})
				sk = &r.Skills[len(r.Skills)-1]
			}
			// A skill they lack is recorded as such, never with the
			// confidence of a skill they have.
			sk.Absent, sk.Confidence, sk.By = true, 0, res.By
			if i := slices.IndexFunc(r.Turns, func(t interviews.Turn) bool { return t.Seq == turnSeq }); i >= 0 {
				sk.Evidence = append(sk.Evidence, r.Turns[i].Text)
			}
			for i := range r.Gaps {
				if strings.EqualFold(r.Gaps[i].Skill, name) && r.Gaps[i].Status == interviews.StatusOpen {
					r.Gaps[i].Status = interviews.StatusUnknown
				}
			}
		}
		filledField, filledGap := false, false
		for _, f := range res.Fills {
			switch {
			case f.Field != "":
				it, ok := rubricItem(r, f.Field)
				asked := f.Field == q.Context.Targets.Field
				conf := res.Confidence.Score()
				// Stronger later evidence replaces weaker: more confidence,
				// or as confident and in answer to a question asking for it.
				if !ok || it.Status == interviews.StatusCovered && (conf < it.Confidence || conf == it.Confidence && !asked) {
					continue
				}
				it.Status, it.Value, it.Evidence, it.By, it.Confidence = interviews.StatusCovered, f.Value, f.Evidence, res.By, conf
				if q.ID != "" && !slices.Contains(it.QuestionIDs, q.ID) {
					it.QuestionIDs = append(it.QuestionIDs, q.ID)
				}
				filledField = filledField || f.Field == q.Context.Targets.Field
			case f.Skill != "" && f.Attribute != "":
				s := skillByName(r, f.Skill)
				if s == nil {
					r.Skills = append(r.Skills, interviews.Skill{Name: f.Skill, Sources: []string{"answer"}})
					s = &r.Skills[len(r.Skills)-1]
				}
				if !s.SetAttribute(f.Attribute, f.Value) {
					continue
				}
				if f.Evidence != "" {
					s.Evidence = append(s.Evidence, f.Evidence)
				}
				s.Confidence, s.By = res.Confidence.Score(), res.By
				for i := range r.Gaps {
					if strings.EqualFold(r.Gaps[i].Skill, f.Skill) && r.Gaps[i].Attribute == f.Attribute {
						r.Gaps[i].Status = interviews.StatusResolved
					}
				}
				filledGap = filledGap || (strings.EqualFold(f.Skill, q.Context.Targets.Skill) && f.Attribute == q.Context.Targets.Attribute)
			}
		}
		if res.Declined {
			settleDeclined(r, q)
		}
		// What the question asked for and did not get: a rubric field the
		// candidate could not or would not give after a probe, a gap
		// probed as often as allowed, stops blocking as unknown.
		if f := q.Context.Targets.Field; f != "" && !filledField {
			if it, ok := rubricItem(r, f); ok && it.Status == interviews.StatusOpen && (res.Declined && it.Probes >= 1 || it.Probes >= stages.DefaultGapProbes) {
				it.Status = interviews.StatusUnknown
			}
		}
		if t := q.Context.Targets; t.Skill != "" && !filledGap {
			for i := range r.Gaps {
				gp := &r.Gaps[i]
				if gp.Status == interviews.StatusOpen && strings.EqualFold(gp.Skill, t.Skill) && gp.Attribute == t.Attribute &&
					(gp.Probes >= stages.DefaultGapProbes || res.Declined) {
					gp.Status = interviews.StatusUnknown
				}
			}
		}
		for i := range r.Backlog {
			if b := &r.Backlog[i]; b.QuestionID != "" && b.QuestionID == q.ID && b.Status == interviews.StatusAsked {
				b.Status = interviews.StatusAnswered
			}
		}
		// A weak answer earns one follow-up from a different angle, unless
		// the interviewer has already followed it up.
		// Only where the guide asks (a guided stage) does a follow-up wait
		// in the backlog; elsewhere the stage's own questions go on.
		// A gap or rubric question is asked again in other words instead.
		root := rootQuestion(qs, q.ID)
		if q.ID != "" && g.bp.Guided(q.Stage) && q.Context.Kind != stages.KindGap && q.Context.Kind != stages.KindRubric && res.FollowUp != "" && res.Confidence != interviews.ConfidenceHigh && !res.Declined &&
			followUps(qs, root) < stages.DefaultFollowUps && !slices.ContainsFunc(r.Backlog, func(b interviews.BacklogItem) bool {
			return b.Origin == interviews.OriginFollowUp && b.FollowsUp == root
		}) {
			addBacklog(r, interviews.BacklogItem{Text: res.FollowUp, Priority: stages.P0, Origin: interviews.OriginFollowUp,
				FollowsUp: root, Status: interviews.StatusOpen, By: res.By})
		}
		for _, d := range res.Discovered {
			if strings.TrimSpace(d.Text) == "" || slices.ContainsFunc(r.Backlog, func(b interviews.BacklogItem) bool { return strings.EqualFold(b.Text, d.Text) }) {
				continue
			}
			addBacklog(r, interviews.BacklogItem{Text: d.Text, Priority: cmp.Or(d.Priority, stages.P1), Origin: interviews.OriginDiscovered,
				Topic: d.About, Status: interviews.StatusOpen, By: res.By})
		}
	})
}

// phaseStage reports whether stage evaluates its phase (it offers
// evaluate_phase).
func (g *guide) phaseStage(stage string) bool {
	st, _, ok := g.bp.Stage(stage)
	return ok && slices.Contains(st.Tools, stages.ToolEvaluatePhase)
}

// turnsInStage are the candidate's turns since the interview last entered
// stage.
func (g *guide) turnsInStage(stage string) []string {
	var out []string
	g.rec.View(func(r *interviews.Record) {
		var since time.Time
		for _, v := range r.Stages {
			if v.Name == stage {
				since = v.EnteredAt
			}
		}
		for _, t := range r.Turns {
			if t.Role == interviews.RoleCandidate && t.Stage == stage && !t.StartedAt.Before(since) {
				out = append(out, t.Text)
			}
		}
	})
	return out
}

// evaluate runs the phase evaluation of stage on turns and keeps it for
// the next evaluate_phase call.
func (g *guide) evaluate(stage string, turns []string) interviews.Phase {
	st, _, _ := g.bp.Stage(stage)
	ph, err := g.an.Phase(g.ctx, analysis.PhaseInput{Stage: st, Turns: turns, Pass: stages.DefaultPhasePass})
	if err != nil {
		g.log.Warn("evaluating the phase failed; using the keyword evaluation", "stage", stage, "err", err)
		ph, _ = analysis.Rules{}.Phase(g.ctx, analysis.PhaseInput{Stage: st, Turns: turns, Pass: stages.DefaultPhasePass})
	}
	g.mu.Lock()
	g.phases[stage] = ph
	g.mu.Unlock()
	return ph
}

// phase answers evaluate_phase at once: the evaluation made beside the
// last answer of the stage, or — when none is ready — the keyword
// evaluation, which costs nothing. It is recorded as delivered to the
// interviewer.
func (g *guide) phase(stage string) interviews.Phase {
	g.mu.Lock()
	ph, ok := g.phases[stage]
	g.mu.Unlock()
	if !ok {
		st, _, _ := g.bp.Stage(stage)
		ph, _ = analysis.Rules{}.Phase(g.ctx, analysis.PhaseInput{Stage: st, Turns: g.turnsInStage(stage), Pass: stages.DefaultPhasePass})
	}
	ph.At = time.Now()
	_ = g.rec.Update(func(r *interviews.Record) { r.Phases = append(r.Phases, ph) })
	return ph
}

// coverage is the share of what the interview must find out that is
// covered, and of that covered or unknown (no longer blocking): the
// required rubric fields and the gaps of the job's required skills (P0).
func coverage(r *interviews.Record) (covered, settled float64, required int) {
	var c, s int
	for _, it := range r.Rubric {
		if !it.Required {
			continue
		}
		required++
		switch it.Status {
		case interviews.StatusCovered:
			c++
			s++
		case interviews.StatusUnknown:
			s++
		}
	}
	for _, gp := range r.Gaps {
		if gp.Priority != stages.P0 {
			continue
		}
		required++
		switch gp.Status {
		case interviews.StatusResolved:
			c++
			s++
		case interviews.StatusUnknown:
			s++
		}
	}
	if required == 0 {
		return 1, 1, 0
	}
	return float64(c) / float64(required), float64(s) / float64(required), required
}

// checkExit decides, after an analysis, whether the interview has what it
// needs; the exit is taken at the start of the next reply (takeExit).
func (g *guide) checkExit() {
	select {
	case <-g.ready:
	default:
		return
	}
	g.mu.Lock()
	decided := g.exit != nil
	g.mu.Unlock()
	if decided || g.m.Done() || g.bp.IsLast(g.m.Stage()) {
		return
	}
	var ex *interviews.Exit
	var in analysis.MissingInput
	g.rec.View(func(r *interviews.Record) {
		turns := r.AnswerTurns()
		if g.bp.KnowledgeCapture() {
			ex = g.captureExit(r, turns)
			return
		}
		if len(g.bp.Rubric) == 0 {
			return
		}
		cov, settled, _ := coverage(r)
		switch {
		case settled < g.bp.Exit.Threshold():
			return
		case turns >= g.bp.Exit.Turns():
			ex = &interviews.Exit{Reason: interviews.ExitMaxTurns, Coverage: cov, Turns: turns}
			return
		}
		// The job's required skills and the role template are part of what
		// the interview needs: it does not close while one of those gaps
		// is open or a template question is still to be asked.
		if g.pendingWork(r) {
			return
		}
		in = analysis.MissingInput{Blueprint: g.bp.Name, Rubric: slices.Clone(r.Rubric), Gaps: slices.Clone(r.Gaps)}
		for _, a := range r.Answers {
			in.Facts = append(in.Facts, a.Facts...)
		}
		ex = &interviews.Exit{Reason: interviews.ExitRubricComplete, Coverage: cov, Turns: turns}
	})
	if ex == nil {
		return
	}
	if ex.Reason == interviews.ExitRubricComplete && !g.rules {
		// With a model, a light assessment has the last word: is anything
		// important still missing?
		missing, err := g.an.Missing(g.ctx, in)
		if err != nil {
			g.log.Warn("the exit assessment failed; deciding by coverage", "err", err)
		} else if len(missing) > 0 {
			g.log.Info("coverage is met but the assessment wants more", "missing", missing)
			return
		} else {
			ex.Reason = interviews.ExitAssessment
		}
	}
	ex.At = time.Now()
	g.mu.Lock()
	if g.exit == nil {
		g.exit = ex
	}
	g.mu.Unlock()
	g.log.Info("the interview has what it needs", "reason", ex.Reason, "coverage", ex.Coverage, "turns", ex.Turns)
}

// pendingWork reports whether a P0 gap is still open or a template
// question is still to be asked (neither asked nor skipped).
func (g *guide) pendingWork(r *interviews.Record) bool {
	for _, gp := range r.Gaps {
		if gp.Priority == stages.P0 && gp.Status == interviews.StatusOpen {
			return true
		}
	}
	if g.tpl == nil {
		return false
	}
	asked := map[string]bool{}
	g.mu.Lock()
	for ref := range g.refused {
		asked[ref] = true
	}
	g.mu.Unlock()
	for _, q := range g.m.Questions() {
		if !q.Withdrawn && q.Spoken() {
			asked[q.Context.Ref] = true
		}
	}
	for _, tq := range g.tpl.Questions {
		if !asked[tq.ID] && !g.skip(r, tq) {
			return true
		}
	}
	return false
}

// captureExit ends a knowledge capture when no P0 or P1 question is left
// open, or at its round cap.
func (g *guide) captureExit(r *interviews.Record, turns int) *interviews.Exit {
	cov := captureCoverage(r)
	total := 0
	for _, b := range r.Backlog {
		if b.Status != interviews.StatusDropped {
			total++
		}
	}
	switch {
	case total > 0 && cov == 1:
		return &interviews.Exit{Reason: interviews.ExitBacklogComplete, Coverage: cov, Turns: turns}
	case g.rounds() >= g.bp.Exit.CaptureRounds():
		return &interviews.Exit{Reason: interviews.ExitRoundCap, Coverage: cov, Turns: turns}
	}
	return nil
}

// captureCoverage is the share of a capture's P0 and P1 questions
// answered (dropped ones aside); 1 with none.
func captureCoverage(r *interviews.Record) float64 {
	total, done := 0, 0
	for _, b := range r.Backlog {
		if b.Priority != stages.P0 && b.Priority != stages.P1 || b.Status == interviews.StatusDropped {
			continue
		}
		total++
		if b.Status == interviews.StatusAnswered {
			done++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(done) / float64(total)
}

// rounds counts the questions heard in guided stages.
func (g *guide) rounds() int {
	n := 0
	for _, q := range g.m.Questions() {
		if q.Spoken() && !q.Withdrawn && g.bp.Guided(q.Stage) {
			n++
		}
	}
	return n
}

// takeExit moves the interview to its closing stage when an exit has been
// decided, and records it; it reports whether it did. The interview's
// length (exit_conditions.max_turns) is a hard cap: reached, the
// interview closes whatever is still open. Any other exit waits until the
// interview has reached its main stage, so no stage the candidate was told
// of is skipped.
func (g *guide) takeExit() bool {
	g.mu.Lock()
	ex := g.exit
	g.exit = nil
	g.mu.Unlock()
	var answers int
	g.rec.View(func(r *interviews.Record) { answers = r.AnswerTurns() })
	if ex == nil && g.bp.KnowledgeCapture() {
		// The round cap needs no analysis: it is counted now, so the
		// capture never asks past it.
		if rounds := g.rounds(); rounds >= g.bp.Exit.CaptureRounds() {
			g.rec.View(func(r *interviews.Record) {
				ex = &interviews.Exit{Reason: interviews.ExitRoundCap, Coverage: captureCoverage(r), Turns: answers, At: time.Now()}
			})
		}
	}
	hard := false
	if !g.bp.KnowledgeCapture() && answers >= g.bp.Exit.Turns() {
		g.rec.View(func(r *interviews.Record) {
			cov, _, _ := coverage(r)
			ex = &interviews.Exit{Reason: interviews.ExitMaxTurns, Coverage: cov, Turns: answers, At: time.Now()}
		})
		hard = true
	}
	if ex == nil || g.m.Done() {
		return false
	}
	path := g.m.Path()
	last := path[len(path)-1]
	if g.m.Stage() == last {
		return false
	}
	keep := func() {
		g.mu.Lock()
		if g.exit == nil {
			g.exit = ex
		}
		g.mu.Unlock()
	}
	if !hard && g.bp.Index(g.m.Stage()) < g.bp.Index(g.mainStage()) {
		keep()
		return false
	}
	var err error
	if hard {
		_, err = g.m.Force(last, "exit: "+ex.Reason)
	} else {
		// The stage's own minimums still hold: until they are met the
		// exit waits, decided, for the next answer.
		_, err = g.m.AdvanceTo(last, "exit: "+ex.Reason)
	}
	if err != nil {
		var gate *fsm.GateError
		if errors.As(err, &gate) {
			keep()
			return false
		}
		g.log.Warn("closing the interview early failed", "err", err)
		return false
	}
	_ = g.rec.Update(func(r *interviews.Record) {
		ex.Turns, ex.At = r.AnswerTurns(), time.Now() // as it was taken, not as it was decided
		r.Exit = ex
	})
	return true
}

// brief is the prompt's section on what the interview knows, what it
// still needs and what to ask next, for stage.
func (g *guide) brief(stage string) string {
	var b strings.Builder
	g.rec.View(func(r *interviews.Record) {
		var known, missing []string
		for _, it := range r.Rubric {
			switch it.Status {
			case interviews.StatusCovered:
				known = append(known, fmt.Sprintf("%s: %s", it.Label, it.Value))
			case interviews.StatusOpen:
				missing = append(missing, it.Label)
			}
		}
		for _, s := range r.Skills {
			var attrs []string
			for _, a := range stages.SkillAttributes {
				if v := s.Attribute(a); v != "" {
					attrs = append(attrs, a+" "+v)
				}
			}
			if len(attrs) > 0 {
				known = append(known, s.Name+" — "+strings.Join(attrs, "; "))
			}
		}
		for _, gp := range r.Gaps {
			if gp.Status == interviews.StatusOpen && len(missing) < 8 {
				missing = append(missing, gp.InWords())
			}
		}
		n := len(r.Answers)
		for _, a := range r.Answers[max(0, n-3):] {
			for _, f := range a.Facts {
				if len(known) < 14 {
					known = append(known, f)
				}
			}
		}
		if len(known) > 0 {
			b.WriteString("What you know so far:\n- " + strings.Join(known, "\n- ") + "\n")
		}
		if len(missing) > 0 {
			b.WriteString("Still missing: " + strings.Join(missing, "; ") + ".\n")
		}
	})
	if s, ok := g.next(stage); ok {
		fmt.Fprintf(&b, "Ask next, in your own words to fit the conversation: %q (%s). Call %s with ref %q when you ask it.\n",
			s.Text, describeContext(s.Context), stages.ToolAskQuestion, s.Context.Ref)
		if tq, ok := g.templateQuestion(s.Context.Ref); ok {
			if e := strings.Join(strings.Fields(tq.Expected), " "); e != "" {
				fmt.Fprintf(&b, "A good answer to it covers: %s\n", e)
			}
			if skip := strings.Join(strings.Fields(tq.SkipIf), " "); skip != "" {
				fmt.Fprintf(&b, "Skip it, and ask something else, if: %s\n", skip)
			}
		}
	}
	return b.String()
}

// describeContext says in words what a question is for.
func describeContext(c stages.QuestionContext) string {
	t := c.Targets
	switch c.Kind {
	case stages.KindGap:
		return "a skill the job needs: " + interviews.Gap{Skill: t.Skill, Attribute: t.Attribute}.InWords()
	case stages.KindRubric:
		return "a rubric field still open: " + t.Field
	case stages.KindTemplate:
		return "from the role template: " + t.Category
	case stages.KindFollowUp:
		return "a follow-up on " + c.FollowsUp + " from a different angle"
	case stages.KindDiscovered:
		return fmt.Sprintf("something an answer revealed (%s)", c.Priority)
	case stages.KindBrief:
		return fmt.Sprintf("from the brief (%s)", c.Priority)
	}
	if c.Note != "" {
		return c.Note
	}
	return string(c.Kind)
}

// finish waits, for a bounded time, for the analyses still running, then
// records how the interview ended against its rubric and, for a knowledge
// capture, writes its summary.
func (g *guide) finish(endedBy interviews.EndReason) {
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(analysisWait):
		g.log.Warn("analyses still running at the end of the interview were abandoned")
	}
	g.cancel()
	<-done
	_ = g.rec.Update(func(r *interviews.Record) {
		if r.Exit != nil {
			return
		}
		cov, _, required := coverage(r)
		turns := r.AnswerTurns()
		reason := string(endedBy)
		switch {
		case g.bp.KnowledgeCapture():
			// A capture whose interviewer closed it with every question
			// answered ended because the backlog was done.
			cov = captureCoverage(r)
			if ex := g.captureExit(r, turns); ex != nil && endedBy == interviews.EndedClosingDelivered {
				reason = ex.Reason
			}
		case required == 0:
			cov = 0
		}
		r.Exit = &interviews.Exit{Reason: reason, Coverage: cov, Turns: turns, At: time.Now()}
	})
	if g.bp.KnowledgeCapture() {
		g.summarize()
	}
}

// summarize writes a knowledge capture's summary, by the model when there
// is one (bounded by summaryWait) and by the rules otherwise.
func (g *guide) summarize() {
	in := analysis.SummaryInput{}
	g.rec.View(func(r *interviews.Record) {
		in.Brief = r.Brief
		qs := r.Questions
		if g.m != nil {
			qs = g.m.Questions()
		}
		answerOf := func(qid string) (string, []string) {
			var text string
			var facts []string
			for _, a := range r.Answers {
				if a.QuestionID == qid {
					facts = append(facts, a.Facts...)
					for _, t := range r.Turns {
						if t.Seq == a.TurnSeq {
							text = strings.TrimSpace(text + " " + t.Text)
						}
					}
				}
			}
			return text, facts
		}
		topicOf := func(q stages.Question) string {
			for _, b := range r.Backlog {
				if b.ID == q.Context.Ref || b.QuestionID == q.ID {
					return b.Topic
				}
			}
			if fq, ok := questionByID(qs, q.Context.FollowsUp); ok {
				for _, b := range r.Backlog {
					if b.ID == fq.Context.Ref {
						return b.Topic
					}
				}
			}
			return ""
		}
		for _, q := range qs {
			if !q.Spoken() || q.Withdrawn {
				continue
			}
			text, facts := answerOf(q.ID)
			if text == "" && len(facts) == 0 {
				continue
			}
			in.Items = append(in.Items, analysis.SummaryItem{Topic: topicOf(q), Question: q.Text, Answer: text, Facts: facts})
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), summaryWait)
	defer cancel()
	sum, err := g.an.Summarize(ctx, in)
	if err != nil {
		g.log.Warn("writing the summary failed; writing the basic one", "err", err)
		sum, _ = analysis.Rules{}.Summarize(ctx, in)
	}
	sum.GeneratedAt = time.Now()
	_ = g.rec.Update(func(r *interviews.Record) { r.Summary = &sum })
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
