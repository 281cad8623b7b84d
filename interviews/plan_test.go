package interviews

import (
	"testing"
	"time"

	"github.com/viva-interviews/viva/stages"
)

func TestPlannedLength(t *testing.T) {
	bp := &stages.Blueprint{Stages: []stages.Stage{{Name: "a", Limit: 2 * time.Minute}, {Name: "b", Limit: 6 * time.Minute}, {Name: "c"}}}
	for _, tc := range []struct {
		scale float64
		want  time.Duration
	}{{0, 8 * time.Minute}, {1, 8 * time.Minute}, {0.5, 4 * time.Minute}, {2, 16 * time.Minute}} {
		if got := PlannedLength(bp, tc.scale); got != tc.want {
			t.Errorf("PlannedLength(scale %v) = %v, want %v", tc.scale, got, tc.want)
		}
	}
	if got := PlannedLength(nil, 1); got != 0 {
		t.Errorf("PlannedLength(nil) = %v, want 0", got)
	}
	if d := PlannedLength(stages.Default(), 1); d <= 0 {
		t.Errorf("the default plan promises %v", d)
	}
}
