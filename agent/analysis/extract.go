package analysis

import (
	"regexp"
	"strings"

	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/stages"
)

// parsed is an answer read once: its tokens, sentences, numbers and the
// counts the rules judge it by.
type parsed struct {
	text      string
	toks      []token
	stems     map[string]bool
	sents     []span
	nums      []quantity
	content   int  // content words (not stop words)
	firstSelf bool // "I"/"my"/"we" statements
	names     int  // capitalised words inside a sentence

	lowerSents []string // see lowerSentences
}

// parse reads an answer.
func parse(text string) *parsed {
	p := &parsed{text: text, toks: tokenize(text), sents: sentences(text)}
	p.stems = stemSet(p.toks)
	p.nums = quantities(p.toks)
	for i, t := range p.toks {
		if !isStop(t.lower) && !isNumeral(t.lower) {
			p.content++
		}
		switch t.lower {
		case "i", "i'm", "i've", "i'd", "my", "we", "we've", "our":
			p.firstSelf = true
		}
		if i > 0 && text[t.start] >= 'A' && text[t.start] <= 'Z' && t.lower != "i" && !strings.HasPrefix(t.lower, "i'") && !sentenceStart(text, t.start) {
			p.names++
		}
	}
	return p
}

// lowerSentences are the sentences in lower case, made once.
func (p *parsed) lowerSentences() []string {
	if p.lowerSents == nil {
		p.lowerSents = make([]string, len(p.sents))
		for i, s := range p.sents {
			p.lowerSents[i] = strings.ToLower(p.text[s.start:s.end])
		}
	}
	return p.lowerSents
}

// findAll runs a pattern on each sentence that holds one of the hints (a
// cheap test that spares the pattern most sentences).
func (p *parsed) findAll(re *regexp.Regexp, hints []string) [][]string {
	var out [][]string
	for i, lower := range p.lowerSentences() {
		if mayMatch(lower, hints...) {
			s := p.sents[i]
			out = append(out, re.FindAllStringSubmatch(p.text[s.start:s.end], -1)...)
		}
	}
	return out
}

// specific reports whether the text names a number (not a bare year) or a
// name.
func (p *parsed) specific() bool {
	if p.names > 0 {
		return true
	}
	for _, q := range p.nums {
		if !q.Year {
			return true
		}
	}
	return false
}

// sentenceStart reports whether the word at offset i begins a sentence.
func sentenceStart(text string, i int) bool {
	j := i - 1
	for j >= 0 && isSpace(text[j]) {
		j--
	}
	return j < 0 || strings.ContainsRune(".!?;:\"(", rune(text[j]))
}

// sentenceAt is the sentence holding byte offset i.
func (p *parsed) sentenceAt(i int) string {
	for _, s := range p.sents {
		if i >= s.start && i < s.end {
			return p.text[s.start:s.end]
		}
	}
	return p.text
}

// spanText is the text from the first to the last token, inclusive.
func (p *parsed) spanText(first, last int) string {
	return p.text[p.toks[first].start:p.toks[last].end]
}

// evidence quotes the sentence around offset i, clipped.
func (p *parsed) evidence(i int) string { return clipWords(p.sentenceAt(i), evidenceWords) }

// How long a quoted evidence or a value may be, in words.
const (
	evidenceWords = 24
	gistWords     = 14
)

// found is a value extracted from an answer, with the words it came from.
type found struct {
	value, evidence string
}

// Duration units and the words that hedge a duration ("about a decade").
var (
	durationUnits = words.Set("year years yr yrs month months week weeks decade decades")
	hedgeWords    = words.Set("about around over almost nearly roughly approximately maybe some just under more than less")
	sinceYear     = regexp.MustCompile(`(?i)\b(since|from)\s+((?:19|20)\d\d)\b`)
)

// findDuration finds a duration: "3 years", "three years", "a couple of
// years", "six months", "about a decade", "since 2019".
func findDuration(p *parsed) (found, bool) {
	for _, q := range p.nums {
		unit := tokAt(p.toks, q.Last+1)
		if unit == "of" && (tokAt(p.toks, q.Last+2) == "years" || tokAt(p.toks, q.Last+2) == "months") {
			q.Last++
			unit = tokAt(p.toks, q.Last+1)
		}
		if !durationUnits[unit] || q.Money || q.Percent {
			continue
		}
		return found{p.hedged(q.First, q.Last+1), p.evidence(p.toks[q.First].start)}, true
	}
	// "a decade", "a year and a half", "a few months".
	for i, t := range p.toks {
		if (t.lower == "a" || t.lower == "an") && durationUnits[tokAt(p.toks, i+1)] {
			return found{p.hedged(i, i+1), p.evidence(t.start)}, true
		}
	}
	if m := sinceYear.FindStringSubmatchIndex(p.text); m != nil {
		return found{p.text[m[0]:m[1]], p.evidence(m[0])}, true
	}
	return found{}, false
}

// hedged is the text from first to last, with a hedge word before it
// ("about", "over", "more than") included.
func (p *parsed) hedged(first, last int) string {
	for k := 0; k < 2 && first > 0 && hedgeWords[p.toks[first-1].lower]; k++ {
		first--
	}
	return p.spanText(first, last)
}

