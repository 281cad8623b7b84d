package reports

import (
	"errors"
	"slices"
	"strings"
	"testing"

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
	return NewModel(client, ModelOptions{Model: "gpt-4o-mini"}), srv
}

func point(text, quote, qid string) map[string]any {
	return map[string]any{"text": text, "quote": quote, "question_id": qid}
}

// validReply is a report on the fixture that passes every check.
func validReply() map[string]any {
	comps := []map[string]any{}
	for i, name := range DefaultCompetencies {
		comps = append(comps, map[string]any{"name": name, "score": 60 + 5*i, "rationale": "Because."})
	}
	return map[string]any{
		"overall_score": 68.4,
		"headline":      "Solid answers with concrete numbers; structure could be tighter",
		"competencies":  comps,
		"strengths": []map[string]any{
			point("Quantified impact.", "which cut latency by 40%", "q2"),
			point("Clear tenure.", "I have worked in software for eight years", "q9"), // unknown id: the quote's
		},
		"improvements": []map[string]any{
			point("Vague on conflict.", "It was, like, basically fine.", "q3"),
			point("Fillers.", "you know, mostly backend", ""),
			point("Invented.", "I never said this at all", "q1"), // dropped
		},
		"key_questions": []map[string]any{{"question_id": "q1", "good": "Clear.", "missing": ""}, {"question_id": "q77", "good": "x", "missing": "y"}},
		"star":          []map[string]any{{"question_id": "q2", "situation": true, "task": true, "action": true, "result": true}},
	}
}

func TestModelRetriesMalformed(t *testing.T) {
	m, srv := newModel(t)
	srv.ScriptChat(fakeopenai.Reply{Text: `{"overall_score": 70, "headline": `}, fakeopenai.Reply{JSON: validReply()})
	r, err := m.Generate(t.Context(), Input{Record: fixture(), Blueprint: stages.Default()})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, req := range reqs {
		if req.SchemaName() != reportSchema.Name || !req.Format.Strict || len(req.Tools) > 0 {
			t.Errorf("request format %+v, tools %d", req.Format, len(req.Tools))
		}
	}
	user := reqs[0].Messages[1].Content
	for _, want := range []string{"Competencies to score: communication; technical depth; structure of answers; role fit", "the scale of their Python work (P0): open",
		"q2: Tell me about a time", "candidate [clear]: " + answerCache} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	r.Status = interviews.ReportReady
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
	if r.Basic || r.Model != "openai:gpt-4o-mini" || r.PromptVersion != PromptVersion || r.OverallScore != 68 || len(r.Competencies) != 4 {
		t.Errorf("report %+v", r)
	}
	if len(r.Strengths) != 2 || r.Strengths[1].QuestionID != "q1" {
		t.Errorf("strengths %+v", r.Strengths)
	}
	if len(r.Improvements) != 2 || slices.ContainsFunc(r.Improvements, func(p interviews.Point) bool { return p.Text == "Invented." }) ||
		r.Improvements[1].QuestionID != "q1" {
		t.Errorf("improvements %+v", r.Improvements)
	}
	if len(r.KeyQuestions) != 1 || r.KeyQuestions[0].Question != "How many years have you worked in software?" || len(r.STAR) != 1 {
		t.Errorf("key questions %+v, star %+v", r.KeyQuestions, r.STAR)
	}
	// The figures are the code's.
	basic := generate(t, fixture(), stages.Default())
	if r.Stats != basic.Stats || !slices.Equal(r.Stages, basic.Stages) || r.RubricCoverage != basic.RubricCoverage || !slices.Equal(r.UnresolvedGaps, basic.UnresolvedGaps) {
		t.Errorf("figures differ from the basic report's: %+v", r)
	}
}

func TestModelRejectsInventedQuotes(t *testing.T) {
	m, srv := newModel(t)
	invented := validReply()
	invented["strengths"] = []map[string]any{
		point("Quantified impact.", "which cut latency by 40%", "q2"),
		point("Leadership.", "I led a team of twelve engineers", "q2"), // never said
	}
	srv.ScriptChat(fakeopenai.Reply{JSON: invented}, fakeopenai.Reply{JSON: validReply()})
	r, err := m.Generate(t.Context(), Input{Record: fixture(), Blueprint: stages.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.ChatRequests()); n != 2 {
		t.Errorf("%d requests, want 2: the invented quote left one strength", n)
	}
	for _, p := range slices.Concat(r.Strengths, r.Improvements) {
		if strings.Contains(p.Quote, "twelve") || strings.Contains(p.Quote, "never said") {
			t.Errorf("an invented quote survived: %+v", p)
		}
	}
}

func TestModelAlwaysMalformed(t *testing.T) {
	bad := func(edit func(map[string]any)) fakeopenai.Reply {
		r := validReply()
		edit(r)
		return fakeopenai.Reply{JSON: r}
	}
	tests := map[string]fakeopenai.Reply{
		"not JSON":           {Text: `{"overall_score":`},
		"score out of range": bad(func(r map[string]any) { r["overall_score"] = 140 }),
		"competency missing": bad(func(r map[string]any) { r["competencies"] = r["competencies"].([]map[string]any)[:3] }),
		"competency renamed": bad(func(r map[string]any) { r["competencies"].([]map[string]any)[0]["name"] = "charisma" }),
		"one strength":       bad(func(r map[string]any) { r["strengths"] = r["strengths"].([]map[string]any)[:1] }),
		"missing key":        bad(func(r map[string]any) { delete(r, "star") }),
	}
	for name, reply := range tests {
		t.Run(name, func(t *testing.T) {
			m, srv := newModel(t)
			srv.ChatFunc(func(fakeopenai.Request) fakeopenai.Reply { return reply })
			_, err := m.Generate(t.Context(), Input{Record: fixture(), Blueprint: stages.Default()})
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "malformed report") {
				t.Fatalf("error %v, want a malformed report", err)
			}
			if n := len(srv.ChatRequests()); n != DefaultAttempts {
				t.Errorf("%d requests, want %d", n, DefaultAttempts)
			}
		})
	}
}

