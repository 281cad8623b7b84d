package analysis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// newModel starts a fake OpenAI server and a Model asking it.
func newModel(t *testing.T) (*Model, *fakeopenai.Server) {
	t.Helper()
	srv := fakeopenai.New()
	t.Cleanup(srv.Close)
	client, err := openai.New(openai.Options{APIKey: fakeopenai.Key, BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return NewModel(client, ModelOptions{}), srv
}

// checkRequests checks that every request asked for the schema, strictly,
// without tools.
func checkRequests(t *testing.T, srv *fakeopenai.Server, n int, schema string) []fakeopenai.Request {
	t.Helper()
	reqs := srv.ChatRequests()
	if len(reqs) != n {
		t.Fatalf("%d requests, want %d", len(reqs), n)
	}
	for _, r := range reqs {
		if r.SchemaName() != schema || !r.Format.Strict || len(r.Tools) > 0 {
			t.Errorf("request format %+v tools %d", r.Format, len(r.Tools))
		}
	}
	return reqs
}

func TestModelAnswerRetriesMalformed(t *testing.T) {
	m, srv := newModel(t)
	srv.ScriptChat(
		fakeopenai.Reply{JSON: map[string]any{"confidence": "sure", "declined": false, "facts": []string{}, "fills": []any{},
			"follow_up": "", "discovered": []any{}, "skills": []string{}, "absent": []string{}}}, // not an enum value
		fakeopenai.Reply{JSON: map[string]any{
			"confidence": "high", "declined": false,
			"facts": []string{"Has used Python for three years.", "a", "b", "c", "d"},
			"fills": []map[string]string{
				{"skill": "Python", "attribute": "duration", "field": "", "value": "3 years", "evidence": "3 years"},
				{"skill": "unknown", "attribute": "duration", "field": "", "value": "3 years", "evidence": "3 years"},
				{"skill": "", "attribute": "", "field": "invented", "value": "x", "evidence": "x"},
			},
			"follow_up":  "ignored on a high answer",
			"discovered": []map[string]string{{"text": "Who is Priya?", "priority": "P1", "about": "Priya"}},
			"skills":     []string{"Python"},
			"absent":     []string{},
		}},
	)
	res, err := m.Answer(t.Context(), AnswerInput{Question: skillQ("How long have you worked with Python?", "Python", "duration"), Answer: "3 years"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := checkRequests(t, srv, 2, answerSchema.Name)
	if prompt := reqs[0].Messages[1].Content; !strings.Contains(prompt, "The question asked about the skill Python, attribute duration") {
		t.Errorf("prompt lacks the question's context:\n%s", prompt)
	}
	want := []Fill{{Skill: "Python", Attribute: "duration", Value: "3 years", Evidence: "3 years"}}
	if res.By != interviews.ByLLM || res.Confidence != interviews.ConfidenceHigh || !slices.Equal(res.Fills, want) ||
		len(res.Facts) != maxFacts || res.FollowUp != "" || len(res.Discovered) != 1 || res.Discovered[0].Priority != stages.P1 {
		t.Errorf("result %+v", res)
	}
}

func TestModelAlwaysMalformed(t *testing.T) {
	m, srv := newModel(t)
	srv.ChatFunc(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: `{"confidence":`} })
	_, err := m.Answer(t.Context(), AnswerInput{Answer: "hello"})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("error %v, want ErrMalformed", err)
	}
	checkRequests(t, srv, DefaultAttempts, answerSchema.Name)
}

func TestModelClientError(t *testing.T) {
	m, srv := newModel(t)
	srv.ScriptChat(fakeopenai.Reply{Status: 401})
	_, err := m.Missing(t.Context(), MissingInput{})
	if !errors.Is(err, llm.ErrAuth) || strings.Contains(err.Error(), fakeopenai.Key) {
		t.Fatalf("error %v, want one wrapping llm.ErrAuth without the key", err)
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d requests, want 1 (a client error is not retried here)", n)
	}
}

func TestModelMethods(t *testing.T) {
	tests := []struct {
		name      string
		schema    string
		malformed fakeopenai.Reply
		valid     any
		call      func(t *testing.T, m *Model) error
	}{
		{
			name: "skills", schema: skillsSchema.Name,
			malformed: fakeopenai.Reply{JSON: map[string]any{"skills": []map[string]any{{"name": "Go", "sources": []string{"somewhere"}}}}},
			valid: map[string]any{"skills": []map[string]any{{"name": "Go", "sources": []string{"resume", "job_required"}, "duration": "5 years",
				"depth": "", "autonomy": "", "scale": "", "constraints": "", "production_vs_prototype": "", "evidence": []string{"5+ years of Go"}}}},
			call: func(t *testing.T, m *Model) error {
				got, err := m.Skills(t.Context(), "5+ years of Go", "Requirements: Go")
				if err == nil && (len(got) != 1 || got[0].Duration != "5 years" || got[0].By != interviews.ByLLM || !slices.Equal(got[0].Sources, []string{SourceResume, SourceJobRequired})) {
					t.Errorf("skills %+v", got)
				}
				return err
			},
		},
		{
			name: "backlog", schema: backlogSchema.Name,
			malformed: fakeopenai.Reply{Text: "Here are your questions: 1. …"},
			valid:     map[string]any{"items": []map[string]string{{"text": "Why does the cron run twice?", "priority": "P0", "topic": "Risks"}}},
			call: func(t *testing.T, m *Model) error {
				got, err := m.Backlog(t.Context(), handoverBrief)
				if err == nil && (len(got) != 1 || got[0].ID != "b1" || got[0].Origin != interviews.OriginBrief || got[0].Status != interviews.StatusOpen ||
					got[0].Priority != stages.P0 || got[0].By != interviews.ByLLM || got[0].Topic != "Risks") {
					t.Errorf("backlog %+v", got)
				}
				return err
			},
		},
		{
			name: "phase", schema: phaseSchema.Name,
			malformed: fakeopenai.Reply{JSON: map[string]any{"decision": "advance", "score": 14, "feedback": "", "gaps": []string{}}},
			valid:     map[string]any{"decision": "continue", "score": 4.5, "feedback": "Ask about sharding.", "gaps": []string{"sharding"}},
			call: func(t *testing.T, m *Model) error {
				got, err := m.Phase(t.Context(), PhaseInput{Stage: stages.Stage{Name: "data_design", Title: "Data design"}, Turns: []string{"schema"}})
				if err == nil && (got.ID != "data_design" || got.Name != "Data design" || got.Decision != interviews.PhaseContinue || got.Score != 4.5 ||
					!slices.Equal(got.Gaps, []string{"sharding"}) || got.By != interviews.ByLLM) {
					t.Errorf("phase %+v", got)
				}
				return err
			},
		},
		{
			name: "missing", schema: missingSchema.Name,
			malformed: fakeopenai.Reply{JSON: map[string]any{"gaps": []string{}}},
			valid:     map[string]any{"missing": []string{"Why this role"}},
			call: func(t *testing.T, m *Model) error {
				got, err := m.Missing(t.Context(), MissingInput{Blueprint: "default"})
				if err == nil && !slices.Equal(got, []string{"Why this role"}) {
					t.Errorf("missing %q", got)
				}
				return err
			},
		},
		{
			name: "summarize", schema: summarySchema.Name,
			malformed: fakeopenai.Reply{JSON: map[string]any{"topics": []map[string]any{{"title": "", "points": []string{"x"}}}}},
			valid:     map[string]any{"topics": []map[string]any{{"title": "Risks and gotchas", "points": []string{"The cron must never run twice."}}}},
			call: func(t *testing.T, m *Model) error {
				got, err := m.Summarize(t.Context(), SummaryInput{Brief: handoverBrief, Items: []SummaryItem{{Topic: "Risks", Question: "q", Answer: "a"}}})
				if err == nil && (len(got.Topics) != 1 || got.Basic || got.By != interviews.ByLLM || got.GeneratedAt.IsZero()) {
					t.Errorf("summary %+v", got)
				}
				return err
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, srv := newModel(t)
			srv.ScriptChat(tt.malformed, fakeopenai.Reply{JSON: tt.valid})
			if err := tt.call(t, m); err != nil {
				t.Fatal(err)
			}
			checkRequests(t, srv, 2, tt.schema)

			// Malformed every time: a clear error after the attempts.
			m, srv = newModel(t)
			srv.ScriptChat(tt.malformed, tt.malformed)
			if err := tt.call(t, m); !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v, want ErrMalformed", err)
			}
			checkRequests(t, srv, 2, tt.schema)
		})
	}
}

