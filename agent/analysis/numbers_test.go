package analysis

import "testing"

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"3", 3, true},
		{"1,200", 1200, true},
		{"1.5k", 1500, true},
		{"$2 million", 2e6, true},
		{"2 million dollars", 2e6, true},
		{"forty percent", 40, true},
		{"40%", 40, true},
		{"twenty five", 25, true},
		{"twenty-five", 25, true},
		{"two hundred thousand", 200000, true},
		{"two hundred and fifty thousand", 250000, true},
		{"a dozen", 12, true},
		{"a couple of", 2, true},
		{"a few", 3, true},
		{"half a million", 500000, true},
		{"a million", 1e6, true},
		{"three million", 3e6, true},
		{"5+", 5, true},
		{"10x", 10, true},
		{"€300k", 300000, true},
		{"one", 1, true},
		{"eleven", 11, true},
		{"ninety nine", 99, true},
		{"hello", 0, false},
		{"", 0, false},
		{"three apples", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseNumber(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseNumber(%q) = %v, %t; want %v, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestQuantitiesKinds(t *testing.T) {
	qs := quantities(tokenize("Since 2019 we grew 40% to $2 million and 5k users"))
	if len(qs) != 4 {
		t.Fatalf("quantities %+v", qs)
	}
	if !qs[0].Year || !qs[1].Percent || !qs[2].Money || qs[3].Value != 5000 {
		t.Errorf("kinds %+v", qs)
	}
}