// scaleNouns are what a number measures when it speaks of scale.
var scaleNouns = words.Set(`users user customers customer clients requests request rps qps tps people engineers developers
devs members reports servers nodes machines instances services microservices transactions events messages records rows
orders tenants accounts sites stores countries regions teams tb gb pb mb terabytes gigabytes petabytes queries calls
downloads visitors subscribers merchants devices endpoints repos repositories tables jobs pipelines deployments deploys
million billion thousand`)

// teamOf matches "team of six", "a team of 12 engineers".
var teamOf = regexp.MustCompile(`(?i)\bteams?\s+of\s+(?:about\s+|around\s+)?(\S+)`)

// findScale finds a measure of scale: users, requests per second, team
// sizes, data volumes, money or percentages.
func findScale(p *parsed) (found, bool) {
	for _, q := range p.nums {
		if q.Year {
			continue
		}
		if q.Money || q.Percent {
			return found{p.hedged(q.First, q.Last), p.evidence(p.toks[q.First].start)}, true
		}
		if teamWord(p, q.First) {
			last := q.Last
			if scaleNouns[tokAt(p.toks, last+1)] {
				last++
			}
			return found{p.spanText(q.First-2, last), p.evidence(p.toks[q.First].start)}, true
		}
		last := q.Last
		// Up to two words between the number and its noun ("200k daily
		// active users").
		for k := 1; k <= 3 && last+k < len(p.toks); k++ {
			w := p.toks[last+k].lower
			if scaleNouns[w] {
				end := last + k
				if tokAt(p.toks, end+1) == "per" || tokAt(p.toks, end+1) == "a" && isPeriod(tokAt(p.toks, end+2)) {
					end += 2
				}
				return found{p.hedged(q.First, min(end, len(p.toks)-1)), p.evidence(p.toks[q.First].start)}, true
			}
			if isStop(w) && w != "of" || isNumeral(w) {
				break
			}
		}
	}
	return found{}, false
}

// teamWord reports whether "team of" comes just before token i.
func teamWord(p *parsed, i int) bool {
	return i >= 2 && p.toks[i-1].lower == "of" && (p.toks[i-2].lower == "team" || p.toks[i-2].lower == "teams")
}

func isPeriod(w string) bool {
	switch w {
	case "second", "minute", "hour", "day", "week", "month", "year":
		return true
	}
	return false
}

// Autonomy: who decided.
var (
	ownVerbs = regexp.MustCompile(`(?i)\bI\s+(?:personally\s+|single-handedly\s+|also\s+)?(decided|led|owned|own|lead|designed|architected|drove|chose|built|initiated|proposed|founded|started|ran|set up|wrote|made the call|was responsible|am responsible|took ownership|pushed for)\b[^.;!?]*`)
	ledVerbs = regexp.MustCompile(`(?i)\b(?:my|our|the)\s+(?:tech\s+|team\s+)?(?:lead|manager|boss|architect|cto|director|senior|principal)\s+(?:\w+\s+)?(decided|chose|designed|told me|assigned|gave me|wanted|picked)\b[^.;!?]*|\bI\s+was\s+(?:told|asked|assigned)\b[^.;!?]*|\bI\s+(?:just\s+)?followed\b[^.;!?]*`)
)

// findAutonomy says who decided: the candidate ("I decided", "I led") or
// someone else ("my lead decided", "I was told to").
func findAutonomy(p *parsed) (found, bool) {
	if m := ownVerbs.FindStringIndex(p.text); m != nil {
		return found{"independent: " + clipWords(p.text[m[0]:m[1]], gistWords), p.evidence(m[0])}, true
	}
	if m := ledVerbs.FindStringIndex(p.text); m != nil {
		return found{"directed: " + clipWords(p.text[m[0]:m[1]], gistWords), p.evidence(m[0])}, true
	}
	return found{}, false
}

// constraintWords name the constraints a piece of work was done under.
var constraintWords = []string{
	"deadline", "budget", "legacy", "compliance", "regulation", "regulatory", "gdpr", "hipaa", "pci", "sox", "audit",
	"latency", "sla", "uptime", "downtime", "backward compatibility", "backwards compatibility", "cost", "memory",
	"security", "small team", "headcount", "on-call", "limited", "tight", "migration window", "zero downtime", "throughput",
}

// findConstraints lists the constraints an answer names.
func findConstraints(p *parsed) (found, bool) {
	lower := strings.ToLower(p.text)
	var names []string
	first := -1
	for _, w := range constraintWords {
		if i := wordIndex(lower, w); i >= 0 {
			names = append(names, w)
			if first < 0 || i < first {
				first = i
			}
		}
	}
	if len(names) == 0 {
		return found{}, false
	}
	return found{strings.Join(names, ", "), p.evidence(first)}, true
}

// wordIndex is the offset of w in s as a whole word (or phrase), or -1.
func wordIndex(s, w string) int {
	for from := 0; ; {
		k := strings.Index(s[from:], w)
		if k < 0 {
			return -1
		}
		i := from + k
		if bounded(s, i, i+len(w)) {
			return i
		}
		from = i + len(w)
	}
}

