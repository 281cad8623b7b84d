package utf8cut

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunksOfBytes(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		n     int
		sizes []int
	}{
		{name: "empty", in: "", n: 4, sizes: nil},
		{name: "fits", in: "abcd", n: 4, sizes: []int{4}},
		{name: "ascii split", in: "abcdefghij", n: 4, sizes: []int{4, 4, 2}},
		{name: "never cuts a rune", in: "aé€😀b", n: 4, sizes: []int{3, 3, 4, 1}},
		{name: "two-byte runes", in: strings.Repeat("é", 5), n: 3, sizes: []int{2, 2, 2, 2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chunks := Chunks([]byte(tc.in), tc.n)
			var sizes []int
			var joined strings.Builder
			for _, c := range chunks {
				sizes = append(sizes, len(c))
				if !utf8.Valid(c) {
					t.Errorf("chunk %q is not valid UTF-8", c)
				}
				joined.Write(c)
			}
			if !slices.Equal(sizes, tc.sizes) || joined.String() != tc.in {
				t.Errorf("chunk sizes = %v (joined %q), want %v", sizes, joined.String(), tc.sizes)
			}
		})
	}
}

func TestChunksOfStringKeepRunesWhole(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 4, nil},
		{"fits", "abc", 4, []string{"abc"}},
		{"ascii split", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"no split inside é", "aéé", 2, []string{"a", "é", "é"}},
		{"four-byte rune", "a😀b", 4, []string{"a", "😀", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Chunks(tc.in, tc.max)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Fatalf("Chunks(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			for _, c := range got {
				if !utf8.ValidString(c) || len(c) > tc.max {
					t.Errorf("chunk %q invalid or longer than %d", c, tc.max)
				}
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"hé", 2, "h"},
		{"😀x", 3, ""},
	}
	for _, tc := range tests {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
