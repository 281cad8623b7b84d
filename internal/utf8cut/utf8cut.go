// Package utf8cut cuts UTF-8 text by byte length without splitting a
// character: for byte limits on stored text and for the chunks of LiveKit
// text streams, which a receiver decodes chunk by chunk.
package utf8cut

import "unicode/utf8"

// Truncate returns s cut to at most maxBytes bytes, ending on a rune
// boundary; s itself when it fits.
func Truncate[S ~string | ~[]byte](s S, maxBytes int) S {
	if len(s) <= maxBytes {
		return s
	}
	return s[:runeStartAtOrBefore(s, maxBytes)]
}

// Chunks splits s into pieces of at most maxBytes bytes that each end on a
// rune boundary; joined they are s. Only a rune longer than maxBytes is cut
// (maxBytes below 4 with such runes in s). An empty s has no chunks.
func Chunks[S ~string | ~[]byte](s S, maxBytes int) []S {
	var out []S
	for len(s) > maxBytes {
		cut := runeStartAtOrBefore(s, maxBytes)
		if cut == 0 {
			cut = maxBytes
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if len(s) > 0 {
		out = append(out, s)
	}
	return out
}

// runeStartAtOrBefore returns the largest i ≤ n at which a rune of s
// starts, or 0; n < len(s).
func runeStartAtOrBefore[S ~string | ~[]byte](s S, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
