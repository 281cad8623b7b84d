package reports

import (
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  interviews.Report
		want string
	}{
		{
			name: "basic report",
			rep: interviews.Report{Basic: true, OverallScore: 64.4, Headline: "Solid answers with figures",
				Strengths:      []interviews.Point{{Text: "Concrete figures.", Quote: "We cut  latency\nby 40%."}, {Text: "Clear ownership."}},
				Improvements:   []interviews.Point{{Text: "Be more specific.", Quote: "It went fine."}},
				UnresolvedGaps: []string{"Kafka — scale", "PostgreSQL — depth", "Rust — duration", "Go — autonomy"}},
			want: `Overall (the basic report): 64/100 — Solid answers with figures
Strengths:
  - Concrete figures. ("We cut latency by 40%.")
  - Clear ownership.
Areas to probe:
  - Be more specific. ("It went fine.")
  - Still open: Kafka — scale
  - Still open: PostgreSQL — depth
  - Still open: Rust — duration
  - … and 1 more still open`,
		},
		{
			name: "model report with nothing to probe",
			rep:  interviews.Report{Model: "openai:gpt-4o-mini", OverallScore: 81, Strengths: []interviews.Point{{Text: "Depth.", Quote: "I tuned the planner."}}},
			want: `Overall (the report by openai:gpt-4o-mini): 81/100
Strengths:
  - Depth. ("I tuned the planner.")`,
		},
		{
			name: "knowledge capture",
			rep: interviews.Report{Basic: true, Headline: "4 topics captured from 9 answers",
				Topics: []interviews.SummaryTopic{{Title: "Billing", Points: []string{"a", "b"}}, {Title: "On-call", Points: []string{"c"}},
					{Title: "Deploys"}, {Title: "Vendors"}}},
			want: `Summary (the basic report): 4 topics captured from 9 answers
  - Billing (2 points)
  - On-call (1 point)
  - Deploys (0 points)
  … and 1 more topic`,
		},
	} {
		if got := Summary(&tc.rep); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
