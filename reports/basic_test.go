package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

var t0 = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// at is t0 plus seconds.
func at(seconds int) time.Time { return t0.Add(time.Duration(seconds) * time.Second) }

func turn(seq int, role interviews.Role, stage string, from, to int, text string, qids ...string) interviews.Turn {
	return interviews.Turn{Seq: seq, Role: role, Stage: stage, Text: text, StartedAt: at(from), EndedAt: at(to), QuestionIDs: qids}
}

func spokenQ(id, stage, text string, kind stages.QuestionKind) stages.Question {
	s := at(0)
	return stages.Question{ID: id, Stage: stage, Text: text, SpokenAt: &s, Context: stages.QuestionContext{Kind: kind}}
}

// The candidate's three answers of the fixture.
const (
	answerYears   = "Um, I have worked in software for eight years. You know, mostly backend."
	answerCache   = "At my last job we had a slow checkout. My goal was to make it faster. I built a cache in front of the pricing service, which cut latency by 40%."
	answerDispute = "It was, like, basically fine. I mean we talked."
)

// fixture is a finished interview with every intelligence field.
func fixture() *interviews.Record {
	q1 := spokenQ("q1", "intro", "How many years have you worked in software?", stages.KindRubric)
	q1.Context.Targets.Field = "years_experience"
	q2 := spokenQ("q2", "experience", "Tell me about a time you improved performance.", stages.KindTemplate)
	q3 := spokenQ("q3", "experience", "Describe a time you disagreed with a colleague.", stages.KindBank)
	q4 := spokenQ("q4", "experience", "Never delivered.", stages.KindBank)
	q4.SpokenAt, q4.Withdrawn = nil, true
	return &interviews.Record{
		ID: "fixture", Blueprint: "default", Status: interviews.StatusCompleted,
		Stages: []interviews.StageVisit{
			{Name: "intro", Title: "Introduction", EnteredAt: at(0)},
			{Name: "experience", Title: "Experience", EnteredAt: at(15), Forced: true},
			{Name: "closing", Title: "Closing", EnteredAt: at(65)},
		},
		Turns: []interviews.Turn{
			turn(1, interviews.RoleAgent, "intro", 0, 5, q1.Text, "q1"),
			turn(2, interviews.RoleCandidate, "intro", 5, 15, answerYears),
			turn(3, interviews.RoleAgent, "experience", 15, 20, q2.Text, "q2"),
			turn(4, interviews.RoleCandidate, "experience", 20, 50, answerCache),
			turn(5, interviews.RoleAgent, "experience", 50, 55, q3.Text, "q3"),
			turn(6, interviews.RoleCandidate, "experience", 55, 65, answerDispute),
			turn(7, interviews.RoleAgent, "closing", 65, 70, "Thank you, that is all."),
		},
		Questions: []stages.Question{q1, q2, q3, q4},
		Assessments: []interviews.Assessment{
			{QuestionID: "q2", Stage: "experience", DepthScore: 4},
			{QuestionID: "q3", Stage: "experience", DepthScore: 2},
		},
		Answers: []interviews.Answer{
			{QuestionID: "q1", TurnSeq: 2, Confidence: interviews.ConfidenceHigh, Facts: []string{"Has eight years in software."}},
			{QuestionID: "q2", TurnSeq: 4, Confidence: interviews.ConfidenceHigh, Facts: []string{"Built a cache that cut checkout latency by 40%."}},
			{QuestionID: "q3", TurnSeq: 6, Confidence: interviews.ConfidenceLow},
		},
		Rubric: []interviews.RubricItem{
			{ID: "years_experience", Label: "Years of experience", Required: true, Status: interviews.StatusCovered},
			{ID: "impact_numbers", Label: "Impact in numbers", Required: true, Status: interviews.StatusOpen},
			{ID: "why_role", Label: "Why this role", Status: interviews.StatusUnknown},
		},
		Gaps: []interviews.Gap{
			{ID: "g1", Skill: "Python", Attribute: "scale", Priority: stages.P0, Status: interviews.StatusOpen},
			{ID: "g2", Skill: "Go", Attribute: "duration", Priority: stages.P0, Status: interviews.StatusResolved},
			{ID: "g3", Skill: "Rust", Attribute: "production_vs_prototype", Priority: stages.P1, Status: interviews.StatusUnknown},
		},
		Skills: []interviews.Skill{{Name: "Go", Duration: "5 years"}, {Name: "Python"}},
	}
}

