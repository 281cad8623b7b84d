package reports

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The words of the offline interview a reviewer could not trust.
const (
	greetingAnswer = "Yes, now is a good time and I am ready."
	garbledAnswer  = "yeah and i am reading my name and later on i built payment den gro in the the system for years"
	goAnswer       = "I have worked five years with Go. I built the payment service that handles 2 million requests a day."
	teamAnswer     = "At my last job our team moved billing to a queue. I led the migration and it cut failed payments by 30%."
)

// spokenTurn is a spoken candidate turn the recogniser was conf sure of.
func spokenTurn(seq int, stage string, from, to int, text string, conf float64) interviews.Turn {
	t := turn(seq, interviews.RoleCandidate, stage, from, to, text)
	t.Source, t.STTConfidence = interviews.SourceVoice, conf
	return t
}

// untrusted is an offline interview like the one the reviewer met: a
// greeting answered, a garbled transcript the recogniser was unsure of,
// two clear answers, nine skills from the job description.
func untrusted() *interviews.Record {
	qs := []stages.Question{
		spokenQ("greeting-2", "greeting", "Is now still a good time for you, and are you ready to get started?", stages.KindBank),
		spokenQ("q1", "intro", "Tell me about yourself.", stages.KindTemplate),
		spokenQ("q2", "experience", "What have you built with Go?", stages.KindTemplate),
		spokenQ("q3", "experience", "Tell me about a time you led a change.", stages.KindTemplate),
	}
	rec := &interviews.Record{
		ID: "untrusted", Blueprint: "default", Status: interviews.StatusCompleted,
		Stages: []interviews.StageVisit{
			{Name: "greeting", Title: "Welcome", EnteredAt: at(0)},
			{Name: "intro", Title: "Introduction", EnteredAt: at(10)},
			{Name: "experience", Title: "Experience", EnteredAt: at(40)},
		},
		Turns: []interviews.Turn{
			turn(1, interviews.RoleAgent, "greeting", 0, 5, qs[0].Text, "greeting-2"),
			spokenTurn(2, "greeting", 5, 10, greetingAnswer, 0.95),
			turn(3, interviews.RoleAgent, "intro", 10, 15, qs[1].Text, "q1"),
			spokenTurn(4, "intro", 15, 40, garbledAnswer, 0.42),
			turn(5, interviews.RoleAgent, "experience", 40, 45, qs[2].Text, "q2"),
			spokenTurn(6, "experience", 45, 70, goAnswer, 0.91),
			turn(7, interviews.RoleAgent, "experience", 70, 75, qs[3].Text, "q3"),
			spokenTurn(8, "experience", 75, 100, teamAnswer, 0.88),
		},
		Questions: qs,
		Answers: []interviews.Answer{
			{QuestionID: "greeting-2", TurnSeq: 2, Confidence: interviews.ConfidenceLow},
			{QuestionID: "q1", TurnSeq: 4, Confidence: interviews.ConfidenceHigh, Facts: []string{"Is ready their name and later on i built payment."}},
			{QuestionID: "q2", TurnSeq: 6, Confidence: interviews.ConfidenceMedium, Facts: []string{"Go for five years."}},
			{QuestionID: "q3", TurnSeq: 8, Confidence: interviews.ConfidenceHigh},
		},
	}
	for _, name := range []string{"Go", "Kubernetes", "PostgreSQL", "Kafka", "Terraform", "gRPC", "Redis", "AWS", "Python"} {
		rec.Skills = append(rec.Skills, interviews.Skill{Name: name, Sources: []string{"job_required"}})
	}
	return rec
}

// reportTexts is every sentence the report writes, with where it is.
func reportTexts(r interviews.Report) map[string]string {
	out := map[string]string{"headline": r.Headline}
	for _, c := range r.Competencies {
		out["competency "+c.Name] = c.Rationale
	}
	for i, p := range slices.Concat(r.Strengths, r.Improvements) {
		out["point "+string(rune('a'+i))] = p.Text
	}
	for _, k := range r.KeyQuestions {
		out["key question "+k.QuestionID] = k.Good + " " + k.Missing
	}
	return out
}

// secondPerson finds the candidate addressed as "you"; quoted finds the
// words a text quotes.
var (
	secondPerson = regexp.MustCompile(`(?i)\b(you|your|yours|yourself)\b`)
	quoted       = regexp.MustCompile(`“[^”]*”`)
)

// TestBasicReportTrust reproduces what the reviewer met: the garble the
// recogniser was unsure of is flagged and never quoted, the greeting is
// never judged, no quote is both a strength and an improvement, the skills
// are counted as the record holds them, and the report speaks of the
// candidate, never to them.
func TestBasicReportTrust(t *testing.T) {
	r := generate(t, untrusted(), stages.Default())

	if !slices.Equal(r.UnclearTurns, []int{4}) {
		t.Errorf("unclear turns %v, want [4]", r.UnclearTurns)
	}
	var quotes []string
	for _, p := range slices.Concat(r.Strengths, r.Improvements) {
		quotes = append(quotes, p.Quote)
	}
	for _, k := range r.KeyQuestions {
		if k.Quote != "" {
			quotes = append(quotes, k.Quote)
		}
	}
	for _, q := range quotes {
		if !strings.Contains(goAnswer, q) && !strings.Contains(teamAnswer, q) {
			t.Errorf("quote %q is not the words of a clear answer", q)
		}
	}
	for _, s := range r.Strengths {
		for _, i := range r.Improvements {
			if s.Quote == i.Quote {
				t.Errorf("%q is both a strength and an improvement", s.Quote)
			}
		}
	}
	for _, k := range r.KeyQuestions {
		switch k.QuestionID {
		case "greeting-2":
			t.Errorf("the greeting is judged: %+v", k)
		case "q1":
			if k.Quote != "" || k.Good != "" || !strings.Contains(k.Missing, "unsure") {
				t.Errorf("the unsure answer is judged: %+v", k)
			}
		}
		if strings.Contains(k.Good, "Is ready their name") {
			t.Errorf("key question %s gives the analysis' rewrite as the candidate's words: %q", k.QuestionID, k.Good)
		}
	}
	for where, text := range reportTexts(r) {
		// The interviewer's questions, quoted, may say "you".
		if m := secondPerson.FindString(quoted.ReplaceAllString(text, "“…”")); m != "" {
			t.Errorf("%s addresses the candidate (%q): %s", where, m, text)
		}
	}
	tech := r.Competencies[1]
	if !strings.Contains(tech.Rationale, "1 of 9 skills discussed (Go)") {
		t.Errorf("technical depth %q: want Go counted as discussed", tech.Rationale)
	}
	if r.Stats.Answers != 4 || r.Stats.SpokenAnswers != 4 || r.Stats.TalkTimeRatio == 0 {
		t.Errorf("stats %+v", r.Stats)
	}
	// The communication judged the two clear answers only.
	if comm := r.Competencies[0]; !strings.Contains(comm.Rationale, "of 2 answers judged") {
		t.Errorf("communication %q", comm.Rationale)
	}
}

