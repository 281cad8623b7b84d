// Package interviews is viva's domain: the interview record — the
// candidate, the stages visited, one ordered list of turns with their
// latency figures, the questions asked, the assessments and room for a
// feedback report — and the words every part of viva shares about an
// interview: the Candidate and its validation, the Dispatch metadata that
// sends the interviewer to a room, the invitation's states, the events a
// hiring system hears, the Store interface every backend implements
// (every method takes the caller's context), and the Service that carries
// out what people do with an interview (register it, withdraw or re-issue
// its link, record a decision) for the web app and the command line.
//
// The backends are adapters in packages of their own: interviews/filestore
// (one JSON file per interview on one machine) and interviews/postgres
// (several machines); interviews/storetest is the contract both pass.
// A record is written after every turn and on every exit path, atomically,
// so a crash or kill never leaves a half-written or missing record.
package interviews

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/incident"

	"github.com/viva-interviews/viva/stages"
)

// Size limits on the free text a record carries. Inputs longer than these
// are refused by Validate, so a record file stays small enough to be read
// after every turn; the web form applies the same limits.
const (
	// MaxNameLen bounds the candidate's name, email and role, in characters.
	MaxNameLen = 200
	// MaxJobDescriptionLen bounds the job description, in characters.
	MaxJobDescriptionLen = 20_000
	// MaxBriefLen bounds a knowledge-capture brief, in characters: enough
	// for a few pages of headings and points.
	MaxBriefLen = 20_000
	// MaxResumeTextLen bounds the résumé text kept, in bytes: longer
	// extracted text is cut there, longer pasted text refused. 100 KB holds
	// a thirty-page résumé and keeps a record small.
	MaxResumeTextLen = 100 << 10
)

// Status is where an interview is in its life.
type Status string

// The statuses of an interview. A record starts scheduled, becomes
// in_progress when the agent starts it and ends in one of the finished
// statuses.
const (
	// StatusScheduled means registered, nobody has joined yet.
	StatusScheduled Status = "scheduled"
	// StatusInProgress means the agent has started the interview.
	StatusInProgress Status = "in_progress"
	// StatusCompleted means the closing remarks were delivered.
	StatusCompleted Status = "completed"
	// StatusCandidateLeft means the candidate left (or input ended) before
	// the closing; everything said so far is kept.
	StatusCandidateLeft Status = "candidate_left"
	// StatusFailed means the interview stopped on an error (provider
	// failure, worker stopped); Record.Error says what happened.
	StatusFailed Status = "failed"
)

// Statuses lists every valid status, in life-cycle order.
var Statuses = []Status{StatusScheduled, StatusInProgress, StatusCompleted, StatusCandidateLeft, StatusFailed}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Finished reports whether s is a final status: the interview will not
// continue and its record will not change except for a later report.
func (s Status) Finished() bool {
	return s == StatusCompleted || s == StatusCandidateLeft || s == StatusFailed
}

// EndReason says what ended an interview: every ending path names one of
// the Ended* reasons or EndedByProviderError. It is stored as
// Record.EndedBy and shown to reviewers, so its values never change.
type EndReason string

// The reasons an interview ends.
const (
	// EndedClosingDelivered: the closing utterance finished playing.
	EndedClosingDelivered EndReason = "closing_delivered"
	// EndedDeadline: the last stage's deadline passed.
	EndedDeadline EndReason = "deadline"
	// EndedCandidateRequest: the candidate asked to stop.
	EndedCandidateRequest EndReason = "candidate_request"
	// EndedCandidateLeft: the candidate left the room.
	EndedCandidateLeft EndReason = "candidate_left"
	// EndedCandidateNeverJoined: nobody joined the room before the wait for
	// the candidate ran out.
	EndedCandidateNeverJoined EndReason = "candidate_never_joined"
	// EndedWorkerStopped: the worker shut down before the interview ended.
	EndedWorkerStopped EndReason = "worker_stopped"
	// EndedEndOfInput: the terminal's input ended (viva chat).
	EndedEndOfInput EndReason = "end_of_input"
	// EndedInterrupted: the terminal session was interrupted (Ctrl-C in
	// viva chat).
	EndedInterrupted EndReason = "interrupted"
	// EndedWorkerCrashed: the process running the interview died without
	// saving an ending; a sweep at the next start found the record in
	// progress with no live lease. A re-dispatch resumes such an interview.
	EndedWorkerCrashed EndReason = "worker_crashed"
	// EndedCandidateUnresponsive: the candidate stayed silent through two
	// check-ins and the offer to stop, and the interviewer closed politely.
	EndedCandidateUnresponsive EndReason = "candidate_unresponsive"
	// EndedModelBudget: the interview used every model call it may make
	// (a flood of input, a model looping), and the interviewer closed.
	EndedModelBudget EndReason = "model_budget"
	// EndedPlanRefused: the interview's plan cannot run (a role template
	// its blueprint asks no questions of, a design problem its pool
	// lacks); Record.Error says which, and the candidate was told.
	EndedPlanRefused EndReason = "plan_refused"
)

