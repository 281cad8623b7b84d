package voice

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence splitting limits.
const (
	// MaxSentenceBytes is the length beyond which a sentence without a
	// full stop is split at its last comma, semicolon or colon (keeping at
	// least minSplitBytes on the left) so that synthesis can start.
	MaxSentenceBytes = 200
	// HardMaxSentenceBytes is the length beyond which a sentence without
	// any such punctuation is split at its last space.
	HardMaxSentenceBytes = 300
	// minSplitBytes keeps forced splits from producing tiny pieces.
	minSplitBytes = 40
	// ShortFirstWords and ShortFirstBytes define a "very short" first
	// sentence ("Hi.", "Okay.", "Great question!").
	ShortFirstWords = 2
	ShortFirstBytes = 16
	// MergeBudgetBytes is how much further text a very short first
	// sentence waits for: if the next sentence completes within it, the
	// two are spoken as one (better prosody, one synthesis request);
	// otherwise the short sentence is released alone as soon as the budget
	// is exceeded. 32 bytes is about 8 LLM tokens, roughly 100–200 ms at
	// usual streaming rates, so first audio is delayed by little.
	MergeBudgetBytes = 32
)

// SentenceSplitter cuts a stream of LLM text deltas into sentences to
// speak, emitting each as soon as it is complete so that speech can start
// before the reply is finished. The zero value is ready to use; it is not
// safe for concurrent use.
//
// Rules:
//   - A sentence ends at ".", "!", "?" or "…" (runs like "?!" count as one)
//     followed by optional closing quotes or brackets and then whitespace.
//     A stop not followed by whitespace ("3.5", "example.com", "a@b.io",
//     "https://x.io/?q=1") never ends a sentence.
//   - A single "." does not end a sentence after a title or Latin
//     abbreviation (Mr, Mrs, Ms, Dr, Prof, St, vs, e.g, i.e, cf, approx,
//     …), after an initial ("J. R. Tolkien") or after a list number at the
//     start of a line ("1. First"). After abbreviations that may also end a
//     sentence (etc, Inc, Ltd, Jr, U.S, a.m, p.m, …) and after an ellipsis
//     ("..." or "…") it ends a sentence only if the next word starts with
//     an upper-case letter or an opening quote or bracket.
//   - Every newline ends a sentence.
//   - A sentence longer than MaxSentenceBytes is split after its last
//     ", ", "; " or ": "; one longer than HardMaxSentenceBytes at its last
//     space.
//   - Markdown that would be read aloud is removed: "*" and "`" anywhere,
//     and at the start of a line heading "#"s, "> " and list bullets "- ",
//     "+ ", "* ".
//   - Whitespace inside a sentence is collapsed to single spaces.
//   - A very short first sentence (at most ShortFirstWords words and
//     ShortFirstBytes bytes) is merged with the next one if that completes
//     within MergeBudgetBytes more text (see MergeBudgetBytes).
//
// Joining the emitted sentences with single spaces gives the input with
// markdown removed and whitespace collapsed; how the input is cut into
// deltas never changes the result.
type SentenceSplitter struct {
	md   markdownFilter
	buf  []byte // filtered text not yet emitted; starts with whitespace once anything was cut
	scan int    // where scanning resumes in buf

	lastComma int // index just after the last ", " style split point in buf, or 0
	lastSpace int // index of the last whitespace in buf, or 0

	emitted int    // sentences emitted (including a held one)
	cutAny  bool   // something was cut from the front of buf
	held    string // short first sentence waiting to merge
	out     []string
}

// Write adds a delta and returns the sentences it completed (possibly
// none). The returned slice is the caller's.
func (s *SentenceSplitter) Write(delta string) []string {
	s.out = nil
	s.buf = s.md.write(s.buf, delta)
	s.segment(false)
	return s.out
}

// Flush ends the text: it returns every remaining sentence and resets the
// splitter for reuse.
func (s *SentenceSplitter) Flush() []string {
	s.out = nil
	s.buf = s.md.flush(s.buf)
	s.segment(true)
	s.emit(s.buf, true)
	if s.held != "" {
		s.out = append(s.out, s.held)
	}
	out := s.out
	*s = SentenceSplitter{buf: s.buf[:0]}
	return out
}

