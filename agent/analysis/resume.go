package analysis

import (
	"regexp"
	"strings"
)

// Limits of ResumeSummary.
const (
	maxSummaryRoles        = 3
	maxSummaryAchievements = 3
	maxSummarySkills       = 12
)

var (
	// mdLink is a markdown link "[text](url)"; its text is kept.
	mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	// markup is what markdown and HTML put around words.
	markup = regexp.MustCompile(`<[^>]+>|\*\*|__|` + "`" + `|^#+\s*|^\s*[-*•·▪◦]\s+|^\s*\d+[.)]\s+|\|`)
	// yearRange is a span of employment ("2019–2023", "2021 - today").
	yearRange = regexp.MustCompile(`(?i)\b(19|20)\d\d\s*(–|-|—|to)\s*((19|20)\d\d|today|present|now|current)\b`)
	// titleWord marks a line that names a job.
	titleWord = regexp.MustCompile(`(?i)\b(engineer|developer|programmer|manager|lead|architect|scientist|analyst|designer|director|consultant|head of|cto|vp|founder|administrator|specialist|intern)\b`)
	// achievement marks a sentence that claims a result with a number.
	achievementVerb = regexp.MustCompile(`(?i)\b(led|built|cut|reduced|increased|grew|migrated|launched|shipped|designed|scaled|saved|improved|delivered|owned|created|automated|mentored)\b`)
	figure          = regexp.MustCompile(`\d`)
	sentenceEnd     = regexp.MustCompile(`[.;!?]\s+`)
	// yearsOf is a length of experience ("eight years of Go", "5+ years").
	yearsOf = regexp.MustCompile(`(?i)\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\+?\s+years?\b`)
)

// ResumeSummary is what an interviewer needs of a résumé, in plain words
// and without markup: the roles held (latest first as written; else its
// headline), its length of experience, up to three achievements that
// carry a figure, and the technologies named.
// It reads the text as it is; it never invents. Empty text gives "".
func ResumeSummary(text string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = mdLink.ReplaceAllString(l, "$1")
		l = strings.Join(strings.Fields(markup.ReplaceAllString(strings.TrimSpace(l), " ")), " ")
		if l != "" {
			lines = append(lines, l)
		}
	}
	var roles, achievements, experience []string
	headline := ""
	seen := map[string]bool{}
	for _, l := range lines {
		for _, s := range splitSentences(l) {
			if headline == "" && titleWord.MatchString(s) && len(strings.Fields(s)) <= 8 && !strings.Contains(s, "@") {
				headline = s
			}
			switch {
			case len(experience) < 2 && yearsOf.MatchString(s) && !yearRange.MatchString(s):
				if !seen[s] {
					experience, seen[s] = append(experience, clipWords(s, 25)), true
				}
			case len(roles) < maxSummaryRoles && titleWord.MatchString(s) && (yearRange.MatchString(s) || strings.Contains(strings.ToLower(s), " at ")) && len(strings.Fields(s)) <= 16:
				s = firstClause(s)
				if !seen[s] {
					roles, seen[s] = append(roles, s), true
				}
			case len(achievements) < maxSummaryAchievements && achievementVerb.MatchString(s) && figure.MatchString(yearRange.ReplaceAllString(s, "")):
				if !seen[s] {
					achievements, seen[s] = append(achievements, clipWords(s, 30)), true
				}
			}
		}
	}
	var skills []string
	for _, m := range findSkills(text) {
		if len(skills) == maxSummarySkills {
			break
		}
		skills = append(skills, m.name)
	}
	if len(roles) == 0 && headline != "" {
		roles = []string{headline}
	}
	var b strings.Builder
	if len(roles) > 0 {
		b.WriteString("Roles: " + strings.Join(roles, "; ") + ". ")
	}
	if len(experience) > 0 {
		b.WriteString("Experience: " + strings.Join(trimDots(experience), "; ") + ". ")
	}
	if len(achievements) > 0 {
		b.WriteString("Achievements: " + strings.Join(trimDots(achievements), "; ") + ". ")
	}
	if len(skills) > 0 {
		b.WriteString("Skills: " + strings.Join(skills, ", ") + ".")
	}
	if b.Len() == 0 {
		// Nothing recognisable: the opening words, without markup.
		return clipWords(strings.Join(lines, " "), 60)
	}
	return strings.TrimSpace(b.String())
}

// splitSentences cuts a line after ". ", "; " and the like.
func splitSentences(l string) []string {
	var out []string
	for _, s := range sentenceEnd.Split(l, -1) {
		if s = strings.TrimSpace(strings.TrimRight(s, ".;")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// firstClause is a role line up to its first colon (what follows is what
// they did there).
func firstClause(s string) string {
	if i := strings.Index(s, ":"); i > 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

func trimDots(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.TrimRight(s, ".… ")
	}
	return out
}
