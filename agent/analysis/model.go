package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	st "github.com/viva-interviews/viva/agent/llm/structured"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Defaults of ModelOptions.
const (
	DefaultAttempts     = 2
	DefaultModelTimeout = 20 * time.Second
)

// ErrMalformed is wrapped by the error of a model whose every attempt
// answered with JSON that does not fit the schema.
var ErrMalformed = errors.New("malformed analysis")

// The Analyzer methods by name, as WithFallback reports them.
const (
	MethodAnswer    = "answer"
	MethodSkills    = "skills"
	MethodBacklog   = "backlog"
	MethodPhase     = "phase"
	MethodMissing   = "missing"
	MethodSummarize = "summarize"
)

// ModelOptions configure a Model.
type ModelOptions struct {
	// Attempts is how many calls one analysis may make when the model's
	// answer is malformed, in all; zero means DefaultAttempts.
	Attempts int
	// Timeout bounds each call; zero means DefaultModelTimeout.
	Timeout time.Duration
}

// Model is the Analyzer backed by a language model: each method is one
// call answering in JSON against a schema (structured output), validated
// and retried when malformed. Errors from the client are returned at once
// (it retries transport failures itself), wrapped.
type Model struct {
	client   llm.Client
	attempts int
	timeout  time.Duration
}

var _ Analyzer = (*Model)(nil)

// NewModel returns a Model asking client.
func NewModel(client llm.Client, opts ModelOptions) *Model {
	return &Model{
		client:   client,
		attempts: cmp.Or(max(opts.Attempts, 0), DefaultAttempts),
		timeout:  cmp.Or(max(opts.Timeout, 0), DefaultModelTimeout),
	}
}

// ask makes one structured call with structured.Ask, retried while the
// answer is malformed; its errors name the method, and wrap ErrMalformed
// when every attempt was malformed.
func ask[T any](ctx context.Context, m *Model, method string, f st.Schema, system, user string, validate func(*T) error) (T, error) {
	out, err := st.Ask(ctx, st.Call{Client: m.client, Attempts: m.attempts, Timeout: m.timeout, Schema: f, System: system, User: user}, validate)
	if me := (*st.MalformedError)(nil); errors.As(err, &me) {
		return out, fmt.Errorf("analysis: %s: %w after %d attempt(s): %v", method, ErrMalformed, me.Attempts, me.Last)
	}
	if err != nil {
		return out, fmt.Errorf("analysis: %s: %w", method, err)
	}
	return out, nil
}

// The replies the model gives, as the schemas describe them.
type (
	answerReply struct {
		Confidence interviews.Confidence `json:"confidence"`
		Declined   bool                  `json:"declined"`
		Facts      []string              `json:"facts"`
		Fills      []struct {
			Skill     string `json:"skill"`
			Attribute string `json:"attribute"`
			Field     string `json:"field"`
			Value     string `json:"value"`
			Evidence  string `json:"evidence"`
		} `json:"fills"`
		FollowUp   string `json:"follow_up"`
		Discovered []struct {
			Text     string          `json:"text"`
			Priority stages.Priority `json:"priority"`
			About    string          `json:"about"`
		} `json:"discovered"`
		Skills []string `json:"skills"`
		Absent []string `json:"absent"`
	}
	skillsReply struct {
		Skills []struct {
			Name                  string   `json:"name"`
			Sources               []string `json:"sources"`
			Duration              string   `json:"duration"`
			Depth                 string   `json:"depth"`
			Autonomy              string   `json:"autonomy"`
			Scale                 string   `json:"scale"`
			Constraints           string   `json:"constraints"`
			ProductionVsPrototype string   `json:"production_vs_prototype"`
			Evidence              []string `json:"evidence"`
		} `json:"skills"`
	}
	backlogReply struct {
		Items []struct {
			Text     string          `json:"text"`
			Priority stages.Priority `json:"priority"`
			Topic    string          `json:"topic"`
		} `json:"items"`
	}
	phaseReply struct {
		Decision string   `json:"decision"`
		Score    float64  `json:"score"`
		Feedback string   `json:"feedback"`
		Gaps     []string `json:"gaps"`
	}
	missingReply struct {
		Missing []string `json:"missing"`
	}
	summaryReply struct {
		Topics []interviews.SummaryTopic `json:"topics"`
	}
)

