package voice

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// recordingSink records each frame as its first sample and its mark:
// "3+" is frame 3 as utterance, "3-" as not.
type recordingSink struct {
	writes []string
	err    error
}

func (s *recordingSink) Write(frame []int16, inUtterance bool) error {
	mark := "-"
	if inUtterance {
		mark = "+"
	}
	s.writes = append(s.writes, fmt.Sprintf("%d%s", frame[0], mark))
	return s.err
}

// numberedFrame is a frame whose samples all hold n.
func numberedFrame(n int) []int16 {
	f := make([]int16, vadFrameSamples16kHz)
	for i := range f {
		f[i] = int16(n)
	}
	return f
}

// TestPreRollBuffer pushes numbered frames ('p') and flushes ('f') a
// three-frame delay line.
func TestPreRollBuffer(t *testing.T) {
	for _, tc := range []struct {
		ops  string
		want []string
	}{
		{"ppp", nil},
		{"pppp", []string{"0-"}},
		{"pppppp", []string{"0-", "1-", "2-"}},
		{"ppf", []string{"0+", "1+"}},
		{"pppppf", []string{"0-", "1-", "2+", "3+", "4+"}},
		// After a flush the line starts empty again.
		{"pppppfppppf", []string{"0-", "1-", "2+", "3+", "4+", "5-", "6+", "7+", "8+"}},
		{"f", nil},
	} {
		t.Run(tc.ops, func(t *testing.T) {
			sink := &recordingSink{}
			p := newPreRollBuffer(sink, 3)
			n := 0
			for _, op := range tc.ops {
				var err error
				switch op {
				case 'p':
					err = p.push(numberedFrame(n))
					n++
				case 'f':
					err = p.flush()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(sink.writes, tc.want) {
				t.Errorf("sink got %v, want %v", sink.writes, tc.want)
			}
		})
	}
}

func TestPreRollBufferSinkError(t *testing.T) {
	boom := errors.New("boom")
	sink := &recordingSink{err: boom}
	p := newPreRollBuffer(sink, 1)
	if err := p.push(numberedFrame(0)); err != nil {
		t.Fatalf("first push: %v", err)
	}
	if err := p.push(numberedFrame(1)); !errors.Is(err, boom) {
		t.Fatalf("push into a full line = %v, want %v", err, boom)
	}
	// The frame is kept all the same.
	if err := p.flush(); !errors.Is(err, boom) {
		t.Fatalf("flush = %v, want %v", err, boom)
	}
	if want := []string{"0-", "1+"}; !slices.Equal(sink.writes, want) {
		t.Errorf("sink got %v, want %v", sink.writes, want)
	}
}
