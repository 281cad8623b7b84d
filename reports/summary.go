package reports

import (
	"fmt"
	"strings"

	"github.com/viva-interviews/viva/interviews"
)

// summaryPoints bounds each list of Summary.
const summaryPoints = 3

// Summary is a report in a few lines for a terminal: who wrote it, the
// overall score and headline (a knowledge capture's topics instead), the
// strengths with the candidate's words, and the areas to probe (the
// improvements, then the gaps left open). The full report is in the
// record; the caller says where.
func Summary(rep *interviews.Report) string {
	var b strings.Builder
	by := "the basic report"
	if rep.Model != "" {
		by = "the report by " + rep.Model
	}
	if len(rep.Topics) > 0 {
		fmt.Fprintf(&b, "Summary (%s): %s\n", by, rep.Headline)
		for i, t := range rep.Topics {
			if i == summaryPoints {
				fmt.Fprintf(&b, "  … and %d more %s\n", len(rep.Topics)-i, plural(len(rep.Topics)-i, "topic", "topics"))
				break
			}
			fmt.Fprintf(&b, "  - %s (%d %s)\n", t.Title, len(t.Points), plural(len(t.Points), "point", "points"))
		}
		return strings.TrimRight(b.String(), "\n")
	}
	fmt.Fprintf(&b, "Overall (%s): %.0f/100", by, rep.OverallScore)
	if rep.Headline != "" {
		fmt.Fprintf(&b, " — %s", rep.Headline)
	}
	b.WriteString("\n")
	writePoints(&b, "Strengths", rep.Strengths, nil)
	writePoints(&b, "Areas to probe", rep.Improvements, rep.UnresolvedGaps)
	return strings.TrimRight(b.String(), "\n")
}

// writePoints writes a titled list: at most summaryPoints points, each
// with its quote, then at most summaryPoints gaps still open; nothing
// when both are empty.
func writePoints(b *strings.Builder, title string, points []interviews.Point, open []string) {
	if len(points) == 0 && len(open) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	for _, p := range points[:min(len(points), summaryPoints)] {
		fmt.Fprintf(b, "  - %s", p.Text)
		if q := strings.Join(strings.Fields(p.Quote), " "); q != "" {
			fmt.Fprintf(b, " (%q)", clipQuote(q))
		}
		b.WriteString("\n")
	}
	for i, g := range open {
		if i == summaryPoints {
			fmt.Fprintf(b, "  - … and %d more still open\n", len(open)-i)
			break
		}
		fmt.Fprintf(b, "  - Still open: %s\n", g)
	}
}
