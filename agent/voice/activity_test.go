package voice

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// scriptedClassifier answers from a voicing pattern: 'v' voiced, anything
// else unvoiced. After the pattern it answers err (or unvoiced).
type scriptedClassifier struct {
	pattern string
	next    int
	err     error
}

func (c *scriptedClassifier) voiced(*[vadFrameSamples16kHz]int16) (bool, error) {
	if c.next >= len(c.pattern) {
		return false, c.err
	}
	v := c.pattern[c.next] == 'v'
	c.next++
	return v, nil
}

func TestFramer16kHz(t *testing.T) {
	const totalSamples = 10*vadFrameSamples16kHz + 17
	ramp := make([]int16, totalSamples)
	for i := range ramp {
		ramp[i] = int16(i)
	}
	for _, chunkSamples := range []int{1, 113, vadFrameSamples16kHz - 1, vadFrameSamples16kHz, vadFrameSamples16kHz + 1, 960, totalSamples} {
		t.Run(fmt.Sprint(chunkSamples), func(t *testing.T) {
			var f framer16kHz
			var frames [][]int16
			for pcm := ramp; len(pcm) > 0; {
				chunk := pcm[:min(chunkSamples, len(pcm))]
				pcm = pcm[len(chunk):]
				for len(chunk) > 0 {
					var full bool
					if chunk, full = f.fill(chunk); full {
						frames = append(frames, slices.Clone(f.frame[:]))
					}
				}
			}
			if len(frames) != totalSamples/vadFrameSamples16kHz {
				t.Fatalf("%d frames, want %d", len(frames), totalSamples/vadFrameSamples16kHz)
			}
			for k, got := range frames {
				if want := ramp[k*vadFrameSamples16kHz : (k+1)*vadFrameSamples16kHz]; !slices.Equal(got, want) {
					t.Fatalf("frame %d starts at sample %d, want %d", k, got[0], want[0])
				}
			}
			if f.fillSamples != 17 {
				t.Errorf("partial frame holds %d samples, want 17", f.fillSamples)
			}
		})
	}
}

// TestVoiceActivity runs the start and end rules on scripted voicing
// (60 ms to start: 3 of 5 frames; 100 ms to end: 5 frames). The timeline
// marks each frame: '_' outside an utterance, 'S' the start, 'u' inside,
// 'E' the end.
func TestVoiceActivity(t *testing.T) {
	warmup := strings.Repeat(".", vadWarmupFrames)
	outside := strings.Repeat("_", vadWarmupFrames)
	for _, tc := range []struct {
		name     string
		voicing  string // after the warm-up
		timeline string // after the warm-up
		starts   []string
		ends     []int // silentFrames of each end
	}{
		{
			name:     "three voiced frames start, five silent end",
			voicing:  "...vvv.....",
			timeline: "_____SuuuuE",
			starts:   []string{"onset 2 ago, 3 voiced"},
			ends:     []int{5},
		},
		{
			name:     "two voiced frames do not start",
			voicing:  "..vv...vv..",
			timeline: "___________",
		},
		{
			name:     "voiced frames with gaps start from the oldest in the window",
			voicing:  "v.v.v......",
			timeline: "____SuuuuE_",
			starts:   []string{"onset 4 ago, 3 voiced"},
			ends:     []int{5},
		},
		{
			name:     "a voiced frame restarts the silence count",
			voicing:  "vvv....v.....",
			timeline: "__SuuuuuuuuuE",
			starts:   []string{"onset 2 ago, 3 voiced"},
			ends:     []int{5},
		},
		{
			name:     "two utterances",
			voicing:  "vvvv.....vvv.....",
			timeline: "__SuuuuuE__SuuuuE",
			starts:   []string{"onset 2 ago, 3 voiced", "onset 2 ago, 3 voiced"},
			ends:     []int{5, 5},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Voiced warm-up frames only train the detector.
			c := &scriptedClassifier{pattern: strings.Repeat("v", vadWarmupFrames) + tc.voicing}
			a := newVoiceActivity(c, 60*time.Millisecond, 100*time.Millisecond)
			var (
				timeline strings.Builder
				starts   []string
				ends     []int
			)
			for k := range len(c.pattern) {
				act, err := a.classify()
				if err != nil {
					t.Fatal(err)
				}
				if act.index != int64(k) {
					t.Fatalf("frame %d has index %d", k, act.index)
				}
				switch {
				case act.started:
					timeline.WriteByte('S')
					starts = append(starts, fmt.Sprintf("onset %d ago, %d voiced", act.onsetFramesAgo, act.windowVoicedFrames))
				case act.ended:
					timeline.WriteByte('E')
					ends = append(ends, act.silentFrames)
				case act.inUtterance:
					timeline.WriteByte('u')
				default:
					timeline.WriteByte('_')
				}
				if act.speaking() != (act.started || (act.inUtterance && !act.ended)) {
					t.Fatalf("frame %d: speaking() inconsistent with %+v", k, act)
				}
			}
			if got, want := timeline.String(), outside+tc.timeline; got != want {
				t.Errorf("timeline\n got %s\nwant %s\n(voicing %s%s)", got, want, warmup, tc.voicing)
			}
			if !slices.Equal(starts, tc.starts) || !slices.Equal(ends, tc.ends) {
				t.Errorf("starts %q ends %v, want %q %v", starts, ends, tc.starts, tc.ends)
			}
		})
	}
}

