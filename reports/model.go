package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	st "github.com/viva-interviews/viva/agent/llm/structured"
	"github.com/viva-interviews/viva/internal/utf8cut"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// PromptVersion names the model report's prompt and schema; it is stored
// with every report a model writes, so reports written by different
// prompts can be told apart.
const PromptVersion = "report-v2"

// Defaults of ModelOptions.
const (
	DefaultAttempts     = 2
	DefaultModelTimeout = 60 * time.Second
)

// Bounds on the transcript a model reads, in bytes: each turn is cut to
// MaxPromptTurnBytes, and past MaxPromptTranscriptBytes the middle of the
// interview is left out.
const (
	MaxPromptTurnBytes       = 2000
	MaxPromptTranscriptBytes = 40_000
)

// ErrMalformed is wrapped by the error of a Model whose every attempt
// answered with a report that does not fit the schema or its checks.
var ErrMalformed = errors.New("malformed report")

// ModelOptions configure a Model.
type ModelOptions struct {
	// Model is the model's name as the client asks it ("gpt-4o-mini"),
	// stored with the report as "openai:<model>".
	Model string
	// Attempts is how many calls one report may make while the answers
	// are malformed, in all; zero means DefaultAttempts.
	Attempts int
	// Timeout bounds each call; zero means DefaultModelTimeout.
	Timeout time.Duration
}

// Model is the Generator backed by a language model: one structured
// call scores the competencies and writes the headline, strengths,
// improvements, key-question feedback and STAR structure, validated and
// retried when malformed. The figures (Stats, Stages, RubricCoverage,
// UnresolvedGaps) are always the code's, never the model's. A knowledge
// capture is not scored: its report is the basic one, the record's
// summary by topic.
type Model struct {
	client   llm.Client
	name     string
	attempts int
	timeout  time.Duration
}

var _ Generator = (*Model)(nil)

// NewModel returns a Model asking client.
func NewModel(client llm.Client, opts ModelOptions) *Model {
	name := "openai"
	if opts.Model != "" {
		name = "openai:" + opts.Model
	}
	return &Model{
		client:   client,
		name:     name,
		attempts: cmp.Or(max(opts.Attempts, 0), DefaultAttempts),
		timeout:  cmp.Or(max(opts.Timeout, 0), DefaultModelTimeout),
	}
}

// modelReply is the report as the schema describes it.
type modelReply struct {
	OverallScore float64 `json:"overall_score"`
	Headline     string  `json:"headline"`
	Competencies []struct {
		Name      string  `json:"name"`
		Score     float64 `json:"score"`
		Rationale string  `json:"rationale"`
	} `json:"competencies"`
	Strengths    []interviews.Point `json:"strengths"`
	Improvements []interviews.Point `json:"improvements"`
	KeyQuestions []struct {
		QuestionID string `json:"question_id"`
		Good       string `json:"good"`
		Missing    string `json:"missing"`
	} `json:"key_questions"`
	STAR []interviews.STAR `json:"star"`
}

func pointSchema() map[string]any {
	return st.Object(
		st.Prop{Name: "text", Schema: st.String()},
		st.Prop{Name: "quote", Schema: st.String()},
		st.Prop{Name: "question_id", Schema: st.String()},
	)
}

// reportSchema is the contract of the model's answer.
var reportSchema = st.New("feedback_report",
	st.Prop{Name: "overall_score", Schema: st.Number()},
	st.Prop{Name: "headline", Schema: st.String()},
	st.Prop{Name: "competencies", Schema: st.Array(st.Object(
		st.Prop{Name: "name", Schema: st.String()},
		st.Prop{Name: "score", Schema: st.Number()},
		st.Prop{Name: "rationale", Schema: st.String()},
	))},
	st.Prop{Name: "strengths", Schema: st.Array(pointSchema())},
	st.Prop{Name: "improvements", Schema: st.Array(pointSchema())},
	st.Prop{Name: "key_questions", Schema: st.Array(st.Object(
		st.Prop{Name: "question_id", Schema: st.String()},
		st.Prop{Name: "good", Schema: st.String()},
		st.Prop{Name: "missing", Schema: st.String()},
	))},
	st.Prop{Name: "star", Schema: st.Array(st.Object(
		st.Prop{Name: "question_id", Schema: st.String()},
		st.Prop{Name: "situation", Schema: st.Boolean()},
		st.Prop{Name: "task", Schema: st.Boolean()},
		st.Prop{Name: "action", Schema: st.Boolean()},
		st.Prop{Name: "result", Schema: st.Boolean()},
	))},
)

