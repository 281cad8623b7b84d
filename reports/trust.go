package reports

import (
	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// What the report may take as evidence. A report judges the candidate only
// on answers that are theirs beyond doubt: typed, or spoken and heard with
// confidence (interviews.Turn.Heard); a spoken answer whose recogniser
// reported no confidence counts when it reads like speech
// (analysis.Plausible). Every other answer is unclear: listed in
// Report.UnclearTurns, never quoted nor judged. Answers to the opening
// stage (the greeting, "can you hear me", "are you ready") are logistics,
// never judged either.

// unclear reports whether the recogniser's transcript of t is too unsure
// to quote or judge.
func unclear(t *interviews.Turn) bool {
	switch t.Heard() {
	case interviews.HeardTyped, interviews.HeardConfident:
		return false
	case interviews.HeardUnsure:
		return true
	}
	return !analysis.Plausible(t.Text)
}

// openingStage names the stage whose answers are never judged: the
// blueprint's first stage (the greeting) when it has others after it, or,
// without a blueprint, the first stage the record visited when it visited
// more than one; "" when there is none.
func openingStage(rec *interviews.Record, bp *stages.Blueprint) string {
	if bp != nil {
		if len(bp.Stages) > 1 {
			return bp.Stages[0].Name
		}
		return ""
	}
	for _, v := range rec.Stages {
		if v.Name != rec.Stages[0].Name {
			return rec.Stages[0].Name
		}
	}
	return ""
}

// judged returns the answers the report may judge and quote: neither
// unclear nor in the opening stage.
func (v *view) judged() []*answer {
	out := make([]*answer, 0, len(v.answers))
	for _, a := range v.answers {
		if !a.unclear && !a.opening {
			out = append(out, a)
		}
	}
	return out
}

// judgedFor returns the judged answers to question id, in order.
func (v *view) judgedFor(id string) []*answer {
	var out []*answer
	for _, a := range v.byQuestion[id] {
		if !a.unclear && !a.opening {
			out = append(out, a)
		}
	}
	return out
}

// unclearTurns lists the turns of the unclear answers.
func unclearTurns(v *view) []int {
	var out []int
	for _, a := range v.answers {
		if a.unclear {
			out = append(out, a.turn.Seq)
		}
	}
	return out
}
