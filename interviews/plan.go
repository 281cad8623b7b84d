package interviews

import (
	"context"
	"time"

	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// PlannedLength is how long an interview on bp is planned to take: the sum
// of its stages' limits, each multiplied by scale as the interviewer's
// machine multiplies them (0 means 1). It is the one length every page,
// email and room promises the candidate; zero when the plan sets no
// limits.
func PlannedLength(bp *stages.Blueprint, scale float64) time.Duration {
	if bp == nil {
		return 0
	}
	if scale <= 0 {
		scale = 1
	}
	var total time.Duration
	for _, st := range bp.Stages {
		total += ScaledLimit(st, scale)
	}
	return total
}

// ScaledLimit is st's limit multiplied by scale, as the interviewer's
// machine applies it.
func ScaledLimit(st stages.Stage, scale float64) time.Duration {
	return time.Duration(float64(st.Limit) * scale)
}

// LengthInWords says a planned length in whole minutes, rounded up: "8
// minutes", "1 minute".
func LengthInWords(d time.Duration) string { return lang.Minutes(lang.Default, d) }

// RecordLength is how long rec's interview is planned to take: its
// blueprint at the record's version with the record's options
// (RecordBlueprint), scaled as PlannedLength scales it; zero when the
// blueprint cannot be read. lib nil reads the built-in designs only.
func RecordLength(ctx context.Context, lib Designs, rec *Record, scale float64) time.Duration {
	if lib == nil {
		lib = Library{}
	}
	bp, _, err := RecordBlueprint(ctx, lib, rec)
	if err != nil {
		return 0
	}
	return PlannedLength(bp, scale)
}
