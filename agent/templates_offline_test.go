package agent

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// roleAnswer is a candidate's answer that fits the question asked: a
// template question is answered on what it assesses, with an example and
// a result, as a prepared candidate would; anything else as fittingAnswer.
func roleAnswer(q stages.Question) string {
	a := q.Context.Targets.Assesses
	if q.Context.Kind != stages.KindTemplate || len(a) == 0 {
		return fittingAnswer(q)
	}
	return "In my last role this came up often. I would look at " + strings.Join(a, ", ") +
		". For example, last year I owned exactly this with my team, I decided the approach myself, and it cut the problems we had by about forty percent."
}

// TestShippedTemplatesAskMostOfTheirQuestions runs every shipped role
// template offline (scripted interviewer, rules analysis) on the default
// blueprint, for a candidate of the template's role who answers each
// question fittingly, and checks most of the template's questions are
// asked.
func TestShippedTemplatesAskMostOfTheirQuestions(t *testing.T) {
	// Most questions are asked; the rest are skipped because the
	// interview already knows what they ask (their "Skip if").
	const wantAsked, wantSettled = 0.7, 0.9
	for _, name := range stages.TemplateNames() {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tpl, err := stages.BuiltinTemplate(name)
				if err != nil {
					t.Fatal(err)
				}
				c := interview(t, stages.Default(), tpl, func(r *interviews.Record) { r.Candidate.Role = tpl.Title })
				converse(t, c, roleAnswer, 30*time.Second, 60)
				rec := flushed(t, c)
				asked := map[string]bool{}
				for _, q := range rec.Questions {
					if q.Context.Kind == stages.KindTemplate && q.Spoken() && !q.Withdrawn {
						asked[q.Context.Ref] = true
					}
				}
				// A question not asked because what its "Skip if" names is
				// already known is skipped as the template says.
				var skipped, missed []string
				for _, q := range tpl.Questions {
					switch {
					case asked[q.ID]:
					case c.guide.skip(rec, q):
						skipped = append(skipped, q.ID)
					default:
						missed = append(missed, q.ID)
					}
				}
				n := float64(len(tpl.Questions))
				share := float64(len(asked)) / n
				t.Logf("%s: %d of %d template questions asked (%.0f%%), %d skipped as their Skip if says (%s), %d not reached (%s); %d questions in all, exit %s after %d answers",
					name, len(asked), len(tpl.Questions), 100*share, len(skipped), strings.Join(skipped, ", "), len(missed), strings.Join(missed, ", "),
					len(rec.Questions), rec.Exit.Reason, rec.Exit.Turns)
				if share < wantAsked || float64(len(missed)) > (1-wantSettled)*n {
					t.Errorf("%s: %.0f%% of its questions asked and %d not reached; want at least %.0f%% asked and %.0f%% asked or skipped",
						name, 100*share, len(missed), 100*wantAsked, 100*wantSettled)
				}
			})
		})
	}
}
