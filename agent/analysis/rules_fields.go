package analysis

import (
	"regexp"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/stages"
)

// Rubric fields by rules. A field is filled from an answer to a question
// that targets it, with the kind of value it expects (a duration, a
// number, a role), the reason given for a motivation field ("Because I
// am excited about…") or, for any other field, the gist of a substantive
// answer. Unasked, a field is filled only from a sentence clearly about
// it: for a field expecting a kind of value, a sentence naming one of its
// keywords and holding such a value ("I have eight years of
// experience"); for a motivation field, a sentence giving a reason for
// the role itself ("I applied because the team…"); for any other, a
// sentence that echoes the field's own words ("the project I'm most
// proud of…"). The evidence is always quoted from that answer.

// motivationField matches the words of a field about why the candidate
// wants the role ("why_role", "Motivation", "What draws you to…").
var motivationField = regexp.MustCompile(`(?i)\b(?:why|motivations?|motivated|draws?|drew|attracts?|interests?|interested|excites?|excited|appeals?)\b`)

// isMotivationField reports whether a rubric field asks why the
// candidate wants the role, from its id, label and question.
func isMotivationField(f stages.RubricField) bool {
	if f.Expect != stages.ExpectAny {
		return false
	}
	return motivationField.MatchString(strings.ReplaceAll(f.ID, "_", " ") + " " + f.Label + " " + f.Question)
}

// motivationCue matches the ways people give a reason for wanting a role.
var motivationCue = regexp.MustCompile(`(?i)\bbecause\b|\b'?cause\b` +
	`|\bi(?:'m| am)\s+(?:really\s+|very\s+|so\s+|genuinely\s+|quite\s+)?(?:excited|interested|keen|passionate|drawn|eager|motivated|curious|looking for|looking to|hoping)\b` +
	`|\bwhat\s+(?:really\s+|mostly\s+)?(?:draws|drew|attracts|attracted|excites|excited|appeals to|appealed to|interests|interested)\s+me\b` +
	`|\b(?:drawn|attracted)\s+to\b|\b(?:excites|appeals to|interests|motivates|attracts)\s+me\b` +
	`|\bi(?:'d| would)\s+(?:really\s+)?(?:like|love)\s+to\b` +
	`|\bi\s+(?:really\s+|genuinely\s+|just\s+)?(?:want|wanted|hope|love|loved|enjoy|like)\b` +
	`|\b(?:the|my|main|biggest)\s+(?:main\s+)?reasons?\b|\bi\s+applied\b|\bwhy\s+i\s+applied\b` +
	`|\blooking\s+(?:for|to)\b|\bthe\s+chance\s+to\b|\bthe\s+opportunity\s+to\b`)

// roleObject matches what a reason for the role is about: the role, the
// job, the company, the team, the application.
var roleObject = regexp.MustCompile(`(?i)\b(?:this|the|your)\s+(?:\w+\s+)?(?:role|position|job|opportunity|company|team|mission|product)\b|\bapplied\b|\bapplying\b|\bjoin(?:ing)?\s+(?:you|your|the)\b|\bwork(?:ing)?\s+(?:here|with you|for you)\b`)

// findMotivation finds the reason an answer gives for wanting the role:
// the plausible sentence with a motivation cue and the most content. When
// aboutRole, the sentence must also be about the role itself.
func findMotivation(p *parsed, aboutRole bool) (found, bool) {
	best, bestContent := "", 0
	for _, s := range p.sents {
		text := p.text[s.start:s.end]
		if !motivationCue.MatchString(text) || aboutRole && !roleObject.MatchString(text) {
			continue
		}
		sub := parse(text)
		if sub.content < 2 || !plausible(sub) {
			continue
		}
		if sub.content > bestContent {
			best, bestContent = text, sub.content
		}
	}
	if best == "" {
		return found{}, false
	}
	value := strings.TrimSpace(leadingFiller.ReplaceAllString(strings.TrimRight(best, ".!?;"), ""))
	return found{clipWords(capitalize(value), gistWords), clipWords(best, evidenceWords)}, true
}

// findField finds the value of a rubric field an answer was asked for.
func findField(p *parsed, f stages.RubricField) (found, bool) {
	if isMotivationField(f) {
		if m, ok := findMotivation(p, false); ok {
			return m, true
		}
	}
	return findExpected(p, f.Expect)
}

