package accounts

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"
)

// choosePassword is what the password policy's messages advise instead.
const choosePassword = "choose a passphrase of four or more unrelated words (such as \"tundra ladle orbit pepper\") or a password manager's random password"

// minDistinct is how many different characters a password must have.
const minDistinct = 5

//go:embed common_passwords.txt
var commonPasswordsText string

// commonPasswords holds the stems of common_passwords.txt.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for line := range strings.Lines(commonPasswordsText) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			m[line] = true
		}
	}
	return m
}()

// sequences are runs of characters a password may not be taken from:
// the alphabet, digits, keyboard rows and columns, forwards and backwards.
var sequences = func() []string {
	fwd := []string{
		"abcdefghijklmnopqrstuvwxyzabc",
		"012345678901234567890",
		"1234567890qwertyuiopasdfghjklzxcvbnm",
		"qwertzuiopasdfghjklyxcvbnm",
		"azertyuiopqsdfghjklmwxcvbn",
		"1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p",
		"qazwsxedcrfvtgbyhnujmikolp",
		"1q2w3e4r5t6y7u8i9o0p",
		"q1w2e3r4t5y6u7i8o9p0",
	}
	out := fwd
	for _, s := range fwd {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		out = append(out, string(r))
	}
	return out
}()

// lookAlikes reads digits and symbols written for letters as the letters.
var lookAlikes = strings.NewReplacer("@", "a", "4", "a", "0", "o", "1", "i", "!", "i", "3", "e", "$", "s", "5", "s", "7", "t", "+", "t", "8", "b", "9", "g", "|", "l")

// CheckPassword says what is wrong with password as the new password of
// the user with the (normalised) email address, or nil. It refuses, with
// ErrWeakPassword and advice on what to choose instead, passwords shorter
// than MinPasswordLen, with fewer than 5 different characters, made of a
// short part repeated, taken from a run of the alphabet, the digits or the
// keyboard, built on a common password (common_passwords.txt, ignoring
// case, digits and punctuation at either end, separators and look-alike
// characters such as 0 for o) or on the email address.
func CheckPassword(email, password string) error {
	if err := checkLength(password); err != nil {
		return err
	}
	weak := func(why string) error {
		return fmt.Errorf("%w: %s: %s", ErrWeakPassword, why, choosePassword)
	}
	lower := strings.ToLower(password)
	if distinct(lower) < minDistinct {
		return weak(fmt.Sprintf("it has fewer than %d different characters", minDistinct))
	}
	if unit := repeatedUnit(lower); unit != "" {
		return weak("it repeats " + fmt.Sprintf("%q", unit))
	}
	flat := stripSeparators(lower)
	for _, seq := range sequences {
		if strings.Contains(seq, flat) {
			return weak("it is a run of the alphabet, the digits or the keyboard")
		}
	}
	stem := lookAlikes.Replace(strings.TrimFunc(flat, notLetter))
	if commonPasswords[flat] || commonPasswords[stem] || commonPasswords[lookAlikes.Replace(flat)] {
		return weak("it is one of the most common passwords, or one with digits or symbols added")
	}
	if local, domain, ok := strings.Cut(NormalizeEmail(email), "@"); ok {
		label, _, _ := strings.Cut(domain, ".")
		local, label = stripSeparators(local), stripSeparators(label)
		switch {
		case len(local) >= 4 && (strings.Contains(flat, local) || strings.Contains(stem, local)):
			return weak("it contains the email address")
		case len(label) >= 4 && (flat == label || stem == label):
			return weak("it is the email address's domain")
		}
	}
	return nil
}

// distinct counts the different characters of s.
func distinct(s string) int {
	seen := map[rune]bool{}
	for _, r := range s {
		seen[r] = true
	}
	return len(seen)
}

// repeatedUnit returns the part s is made of when s is a part shorter
// than MinPasswordLen written two or more times (the last perhaps cut
// short), else "".
func repeatedUnit(s string) string {
	for n := 1; n < MinPasswordLen && n <= len(s)/2; n++ {
		if s[n:] == s[:len(s)-n] {
			return s[:n]
		}
	}
	return ""
}

// stripSeparators removes white space, dashes, dots and underscores.
func stripSeparators(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '.' || r == '_' {
			return -1
		}
		return r
	}, s)
}

// notLetter reports whether r is not a letter: digits and punctuation at
// either end of a password are trimmed before it is compared with the
// common ones.
func notLetter(r rune) bool { return !unicode.IsLetter(r) }
