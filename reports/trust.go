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
// blueprint's first stage (the greeting), else the first stage the record
// visited; "" when the interview never went past it (then everything the
// candidate said was said there, and is judged).
func openingStage(rec *interviews.Record, bp *stages.Blueprint) string {
	first := ""
	switch {
	case bp != nil && len(bp.Stages) > 0:
		first = bp.Stages[0].Name
	case len(rec.Stages) > 0:
		first = rec.Stages[0].Name
	}
	for _, v := range rec.Stages {
		if v.Name != first && v.Name != stages.Done {
			return first
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

// MinQuotedWords is the length, in words, from which a judged answer is
// quoted and judged on its own (a strength, a concern, its story, its key
// question): "Thanks." or "No, that's all." is no evidence of anything.
// Shorter answers still count in the figures and the communication score.
const MinQuotedWords = 5

// quotable reports whether a is judged and long enough to quote.
func (a *answer) quotable() bool { return !a.unclear && !a.opening && a.words >= MinQuotedWords }

// quotable returns the answers that may be quoted and judged on their own.
func (v *view) quotable() []*answer {
	var out []*answer
	for _, a := range v.answers {
		if a.quotable() {
			out = append(out, a)
		}
	}
	return out
}

// judgedFor returns the quotable answers to question id, in order.
func (v *view) judgedFor(id string) []*answer {
	var out []*answer
	for _, a := range v.byQuestion[id] {
		if a.quotable() {
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
