package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viva-interviews/viva/internal/words"
)

// token is one word or number of a text.
type token struct {
	// lower is the token in lower case, with typographic apostrophes made
	// plain.
	lower string
	// start and end are its byte offsets in the text.
	start, end int
}

// tokenize splits text into words and numbers. Apostrophes inside words
// stay ("don't", "I'm"); digits keep their currency sign, separators and
// suffixes ("$1,200", "1.5k", "40%", "5+"); hyphens split ("twenty-five").
func tokenize(text string) []token {
	toks := make([]token, 0, len(text)/5+1)
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		startsNumber := (r == '$' || r == '€' || r == '£' || r == '~') && i+size < len(text) && isDigit(text[i+size])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !startsNumber {
			i += size
			continue
		}
		start := i
		numeric := unicode.IsDigit(r) || startsNumber
		i += size
		for i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				i += size
				continue
			case (r == '\'' || r == '’') && !numeric && i+size < len(text) && isLetterAt(text, i+size):
				i += size
				continue
			case (r == ',' || r == '.') && numeric && i+1 < len(text) && isDigit(text[i+1]) && isDigit(text[i-1]):
				i += size
				continue
			case (r == '%' || r == '+') && numeric:
				i += size
			}
			break
		}
		toks = append(toks, token{lower: lowerWord(text[start:i]), start: start, end: i})
	}
	return toks
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isLetterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// lowerWord lower-cases a token and makes its apostrophes plain.
func lowerWord(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(w); i++ {
			if c := w[i]; c >= 'A' && c <= 'Z' {
				return strings.ToLower(w)
			}
		}
		return w
	}
	return strings.ReplaceAll(strings.ToLower(w), "’", "'")
}

// span is a stretch of text by byte offsets.
type span struct{ start, end int }

// sentences splits text into sentences at ., !, ?, ; and line breaks
// (a full stop inside a number or a name like "Node.js" does not split).
func sentences(text string) []span {
	var out []span
	start := 0
	flush := func(end int) {
		s := strings.TrimSpace(text[start:end])
		if s != "" {
			off := start + strings.Index(text[start:end], s)
			out = append(out, span{off, off + len(s)})
		}
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '.', '!', '?', ';':
			if i+1 < len(text) && !isSpace(text[i+1]) {
				continue
			}
			flush(i + 1)
			start = i + 1
		case '\n':
			flush(i)
			start = i + 1
		}
	}
	flush(len(text))
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// stem reduces a lower-case word to a rough stem, so "scaling", "scaled"
// and "scales" all match "scale": plural and verb endings go, and a final
// e with them.
func stem(w string) string {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	case len(w) > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		w = w[:len(w)-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	// A doubled final consonant left by "-ing"/"-ed" ("planning" → "plann").
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// speechFiller are the words of speech that carry no content on their own
// beside the stop words: "yeah", "um", "you know", "kind of", "basically".
var speechFiller = words.Set(`yeah yes um uh like well okay ok sure kind sort thing things stuff lot lots
basically actually really pretty much maybe get got go going know mean think guess`)

// isStop reports whether w, in lower case, carries no content on its own:
// a stop word or the filler of speech.
func isStop(w string) bool { return words.IsStop(w) || speechFiller[w] }

// containsStems reports whether every word of phrase appears, by stem, in
// the set of stems.
func containsStems(stems map[string]bool, phrase string) bool {
	toks := tokenize(phrase)
	if len(toks) == 0 {
		return false
	}
	for _, t := range toks {
		if !stems[stem(t.lower)] {
			return false
		}
	}
	return true
}

// stemSet is the set of the stems of the tokens.
func stemSet(toks []token) map[string]bool {
	set := make(map[string]bool, len(toks))
	for _, t := range toks {
		set[stem(t.lower)] = true
	}
	return set
}

// clipWords shortens s to at most n words, marking a cut with "…".
func clipWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.TrimRight(strings.Join(f[:n], " "), ",;:") + "…"
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// uncapitalize lower-cases the first letter of s unless the first word
// looks like a name or an acronym (a capital after the first letter).
func uncapitalize(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if first == "I" || strings.HasPrefix(first, "I'") {
		return s
	}
	for _, r := range first[min(1, len(first)):] {
		if unicode.IsUpper(r) {
			return s
		}
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}
