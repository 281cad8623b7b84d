package voice

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"
)

func TestCaptionSegments(t *testing.T) {
	at := time.Unix(100, 0)
	for _, tc := range []struct {
		name    string
		results []string // "i:text" interim, "f:text" final
		want    []string // "id text final"
	}{
		{
			name:    "interims and their final share an id",
			results: []string{"i:I", "i:I worked", "f:I worked there.", "i:two", "f:Two years."},
			want:    []string{`SG_t_0 "I" false`, `SG_t_0 "I worked" false`, `SG_t_0 "I worked there." true`, `SG_t_1 "two" false`, `SG_t_1 "Two years." true`},
		},
		{
			name:    "a blank final clears shown interim text",
			results: []string{"i:for", "f:", "f:Next."},
			want:    []string{`SG_t_0 "for" false`, `SG_t_0 "" true`, `SG_t_1 "Next." true`},
		},
		{
			name:    "blank results with nothing shown are skipped",
			results: []string{"i:  ", "f:  ", "f:Yes."},
			want:    []string{`SG_t_0 "Yes." true`},
		},
		{
			name:    "finals are trimmed, interims are not",
			results: []string{"i: so ", "f: So. "},
			want:    []string{`SG_t_0 " so " false`, `SG_t_0 "So." true`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := captionSegments{prefix: "SG_t_"}
			var got []string
			for _, r := range tc.results {
				var (
					tr Transcript
					ok bool
				)
				switch r[:2] {
				case "i:":
					tr, ok = s.interim(r[2:], at)
				case "f:":
					tr, ok = s.final(r[2:], at)
				default:
					t.Fatalf("bad result %q", r)
				}
				if !ok {
					continue
				}
				if !tr.At.Equal(at) {
					t.Errorf("At = %v, want %v", tr.At, at)
				}
				got = append(got, fmt.Sprintf("%s %q %v", tr.SegmentID, tr.Text, tr.Final))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("transcripts\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestNewCaptionSegmentsPrefix(t *testing.T) {
	a, b := newCaptionSegments(), newCaptionSegments()
	if a.prefix == b.prefix {
		t.Errorf("two listeners share the segment prefix %q", a.prefix)
	}
	if !regexp.MustCompile(`^SG_[0-9a-f]{12}_0$`).MatchString(a.id()) {
		t.Errorf("segment id %q", a.id())
	}
}