const answerSystem = `You analyse one answer a candidate gave in a spoken interview, and reply with JSON only. Read the question, what it was for, and the answer; report only what the answer itself says.
confidence: "high" when the answer fully and specifically answers the question (a concrete example, their own part, a result), "medium" when it answers part of it, "low" when it is vague, evasive or off the question.
declined: true when the candidate could not or would not answer (would rather not say, confidential, does not know); then confidence is "low" and nothing is filled.
facts: at most 4 short sentences in the third person, each understandable on its own ("Has led the ledger team for three years.").
fills: the values the answer gave, each with evidence, the candidate's own words it came from. A fill is either a skill attribute (skill and attribute set, field "") or a rubric field (field set to one of the open rubric fields listed, skill and attribute ""). Fill a skill attribute only for the skill the question asks about or one of the known skills; never invent a skill, and never fill from what the question said rather than the answer.
follow_up: when confidence is not "high" and the candidate did not decline, one short question that asks for what is missing from a different angle (an example, the outcome, their own part, a number); else "".
discovered: things the answer mentioned that deserve a question of their own (a person, a system, a decision); text is that question, priority "P0" for decisions and "P1" otherwise, and about names what it is about in two to four words ("the billing migration").
skills: technologies the answer says the candidate has used.
absent: technologies the candidate says they lack or have never used ("I haven't used Rust", "no PCI-DSS experience"); never also in skills, and fill nothing for them.`

// Answer analyses one answer with the model; see Analyzer. A request to
// repeat the question (IsRepeatRequest) is no answer: it is reported as
// such without asking the model.
func (m *Model) Answer(ctx context.Context, in AnswerInput) (AnswerResult, error) {
	if IsRepeatRequest(in.Answer) {
		return AnswerResult{RepeatRequest: true, Confidence: interviews.ConfidenceLow, By: interviews.ByRules}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Question (%s): %s\n%s\n", cmp.Or(string(in.Question.Context.Kind), string(stages.KindFree)), in.Question.Text, describeContext(in.Question))
	if in.Question.Expected != "" {
		fmt.Fprintf(&b, "A good answer, in general: %s\n", in.Question.Expected)
	}
	if len(in.Rubric) > 0 {
		b.WriteString("Open rubric fields:\n")
		for _, f := range in.Rubric {
			fmt.Fprintf(&b, "- %s (%s)%s\n", f.ID, f.Label, expectNote(f.Expect))
		}
	}
	if len(in.Skills) > 0 {
		fmt.Fprintf(&b, "Known skills: %s\n", strings.Join(in.Skills, ", "))
	}
	if kw := slices.Concat(in.Keywords, in.Question.Keywords); len(kw) > 0 {
		fmt.Fprintf(&b, "Topics a good answer touches: %s\n", strings.Join(kw, ", "))
	}
	if len(in.Recent) > 0 {
		fmt.Fprintf(&b, "Conversation before the answer:\n%s\n", strings.Join(in.Recent, "\n"))
	}
	fmt.Fprintf(&b, "Answer: %s", in.Answer)

	targets := in.Question.Context.Targets
	fields := map[string]bool{targets.Field: targets.Field != ""}
	for _, f := range in.Rubric {
		fields[f.ID] = true
	}
	r, err := ask(ctx, m, MethodAnswer, answerSchema, answerSystem, b.String(), func(r *answerReply) error {
		if !r.Confidence.Valid() {
			return fmt.Errorf("confidence %q is not high, medium or low", r.Confidence)
		}
		for _, d := range r.Discovered {
			if d.Priority != stages.P0 && d.Priority != stages.P1 {
				return fmt.Errorf("discovered priority %q is not P0 or P1", d.Priority)
			}
		}
		return nil
	})
	if err != nil {
		return AnswerResult{}, err
	}
	absent := clipList(r.Absent, len(r.Absent))
	res := AnswerResult{
		Confidence: r.Confidence, Declined: r.Declined, Skills: without(r.Skills, absent), Absent: absent, By: interviews.ByLLM,
		Facts: clipList(r.Facts, maxFacts),
	}
	for _, f := range r.Fills {
		value := strings.TrimSpace(f.Value)
		switch {
		case value == "", f.Skill != "" && slices.ContainsFunc(absent, func(a string) bool { return strings.EqualFold(a, f.Skill) }):
		case f.Field != "" && fields[f.Field]:
			res.Fills = append(res.Fills, Fill{Field: f.Field, Value: value, Evidence: f.Evidence})
		case f.Skill != "" && slices.Contains(stages.SkillAttributes, f.Attribute) && knownSkill(f.Skill, targets.Skill, in.Skills):
			res.Fills = append(res.Fills, Fill{Skill: f.Skill, Attribute: f.Attribute, Value: value, Evidence: f.Evidence})
		}
	}
	for _, d := range r.Discovered {
		if strings.TrimSpace(d.Text) != "" {
			res.Discovered = append(res.Discovered, Discovered{Text: d.Text, Priority: d.Priority, About: d.About})
		}
	}
	if res.Confidence != interviews.ConfidenceHigh {
		res.FollowUp = strings.TrimSpace(r.FollowUp)
	}
	return res, nil
}

// knownSkill reports whether a fill's skill is the question's or one
// already known: a model must not invent one ("unknown").
func knownSkill(name, target string, known []string) bool {
	if strings.EqualFold(name, target) {
		return true
	}
	return slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, name) })
}

