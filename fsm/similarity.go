package fsm

import (
	"math"
	"strings"

	"github.com/viva-interviews/viva/internal/words"
)

// RepeatThreshold is the Similarity at or above which Ask treats a question
// as a repeat of an earlier one. At 0.75 two questions must share most of
// their content words: a two-word question repeats a three-word one when
// both words are shared, and a question that only shares its topic ("your
// role", "that project") with another is still allowed.
const RepeatThreshold = 0.75

// Similarity scores how alike two questions are, from 0 (nothing in common)
// to 1 (the same content words). It compares normalised word sets rather
// than substrings, so a paraphrase with the words reordered, inflected or
// wrapped in different filler ("could you tell me about…", "describe…") is
// still recognised:
//
//   - lower-case, punctuation stripped, apostrophes split;
//   - English stop words and interview filler verbs dropped;
//   - crude stemming (challenging, challenged, challenges → challeng) and a
//     small synonym table (job/position → role, hardest/toughest → hard);
//   - score = max(Jaccard, overlap coefficient × √(smaller/larger set)).
//
// The weighted overlap term (the Ochiai coefficient) forgives a paraphrase
// that adds a word or two, while the weight stops a short question ("What
// is your role?") from matching every longer question that mentions the
// same noun. Two questions with no content words left (both pure filler)
// score 1 when their normalised texts are equal, else 0. Similarity is
// symmetric.
func Similarity(a, b string) float64 {
	return tokenSimilarity(
		questionTokens{tokens: contentTokens(a), norm: words.Normal(a)},
		questionTokens{tokens: contentTokens(b), norm: words.Normal(b)})
}

// tokenSimilarity is Similarity on already normalised questions.
func tokenSimilarity(a, b questionTokens) float64 {
	ta, tb := a.tokens, b.tokens
	if len(ta) == 0 || len(tb) == 0 {
		if len(ta) == 0 && len(tb) == 0 && a.norm != "" && a.norm == b.norm {
			return 1
		}
		return 0
	}
	inter := 0
	for t := range ta {
		if tb[t] {
			inter++
		}
	}
	if inter == 0 {
		return 0
	}
	na, nb := float64(len(ta)), float64(len(tb))
	jaccard := float64(inter) / (na + nb - float64(inter))
	small, large := math.Min(na, nb), math.Max(na, nb)
	overlap := float64(inter) / small
	weighted := overlap * math.Sqrt(small/large)
	return math.Max(jaccard, weighted)
}

// contentTokens returns the set of stemmed, canonical content words of s.
func contentTokens(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words.Split(s) {
		if len(w) < 2 || dropped(w) {
			continue
		}
		if c, ok := synonyms[w]; ok {
			w = c
		}
		w = stem(w)
		if c, ok := synonyms[w]; ok {
			w = c
		}
		if w == "" || dropped(w) {
			continue
		}
		set[w] = true
	}
	return set
}

// stem strips common English inflections crudely but consistently, so the
// forms of one word meet at the same stem (hope, hoped, hoping → hop).
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		// class, status, analysis: not plurals.
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = w[:len(w)-2]
	}
	// planned → plann → plan; skills → skill → skil (consistently).
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !isVowel(w[n-1]) {
		w = w[:n-1]
	}
	// challenge/challenging, hope/hoping meet once the final e is gone.
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

func isVowel(c byte) bool {
	return strings.IndexByte("aeiouy", c) >= 0
}

// synonyms maps words (or stems) that interview questions use
// interchangeably onto one canonical word.
var synonyms = map[string]string{
	"job":          "role",
	"position":     "role",
	"positions":    "role",
	"jobs":         "role",
	"roles":        "role",
	"employer":     "company",
	"organisation": "company",
	"organization": "company",
	"firm":         "company",
	"companies":    "company",
	"hardest":      "hard",
	"toughest":     "hard",
	"difficult":    "hard",
	"tough":        "hard",
	"harder":       "hard",
	"greatest":     "big",
	"biggest":      "big",
	"largest":      "big",
	"main":         "big",
	"deal":         "handl",
	"cope":         "handl",
	"manag":        "handl",
	"colleagues":   "coworker",
	"colleague":    "coworker",
	"teammates":    "coworker",
	"teammate":     "coworker",
	"peers":        "coworker",
	"aim":          "goal",
	"aims":         "goal",
	"objective":    "goal",
	"objectives":   "goal",
	"goals":        "goal",
	"weakness":     "weak",
	"weaknesses":   "weak",
	"strengths":    "strength",
	"used":         "use",
	"using":        "use",
}

// questionFiller frames an interview question without saying what it
// asks; it is dropped before comparing, with the stop words.
var questionFiller = words.Set(`tell describe explain share talk walk give say please bit little kind sort maybe
perhaps really like think thing things something anything example instance yes`)

// dropped reports whether w carries nothing of what a question asks.
func dropped(w string) bool { return words.IsStop(w) || questionFiller[w] }
