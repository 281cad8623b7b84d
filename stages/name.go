package stages

import (
	"regexp"
	"strings"
	"unicode"
)

// markup matches an HTML- or XML-like tag ("<script>", "</b>", "<br/>") or
// a terminal escape sequence ("\x1b[31m"): markup is never part of a name,
// so SpokenName drops it whole.
var markup = regexp.MustCompile(`<[^<>]*>|\x1b\[[0-9;?]*[ -/]*[@-~]`)

// nameJoiners are the characters a spoken name keeps inside a word besides
// letters: apostrophes (O'Brien, N’Dour) and hyphens (Jean-Luc).
const nameJoiners = "'’ʼ-‐‑"

// SpokenName reduces a candidate's name to what an interviewer may say
// aloud: words of letters (of any script, with their combining marks) joined
// by apostrophes and hyphens, separated by single spaces. Markup tags and
// terminal escapes are dropped; digits, emoji, symbols, punctuation and control characters
// separate words. A name with nothing speakable left becomes "", so callers
// fall back to no name ("Hello there"). The record keeps the name as typed;
// only prompts and greetings use this form, so a name such as
// "<script>alert(1)</script>" is never read out as markup.
func SpokenName(name string) string {
	name = markup.ReplaceAllString(name, " ")
	words := strings.FieldsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && !strings.ContainsRune(nameJoiners, r)
	})
	kept := words[:0]
	for _, w := range words {
		w = strings.Trim(w, nameJoiners)
		if w == "" || !unicode.IsLetter([]rune(w)[0]) {
			continue // a lone mark or joiner is not a word
		}
		kept = append(kept, w)
	}
	return strings.Join(kept, " ")
}