// describeContext says in words what the question was for, so the model
// fills what the question asked about and nothing it guesses.
func describeContext(q stages.Question) string {
	t := q.Context.Targets
	switch {
	case t.Skill != "" && t.Attribute != "":
		return fmt.Sprintf("The question asked about the skill %s, attribute %s.", t.Skill, t.Attribute)
	case t.Field != "":
		return fmt.Sprintf("The question asked for the rubric field %s.", t.Field)
	case t.Category != "" || len(t.Assesses) > 0:
		return fmt.Sprintf("The question is from the role template's %q section; it assesses %s.", t.Category, strings.Join(t.Assesses, ", "))
	case t.Phase != "":
		return fmt.Sprintf("The question works on the design phase %s.", t.Phase)
	}
	return "The question names no skill or field: fill only listed rubric fields or known skills the answer clearly speaks to."
}

// expectNote describes a rubric field's expected kind of value.
func expectNote(expect string) string {
	if expect == stages.ExpectAny {
		return ""
	}
	return ", expects a " + expect
}

// clipList keeps at most n non-empty items.
func clipList(list []string, n int) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" && len(out) < n {
			out = append(out, s)
		}
	}
	return out
}

const skillsSystem = `You read a résumé and a job description and reply with JSON only.
List each skill (technology or practice) named in either. sources: "resume" when the résumé names it, "job_required" when the job requires it, "job_preferred" when the job only prefers it (nice to have, bonus).
Attributes (duration, depth, autonomy, scale, constraints, production_vs_prototype): only what the résumé states, else ""; evidence quotes the résumé's words.`

