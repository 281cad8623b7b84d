package voice

import (
	"fmt"
	"slices"
	"testing"
)

// TestBargeInDetector feeds frame activity written as a timeline, one
// character a frame except the agent marks:
//
//   - / -  the agent starts / stops speaking (no frame)
//     . o    outside an utterance: unvoiced / voiced
//     S      the frame that starts an utterance; its onset is the run of 'o'
//     just before it
//     v _    inside an utterance: voiced / unvoiced
//     E      the unvoiced frame that ends it
//
// The threshold is 5 frames (100 ms).
func TestBargeInDetector(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeline string
		want     []string // "frame N, span M" per interruption
	}{
		{"onset before the start counts", "+..ooSvvv", []string{"frame 6, span 5"}},
		{"too short", "+..Svv_E...", nil},
		{"agent not speaking", "..Svvvvvvv_E", nil},
		{"agent stopped", "+-..Svvvvvvv_E", nil},
		{"agent starts mid-utterance", "Svvv+vvvvv", []string{"frame 8, span 5"}},
		{"once per agent utterance", "+Svvvvvvvvvv____E...Svvvvvv", []string{"frame 4, span 5"}},
		{"again in the next agent utterance", "+Svvvvv-+vvvvv", []string{"frame 4, span 5", "frame 10, span 5"}},
		// A cough, its hangover and another cough: the span is long
		// enough but less than half of the threshold was voiced.
		{"two coughs", "+S____v____E", nil},
		// Hangover alone never counts: only voiced frames decide.
		{"hangover after a short sound", "+Svv______E", nil},
		{"the end of an utterance starts over", "+Svv_EoSvvv", []string{"frame 9, span 5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBargeInDetector(5)
			var got []string
			idx, run := int64(0), 0
			for _, c := range tc.timeline {
				var act frameActivity
				switch c {
				case '+', '-':
					b.setAgentSpeaking(c == '+')
					continue
				case '.':
				case 'o':
					act.voiced = true
				case 'S':
					act = frameActivity{voiced: true, started: true, onsetFramesAgo: run, windowVoicedFrames: run + 1}
				case 'v':
					act = frameActivity{voiced: true, inUtterance: true}
				case '_':
					act = frameActivity{inUtterance: true}
				case 'E':
					act = frameActivity{inUtterance: true, ended: true}
				default:
					t.Fatalf("bad timeline character %q", c)
				}
				if c == 'o' {
					run++
				} else {
					run = 0
				}
				act.index = idx
				idx++
				if span, ok := b.observe(act); ok {
					got = append(got, fmt.Sprintf("frame %d, span %d", act.index, span))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("interruptions %q, want %q", got, tc.want)
			}
		})
	}
}
