package interviews

import "time"

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
	// STTConfidence is the speech recogniser's confidence (0–1) in a
	// spoken candidate turn's text, the lowest of its pieces; 0 when the
	// engine reports none or the turn was typed. See Turn.Heard.
	STTConfidence float64 `json:"stt_confidence,omitempty"`
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

// Endpointing is how a spoken candidate turn was ended, as the listener
// measured it; the agent turn that answers keeps it in its TurnMetrics.
type Endpointing struct {
	// EndOfUtterance is end of speech → turn committed (the rule's delay
	// plus any wait for the STT final).
	EndOfUtterance time.Duration
	// STTFinal is end of speech → the last STT final of the turn (zero
	// when the final came before the end of speech).
	STTFinal time.Duration
	// Rule is the rule that ended the turn (one of the Endpointing*
	// constants) and Delay the silence it waited for.
	Rule  string
	Delay time.Duration
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
