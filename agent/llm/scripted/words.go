package scripted

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/internal/words"
)

// The offline interviewer's words: follow-ups on what an answer named,
// the closing's answers from the job description, and the text helpers
// they need.

// userTexts are the candidate's messages, latest first.
func userTexts(msgs []llm.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			out = append(out, msgs[i].Content)
		}
	}
	return out
}

var followUpTemplates = []string{
	"You mentioned %s. Can you walk me through a specific example of that?",
	"What was the hardest part of working on %s?",
	"Looking back, what would you do differently with %s?",
	"How did you measure whether %s was a success?",
	"Who else was involved in %s, and how did you work together?",
	"What did %s teach you that you still use today?",
}

var genericFollowUps = []string{
	"Can you give me a concrete example from your own work?",
	"What was the outcome, and what did you learn from it?",
	"What would you do differently if you faced that again?",
	"How did you decide what to prioritise there?",
	"What part of that are you most proud of?",
	"What was the biggest obstacle, and how did you get past it?",
}

// followUp makes a question about what the answers (the latest first)
// named — a technology first, else a notable word — with a template not
// used yet in this interview, so no follow-up repeats another's shape;
// then the generic follow-ups, each once; "" when every one has been
// used or refused.
func (s *Interviewer) followUp(answers ...string) string {
	for _, answer := range answers {
		for _, topic := range salient(answer) {
			for i, t := range followUpTemplates {
				q := fmt.Sprintf(t, topic)
				if s.usedTemplates[i] || s.refused[strings.ToLower(q)] {
					continue
				}
				s.usedTemplates[i] = true
				return q
			}
		}
	}
	for _, q := range genericFollowUps {
		if !s.refused[strings.ToLower(q)] && !s.usedGeneric[q] {
			s.usedGeneric[q] = true
			return q
		}
	}
	return ""
}

// isQuestion reports whether the candidate asked something.
func isQuestion(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(s, "?") {
		return true
	}
	for _, w := range []string{"what ", "how ", "when ", "who ", "which ", "is there", "are there", "do you", "does ", "can i", "could you tell", "i was wondering", "i'd like to know", "i would like to know"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// fromJobDescription is the job description's sentence that best answers
// question (sharing at least two content words with it), or "": the
// interviewer answers from what the company wrote, never invents.
func fromJobDescription(jd, question string) string {
	words := map[string]bool{}
	for _, w := range salientWords(question) {
		words[w] = true
	}
	best, bestN := "", 1
	for _, line := range strings.FieldsFunc(jd, func(r rune) bool { return r == '\n' || r == '.' || r == ';' }) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•#0123456789. "))
		n := 0
		for _, w := range salientWords(line) {
			if words[w] {
				n++
			}
		}
		if n > bestN && len(line) < 300 {
			best, bestN = line, n
		}
	}
	if best == "" {
		return ""
	}
	return strings.TrimRight(best, ".") + "."
}

// salientWords are the lower-case words of s of four letters or more that
// are not stop words.
func salientWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 4 && !common(w) {
			out = append(out, w)
		}
	}
	return out
}

var stopRe = regexp.MustCompile(`(?i)\b(can|could) we (please )?(stop|end|finish)\b|\b(i want|i'd like|i would like|let's|lets) to (stop|end|finish)( (here|now|early|(the|this) (interview|call|conversation))|\s*[.!]*\s*$)|\bi (have|need) to (go|leave)\b|\b(stop|end) (the|this) (interview|call)\b`)

// wantsToStop reports whether the candidate asked to end the interview.
func wantsToStop(s string) bool { return stopRe.MatchString(s) }

// commonWords are words of an answer too common to follow up on, beside
// the stop words: fillers, vague nouns, numbers and times, politeness.
var commonWords = words.Set(`actually basically things thing stuff worked working think know like pretty quite
lot lots well much many mostly years year time times started never always maybe perhaps thank thanks sorry
please question questions answer minute minutes hours hundred thousand million billion percent twenty thirty
forty fifty sixty seventy eighty ninety first second third every today yesterday tomorrow right great sure
really didn't doesn't`)

// common reports whether w, in lower case, is too common to follow up on.
func common(w string) bool { return words.IsStop(w) || commonWords[w] }

// salient returns candidate topics from an answer, most salient first:
// the technologies it names, then its longest uncommon words.
func salient(answer string) []string {
	seen := map[string]bool{}
	var out []string
	lacks := analysis.Lacks(answer)
	for _, t := range analysis.Technologies(answer) {
		seen[strings.ToLower(t)] = true
		if !slices.ContainsFunc(lacks, func(l string) bool { return strings.EqualFold(l, t) }) {
			out = append(out, t) // never a follow-up on what they have not used
		}
	}
	var words []string
	for _, w := range strings.FieldsFunc(answer, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		lw := strings.ToLower(w)
		if len(lw) < 5 || common(lw) || seen[lw] {
			continue
		}
		seen[lw] = true
		words = append(words, lw)
	}
	// longest first, stable
	for i := 1; i < len(words); i++ {
		for j := i; j > 0 && len(words[j]) > len(words[j-1]); j-- {
			words[j], words[j-1] = words[j-1], words[j]
		}
	}
	out = append(out, words...)
	if len(out) > 4 {
		out = out[:4]
	}
	return out
}

func sentences(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == ';' }) {
		if p = strings.TrimSpace(p); len(strings.Fields(p)) >= 3 {
			out = append(out, p)
		}
	}
	return out
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndex(s[:n], " ")
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + "…"
}

func firstName(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return "there"
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}