func TestModelKnowledgeCaptureIsNotScored(t *testing.T) {
	m, srv := newModel(t)
	kc, err := stages.Builtin(stages.KnowledgeCaptureName)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Generate(t.Context(), Input{Record: fixture(), Blueprint: kc})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.ChatRequests()); n != 0 || !r.Basic || len(r.Competencies) != 0 || len(r.Topics) == 0 {
		t.Errorf("%d requests, report %+v", n, r)
	}
}

func TestTranscriptTrimmed(t *testing.T) {
	rec := fortyTurns()
	long := strings.Repeat("word ", MaxPromptTurnBytes)
	for i := range rec.Turns {
		rec.Turns[i].Text = long
	}
	got := transcript(newView(Input{Record: rec}))
	if len(got) > MaxPromptTranscriptBytes+100 || !strings.Contains(got, "turns left out") {
		t.Errorf("transcript of %d bytes", len(got))
	}
}

// TestModelTrust: the model is told which turns it may quote and judge,
// and its points quoting an unsure transcript, or quoting a strength's
// words as an improvement, are dropped.
func TestModelTrust(t *testing.T) {
	m, srv := newModel(t)
	reply := validReply()
	reply["strengths"] = []map[string]any{
		point("Figures.", "2 million requests a day", "q2"),
		point("Leadership.", "I led the migration", "q3"),
		point("Payments.", "later on i built payment", "q1"), // unsure: dropped
	}
	reply["improvements"] = []map[string]any{
		point("Ready.", "now is a good time and I am ready", "greeting-2"), // the greeting: dropped
		point("Scope.", "I led the migration", "q3"),                       // a strength's words: dropped
		point("Tenure.", "I have worked five years with Go", "q2"),
		point("Outcome.", "it cut failed payments by 30%", "q3"),
	}
	srv.ScriptChat(fakeopenai.Reply{JSON: reply})
	r, err := m.Generate(t.Context(), Input{Record: untrusted(), Blueprint: stages.Default()})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.ChatRequests()[0]
	system, user := req.Messages[0].Content, req.Messages[1].Content
	for _, want := range []string{"candidate [unsure transcript]: " + garbledAnswer, "candidate [greeting]: " + greetingAnswer, "candidate [clear]: " + goAnswer} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	if !strings.Contains(system, `never address the candidate as "you"`) {
		t.Errorf("system prompt %q", system)
	}
	var texts []string
	for _, p := range slices.Concat(r.Strengths, r.Improvements) {
		texts = append(texts, p.Text)
	}
	if want := []string{"Figures.", "Leadership.", "Tenure.", "Outcome."}; !slices.Equal(texts, want) {
		t.Errorf("points %q, want %q", texts, want)
	}
	if !slices.Equal(r.UnclearTurns, []int{4}) {
		t.Errorf("unclear turns %v", r.UnclearTurns)
	}
}

// A report on an interview held in Spanish asks the model for its prose
// in Spanish, as the candidate may read it; an English one says nothing
// of languages.
func TestModelWritesInTheInterviewsLanguage(t *testing.T) {
	for tag, want := range map[string]string{"es-MX": "Language: the interview was held in Spanish. Write the headline, rationales, texts, good and missing in Spanish", "": ""} {
		m, srv := newModel(t)
		srv.ScriptChat(fakeopenai.Reply{JSON: validReply()})
		rec := fixture()
		rec.Language = tag
		if _, err := m.Generate(t.Context(), Input{Record: rec, Blueprint: stages.Default()}); err != nil {
			t.Fatal(err)
		}
		user := srv.ChatRequests()[0].Messages[1].Content
		if got := strings.Contains(user, "Language:"); got != (want != "") || !strings.Contains(user, want) {
			t.Errorf("language %q: the prompt says %q about it, want %q", tag, user[:min(len(user), 400)], want)
		}
	}
}