func TestVoiceActivityClassifierError(t *testing.T) {
	boom := errors.New("boom")
	c := &scriptedClassifier{pattern: strings.Repeat(".", vadWarmupFrames) + "vv", err: boom}
	a := newVoiceActivity(c, 60*time.Millisecond, 100*time.Millisecond)
	for range len(c.pattern) {
		if _, err := a.classify(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.classify(); !errors.Is(err, boom) {
		t.Fatalf("classify = %v, want %v", err, boom)
	}
	// The failed frame is not counted: the next answer is the third
	// voiced frame of the window and starts the utterance.
	c.pattern += "v"
	act, err := a.classify()
	if err != nil {
		t.Fatal(err)
	}
	if act.index != int64(len(c.pattern)-1) || !act.started {
		t.Fatalf("after the error: %+v, want frame %d to start an utterance", act, len(c.pattern)-1)
	}
}

// TestVoiceActivityTailFloor: inside an utterance, frames under the tail
// floor count as silence whatever the classifier says, so the fade after
// the last word does not delay the end of speech; a run of such frames
// still starts an utterance (a quiet speaker is heard).
func TestVoiceActivityTailFloor(t *testing.T) {
	level := func(rms int16) []int16 {
		f := make([]int16, vadFrameSamples16kHz)
		for i := range f {
			f[i] = rms * int16(1-2*(i%2))
		}
		return f
	}
	run := func(floor float64, frames [][]int16) (startAt, endAt, silent int) {
		c := &scriptedClassifier{pattern: strings.Repeat("v", vadWarmupFrames+len(frames))}
		a := newVoiceActivity(c, 60*time.Millisecond, 100*time.Millisecond)
		a.tailFloor = floor
		startAt, endAt = -1, -1
		for k, f := range append(slices.Repeat([][]int16{level(0)}, vadWarmupFrames), frames...) {
			if _, full := a.fill(f); !full {
				t.Fatalf("frame %d not whole", k)
			}
			act, err := a.classify()
			if err != nil {
				t.Fatal(err)
			}
			if act.started && startAt < 0 {
				startAt = k - vadWarmupFrames - act.onsetFramesAgo
			}
			if act.ended && endAt < 0 {
				endAt, silent = k-vadWarmupFrames, act.silentFrames
			}
		}
		return startAt, endAt, silent
	}
	speech := append(slices.Repeat([][]int16{level(1000)}, 8), slices.Repeat([][]int16{level(40)}, 12)...)
	if start, end, silent := run(tailFloorRMS, speech); start != 0 || end != 12 || silent != 5 {
		t.Errorf("with the floor: start %d, end %d after %d silent frames; want 0, 12, 5", start, end, silent)
	}
	if _, end, _ := run(0, speech); end != -1 {
		t.Errorf("without the floor the fade the classifier calls voiced ended the utterance at frame %d", end)
	}
	if start, _, _ := run(tailFloorRMS, slices.Repeat([][]int16{level(40)}, 6)); start != 0 {
		t.Errorf("a quiet voiced run started no utterance (start %d)", start)
	}
}
