package stages

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/internal/typo"
)

// The kinds of machine-readable "Skip if" condition.
const (
	// SkipCovered skips the question once a rubric field is covered.
	SkipCovered = "covered"
	// SkipKnown skips it once a skill's attribute has a value.
	SkipKnown = "known"
	// SkipMentioned skips it once the candidate has said a word or phrase.
	SkipMentioned = "mentioned"
)

// skipKinds lists the SkipCondition kinds.
var skipKinds = []string{SkipCovered, SkipKnown, SkipMentioned}

// SkipCondition is one machine-readable line of a template question's
// "Skip if" block, which the offline guide checks against what is known
// (a model reads the whole block as text).
type SkipCondition struct {
	// Kind is SkipCovered, SkipKnown or SkipMentioned.
	Kind string
	// Field is the rubric field id of a SkipCovered condition.
	Field string
	// Skill and Attribute (one of SkillAttributes) of a SkipKnown one.
	Skill, Attribute string
	// Word is the word or phrase of a SkipMentioned one.
	Word string
}

var skipLinePattern = regexp.MustCompile(`^\s*[-*+]\s+([A-Za-z_]+)\s*:\s*(.*?)\s*$`)

// parseSkipLine reads one "- kind: value" line. ok is false for lines of
// another shape; err says what is wrong with a line that means to be a
// condition but is broken.
func parseSkipLine(line string) (c SkipCondition, ok bool, err error) {
	m := skipLinePattern.FindStringSubmatch(line)
	if m == nil {
		return c, false, nil
	}
	kind, value := strings.ToLower(m[1]), m[2]
	if !slices.Contains(skipKinds, kind) {
		if s := typo.Closest(kind, skipKinds); s != "" {
			return c, false, fmt.Errorf("unknown condition %q (did you mean %q?); conditions are \"- covered: <rubric field>\", \"- known: <Skill>.<attribute>\" and \"- mentioned: <word>\"", m[1], s)
		}
		return c, false, nil
	}
	c.Kind = kind
	switch kind {
	case SkipCovered:
		if !stageNamePattern.MatchString(value) {
			return c, false, fmt.Errorf("\"covered: %s\" needs a rubric field id in lower case, such as \"covered: years_experience\"", value)
		}
		c.Field = value
	case SkipKnown:
		i := strings.LastIndex(value, ".")
		if i <= 0 || strings.TrimSpace(value[:i]) == "" {
			return c, false, fmt.Errorf("\"known: %s\" needs a skill and an attribute, such as \"known: Python.duration\"", value)
		}
		c.Skill, c.Attribute = strings.TrimSpace(value[:i]), strings.ToLower(strings.TrimSpace(value[i+1:]))
		if !slices.Contains(SkillAttributes, c.Attribute) {
			msg := fmt.Sprintf("%q is not a skill attribute", value[i+1:])
			if s := typo.Closest(c.Attribute, SkillAttributes); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return c, false, fmt.Errorf("\"known: %s\": %s; use one of %s", value, msg, strings.Join(SkillAttributes, ", "))
		}
	case SkipMentioned:
		if value == "" {
			return c, false, fmt.Errorf("\"mentioned:\" needs a word or phrase, such as \"mentioned: kubernetes\"")
		}
		c.Word = value
	}
	return c, true, nil
}

// SkipConditions returns the machine-readable conditions of a "Skip if"
// text: its lines "- covered: <rubric field id>", "- known:
// <Skill>.<attribute>" and "- mentioned: <word or phrase>". Other lines,
// and broken ones (ParseTemplate refuses those), are left out.
func SkipConditions(skipIf string) []SkipCondition {
	var out []SkipCondition
	for _, line := range strings.Split(skipIf, "\n") {
		if c, ok, _ := parseSkipLine(line); ok {
			out = append(out, c)
		}
	}
	return out
}

// checkSkipIf reports broken condition lines of a "Skip if" block.
func (p *templateParser) checkSkipIf(b *templateBlock) bool {
	ok := true
	for _, l := range b.lines {
		if _, _, err := parseSkipLine(l.text); err != nil {
			p.fail(l.n, "%v", err)
			ok = false
		}
	}
	return ok
}
