// Package typo finds what a user probably meant when a name is unknown: the
// known name a few edits away, for "did you mean …?" messages.
package typo

import "strings"

// MaxEdits is the largest edit distance still taken for a typo.
const MaxEdits = 2

// Closest returns the name in known closest to s (case-insensitively) when
// it is at most MaxEdits edits away, else "".
func Closest(s string, known []string) string {
	s = strings.ToLower(s)
	best, bestDist := "", MaxEdits+1
	for _, k := range known {
		if d := Distance(s, strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// Distance is the Levenshtein edit distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
