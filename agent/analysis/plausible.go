package analysis

import (
	"strings"

	"github.com/viva-interviews/viva/internal/words"
)

// Plausibility: an offline recogniser (pocketsphinx) turns speech it
// cannot follow into strings of real but unrelated words — "ah what do you
// want but hm we rebuild but when i bought one and ah", "three hundred and
// the and that can that's". Such text must never be quoted back as
// evidence, a fact or a strength. It reads unlike speech in ways a few
// counts catch: few content words for its length, no verb, determiners
// followed by words that cannot follow them ("an a", "the and"), and the
// same short words over and over.

// fillerSounds are hesitations and interjections: neither content nor
// function words, left out of the counts.
var fillerSounds = words.Set("ah ahh uh uhh um umm uhm er erm hm hmm mm mmm m oh eh lol")

// determiners cannot be followed by the words of notAfterDeterminer.
var (
	determiners        = words.Set("a an the")
	notAfterDeterminer = words.Set(`a an the and or but of to in on at by for from with is was are were be been it i you we he
she they me him them us that this what when where while which who do did does can could will would should if so not ah
uh um hm`)
)

// verbs are common verbs and auxiliaries that "-ed"/"-ing" and
// pastIrregular do not catch; a sentence of speech nearly always has one.
var verbs = words.Set(`am is are was were be been being 's 're 've 'm have has had do does did can could will would shall
should may might must i'm i've i'd i'll we're we've we'd we'll you're it's that's there's he's she's they're they've
don't doesn't didn't can't couldn't won't wouldn't isn't wasn't aren't weren't haven't hasn't hadn't shouldn't
use uses work works make makes take takes build builds lead leads run runs manage manages own owns write writes design
designs want wants like likes love loves think know knows need needs help helps move moves ship ships fix fixes try
tries get gets go goes come comes see sees say says tell tells give gives keep keeps start starts stop stops find finds
learn learns join joins apply applies enjoy enjoys mean means feel feels look looks seem seems call calls deploy
deploys scale scales test tests review reviews mentor mentors handle handles solve solves grow grows support supports
hear let set put cut spend spends drive drives choose chooses migrate migrates improve improves reduce reduces`)

// disagreements are a subject followed by a verb form it cannot take
// ("i were", "we is"): speech has them rarely, garble often.
var disagreements = map[string]map[string]bool{
	"i":    words.Set("is are were has does"),
	"we":   words.Set("is am was has does"),
	"they": words.Set("is am was has does"),
	"you":  words.Set("is am was has does"),
	"he":   words.Set("am are were have do"),
	"she":  words.Set("am are were have do"),
}

// modalBefore are modals, after which a finite form cannot come ("will
// still are").
var (
	modalBefore  = words.Set("can could will would shall should may might must")
	finiteForms  = words.Set("is are was were am has does did")
	modalAdverbs = words.Set("not still also just really never always probably definitely")
)

// afterModal reports whether the words after a modal start, past its
// adverbs, with a finite verb form.
func afterModal(rest []string) bool {
	for _, w := range rest {
		if !modalAdverbs[w] {
			return finiteForms[w]
		}
	}
	return false
}

// Thresholds of Plausible.
const (
	// plausibleShortWords is the length up to which a text is not judged
	// by its shape: "Three years.", "Kubernetes, mostly."
	plausibleShortWords = 3
	// garbleScore is the count of signs of garble at which a text is
	// garbled.
	garbleScore = 2
)

// Plausible reports whether text reads like something a person said
// rather than a speech recogniser's garble. Short answers ("Yes.",
// "Three years.") are plausible when they carry a content word or a
// number. Longer ones are garbled when they show two signs of garble:
// few content words for their length (one sign below 30 %, two below
// 20 %), no verb and nothing specific (a number, a name or a skill), a
// determiner followed by what cannot follow it ("an a", "the and"), a
// subject with a verb it cannot take ("i were"), the same word twice in
// a row or the same pair of short words again.
//
// It catches the shapes of garble, not its sense: a recogniser's
// grammatical nonsense ("the odd about that an adult") can pass.
func Plausible(text string) bool {
	return plausible(parse(text))
}

// plausible is Plausible for a parsed text.
func plausible(p *parsed) bool {
	var words []string
	for _, t := range p.toks {
		if !fillerSounds[t.lower] {
			words = append(words, t.lower)
		}
	}
	n := len(words)
	if n == 0 {
		return false
	}
	content, verb := 0, false
	for _, w := range words {
		if !isStop(w) && !isNumeral(w) {
			content++
		}
		if verbs[w] || pastIrregular[w] || len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")) {
			verb = true
		}
	}
	if n <= plausibleShortWords {
		return content > 0 || len(p.nums) > 0
	}
	score := 0
	switch ratio := float64(content) / float64(n); {
	case ratio < 0.2:
		score += 2
	case ratio < 0.3:
		score++
	}
	if !verb && len(p.nums) == 0 && p.names == 0 && len(findSkills(p.text)) == 0 {
		score++
	}
	seen := map[string]int{}
	for i, w := range words {
		if i > 0 && words[i-1] == w {
			score++ // "the the", "what what"
			continue
		}
		if determiners[w] && (i == n-1 || notAfterDeterminer[words[i+1]] && words[i+1] != w) {
			score++
		}
		if i+1 < n && disagreements[w][words[i+1]] || modalBefore[w] && afterModal(words[i+1:]) {
			score++
		}
		if i > 0 && isStop(words[i-1]) && isStop(w) {
			pair := words[i-1] + " " + w
			if seen[pair]++; seen[pair] == 2 {
				score++
			}
		}
	}
	return score < garbleScore
}
