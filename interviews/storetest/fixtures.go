package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// t0 is the fixtures' reference time.
var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func ptr[T any](v T) *T { return &v }

// NewRecord returns a valid record in the given status, created at created.
func NewRecord(id, name, role string, status interviews.Status, created time.Time) *interviews.Record {
	r := &interviews.Record{ID: id, Candidate: interviews.Candidate{Name: name, Role: role, Level: "mid"}, Blueprint: "default", Status: interviews.StatusScheduled, CreatedAt: created}
	if status != interviews.StatusScheduled {
		r.Start(created.Add(time.Minute))
		r.EnterStage("greeting", "Welcome", created.Add(time.Minute), false, "")
	}
	if status.Finished() {
		r.Finish(status, "test", created.Add(11*time.Minute))
	}
	return r
}

// testFullRecordSetsEveryField keeps the round-trip fixture complete: a
// field added to the record and left zero here fails the suite.
func testFullRecordSetsEveryField(t *testing.T) {
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.IsZero() && v.Kind() != reflect.Bool {
			t.Errorf("fixture leaves %s zero: set it in storetest's fullRecord", path)
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			walk(path, v.Elem())
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return
			}
			for i := 0; i < v.NumField(); i++ {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice:
			walk(path+"[0]", v.Index(0))
		}
	}
	walk("Record", reflect.ValueOf(fullRecord()))
}

// fullRecord returns a record with every field set, built through the
// record's own methods where it has them.
func fullRecord() *interviews.Record {
	r := &interviews.Record{
		ID:               "abcdefghij234567",
		Room:             "interview-ada-x1y2",
		Candidate:        interviews.Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"},
		Blueprint:        "default",
		BlueprintVersion: interviews.BuiltinVersion,
		Language:         "es-MX",
		Options:          &interviews.Options{Feedback: ptr(true), FeedbackScores: ptr(false), Length: 20 * time.Minute},
		JobDescription:   "Build things.",
		ResumeText:       "Analytical engine programmer.",
		ResumeSummary:    "Programmer.",
		Status:           interviews.StatusScheduled,
		CreatedBy:        "recruiter@example.com",
		CreatedAt:        at(-60),
		Report:           fullReport(),
		Decisions:        []interviews.Decision{{Decision: interviews.DecisionAdvance, Note: "good", By: "r@example.com", At: at(500), ReportVersion: 1}},
		Audit:            []interviews.AuditEntry{{At: at(500), Who: "r@example.com", Action: interviews.AuditDecision, Detail: "advance", ReportVersion: 1, Model: "openai:gpt-test"}},
		Engines:          &interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"},
		Error:            "none",
		TextsDropped:     &interviews.TextsDropped{At: at(450), Reason: interviews.DropReasonReportReady},
		TurnTaking:       &interviews.TurnTaking{CutOffs: 1, BackchannelsIgnored: 2, FalseInterruptionsResumed: 1, CheckIns: 1, Repeats: 1},
		Signals:          []interviews.Signal{{Kind: interviews.SignalFocusLost, At: at(40), Turn: 2, Ms: 4000, Chars: 1, Words: 3, WPM: 150}},
		SignalsDropped:   1,
		Mailings:         []interviews.Mailing{{Kind: interviews.MailInvitation, At: at(1), To: "ada@example.com", By: "recruiter@example.com", Error: "refused"}},
		ExpiresAt:        ptr(at(7 * 24 * 3600)),
		OpenedAt:         ptr(at(-30)),
		RevokedAt:        ptr(at(600)),
		RevokedBy:        "recruiter@example.com",
		ReissuedAs:       "newlink234567abc", ReissuedFrom: "oldlink234567abc",
		Consent:    &interviews.Consent{At: at(-20), Version: "sha256:0123456789ab", Text: "An AI interviewer conducts this interview."},
		Recordings: []interviews.Recording{{Name: "abcdefghij234567-1.ogg", ContentType: interviews.RecordingContentType, StartedAt: at(0), DurationMS: 60000, Bytes: 123456, DeletedAt: ptr(at(900))}},
	}
	r.Start(at(0))
	r.EnterStage("greeting", "Welcome", at(0), false, "start")
	r.Questions = append(r.Questions, stages.Question{
		ID: "q1", Stage: "greeting", Text: "How are you?", Purpose: "Warm up.", Keywords: []string{"mood"},
		Expected: "Says how they are.", SkipIf: "- covered: mood",
		Context: stages.QuestionContext{Kind: "gap", Ref: "g1", Note: "warm up", FollowsUp: "q0", Priority: stages.P0,
			Targets: stages.Targets{Skill: "Go", Attribute: "duration", Field: "mood", Category: "Warm-up", Assesses: []string{"mood"}, Phase: "greeting"}},
		AskedAt: at(1), SpokenAt: ptr(at(2)),
	})
	r.AppendTurn(interviews.Turn{
		Role: interviews.RoleAgent, Stage: "greeting", Text: "Hello! How are you?", Source: "voice",
		StartedAt: at(1), EndedAt: at(3), Interrupted: true, QuestionIDs: []string{"q1"},
		Metrics: &interviews.TurnMetrics{EndOfUtteranceMs: 500, STTFinalMs: 120, LLMFirstTokenMs: 300, TTSFirstByteMs: 90, EndToEndMs: 1010,
			EndpointingRule: interviews.EndpointingFinished, EndpointingDelayMs: 300, BackchannelsIgnored: 1, FalseInterruptionsResumed: 1},
		Fallback: "scripted", Filler: "Give me a moment.", Aside: "repeat", STTConfidence: 0.9, // every field set, sense aside
	})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "greeting", Text: "Fine.", Source: "text", StartedAt: at(4), EndedAt: at(5)})
	r.Assessments = append(r.Assessments, interviews.Assessment{
		QuestionID: "q1", Stage: "greeting", DepthScore: 2, KeyPoints: []string{"fine"}, Guidance: "move on", Declined: true, At: at(6),
	})
	fillKnowledge(r)
	r.EnterStage("intro", "Introduction", at(60), true, "deadline")
	r.Leave(at(100), at(160))
	if err := r.Rejoin(at(110)); err != nil {
		panic(err)
	}
	// The candidate leaves for good; the window to come back is still open.
	r.Leave(at(300), at(360))
	return r
}

