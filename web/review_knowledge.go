package web

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// knowledgeView is what the interview learned about the candidate, as the
// reviewer page shows it beside the timeline: why it ended, the rubric,
// the skills matrix, the gaps, the phase scores, the backlog and the
// summary. Every part is optional: records written before the interview
// learned these things leave them empty, and the page shows none of it.
type knowledgeView struct {
	Exit *exitView
	// Rubric is the state of each rubric field, in the blueprint's order.
	Rubric []rubricView
	// Attributes are the skills matrix's columns (stages.SkillAttributes).
	Attributes []string
	Skills     []skillView
	Gaps       []gapView
	Phases     []phaseView
	Backlog    []backlogView
	Summary    *summaryView
}

// Empty reports whether the record carries nothing the interview learned,
// so the page leaves the whole section out.
func (k knowledgeView) Empty() bool {
	return k.Exit == nil && len(k.Rubric) == 0 && len(k.Skills) == 0 && len(k.Gaps) == 0 &&
		len(k.Phases) == 0 && len(k.Backlog) == 0 && k.Summary == nil
}

// exitView says, in words, why the interview ended against its rubric.
type exitView struct {
	Reason string
	// Coverage is the share of required fields covered (or, in a
	// knowledge capture, of P0/P1 questions answered), in whole percent.
	Coverage int
	// CoverageOf says what Coverage counts.
	CoverageOf string
	Turns      int
}

// questionLink points from a rubric field, gap or backlog item to the
// interviewer turn that asked the question.
type questionLink struct {
	ID   string
	Text string
	// Href is "#turn-N", the turn that asked it; empty when no turn did.
	Href string
}

// rubricView is one rubric field with its status in words.
type rubricView struct {
	interviews.RubricItem
	StatusLabel string
	StatusClass string
	Asked       []questionLink
	ByLabel     string
}

// skillView is one row of the skills matrix.
type skillView struct {
	Name string
	// Sources say where the skill came from, in words ("résumé").
	Sources []string
	// Cells hold the attributes' values in the order of Attributes; an
	// empty value is shown as unknown.
	Cells      []skillCell
	Evidence   []string
	Confidence string
	ByLabel    string
	// Absent is true when the candidate said they have not used it.
	Absent bool
}

// skillCell is one attribute of one skill.
type skillCell struct {
	Attribute string // its label
	Value     string
}

// gapView is one gap with how it was resolved.
type gapView struct {
	interviews.Gap
	AttributeLabel string
	StatusLabel    string
	StatusClass    string
	Asked          []questionLink
}

// phaseView is one phase evaluation of a design stage.
type phaseView struct {
	interviews.Phase
	Title         string
	ScoreLabel    string
	DecisionLabel string
	ByLabel       string
}

// backlogView is one backlog question.
type backlogView struct {
	interviews.BacklogItem
	OriginLabel string
	StatusLabel string
	StatusClass string
	Asked       *questionLink
}

// summaryView is a knowledge capture's summary by topic.
type summaryView struct {
	*interviews.TopicSummary
	ByLabel string
}

// answerView is the analysis of one candidate turn, shown beside it.
type answerView struct {
	Confidence      string // "high confidence"
	ConfidenceClass string
	Facts           []string
	ByLabel         string
}

// askView is a question an interviewer turn asked, with what it was for.
type askView struct {
	ID      string
	Context string
}

// questionIndex finds questions and the turns that asked them.
type questionIndex struct {
	byID   map[string]stages.Question
	turnOf map[string]int // question id → Seq of the first turn asking it
}

func newQuestionIndex(rec *interviews.Record) questionIndex {
	qi := questionIndex{byID: make(map[string]stages.Question, len(rec.Questions)), turnOf: map[string]int{}}
	for _, q := range rec.Questions {
		qi.byID[q.ID] = q
	}
	for _, t := range rec.Turns {
		for _, id := range t.QuestionIDs {
			if _, ok := qi.turnOf[id]; !ok {
				qi.turnOf[id] = t.Seq
			}
		}
	}
	return qi
}

// link returns the link to question id.
func (qi questionIndex) link(id string) questionLink {
	l := questionLink{ID: id, Text: qi.byID[id].Text}
	if seq, ok := qi.turnOf[id]; ok {
		l.Href = turnAnchor(seq)
	}
	return l
}

func (qi questionIndex) links(ids []string) []questionLink {
	var out []questionLink
	for _, id := range ids {
		out = append(out, qi.link(id))
	}
	return out
}

// turnAnchor is the fragment of the timeline's turn seq.
func turnAnchor(seq int) string { return "#turn-" + strconv.Itoa(seq) }