// genericFieldWords are words of a field's label and question that say
// nothing of what the field is about.
var genericFieldWords = words.Set(`work career role job time day candidate candidates particular most one two three give
tell describe example examples put number which what how did does solved solve`)

// findUnasked finds the value of a rubric field in an answer to a
// question that did not target it, only from a sentence clearly about
// the field (see the comment at the top of this file).
func findUnasked(p *parsed, f stages.RubricField) (found, bool) {
	if isMotivationField(f) {
		return findMotivation(p, true)
	}
	echo := fieldWords(f)
	for _, s := range p.sents {
		sub := parse(p.text[s.start:s.end])
		if !plausible(sub) {
			continue
		}
		if f.Expect != stages.ExpectAny {
			if mentionsAny(sub, f.Keywords) {
				if v, ok := findExpected(sub, f.Expect); ok {
					return v, true
				}
			}
			continue
		}
		hits := 0
		for w := range echo {
			if sub.stems[w] {
				hits++
			}
		}
		if hits >= 2 {
			if v, ok := findGist(sub); ok {
				return v, true
			}
		}
	}
	return found{}, false
}

// fieldWords are the stems of the content words of a field's label,
// question and keywords.
func fieldWords(f stages.RubricField) map[string]bool {
	out := map[string]bool{}
	for _, t := range tokenize(f.Label + " " + f.Question + " " + strings.Join(f.Keywords, " ")) {
		if !isStop(t.lower) && !genericFieldWords[t.lower] && !isNumeral(t.lower) {
			out[stem(t.lower)] = true
		}
	}
	return out
}

// Skills the candidate says they lack.
var (
	// lackPerfect: "I haven't used Rust", "I've never worked with
	// Kafka", "never touched Terraform", "didn't get to use Spark".
	lackPerfect = regexp.MustCompile(`(?i)\b(?:haven't|have\s+not|hasn't|has\s+not|'ve\s+never|have\s+never|never|didn't\s+get\s+to|did\s+not\s+get\s+to|never\s+got\s+to|haven't\s+had\s+(?:a|the|any)\s+(?:chance|opportunity)\s+to)\s+` +
		`(?:\w+ly\s+|yet\s+|ever\s+|even\s+|really\s+|actually\s+)?(?:used|use|worked\s+(?:with|on|in)|work\s+(?:with|on|in)|touched|tried|written|write|coded\s+in|programmed\s+in|deployed|run|ran|been\s+exposed\s+to|dealt\s+with|had\s+(?:any\s+|much\s+)?(?:experience|exposure)\s+(?:with|in|of|to))\s+([^.;!?]+)`)
	// lackKnow: "I don't know Rust", "I'm not familiar with Kafka", "I
	// don't have any experience with PCI-DSS".
	lackKnow = regexp.MustCompile(`(?i)\b(?:(?:don't|do\s+not)\s+(?:really\s+)?(?:know|have\s+(?:any\s+|much\s+)?(?:experience|exposure|background)\s+(?:with|in|of|to))|(?:not|never\s+been)\s+(?:really\s+|very\s+)?familiar\s+with)\s+([^.;!?]+)`)
	// lackNoExperience: "no experience with Rust", "no real exposure to
	// Kafka".
	lackNoExperience = regexp.MustCompile(`(?i)\bno\s+(?:real\s+|direct\s+|hands-on\s+|professional\s+|production\s+|prior\s+|practical\s+|actual\s+)?(?:experience|exposure|background)\s+(?:with|in|of|to|using)\s+([^.;!?]+)`)
	// lackNamed: "no PCI-DSS experience", "zero Rust experience".
	lackNamed = regexp.MustCompile(`(?i)\b(?:no|zero|not\s+much|little)\s+([\w.+#/-]+(?:\s+[\w.+#/-]+)?)\s+(?:experience|exposure|background)\b`)
	// lackNew: "Rust is new to me".
	lackNew = regexp.MustCompile(`(?i)\b([\w.+#/-]+)\s+(?:is|would\s+be)\s+(?:\w+\s+)?new\s+to\s+me\b`)
	// clauseEnd cuts what follows a lack at the next clause: "Rust, but
	// I have used C++" lacks only Rust.
	clauseEnd = regexp.MustCompile(`(?i),|\s+(?:but|though|although|yet|because|so|since|while|whereas|however)\b|\s+and\s+(?:i|we|my|our)\b`)
	// bareNo is a whole answer that says no to a question about a skill.
	bareNo = regexp.MustCompile(`(?i)^(?:no|nope|not really|never|not yet|no never|no not yet|no not really|no i haven't|no i have not|i haven't|i have not|no i don't|no i've not|i've not|not at all|no sorry|sorry no|unfortunately not|no unfortunately)$`)
	// lapsed says a lack is only of late: "haven't used it since 2019",
	// "in years", "anymore".
	lapsed = regexp.MustCompile(`(?i)\b(?:since|anymore|any more|lately|recently|in (?:a while|years|ages|a long time)|for (?:a while|years|ages|a long time))\b`)
	// lackWords are the words between "no" and "experience" that name no
	// skill ("no real experience").
	lackWords = words.Set("real direct hands-on professional production prior practical actual relevant much previous commercial")
)

