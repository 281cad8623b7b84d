package terminal

import (
	"fmt"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/interviews"
)

// EndingInWords says in words why an interview ended, for a person reading
// a terminal: "the closing remarks were delivered", "the input ended", …
// The words are the record's own (interviews.EndReason.InWords), addressed
// to the candidate.
func EndingInWords(r interviews.EndReason) string {
	return r.InWords(interviews.CandidateYou)
}

// statusInWords is the start of the summary for a final status.
func statusInWords(s interviews.Status) string {
	switch s {
	case interviews.StatusCompleted:
		return "The interview is complete"
	case interviews.StatusCandidateLeft:
		return "You left the interview before the end"
	case interviews.StatusFailed:
		return "The interview stopped on an error"
	}
	return "The interview ended"
}

// Summary is the one line that ends an interview in the terminal: how it
// ended in words, how many answers in how long, and where the record is,
// e.g. "The interview is complete: the closing remarks were delivered
// (9 answers, 6 minutes). Record: data/interviews/abc.json".
func Summary(rec *interviews.Record, path string) string {
	answers := 0
	for _, t := range rec.Turns {
		if t.Role == interviews.RoleCandidate && !agent.IsRepeatRequest(t.Text) {
			answers++ // "could you repeat the question?" is no answer
		}
	}
	counts := plural(answers, "answer")
	if rec.StartedAt != nil && rec.EndedAt != nil {
		counts += ", " + durationInWords(rec.EndedAt.Sub(*rec.StartedAt))
	}
	return fmt.Sprintf("%s: %s (%s). Record: %s", statusInWords(rec.Status), EndingInWords(rec.EndedBy), counts, path)
}

// durationInWords rounds d to whole minutes, or seconds under a minute.
func durationInWords(d time.Duration) string {
	if d < time.Minute {
		return plural(int(d.Round(time.Second)/time.Second), "second")
	}
	return plural(int(d.Round(time.Minute)/time.Minute), "minute")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
