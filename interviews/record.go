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
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/incident"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

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
		EndedCandidateUnresponsive, EndedModelBudget:
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
	// Blueprint is the name of the stages.Blueprint the interview follows.
	Blueprint string `json:"blueprint"`
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

// Absence is one time the candidate left the room.
type Absence struct {
	// LeftAt is when the candidate left.
	LeftAt time.Time `json:"left_at"`
	// BackAt is when they rejoined; nil if they did not.
	BackAt *time.Time `json:"back_at,omitempty"`
}

// StageVisit is one stay in a stage, from entering it to leaving it.
type StageVisit struct {
	// Name is the stage id from the blueprint ("intro").
	Name string `json:"name"`
	// Title is the stage's human name ("Introduction").
	Title string `json:"title"`
	// EnteredAt is when the interview entered the stage.
	EnteredAt time.Time `json:"entered_at"`
	// LeftAt is when it left the stage; nil while the stage is current.
	LeftAt *time.Time `json:"left_at,omitempty"`
	// Forced is true when the stage was entered because the previous one's
	// deadline passed, not because the interviewer asked to move on.
	Forced bool `json:"forced"`
	// Reason is the reason of the transition that entered the stage (the
	// interviewer's words for leaving the previous one, "deadline",
	// "exit: …", "candidate_request: …").
	Reason string `json:"reason,omitempty"`
	// ExitReason is why the interview left this stage: the reason of the
	// transition that left it; empty while it is current.
	ExitReason string `json:"exit_reason,omitempty"`
}

// Turn is one utterance by one speaker.
type Turn struct {
	// Seq numbers the turns 1, 2, 3… in the order they were recorded.
	Seq int `json:"seq"`
	// Role says who spoke.
	Role Role `json:"role"`
	// Stage is the stage current when the turn was spoken.
	Stage string `json:"stage"`
	// Text is what was said; for an interrupted agent turn only the text
	// that was actually played.
	Text string `json:"text"`
	// Source says how the turn arrived: "voice", "text" (typed), "timer"
	// (an acknowledgement after a forced transition), …
	Source string `json:"source,omitempty"`
	// StartedAt is when the speaker started the turn.
	StartedAt time.Time `json:"started_at"`
	// EndedAt is when the speaker finished it (or was interrupted).
	EndedAt time.Time `json:"ended_at"`
	// Interrupted is true when the candidate barged in on this agent turn.
	Interrupted bool `json:"interrupted"`
	// QuestionIDs are the questions (Record.Questions) asked in this turn.
	QuestionIDs []string `json:"question_ids,omitempty"`
	// Metrics are the turn's latency figures, when measured.
	Metrics *TurnMetrics `json:"metrics,omitempty"`
	// Fallback names the engine that wrote an interviewer turn in place of
	// the failing model ("scripted"); empty when the model wrote it.
	Fallback string `json:"fallback,omitempty"`
	// Aside says what a candidate turn was when it was not an answer:
	// AsideRepeat (a request to hear the question again) or AsideQuestion
	// (the candidate's own question at the closing). Empty for an answer.
	Aside string `json:"aside,omitempty"`
	// Filler is what the interviewer said before an agent turn while the
	// model was slow to answer ("Give me a moment."); it is not part of
	// Text.
	Filler string `json:"filler,omitempty"`
}

// Asides (Turn.Aside).
const (
	AsideRepeat   = "repeat"
	AsideQuestion = "own_question"
)

