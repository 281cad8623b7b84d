package words

import (
	"slices"
	"testing"
)

func TestSplitAndNormal(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Don't re-run it!", []string{"don", "t", "re", "run", "it"}},
		{"  What is   your ROLE?  ", []string{"what", "is", "your", "role"}},
		{"Café 2024, naïve", []string{"café", "2024", "naïve"}},
		{"…", nil},
	}
	for _, tt := range tests {
		if got := Split(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := Normal("Hello!  How are you?"), "hello how are you"; got != want {
		t.Errorf("Normal = %q, want %q", got, want)
	}
}

func TestIsStop(t *testing.T) {
	for _, w := range []string{"the", "and", "their", "don", "t", "vs", "let's"} {
		if !IsStop(w) {
			t.Errorf("IsStop(%q) = false", w)
		}
	}
	for _, w := range []string{"kubernetes", "project", "design", "The", ""} {
		if IsStop(w) {
			t.Errorf("IsStop(%q) = true", w)
		}
	}
}
