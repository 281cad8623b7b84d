package voice

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews"
)

// Adaptive endpointing. After the candidate stops speaking the Listener
// waits before committing the turn; how long depends on how the transcript
// so far ends:
//
//   - unfinished: its last word is a hesitation ("um", "uh", "er", "hmm",
//     "mm", "ah", and the "m" pocketsphinx writes for "um") or a
//     conjunction ("and", "but", "because", "so", "or"), whatever the
//     punctuation: "a ledger service and m." is someone thinking, not a
//     finished sentence. Two exceptions keep a finished sentence finished:
//     "so" after a verb of opinion or an adverb ("I think so.", "if so.",
//     "even so."), and "or?" (a tag question: "the backend, or?"). It is
//     also unfinished when it ends with a comma, semicolon, colon, dash or
//     ellipsis, or, with no final punctuation, with a word that leaves a
//     clause hanging ("the", "to", "with", "was", …) → the thinking pause
//     (ListenerOptions.ThinkingPause, 2.5 s by default: the candidate is
//     given room to think), or UnfinishedFactor × base when there is none;
//   - finished: it ends with "?", "!" or "." (not an ellipsis) otherwise →
//     FinishedFactor × base (300 ms with the default 500 ms base);
//   - anything else (engines that do not punctuate) → base.
//
// The result is clamped to [EndpointingMin, EndpointingMax]; the thinking
// pause is not clamped from above.
const (
	// FinishedFactor scales the endpointing delay after text that ends
	// like a finished sentence.
	FinishedFactor = 0.6
	// UnfinishedFactor scales the endpointing delay after text that ends
	// mid-thought.
	UnfinishedFactor = 2.0
)

// hesitations are the sounds of someone thinking aloud. pocketsphinx,
// which has no word for them, writes "um" as "m", "mm" or "hm".
var hesitations = map[string]bool{
	"um": true, "umm": true, "uhm": true, "uh": true, "uhh": true, "er": true, "erm": true, "err": true,
	"hmm": true, "hm": true, "hmmm": true, "mm": true, "mmm": true, "m": true, "ah": true, "ahh": true,
}

// conjunctions join the clause just said to one not said yet.
var conjunctions = map[string]bool{
	"and": true, "but": true, "or": true, "nor": true, "so": true,
	"because": true, "cause": true, "'cause": true, "cos": true,
}

// soAdverbs make a final "so" an adverb that ends the sentence ("I think
// so.", "if so.", "even so.") rather than a conjunction.
var soAdverbs = map[string]bool{
	"think": true, "thought": true, "hope": true, "guess": true, "believe": true, "suppose": true,
	"say": true, "said": true, "told": true, "expect": true, "imagine": true, "fear": true, "reckon": true,
	"do": true, "did": true, "does": true, "not": true, "if": true, "even": true, "more": true,
	"less": true, "just": true, "why": true, "hardly": true,
}

// continuationWords end a transcript that is probably not finished when
// the engine does not punctuate (hesitations and conjunctions count
// whatever the punctuation).
var continuationWords = map[string]bool{
	"like": true, "the": true, "a": true, "an": true, "to": true,
	"of": true, "with": true, "my": true, "then": true, "if": true,
	// A clause left hanging: "…and the main reason was", "so basically".
	"was": true, "is": true, "were": true, "are": true, "that": true, "which": true,
	"for": true, "in": true, "on": true, "at": true, "by": true, "from": true, "about": true,
	"basically": true, "actually": true, "also": true, "when": true, "where": true,
	"than": true, "as": true, "our": true, "their": true, "this": true, "would": true,
	"could": true, "should": true, "will": true, "can": true, "we": true, "i": true,
}

// delay returns how long to wait after the end of speech before
// committing a turn whose transcript so far is text, and the rule.
func (e *endpointer) delay(text string) (time.Duration, string) {
	end := classifyEnding(text)
	d := delayFor(end, e.baseDelay, e.minDelay, e.maxDelay)
	switch end {
	case endingUnfinished:
		if e.thinkingPause > 0 {
			d = max(e.thinkingPause, e.minDelay)
		}
		return d, interviews.EndpointingThinking
	case endingFinished:
		return d, interviews.EndpointingFinished
	}
	return d, interviews.EndpointingNeutral
}

// endpointingDelay returns how long to wait after the end of speech before
// committing a turn whose transcript so far is text.
func endpointingDelay(text string, base, lo, hi time.Duration) time.Duration {
	return delayFor(classifyEnding(text), base, lo, hi)
}

// delayFor is endpointingDelay for a transcript already classified.
func delayFor(end ending, base, lo, hi time.Duration) time.Duration {
	d := base
	switch end {
	case endingFinished:
		d = time.Duration(float64(base) * FinishedFactor)
	case endingUnfinished:
		d = time.Duration(float64(base) * UnfinishedFactor)
	}
	return min(max(d, lo), hi)
}

type ending int

const (
	endingNeutral ending = iota
	endingFinished
	endingUnfinished
)