// Production and prototype wording.
var (
	productionWords = []string{"in production", "production", "customers", "paying", "real users", "live", "shipped", "launched", "deployed", "at scale", "prod"}
	prototypeWords  = []string{"prototype", "proof of concept", "poc", "side project", "hackathon", "hobby", "toy", "personal project", "experiment", "pet project", "demo", "never shipped", "never went live"}
)

// findProduction says whether the work ran in production or stayed a
// prototype.
func findProduction(p *parsed) (found, bool) {
	lower := strings.ToLower(p.text)
	proto, prod := firstWord(lower, prototypeWords), firstWord(lower, productionWords)
	switch {
	case proto >= 0 && prod >= 0 && strings.Contains(lower, "never"):
		return found{"prototype", p.evidence(proto)}, true
	case proto >= 0 && prod >= 0:
		return found{"prototype, then production", p.evidence(min(proto, prod))}, true
	case proto >= 0:
		return found{"prototype", p.evidence(proto)}, true
	case prod >= 0:
		return found{"production", p.evidence(prod)}, true
	}
	return found{}, false
}

// firstWord is the offset of the earliest of words in s, or -1.
func firstWord(s string, words []string) int {
	best := -1
	for _, w := range words {
		if i := wordIndex(s, w); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// substantial reports whether an answer says something specific enough
// to stand as a depth or a free-form rubric value.
func substantial(p *parsed) bool {
	specifics := len(p.nums) + p.names
	return p.content >= 10 && (specifics > 0 || p.firstSelf) || p.content >= 25
}

// findGist is the gist of a substantive answer: its most specific
// sentence, clipped.
func findGist(p *parsed) (found, bool) {
	if !substantial(p) {
		return found{}, false
	}
	s := p.bestSentence()
	return found{clipWords(strings.TrimRight(s, ".!?;"), gistWords), clipWords(s, evidenceWords)}, true
}

// bestSentence is the sentence with the most content and specifics.
func (p *parsed) bestSentence() string {
	best, bestScore := p.text, -1
	for _, s := range p.sents {
		sub := parse(p.text[s.start:s.end])
		score := sub.content + 3*len(sub.nums) + 2*sub.names
		if score > bestScore {
			best, bestScore = p.text[s.start:s.end], score
		}
	}
	return best
}

// Roles: a job title or current position.
var (
	rolePhrase = regexp.MustCompile(`(?i)\b(?:I'm|I am|I work as|I'm working as|working as|currently|my (?:current )?(?:role|title|position|job) is|I've been|I have been|I was hired as|as)\s+(?:an?\s+|the\s+)?((?:[\w-]+\s+){0,3}?(?:engineer|developer|manager|lead|architect|designer|analyst|scientist|director|cto|ceo|vp|consultant|sre|administrator|admin|specialist|head of [\w ]+?|intern|founder|principal|programmer|tester|researcher|owner|officer))\b`)
)

// roleEmployer is the employer after a role ("at Acme Corp").
var roleEmployer = regexp.MustCompile(`^\s+(?:at|for|with)\s+([A-Z][\w.&-]*(?:\s+[A-Z][\w.&-]*)*)`)

// findRole finds a job title ("I'm a senior backend engineer at Acme").
func findRole(p *parsed) (found, bool) {
	m := rolePhrase.FindStringSubmatchIndex(p.text)
	if m == nil {
		return found{}, false
	}
	value := p.text[m[2]:m[3]]
	if at := roleEmployer.FindStringSubmatch(p.text[m[3]:]); at != nil {
		value += " at " + strings.TrimRight(at[1], ".")
	}
	return found{value, p.evidence(m[0])}, true
}

// findNumber finds any number with what it counts ("40%", "12 services",
// "$2 million").
func findNumber(p *parsed) (found, bool) {
	if f, ok := findScale(p); ok {
		return f, true
	}
	for _, q := range p.nums {
		if q.Year {
			continue
		}
		last := q.Last
		if next := tokAt(p.toks, last+1); next != "" && !isStop(next) {
			last++
		}
		return found{p.hedged(q.First, last), p.evidence(p.toks[q.First].start)}, true
	}
	return found{}, false
}

// findAttribute finds the value of one of stages.SkillAttributes.
func findAttribute(p *parsed, attribute string) (found, bool) {
	switch attribute {
	case "duration":
		return findDuration(p)
	case "scale":
		return findScale(p)
	case "autonomy":
		return findAutonomy(p)
	case "constraints":
		return findConstraints(p)
	case "production_vs_prototype":
		return findProduction(p)
	case "depth":
		return findGist(p)
	}
	return found{}, false
}

// findExpected finds a value of a rubric field's expected kind
// (stages.ExpectKinds).
func findExpected(p *parsed, expect string) (found, bool) {
	switch expect {
	case stages.ExpectDuration:
		return findDuration(p)
	case stages.ExpectNumber:
		return findNumber(p)
	case stages.ExpectRole:
		return findRole(p)
	}
	return findGist(p)
}
