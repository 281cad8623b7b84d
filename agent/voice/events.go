package voice

import (
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// Event is one thing the Listener noticed. The concrete types are
// SpeechStarted, SpeechEnded, Transcript, Interruption and EndOfTurn; a
// type switch tells them apart.
type Event interface {
	// EventTime is when the event happened (see each type's At).
	EventTime() time.Time
	isEvent()
}

// SpeechStarted says the voice activity detector heard the candidate start
// speaking.
type SpeechStarted struct {
	// At is the estimated onset: the start of the first voiced frame of the
	// detection window, not the (MinSpeech later) moment of the decision.
	At time.Time
}

// SpeechEnded says the candidate stopped speaking: MinSilence of unvoiced
// audio followed the last voiced frame.
type SpeechEnded struct {
	// At is the end of the last voiced frame (not the decision, which comes
	// MinSilence later).
	At time.Time
}

// Transcript is a caption update from the STT engine.
type Transcript struct {
	// SegmentID is the same for every interim update of one piece of speech
	// and for its final; the next piece gets a new one. It is unique per
	// Listener and suitable as a caption segment id.
	SegmentID string
	// Text is the transcript; a final may be empty when the engine settled
	// on nothing after showing interim text (it clears the caption).
	Text string
	// Final means the text of this segment will not change again.
	Final bool
	// At is when the engine produced the result.
	At time.Time
}

// LikelyEndOfTurn says the candidate has stopped on a finished answer and
// the endpointing delay is running: unless they go on, Text is the turn
// that will end when the delay has passed. A model may start on it
// (preemptive generation); nothing may be said before the EndOfTurn. It is
// emitted once per text, never while the candidate pauses to think.
type LikelyEndOfTurn struct {
	Text string
	At   time.Time
}

// Interruption says the candidate has been speaking over the agent for at
// least the interrupt threshold: the session should stop the agent's audio.
// It is emitted at most once per agent utterance (see
// Listener.SetAgentSpeaking).
type Interruption struct {
	// At is the moment of the decision.
	At time.Time
	// Speech is how much voiced audio the candidate produced while the agent
	// was speaking, up to the decision.
	Speech time.Duration
}

// ThinkingPause says the candidate stopped mid-clause and the Listener
// waits out the thinking pause before taking the turn: a room may show
// "Take your time". It is emitted once per pause.
type ThinkingPause struct {
	// At is when the wait began.
	At time.Time
}

// EventTime returns At.
func (e ThinkingPause) EventTime() time.Time { return e.At }

// EventTime returns At.
func (e LikelyEndOfTurn) EventTime() time.Time { return e.At }

func (ThinkingPause) isEvent()   {}
func (LikelyEndOfTurn) isEvent() {}

// EndOfTurn says the candidate finished a turn: the session should answer
// Text.
type EndOfTurn struct {
	// Text is every final transcript of the turn, joined by spaces.
	Text string
	// SpeechEndedAt is the end of the candidate's last voiced frame; zero if
	// the detector heard no speech for this turn (the STT did).
	SpeechEndedAt time.Time
	// FinalAt is when the last STT final of the turn arrived.
	FinalAt time.Time
	// CommittedAt is when the turn was committed.
	CommittedAt time.Time
	// Metrics are how the turn was ended and its latencies.
	Metrics interviews.Endpointing
	// STTConfidence is the recogniser's confidence (0–1) in Text: the
	// lowest of its finals', 0 when any final came without one.
	STTConfidence float64
}

// STTStopped says the speech recogniser's stream ended on its own (the
// service went away and could not be reached again): no more transcripts
// will come from this Listener.
type STTStopped struct {
	// At is when the end was noticed.
	At time.Time
}

// EventTime returns At.
func (e STTStopped) EventTime() time.Time { return e.At }

// EventTime returns At.
func (e SpeechStarted) EventTime() time.Time { return e.At }

// EventTime returns At.
func (e SpeechEnded) EventTime() time.Time { return e.At }

// EventTime returns At.
func (e Transcript) EventTime() time.Time { return e.At }

// EventTime returns At.
func (e Interruption) EventTime() time.Time { return e.At }

// EventTime returns CommittedAt.
func (e EndOfTurn) EventTime() time.Time { return e.CommittedAt }

func (SpeechStarted) isEvent() {}
func (SpeechEnded) isEvent()   {}
func (Transcript) isEvent()    {}
func (Interruption) isEvent()  {}
func (EndOfTurn) isEvent()     {}
func (STTStopped) isEvent()    {}
