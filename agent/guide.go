package agent

import (
	"cmp"
	"context"
	"log/slog"
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
					_ = g.rec.Update(func(r *interviews.Record) { foldDocumentSkills(r, skills) })
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

// foldDocumentSkills adds the skills read from the résumé and job
// description to what the answers found meanwhile (the reading runs beside
// the interview): a skill both name keeps the answers' findings and gains
// the documents' sources and values; its gaps are those still unknown, and
// a skill the candidate said they lack gets none.
func foldDocumentSkills(r *interviews.Record, skills []interviews.Skill) {
	for _, s := range skills {
		have := skillByName(r, s.Name)
		if have == nil {
			r.Skills = append(r.Skills, s)
			continue
		}
		for _, src := range s.Sources {
			if !slices.Contains(have.Sources, src) {
				have.Sources = append(have.Sources, src)
			}
		}
		for _, attr := range stages.SkillAttributes {
			if have.Attribute(attr) == "" && s.Attribute(attr) != "" {
				have.SetAttribute(attr, s.Attribute(attr))
			}
		}
	}
	r.Gaps = gapsOf(slices.DeleteFunc(slices.Clone(r.Skills), func(s interviews.Skill) bool { return s.Absent }))
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
