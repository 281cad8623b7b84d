package interviews

import (
	"fmt"
	"slices"
	"time"
)

// SignalKind names one kind of integrity signal (Signal.Kind).
type SignalKind string

// The integrity signals. The room page reports the first two; the
// interviewer derives the last two from the timing of spoken answers.
const (
	// SignalFocusLost: the candidate's tab or window lost focus, for
	// Signal.Ms milliseconds.
	SignalFocusLost SignalKind = "focus_lost"
	// SignalPaste: text of Signal.Chars characters was pasted into the
	// answer box.
	SignalPaste SignalKind = "paste"
	// SignalLongSilence: an unusually long silence (Signal.Ms) before a
	// fluent spoken answer of Signal.Words words.
	SignalLongSilence SignalKind = "long_silence"
	// SignalReadingPace: a long spoken answer (Signal.Words words) given
	// at a steady reading pace (Signal.WPM words a minute) with few pauses.
	SignalReadingPace SignalKind = "reading_pace"
)

// SignalKinds lists every kind, in the order reviewers read them.
var SignalKinds = []SignalKind{SignalFocusLost, SignalPaste, SignalLongSilence, SignalReadingPace}

// Limits on what a record keeps of the signals, so a page that reports
// without end cannot grow a record.
const (
	// MaxSignals bounds the signals one record keeps; later ones are
	// counted in Record.SignalsDropped.
	MaxSignals = 200
	// MaxSignalMs bounds a duration: a day.
	MaxSignalMs = int64(24 * time.Hour / time.Millisecond)
	// MaxSignalChars bounds a pasted length.
	MaxSignalChars = 1 << 20
)

// Signal is something observed around one of the candidate's answers that
// a reviewer may read as context beside it. It is never a verdict: reports
// never score it and nothing decides on it. The candidate is told what is
// observed before they agree to the interview.
type Signal struct {
	// Kind says what was observed.
	Kind SignalKind `json:"kind"`
	// At is when it was observed (the room page's report arriving, or the
	// answer's start for the timing signals).
	At time.Time `json:"at"`
	// Turn is the Seq of the candidate turn it concerns: the answer given
	// while, or right after, it was observed; 0 while that answer has not
	// been given yet.
	Turn int `json:"turn,omitempty"`
	// Ms is a duration in milliseconds: how long focus was lost, or the
	// silence before the answer.
	Ms int64 `json:"ms,omitempty"`
	// Chars is the length of pasted text, in characters.
	Chars int `json:"chars,omitempty"`
	// Words is the answer's length in words (the timing signals).
	Words int `json:"words,omitempty"`
	// WPM is the answer's pace in words a minute (reading pace).
	WPM int `json:"wpm,omitempty"`
}

// Validate checks that s is a known kind with figures in range.
func (s *Signal) Validate() error {
	switch {
	case !s.Kind.Valid():
		return fmt.Errorf("signal kind %q is not one of %v", s.Kind, SignalKinds)
	case s.At.IsZero():
		return fmt.Errorf("%s signal has no time", s.Kind)
	case s.Turn < 0:
		return fmt.Errorf("%s signal names turn %d", s.Kind, s.Turn)
	case s.Ms < 0 || s.Ms > MaxSignalMs:
		return fmt.Errorf("%s signal lasts %d ms: between 0 and %d", s.Kind, s.Ms, MaxSignalMs)
	case s.Chars < 0 || s.Chars > MaxSignalChars:
		return fmt.Errorf("%s signal has %d characters: between 0 and %d", s.Kind, s.Chars, MaxSignalChars)
	case s.Words < 0 || s.WPM < 0:
		return fmt.Errorf("%s signal has a negative count", s.Kind)
	}
	return nil
}

// Valid reports whether k is one of SignalKinds.
func (k SignalKind) Valid() bool {
	return slices.Contains(SignalKinds, k)
}

// AddSignal keeps s in the record, unless it already holds MaxSignals
// (then it counts it in SignalsDropped); it reports whether s was kept.
func (r *Record) AddSignal(s Signal) bool {
	if len(r.Signals) >= MaxSignals {
		r.SignalsDropped++
		return false
	}
	r.Signals = append(r.Signals, s)
	return true
}

// AttachSignals makes every signal still waiting for its answer (Turn 0)
// concern the candidate turn seq: what happened while the candidate was
// preparing it.
func (r *Record) AttachSignals(seq int) {
	for i := range r.Signals {
		if r.Signals[i].Turn == 0 {
			r.Signals[i].Turn = seq
		}
	}
}

// SignalsOf returns the signals that concern the candidate turn seq, in
// the order they were observed.
func (r *Record) SignalsOf(seq int) []Signal {
	var out []Signal
	for _, s := range r.Signals {
		if s.Turn == seq {
			out = append(out, s)
		}
	}
	return out
}

// Describe says the signal in words for a reviewer, as context: "The
// interview tab was in the background for 42 s".
func (s Signal) Describe() string {
	switch s.Kind {
	case SignalFocusLost:
		return "The interview tab or window lost focus for " + describeMs(s.Ms) + "."
	case SignalPaste:
		return fmt.Sprintf("Text of %d characters was pasted into the answer box.", s.Chars)
	case SignalLongSilence:
		return fmt.Sprintf("A silence of %s came before a fluent answer of %d words.", describeMs(s.Ms), s.Words)
	case SignalReadingPace:
		return fmt.Sprintf("The answer (%d words) was spoken at a steady reading pace, about %d words a minute, with few pauses.", s.Words, s.WPM)
	}
	return string(s.Kind)
}

// describeMs says a duration in whole seconds or minutes and seconds.
func describeMs(ms int64) string {
	d := (time.Duration(ms) * time.Millisecond).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d/time.Second))
	}
	return fmt.Sprintf("%d min %d s", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// validateSignals checks every signal and their number.
func (r *Record) validateSignals() error {
	if len(r.Signals) > MaxSignals {
		return fmt.Errorf("%d signals: at most %d", len(r.Signals), MaxSignals)
	}
	for i := range r.Signals {
		if err := r.Signals[i].Validate(); err != nil {
			return fmt.Errorf("signal %d: %w", i+1, err)
		}
	}
	return nil
}
