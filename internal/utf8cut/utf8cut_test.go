package utf8cut

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestChunks cuts each input as a string and as bytes: the pieces are the
// ones wanted, valid UTF-8, within the limit, and join to the input.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 4, nil},
		{"fits", "abcd", 4, []string{"abcd"}},
		{"shorter", "abc", 4, []string{"abc"}},
		{"ascii split", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"never cuts a rune", "aé€😀b", 4, []string{"aé", "€", "😀", "b"}},
		{"two-byte runes", strings.Repeat("é", 5), 3, []string{"é", "é", "é", "é", "é"}},
		{"no split inside é", "aéé", 2, []string{"a", "é", "é"}},
		{"four-byte rune", "a😀b", 4, []string{"a", "😀", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Chunks(tc.in, tc.max)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Chunks(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			for _, c := range got {
				if !utf8.ValidString(c) || len(c) > tc.max {
					t.Errorf("chunk %q invalid or longer than %d", c, tc.max)
				}
			}
			var fromBytes []string
			for _, c := range Chunks([]byte(tc.in), tc.max) {
				fromBytes = append(fromBytes, string(c))
			}
			if !slices.Equal(fromBytes, tc.want) {
				t.Errorf("Chunks of bytes = %q, want %q", fromBytes, tc.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"hé", 2, "h"},
		{"😀x", 3, ""},
	} {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