// segment scans buf for sentence boundaries and emits the sentences before
// them. Unless final, it stops where a decision needs text not yet seen.
func (s *SentenceSplitter) segment(final bool) {
	i := s.scan
	for i < len(s.buf) {
		if s.held != "" && i > MergeBudgetBytes {
			s.out = append(s.out, s.held)
			s.held = ""
		}
		if i > MaxSentenceBytes && s.lastComma > minSplitBytes {
			i -= s.cut(s.lastComma, final)
			continue
		}
		if i > HardMaxSentenceBytes && s.lastSpace > minSplitBytes {
			i -= s.cut(s.lastSpace, final)
			continue
		}
		c := s.buf[i]
		if c >= utf8.RuneSelf && !final && incompleteRune(s.buf[i:]) {
			s.scan = i
			return
		}
		switch {
		case c == '\n':
			i -= s.cut(i, final)
			i++
			s.lastSpace = i - 1
		case c == '.' || c == '!' || c == '?' || isEllipsisAt(s.buf, i):
			end, d := s.stopAt(i, final)
			switch d {
			case needMore:
				s.scan = i
				return
			case boundary:
				i = end - s.cut(end, final)
			default:
				i = end
			}
		case isSpaceByte(c):
			s.lastSpace = i
			if i > 0 && (s.buf[i-1] == ',' || s.buf[i-1] == ';' || s.buf[i-1] == ':') {
				s.lastComma = i
			}
			i++
		default:
			i++
		}
	}
	s.scan = i
}

type decision int

const (
	notBoundary decision = iota
	boundary
	needMore
)

// stopAt decides whether the run of stops starting at i ends a sentence.
// It returns the index after the run and its closers, and the decision.
func (s *SentenceSplitter) stopAt(i int, final bool) (int, decision) {
	b := s.buf
	j := i
	for j < len(b) {
		if b[j] == '.' || b[j] == '!' || b[j] == '?' {
			j++
		} else if isEllipsisAt(b, j) {
			j += len("…")
		} else {
			break
		}
	}
	if j == len(b) || incompleteRune(b[j:]) {
		if final {
			return len(b), boundary
		}
		return j, needMore
	}
	k := j
	for k < len(b) {
		if incompleteRune(b[k:]) {
			if final {
				return len(b), boundary
			}
			return j, needMore
		}
		r, n := utf8.DecodeRune(b[k:])
		if !isCloser(r) {
			break
		}
		k += n
	}
	if k == len(b) {
		if final {
			return k, boundary
		}
		return j, needMore
	}
	if !isSpaceByte(b[k]) {
		return k, notBoundary
	}
	run := b[i:j]
	if strings.ContainsAny(string(run), "!?") {
		return k, boundary
	}
	if len(run) > 1 { // "..", "...", "…"
		return s.nextStartsSentence(k, final)
	}
	switch classifyToken(s.tokenBefore(i)) {
	case tokenNever:
		return k, notBoundary
	case tokenAmbiguous:
		return s.nextStartsSentence(k, final)
	case tokenListNumber:
		if s.atLineStart(s.tokenStart(i)) {
			return k, notBoundary
		}
	}
	return k, boundary
}

// nextStartsSentence decides an ambiguous stop ending at k by the next
// word: an upper-case letter or an opening quote or bracket starts a new
// sentence.
func (s *SentenceSplitter) nextStartsSentence(k int, final bool) (int, decision) {
	b := s.buf
	m := k
	for m < len(b) && isSpaceByte(b[m]) {
		if b[m] == '\n' {
			return k, boundary
		}
		m++
	}
	if m == len(b) || incompleteRune(b[m:]) {
		if final {
			return k, boundary
		}
		return k, needMore
	}
	r, _ := utf8.DecodeRune(b[m:])
	if unicode.IsUpper(r) || strings.ContainsRune(`"'“‘«([`, r) {
		return k, boundary
	}
	return k, notBoundary
}

// tokenStart returns the index where the word ending at i starts.
func (s *SentenceSplitter) tokenStart(i int) int {
	t := i
	for t > 0 && !isSpaceByte(s.buf[t-1]) {
		t--
	}
	return t
}

// tokenBefore returns the word ending at i without leading opening quotes
// or brackets.
func (s *SentenceSplitter) tokenBefore(i int) string {
	tok := string(s.buf[s.tokenStart(i):i])
	return strings.TrimLeft(tok, `"'“‘«([`)
}