// fullReport is fullRecord's feedback report, every field set.
func fullReport() *interviews.Report {
	return &interviews.Report{
		Status: interviews.ReportReady, Attempts: 2, Error: "timeout", NextAttempt: ptr(at(390)), Version: 1, Basic: true,
		Model: "openai:gpt-test", PromptVersion: "report-v1", GeneratedAt: ptr(at(400)),
		OverallScore: 72, Headline: "Solid.", Competencies: []interviews.Competency{{Name: "communication", Score: 80, Rationale: "clear"}},
		Strengths:    []interviews.Point{{Text: "depth", Quote: "Fine.", QuestionID: "q1"}},
		Improvements: []interviews.Point{{Text: "pace", Quote: "Fine.", QuestionID: "q1"}},
		KeyQuestions: []interviews.QuestionFeedback{{QuestionID: "q1", Question: "How are you?", Good: "brief", Missing: "detail", Quote: "Fine."}},
		STAR:         []interviews.STAR{{QuestionID: "q1", Situation: true, Task: true, Action: true, Result: true}},
		Stats: interviews.TranscriptStats{FillerWords: 1, TalkTimeRatio: 0.4, Answers: 2, SpokenAnswers: 1, TypedAnswers: 1,
			MeanAnswerWords: 1, MedianAnswerWord: 1, MaxAnswerWords: 1},
		Stages:         []interviews.StageCoverage{{Stage: "greeting", Title: "Welcome", Questions: 1, Forced: true}},
		RubricCoverage: 1, UnresolvedGaps: []string{"Go — scale"}, UnclearTurns: []int{2},
		Topics: []interviews.SummaryTopic{{Title: "Mood", Points: []string{"fine"}}},
	}
}

// fillKnowledge sets what fullRecord's interview learnt: template and
// brief, skills, gaps, rubric, answers, backlog, phases, exit, summary and
// an incident.
func fillKnowledge(r *interviews.Record) {
	r.Template, r.TemplateVersion, r.Brief = "fullstack-senior", interviews.BuiltinVersion, "# Handover\n- The billing job"
	r.Problem = "ticketing"
	r.Skills = []interviews.Skill{{Name: "Go", Sources: []string{"resume"}, Duration: "3 years", Depth: "wrote a scheduler", Autonomy: "chose the design",
		Scale: "2 million users", Constraints: "legacy API", ProductionVsPrototype: "production", Evidence: []string{"3 years"}, Confidence: 0.9, By: interviews.ByRules, Absent: true}}
	r.Gaps = []interviews.Gap{{ID: "g1", Skill: "Go", Attribute: "duration", Priority: stages.P0, Status: interviews.StatusResolved, Probes: 1, QuestionIDs: []string{"q1"}}}
	r.Rubric = []interviews.RubricItem{{ID: "mood", Label: "Mood", Required: true, Status: interviews.StatusCovered, Value: "fine", Evidence: "Fine.",
		QuestionIDs: []string{"q1"}, Probes: 1, By: interviews.ByLLM, Confidence: 0.9}}
	r.Answers = []interviews.Answer{{QuestionID: "q1", TurnSeq: 2, Confidence: interviews.ConfidenceLow, ConfidenceScore: 0.3, Facts: []string{"Is fine."}, By: interviews.ByRules, At: at(6)}}
	r.Backlog = []interviews.BacklogItem{{ID: "b1", Text: "Why fine?", Priority: stages.P1, Origin: interviews.OriginFollowUp, Topic: "mood", FollowsUp: "q1",
		Status: interviews.StatusAsked, QuestionID: "q2", By: interviews.ByRules}}
	r.Phases = []interviews.Phase{{ID: "greeting", Name: "Welcome", Score: 6, Decision: interviews.PhaseContinue, Feedback: "More.", Gaps: []string{"scale"}, By: interviews.ByRules, At: at(6)}}
	r.Exit = &interviews.Exit{Reason: interviews.ExitRubricComplete, Coverage: 1, Turns: 1, At: at(6)}
	r.Summary = &interviews.TopicSummary{Topics: []interviews.SummaryTopic{{Title: "Mood", Points: []string{"Is fine."}}}, Basic: true, By: interviews.ByRules, GeneratedAt: at(7)}
	r.AddIncident(incident.Incident{At: at(7), Provider: incident.LLM, Engine: "openai", Kind: incident.RateLimited, Detail: "HTTP 429, retried", Recovered: true})
}
