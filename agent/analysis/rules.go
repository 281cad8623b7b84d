package analysis

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// Rules is the offline Analyzer: keyword lists and patterns, deterministic
// and fast enough to run on every answer without a model. The zero value
// is ready to use.
type Rules struct{}

var _ Analyzer = Rules{}

// maxFacts is how many facts one answer yields at most.
const maxFacts = 4

// factWords is how long one fact may be, in words.
const factWords = 25

// evasions are what a candidate says when they cannot or will not
// answer (lower case, plain apostrophes; matched with either apostrophe).
var evasions = []string{
	"i don't know", "i dont know", "i do not know", "dunno", "no idea", "i'd rather not", "i would rather not", "rather not say",
	"rather not go into", "rather not talk about", "rather not discuss", "rather not get into",
	"prefer not to", "not sure", "can't remember", "cant remember", "cannot remember", "can't recall", "cannot recall",
	"don't remember", "don't recall", "no comment", "can't say", "cannot say", "can't share", "cannot share", "not able to say",
	"not able to share", "i'll pass", "i pass", "skip this", "skip that", "next question", "not allowed to say",
	"under nda", "under an nda", "under a nda", "covered by an nda", "covered by nda", "it's confidential", "that's confidential", "is confidential",
	"can't talk about", "cannot talk about", "can't go into", "cannot go into", "can't get into", "can't discuss", "cannot discuss",
	"not at liberty", "not allowed to talk about", "not allowed to discuss", "not comfortable sharing", "not comfortable talking about",
	"don't want to talk about", "don't want to go into", "i'd prefer not", "i would prefer not",
}

// evasion matches any of the evasions as whole words, or a whole answer
// of "pass".
var evasion = func() *regexp.Regexp {
	alts := make([]string, len(evasions))
	for i, e := range evasions {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(e), "'", "['’]")
	}
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(alts, "|") + `)\b|^\s*pass\s*(?:[.!,]|$)`)
}()

// isEvasive reports whether the text says the candidate cannot or will
// not answer.
func isEvasive(text string) bool {
	return evasion.MatchString(text)
}

// declines reports whether an answer declines its question: it is empty,
// or it is evasive and, once the evasion is taken out, says little and
// nothing specific ("I'd rather not go into that, it's under NDA"; not
// "I'm not sure, but around 40 people").
func declines(text string) bool {
	if strings.TrimSpace(text) == "" {
		return true
	}
	if !isEvasive(text) {
		return false
	}
	rest := parse(evasion.ReplaceAllString(text, " "))
	return rest.content <= 8 && !rest.specific()
}