const reportSystem = `You write the feedback report on a finished job interview, for the people who decide, and reply with JSON only.
Be fair, specific and kind; judge only what the transcript shows. The report advises; people decide.
overall_score: 0 to 100. headline: one line.
competencies: exactly the competencies listed, each once, with the name as written, a score 0 to 100 and a rationale from the evidence.
Write to the reviewer about the candidate in the third person ("the candidate"); never address the candidate as "you".
The transcript marks the candidate's turns: [clear] turns are their words; [unsure transcript] turns are what a speech recogniser was unsure of, so never quote nor judge them; [greeting] turns are logistics (hearing, readiness), never judged.
strengths and improvements: 2 or 3 each; text says it in one sentence; quote copies the candidate's own words exactly, from one of their [clear] turns, and no quote is both a strength and an improvement; question_id is the question those words answer ("" if none).
key_questions: feedback on the key questions listed: what was good and what was missing.
star: for each behavioural answer (a story about a time, an example), which of situation, task, action and result it had.`

// Generate writes the report with the model; see Generator.
func (m *Model) Generate(ctx context.Context, in Input) (interviews.Report, error) {
	if in.Record == nil {
		return interviews.Report{}, ErrNoRecord
	}
	if in.Blueprint != nil && in.Blueprint.KnowledgeCapture() {
		return basicReport(in), nil
	}
	v := newView(in)
	names := DefaultCompetencies
	if in.Blueprint != nil && len(in.Blueprint.Competencies) > 0 {
		names = in.Blueprint.Competencies
	}
	keys := keyQuestions(v)
	reply, err := st.Ask(ctx, st.Call{
		Client: m.client, Attempts: m.attempts, Timeout: m.timeout, Schema: reportSchema,
		System: reportSystem, User: prompt(v, names, keys),
	}, func(r *modelReply) error { return check(r, v, names) })
	if me := (*st.MalformedError)(nil); errors.As(err, &me) {
		return interviews.Report{}, fmt.Errorf("reports: %w after %d attempt(s): %v", ErrMalformed, me.Attempts, me.Last)
	}
	if err != nil {
		return interviews.Report{}, fmt.Errorf("reports: model report: %w", err)
	}
	r := interviews.Report{
		Model: m.name, PromptVersion: PromptVersion,
		OverallScore: math.Round(reply.OverallScore), Headline: strings.TrimSpace(reply.Headline),
		Strengths: reply.Strengths, Improvements: reply.Improvements,
	}
	fillFigures(&r, v)
	for _, c := range reply.Competencies {
		r.Competencies = append(r.Competencies, interviews.Competency{Name: c.Name, Score: math.Round(c.Score), Rationale: strings.TrimSpace(c.Rationale)})
	}
	for _, k := range reply.KeyQuestions {
		if q, ok := v.questions[k.QuestionID]; ok {
			r.KeyQuestions = append(r.KeyQuestions, interviews.QuestionFeedback{QuestionID: q.ID, Question: q.Text, Good: k.Good, Missing: k.Missing})
		}
	}
	for _, s := range reply.STAR {
		if _, ok := v.questions[s.QuestionID]; ok {
			r.STAR = append(r.STAR, s)
		}
	}
	return r, nil
}