// newKnowledgeView arranges what rec's interview learned for the page.
func newKnowledgeView(rec *interviews.Record, qi questionIndex) knowledgeView {
	k := knowledgeView{}
	if e := rec.Exit; e != nil {
		ev := &exitView{Reason: exitReasonLabel(e), Coverage: percent(e.Coverage), Turns: e.Turns, CoverageOf: "of the required topics covered"}
		if knowledgeCapture(rec.Blueprint) || e.Reason == interviews.ExitBacklogComplete || e.Reason == interviews.ExitRoundCap {
			ev.CoverageOf = "of the must-ask and should-ask questions answered"
		}
		k.Exit = ev
	}
	for _, it := range rec.Rubric {
		k.Rubric = append(k.Rubric, rubricView{
			RubricItem: it, StatusLabel: itemStatusLabel(it.Status), StatusClass: itemStatusClass(it.Status),
			Asked: qi.links(it.QuestionIDs), ByLabel: byLabel(it.By),
		})
	}
	if len(rec.Skills) > 0 {
		for _, a := range stages.SkillAttributes {
			k.Attributes = append(k.Attributes, attributeLabel(a))
		}
	}
	for _, s := range rec.Skills {
		sv := skillView{Name: s.Name, Evidence: s.Evidence, ByLabel: byLabel(s.By), Absent: s.Absent}
		for _, src := range s.Sources {
			sv.Sources = append(sv.Sources, sourceLabel(src))
		}
		for _, a := range stages.SkillAttributes {
			sv.Cells = append(sv.Cells, skillCell{Attribute: attributeLabel(a), Value: s.Attribute(a)})
		}
		if s.Confidence > 0 {
			sv.Confidence = fmt.Sprintf("%d %% confidence", percent(s.Confidence))
		}
		k.Skills = append(k.Skills, sv)
	}
	for _, g := range rec.Gaps {
		k.Gaps = append(k.Gaps, gapView{
			Gap: g, AttributeLabel: attributeLabel(g.Attribute),
			StatusLabel: gapStatusLabel(g), StatusClass: itemStatusClass(g.Status), Asked: qi.links(g.QuestionIDs),
		})
	}
	for _, p := range rec.Phases {
		title := p.Name
		if title == "" {
			title = rec.StageTitle(p.ID)
		}
		k.Phases = append(k.Phases, phaseView{
			Phase: p, Title: title, ScoreLabel: strconv.FormatFloat(math.Round(p.Score*10)/10, 'f', -1, 64) + "/10",
			DecisionLabel: phaseDecisionLabel(p.Decision), ByLabel: byLabel(p.By),
		})
	}
	for _, b := range rec.Backlog {
		bv := backlogView{BacklogItem: b, OriginLabel: originLabel(b.Origin), StatusLabel: itemStatusLabel(b.Status), StatusClass: itemStatusClass(b.Status)}
		if b.QuestionID != "" {
			l := qi.link(b.QuestionID)
			bv.Asked = &l
		}
		k.Backlog = append(k.Backlog, bv)
	}
	if rec.Summary != nil {
		k.Summary = &summaryView{TopicSummary: rec.Summary, ByLabel: byLabel(rec.Summary.By)}
	}
	return k
}

// answersBySeq returns the analyses of rec's answers by the Seq of the
// candidate turn they analysed.
func answersBySeq(rec *interviews.Record) map[int]answerView {
	out := make(map[int]answerView, len(rec.Answers))
	for _, a := range rec.Answers {
		av := answerView{Facts: a.Facts, ByLabel: byLabel(a.By)}
		if a.Confidence != "" {
			av.Confidence = string(a.Confidence) + " confidence"
			av.ConfidenceClass = "confidence-" + string(a.Confidence)
		}
		out[a.TurnSeq] = av
	}
	return out
}

// knowledgeCapture reports whether blueprint names a built-in
// knowledge-capture blueprint.
func knowledgeCapture(blueprint string) bool {
	b, err := stages.Builtin(blueprint)
	return err == nil && b.KnowledgeCapture()
}

// percent turns a share (0–1) into whole percent, clamped to 0–100.
func percent(share float64) int {
	if math.IsNaN(share) {
		return 0
	}
	return int(math.Round(min(max(share, 0), 1) * 100))
}

// attributeLabels are the human names of stages.SkillAttributes.
var attributeLabels = map[string]string{
	"duration":                "Duration",
	"depth":                   "Depth",
	"autonomy":                "Autonomy",
	"scale":                   "Scale",
	"constraints":             "Constraints",
	"production_vs_prototype": "Production or prototype",
}

// attributeLabel is the human name of a skill attribute.
func attributeLabel(a string) string {
	if l, ok := attributeLabels[a]; ok {
		return l
	}
	return interviews.Humanize(a)
}

// Skill sources (interviews.Skill.Sources) and their human names.
const (
	sourceResume       = "resume"
	sourceJobRequired  = "job_required"
	sourceJobPreferred = "job_preferred"
	sourceAnswer       = "answer"
)

var sourceLabels = map[string]string{
	sourceResume:       "résumé",
	sourceJobRequired:  "job required",
	sourceJobPreferred: "job preferred",
	sourceAnswer:       "answer",
}

func sourceLabel(s string) string {
	if l, ok := sourceLabels[s]; ok {
		return l
	}
	return strings.ToLower(interviews.Humanize(s))
}

// itemStatusLabel is a rubric field's, gap's or backlog question's status
// in words.
func itemStatusLabel(s interviews.ItemStatus) string {
	if s == "" {
		return string(interviews.StatusOpen)
	}
	return strings.ToLower(interviews.Humanize(string(s)))
}