// TurnMetrics are per-turn latency figures in milliseconds, measured on the
// agent turn that answered a candidate turn. Zero means not measured.
type TurnMetrics struct {
	// EndOfUtteranceMs is the end-of-speech detection delay: from the last
	// voiced audio to the decision that the candidate's turn ended.
	EndOfUtteranceMs float64 `json:"end_of_utterance_ms,omitempty"`
	// STTFinalMs is from the end of speech to the final transcript.
	STTFinalMs float64 `json:"stt_final_ms,omitempty"`
	// LLMFirstTokenMs is from the LLM request to its first streamed token.
	LLMFirstTokenMs float64 `json:"llm_first_token_ms,omitempty"`
	// TTSFirstByteMs is from the first synthesis request to its first audio.
	TTSFirstByteMs float64 `json:"tts_first_byte_ms,omitempty"`
	// EndToEndMs is from the end of the candidate's speech to the first
	// agent audio frame written to the room.
	EndToEndMs float64 `json:"end_to_end_ms,omitempty"`
	// EndpointingRule is the rule that ended the candidate's turn (see
	// the Endpointing* constants); empty for typed turns.
	EndpointingRule string `json:"endpointing_rule,omitempty"`
	// EndpointingDelayMs is the silence the rule waited for.
	EndpointingDelayMs float64 `json:"endpointing_delay_ms,omitempty"`
	// BackchannelsIgnored counts the candidate's "mm-hm"s heard while
	// this turn played, which did not stop it.
	BackchannelsIgnored int `json:"backchannels_ignored,omitempty"`
	// FalseInterruptionsResumed counts the times this turn stopped for a
	// sound that brought no words and resumed from its sentence.
	FalseInterruptionsResumed int `json:"false_interruptions_resumed,omitempty"`
	// Preempted is true when the model's first answer to this turn was
	// generated while the endpointing delay ran, before the turn ended
	// (preemptive generation); LLMFirstTokenMs then counts only what was
	// left to wait after the turn ended.
	Preempted bool `json:"preempted,omitempty"`
}

// The rules that end a spoken candidate turn (TurnMetrics.EndpointingRule).
const (
	// EndpointingFinished: the transcript ended like a finished sentence
	// (the fast path).
	EndpointingFinished = "finished"
	// EndpointingThinking: the transcript ended mid-clause and the
	// candidate was given the thinking pause.
	EndpointingThinking = "thinking_pause"
	// EndpointingNeutral: the transcript gave no hint; the base delay.
	EndpointingNeutral = "base_delay"
)

// TurnTaking counts an interview's turn-taking events, so reviewers and
// operators see how patient the interviewer was.
type TurnTaking struct {
	// CutOffs are replies stopped and dropped because the candidate went
	// on speaking within a second of their start.
	CutOffs int `json:"cut_offs,omitempty"`
	// BackchannelsIgnored are "mm-hm"s and the like heard while the
	// interviewer spoke, which neither stopped it nor made a turn.
	BackchannelsIgnored int `json:"backchannels_ignored,omitempty"`
	// FalseInterruptionsResumed are replies stopped by a sound that
	// brought no words, then resumed from the sentence they were in.
	FalseInterruptionsResumed int `json:"false_interruptions_resumed,omitempty"`
	// CheckIns are the kind words said after a long silence.
	CheckIns int `json:"check_ins,omitempty"`
	// Repeats are questions repeated at the candidate's request.
	Repeats int `json:"repeats,omitempty"`
}

// CountTurnTaking applies f to the record's turn-taking counters,
// creating them on first use.
func (r *Record) CountTurnTaking(f func(*TurnTaking)) {
	if r.TurnTaking == nil {
		r.TurnTaking = &TurnTaking{}
	}
	f(r.TurnTaking)
}

// Assessment is the interviewer's judgement of an answer.
type Assessment struct {
	// QuestionID is the question the answer belongs to; empty when no
	// question was open.
	QuestionID string `json:"question_id,omitempty"`
	// Stage is the stage the answer was given in.
	Stage string `json:"stage"`
	// DepthScore rates the answer's depth from 1 (superficial) to 5 (expert).
	DepthScore int `json:"depth_score"`
	// KeyPoints are the points the answer made.
	KeyPoints []string `json:"key_points,omitempty"`
	// Guidance is what the interviewer was told to do next (follow up, go
	// deeper, move on).
	Guidance string `json:"guidance,omitempty"`
	// Declined is true when the candidate declined to answer (would rather
	// not say, confidential, did not know); DepthScore is then 0 and the
	// answer weighs in no average.
	Declined bool `json:"declined,omitempty"`
	// At is when the assessment was made.
	At time.Time `json:"at"`
}