// providerErrorPrefix starts every EndedByProviderError reason.
const providerErrorPrefix = "provider_error: "

// EndedByProviderError is the reason for an interview stopped by a failing
// provider, e.g. EndedByProviderError("llm") = "provider_error: llm".
// Pass the provider's kind or name, never an error text that might carry a
// key or a transcript.
func EndedByProviderError(provider string) EndReason {
	return EndReason(providerErrorPrefix + provider)
}

// ProviderError reports whether e is an EndedByProviderError reason.
func (e EndReason) ProviderError() bool { return strings.HasPrefix(string(e), providerErrorPrefix) }

// Valid reports whether e is one of the Ended* reasons or a provider error.
func (e EndReason) Valid() bool {
	switch e {
	case EndedClosingDelivered, EndedDeadline, EndedCandidateRequest, EndedCandidateLeft,
		EndedCandidateNeverJoined, EndedWorkerStopped, EndedEndOfInput, EndedInterrupted, EndedWorkerCrashed,
		EndedCandidateUnresponsive, EndedModelBudget, EndedPlanRefused:
		return true
	}
	return e.ProviderError() && len(e) > len(providerErrorPrefix)
}

// Role says who spoke a turn.
type Role string

// The two speakers of an interview.
const (
	RoleAgent     Role = "agent"
	RoleCandidate Role = "candidate"
)

// Valid reports whether r is RoleAgent or RoleCandidate.
func (r Role) Valid() bool { return r == RoleAgent || r == RoleCandidate }

