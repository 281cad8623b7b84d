package analysis

import (
	"strings"
	"testing"
)

// TestResumeSummary: a résumé in markdown becomes the roles, the
// achievements with figures and the technologies, in plain words.
func TestResumeSummary(t *testing.T) {
	resume := `# Sam Rivera
**Senior backend engineer** · sam@example.com · [GitHub](https://github.com/sam)

## Experience
### Senior backend engineer at Ledgerly (2019–today)
- Led the ledger service in Go: 40k payments a minute, 99.99% uptime.
- Built Kafka pipelines for settlement.
- Cut reconciliation errors by 90% with double-entry checks.

### Software engineer at Initech, 2015 - 2019
- Migrated 12 services from Python 2 to Python 3.

## Skills
Go, PostgreSQL, Kafka, Kubernetes | Terraform`
	got := ResumeSummary(resume)
	for _, want := range []string{
		"Roles: Senior backend engineer at Ledgerly (2019–today); Software engineer at Initech, 2015 - 2019.",
		"Led the ledger service in Go: 40k payments a minute, 99.99% uptime",
		"Cut reconciliation errors by 90% with double-entry checks",
		"Migrated 12 services from Python 2 to Python 3",
		"Skills: ", "Go", "PostgreSQL", "Kafka", "Kubernetes", "Terraform",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"#", "**", "](", "https://", "|", "Built Kafka pipelines"} {
		if strings.Contains(got, bad) {
			t.Errorf("summary holds %q:\n%s", bad, got)
		}
	}
	if got := ResumeSummary(""); got != "" {
		t.Errorf("empty résumé → %q", got)
	}
	if got := ResumeSummary("Just some words about me."); got != "Just some words about me." {
		t.Errorf("plain text → %q", got)
	}
}