// itemStatusClass is the CSS class of an item status badge.
func itemStatusClass(s interviews.ItemStatus) string {
	switch s {
	case interviews.StatusCovered, interviews.StatusResolved, interviews.StatusAnswered:
		return "item-done"
	case interviews.StatusUnknown, interviews.StatusDropped:
		return "item-unknown"
	case interviews.StatusAsked:
		return "item-asked"
	}
	return "item-open"
}

// gapStatusLabel says how a gap ended: resolved, still open, or unknown
// after its probes.
func gapStatusLabel(g interviews.Gap) string {
	if g.Status == interviews.StatusUnknown && g.Probes > 0 {
		return fmt.Sprintf("unknown after %s", plural(g.Probes, "probe"))
	}
	return itemStatusLabel(g.Status)
}

// originLabels are the human names of backlog origins.
var originLabels = map[string]string{
	interviews.OriginBrief:      "from the brief",
	interviews.OriginTemplate:   "from the role template",
	interviews.OriginFollowUp:   "follow-up",
	interviews.OriginDiscovered: "discovered in an answer",
}

func originLabel(o string) string {
	if l, ok := originLabels[o]; ok {
		return l
	}
	return strings.ToLower(interviews.Humanize(o))
}

func phaseDecisionLabel(d string) string {
	switch d {
	case interviews.PhaseAdvance:
		return "moved on"
	case interviews.PhaseContinue:
		return "kept working on it"
	}
	return strings.ToLower(interviews.Humanize(d))
}

// byLabel says, discreetly, what extracted a value.
func byLabel(b interviews.By) string {
	switch b {
	case interviews.ByRules:
		return "extracted by rules"
	case interviews.ByLLM:
		return "extracted by the model"
	case "":
		return ""
	}
	return "extracted by " + string(b)
}

// exitReasonLabel says in words why the interview ended.
func exitReasonLabel(e *interviews.Exit) string {
	switch e.Reason {
	case interviews.ExitRubricComplete:
		return "Ended early: every required topic was covered"
	case interviews.ExitMaxTurns:
		if e.Turns > 0 {
			return fmt.Sprintf("Reached %s", plural(e.Turns, "answer"))
		}
		return "Reached the most answers allowed"
	case interviews.ExitAssessment:
		return "The interviewer judged nothing important was missing"
	case interviews.ExitBacklogComplete:
		return "Every must-ask and should-ask question was answered"
	case interviews.ExitRoundCap:
		if e.Turns > 0 {
			return fmt.Sprintf("Reached the limit of %s", plural(e.Turns, "round"))
		}
		return "Reached the limit of rounds"
	}
	return endReasonLabel(interviews.EndReason(e.Reason))
}

// endReasonLabel says in words what ended an interview, as a sentence
// about the candidate: "The candidate ended the interview".
func endReasonLabel(e interviews.EndReason) string {
	w := e.InWords(interviews.CandidateThird)
	return strings.ToUpper(w[:1]) + w[1:]
}

// questionContextLabel says in words what a question asked was for:
// "From the role template — Architecture", "Probing a gap: Python —
// duration"; empty when its context says nothing.
func questionContextLabel(rec *interviews.Record, q stages.Question) string {
	c := q.Context
	t := c.Targets
	switch c.Kind {
	case "":
		return ""
	case stages.KindBank:
		return "From the question bank"
	case stages.KindTemplate:
		if t.Category != "" {
			return "From the role template — " + t.Category
		}
		return "From the role template"
	case stages.KindGap:
		if t.Skill != "" && t.Attribute != "" {
			return "Probing a gap: " + t.Skill + " — " + strings.ToLower(attributeLabel(t.Attribute))
		}
		return "Probing a gap" + prefixed(": ", t.Skill)
	case stages.KindRubric:
		return "Rubric: " + rubricLabel(rec, t.Field)
	case stages.KindFollowUp:
		return "Follow-up" + prefixed(" on ", c.FollowsUp)
	case stages.KindDiscovered:
		return "Discovered" + enclosed(string(c.Priority))
	case stages.KindBrief:
		topic := ""
		if i := slices.IndexFunc(rec.Backlog, func(b interviews.BacklogItem) bool { return b.ID == c.Ref }); i >= 0 {
			topic = rec.Backlog[i].Topic
		}
		return "From the brief" + prefixed(" — ", topic) + enclosed(string(c.Priority))
	case stages.KindPhase:
		if t.Phase != "" {
			return "Working on what the phase lacks: " + rec.StageTitle(t.Phase)
		}
		return "Working on what the phase lacks"
	case stages.KindFree:
		return "The interviewer's own question"
	}
	return interviews.Humanize(string(c.Kind))
}

// rubricLabel is the label of rubric field id, from the record's rubric.
func rubricLabel(rec *interviews.Record, id string) string {
	if i := slices.IndexFunc(rec.Rubric, func(it interviews.RubricItem) bool { return it.ID == id }); i >= 0 && rec.Rubric[i].Label != "" {
		return rec.Rubric[i].Label
	}
	return interviews.Humanize(id)
}

// plural says "1 probe", "2 probes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func enclosed(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