// mayMatch reports whether lower holds any of the hints: a cheap test
// before a costly pattern.
func mayMatch(lower string, hints ...string) bool {
	for _, h := range hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// outcomeWords say how something turned out.
var outcomeWords = words.Set(`result resulted outcome impact improved improve reduced reduce increased increase saved save cut
shipped launched delivered grew dropped faster slower fixed solved won lost learned`)

// Answer analyses one answer by rules; see Analyzer. A request to repeat
// the question is no answer (RepeatRequest, nothing else). Skills the
// candidate says they lack are Absent, never mentioned Skills nor filled.
// Nothing is quoted from text that reads like a recogniser's garble (see
// Plausible): it fills nothing and states no fact.
func (Rules) Answer(_ context.Context, in AnswerInput) (AnswerResult, error) {
	res := AnswerResult{By: interviews.ByRules}
	if IsRepeatRequest(in.Answer) {
		res.RepeatRequest, res.Confidence = true, interviews.ConfidenceLow
		return res, nil
	}
	p := parse(in.Answer)
	q := in.Question
	targets := q.Context.Targets
	plaus := plausible(p)
	res.Absent = findAbsent(p, in)
	targetAbsent := targets.Skill != "" && slices.ContainsFunc(res.Absent, func(s string) bool { return strings.EqualFold(s, targets.Skill) })

	// Fills: from the question's targets, never guessed; unasked only
	// from a sentence clearly about the field.
	targetFilled, answered := false, false
	if plaus && targets.Skill != "" && targets.Attribute != "" && !targetAbsent {
		if f, ok := findAttribute(p, targets.Attribute); ok {
			res.Fills = append(res.Fills, Fill{Skill: targets.Skill, Attribute: targets.Attribute, Value: f.value, Evidence: f.evidence})
			targetFilled = targets.Attribute != "depth"
			answered = true
		}
	}
	if plaus && targets.Field != "" {
		field := stages.RubricField{ID: targets.Field}
		if i := slices.IndexFunc(in.Rubric, func(f stages.RubricField) bool { return f.ID == targets.Field }); i >= 0 {
			field = in.Rubric[i]
		}
		if f, ok := findField(p, field); ok {
			res.Fills = append(res.Fills, Fill{Field: targets.Field, Value: f.value, Evidence: f.evidence})
			targetFilled = field.Expect != stages.ExpectAny || isMotivationField(field)
			answered = true
		}
	}
	for _, field := range in.Rubric {
		if !plaus || field.ID == targets.Field {
			continue
		}
		if f, ok := findUnasked(p, field); ok {
			res.Fills = append(res.Fills, Fill{Field: field.ID, Value: f.value, Evidence: f.evidence})
		}
	}

	skills := slices.DeleteFunc(findSkills(in.Answer), func(m skillMatch) bool {
		return slices.ContainsFunc(res.Absent, func(s string) bool { return strings.EqualFold(s, m.name) })
	})
	res.Skills = skillNames(skills)

	evasive := isEvasive(in.Answer)
	res.Declined = !targetFilled && len(res.Absent) == 0 && declines(in.Answer)
	res.Confidence = confidence(p, in, len(skills), evasive, targetFilled, answered)
	switch {
	case res.Declined || !plaus:
		res.Confidence = interviews.ConfidenceLow
	case targetAbsent:
		// "I haven't used Rust" answers "How long have you used Rust?"
		// fully: nothing to press.
		res.Confidence = interviews.ConfidenceHigh
	}
	if !res.Declined && plaus {
		res.Facts = facts(p)
		res.Discovered = discover(p, in)
	}
	if res.Confidence != interviews.ConfidenceHigh && !res.Declined {
		res.FollowUp = followUp(p, in, skills, res.Absent)
	}
	return res, nil
}

// mentionsAny reports whether the answer mentions any of the phrases.
func mentionsAny(p *parsed, phrases []string) bool {
	for _, k := range phrases {
		if containsStems(p.stems, k) {
			return true
		}
	}
	return false
}

// confidence judges from substance (length, content words, the question's
// and stage's keywords, specifics, "I" statements) and evasion. An answer
// that gave the value its question targets is high (targetFilled); one
// that gave a free-form value (a gist) for it counts two points more
// (answered).
func confidence(p *parsed, in AnswerInput, skills int, evasive, targetFilled, answered bool) interviews.Confidence {
	if targetFilled && !evasive {
		return interviews.ConfidenceHigh
	}
	points := 0
	switch {
	case p.content >= 30:
		points += 3
	case p.content >= 15:
		points += 2
	case p.content >= 6:
		points++
	}
	hits := 0
	for _, k := range slices.Concat(in.Keywords, in.Question.Keywords, in.Question.Context.Targets.Assesses) {
		if containsStems(p.stems, k) {
			hits++
		}
	}
	points += min(hits, 2)
	specifics := 0
	for _, q := range p.nums {
		if !q.Year {
			specifics++
		}
	}
	specifics += p.names + skills
	points += min(specifics, 2)
	if p.firstSelf {
		points++
	}
	if evasive {
		points -= 2
	}
	if answered {
		points += 2
	}
	switch {
	case points >= 6:
		return interviews.ConfidenceHigh
	case points >= 3:
		return interviews.ConfidenceMedium
	}
	return interviews.ConfidenceLow
}

// Fact rewriting: filler to drop, and first person to third.
var (
	leadingFiller = regexp.MustCompile(`(?i)^(?:so|well|um+|uh+|yeah|yes|okay|ok|right|basically|honestly|actually|and|but|i think|i guess|i mean|i'd say|i would say|i believe|you know|(?:i'm |i am )?not (?:sure|certain)(?: exactly)?,? but|i don't know exactly,? but)\b[,\s]*`)
	pastIrregular = words.Set(`led built wrote ran made took chose did had was got gave went grew began drove found kept left
lost meant met paid put read said sent set spent stood taught told thought understood won brought bought caught fought
became broke came fell felt held knew rewrote rebuilt oversaw undertook saw shipped hired cut`)
	// modals and their negations keep their form: "I can" → "Can".
	modals  = words.Set("can could will would shall should may might must can't cannot couldn't won't wouldn't shouldn't don't didn't")
	adverbs = words.Set("also currently still mostly usually really just actually then mainly personally basically eventually finally later first once often")
	midSelf = strings.NewReplacer(" I'm ", " they're ", " I am ", " they are ", " I was ", " they were ", " I've ", " they've ",
		" I have ", " they have ", " I'd ", " they'd ", " I ", " they ", " my ", " their ", " me ", " them ", " me.", " them.",
		" myself", " themselves", " mine ", " theirs ", " I’m ", " they're ", " I’ve ", " they've ")
)

// facts are the answer's substantive sentences, each rewritten to stand
// alone in the third person, at most maxFacts.
func facts(p *parsed) []string {
	var out []string
	for _, s := range p.sents {
		text := p.text[s.start:s.end]
		sub := parse(text)
		if sub.content < 3 || sub.content < 8 && !sub.specific() && isEvasive(text) || !plausible(sub) {
			continue
		}
		if f := thirdPerson(text); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
		if len(out) == maxFacts {
			break
		}
	}
	return out
}

// thirdPerson rewrites a first-person sentence to stand alone: "I led a
// team of six" → "Led a team of six.", "I'm a backend engineer" → "Is a
// backend engineer.", "my team" → "their team".
func thirdPerson(s string) string {
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".!?;"))
	for {
		t := strings.TrimSpace(leadingFiller.ReplaceAllString(s, ""))
		if t == s || t == "" {
			break
		}
		s = t
	}
	s = " " + midSelfStart(s) + " "
	s = strings.TrimSpace(midSelf.Replace(midSelf.Replace(s)))
	if s == "" {
		return ""
	}
	return clipWords(capitalize(s), factWords) + "."
}

