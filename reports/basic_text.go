package reports

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// FillerPhrases are the filler words and phrases counted in the
// candidate's turns, matched on whole words, ignoring case. "like" counts
// only when a comma follows it ("it was, like, slow"), the way it is used
// as a filler rather than a verb.
var FillerPhrases = []string{"um", "uh", "er", "erm", "like,", "i mean", "you know", "sort of", "kind of", "basically", "actually"}

// token is one word of a text, lower case, and whether a comma follows it.
type token struct {
	word  string
	comma bool
}

// isWordRune reports whether r belongs to a word: letters, digits and
// apostrophes ("don't").
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
}

// tokens splits text into lower-case words.
func tokens(text string) []token {
	var out []token
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, token{word: b.String()})
			b.Reset()
		}
	}
	for _, r := range text {
		switch {
		case isWordRune(r):
			if r == '’' {
				r = '\''
			}
			b.WriteRune(unicode.ToLower(r))
		case r == ',':
			flush()
			if n := len(out); n > 0 {
				out[n-1].comma = true
			}
		default:
			flush()
		}
	}
	flush()
	return out
}

// phrase is a filler phrase as words; comma says its last word must be
// followed by a comma.
type phrase struct {
	words []string
	comma bool
}

// fillerPatterns are FillerPhrases as word sequences.
var fillerPatterns = func() []phrase {
	out := make([]phrase, len(FillerPhrases))
	for i, f := range FillerPhrases {
		out[i] = phrase{words: strings.Fields(strings.TrimSuffix(f, ",")), comma: strings.HasSuffix(f, ",")}
	}
	return out
}()

// countFillers counts the filler phrases in text, each word used by one
// phrase at most, and returns the count with the phrases found (each
// once, in the order first found).
func countFillers(text string) (int, []string) {
	toks := tokens(text)
	n := 0
	var found []string
	for i := 0; i < len(toks); {
		matched := 0
		for k, p := range fillerPatterns {
			if matchAt(toks, i, p) {
				matched = len(p.words)
				n++
				if f := strings.TrimSuffix(FillerPhrases[k], ","); !slices.Contains(found, f) {
					found = append(found, f)
				}
				break
			}
		}
		i += max(matched, 1)
	}
	return n, found
}

func matchAt(toks []token, i int, p phrase) bool {
	if i+len(p.words) > len(toks) {
		return false
	}
	for j, w := range p.words {
		if toks[i+j].word != w {
			return false
		}
	}
	return !p.comma || toks[i+len(p.words)-1].comma
}

// wordCount counts the words of text.
func wordCount(text string) int { return len(tokens(text)) }

// normalized is text as lower-case words separated by single spaces, with
// a space at each end, so " phrase " finds whole-word phrases.
func normalized(text string) string {
	toks := tokens(text)
	var b strings.Builder
	b.WriteByte(' ')
	for _, t := range toks {
		b.WriteString(t.word)
		b.WriteByte(' ')
	}
	return b.String()
}

// hasAny reports whether the normalized text holds any of the phrases as
// whole words.
func hasAny(norm string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(norm, " "+p+" ") {
			return true
		}
	}
	return false
}

// figurePattern finds a figure worth quoting: a number with a unit or a
// percentage ("40%", "3 weeks", "2x", "10k users", "$200").
var figurePattern = regexp.MustCompile(`(?i)(\$\s?\d|\d[\d,.]*\s?(%|percent|x\b|times\b|ms\b|milliseconds|seconds|minutes|hours|days|weeks|months|years|users|customers|people|engineers|requests|k\b|m\b|million|thousand|billion))`)

// hasFigure reports whether text states a figure.
func hasFigure(text string) bool { return figurePattern.MatchString(text) }

// sentenceEnd splits text into sentences.
var sentenceEnd = regexp.MustCompile(`[.!?]+(\s+|$)`)

// sentences returns the sentences of text, trimmed, each a substring of
// text.
func sentences(text string) []string {
	var out []string
	start := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		if s := strings.TrimSpace(text[start : loc[0]+trailingPunct(text[loc[0]:loc[1]])]); s != "" {
			out = append(out, s)
		}
		start = loc[1]
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// trailingPunct is the length of the punctuation at the start of a
// sentence end ("." of ". ").
func trailingPunct(end string) int { return len(strings.TrimRightFunc(end, unicode.IsSpace)) }

// maxQuoteBytes bounds a quote: long sentences are cut at a word.
const maxQuoteBytes = 220

// clipQuote shortens a sentence to maxQuoteBytes at a word boundary; the
// result stays a substring of the sentence.
func clipQuote(s string) string {
	if len(s) <= maxQuoteBytes {
		return s
	}
	cut := strings.LastIndexByte(s[:maxQuoteBytes], ' ')
	if cut <= 0 {
		cut = maxQuoteBytes
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:")
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// pickSentence returns the first sentence of text that pred accepts,
// clipped, or "" when none does.
func pickSentence(text string, pred func(string) bool) string {
	for _, s := range sentences(text) {
		if pred(s) {
			return clipQuote(s)
		}
	}
	return ""
}

// longestSentence returns the longest sentence of text, clipped.
func longestSentence(text string) string {
	best := ""
	for _, s := range sentences(text) {
		if len(s) > len(best) {
			best = s
		}
	}
	return clipQuote(best)
}
