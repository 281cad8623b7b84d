package interviews

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/incident"

	"github.com/viva-interviews/viva/stages"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func ptr[T any](v T) *T { return &v }

// fullRecord returns a record with every field set, built through the
// record's own methods where it has them.
func fullRecord() *Record {
	r := &Record{
		ID:               "abcdefghij234567",
		Room:             "interview-ada-x1y2",
		Candidate:        Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"},
		Blueprint:        "default",
		BlueprintVersion: BuiltinVersion,
		Language:         "es-MX",
		Options:          &Options{Feedback: new(true), FeedbackScores: new(false), Length: 20 * time.Minute},
		JobDescription:   "Build things.",
		ResumeText:       "Analytical engine programmer.",
		ResumeSummary:    "Programmer.",
		Status:           StatusScheduled,
		CreatedBy:        "recruiter@example.com",
		CreatedAt:        at(-60),
		Report: &Report{
			Status: ReportReady, Attempts: 2, Error: "timeout", NextAttempt: ptr(at(390)), Version: 1, Basic: true,
			Model: "openai:gpt-test", PromptVersion: "report-v1", GeneratedAt: ptr(at(400)),
			OverallScore: 72, Headline: "Solid.", Competencies: []Competency{{Name: "communication", Score: 80, Rationale: "clear"}},
			Strengths:    []Point{{Text: "depth", Quote: "Fine.", QuestionID: "q1"}},
			Improvements: []Point{{Text: "pace", Quote: "Fine.", QuestionID: "q1"}},
			KeyQuestions: []QuestionFeedback{{QuestionID: "q1", Question: "How are you?", Good: "brief", Missing: "detail", Quote: "Fine."}},
			STAR:         []STAR{{QuestionID: "q1", Situation: true, Task: true, Action: true, Result: true}},
			Stats: TranscriptStats{FillerWords: 1, TalkTimeRatio: 0.4, Answers: 2, SpokenAnswers: 1, TypedAnswers: 1,
				MeanAnswerWords: 1, MedianAnswerWord: 1, MaxAnswerWords: 1},
			Stages:         []StageCoverage{{Stage: "greeting", Title: "Welcome", Questions: 1, Forced: true}},
			RubricCoverage: 1, UnresolvedGaps: []string{"Go — scale"}, UnclearTurns: []int{2},
			Topics: []SummaryTopic{{Title: "Mood", Points: []string{"fine"}}},
		},
		Decisions:      []Decision{{Decision: DecisionAdvance, Note: "good", By: "r@example.com", At: at(500), ReportVersion: 1}},
		Audit:          []AuditEntry{{At: at(500), Who: "r@example.com", Action: AuditDecision, Detail: "advance", ReportVersion: 1, Model: "openai:gpt-test"}},
		Engines:        &Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"},
		Error:          "none",
		TurnTaking:     &TurnTaking{CutOffs: 1, BackchannelsIgnored: 2, FalseInterruptionsResumed: 1, CheckIns: 1, Repeats: 1},
		Signals:        []Signal{{Kind: SignalFocusLost, At: at(40), Turn: 2, Ms: 4000, Chars: 1, Words: 3, WPM: 150}},
		SignalsDropped: 1,
		Mailings:       []Mailing{{Kind: MailInvitation, At: at(1), To: "ada@example.com", By: "recruiter@example.com", Error: "refused"}},
		ExpiresAt:      ptr(at(7 * 24 * 3600)),
		OpenedAt:       ptr(at(-30)),
		RevokedAt:      ptr(at(600)),
		RevokedBy:      "recruiter@example.com",
		ReissuedAs:     "newlink234567abc", ReissuedFrom: "oldlink234567abc",
		Consent:    &Consent{At: at(-20), Version: "sha256:0123456789ab", Text: "An AI interviewer conducts this interview."},
		Recordings: []Recording{{Name: "abcdefghij234567-1.ogg", ContentType: RecordingContentType, StartedAt: at(0), DurationMS: 60000, Bytes: 123456, DeletedAt: ptr(at(900))}},
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
	r.AppendTurn(Turn{
		Role: RoleAgent, Stage: "greeting", Text: "Hello! How are you?", Source: "voice",
		StartedAt: at(1), EndedAt: at(3), Interrupted: true, QuestionIDs: []string{"q1"},
		Metrics: &TurnMetrics{EndOfUtteranceMs: 500, STTFinalMs: 120, LLMFirstTokenMs: 300, TTSFirstByteMs: 90, EndToEndMs: 1010,
			EndpointingRule: EndpointingFinished, EndpointingDelayMs: 300, BackchannelsIgnored: 1, FalseInterruptionsResumed: 1},
		Fallback: "scripted", Filler: "Give me a moment.", Aside: "repeat", STTConfidence: 0.9, // every field set, sense aside
	})
	r.AppendTurn(Turn{Role: RoleCandidate, Stage: "greeting", Text: "Fine.", Source: "text", StartedAt: at(4), EndedAt: at(5)})
	r.Assessments = append(r.Assessments, Assessment{
		QuestionID: "q1", Stage: "greeting", DepthScore: 2, KeyPoints: []string{"fine"}, Guidance: "move on", Declined: true, At: at(6),
	})
	r.Template, r.TemplateVersion, r.Brief = "fullstack-senior", BuiltinVersion, "# Handover\n- The billing job"
	r.Problem = "ticketing"
	r.TextsDropped = &TextsDropped{At: t0.Add(time.Hour), Reason: DropReasonReportReady}
	r.Skills = []Skill{{Name: "Go", Sources: []string{"resume"}, Duration: "3 years", Depth: "wrote a scheduler", Autonomy: "chose the design",
		Scale: "2 million users", Constraints: "legacy API", ProductionVsPrototype: "production", Evidence: []string{"3 years"}, Confidence: 0.9, By: ByRules, Absent: true}}
	r.Gaps = []Gap{{ID: "g1", Skill: "Go", Attribute: "duration", Priority: stages.P0, Status: StatusResolved, Probes: 1, QuestionIDs: []string{"q1"}}}
	r.Rubric = []RubricItem{{ID: "mood", Label: "Mood", Required: true, Status: StatusCovered, Value: "fine", Evidence: "Fine.",
		QuestionIDs: []string{"q1"}, Probes: 1, By: ByLLM, Confidence: 0.9}}
	r.Answers = []Answer{{QuestionID: "q1", TurnSeq: 2, Confidence: ConfidenceLow, ConfidenceScore: 0.3, Facts: []string{"Is fine."}, By: ByRules, At: at(6)}}
	r.Backlog = []BacklogItem{{ID: "b1", Text: "Why fine?", Priority: stages.P1, Origin: OriginFollowUp, Topic: "mood", FollowsUp: "q1",
		Status: StatusAsked, QuestionID: "q2", By: ByRules}}
	r.Phases = []Phase{{ID: "greeting", Name: "Welcome", Score: 6, Decision: PhaseContinue, Feedback: "More.", Gaps: []string{"scale"}, By: ByRules, At: at(6)}}
	r.Exit = &Exit{Reason: ExitRubricComplete, Coverage: 1, Turns: 1, At: at(6)}
	r.Summary = &TopicSummary{Topics: []SummaryTopic{{Title: "Mood", Points: []string{"Is fine."}}}, Basic: true, By: ByRules, GeneratedAt: at(7)}
	r.AddIncident(incident.Incident{At: at(7), Provider: incident.LLM, Engine: "openai", Kind: incident.RateLimited, Detail: "HTTP 429, retried", Recovered: true})
	r.EnterStage("intro", "Introduction", at(60), true, "deadline")
	r.Leave(at(100), at(160))
	if err := r.Rejoin(at(110)); err != nil {
		panic(err)
	}
	// The candidate leaves for good; the window to come back is still open.
	r.Leave(at(300), at(360))
	return r
}

func TestFullRecordSetsEveryField(t *testing.T) {
	// The clone and JSON tests rely on the fixture reaching every field.
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.IsZero() && v.Kind() != reflect.Bool {
			t.Errorf("fixture leaves %s zero", path)
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

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(r *Record)
		want   []string // substrings of the error; none means valid
	}{
		{"full record", func(r *Record) {}, nil},
		{"minimal record", func(r *Record) {
			*r = Record{ID: "x", Candidate: Candidate{Name: "A", Role: "Engineer"}, Status: StatusScheduled, CreatedAt: t0}
		}, nil},
		{"empty id", func(r *Record) { r.ID = "" }, []string{`invalid id ""`}},
		{"path id", func(r *Record) { r.ID = "../x" }, []string{`invalid id "../x"`}},
		{"upper-case id", func(r *Record) { r.ID = "ABC" }, []string{`invalid id "ABC"`}},
		{"unknown status", func(r *Record) { r.Status = "done" }, []string{`invalid status "done": use one of scheduled, in_progress`}},
		{"empty status", func(r *Record) { r.Status = "" }, []string{`invalid status ""`}},
		{"no created_at", func(r *Record) { r.CreatedAt = time.Time{} }, []string{"created_at is not set"}},
		{"blank name", func(r *Record) { r.Candidate.Name = "  " }, []string{"candidate name: Enter the candidate's name"}},
		{"long name", func(r *Record) { r.Candidate.Name = strings.Repeat("é", MaxNameLen+1) }, []string{"candidate name: Keep the name to 200 characters or fewer"}},
		{"name at limit", func(r *Record) { r.Candidate.Name = strings.Repeat("é", MaxNameLen) }, nil},
		{"bad email", func(r *Record) { r.Candidate.Email = "ada at example" }, []string{"candidate email: That doesn't look like an email address; use the form name@example.com"}},
		{"email with display name", func(r *Record) { r.Candidate.Email = "Ada <ada@example.com>" }, []string{"candidate email: That doesn't look like an email address"}},
		{"email without a dot in the domain", func(r *Record) { r.Candidate.Email = "ada@localhost" }, []string{"candidate email: That doesn't look like an email address"}},
		{"blank role", func(r *Record) { r.Candidate.Role = " " }, []string{"candidate role: Enter the role the candidate is applying for"}},
		{"long role", func(r *Record) { r.Candidate.Role = strings.Repeat("r", MaxNameLen+1) }, []string{"candidate role: Keep the role to 200 characters or fewer"}},
		{"unknown level", func(r *Record) { r.Candidate.Level = "godlike" }, []string{"candidate level: Choose a level: entry, junior, mid, senior, lead, staff"}},
		{"empty level", func(r *Record) { r.Candidate.Level = "" }, nil},
		{"long job description", func(r *Record) { r.JobDescription = strings.Repeat("j", MaxJobDescriptionLen+1) }, []string{"job description is longer than 20000"}},
		{"large résumé", func(r *Record) { r.ResumeText = strings.Repeat("r", MaxResumeTextLen+1) }, []string{"résumé text is larger"}},
		{"ended before started", func(r *Record) { r.EndedAt = ptr(at(-1)) }, []string{"ended_at", "is before started_at"}},
		{"finished without end", func(r *Record) { r.EndedAt = nil }, []string{"status candidate_left needs ended_at"}},
		{"rejoin window while running", func(r *Record) { r.Status, r.EndedAt = StatusInProgress, nil }, []string{"rejoin_until is set but the interview is in_progress"}},
		{"stage without name", func(r *Record) { r.Stages[0].Name = "" }, []string{"stage visit 1 has no name"}},
		{"stage left before entered", func(r *Record) { r.Stages[1].LeftAt = ptr(at(10)) }, []string{"stage visit 2 (intro) left before it was entered"}},
		{"earlier stage never left", func(r *Record) { r.Stages[0].LeftAt = nil }, []string{"stage visit 1 (greeting) was never left"}},
		{"question without id", func(r *Record) { r.Questions[0].ID = "" }, []string{"question 1 has no id", `unknown question "q1"`}},
		{"duplicate question id", func(r *Record) { r.Questions = append(r.Questions, r.Questions[0]) }, []string{`question id "q1" is used twice`}},
		{"question without text", func(r *Record) { r.Questions[0].Text = " " }, []string{`question "q1" has no text`}},
		{"seq repeated", func(r *Record) { r.Turns[1].Seq = 1 }, []string{"turn 2 has seq 1, not above the previous 1"}},
		{"seq decreasing", func(r *Record) { r.Turns[0].Seq = 5 }, []string{"has seq 2, not above the previous 5"}},
		{"seq zero", func(r *Record) { r.Turns[0].Seq = 0 }, []string{"turn 1 has seq 0, not above the previous 0"}},
		{"unknown role", func(r *Record) { r.Turns[0].Role = "narrator" }, []string{`turn 1 has role "narrator"`}},
		{"turn ends before start", func(r *Record) { r.Turns[0].EndedAt = at(0) }, []string{"turn 1 ended before it started"}},
		{"turn refers to unknown question", func(r *Record) { r.Turns[0].QuestionIDs = []string{"q9"} }, []string{`turn 1 refers to unknown question "q9"`}},
		{"NaN metric", func(r *Record) { r.Turns[0].Metrics.EndToEndMs = math.NaN() }, []string{"turn 1 has a metric that is not a finite number"}},
		{"infinite metric", func(r *Record) { r.Turns[0].Metrics.STTFinalMs = math.Inf(1) }, []string{"not a finite number"}},
		{"depth 0", func(r *Record) { r.Assessments[0].DepthScore, r.Assessments[0].Declined = 0, false }, []string{"assessment 1 has depth score 0: use 1 to 5"}},
		{"depth 6", func(r *Record) { r.Assessments[0].DepthScore = 6 }, []string{"depth score 6"}},
		{"declined, not judged", func(r *Record) { r.Assessments[0].DepthScore, r.Assessments[0].Declined = 0, true }, nil},
		{"depth 5", func(r *Record) { r.Assessments[0].DepthScore = 5 }, nil},
		{"assessment without question", func(r *Record) { r.Assessments[0].QuestionID = "" }, nil},
		{"assessment of unknown question", func(r *Record) { r.Assessments[0].QuestionID = "q7" }, []string{`assessment 1 refers to unknown question "q7"`}},
		{"NaN score", func(r *Record) { r.Report.Competencies[0].Score = math.NaN() }, []string{`report: competency communication NaN is not a number from 0 to 100`}},
		{"score over 100", func(r *Record) { r.Report.OverallScore = 101 }, []string{"report: overall_score 101 is not a number from 0 to 100"}},
		{"unknown report status", func(r *Record) { r.Report.Status = "done" }, []string{`report: status "done" is not pending, ready or failed`}},
		{"unknown decision", func(r *Record) { r.Decisions[0].Decision = "maybe" }, []string{`decision 1: "maybe" is not advance, hold or reject`}},
		{"several problems at once", func(r *Record) { r.ID = "Bad"; r.Candidate.Name = ""; r.Assessments[0].DepthScore = 9 },
			[]string{`invalid id "Bad"`, "candidate name: Enter the candidate's name", "depth score 9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fullRecord()
			tt.modify(r)
			err := r.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want errors containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		s               Status
		valid, finished bool
	}{
		{StatusScheduled, true, false},
		{StatusInProgress, true, false},
		{StatusCompleted, true, true},
		{StatusCandidateLeft, true, true},
		{StatusFailed, true, true},
		{"", false, false},
		{"Completed", false, false},
	}
	for _, tt := range tests {
		if got := tt.s.Valid(); got != tt.valid {
			t.Errorf("%q.Valid() = %v, want %v", tt.s, got, tt.valid)
		}
		if got := tt.s.Finished(); got != tt.finished {
			t.Errorf("%q.Finished() = %v, want %v", tt.s, got, tt.finished)
		}
	}
}

func TestAppendTurnNumbersTurns(t *testing.T) {
	var r Record
	for i := 1; i <= 3; i++ {
		got := r.AppendTurn(Turn{Seq: 99, Role: RoleCandidate, Text: "x"})
		if got.Seq != i {
			t.Fatalf("turn %d got Seq %d", i, got.Seq)
		}
		// The returned pointer is the stored turn: later edits land in the record.
		got.Interrupted = true
		got.Metrics = &TurnMetrics{EndToEndMs: float64(i)}
		if !r.Turns[i-1].Interrupted || r.Turns[i-1].Metrics.EndToEndMs != float64(i) {
			t.Fatalf("edit through the returned pointer did not reach the record")
		}
	}
	// Seq follows the last stored turn, even when numbering has gaps.
	r.Turns[2].Seq = 10
	if got := r.AppendTurn(Turn{}).Seq; got != 11 {
		t.Fatalf("Seq after a gap = %d, want 11", got)
	}
}

// TestAppendTurnNeverEndsBeforeItStarts: a candidate's turn whose end
// came from an earlier event than its start is kept, ending as it starts,
// and the record stays valid.
func TestAppendTurnNeverEndsBeforeItStarts(t *testing.T) {
	r := &Record{ID: "x", Candidate: Candidate{Name: "A", Role: "Engineer"}, Status: StatusInProgress, CreatedAt: t0}
	got := r.AppendTurn(Turn{Role: RoleCandidate, Stage: "greeting", Text: "Fine.", Source: "voice", StartedAt: t0.Add(2 * time.Second), EndedAt: t0.Add(time.Second)})
	if !got.EndedAt.Equal(got.StartedAt) {
		t.Errorf("turn %v–%v, want it ending as it starts", got.StartedAt, got.EndedAt)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("the record is not valid: %v", err)
	}
}

func TestStageLifecycle(t *testing.T) {
	r := &Record{ID: "x", Candidate: Candidate{Name: "A", Role: "Engineer"}, Status: StatusScheduled, CreatedAt: t0}
	if r.CurrentStage() != "" {
		t.Fatalf("CurrentStage before any stage = %q", r.CurrentStage())
	}
	r.Start(at(0))
	if r.Status != StatusInProgress || !r.StartedAt.Equal(at(0)) {
		t.Fatalf("after Start: status %s, started %v", r.Status, r.StartedAt)
	}
	r.Start(at(5)) // a second start keeps the first time
	if !r.StartedAt.Equal(at(0)) {
		t.Fatalf("second Start moved StartedAt to %v", r.StartedAt)
	}
	r.EnterStage("greeting", "Welcome", at(0), false, "start")
	r.EnterStage("intro", "Introduction", at(60), true, "deadline")
	r.EnterStage("experience", "Experience", at(200), false, "gates met")
	if r.CurrentStage() != "experience" {
		t.Fatalf("CurrentStage = %q", r.CurrentStage())
	}
	r.EnterStage("done", "", at(250), false, "closing delivered")
	r.Finish(StatusCompleted, EndedClosingDelivered, at(260))
	r.Finish(StatusFailed, EndedWorkerStopped, at(300)) // the first ending stays

	want := []StageVisit{
		{Name: "greeting", Title: "Welcome", EnteredAt: at(0), LeftAt: ptr(at(60)), Reason: "start", ExitReason: "deadline"},
		{Name: "intro", Title: "Introduction", EnteredAt: at(60), LeftAt: ptr(at(200)), Forced: true, Reason: "deadline", ExitReason: "gates met"},
		{Name: "experience", Title: "Experience", EnteredAt: at(200), LeftAt: ptr(at(250)), Reason: "gates met", ExitReason: "closing delivered"},
		{Name: "done", EnteredAt: at(250), LeftAt: ptr(at(260)), Reason: "closing delivered"},
	}
	if !reflect.DeepEqual(r.Stages, want) {
		t.Fatalf("stages:\n got %+v\nwant %+v", r.Stages, want)
	}
	if r.Status != StatusCompleted || r.EndedBy != EndedClosingDelivered || !r.EndedAt.Equal(at(260)) {
		t.Fatalf("ending: %s %s %v", r.Status, r.EndedBy, r.EndedAt)
	}
	if r.FinalStage != "experience" {
		t.Fatalf("FinalStage = %q, want experience (done does not count)", r.FinalStage)
	}
	if got := r.Duration(); got != 260*time.Second {
		t.Fatalf("Duration = %v", got)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestLeaveAndRejoin: a candidate who leaves is saved candidate_left at
// once; coming back within the window continues the interview in the same
// stage; the window closes.
func TestLeaveAndRejoin(t *testing.T) {
	r := &Record{ID: "abcdefghij234567", Candidate: Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default", Status: StatusScheduled, CreatedAt: at(-10)}
	r.Start(at(0))
	r.EnterStage("greeting", "Welcome", at(0), false, "start")
	r.EnterStage("intro", "Introduction", at(30), false, "ready")

	r.Leave(at(40), at(100))
	if r.Status != StatusCandidateLeft || r.EndedBy != EndedCandidateLeft || !r.EndedAt.Equal(at(40)) || r.FinalStage != "intro" {
		t.Fatalf("after leaving: status %s by %s at %v, final stage %q", r.Status, r.EndedBy, r.EndedAt, r.FinalStage)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("a record saved as the candidate leaves is invalid: %v", err)
	}
	for sec, want := range map[int]bool{41: true, 99: true, 100: false, 200: false} {
		if got := r.CanRejoin(at(sec)); got != want {
			t.Errorf("CanRejoin at %ds = %v, want %v", sec, got, want)
		}
	}

	if err := r.Rejoin(at(50)); err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInProgress || r.EndedAt != nil || r.EndedBy != "" || r.FinalStage != "" || r.RejoinUntil != nil {
		t.Fatalf("after rejoining: %+v", r)
	}
	if cur := r.Stages[len(r.Stages)-1]; cur.Name != "intro" || cur.LeftAt != nil {
		t.Errorf("the stage the candidate left is not open again: %+v", cur)
	}
	if len(r.Absences) != 1 || !r.Absences[0].LeftAt.Equal(at(40)) || r.Absences[0].BackAt == nil || !r.Absences[0].BackAt.Equal(at(50)) {
		t.Errorf("absences %+v", r.Absences)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("a rejoined record is invalid: %v", err)
	}
	if r.CanRejoin(at(51)) {
		t.Error("an interview in progress offers a rejoin")
	}

	// Gone again, and the window closes: no way back.
	r.Leave(at(70), at(130))
	r.CloseRejoin()
	if r.CanRejoin(at(71)) || r.Rejoin(at(72)) == nil {
		t.Error("a closed window still lets the candidate rejoin")
	}
	if r.Status != StatusCandidateLeft || len(r.Absences) != 2 || r.Absences[1].BackAt != nil {
		t.Errorf("after the window closed: status %s, absences %+v", r.Status, r.Absences)
	}

	// Leave without a window (until not after at) is a plain candidate_left.
	r2 := &Record{Status: StatusInProgress}
	r2.Leave(at(5), at(5))
	if r2.Status != StatusCandidateLeft || r2.RejoinUntil != nil || r2.CanRejoin(at(4)) {
		t.Errorf("leave without a window: %+v", r2)
	}
	// And an interview that already ended is not reopened by a leave.
	done := &Record{Status: StatusInProgress}
	done.Finish(StatusCompleted, EndedClosingDelivered, at(9))
	done.Leave(at(10), at(60))
	if done.Status != StatusCompleted || done.RejoinUntil != nil || done.CanRejoin(at(11)) {
		t.Errorf("leaving a completed interview: %+v", done)
	}
}

func TestFinishWithoutStages(t *testing.T) {
	r := &Record{ID: "x", Candidate: Candidate{Name: "A", Role: "Engineer"}, Status: StatusScheduled, CreatedAt: t0}
	r.Finish(StatusFailed, EndedByProviderError("llm"), at(3))
	if r.FinalStage != "" || r.EndedBy != "provider_error: llm" || r.Status != StatusFailed {
		t.Fatalf("got %+v", r)
	}
	if r.Duration() != 0 {
		t.Fatalf("Duration of a never-started interview = %v", r.Duration())
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestEndReasonValid: every named reason and any provider's error are
// valid; free strings are not.
func TestEndReasonValid(t *testing.T) {
	for _, e := range []EndReason{EndedClosingDelivered, EndedDeadline, EndedCandidateRequest, EndedCandidateLeft,
		EndedCandidateNeverJoined, EndedWorkerStopped, EndedEndOfInput, EndedInterrupted, EndedByProviderError("stt")} {
		if !e.Valid() {
			t.Errorf("%q is not valid", e)
		}
	}
	for _, e := range []EndReason{"", "bored", "provider_error: ", "Deadline"} {
		if e.Valid() {
			t.Errorf("%q is valid", e)
		}
	}
	if !EndedByProviderError("llm").ProviderError() || EndedDeadline.ProviderError() {
		t.Error("ProviderError does not tell provider errors apart")
	}
}

func TestDurationInProgress(t *testing.T) {
	r := &Record{Status: StatusInProgress, StartedAt: ptr(time.Now().Add(-time.Minute))}
	if d := r.Duration(); d < time.Minute || d > time.Hour {
		t.Fatalf("Duration of a running interview = %v, want about a minute", d)
	}
	r.Status = StatusScheduled
	if d := r.Duration(); d != 0 {
		t.Fatalf("Duration of a scheduled interview = %v", d)
	}
}

// mutate changes every leaf reachable from v in place: strings, numbers,
// booleans, times, map entries, slice elements, pointed-to values.
func mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Struct:
		if tv, ok := v.Addr().Interface().(*time.Time); ok {
			*tv = tv.Add(time.Hour)
			return
		}
		for i := 0; i < v.NumField(); i++ {
			mutate(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutate(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			v.SetMapIndex(k, reflect.ValueOf(v.MapIndex(k).Float()+1))
		}
		v.SetMapIndex(reflect.ValueOf("added"), reflect.ValueOf(1.0))
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	}
}

func TestCloneIsIndependent(t *testing.T) {
	orig, want := fullRecord(), fullRecord()
	c := orig.Clone()
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("clone differs from the original:\n got %+v\nwant %+v", c, want)
	}
	mutate(reflect.ValueOf(c))
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("changing the clone changed the original:\n got %+v\nwant %+v", orig, want)
	}
	// And the other way round: appends to the original do not reach the clone.
	c2 := orig.Clone()
	orig.AppendTurn(Turn{Role: RoleAgent, Text: "later"})
	orig.Turns[0].QuestionIDs[0] = "changed"
	if len(c2.Turns) != 2 || c2.Turns[0].QuestionIDs[0] != "q1" {
		t.Fatalf("clone shares turns with the original: %+v", c2.Turns)
	}
}

func TestPublicDropsServerSideText(t *testing.T) {
	r := fullRecord()
	p := r.Public()
	if p.JobDescription != "" || p.ResumeText != "" || p.ResumeSummary != "" {
		t.Fatalf("Public kept server-side text: %+v", p)
	}
	if r.ResumeText == "" {
		t.Fatal("Public changed the original")
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"job_description", "resume_text", "resume_summary"} {
		if strings.Contains(string(data), key) {
			t.Errorf("public JSON has %s: %s", key, data)
		}
	}
}

func TestRecordJSON(t *testing.T) {
	t.Run("round trip", func(t *testing.T) {
		r := fullRecord()
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Record
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&back, r) {
			t.Fatalf("round trip changed the record:\n got %+v\nwant %+v", back, *r)
		}
	})
	t.Run("snake case keys and empty lists", func(t *testing.T) {
		r := &Record{ID: "x", Candidate: Candidate{Name: "A", Role: "Engineer"}, Status: StatusScheduled, CreatedAt: t0}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"stages", "turns", "questions", "assessments"} {
			if l, ok := m[key].([]any); !ok || len(l) != 0 {
				t.Errorf("%s = %#v, want []", key, m[key])
			}
		}
		for _, key := range []string{"job_description", "resume_text", "resume_summary", "report", "engines", "error", "started_at", "ended_at"} {
			if _, ok := m[key]; ok {
				t.Errorf("empty %s is written: %s", key, data)
			}
		}
		for _, key := range []string{"id", "room", "candidate", "blueprint", "status", "created_at"} {
			if _, ok := m[key]; !ok {
				t.Errorf("%s is missing: %s", key, data)
			}
		}
	})
	t.Run("turn keys", func(t *testing.T) {
		data, err := json.Marshal(fullRecord().Turns[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{`"seq":1`, `"role":"agent"`, `"question_ids":["q1"]`, `"interrupted":true`,
			`"end_of_utterance_ms":500`, `"stt_final_ms":120`, `"llm_first_token_ms":300`, `"tts_first_byte_ms":90`, `"end_to_end_ms":1010`} {
			if !strings.Contains(string(data), key) {
				t.Errorf("turn JSON lacks %s: %s", key, data)
			}
		}
	})
}

// TestQuestionJSONCompatible: a question saved by earlier versions (the
// record's own question type) reads into stages.Question unchanged, and is
// written back with the same field names.
func TestQuestionJSONCompatible(t *testing.T) {
	old := `{"id":"q2","stage":"intro","text":"Why Go?","context":{"kind":"follow_up","ref":"q1","note":"thin answer"},"asked_at":"2026-03-02T10:00:01Z","spoken_at":"2026-03-02T10:00:02Z"}`
	var q stages.Question
	if err := json.Unmarshal([]byte(old), &q); err != nil {
		t.Fatal(err)
	}
	want := stages.Question{ID: "q2", Stage: "intro", Text: "Why Go?", AskedAt: at(1), SpokenAt: ptr(at(2)),
		Context: stages.QuestionContext{Kind: stages.KindFollowUp, Ref: "q1", Note: "thin answer"}}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("read %+v, want %+v", q, want)
	}
	again, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != old {
		t.Errorf("written back as %s, want %s", again, old)
	}
}

func TestRecordCreatedBy(t *testing.T) {
	r := newRecord("abc", "Ada", "Engineer", StatusScheduled, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	r.CreatedBy = "recruiter@example.com"
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"two\nlines", " padded", strings.Repeat("x", maxCreatedByLen+1)} {
		r.CreatedBy = bad
		if r.Validate() == nil {
			t.Errorf("created_by %.20q accepted", bad)
		}
	}
	r.CreatedBy = "recruiter@example.com"
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got Record
	if err := json.Unmarshal(data, &got); err != nil || got.CreatedBy != r.CreatedBy {
		t.Errorf("stored created_by %q, %v", got.CreatedBy, err)
	}
}

// TestDropServerTexts: the job description, résumé text and summary and
// the brief go, the record says when and why, and a record without them
// is left as it was.
func TestDropServerTexts(t *testing.T) {
	r := &Record{JobDescription: "jd", ResumeText: "cv", ResumeSummary: "sum", Brief: "# b"}
	if !r.DropServerTexts(t0, DropReasonReportReady) {
		t.Fatal("DropServerTexts found nothing to drop")
	}
	if r.JobDescription != "" || r.ResumeText != "" || r.ResumeSummary != "" || r.Brief != "" {
		t.Fatalf("texts kept: %+v", r)
	}
	if r.TextsDropped == nil || !r.TextsDropped.At.Equal(t0) || r.TextsDropped.Reason != DropReasonReportReady {
		t.Fatalf("TextsDropped = %+v", r.TextsDropped)
	}
	if r.DropServerTexts(t0.Add(time.Hour), "again") || r.TextsDropped.Reason != DropReasonReportReady {
		t.Fatalf("a second drop changed the note: %+v", r.TextsDropped)
	}
	if c := r.Clone(); c.TextsDropped == r.TextsDropped {
		t.Fatal("Clone shares TextsDropped")
	}
}