// midSelfStart rewrites a sentence that starts with "I" or "My".
func midSelfStart(s string) string {
	lower := strings.ToLower(s)
	for _, r := range []struct{ from, to string }{
		{"i'm ", "Is "}, {"i’m ", "Is "}, {"i am ", "Is "}, {"i've ", "Has "}, {"i’ve ", "Has "}, {"i have ", "Has "},
		{"i was ", "Was "}, {"i'd ", "Would "}, {"i'll ", "Will "}, {"my ", "Their "},
		{"i haven't ", "Hasn't "}, {"i have not ", "Has not "}, {"i've never ", "Has never "}, {"i have never ", "Has never "},
		{"i don't ", "Doesn't "}, {"i do not ", "Does not "}, {"i'm not ", "Is not "}, {"i am not ", "Is not "},
		{"i wasn't ", "Wasn't "}, {"i didn't ", "Didn't "},
	} {
		if strings.HasPrefix(lower, r.from) {
			return r.to + s[len(r.from):]
		}
	}
	if !strings.HasPrefix(lower, "i ") {
		return s
	}
	words := strings.Fields(s[2:])
	i := 0
	for i < len(words)-1 && adverbs[strings.ToLower(words[i])] {
		i++
	}
	if len(words) == 0 {
		return s
	}
	verb := strings.ToLower(words[i])
	if !strings.HasSuffix(verb, "ed") && !pastIrregular[verb] && !modals[verb] {
		words[i] = presentThird(words[i])
	}
	return capitalize(strings.Join(words, " "))
}