// findAbsent lists the skills the answer says the candidate lacks: the
// dictionary's technologies, the known skills and the question's target
// ("it", "that") named in a lack, and a technical-looking name in "no X
// experience".
func findAbsent(p *parsed, in AnswerInput) []string {
	target := in.Question.Context.Targets.Skill
	known := slices.Clone(in.Skills)
	if target != "" {
		known = append(known, target)
	}
	var out []string
	add := func(name string) {
		if name != "" && !slices.ContainsFunc(out, func(s string) bool { return strings.EqualFold(s, name) }) {
			out = append(out, name)
		}
	}
	named := func(tail string, loose bool) {
		if words := strings.Fields(tail); lapsed.MatchString(strings.Join(words[:min(6, len(words))], " ")) {
			return // "I haven't used Rust since university": had it once
		}
		if loc := clauseEnd.FindStringIndex(tail); loc != nil {
			tail = tail[:loc[0]]
		}
		tail = strings.TrimSpace(tail)
		lower := strings.ToLower(tail)
		n := len(out)
		for _, s := range known {
			if wordIndex(lower, strings.ToLower(s)) >= 0 {
				add(s)
			}
		}
		for _, m := range findSkills(tail) {
			add(canonical(m.name, known))
		}
		if len(out) > n {
			return
		}
		first, _, _ := strings.Cut(lower, " ")
		switch {
		case target != "" && (first == "it" || first == "that" || first == "them" || first == "this" || first == "those"):
			add(target)
		case loose && technical(tail) && !lackWords[lower]:
			add(tail)
		}
	}
	for _, re := range []*regexp.Regexp{lackPerfect, lackKnow, lackNoExperience} {
		for _, m := range p.findAll(re, []string{"n't", "not", "never", "no ", "familiar"}) {
			named(m[1], false)
		}
	}
	for _, re := range []*regexp.Regexp{lackNamed, lackNew} {
		for _, m := range p.findAll(re, []string{"experience", "exposure", "background", "new to me"}) {
			named(m[1], true)
		}
	}
	if target != "" && len(out) == 0 && bareNo.MatchString(normalizeQuestion(p.text)) {
		add(target)
	}
	return out
}

// canonical is the known skill's spelling of name, when known.
func canonical(name string, known []string) string {
	if i := slices.IndexFunc(known, func(s string) bool { return strings.EqualFold(s, name) }); i >= 0 {
		return known[i]
	}
	return name
}

// technical reports whether a name looks like a technology written by
// someone who knows it: one or two words with a capital, a digit or an
// inner hyphen, dot, slash, plus or hash ("PCI-DSS", "Node.js", "S3").
func technical(s string) bool {
	if s == "" || len(strings.Fields(s)) > 2 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return true
		case i > 0 && strings.ContainsRune("-./+#", r):
			return true
		}
	}
	return false
}

// without drops the names of remove from names, ignoring case.
func without(names, remove []string) []string {
	return slices.DeleteFunc(names, func(n string) bool {
		return slices.ContainsFunc(remove, func(r string) bool { return strings.EqualFold(n, r) })
	})
}