// check validates the model's report: scores 0–100, exactly the asked
// competencies, and 2–3 strengths and improvements, each quoting the
// candidate. A point whose quote the candidate never said is dropped (too
// few left is malformed); a point's question is the one the quoted turn
// answered when the model named none or one never asked. The competencies
// are put in the asked order, with the asked names.
func check(r *modelReply, v *view, names []string) error {
	if err := checkScore("overall_score", r.OverallScore); err != nil {
		return err
	}
	if strings.TrimSpace(r.Headline) == "" {
		return errors.New("headline is empty")
	}
	if len(r.Competencies) != len(names) {
		return fmt.Errorf("%d competencies, want %d (%s)", len(r.Competencies), len(names), strings.Join(names, ", "))
	}
	byName := map[string]int{}
	for i, c := range r.Competencies {
		key := strings.ToLower(strings.TrimSpace(c.Name))
		if _, dup := byName[key]; dup {
			return fmt.Errorf("competency %q twice", c.Name)
		}
		byName[key] = i
		if err := checkScore("competency "+c.Name, c.Score); err != nil {
			return err
		}
	}
	ordered := r.Competencies[:0:0]
	for _, name := range names {
		i, ok := byName[strings.ToLower(name)]
		if !ok {
			return fmt.Errorf("competency %q is missing", name)
		}
		c := r.Competencies[i]
		c.Name = name
		ordered = append(ordered, c)
	}
	r.Competencies = ordered
	var err error
	if r.Strengths, err = checkPoints("strengths", r.Strengths, v); err != nil {
		return err
	}
	strong := map[string]bool{}
	for _, p := range r.Strengths {
		strong[squash(p.Quote)] = true
	}
	r.Improvements = slices.DeleteFunc(r.Improvements, func(p interviews.Point) bool { return strong[squash(p.Quote)] })
	if r.Improvements, err = checkPoints("improvements", r.Improvements, v); err != nil {
		return err
	}
	return nil
}

func checkScore(what string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 100 {
		return fmt.Errorf("%s %v is not from 0 to 100", what, v)
	}
	return nil
}

// checkPoints keeps the points that quote the candidate, and requires
// MinPoints to MaxPoints of them.
func checkPoints(what string, ps []interviews.Point, v *view) ([]interviews.Point, error) {
	var kept []interviews.Point
	for _, p := range ps {
		p.Text, p.Quote = strings.TrimSpace(p.Text), strings.TrimSpace(p.Quote)
		a := v.quoted(p.Quote)
		if p.Text == "" || a == nil {
			continue
		}
		if _, ok := v.questions[p.QuestionID]; !ok {
			p.QuestionID = a.questionID
		}
		kept = append(kept, p)
	}
	if len(kept) < MinPoints || len(kept) > MaxPoints {
		return nil, fmt.Errorf("%d %s quote the candidate, want %d to %d", len(kept), what, MinPoints, MaxPoints)
	}
	return kept, nil
}

// quoted returns the judged answer that says quote, ignoring case,
// spacing and the style of quotation marks; nil when none does (or the
// quote is too short to mean anything).
func (v *view) quoted(quote string) *answer {
	q := squash(quote)
	if len(strings.Fields(q)) < 2 {
		return nil
	}
	for _, a := range v.judged() {
		if strings.Contains(squash(a.turn.Text), q) {
			return a
		}
	}
	return nil
}