// atLineStart reports whether only spaces precede t on its line.
func (s *SentenceSplitter) atLineStart(t int) bool {
	for p := t - 1; p >= 0; p-- {
		switch s.buf[p] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	// The buffer starts at the start of the text, or at the whitespace
	// that followed the last cut; only the former is a line start unless a
	// newline is in view.
	return !s.cutAny
}

// cut emits buf[:n] as a sentence and removes it; it returns n so callers
// can shift their indices.
func (s *SentenceSplitter) cut(n int, final bool) int {
	s.emit(s.buf[:n], final)
	s.cutAny = true
	copy(s.buf, s.buf[n:])
	s.buf = s.buf[:len(s.buf)-n]
	s.lastComma, s.lastSpace = 0, 0
	return n
}

// emit normalises a raw piece and appends it to the output, applying the
// short-first-sentence rule.
func (s *SentenceSplitter) emit(piece []byte, final bool) {
	text := collapseSpaces(piece)
	if text == "" {
		return
	}
	if s.held != "" {
		s.out = append(s.out, s.held+" "+text)
		s.held = ""
		s.emitted++
		return
	}
	if s.emitted == 0 && !final && isShortSentence(text) {
		s.held = text
		s.emitted++
		return
	}
	s.out = append(s.out, text)
	s.emitted++
}

func isShortSentence(text string) bool {
	return len(text) <= ShortFirstBytes && strings.Count(text, " ") < ShortFirstWords
}

type tokenClass int

const (
	tokenWord tokenClass = iota
	tokenNever
	tokenAmbiguous
	tokenListNumber
)

// neverEnd are abbreviations that a following "." never ends a sentence
// after: titles and Latin abbreviations that always precede more text.
var neverEnd = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
	"vs": true, "e.g": true, "i.e": true, "cf": true, "approx": true,
	"fig": true, "mt": true, "gen": true, "lt": true, "col": true, "sgt": true,
	"capt": true, "rev": true, "hon": true, "mx": true, "eg": true, "ie": true,
}

// mayEnd are abbreviations that also end sentences.
var mayEnd = map[string]bool{
	"etc": true, "inc": true, "ltd": true, "co": true, "corp": true,
	"llc": true, "jr": true, "sr": true, "al": true, "ave": true,
}

func classifyToken(tok string) tokenClass {
	if tok == "" {
		return tokenWord
	}
	lower := strings.ToLower(tok)
	switch {
	case neverEnd[lower]:
		return tokenNever
	case mayEnd[lower]:
		return tokenAmbiguous
	}
	if r, n := utf8.DecodeRuneInString(tok); n == len(tok) && unicode.IsLetter(r) {
		if unicode.IsUpper(r) && r != 'I' {
			return tokenNever // an initial
		}
		return tokenAmbiguous
	}
	if strings.Trim(tok, "0123456789") == "" {
		return tokenListNumber
	}
	if strings.Contains(tok, ".") {
		// Dotted abbreviations: every part one or two letters (U.S, a.m,
		// Ph.D).
		for _, part := range strings.Split(tok, ".") {
			if n := utf8.RuneCountInString(part); n == 0 || n > 2 || strings.IndexFunc(part, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
				return tokenWord
			}
		}
		return tokenAmbiguous
	}
	return tokenWord
}

func isEllipsisAt(b []byte, i int) bool {
	return len(b)-i >= len("…") && string(b[i:i+len("…")]) == "…"
}

func isCloser(r rune) bool {
	return strings.ContainsRune(`"')]}”’»`, r)
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// collapseSpaces trims b and replaces every run of whitespace in it with
// one space.
func collapseSpaces(b []byte) string {
	var sb strings.Builder
	space := false
	for _, c := range b {
		if isSpaceByte(c) {
			space = true
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteByte(c)
	}
	return sb.String()
}

// markdownFilter removes markdown symbols that text-to-speech would read
// aloud, one delta at a time. It holds back the few bytes whose meaning
// depends on what follows (a "#" run or a bullet at the start of a line).
type markdownFilter struct {
	midLine bool // a visible character has been seen on this line
	hashes  int  // "#"s held at the start of a line
	mark    byte // "-", "+" or ">" held at the start of a line
}

func (f *markdownFilter) write(dst []byte, src string) []byte {
	for i := 0; i < len(src); i++ {
		dst = f.byte(dst, src[i])
	}
	return dst
}

func (f *markdownFilter) byte(dst []byte, c byte) []byte {
	if f.hashes > 0 {
		if c == '#' {
			f.hashes++
			return dst
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			f.hashes = 0 // a heading marker: drop it
		} else {
			for ; f.hashes > 0; f.hashes-- {
				dst = append(dst, '#')
			}
			f.midLine = true
		}
	}
	if f.mark != 0 {
		if c == ' ' || c == '\t' {
			f.mark = 0 // a bullet or quote marker: drop it
		} else {
			dst = append(dst, f.mark)
			f.mark = 0
			f.midLine = true
		}
	}
	switch {
	case c == '*' || c == '`':
	case c == '\n':
		dst = append(dst, c)
		f.midLine = false
	case f.midLine:
		dst = append(dst, c)
	case c == ' ' || c == '\t' || c == '\r':
		dst = append(dst, c)
	case c == '#':
		f.hashes = 1
	case c == '-' || c == '+' || c == '>':
		f.mark = c
	default:
		dst = append(dst, c)
		f.midLine = true
	}
	return dst
}

// flush ends the text: a held heading marker is dropped, a held "-", "+"
// or ">" is kept.
func (f *markdownFilter) flush(dst []byte) []byte {
	if f.mark != 0 {
		dst = append(dst, f.mark)
	}
	*f = markdownFilter{}
	return dst
}