// Skills reads the résumé and job description with the model; see
// Analyzer.
func (m *Model) Skills(ctx context.Context, resume, jobDescription string) ([]interviews.Skill, error) {
	user := fmt.Sprintf("Résumé:\n%s\n\nJob description:\n%s", resume, jobDescription)
	r, err := ask(ctx, m, MethodSkills, skillsSchema, skillsSystem, user, func(r *skillsReply) error {
		for _, s := range r.Skills {
			if strings.TrimSpace(s.Name) == "" {
				return errors.New("a skill without a name")
			}
			for _, src := range s.Sources {
				if src != SourceResume && src != SourceJobRequired && src != SourceJobPreferred {
					return fmt.Errorf("skill source %q", src)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]interviews.Skill, 0, len(r.Skills))
	for _, s := range r.Skills {
		sk := interviews.Skill{
			Name: strings.TrimSpace(s.Name), Sources: s.Sources, Duration: s.Duration, Depth: s.Depth, Autonomy: s.Autonomy,
			Scale: s.Scale, Constraints: s.Constraints, ProductionVsPrototype: s.ProductionVsPrototype,
			Evidence: clipList(s.Evidence, len(stages.SkillAttributes)), By: interviews.ByLLM,
		}
		for _, a := range stages.SkillAttributes {
			if sk.Attribute(a) != "" {
				sk.Confidence = resumeConfidence
			}
		}
		out = append(out, sk)
	}
	return out, nil
}

const backlogSystem = `You prepare a knowledge-capture interview with someone who is handing over their work, and reply with JSON only.
From the brief, write the questions to ask: each open, specific, one at a time, with the topic (the brief's heading) it belongs to.
priority: P0 for what must not be lost (decisions and why, risks, unwritten rules, who to ask), P1 for what is worth asking.`

// Backlog writes a knowledge capture's questions with the model; see
// Analyzer.
func (m *Model) Backlog(ctx context.Context, brief string) ([]interviews.BacklogItem, error) {
	r, err := ask(ctx, m, MethodBacklog, backlogSchema, backlogSystem, "Brief:\n"+brief, func(r *backlogReply) error {
		for _, it := range r.Items {
			if strings.TrimSpace(it.Text) == "" {
				return errors.New("a question without text")
			}
			if it.Priority != stages.P0 && it.Priority != stages.P1 {
				return fmt.Errorf("priority %q is not P0 or P1", it.Priority)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]interviews.BacklogItem, len(r.Items))
	for i, it := range r.Items {
		out[i] = interviews.BacklogItem{
			ID: fmt.Sprintf("b%d", i+1), Text: strings.TrimSpace(it.Text), Priority: it.Priority, Topic: it.Topic,
			Origin: interviews.OriginBrief, Status: interviews.StatusOpen, By: interviews.ByLLM,
		}
	}
	return out, nil
}

const phaseSystem = `You evaluate one phase of a system design interview and reply with JSON only.
decision: "advance" when the candidate covered the phase well enough to move on, else "continue".
score: 0 to 10. feedback: one or two sentences for the interviewer. gaps: what the candidate has not covered yet.`

// Phase evaluates a design phase with the model; see Analyzer.
func (m *Model) Phase(ctx context.Context, in PhaseInput) (interviews.Phase, error) {
	user := fmt.Sprintf("Phase: %s (%s)\nWhat the phase covers: %s\nWhat the candidate said in this phase:\n%s",
		in.Stage.Title, in.Stage.Name, strings.Join(in.Stage.Keywords, ", "), strings.Join(in.Turns, "\n"))
	if in.Problem != "" {
		user = "The problem: " + in.Problem + "\n" + user
	}
	r, err := ask(ctx, m, MethodPhase, phaseSchema, phaseSystem, user, func(r *phaseReply) error {
		if r.Decision != interviews.PhaseAdvance && r.Decision != interviews.PhaseContinue {
			return fmt.Errorf("decision %q is not advance or continue", r.Decision)
		}
		if r.Score < 0 || r.Score > 10 {
			return fmt.Errorf("score %v is not 0–10", r.Score)
		}
		return nil
	})
	if err != nil {
		return interviews.Phase{}, err
	}
	return interviews.Phase{
		ID: in.Stage.Name, Name: in.Stage.Title, Score: r.Score, Decision: r.Decision, Feedback: r.Feedback,
		Gaps: clipList(r.Gaps, len(r.Gaps)), By: interviews.ByLLM, At: time.Now(),
	}, nil
}

const missingSystem = `You decide whether an interview may end, and reply with JSON only.
missing: the important things still unknown about the candidate, short; empty when nothing important is missing.`

// Missing asks the model what important thing is still unknown; see
// Analyzer.
func (m *Model) Missing(ctx context.Context, in MissingInput) ([]string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Interview: %s\nRubric:\n", in.Blueprint)
	for _, r := range in.Rubric {
		fmt.Fprintf(&b, "- %s (required %t): %s %s\n", r.Label, r.Required, r.Status, r.Value)
	}
	for _, g := range in.Gaps {
		fmt.Fprintf(&b, "- gap %s %s (%s): %s\n", g.Skill, g.Attribute, g.Priority, g.Status)
	}
	fmt.Fprintf(&b, "Facts so far:\n%s", strings.Join(in.Facts, "\n"))
	r, err := ask(ctx, m, MethodMissing, missingSchema, missingSystem, b.String(), func(*missingReply) error { return nil })
	if err != nil {
		return nil, err
	}
	return clipList(r.Missing, len(r.Missing)), nil
}

const summarySystem = `You summarise a knowledge-capture interview for whoever takes the work over, and reply with JSON only.
topics, in this order, each with short points: "Decisions and why", "Unwritten rules", "Dependencies and people", "Risks and gotchas", "History". Leave out a topic with nothing to say; state only what was said.`

// Summarize writes a knowledge capture's summary with the model; see
// Analyzer.
func (m *Model) Summarize(ctx context.Context, in SummaryInput) (interviews.TopicSummary, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Brief:\n%s\n\nQuestions and answers:\n", in.Brief)
	for _, it := range in.Items {
		fmt.Fprintf(&b, "[%s] Q: %s\nA: %s\n", it.Topic, it.Question, it.Answer)
	}
	r, err := ask(ctx, m, MethodSummarize, summarySchema, summarySystem, b.String(), func(r *summaryReply) error {
		for _, t := range r.Topics {
			if strings.TrimSpace(t.Title) == "" {
				return errors.New("a topic without a title")
			}
		}
		return nil
	})
	if err != nil {
		return interviews.TopicSummary{}, err
	}
	return interviews.TopicSummary{Topics: r.Topics, By: interviews.ByLLM, GeneratedAt: time.Now()}, nil
}
