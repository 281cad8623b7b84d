// Package words holds the English word handling the interviewer's text
// rules share, written once: splitting text into lower-case words, the
// normal form two texts are compared in, and the stop words, the function
// words that carry no content on their own.
//
// Each rule that needs more adds its own named set beside Stop (the filler
// verbs of a question, the fillers of speech, the common words of an
// answer), so what a word list is for stays visible where it is used.
package words

import (
	"strings"
	"unicode"
)

// Split returns the lower-case runs of letters and digits of s;
// everything else (punctuation, apostrophes, hyphens, spaces) separates
// words: "Don't re-run it!" gives don, t, re, run, it.
func Split(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Normal is s as Split's words separated by single spaces: the form in
// which two texts, or a text and a phrase it may contain, are compared.
func Normal(s string) string { return strings.Join(Split(s), " ") }

// IsStop reports whether w, in lower case, is a stop word.
func IsStop(w string) bool { return stop[w] }

// stop are English function words (articles, pronouns, prepositions,
// conjunctions, auxiliaries), whole and as the fragments Split leaves of
// their contractions (don, t, s, ll, ve, re …).
var stop = Set(`a about above across after again against all also am among an and any are as at be because been
before being below between both but by can could did do does doing don't down during each few for from further
had has have having he her here hers herself him himself his how i i'd i'll i'm i've if in into is it it's its
itself just let let's lets me more most my myself no nor not now of off on once only or other our ours ourselves
out over own same she should so some such than that that's the their theirs them themselves then there these
they this those through to too under until up us very versus vs was we we're were what when where which while
who whom why will with within without would you your yours yourself yourselves
s t d m ll ve re don didn doesn isn aren wasn weren won shouldn couldn wouldn`)

// Set makes a set of the words of list, separated by white space.
func Set(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}