func classifyEnding(text string) ending {
	t := strings.TrimRightFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`"'”’»)]`, r)
	})
	if t == "" {
		return endingNeutral
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	word, rest := lastWord(t)
	before, _ := lastWord(rest)
	adverbialSo := word == "so" && soAdverbs[before]
	switch {
	case hesitations[word],
		conjunctions[word] && !adverbialSo && (word != "or" || last != '?'):
		return endingUnfinished
	case strings.HasSuffix(t, "...") || strings.HasSuffix(t, "…"):
		return endingUnfinished
	}
	switch last {
	case '?', '!', '.':
		return endingFinished
	case ',', ';', ':', '-', '–', '—':
		return endingUnfinished
	}
	if continuationWords[word] {
		return endingUnfinished
	}
	return endingNeutral
}

// lastWord returns the last word of t, lower-cased (a run of letters,
// apostrophes and inner hyphens: "mm-hm" is one word), and the text
// before it.
func lastWord(t string) (word, rest string) {
	end := len(t)
	for end > 0 {
		r, n := utf8.DecodeLastRuneInString(t[:end])
		if unicode.IsLetter(r) {
			break
		}
		end -= n
	}
	start := end
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(t[:start])
		if r == '-' {
			if p, _ := utf8.DecodeLastRuneInString(t[:start-n]); !unicode.IsLetter(p) {
				break
			}
		} else if !unicode.IsLetter(r) && r != '\'' {
			break
		}
		start -= n
	}
	return strings.ToLower(t[start:end]), t[:start]
}

// endpointer decides when the candidate's turn has ended: an STT final
// with text has arrived and the candidate has been silent, since the end
// of the last voiced frame, for the adaptive endpointing delay. Speech
// resuming first cancels the pending end, and finals accumulate into one
// turn until then. Finals that arrive with no voice activity since the
// last turn count the delay from the first such final.
//
// It keeps no clock and no timer: the caller passes the time and arms a
// timer for the wait decide returns.
type endpointer struct {
	// baseDelay, minDelay and maxDelay are the arguments of
	// endpointingDelay.
	baseDelay, minDelay, maxDelay time.Duration
	// thinkingPause replaces the delay after an unfinished clause when
	// above zero.
	thinkingPause time.Duration
	// thinking is true while decide waits out a thinking pause.
	thinking bool

	speechActive      bool
	speechSinceCommit bool      // voice activity since the last turn
	lastVoiceEnd      time.Time // end of the last voiced frame
	turn              []string  // finals of the pending turn
	confidence        float64   // the lowest confidence of turn's finals; 0 once one had none
	firstFinalAt      time.Time
	lastFinalAt       time.Time
}

// speechStarted notes voice activity; no turn ends while it lasts.
func (e *endpointer) speechStarted() {
	e.speechActive = true
}

// speechEnded notes the end of voice activity; end is the end of the last
// voiced frame.
func (e *endpointer) speechEnded(end time.Time) {
	e.speechActive = false
	e.speechSinceCommit = true
	e.lastVoiceEnd = end
}

// final adds a final transcript with text, which arrived at with the
// recogniser's confidence (0 for none), to the pending turn.
func (e *endpointer) final(text string, at time.Time, confidence float64) {
	if len(e.turn) == 0 {
		e.firstFinalAt, e.confidence = at, confidence
	}
	e.confidence = min(e.confidence, confidence)
	e.turn = append(e.turn, text)
	e.lastFinalAt = at
}

// decide returns, at now, either the turn to commit (commit true; the
// pending turn is then cleared) or how long to wait before deciding again,
// with turn.Text the turn that will end unless the candidate goes on
// (wait 0: nothing is pending, or speech is active).
func (e *endpointer) decide(now time.Time) (turn EndOfTurn, commit bool, wait time.Duration) {
	e.thinking = false
	if e.speechActive || len(e.turn) == 0 {
		return EndOfTurn{}, false, 0
	}
	ref := e.firstFinalAt
	if e.speechSinceCommit {
		ref = e.lastVoiceEnd
	}
	text := strings.Join(e.turn, " ")
	delay, rule := e.delay(text)
	deadline := ref.Add(delay)
	if now.Before(deadline) {
		// Not yet: turn.Text is the turn that ends unless they go on.
		e.thinking = rule == interviews.EndpointingThinking
		return EndOfTurn{Text: text}, false, deadline.Sub(now)
	}
	turn = EndOfTurn{Text: text, FinalAt: e.lastFinalAt, CommittedAt: now, STTConfidence: e.confidence}
	turn.Metrics.Rule, turn.Metrics.Delay = rule, delay
	if e.speechSinceCommit {
		turn.SpeechEndedAt = e.lastVoiceEnd
		turn.Metrics.EndOfUtterance = now.Sub(e.lastVoiceEnd)
		turn.Metrics.STTFinal = max(0, e.lastFinalAt.Sub(e.lastVoiceEnd))
	}
	clear(e.turn)
	e.turn = e.turn[:0]
	e.speechSinceCommit = false
	e.firstFinalAt, e.lastFinalAt = time.Time{}, time.Time{}
	return turn, true, 0
}
