package reports

import (
	"regexp"
	"strings"
)

// The fixed endings of the basic report's points that speak of the
// candidate, written to the reviewer; candidateWording gives each its
// wording to the candidate.
const (
	ownershipEnding = " says what the candidate did themselves."
	detailedEnding  = " gave context in the candidate's own words."
	generalEnding   = " gave no example, no part of the candidate's own and no outcome; worth probing."
)

// candidateWording maps each fixed reviewer ending to what the candidate
// reads on their feedback page.
var candidateWording = []struct{ reviewer, candidate string }{
	{ownershipEnding, " says what you did yourself."},
	{detailedEnding, " gave context in your own words."},
	{generalEnding, " gave no example, no part of your own and no outcome; an example of what you did and how it ended would make it stronger."},
}

// thirdPerson matches a report's words about the candidate in the third
// person, as the model's report is asked to write them: "the candidate's",
// "the candidate is / was / has / does" and "the candidate".
var thirdPerson = regexp.MustCompile(`\b([Tt])he candidate(?:'s|’s| (is|was|has|does))?\b`)

// youVerb is the candidate's own form of each verb thirdPerson
// matches.
var youVerb = map[string]string{"is": "are", "was": "were", "has": "have", "does": "do"}

// ForCandidate rewords a report point, written to the reviewer about "the
// candidate", for the candidate's own feedback page, addressing them as
// "you": the basic report's fixed endings get their own wording, and the
// words "the candidate" of any point become "you" (or "your"). Text that
// does not speak of the candidate is returned as it is.
func ForCandidate(text string) string {
	for _, w := range candidateWording {
		if strings.HasSuffix(text, w.reviewer) {
			return strings.TrimSuffix(text, w.reviewer) + w.candidate
		}
	}
	return thirdPerson.ReplaceAllStringFunc(text, func(m string) string {
		sub := thirdPerson.FindStringSubmatch(m)
		capital := sub[1] == "T"
		var out string
		switch {
		case strings.HasSuffix(m, "'s"), strings.HasSuffix(m, "’s"):
			out = "your"
		case sub[2] != "":
			out = "you " + youVerb[sub[2]]
		default:
			out = "you"
		}
		if capital {
			out = strings.ToUpper(out[:1]) + out[1:]
		}
		return out
	})
}