// Engines names the engines an interview ran on ("openai:gpt-4o-mini",
// "scripted", "sphinx", …).
type Engines struct {
	// LLM is the language model engine.
	LLM string `json:"llm,omitempty"`
	// STT is the speech recogniser; empty for text-only interviews.
	STT string `json:"stt,omitempty"`
	// TTS is the speech synthesiser; empty for text-only interviews.
	TTS string `json:"tts,omitempty"`
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

// Start marks the interview in progress from at. It does nothing if the
// interview has already started.
func (r *Record) Start(at time.Time) {
	if r.StartedAt != nil {
		return
	}
	r.StartedAt = &at
	if !r.Status.Finished() {
		r.Status = StatusInProgress
	}
}

// AppendTurn adds t at the end of the turn list, numbering it one past the
// last turn (Seq 1 for the first), and returns a pointer to the stored turn
// so the caller can fill in its end time and metrics later. The pointer is
// valid until the next AppendTurn.
func (r *Record) AppendTurn(t Turn) *Turn {
	t.Seq = 1
	if n := len(r.Turns); n > 0 {
		t.Seq = r.Turns[n-1].Seq + 1
	}
	r.Turns = append(r.Turns, t)
	return &r.Turns[len(r.Turns)-1]
}

// EnterStage records entering stage name at the given time, closing the
// visit to the previous stage. forced marks a transition made by a deadline;
// reason says why the stage was entered.
func (r *Record) EnterStage(name, title string, at time.Time, forced bool, reason string) {
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt == nil {
		r.Stages[n-1].LeftAt = &at
		r.Stages[n-1].ExitReason = reason
	}
	r.Stages = append(r.Stages, StageVisit{Name: name, Title: title, EnteredAt: at, Forced: forced, Reason: reason})
}

// CandidateTurns counts the candidate's turns: the answers given.
func (r *Record) CandidateTurns() int {
	n := 0
	for _, t := range r.Turns {
		if t.Role == RoleCandidate {
			n++
		}
	}
	return n
}

// AnswerTurns counts the candidate's turns that answered a question: asides
// (a request to repeat, their own questions at the closing) left out.
func (r *Record) AnswerTurns() int {
	n := 0
	for _, t := range r.Turns {
		if t.Role == RoleCandidate && t.Aside == "" {
			n++
		}
	}
	return n
}

// CurrentStage returns the name of the stage the interview is in (the last
// one entered), or "" before the first.
func (r *Record) CurrentStage() string {
	if n := len(r.Stages); n > 0 {
		return r.Stages[n-1].Name
	}
	return ""
}

// Finish ends the interview at the given time with status (one of the
// finished statuses) and what ended it: it sets EndedAt, closes the open
// stage visit and sets FinalStage to the last stage entered (the terminal
// "done" state does not count). A record already finished keeps its first
// ending, so every exit path may call Finish safely.
func (r *Record) Finish(status Status, endedBy EndReason, at time.Time) {
	if r.Status.Finished() {
		return
	}
	r.Status = status
	r.EndedBy = endedBy
	r.EndedAt = &at
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt == nil {
		r.Stages[n-1].LeftAt = &at
	}
	for i := len(r.Stages) - 1; i >= 0; i-- {
		if r.Stages[i].Name != stages.Done {
			r.FinalStage = r.Stages[i].Name
			break
		}
	}
}

// Leave ends the interview as candidate_left at the given time, like
// Finish, and keeps it open for the candidate to rejoin until until (no
// window when until is not after at).
func (r *Record) Leave(at, until time.Time) {
	if r.Status.Finished() {
		return
	}
	r.Finish(StatusCandidateLeft, EndedCandidateLeft, at)
	if until.After(at) {
		r.RejoinUntil = &until
	}
	r.Absences = append(r.Absences, Absence{LeftAt: at})
}

// CanRejoin reports whether the candidate, having left, may still come
// back at now.
func (r *Record) CanRejoin(now time.Time) bool {
	return r.Status == StatusCandidateLeft && r.RejoinUntil != nil && now.Before(*r.RejoinUntil)
}

// Rejoin undoes Leave when the candidate has come back: the interview is in
// progress again, in the stage it was in, and the absence is closed. The
// session that keeps the window decides when it has passed, so only a
// closed window (CloseRejoin) makes Rejoin fail.
func (r *Record) Rejoin(at time.Time) error {
	if r.Status != StatusCandidateLeft || r.RejoinUntil == nil || r.EndedAt == nil {
		return fmt.Errorf("interview %s cannot be rejoined: it is %s", r.ID, r.Status)
	}
	left := *r.EndedAt
	r.Status = StatusInProgress
	r.EndedBy, r.EndedAt, r.FinalStage, r.RejoinUntil = "", nil, "", nil
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt != nil && r.Stages[n-1].LeftAt.Equal(left) {
		r.Stages[n-1].LeftAt = nil
	}
	if n := len(r.Absences); n > 0 && r.Absences[n-1].BackAt == nil {
		r.Absences[n-1].BackAt = &at
	}
	return nil
}

// Resumable reports whether a new session may continue the interview from
// its saved state: it started and its worker died (still in progress with
// no live lease, or failed by worker_crashed after a sweep), and it has not
// reached its end.
func (r *Record) Resumable() bool {
	if r.StartedAt == nil || len(r.Stages) == 0 || r.CurrentStage() == stages.Done {
		return false
	}
	return r.Status == StatusInProgress || (r.Status == StatusFailed && r.EndedBy == EndedWorkerCrashed)
}

// LastActivity is the latest time the record shows anything happening: the
// end of the last turn, the last stage entered, or the start; zero before
// the interview started. A sweep dates a crashed interview's end with it.
func (r *Record) LastActivity() time.Time {
	var last time.Time
	if r.StartedAt != nil {
		last = *r.StartedAt
	}
	if n := len(r.Turns); n > 0 {
		last = latest(last, r.Turns[n-1].StartedAt, r.Turns[n-1].EndedAt)
	}
	if n := len(r.Stages); n > 0 {
		last = latest(last, r.Stages[n-1].EnteredAt)
	}
	return last
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// Resume reopens an interview whose worker died (see Resumable) so a new
// session continues it at at: the record is in progress again in the
// stage it was in, and the time the interview stood still is kept as an
// absence. It fails when the record is not resumable.
func (r *Record) Resume(at time.Time) error {
	if !r.Resumable() {
		return fmt.Errorf("interview %s cannot be resumed: it is %s", r.ID, r.Status)
	}
	left := r.LastActivity()
	if r.EndedAt != nil {
		left = *r.EndedAt
	}
	if n := len(r.Stages); n > 0 && r.Stages[n-1].LeftAt != nil && r.Stages[n-1].LeftAt.Equal(left) {
		r.Stages[n-1].LeftAt = nil
	}
	r.Status = StatusInProgress
	r.EndedBy, r.EndedAt, r.FinalStage, r.Error = "", nil, "", ""
	back := latest(at, left)
	r.Absences = append(r.Absences, Absence{LeftAt: left, BackAt: &back})
	return nil
}

// CloseRejoin ends the window in which a candidate who left may come back.
func (r *Record) CloseRejoin() { r.RejoinUntil = nil }

// Duration is how long the interview has run: from StartedAt to EndedAt,
// or to now while it is in progress; zero before it started.
func (r *Record) Duration() time.Duration {
	return duration(r.Status, r.StartedAt, r.EndedAt)
}

func duration(s Status, started, ended *time.Time) time.Duration {
	switch {
	case started == nil:
		return 0
	case ended != nil:
		return max(ended.Sub(*started), 0)
	case s == StatusInProgress:
		return max(time.Since(*started), 0)
	}
	return 0
}

// Public returns a deep copy of r without the server-side texts (job
// description, résumé text and summary), for responses that leave the
// server.
func (r *Record) Public() *Record {
	c := r.Clone()
	c.JobDescription, c.ResumeText, c.ResumeSummary, c.Brief = "", "", "", ""
	return c
}

// TextsDropped notes that a record's server-side texts were removed.
type TextsDropped struct {
	// At is when they were removed.
	At time.Time `json:"at"`
	// Reason says why ("report ready").
	Reason string `json:"reason"`
}

// DropReasonReportReady is the TextsDropped.Reason of texts removed once
// the interview's report was written.
const DropReasonReportReady = "report ready"

// HasServerTexts reports whether r holds any of the server-side texts
// DropServerTexts removes.
func (r *Record) HasServerTexts() bool {
	return r.JobDescription != "" || r.ResumeText != "" || r.ResumeSummary != "" || r.Brief != ""
}

// DropServerTexts removes the server-side texts — the job description, the
// résumé text and its summary, a knowledge capture's brief — that served
// the interview and its report, and notes when and why. It reports whether
// there was anything to remove; a record without them is left as it is.
func (r *Record) DropServerTexts(at time.Time, reason string) bool {
	if !r.HasServerTexts() {
		return false
	}
	r.JobDescription, r.ResumeText, r.ResumeSummary, r.Brief = "", "", "", ""
	r.TextsDropped = &TextsDropped{At: at.UTC().Round(0), Reason: reason}
	return true
}

// Clone returns a deep copy of r that shares no memory with it, so a
// snapshot can be saved outside the lock that guards r.
func (r *Record) Clone() *Record {
	c := *r
	if r.TextsDropped != nil {
		d := *r.TextsDropped
		c.TextsDropped = &d
	}
	c.StartedAt = cloneTime(r.StartedAt)
	c.EndedAt = cloneTime(r.EndedAt)
	c.RejoinUntil = cloneTime(r.RejoinUntil)
	c.ExpiresAt = cloneTime(r.ExpiresAt)
	c.OpenedAt = cloneTime(r.OpenedAt)
	c.RevokedAt = cloneTime(r.RevokedAt)
	if r.Consent != nil {
		cs := *r.Consent
		c.Consent = &cs
	}
	c.Recordings = cloneEach(r.Recordings, func(rc *Recording) { rc.DeletedAt = cloneTime(rc.DeletedAt) })
	c.Absences = cloneEach(r.Absences, func(a *Absence) { a.BackAt = cloneTime(a.BackAt) })
	c.Stages = cloneEach(r.Stages, func(s *StageVisit) { s.LeftAt = cloneTime(s.LeftAt) })
	c.Turns = cloneEach(r.Turns, func(t *Turn) {
		t.QuestionIDs = slices.Clone(t.QuestionIDs)
		if t.Metrics != nil {
			m := *t.Metrics
			t.Metrics = &m
		}
	})
	c.Questions = cloneEach(r.Questions, func(q *stages.Question) { *q = q.Clone() })
	c.Assessments = cloneEach(r.Assessments, func(a *Assessment) { a.KeyPoints = slices.Clone(a.KeyPoints) })
	c.Incidents = slices.Clone(r.Incidents)
	c.Signals = slices.Clone(r.Signals)
	c.Mailings = slices.Clone(r.Mailings)
	if r.TurnTaking != nil {
		tt := *r.TurnTaking
		c.TurnTaking = &tt
	}
	c.Report = r.Report.Clone()
	c.Decisions = slices.Clone(r.Decisions)
	c.Audit = slices.Clone(r.Audit)
	if r.Engines != nil {
		e := *r.Engines
		c.Engines = &e
	}
	c.Skills = cloneEach(r.Skills, func(s *Skill) {
		s.Sources = slices.Clone(s.Sources)
		s.Evidence = slices.Clone(s.Evidence)
	})
	c.Gaps = cloneEach(r.Gaps, func(g *Gap) { g.QuestionIDs = slices.Clone(g.QuestionIDs) })
	c.Rubric = cloneEach(r.Rubric, func(f *RubricItem) { f.QuestionIDs = slices.Clone(f.QuestionIDs) })
	c.Answers = cloneEach(r.Answers, func(a *Answer) { a.Facts = slices.Clone(a.Facts) })
	c.Backlog = slices.Clone(r.Backlog)
	c.Phases = cloneEach(r.Phases, func(p *Phase) { p.Gaps = slices.Clone(p.Gaps) })
	if r.Exit != nil {
		e := *r.Exit
		c.Exit = &e
	}
	if r.Summary != nil {
		s := *r.Summary
		s.Topics = cloneEach(s.Topics, func(t *SummaryTopic) { t.Points = slices.Clone(t.Points) })
		c.Summary = &s
	}
	return &c
}

// cloneEach copies s element by element and lets deep give each copy its
// own memory where the element holds pointers or slices; nil stays nil.
func cloneEach[T any](s []T, deep func(*T)) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s))
	for i := range s {
		c[i] = s[i]
		deep(&c[i])
	}
	return c
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}