// presentThird puts a verb in the third person singular: "work" → "works",
// "manage" → "manages", "carry" → "carries", "do" → "does".
func presentThird(v string) string {
	switch l := strings.ToLower(v); {
	case l == "have":
		return "has"
	case l == "do" || l == "go":
		return v + "es"
	case strings.HasSuffix(l, "s") || strings.HasSuffix(l, "sh") || strings.HasSuffix(l, "ch") || strings.HasSuffix(l, "x"):
		return v + "es"
	case len(l) > 2 && strings.HasSuffix(l, "y") && !strings.ContainsRune("aeiou", rune(l[len(l)-2])):
		return v[:len(v)-1] + "ies"
	}
	return v + "s"
}

// Follow-up angles, in the order they are tried. Each names the topic
// with %s and applies when the answer lacks what it asks for.
var angles = []struct {
	text  string
	skip  *regexp.Regexp // the question already asked from this angle
	lacks func(p *parsed) bool
}{
	{
		text:  "Can you give me one concrete example from %s?",
		skip:  regexp.MustCompile(`(?i)\bexample|instance|time when\b`),
		lacks: func(p *parsed) bool { return p.names == 0 && len(p.nums) == 0 && p.content < 15 },
	},
	{
		text:  "What was your own part in %s, specifically?",
		skip:  regexp.MustCompile(`(?i)\byour (?:own )?(?:part|role|contribution)\b`),
		lacks: func(p *parsed) bool { return !p.firstSelf },
	},
	{
		text:  "How did %s turn out: what changed because of it?",
		skip:  regexp.MustCompile(`(?i)\b(?:outcome|result|impact|turn out)\b`),
		lacks: func(p *parsed) bool { return !hasAny(p, outcomeWords) },
	},
	{
		text:  "Can you put a number on %s: how big, how many or how long?",
		skip:  regexp.MustCompile(`(?i)\bhow (?:many|much|long|big)\b|\bnumbers?\b`),
		lacks: func(p *parsed) bool { return len(p.nums) == 0 },
	},
	{
		text:  "Looking back, what would you do differently in %s?",
		skip:  regexp.MustCompile(`(?i)\bdifferently\b`),
		lacks: func(*parsed) bool { return true },
	},
}

// hasAny reports whether the answer has any of the words (by stem or as
// written).
func hasAny(p *parsed, words map[string]bool) bool {
	for _, t := range p.toks {
		if words[t.lower] || words[stem(t.lower)] {
			return true
		}
	}
	return false
}

// followUp asks about the answer's most salient topic from an angle the
// answer left out and the question did not take; never about a skill the
// candidate said they lack.
func followUp(p *parsed, in AnswerInput, skills []skillMatch, absent []string) string {
	topic := salientTopic(p, in, skills, absent)
	asked := normalizeQuestion(in.Question.Text)
	for _, a := range angles {
		if a.skip.MatchString(in.Question.Text) || !a.lacks(p) {
			continue
		}
		q := fmt.Sprintf(a.text, topic)
		if normalizeQuestion(q) != asked {
			return q
		}
	}
	return fmt.Sprintf(angles[len(angles)-1].text, topic)
}

// salientTopic names what the answer (or, when it says little, the
// question) is most about, as a noun phrase for a follow-up.
func salientTopic(p *parsed, in AnswerInput, skills []skillMatch, absent []string) string {
	lacked := map[string]bool{} // the words of the absent skills' names
	for _, a := range absent {
		for _, t := range tokenize(a) {
			lacked[t.lower] = true
		}
	}
	switch t := in.Question.Context.Targets; {
	case len(skills) > 0:
		return "your work with " + skills[0].name
	case t.Skill != "" && !slices.ContainsFunc(absent, func(a string) bool { return strings.EqualFold(a, t.Skill) }):
		return "your work with " + t.Skill
	}
	if name := firstName(p, lacked); name != "" {
		return "the work involving " + name
	}
	return "that"
}

