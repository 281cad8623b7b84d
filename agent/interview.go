package agent

import (
	"cmp"
	"fmt"
	"log/slog"
	"strings"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// Setup is everything needed to run one interview.
type Setup struct {
	// Blueprint is the interview plan. Required.
	Blueprint *stages.Blueprint
	// Record is the interview's record (candidate, id, status scheduled or
	// in progress). Required.
	Record *interviews.Record
	// Store saves the record (an interviews.Store); nil keeps it in
	// memory only.
	Store RecordSaver
	// TimeScale multiplies every limit and gate (0 means 1).
	TimeScale float64
	// Models are the interview's model engines; NewLLM is required.
	Models
	// Template is the role template whose questions the guided stages
	// ask; nil asks none. Its Name is stored in the record.
	Template *stages.Template
	// Pace is the interview's clock and what is said while the model is
	// slow.
	Pace
	// MaxModelCalls bounds the interviewer's model calls (see
	// Options.MaxModelCalls).
	MaxModelCalls int
	// OnEvent, when set, also receives every state machine event, after the
	// record has been updated (the voice session shows stage changes).
	OnEvent func(fsm.Event)
	// Logger is the session's logger.
	Logger *slog.Logger
}

// InterviewLanguage is the language interview rec of blueprint bp is held
// in: the record's, else the blueprint's, as a checked tag; "" for English
// by default.
func InterviewLanguage(rec *interviews.Record, bp *stages.Blueprint) string {
	tag, err := lang.Parse(cmp.Or(rec.Language, bp.Language))
	if err != nil {
		return "" // records and blueprints are validated when stored
	}
	return tag
}

// Models are the model engines one interview runs on.
type Models struct {
	// NewLLM makes the interviewer model; it receives the machine (the
	// scripted interviewer reads it). Required.
	NewLLM func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client
	// Analyzer analyses the answers beside the replies and reads the
	// résumé, job description and brief; nil means the offline rules.
	Analyzer analysis.Analyzer
	// Preemptive lets replies start while the endpointing delay runs
	// (see Options.Preemptive): only for a model whose calls change
	// nothing, a remote one.
	Preemptive bool
}

// NewInterview wires a recorder, a state machine and a conductor for one
// interview. The interview starts with Conductor.Greet.
func NewInterview(s Setup) (*Conductor, error) {
	if s.Blueprint == nil || s.Record == nil || s.NewLLM == nil {
		return nil, fmt.Errorf("agent: Setup needs Blueprint, Record and NewLLM")
	}
	// A role template's questions get their time in the main stage.
	bp, err := s.Blueprint.WithTemplate(s.Template)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	rec := s.Record
	if rec.Blueprint == "" {
		rec.Blueprint = s.Blueprint.Name
	}
	// The interviewer reads the résumé as a summary of roles, figures
	// and skills, made here from the text the record keeps.
	if strings.TrimSpace(rec.ResumeText) != "" {
		rec.ResumeSummary = analysis.ResumeSummary(rec.ResumeText)
	}
	// A design interview works on one problem of its pool, which the
	// record names.
	problem, err := chooseProblem(bp, rec)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if problem.ID != "" {
		bp, rec.Problem = bp.WithProblem(problem), problem.ID
	}
	// The interviewer says the name only as plain words; the record keeps
	// it as typed.
	profile := stages.Profile{
		Name: stages.SpokenName(rec.Candidate.Name), Role: rec.Candidate.Role, Level: rec.Candidate.Level,
		JobDescription: rec.JobDescription, ResumeSummary: rec.ResumeSummary, Problem: problem,
		Language: InterviewLanguage(rec, s.Blueprint),
	}
	recorder := NewRecorder(s.Store, rec, log)
	title := func(stage string) string {
		if st, _, ok := bp.Stage(stage); ok {
			return st.Title
		}
		return stage
	}
	onEvent := recorder.MachineEvent(title)
	if s.OnEvent != nil {
		record, extra := onEvent, s.OnEvent
		onEvent = func(ev fsm.Event) { record(ev); extra(ev) }
	}
	m, err := fsm.New(bp, fsm.Options{TimeScale: s.TimeScale, Profile: profile, OnEvent: onEvent, Now: s.Clock})
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	// A record whose worker died continues where it was: same stage, same
	// question log (new questions number on), the conversation so far.
	resume := rec.Resumable()
	if resume {
		if err := m.Resume(rec.CurrentStage(), rec.Questions); err != nil {
			return nil, fmt.Errorf("agent: resuming interview %s: %w", rec.ID, err)
		}
	}
	recorder.QuestionsFrom(m.Questions)
	return New(Options{LLM: s.NewLLM(m, bp, profile), Machine: m, Recorder: recorder, Profile: profile, Logger: log, Resume: resume,
		Template: s.Template, Analyzer: s.Analyzer, Preemptive: s.Preemptive, Pace: s.Pace, MaxModelCalls: s.MaxModelCalls})
}

// chooseProblem is the problem of the interview's blueprint pool the
// record names, or, when it names none, the one drawn for its id (the same
// on every resumption); zero for a blueprint without a pool. A problem
// the pool does not hold is an error saying which it does.
func chooseProblem(bp *stages.Blueprint, rec *interviews.Record) (stages.Problem, error) {
	if rec.Problem != "" {
		return bp.FindProblem(rec.Problem)
	}
	p, _ := bp.PickProblem(rec.ID)
	return p, nil
}