// Record is everything known about one interview. It is stored as JSON with
// snake_case keys; slices are written as [] when empty.
type Record struct {
	// ID identifies the interview; see ValidID. It names the record's file.
	ID string `json:"id"`
	// Room is the LiveKit room name of the interview (empty for viva chat).
	Room string `json:"room"`
	// Candidate is who is interviewed, as registered.
	Candidate Candidate `json:"candidate"`
	// Blueprint is the name of the stages.Blueprint the interview follows:
	// a design of the library (see Library).
	Blueprint string `json:"blueprint"`
	// Language is the language the interview is held in, a tag checked by
	// lang.Parse (es, de-AT), chosen at registration or by the blueprint;
	// empty means the blueprint's language, then English (records made
	// before interviews had languages).
	Language string `json:"language,omitempty"`
	// BlueprintVersion is the version of that design the interview
	// follows (Design.Version; BuiltinVersion for a built-in one): the
	// worker loads exactly it, so an edit of the design during the
	// interview changes nothing. Empty in records older than the library.
	BlueprintVersion string `json:"blueprint_version,omitempty"`
	// Options are the recruiter's choices for this interview (feedback
	// page, expected length) over the blueprint's settings; nil for none.
	Options *Options `json:"options,omitempty"`
	// JobDescription is the optional job description text. It stays on the
	// server: use Public before sending a record anywhere else.
	JobDescription string `json:"job_description,omitempty"`
	// ResumeText is the text extracted from the uploaded résumé; server-side
	// only, never logged.
	ResumeText string `json:"resume_text,omitempty"`
	// ResumeSummary is a short summary of the résumé given to the
	// interviewer's instructions; server-side only.
	ResumeSummary string `json:"resume_summary,omitempty"`
	// Status is where the interview is in its life.
	Status Status `json:"status"`
	// EndedBy says what ended the interview; empty while it runs.
	EndedBy EndReason `json:"ended_by,omitempty"`
	// FinalStage is the stage the interview was in when it ended.
	FinalStage string `json:"final_stage,omitempty"`
	// CreatedBy is who registered the interview in the web app: the
	// signed-in user's email address, or "shared-password" for the
	// development password. Empty for interviews started by viva chat.
	// Never a password or token.
	CreatedBy string `json:"created_by,omitempty"`
	// CreatedAt is when the interview was registered.
	CreatedAt time.Time `json:"created_at"`
	// StartedAt is when the agent started the interview; nil while scheduled.
	StartedAt *time.Time `json:"started_at,omitempty"`
	// EndedAt is when the interview ended; nil until it has.
	EndedAt *time.Time `json:"ended_at,omitempty"`
	// ExpiresAt is when the candidate's link lapses unless the interview
	// has started (see LinkExpired); nil never.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// OpenedAt is when the candidate first opened the link.
	OpenedAt *time.Time `json:"opened_at,omitempty"`
	// RevokedAt is when a recruiter withdrew the link; nil while valid.
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	// RevokedBy is who withdrew it (a signed-in user's email).
	RevokedBy string `json:"revoked_by,omitempty"`
	// ReissuedAs is the id of the interview that replaced this one when a
	// recruiter re-issued the link; ReissuedFrom, on that interview, names
	// this one.
	ReissuedAs   string `json:"reissued_as,omitempty"`
	ReissuedFrom string `json:"reissued_from,omitempty"`
	// Mailings are the emails viva sent the candidate about the
	// invitation (the invitation, a reminder), oldest first.
	Mailings []Mailing `json:"mailings,omitempty"`
	// Consent is the candidate's agreement given on the join page; nil
	// until given.
	Consent *Consent `json:"consent,omitempty"`
	// Recordings are the interview's audio, one per session, in order.
	Recordings []Recording `json:"recordings,omitempty"`
	// RejoinUntil is set while a candidate who left may come back: until
	// then the interview (saved candidate_left) continues when they rejoin.
	RejoinUntil *time.Time `json:"rejoin_until,omitempty"`
	// Absences are the times the candidate left the room, and came back.
	Absences []Absence `json:"absences,omitempty"`
	// Stages are the stage visits in the order they happened.
	Stages []StageVisit `json:"stages"`
	// Turns is the one ordered list of what was said, by both speakers.
	Turns []Turn `json:"turns"`
	// Questions are the questions the interviewer asked, each with an id
	// that turns and assessments refer to: the interview state machine's
	// question log (fsm.Machine.Questions) as it stood when the record was
	// saved.
	Questions []stages.Question `json:"questions"`
	// Assessments are the interviewer's judgements of the answers.
	Assessments []Assessment `json:"assessments"`
	// Template is the name of the role template the interview asked from
	// (stages.Template), if any.
	Template string `json:"template,omitempty"`
	// TemplateVersion is the version of that role template (see
	// BlueprintVersion).
	TemplateVersion string `json:"template_version,omitempty"`
	// Problem is the id of the design problem the interview works on, from
	// its blueprint's pool (stages.Problem): chosen at registration, or
	// drawn when the interview starts; empty for a blueprint without one.
	Problem string `json:"problem,omitempty"`
	// Brief is a knowledge-capture interview's brief (markdown): its
	// headings and points become the backlog. Server-side only.
	Brief string `json:"brief,omitempty"`
	// TextsDropped says when and why the server-side texts (job
	// description, résumé text and summary, brief) were removed from the
	// record (see DropServerTexts); nil while they are kept.
	TextsDropped *TextsDropped `json:"texts_dropped,omitempty"`
	// Skills are the candidate's skills with the six attributes, from the
	// résumé, the job description and the answers.
	Skills []Skill `json:"skills,omitempty"`
	// Gaps are skill attributes the interview set out to learn.
	Gaps []Gap `json:"gaps,omitempty"`
	// Rubric is the state of each of the blueprint's rubric fields.
	Rubric []RubricItem `json:"rubric,omitempty"`
	// Answers are the analyses of the candidate's answers, in order.
	Answers []Answer `json:"answers,omitempty"`
	// Backlog holds follow-ups, discovered and brief questions.
	Backlog []BacklogItem `json:"backlog,omitempty"`
	// Phases are the phase evaluations of design stages.
	Phases []Phase `json:"phases,omitempty"`
	// Exit says why the interview ended, against its rubric.
	Exit *Exit `json:"exit,omitempty"`
	// Summary is a knowledge capture's summary by topic.
	Summary *TopicSummary `json:"summary,omitempty"`
	// Report is the feedback report: pending while it is being written,
	// then ready or failed (see Report).
	Report *Report `json:"report,omitempty"`
	// Decisions are the reviewers' decisions, oldest first; the last one
	// stands. Appended, never rewritten.
	Decisions []Decision `json:"decisions,omitempty"`
	// Audit lists who did what to the record after the interview: every
	// decision, report generation and webhook delivery, oldest first.
	// Appended, never rewritten.
	Audit []AuditEntry `json:"audit,omitempty"`
	// Engines names the LLM, STT and TTS engines the interview ran on.
	Engines *Engines `json:"engines,omitempty"`
	// Incidents are the provider faults met during the interview (a model
	// timing out, a dropped recognition connection, a backup voice), oldest
	// first, at most MaxIncidents: add them with AddIncident.
	Incidents []incident.Incident `json:"incidents,omitempty"`
	// Signals are the integrity signals observed around the candidate's
	// answers (focus lost, text pasted, long silences, a reading pace),
	// each beside the turn it concerns: context for a reviewer, never a
	// verdict and never scored. At most MaxSignals; add them with
	// AddSignal.
	Signals []Signal `json:"signals,omitempty"`
	// SignalsDropped counts the signals beyond MaxSignals, not kept.
	SignalsDropped int `json:"signals_dropped,omitempty"`
	// TurnTaking counts the interview's turn-taking events (cut-offs,
	// ignored backchannels, resumed false interruptions, check-ins,
	// repeats); nil when none happened.
	TurnTaking *TurnTaking `json:"turn_taking,omitempty"`
	// Error is a short, secret-free description of the failure that ended a
	// failed interview.
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes r with empty slices as [] rather than null, so readers
// of the file can rely on the lists being present.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record // no methods: avoids recursion
	p := plain(r)
	if p.Stages == nil {
		p.Stages = []StageVisit{}
	}
	if p.Turns == nil {
		p.Turns = []Turn{}
	}
	if p.Questions == nil {
		p.Questions = []stages.Question{}
	}
	if p.Assessments == nil {
		p.Assessments = []Assessment{}
	}
	return json.Marshal(p)
}