// maxCreatedByLen bounds Record.CreatedBy (an email address's limit).
const maxCreatedByLen = 254

// Validate checks that r is a well-formed record: a valid id and status, a
// candidate that passes Candidate.Validate, texts within their limits, stage
// visits and turns in order, unique question ids that turns and assessments
// refer to, depth scores from 1 to 5 and finite metrics. It returns every
// problem found, joined.
func (r *Record) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("interviews: record %q: "+format, append([]any{r.ID}, args...)...))
	}
	if !ValidID(r.ID) {
		bad("invalid id %q: use 1 to 64 lower-case letters, digits, '-' or '_', such as NewID returns", r.ID)
	}
	if !r.Status.Valid() {
		bad("invalid status %q: use one of %s", r.Status, joinStatuses())
	}
	if r.CreatedAt.IsZero() {
		bad("created_at is not set")
	}
	if len(r.CreatedBy) > maxCreatedByLen || CleanLine(r.CreatedBy) != r.CreatedBy {
		bad("created_by is not one line of at most %d bytes", maxCreatedByLen)
	}
	if err := r.Candidate.Validate(); err != nil {
		fe, _ := err.(FieldErrors)
		for _, f := range slices.Sorted(maps.Keys(fe)) {
			bad("candidate %s: %s", f, fe[f])
		}
	}
	if utf8.RuneCountInString(r.JobDescription) > MaxJobDescriptionLen {
		bad("job description is longer than %d characters", MaxJobDescriptionLen)
	}
	if utf8.RuneCountInString(r.Brief) > MaxBriefLen {
		bad("brief is longer than %d characters", MaxBriefLen)
	}
	if len(r.ResumeText) > MaxResumeTextLen {
		bad("résumé text is larger than %d bytes", MaxResumeTextLen)
	}
	if r.StartedAt != nil && r.EndedAt != nil && r.EndedAt.Before(*r.StartedAt) {
		bad("ended_at %s is before started_at %s", r.EndedAt.Format(time.RFC3339Nano), r.StartedAt.Format(time.RFC3339Nano))
	}
	if r.Status.Finished() && r.EndedAt == nil {
		bad("status %s needs ended_at: end the interview with Finish", r.Status)
	}
	if r.Consent != nil {
		if err := r.Consent.Validate(); err != nil {
			bad("%v", err)
		}
	}
	for i := range r.Recordings {
		if err := r.Recordings[i].Validate(); err != nil {
			bad("%v", err)
		}
	}
	if err := r.validateSignals(); err != nil {
		bad("%v", err)
	}
	if len(r.RevokedBy) > maxCreatedByLen || CleanLine(r.RevokedBy) != r.RevokedBy {
		bad("revoked_by is not one line of at most %d bytes", maxCreatedByLen)
	}
	for _, other := range []string{r.ReissuedAs, r.ReissuedFrom} {
		if other != "" && !ValidID(other) {
			bad("reissued_as/reissued_from %q is not an interview id", other)
		}
	}
	if r.RejoinUntil != nil && r.Status != StatusCandidateLeft {
		bad("rejoin_until is set but the interview is %s: only a candidate who left can rejoin", r.Status)
	}
	for i, s := range r.Stages {
		if s.Name == "" {
			bad("stage visit %d has no name", i+1)
		}
		if s.LeftAt != nil && s.LeftAt.Before(s.EnteredAt) {
			bad("stage visit %d (%s) left before it was entered", i+1, s.Name)
		}
		if s.LeftAt == nil && i < len(r.Stages)-1 {
			bad("stage visit %d (%s) was never left although a later stage was entered", i+1, s.Name)
		}
	}
	qids := make(map[string]bool, len(r.Questions))
	for i, q := range r.Questions {
		switch {
		case q.ID == "":
			bad("question %d has no id", i+1)
		case qids[q.ID]:
			bad("question id %q is used twice", q.ID)
		}
		qids[q.ID] = true
		if strings.TrimSpace(q.Text) == "" {
			bad("question %q has no text", q.ID)
		}
	}
	prev := 0
	for i, t := range r.Turns {
		if t.Seq <= prev {
			bad("turn %d has seq %d, not above the previous %d: add turns with AppendTurn", i+1, t.Seq, prev)
		}
		prev = t.Seq
		if !t.Role.Valid() {
			bad("turn %d has role %q: use agent or candidate", t.Seq, t.Role)
		}
		if !t.StartedAt.IsZero() && !t.EndedAt.IsZero() && t.EndedAt.Before(t.StartedAt) {
			bad("turn %d ended before it started", t.Seq)
		}
		for _, id := range t.QuestionIDs {
			if !qids[id] {
				bad("turn %d refers to unknown question %q", t.Seq, id)
			}
		}
		if m := t.Metrics; m != nil {
			for _, v := range []float64{m.EndOfUtteranceMs, m.STTFinalMs, m.LLMFirstTokenMs, m.TTSFirstByteMs, m.EndToEndMs, m.EndpointingDelayMs} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					bad("turn %d has a metric that is not a finite number", t.Seq)
					break
				}
			}
		}
	}
	for i, a := range r.Assessments {
		if a.DepthScore < 0 || a.DepthScore > 5 || a.DepthScore == 0 && !a.Declined {
			bad("assessment %d has depth score %d: use 1 to 5", i+1, a.DepthScore)
		}
		if a.QuestionID != "" && !qids[a.QuestionID] {
			bad("assessment %d refers to unknown question %q", i+1, a.QuestionID)
		}
	}
	if len(r.Incidents) > MaxIncidents {
		bad("%d incidents, more than %d: add them with AddIncident", len(r.Incidents), MaxIncidents)
	}
	for i, inc := range r.Incidents {
		if err := validateIncident(inc); err != nil {
			bad("incident %d %v", i+1, err)
		}
	}
	if r.Report != nil {
		if err := r.Report.Validate(); err != nil {
			bad("report: %v", err)
		}
	}
	for i, d := range r.Decisions {
		if !d.Decision.Valid() {
			bad("decision %d: %q is not advance, hold or reject", i+1, d.Decision)
		}
	}
	return errors.Join(errs...)
}

func joinStatuses() string {
	s := make([]string, len(Statuses))
	for i, st := range Statuses {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}
