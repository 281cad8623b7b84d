package interviews

import (
	"fmt"
	"maps"
	"net/mail"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viva-interviews/viva/stages"
)

// Candidate is the person interviewed, as the recruiter registered them.
// The registration form, the JSON API, dispatch metadata, viva chat and the
// record all hold a candidate in this type and check it with Validate, so
// a candidate accepted in one place is accepted in every other.
type Candidate struct {
	// Name is the candidate's name as they want to be addressed; required,
	// one line of at most MaxNameLen characters.
	Name string `json:"name"`
	// Email is the candidate's email address, such as ada@example.com (a
	// bare address whose domain has a dot); optional.
	Email string `json:"email,omitempty"`
	// Role is the role applied for, free text ("Backend engineer"); required,
	// as the interviewer adapts its questions to it.
	Role string `json:"role"`
	// Level is the seniority level, one of stages.Levels; optional.
	Level string `json:"level"`
}

// The candidate's fields as forms, JSON bodies and dispatch metadata name
// them; FieldErrors are keyed by these names.
const (
	FieldName  = "name"
	FieldEmail = "email"
	FieldRole  = "role"
	FieldLevel = "level"
)

// FieldErrors says what is wrong with each field of an input, by field
// name; each message is a sentence for the person who typed the value and
// says what to enter instead. It is the error Validate returns.
type FieldErrors map[string]string

// Error lists the problems in field order: "name: Enter the candidate's
// name; role: …".
func (e FieldErrors) Error() string {
	parts := make([]string, 0, len(e))
	for _, f := range slices.Sorted(maps.Keys(e)) {
		parts = append(parts, f+": "+e[f])
	}
	return strings.Join(parts, "; ")
}

// Normalize cleans a candidate as typed: the name, email and role become
// single lines without surrounding or repeated spaces (line breaks, tabs
// and other control characters turn into spaces, invalid UTF-8 is
// dropped), and a known level is written as in stages.Levels ("Senior " →
// "senior"). An unknown level is kept, cleaned, for Validate to report.
func (c *Candidate) Normalize() {
	c.Name = CleanLine(c.Name)
	c.Email = CleanLine(c.Email)
	c.Role = CleanLine(c.Role)
	c.Level = CleanLine(c.Level)
	if level, err := stages.NormalizeLevel(c.Level); err == nil {
		c.Level = level
	}
}

// Validate checks a candidate (normalised with Normalize first when it
// comes from user input): a name and a role of at most MaxNameLen
// characters, an optional email address such as name@example.com, and an
// optional level from stages.Levels. It returns nil or FieldErrors with
// one message per wrong field.
func (c Candidate) Validate() error {
	errs := FieldErrors{}
	line := func(field, value, ifEmpty, what string) {
		switch {
		case strings.TrimSpace(value) == "":
			errs[field] = ifEmpty
		case utf8.RuneCountInString(value) > MaxNameLen:
			errs[field] = fmt.Sprintf("Keep %s to %d characters or fewer", what, MaxNameLen)
		}
	}
	line(FieldName, c.Name, "Enter the candidate's name", "the name")
	line(FieldRole, c.Role, "Enter the role the candidate is applying for, such as Backend engineer", "the role")
	if c.Email != "" && !validEmail(c.Email) {
		errs[FieldEmail] = "That doesn't look like an email address; use the form name@example.com, or leave it empty"
	}
	if c.Level != "" && !stages.ValidLevel(c.Level) {
		errs[FieldLevel] = "Choose a level: " + strings.Join(stages.Levels, ", ")
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// validEmail reports whether s is a bare address (no display name, no
// angle brackets) of at most MaxNameLen characters whose domain has a dot:
// "ada@example.com", not "ada@localhost".
func validEmail(s string) bool {
	if utf8.RuneCountInString(s) > MaxNameLen {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return strings.Contains(strings.Trim(domain, "."), ".")
}

// Clip shortens s to n characters, marking the cut with "…".
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// CleanLine trims a single-line input and turns any control characters
// (line breaks, tabs, Unicode line and paragraph separators) into spaces,
// collapsing runs of spaces; invalid UTF-8 is dropped.
func CleanLine(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