// TestBasicUnratedGarble: an engine reporting no confidence (offline
// speech) gets the benefit of the doubt only for text that reads like
// speech.
func TestBasicUnratedGarble(t *testing.T) {
	rec := untrusted()
	rec.Turns[3].STTConfidence = 0
	rec.Turns[3].Text = "are a problem want to rush out and are caught up and you are up what it did an a"
	r := generate(t, rec, stages.Default())
	if !slices.Equal(r.UnclearTurns, []int{4}) {
		t.Errorf("unclear turns %v, want [4]", r.UnclearTurns)
	}
	rec.Turns[3].Text = teamAnswer
	if r := generate(t, rec, stages.Default()); len(r.UnclearTurns) != 0 {
		t.Errorf("a clear unrated answer is flagged: %v", r.UnclearTurns)
	}
}

// TestBasicTypedInterview: typed answers are the candidate's own words,
// and a typed interview has no talk time.
func TestBasicTypedInterview(t *testing.T) {
	rec := untrusted()
	for i := range rec.Turns {
		rec.Turns[i].Source, rec.Turns[i].STTConfidence = interviews.SourceText, 0
	}
	rec.Turns[3].Text = "ok"
	r := generate(t, rec, stages.Default())
	if r.Stats.TalkTimeRatio != 0 || r.Stats.SpokenAnswers != 0 || r.Stats.TypedAnswers != 4 {
		t.Errorf("stats %+v, want no talk time and 4 typed answers", r.Stats)
	}
	if len(r.UnclearTurns) != 0 {
		t.Errorf("typed answers flagged as unclear: %v", r.UnclearTurns)
	}
	if len(r.Strengths) == 0 {
		t.Error("no strength from the typed answers")
	}
}

// TestBasicFollowUpOnce: a follow-up put down three times and spoken once
// gets one piece of feedback.
func TestBasicFollowUpOnce(t *testing.T) {
	rec := untrusted()
	follow := rec.Questions[2]
	for _, id := range []string{"q2b", "q2c"} {
		dup := follow
		dup.ID, dup.SpokenAt = id, nil
		rec.Questions = append(rec.Questions, dup)
	}
	r := generate(t, rec, stages.Default())
	n := 0
	for _, k := range r.KeyQuestions {
		if k.Question == follow.Text {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the follow-up has %d pieces of feedback, want 1: %+v", n, r.KeyQuestions)
	}
}

// TestBasicShortRepliesNotJudged: "Thanks." after a request for an
// example is too short to quote, to judge as a story or as a concern.
func TestBasicShortRepliesNotJudged(t *testing.T) {
	rec := untrusted()
	q := spokenQ("q4", "experience", "Can you give me one concrete example from that?", stages.KindTemplate)
	rec.Questions = append(rec.Questions, q)
	rec.Turns = append(rec.Turns,
		turn(9, interviews.RoleAgent, "experience", 100, 105, q.Text, "q4"),
		turn(10, interviews.RoleCandidate, "experience", 105, 106, "Thanks."))
	rec.Answers = append(rec.Answers, interviews.Answer{QuestionID: "q4", TurnSeq: 10, Confidence: interviews.ConfidenceLow})
	r := generate(t, rec, stages.Default())
	for _, p := range slices.Concat(r.Strengths, r.Improvements) {
		if p.Quote == "Thanks." {
			t.Errorf("%+v quotes a bare thank-you", p)
		}
	}
	for _, s := range r.STAR {
		if s.QuestionID == "q4" {
			t.Errorf("a bare thank-you is judged as a story: %+v", s)
		}
	}
	for _, k := range r.KeyQuestions {
		if k.QuestionID == "q4" && (k.Quote != "" || k.Missing != "The answer was too short to judge.") {
			t.Errorf("key question %+v", k)
		}
	}
	if r.Stats.Answers != 5 {
		t.Errorf("%d answers counted, want 5: a short one still counts", r.Stats.Answers)
	}
}

// TestBasicOnlyTheGreeting: an interview that never left the greeting is
// judged on what was said there, the only answers there are.
func TestBasicOnlyTheGreeting(t *testing.T) {
	rec := untrusted()
	rec.Stages = rec.Stages[:1]
	for i := range rec.Turns {
		rec.Turns[i].Stage = "greeting"
	}
	r := generate(t, rec, stages.Default())
	if len(r.Strengths) == 0 {
		t.Errorf("no strength from an interview that stayed in the greeting: %+v", r)
	}
}