// squash lower-cases text, collapses its spaces and straightens its
// quotation marks, for comparing quotes.
func squash(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "…", "...").Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// prompt is what the model reads: the competencies to score, the rubric,
// the gaps, the key questions, the analyses and the transcript, trimmed.
func prompt(v *view, names []string, keys []interviews.QuestionFeedback) string {
	var b strings.Builder
	rec := v.rec
	fmt.Fprintf(&b, "Role: %s (%s)\nCompetencies to score: %s\n", rec.Candidate.Role, rec.Candidate.Level, strings.Join(names, "; "))
	if !lang.IsDefault(rec.Language) {
		// The candidate may read the report's prose on their feedback page.
		fmt.Fprintf(&b, "Language: the interview was held in %[1]s. Write the headline, rationales, texts, good and missing in %[1]s; quote the candidate's words exactly as they said them.\n", lang.Lookup(rec.Language).Name)
	}
	if len(rec.Rubric) > 0 {
		b.WriteString("\nRubric:\n")
		for _, f := range rec.Rubric {
			fmt.Fprintf(&b, "- %s (required %t): %s %s\n", f.Label, f.Required, f.Status, f.Value)
		}
	}
	if len(rec.Gaps) > 0 {
		b.WriteString("\nSkill gaps:\n")
		for _, g := range rec.Gaps {
			fmt.Fprintf(&b, "- %s (%s): %s\n", g.InWords(), g.Priority, g.Status)
		}
	}
	if len(rec.Phases) > 0 {
		b.WriteString("\nDesign phases:\n")
		for _, p := range rec.Phases {
			fmt.Fprintf(&b, "- %s: %.0f/10, %s\n", p.Name, p.Score, p.Feedback)
		}
	}
	if len(keys) > 0 {
		b.WriteString("\nKey questions:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "- %s: %s\n", k.QuestionID, k.Question)
		}
	}
	b.WriteString("\nAnswers analysed:\n")
	for _, a := range v.judged() {
		if a.analysis == nil && a.assessment == nil {
			continue
		}
		fmt.Fprintf(&b, "- turn %d, question %s:", a.turn.Seq, cmp.Or(a.questionID, "none"))
		if a.analysis != nil {
			fmt.Fprintf(&b, " confidence %s; facts: %s", a.analysis.Confidence, strings.Join(a.analysis.Facts, " "))
		}
		if a.assessment != nil {
			fmt.Fprintf(&b, " depth %d/5", a.assessment.DepthScore)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nTranscript:\n")
	b.WriteString(transcript(v))
	return b.String()
}

// turnMark is how the transcript marks a candidate turn: [unsure
// transcript], [greeting] or [clear]; "" for the interviewer's and for
// turns that are no answer.
func (v *view) turnMark(seq int) string {
	for _, a := range v.answers {
		switch {
		case a.turn.Seq != seq:
		case a.unclear:
			return " [unsure transcript]"
		case a.opening:
			return " [greeting]"
		default:
			return " [clear]"
		}
	}
	return ""
}

// transcript renders the turns, each cut to MaxPromptTurnBytes, leaving
// out the middle of an interview longer than MaxPromptTranscriptBytes.
func transcript(v *view) string {
	rec := v.rec
	lines := make([]string, 0, len(rec.Turns))
	total := 0
	for _, t := range rec.Turns {
		text := strings.TrimSpace(t.Text)
		if text == "" {
			continue
		}
		ids := ""
		if len(t.QuestionIDs) > 0 {
			ids = " [" + strings.Join(t.QuestionIDs, ", ") + "]"
		}
		line := fmt.Sprintf("%s%s%s: %s", t.Role, ids, v.turnMark(t.Seq), utf8cut.Truncate(text, MaxPromptTurnBytes))
		lines = append(lines, line)
		total += len(line) + 1
	}
	if total <= MaxPromptTranscriptBytes {
		return strings.Join(lines, "\n")
	}
	// Keep the start and the end, half the budget each.
	var head, tail []string
	used := 0
	for _, l := range lines {
		if used+len(l)+1 > MaxPromptTranscriptBytes/2 {
			break
		}
		head = append(head, l)
		used += len(l) + 1
	}
	used = 0
	for i := len(lines) - 1; i >= len(head); i-- {
		if used+len(lines[i])+1 > MaxPromptTranscriptBytes/2 {
			break
		}
		tail = append([]string{lines[i]}, tail...)
		used += len(lines[i]) + 1
	}
	left := len(lines) - len(head) - len(tail)
	return strings.Join(head, "\n") + fmt.Sprintf("\n[… %d turns left out …]\n", left) + strings.Join(tail, "\n")
}