// firstName is the first capitalised word inside a sentence of the answer
// that is not a common word ("Ledger", "Priya") nor one of skip.
func firstName(p *parsed, skip map[string]bool) string {
	for i, t := range p.toks {
		if i == 0 || isStop(t.lower) || t.lower == "i" || strings.HasPrefix(t.lower, "i'") || skip[t.lower] {
			continue
		}
		if c := p.text[t.start]; c >= 'A' && c <= 'Z' && !sentenceStart(p.text, t.start) && !calendarWords[t.lower] {
			return p.text[t.start:t.end]
		}
	}
	return ""
}

// calendarWords are capitalised words that name a time, not a topic.
var calendarWords = words.Set(`january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday`)

// normalizeQuestion reduces a question to its lower-case words, for
// comparing two questions.
func normalizeQuestion(s string) string {
	toks := tokenize(s)
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.lower
	}
	return strings.Join(words, " ")
}

// What an answer may reveal.
var (
	personRole  = `(?:[a-z-]+ )?(?:manager|lead|boss|cto|ceo|cfo|coo|director|colleague|teammate|architect|mentor|pm|vp|founder|co-founder|predecessor|counterpart|head of [a-z]+)`
	personTitle = regexp.MustCompile(`(?i:\b(?:my|our|the)\s+(` + personRole + `))\s*,?\s+([A-Z][a-z]+)\b`)
	personAfter = regexp.MustCompile(`\b([A-Z][a-z]+),\s+(?i:(?:my|our|the)\s+(` + personRole + `))\b`)
	personFrom  = regexp.MustCompile(`\bwith\s+([A-Z][a-z]+)\s+(?:from|in|on)\s+(?:the\s+)?([A-Za-z]+(?:\s+team)?)`)
	systemNamed = regexp.MustCompile(`(?i:\b(?:our|the|a|their|an)\s+((?:[a-z]+\s+){0,2}?(?:service|system|platform|pipeline|tool|database|api|engine|cluster|app|library|framework|queue|dashboard|monolith)))\s+(?:called\s+|named\s+)?([A-Z][\w-]+)`)
	systemMoved = regexp.MustCompile(`(?i:\b(?:moved|migrated|switched|moving|migrating|switching|transitioned|ported|rewrote \w+ in))\s+(?:(?:\w+\s+){0,3}?(?i:to|onto|in)\s+)?([A-Z][\w.+#-]*)`)
	decidedTo   = regexp.MustCompile(`(?i)\b(?:we|i|the team|they|management|leadership)\s+(?:finally\s+|eventually\s+|ultimately\s+|then\s+)?(?:decided|chose|opted|agreed|made the (?:call|decision))\s+(to|that|on)\s+([^.;!?,]+)`)
	choseOver   = regexp.MustCompile(`(?i)\b(?:chose|picked|went with|selected|preferred|choosing|picking)\s+([\w.+#-]+(?:\s[\w.+#-]+)?)\s+over\s+([\w.+#-]+(?:\s[\w.+#-]+)?)`)
	personHints = []string{"manager", "lead", "boss", "cto", "ceo", "cfo", "coo", "director", "colleague", "teammate", "architect", "mentor", "pm ", "vp ", "founder", "predecessor", "counterpart", "head of"}
	systemHints = []string{"service", "system", "platform", "pipeline", "tool", "database", "api", "engine", "cluster", "app", "library", "framework", "queue", "dashboard", "monolith"}
	// whenClause is a decision's clause that says when, not what.
	whenClause = regexp.MustCompile(`(?i)^(?:after|before|when|during|following|once|in|at|on)\b`)
	// reasonStart ends a decision's clause where its reason begins.
	reasonStart = regexp.MustCompile(`(?i)\s+(?:because|since|so that|so|as|given|due to)\s+`)
	// You-form of a clause the candidate said in the first person.
	toSecond = strings.NewReplacer(" our ", " your ", " my ", " your ", " we ", " you ", " us ", " you ", " I ", " you ", " me ", " you ")
)

