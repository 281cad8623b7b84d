package interviews

import (
	"strings"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// By says what produced an extracted value: the offline rules or a
// language model.
type By string

// The producers of extracted values.
const (
	ByRules By = "rules"
	ByLLM   By = "llm"
)

// Confidence is how sure analysis is that an answer really answered its
// question.
type Confidence string

// The confidence levels of an answer, with their scores (ConfidenceScore).
const (
	ConfidenceHigh   Confidence = "high"
	ConfidenceMedium Confidence = "medium"
	ConfidenceLow    Confidence = "low"
)

// Score is the confidence as a number: 0.9, 0.6, 0.3 (0 when unset).
func (c Confidence) Score() float64 {
	switch c {
	case ConfidenceHigh:
		return 0.9
	case ConfidenceMedium:
		return 0.6
	case ConfidenceLow:
		return 0.3
	}
	return 0
}

// Valid reports whether c is one of the three levels.
func (c Confidence) Valid() bool {
	return c == ConfidenceHigh || c == ConfidenceMedium || c == ConfidenceLow
}

// Skill is what the interview knows about one of the candidate's skills:
// the six attributes of stages.SkillAttributes, each empty until the
// résumé or an answer gives it.
type Skill struct {
	// Name is the skill as named ("Python", "PostgreSQL").
	Name string `json:"name"`
	// Sources say where the skill came from: "resume", "job_required",
	// "job_preferred", "answer".
	Sources []string `json:"sources,omitempty"`
	// The six attributes (stages.SkillAttributes).
	Duration              string `json:"duration,omitempty"`
	Depth                 string `json:"depth,omitempty"`
	Autonomy              string `json:"autonomy,omitempty"`
	Scale                 string `json:"scale,omitempty"`
	Constraints           string `json:"constraints,omitempty"`
	ProductionVsPrototype string `json:"production_vs_prototype,omitempty"`
	// Evidence quotes the words each attribute was taken from.
	Evidence []string `json:"evidence,omitempty"`
	// Confidence (0–1) in the attributes filled so far.
	Confidence float64 `json:"confidence,omitempty"`
	// By is what filled the attributes last.
	By By `json:"by,omitempty"`
	// Absent is true when the candidate said they have not used the
	// skill ("I haven't used Rust"): it is no skill of theirs, its gaps
	// are settled as unknown, and Evidence quotes their words.
	Absent bool `json:"absent,omitempty"`
}

// Attribute returns the value of one of stages.SkillAttributes.
func (s *Skill) Attribute(name string) string {
	if p := s.attr(name); p != nil {
		return *p
	}
	return ""
}

// SetAttribute sets one of stages.SkillAttributes; it reports false for
// an unknown name.
func (s *Skill) SetAttribute(name, value string) bool {
	p := s.attr(name)
	if p == nil {
		return false
	}
	*p = value
	return true
}

func (s *Skill) attr(name string) *string {
	switch name {
	case "duration":
		return &s.Duration
	case "depth":
		return &s.Depth
	case "autonomy":
		return &s.Autonomy
	case "scale":
		return &s.Scale
	case "constraints":
		return &s.Constraints
	case "production_vs_prototype":
		return &s.ProductionVsPrototype
	}
	return nil
}

// Status of a gap, a rubric field or a backlog question.
type ItemStatus string

// The statuses of gaps, rubric fields and backlog questions.
const (
	// StatusOpen: still wanted.
	StatusOpen ItemStatus = "open"
	// StatusResolved: a gap whose attribute has a value.
	StatusResolved ItemStatus = "resolved"
	// StatusCovered: a rubric field an answer filled.
	StatusCovered ItemStatus = "covered"
	// StatusUnknown: asked as often as allowed without an answer; it no
	// longer blocks the interview.
	StatusUnknown ItemStatus = "unknown"
	// StatusAsked: a backlog question asked, its answer not yet analysed.
	StatusAsked ItemStatus = "asked"
	// StatusAnswered: a backlog question whose answer was analysed.
	StatusAnswered ItemStatus = "answered"
	// StatusDropped: a backlog question no longer worth asking.
	StatusDropped ItemStatus = "dropped"
)

// Gap is a skill attribute nobody has told the interview yet.
type Gap struct {
	// ID is "g1", "g2", … in the order gaps were found.
	ID string `json:"id"`
	// Skill and Attribute (one of stages.SkillAttributes) name the gap.
	Skill     string `json:"skill"`
	Attribute string `json:"attribute"`
	// Priority: P0 for a skill the job requires, P1 otherwise.
	Priority stages.Priority `json:"priority"`
	// Status is open, resolved or unknown.
	Status ItemStatus `json:"status"`
	// Probes is how many questions probed it.
	Probes int `json:"probes"`
	// QuestionIDs are the questions that probed it.
	QuestionIDs []string `json:"question_ids,omitempty"`
}

// InWords says what the gap leaves unknown, as a reader would put it
// ("how long they have used Kafka").
func (g Gap) InWords() string {
	switch g.Attribute {
	case "duration":
		return "how long they have used " + g.Skill
	case "depth":
		return "the most complex thing they built with " + g.Skill
	case "scale":
		return "the scale of their " + g.Skill + " work"
	case "autonomy":
		return "which " + g.Skill + " decisions were theirs"
	case "production_vs_prototype":
		return "whether their " + g.Skill + " work ran in production"
	case "constraints":
		return "what constrained their " + g.Skill + " work"
	}
	return g.Skill + ": " + strings.ReplaceAll(g.Attribute, "_", " ")
}

// RubricItem is the state of one rubric field of the blueprint.
type RubricItem struct {
	ID       string `json:"id"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
	// Status is open, covered or unknown.
	Status ItemStatus `json:"status"`
	// Value is what was learned ("8 years").
	Value string `json:"value,omitempty"`
	// Evidence quotes the candidate's words.
	Evidence string `json:"evidence,omitempty"`
	// QuestionIDs are the questions whose answers filled or probed it.
	QuestionIDs []string `json:"question_ids,omitempty"`
	// Probes is how many questions asked for it directly.
	Probes int `json:"probes,omitempty"`
	// By is what filled it.
	By By `json:"by,omitempty"`
	// Confidence (0–1) is how sure the analysis was of Value; a later
	// answer that gives it with more confidence, or as the answer to a
	// question asking for it, replaces it.
	Confidence float64 `json:"confidence,omitempty"`
}

// Answer is the analysis of one candidate answer.
type Answer struct {
	// QuestionID is the question answered ("" when none was open).
	QuestionID string `json:"question_id,omitempty"`
	// TurnSeq is the candidate turn analysed (Turn.Seq).
	TurnSeq int `json:"turn_seq"`
	// Confidence and its score (Confidence.Score).
	Confidence      Confidence `json:"confidence"`
	ConfidenceScore float64    `json:"confidence_score"`
	// Facts are what the answer said, each standing alone.
	Facts []string `json:"facts,omitempty"`
	// By is what analysed it.
	By By `json:"by"`
	// At is when the analysis finished.
	At time.Time `json:"at"`
}

// Backlog origins (BacklogItem.Origin).
const (
	OriginBrief      = "brief"
	OriginTemplate   = "template"
	OriginFollowUp   = "follow_up"
	OriginDiscovered = "discovered"
)

// BacklogItem is a question waiting to be asked: from a knowledge-capture
// brief, a follow-up on a weak answer, or something an answer revealed.
type BacklogItem struct {
	// ID is "b1", "b2", … in the order items were added.
	ID string `json:"id"`
	// Text is the question as it would be asked.
	Text string `json:"text"`
	// Priority is P0 (must ask) or P1 (should ask).
	Priority stages.Priority `json:"priority"`
	// Origin is one of the Origin* values.
	Origin string `json:"origin"`
	// Topic groups brief questions (the brief's heading) and summaries.
	Topic string `json:"topic,omitempty"`
	// FollowsUp is the question a follow-up follows up.
	FollowsUp string `json:"follows_up,omitempty"`
	// Status is open, asked, answered or dropped.
	Status ItemStatus `json:"status"`
	// QuestionID is the question that asked it, once asked.
	QuestionID string `json:"question_id,omitempty"`
	// By is what wrote it.
	By By `json:"by,omitempty"`
}

// Phase is one phase evaluation of a design stage.
type Phase struct {
	// ID is the stage's name; Name its title.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Score is 0–10.
	Score float64 `json:"score"`
	// Decision is "advance" or "continue".
	Decision string `json:"decision"`
	// Feedback is one or two sentences for the interviewer.
	Feedback string `json:"feedback,omitempty"`
	// Gaps are what the candidate has not covered yet.
	Gaps []string  `json:"gaps,omitempty"`
	By   By        `json:"by"`
	At   time.Time `json:"at"`
}

// Phase decisions.
const (
	PhaseAdvance  = "advance"
	PhaseContinue = "continue"
)

// Exit reasons (Exit.Reason) besides the EndReason values, which an exit
// may also carry.
const (
	ExitRubricComplete  = "rubric_complete"
	ExitMaxTurns        = "max_turns"
	ExitAssessment      = "assessment"
	ExitBacklogComplete = "backlog_complete"
	ExitRoundCap        = "round_cap"
)

// Exit says why and where an interview ended, against its rubric.
type Exit struct {
	// Reason is one of the Exit* values or an EndReason ("deadline",
	// "candidate_request", …).
	Reason string `json:"reason"`
	// Coverage is the share (0–1) of required rubric fields covered, or
	// of P0/P1 backlog questions answered in a knowledge capture.
	Coverage float64 `json:"coverage"`
	// Turns is how many candidate turns the interview had.
	Turns int `json:"turns"`
	// At is when the exit was decided.
	At time.Time `json:"at"`
}

// TopicSummary is a knowledge-capture interview's summary, organised by topic.
type TopicSummary struct {
	// Topics in order: for a model, decisions and why, unwritten rules,
	// dependencies and people, risks and gotchas, history; offline, the
	// brief's headings.
	Topics []SummaryTopic `json:"topics"`
	// Basic is true for the offline summary (facts grouped by heading),
	// so nobody takes it for a model's synthesis.
	Basic bool `json:"basic,omitempty"`
	By    By   `json:"by"`
	// GeneratedAt is when it was written.
	GeneratedAt time.Time `json:"generated_at"`
}

// SummaryTopic is one topic of a TopicSummary.
type SummaryTopic struct {
	Title  string   `json:"title"`
	Points []string `json:"points"`
}