func TestWithFallback(t *testing.T) {
	m, srv := newModel(t)
	srv.ChatFunc(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: "no JSON today"} })
	var methods []string
	a := WithFallback(m, Rules{}, func(method string, err error) {
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s fell back on %v", method, err)
		}
		methods = append(methods, method)
	})
	res, err := a.Answer(t.Context(), AnswerInput{Question: skillQ("How long have you worked with Python?", "Python", "duration"), Answer: "3 years"})
	if err != nil {
		t.Fatal(err)
	}
	if res.By != interviews.ByRules || len(res.Fills) != 1 || res.Fills[0].Value != "3 years" {
		t.Errorf("fallback result %+v", res)
	}
	if _, err := a.Phase(t.Context(), PhaseInput{Stage: stages.Stage{Name: "x", Keywords: []string{"schema"}}, Turns: []string{"schema"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Skills(t.Context(), "Go", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Backlog(t.Context(), handoverBrief); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Missing(t.Context(), MissingInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Summarize(t.Context(), SummaryInput{}); err != nil {
		t.Fatal(err)
	}
	want := []string{MethodAnswer, MethodPhase, MethodSkills, MethodBacklog, MethodMissing, MethodSummarize}
	if !slices.Equal(methods, want) {
		t.Errorf("fell back for %q, want %q", methods, want)
	}

	// A model that answers is used as it is, and nobody is told.
	srv.ChatFunc(func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{JSON: map[string]any{"missing": []string{"Impact in numbers"}}}
	})
	methods = nil
	if got, err := a.Missing(t.Context(), MissingInput{}); err != nil || !slices.Equal(got, []string{"Impact in numbers"}) || methods != nil {
		t.Errorf("missing %q, %v, fallbacks %q", got, err, methods)
	}

	// A cancelled caller gets its error, not the fallback's answer.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := a.Answer(ctx, AnswerInput{Answer: "3 years"}); err == nil {
		t.Error("no error for a cancelled context")
	}
}

// TestModelRepeatRequest: a request to hear the question again is no
// answer, and the model is not asked about it.
func TestModelRepeatRequest(t *testing.T) {
	m, srv := newModel(t)
	res, err := m.Answer(t.Context(), AnswerInput{Question: question("What draws you to this role?", stages.Targets{Field: stages.FieldWhyRole}), Answer: "Sorry, could you repeat the question?"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.RepeatRequest || len(res.Fills)+len(res.Facts) > 0 || res.Declined {
		t.Errorf("result %+v, want a repeat request and nothing else", res)
	}
	checkRequests(t, srv, 0, answerSchema.Name)
}

// TestModelAbsentSkills: a skill the model says the candidate lacks is
// Absent, never a skill they have, and nothing of it is filled.
func TestModelAbsentSkills(t *testing.T) {
	m, srv := newModel(t)
	srv.ScriptChat(fakeopenai.Reply{JSON: map[string]any{
		"confidence": "high", "declined": false, "facts": []string{"Has not used Rust."},
		"fills":     []map[string]string{{"skill": "Rust", "attribute": "duration", "field": "", "value": "none", "evidence": "I haven't used Rust"}},
		"follow_up": "", "discovered": []any{}, "skills": []string{"Rust", "Go"}, "absent": []string{"Rust", " "},
	}})
	res, err := m.Answer(t.Context(), AnswerInput{Question: skillQ("How long have you used Rust?", "Rust", "duration"), Answer: "I haven't used Rust, only Go."})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Absent, []string{"Rust"}) || !slices.Equal(res.Skills, []string{"Go"}) || len(res.Fills) != 0 {
		t.Errorf("absent %q, skills %q, fills %+v; want Rust absent, only Go had, nothing filled", res.Absent, res.Skills, res.Fills)
	}
	if prompt := srv.ChatRequests()[0].Messages[0].Content; !strings.Contains(prompt, "absent: technologies the candidate says they lack") {
		t.Errorf("the system prompt does not explain absent:\n%s", prompt)
	}
}

// TestPhaseSeesTheProblem: the model evaluating a phase is told the
// design problem the candidate was given, so a clarification phase is
// judged against that problem's facts.
func TestPhaseSeesTheProblem(t *testing.T) {
	m, srv := newModel(t)
	srv.ScriptChat(fakeopenai.Reply{JSON: map[string]any{"decision": "advance", "score": 8, "feedback": "Clear scope.", "gaps": []string{}}})
	problem := "Design a link shortener. A hundred million new links a month."
	if _, err := m.Phase(t.Context(), PhaseInput{Stage: stages.Stage{Name: "clarification", Title: "Problem clarification", Keywords: []string{"users", "scale"}},
		Turns: []string{"How many links a month?"}, Problem: problem}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "The problem: "+problem) {
		t.Errorf("the phase request does not carry the problem: %d requests", len(reqs))
	}
}