// discover finds the people, systems and decisions an answer revealed
// that are worth a question of their own.
func discover(p *parsed, in AnswerInput) []Discovered {
	var out []Discovered
	known := strings.ToLower(in.Question.Text + " " + strings.Join(in.Skills, " ") + " " + strings.Join(in.Recent, " "))
	seen := map[string]bool{}
	add := func(d Discovered, key string) {
		k := strings.ToLower(key)
		if seen[k] || isStop(k) {
			return
		}
		seen[k] = true
		out = append(out, d)
	}
	all := func(re *regexp.Regexp, hints ...string) [][]string { return p.findAll(re, hints) }
	// Decisions first: they matter most.
	for _, m := range all(choseOver, " over ") {
		add(Discovered{
			Text:     fmt.Sprintf("Why did you choose %s over %s, and would you choose the same today?", m[1], m[2]),
			Priority: stages.P0, About: fmt.Sprintf("choosing %s over %s", m[1], m[2]),
		}, m[0])
	}
	for _, m := range all(decidedTo, "decided", "chose", "opted", "agreed", "made the") {
		link := strings.ToLower(m[1])
		clause := reasonStart.Split(m[2], 2)[0]
		clause = strings.TrimSuffix(clipWords(strings.TrimSpace(toSecond.Replace(" "+clause+" ")), 12), "…")
		text := fmt.Sprintf("Why did you decide %s %s, and what else did you consider?", link, clause)
		if link == "that" && whenClause.MatchString(clause) {
			// "we decided that after the outage": the clause says when,
			// not what.
			text = fmt.Sprintf("What did you decide %s, and why?", clause)
		}
		add(Discovered{Text: text, Priority: stages.P0, About: "the decision " + link + " " + clause}, "decide "+clause)
	}
	person := func(name, role string) {
		if unknownName(name, known) {
			add(Discovered{
				Text:     fmt.Sprintf("How did you work with %s, your %s, and what did they own?", name, role),
				Priority: stages.P1, About: fmt.Sprintf("%s (%s)", name, role),
			}, name)
		}
	}
	for _, m := range all(personTitle, personHints...) {
		person(m[2], strings.ToLower(m[1]))
	}
	for _, m := range all(personAfter, personHints...) {
		person(m[1], strings.ToLower(m[2]))
	}
	for _, m := range all(personFrom, "with ") {
		name, team := m[1], m[2]
		if unknownName(name, known) {
			add(Discovered{
				Text:     fmt.Sprintf("What did %s from %s bring to this, and how did you work together?", name, team),
				Priority: stages.P1, About: fmt.Sprintf("%s (%s)", name, team),
			}, name)
		}
	}
	for _, m := range all(systemNamed, systemHints...) {
		kind, name := strings.ToLower(m[1]), m[2]
		if unknownName(name, known) {
			add(Discovered{
				Text:     fmt.Sprintf("What does %s, your %s, do, and what should someone know about it?", name, kind),
				Priority: stages.P1, About: fmt.Sprintf("%s (%s)", name, kind),
			}, name)
		}
	}
	for _, m := range all(systemMoved, "mov", "migrat", "switch", "transition", "port", "rewrote") {
		name := strings.TrimRight(m[1], ".")
		if unknownName(name, known) {
			add(Discovered{
				Text:     fmt.Sprintf("Why the move to %s, and how did the migration go?", name),
				Priority: stages.P1, About: "the move to " + name,
			}, name)
		}
	}
	return out
}

// unknownName reports whether a name is worth asking about: not a common
// word and not already in the question, the known skills or the recent
// conversation.
func unknownName(name, known string) bool {
	l := strings.ToLower(name)
	return !isStop(l) && wordIndex(known, l) < 0
}