func generate(t testing.TB, rec *interviews.Record, bp *stages.Blueprint) interviews.Report {
	t.Helper()
	r, err := Basic{}.Generate(t.Context(), Input{Record: rec, Blueprint: bp})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Basic {
		t.Error("the basic report is not labelled Basic")
	}
	r.Status = interviews.ReportReady
	if err := r.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBasicFigures(t *testing.T) {
	rec := fixture()
	r := generate(t, rec, stages.Default())

	// Fillers: "Um," and "You know," in the first answer; "like," (with
	// its comma), "basically" and "I mean" in the third.
	// Words: 13, 31 ("40%" is one word) and 9.
	// Talk time: the candidate spoke 10+30+10 s, the interviewer 4×5 s.
	want := interviews.TranscriptStats{
		FillerWords: 2 + 3, TalkTimeRatio: round(50.0/70.0, 3), Answers: 3, SpokenAnswers: 3,
		MeanAnswerWords: round((13.0+31+9)/3, 1), MedianAnswerWord: 13, MaxAnswerWords: 31,
	}
	if r.Stats != want {
		t.Errorf("stats\n got %+v\nwant %+v", r.Stats, want)
	}
	wantStages := []interviews.StageCoverage{
		{Stage: "intro", Title: "Introduction", Questions: 1},
		{Stage: "experience", Title: "Experience", Questions: 2, Forced: true}, // q4 was withdrawn
		{Stage: "closing", Title: "Closing"},
	}
	if !slices.Equal(r.Stages, wantStages) {
		t.Errorf("stages\n got %+v\nwant %+v", r.Stages, wantStages)
	}
	if r.RubricCoverage != 0.5 { // one of the two required fields
		t.Errorf("rubric coverage %v, want 0.5", r.RubricCoverage)
	}
	if want := []string{"the scale of their Python work", "whether their Rust work ran in production"}; !slices.Equal(r.UnresolvedGaps, want) {
		t.Errorf("unresolved gaps %q, want %q", r.UnresolvedGaps, want)
	}
	// q2's story has every part; q3's none; q1 asks for no story.
	wantSTAR := []interviews.STAR{{QuestionID: "q2", Situation: true, Task: true, Action: true, Result: true}, {QuestionID: "q3"}}
	if !slices.Equal(r.STAR, wantSTAR) {
		t.Errorf("STAR\n got %+v\nwant %+v", r.STAR, wantSTAR)
	}

	// Competencies, by hand.
	conf := ((0.9+0.9+0.3)/3 - 0.3) / 0.6
	communication := 100 * (1.0/3 + (1 - (100*5.0/53)/10) + conf) / 3
	technical := 100 * ((3.0-1)/4 + conf + 1.0/2) / 3 // Go of Go and Python is known
	structure := 100 * 4.0 / 8
	roleFit := 100 * (0.5 + 0.5) / 2
	wantScores := map[string]float64{
		CompetencyCommunication: math.Round(communication), CompetencyTechnical: math.Round(technical),
		CompetencyStructure: structure, CompetencyRoleFit: roleFit,
	}
	if len(r.Competencies) != len(DefaultCompetencies) {
		t.Fatalf("competencies %+v", r.Competencies)
	}
	sum := 0.0
	for i, c := range r.Competencies {
		if c.Name != DefaultCompetencies[i] || c.Score != wantScores[c.Name] || c.Rationale == "" {
			t.Errorf("competency %+v, want score %v", c, wantScores[c.Name])
		}
		sum += wantScores[c.Name]
	}
	if !near(r.OverallScore, math.Round(sum/4)) {
		t.Errorf("overall %v, want %v", r.OverallScore, math.Round(sum/4))
	}
	if r.Headline == "" || strings.Contains(r.Headline, "\n") {
		t.Errorf("headline %q", r.Headline)
	}

	candidate := []string{answerYears, answerCache, answerDispute}
	checkPoints := func(what string, ps []interviews.Point, wantQ []string) {
		t.Helper()
		var qs []string
		for _, p := range ps {
			qs = append(qs, p.QuestionID)
			if p.Quote == "" || !slices.ContainsFunc(candidate, func(s string) bool { return strings.Contains(s, p.Quote) }) {
				t.Errorf("%s %+v does not quote the candidate", what, p)
			}
		}
		if !slices.Equal(qs, wantQ) {
			t.Errorf("%s on %q, want %q: %+v", what, qs, wantQ, ps)
		}
	}
	checkPoints("strengths", r.Strengths, []string{"q2", "q1"})
	if r.Strengths[0].Quote != "I built a cache in front of the pricing service, which cut latency by 40%." {
		t.Errorf("first strength quotes %q", r.Strengths[0].Quote)
	}
	// q1's fillers are no improvement: its answer is quoted as a strength.
	checkPoints("improvements", r.Improvements, []string{"q3"})
	if !strings.Contains(r.Improvements[0].Text, "no situation, task, action or result") {
		t.Errorf("improvements %+v", r.Improvements)
	}

	// Key questions: the rubric and template questions.
	if len(r.KeyQuestions) != 2 || r.KeyQuestions[0].QuestionID != "q1" || r.KeyQuestions[1].QuestionID != "q2" ||
		r.KeyQuestions[0].Quote != "Um, I have worked in software for eight years." || r.KeyQuestions[0].Good != "Answered fully and specifically." || r.KeyQuestions[1].Good != "Answered fully and specifically. Put figures on it." {
		t.Errorf("key questions %+v", r.KeyQuestions)
	}
}

func TestFillers(t *testing.T) {
	for text, want := range map[string]int{
		"I like Go.":                         0, // a verb, not a filler
		"It was, like, fine":                 1,
		"Um um, uh. Er... erm":               5,
		"You know I mean it, you knowing":    2,
		"I basically actually kind of agree": 3,
		"Umbrella, kindly, sorted":           0,
		"Sort of.":                           1,
	} {
		if got, _ := countFillers(text); got != want {
			t.Errorf("countFillers(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestBasicKnowledgeCapture(t *testing.T) {
	kc, err := stages.Builtin(stages.KnowledgeCaptureName)
	if err != nil {
		t.Fatal(err)
	}
	rec := &interviews.Record{
		ID: "kc", Blueprint: kc.Name, Status: interviews.StatusCompleted,
		Stages: []interviews.StageVisit{{Name: "capture", Title: "Capture", EnteredAt: at(0)}},
		Turns: []interviews.Turn{
			turn(1, interviews.RoleAgent, "capture", 0, 5, "Why Postgres?", "q1"),
			turn(2, interviews.RoleCandidate, "capture", 5, 20, "We picked Postgres for its transactions."),
			turn(3, interviews.RoleAgent, "capture", 20, 25, "Who runs billing?", "q2"),
			turn(4, interviews.RoleCandidate, "capture", 25, 40, "Priya runs billing. Ask her about refunds."),
			turn(5, interviews.RoleAgent, "capture", 40, 45, "Anything else?", "q3"),
			turn(6, interviews.RoleCandidate, "capture", 45, 50, "The nightly job fails on Sundays."),
		},
		Questions: []stages.Question{
			spokenQ("q1", "capture", "Why Postgres?", stages.KindBrief),
			spokenQ("q2", "capture", "Who runs billing?", stages.KindBrief),
			spokenQ("q3", "capture", "Anything else?", stages.KindFree),
		},
		Answers: []interviews.Answer{
			{QuestionID: "q1", TurnSeq: 2, Confidence: interviews.ConfidenceHigh, Facts: []string{"Postgres was chosen for transactions."}},
			{QuestionID: "q2", TurnSeq: 4, Confidence: interviews.ConfidenceHigh, Facts: []string{"Priya runs billing.", "Priya knows refunds."}},
		},
		Backlog: []interviews.BacklogItem{
			{ID: "b1", Text: "Why Postgres?", Topic: "Decisions", QuestionID: "q1", Status: interviews.StatusAnswered},
			{ID: "b2", Text: "Who runs billing?", Topic: "People", QuestionID: "q2", Status: interviews.StatusAnswered},
		},
	}
	r := generate(t, rec, kc)
	want := []interviews.SummaryTopic{
		{Title: "Decisions", Points: []string{"Postgres was chosen for transactions."}},
		{Title: "People", Points: []string{"Priya runs billing.", "Priya knows refunds."}},
		{Title: OtherTopic, Points: []string{"The nightly job fails on Sundays."}},
	}
	if fmt.Sprint(r.Topics) != fmt.Sprint(want) {
		t.Errorf("topics\n got %+v\nwant %+v", r.Topics, want)
	}
	if r.OverallScore != 0 || len(r.Competencies) != 0 || len(r.Strengths) != 0 || r.Headline != "Captured 3 topics from 3 answers" {
		t.Errorf("a knowledge capture is scored: %+v", r)
	}
	if r.Stats.Answers != 3 || len(r.Stages) != 1 || r.Stages[0].Questions != 3 {
		t.Errorf("stats %+v, stages %+v", r.Stats, r.Stages)
	}

	// A summary in the record is the report's.
	rec.Summary = &interviews.TopicSummary{Topics: []interviews.SummaryTopic{{Title: "Risks and gotchas", Points: []string{"Sunday job"}}}, By: interviews.ByLLM}
	r = generate(t, rec, kc)
	if len(r.Topics) != 1 || r.Topics[0].Title != "Risks and gotchas" || r.Headline != "Captured 1 topic from 3 answers" {
		t.Errorf("topics %+v, headline %q", r.Topics, r.Headline)
	}
	r.Topics[0].Points[0] = "changed"
	if rec.Summary.Topics[0].Points[0] != "Sunday job" {
		t.Error("the report shares the record's summary")
	}
}

// TestBasicNoStrengthFromGarble: an offline recogniser's garble is never
// quoted, as a strength or an improvement, however long; a request to
// hear the question again is no answer.
func TestBasicNoStrengthFromGarble(t *testing.T) {
	garble := "are a problem want to rush out and are caught up and you are up what it did an a"
	rec := &interviews.Record{
		ID: "garble", Blueprint: "default", Status: interviews.StatusCompleted,
		Stages: []interviews.StageVisit{{Name: "intro", Title: "Introduction", EnteredAt: at(0)}},
		Turns: []interviews.Turn{
			turn(1, interviews.RoleAgent, "intro", 0, 10, "Tell me about a project you are proud of.", "q1"),
			turn(2, interviews.RoleCandidate, "intro", 10, 40, "I led the migration of our billing system to Go, which reduced the monthly bill by 30%."),
			turn(3, interviews.RoleAgent, "intro", 40, 50, "What was hard about it?", "q2"),
			turn(4, interviews.RoleCandidate, "intro", 50, 60, garble),
			turn(5, interviews.RoleCandidate, "intro", 60, 62, "Sorry, could you repeat the question?"),
		},
		Questions: []stages.Question{{ID: "q1", Stage: "intro", Text: "Tell me about a project you are proud of."}, {ID: "q2", Stage: "intro", Text: "What was hard about it?"}},
	}
	r := generate(t, rec, nil)
	if len(r.Strengths) != 1 || r.Strengths[0].QuestionID != "q1" {
		t.Errorf("strengths %+v, want only the answer to q1", r.Strengths)
	}
	for _, p := range r.Improvements {
		if p.Quote == garble {
			t.Errorf("improvement %+v quotes the garble", p)
		}
	}
	if r.Stats.Answers != 2 {
		t.Errorf("%d answers, want 2: the repeat request is none", r.Stats.Answers)
	}
}

func TestBasicOldRecord(t *testing.T) {
	// A record from before answer analysis: turns, questions without
	// context or spoken times, and assessments only.
	rec := &interviews.Record{
		ID: "old", Blueprint: "default", Status: interviews.StatusCompleted,
		Stages: []interviews.StageVisit{{Name: "intro", Title: "Introduction", EnteredAt: at(0)}},
		Turns: []interviews.Turn{
			turn(1, interviews.RoleAgent, "intro", 0, 10, "Tell me about a project you are proud of.", "q1"),
			turn(2, interviews.RoleCandidate, "intro", 10, 40, "I led the migration of our billing system to Go, which reduced the monthly bill by 30%. It took us two quarters."),
			turn(3, interviews.RoleAgent, "intro", 40, 50, "What was hard about it?", "q2"),
			turn(4, interviews.RoleCandidate, "intro", 50, 60, "Keeping both systems in sync."),
		},
		Questions: []stages.Question{{ID: "q1", Stage: "intro", Text: "Tell me about a project you are proud of."}, {ID: "q2", Stage: "intro", Text: "What was hard about it?"}},
		Assessments: []interviews.Assessment{
			{QuestionID: "q1", Stage: "intro", DepthScore: 5, KeyPoints: []string{"Led a billing migration."}},
			{QuestionID: "q2", Stage: "intro", DepthScore: 3},
		},
	}
	r := generate(t, rec, nil)
	if r.Stats.Answers != 2 || r.Stats.MaxAnswerWords != 22 || r.Stats.TalkTimeRatio != 0.667 {
		t.Errorf("stats %+v", r.Stats)
	}
	if len(r.Stages) != 1 || r.Stages[0].Questions != 2 {
		t.Errorf("stages %+v", r.Stages)
	}
	if len(r.Competencies) != 4 || r.RubricCoverage != 0 || len(r.UnresolvedGaps) != 0 {
		t.Fatalf("report %+v", r)
	}
	// Depth from the assessments alone: (4 - 1) / 4.
	if c := r.Competencies[1]; c.Score != 75 || !strings.Contains(c.Rationale, "Assessed depth 4.0 of 5") {
		t.Errorf("technical depth %+v", c)
	}
	if c := r.Competencies[3]; c.Score != NeutralScore {
		t.Errorf("role fit without rubric or gaps %+v", c)
	}
	if len(r.Strengths) == 0 || r.Strengths[0].QuestionID != "q1" || len(r.KeyQuestions) != 2 || r.KeyQuestions[0].Quote != "I led the migration of our billing system to Go, which reduced the monthly bill by 30%." {
		t.Errorf("strengths %+v, key questions %+v", r.Strengths, r.KeyQuestions)
	}
}

func TestBasicCompetenciesFromBlueprint(t *testing.T) {
	bp := stages.Default()
	bp.Competencies = []string{"Communication", "Negotiation"}
	r := generate(t, fixture(), bp)
	if len(r.Competencies) != 2 || r.Competencies[0].Name != "Communication" || r.Competencies[1].Score != NeutralScore ||
		!strings.Contains(r.Competencies[1].Rationale, "cannot judge Negotiation") {
		t.Errorf("competencies %+v", r.Competencies)
	}
	if _, err := (Basic{}).Generate(t.Context(), Input{}); err == nil {
		t.Error("a report without a record")
	}
}

// fortyTurns is an interview of 40 turns, 20 answers.
func fortyTurns() *interviews.Record {
	rec := fixture()
	rec.Turns = nil
	rec.Answers = nil
	for i := range 20 {
		q := fmt.Sprintf("q%d", i%3+1)
		rec.Turns = append(rec.Turns,
			turn(2*i+1, interviews.RoleAgent, "experience", 10*i, 10*i+3, "Next question?", q),
			turn(2*i+2, interviews.RoleCandidate, "experience", 10*i+3, 10*i+10, answerCache+" "+answerDispute))
		rec.Answers = append(rec.Answers, interviews.Answer{QuestionID: q, TurnSeq: 2*i + 2, Confidence: interviews.ConfidenceMedium, Facts: []string{"A fact."}})
	}
	return rec
}

func BenchmarkBasic(b *testing.B) {
	in := Input{Record: fortyTurns(), Blueprint: stages.Default()}
	for b.Loop() {
		if _, err := (Basic{}).Generate(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}
