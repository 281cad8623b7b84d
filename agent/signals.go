package agent

import (
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// What the interviewer notes about the timing of a spoken answer, as
// context for the reviewer (interviews.Signal): never a verdict. The
// figures come from what the turn already measured (when the question
// finished playing, the speech's onset and end, how many bursts of speech
// the answer took) and cost the turn nothing.
const (
	// longSilence is the silence, from the end of the question to the
	// first word, that counts as unusually long...
	longSilence = 8 * time.Second
	// ...before an answer of at least fluentWords words spoken at
	// fluentWPM or faster with few pauses (fluentWordsPerBurst).
	fluentWords         = 25
	fluentWPM           = 120
	fluentWordsPerBurst = 12
	// readingWords is the shortest answer judged for a reading pace: at
	// least this many words, between readingMinWPM and readingMaxWPM,
	// readingWordsPerBurst words or more between pauses on average.
	readingWords         = 40
	readingMinWPM        = 140
	readingMaxWPM        = 200
	readingWordsPerBurst = 20
)

// answerTiming is what is known of a spoken answer's timing.
type answerTiming struct {
	// QuestionEnded is when the interviewer's turn before it finished
	// playing; zero when unknown (it was cut off, or there was none).
	QuestionEnded time.Time
	// Started and Ended bound the candidate's speech.
	Started, Ended time.Time
	// Bursts is how many times the candidate started speaking in the
	// turn (1 for an answer without a pause the detector heard).
	Bursts int
	// Text is the transcript.
	Text string
}

// timingSignals are the signals the timing of a spoken answer shows: an
// unusually long silence before a fluent answer, and a long answer given
// at a steady reading pace with few pauses. None for a typed answer.
func timingSignals(a answerTiming) []interviews.Signal {
	words := len(strings.Fields(a.Text))
	speech := a.Ended.Sub(a.Started)
	if words == 0 || speech <= 0 || a.Started.IsZero() {
		return nil
	}
	bursts := max(a.Bursts, 1)
	wpm := int(float64(words) / speech.Minutes())
	perBurst := words / bursts
	var out []interviews.Signal
	if !a.QuestionEnded.IsZero() {
		silence := a.Started.Sub(a.QuestionEnded)
		if silence >= longSilence && words >= fluentWords && wpm >= fluentWPM && perBurst >= fluentWordsPerBurst {
			out = append(out, interviews.Signal{Kind: interviews.SignalLongSilence, At: a.Started,
				Ms: silence.Milliseconds(), Words: words})
		}
	}
	if words >= readingWords && wpm >= readingMinWPM && wpm <= readingMaxWPM && perBurst >= readingWordsPerBurst {
		out = append(out, interviews.Signal{Kind: interviews.SignalReadingPace, At: a.Started, Words: words, WPM: wpm})
	}
	return out
}

// questionEnded is when the last interviewer turn of rec finished
// playing, zero when it was cut off or there is none.
func questionEnded(rec *interviews.Record) time.Time {
	for i := len(rec.Turns) - 1; i >= 0; i-- {
		t := rec.Turns[i]
		if t.Role != interviews.RoleAgent {
			continue
		}
		if t.Interrupted {
			return time.Time{}
		}
		return t.EndedAt
	}
	return time.Time{}
}

// notice files the signals concerning the candidate turn seq of rec: the
// room page's reports waiting for their answer, and the timing of a
// spoken answer (asked is when the question before it finished playing).
func notice(rec *interviews.Record, seq int, in CandidateTurn, asked time.Time) {
	rec.AttachSignals(seq)
	if in.Source != SourceVoice {
		return
	}
	for _, s := range timingSignals(answerTiming{QuestionEnded: asked, Started: in.StartedAt, Ended: in.EndedAt, Bursts: in.Bursts, Text: in.Text}) {
		s.Turn = seq
		rec.AddSignal(s)
	}
}
