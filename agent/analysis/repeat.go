package analysis

import (
	"regexp"
	"strings"
)

// maxRepeatWords bounds a repeat request: a long answer that happens to
// contain "say that again" is an answer.
const maxRepeatWords = 12

// Requests to hear the question again, matched on the utterance's words
// in lower case, single-spaced, without punctuation.
var (
	// repeatAsked are requests anywhere in a short utterance: "sorry,
	// could you repeat the question?", "can you say that again".
	repeatAsked = regexp.MustCompile(`\b(?:could|can|would|will|do) you (?:please |just |maybe )?(?:mind )?(?:repeat|rephrase|say (?:that|it|this|the question) again|say again|ask (?:that|it|the question) again)` +
		`|\bplease (?:repeat|rephrase|say (?:that|it) again)` +
		`|\b(?:repeat|rephrase) (?:the|your|that|this) (?:last )?question\b` +
		`|\bsay (?:that|it|the question) again\b` +
		`|\bwhat (?:was|is) (?:the|your|that) (?:last )?question\b` +
		`|\bi (?:didn't|did not|couldn't|could not|don't think i) (?:quite |really )?(?:catch|hear|get) (?:that|the question|what you said|you|the last part|your question)\b` +
		`|\bi missed (?:that|the question|your question|the last part)\b`)
	// repeatAlone are requests that are the whole utterance, after any
	// "sorry" or "excuse me": "Pardon?", "Sorry, come again?", "What?".
	repeatAlone = regexp.MustCompile(`^(?:(?:i'm |oh |um |uh |so )?(?:sorry|excuse me|pardon)(?: me)? )*` +
		`(?:come again|pardon|pardon me|sorry|excuse me|what|huh|what was that|say again|again|one more time|repeat|repeat that|repeat it)(?: please)?$`)
)

// IsRepeatRequest reports whether text asks to hear the last question
// again ("Could you repeat the question?", "Sorry, can you say that
// again?", "Pardon?"). Such a turn is not an answer: it fills nothing and
// the question stays open.
func IsRepeatRequest(text string) bool {
	toks := tokenize(text)
	if len(toks) == 0 || len(toks) > maxRepeatWords {
		return false
	}
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.lower
	}
	n := strings.Join(words, " ")
	return repeatAsked.MatchString(n) || repeatAlone.MatchString(n)
}
