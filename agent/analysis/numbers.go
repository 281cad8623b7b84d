package analysis

import (
	"strconv"
	"strings"
)

// quantity is a number found in an answer, with where it was written.
type quantity struct {
	// Value is the number ("two hundred thousand" → 200000).
	Value float64
	// First and Last are the indexes of its first and last token.
	First, Last int
	// Money is true for an amount of money ("$2 million", "2 million
	// dollars"); Percent for a share ("40%", "forty percent").
	Money, Percent bool
	// Year is true for a bare four-digit year ("2019").
	Year bool
}

// Number words and their values.
var (
	unitWords = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
		"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	}
	tensWords = map[string]float64{
		"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	scaleWords = map[string]float64{
		"thousand": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "mm": 1e6, "billion": 1e9, "bn": 1e9, "billions": 1e9,
		"thousands": 1e3, "trillion": 1e12,
	}
	// vagueWords are quantities said without a number ("a couple of").
	vagueWords = map[string]float64{"couple": 2, "few": 3, "several": 3, "dozen": 12, "dozens": 24, "handful": 5}
	moneyWords = map[string]bool{"dollars": true, "dollar": true, "usd": true, "euros": true, "euro": true, "eur": true, "pounds": true, "gbp": true, "bucks": true}
)

// parseNumber reads a whole phrase as one number: "3", "1,200", "1.5k",
// "$2 million", "forty percent", "two hundred and fifty thousand", "a
// dozen", "half a million". It reports false when the phrase is not
// exactly one number.
func parseNumber(s string) (float64, bool) {
	toks := tokenize(s)
	if len(toks) == 0 {
		return 0, false
	}
	q, ok := readQuantity(toks, 0)
	if !ok || q.Last != len(toks)-1 {
		return 0, false
	}
	return q.Value, true
}

// quantities finds every number in the tokens, in order.
func quantities(toks []token) []quantity {
	var out []quantity
	for i := 0; i < len(toks); i++ {
		if q, ok := readQuantity(toks, i); ok {
			out = append(out, q)
			i = q.Last
		}
	}
	return out
}

// readQuantity reads the number starting at toks[i], if one starts there.
func readQuantity(toks []token, i int) (quantity, bool) {
	q := quantity{First: i, Last: i}
	w := toks[i].lower
	j := i
	switch {
	case isNumeral(w):
		v, money, percent, year := numeral(w)
		q.Value, q.Money, q.Percent, q.Year = v, money, percent, year
		if j+1 < len(toks) {
			if m, ok := scaleWords[toks[j+1].lower]; ok {
				q.Value *= m
				q.Year = false
				j++
			}
		}
	case w == "half" && j+2 < len(toks) && (toks[j+1].lower == "a" || toks[j+1].lower == "an") && scaleWords[toks[j+2].lower] > 0:
		q.Value = 0.5 * scaleWords[toks[j+2].lower]
		j += 2
	case w == "a" || w == "an":
		if j+1 >= len(toks) {
			return q, false
		}
		next := toks[j+1].lower
		switch {
		case vagueWords[next] > 0:
			q.Value = vagueWords[next]
			j++
		case next == "hundred":
			q.Value = 100
			j++
		case scaleWords[next] > 0 && next != "k" && next != "mm" && next != "bn":
			q.Value = scaleWords[next]
			j++
		default:
			return q, false
		}
		if next == "couple" || next == "few" {
			if j+1 < len(toks) && toks[j+1].lower == "of" {
				j++
			}
		}
		if m, ok := scaleWords[tokAt(toks, j+1)]; ok {
			q.Value *= m
			j++
		}
	case vagueWords[w] > 0 && w != "dozen" && w != "couple" && w != "few":
		q.Value = vagueWords[w]
		if m, ok := scaleWords[tokAt(toks, j+1)]; ok {
			q.Value *= m
			j++
		}
	default:
		v, last, ok := wordNumber(toks, i)
		if !ok {
			return q, false
		}
		q.Value, j = v, last
	}
	q.Last = j
	// A unit after the number: "percent", "per cent", "dollars".
	switch next := tokAt(toks, j+1); {
	case next == "percent" || next == "%":
		q.Percent, q.Last = true, j+1
	case next == "per" && tokAt(toks, j+2) == "cent":
		q.Percent, q.Last = true, j+2
	case moneyWords[next]:
		q.Money, q.Last = true, j+1
	}
	if q.Money || q.Percent {
		q.Year = false
	}
	return q, true
}

// tokAt is the lower-case token at i, or "" past the end.
func tokAt(toks []token, i int) string {
	if i < 0 || i >= len(toks) {
		return ""
	}
	return toks[i].lower
}

// wordNumber reads a number written in words from toks[i]: "forty",
// "twenty five", "two hundred and fifty thousand". last is its last token.
func wordNumber(toks []token, i int) (v float64, last int, ok bool) {
	var total, current float64
	last = -1
	for j := i; j < len(toks); j++ {
		w := toks[j].lower
		if u, isUnit := unitWords[w]; isUnit {
			current += u
		} else if t, isTens := tensWords[w]; isTens {
			current += t
		} else if w == "hundred" && last >= 0 {
			current *= 100
		} else if w == "dozen" && last >= 0 {
			current *= 12
		} else if m, isScale := scaleWords[w]; isScale && last >= 0 && w != "k" && w != "mm" {
			total += current * m
			current = 0
		} else if w == "and" && last >= 0 && j+1 < len(toks) && isNumberWord(toks[j+1].lower) {
			continue
		} else {
			break
		}
		last = j
	}
	if last < 0 {
		return 0, 0, false
	}
	return total + current, last, true
}

// isNumberWord reports whether w is a unit or tens word.
func isNumberWord(w string) bool {
	_, u := unitWords[w]
	_, t := tensWords[w]
	return u || t
}

// isNumeral reports whether a token is written with digits ("3", "$2",
// "1.5k", "40%", "5+").
func isNumeral(w string) bool {
	w = strings.TrimLeft(w, "$€£~")
	return w != "" && w[0] >= '0' && w[0] <= '9'
}

// numeral parses a token written with digits: "$1,200", "1.5k", "40%",
// "5+", "10x", "800ms" (a unit after the number is ignored).
func numeral(w string) (v float64, money, percent, year bool) {
	if t := strings.TrimLeft(w, "$€£"); t != w {
		money, w = true, t
	}
	w = strings.TrimLeft(w, "~")
	end := 0
	for end < len(w) && (isDigit(w[end]) || (w[end] == ',' || w[end] == '.') && end+1 < len(w) && isDigit(w[end+1])) {
		end++
	}
	plain := strings.ReplaceAll(w[:end], ",", "")
	f, err := strconv.ParseFloat(plain, 64)
	if err != nil {
		return 0, money, false, false
	}
	mult := 1.0
	switch suffix := w[end:]; suffix {
	case "%":
		percent = true
	case "k", "k+":
		mult = 1e3
	case "m", "mm", "m+":
		mult = 1e6
	case "b", "bn":
		mult = 1e9
	}
	year = !money && !percent && end == len(w) && len(plain) == 4 && (strings.HasPrefix(plain, "19") || strings.HasPrefix(plain, "20"))
	return f * mult, money, percent, year
}
