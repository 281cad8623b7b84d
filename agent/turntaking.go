package agent

import (
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/internal/words"
)

// Turn-taking defaults (LoopOptions).
const (
	// DefaultCutOffWindow is how soon after a reply starts playing the
	// candidate must speak again for the reply to count as cutting them
	// off: it is then stopped and dropped.
	DefaultCutOffWindow = time.Second
)

// backchannels are the short acknowledgements a listener murmurs while
// someone else talks; a transcript of nothing else is not a turn. They are
// in words.Normal's form: "mm-hm" is "mm hm", each word an
// acknowledgement.
var backchannels = map[string]bool{
	"mm": true, "mmm": true, "mhm": true, "mmhm": true, "mmhmm": true, "hm": true, "hmm": true,
	"uh huh": true, "uhhuh": true, "yeah": true, "yes": true, "yep": true, "yup": true, "okay": true, "ok": true,
	"right": true, "sure": true, "i see": true, "got it": true, "alright": true, "all right": true, "ah": true, "oh": true,
}

// IsBackchannel reports whether text is only an acknowledgement ("mm-hm",
// "yeah", "okay", "right", "uh-huh", "sure", repeated or combined).
func IsBackchannel(text string) bool {
	n := words.Normal(text)
	if n == "" {
		return false
	}
	if backchannels[n] {
		return true
	}
	for _, w := range strings.Fields(n) {
		if !backchannels[w] {
			return false
		}
	}
	return true
}

// IsRepeatRequest reports whether text asks to hear the last question
// again ("sorry, could you repeat that?"): analysis.IsRepeatRequest, the
// one rule the loop and the answer analysis share.
func IsRepeatRequest(text string) bool {
	return analysis.IsRepeatRequest(text)
}

// sentences splits text after each ".", "?" or "!" followed by a space.
func sentences(text string) []string {
	var out []string
	rest := strings.TrimSpace(text)
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return r == '.' || r == '?' || r == '!' })
		for i >= 0 && i+1 < len(rest) && rest[i+1] != ' ' {
			j := strings.IndexFunc(rest[i+1:], func(r rune) bool { return r == '.' || r == '?' || r == '!' })
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, strings.TrimSpace(rest[:i+1]))
		rest = strings.TrimSpace(rest[i+1:])
	}
	return out
}

// splitPlayed divides a reply's text into the sentences the candidate
// heard in full (by the word count of played) and the rest, from the
// sentence that was playing.
func splitPlayed(text, played string) (heard, rest string) {
	ss := sentences(text)
	n := len(strings.Fields(played))
	k, words := 0, 0
	for k < len(ss) {
		w := len(strings.Fields(ss[k]))
		if words+w > n {
			break
		}
		words += w
		k++
	}
	return strings.Join(ss[:k], " "), strings.Join(ss[k:], " ")
}
