// Package lang holds the languages an interview can be held in: the
// check of a language tag (BCP 47, such as es or de-AT) and one catalogue
// per shipped language of everything viva itself says or shows to the
// candidate — the interviewer's fixed sentences (check-ins, the filler,
// apologies, the goodbye, stage-change acknowledgements, refusals), the
// texts of the candidate's pages and emails, and the names of months and
// weekdays its dates are written with (Date, DateTime). The model's own
// words are not here: its instructions tell it which language to speak.
//
// A language is shipped when it has a catalogue here; the catalogues are
// checked complete by the package's tests, so a sentence added in English
// and not translated fails them.
package lang

import (
	"fmt"
	"slices"
	"strings"
)

// Default is the language of an interview that names none: English.
const Default = "en"

// Language is one shipped language.
type Language struct {
	// Tag is its base BCP 47 tag: en, es, de.
	Tag string
	// Name is its name in English, as the interviewer's instructions and
	// the operator's messages say it ("Spanish").
	Name string
	// Native is its name in itself, as forms offer it ("Español").
	Native string
}

// Languages are the shipped languages, English first.
var Languages = []Language{
	{Tag: "en", Name: "English", Native: "English"},
	{Tag: "es", Name: "Spanish", Native: "Español"},
	{Tag: "de", Name: "German", Native: "Deutsch"},
}

// maxTagLen bounds a language tag; real ones are far shorter.
const maxTagLen = 35

// Parse checks a language tag as a person or a file wrote it and returns
// it in its canonical case ("ES-mx" → "es-MX", "de" → "de"): a BCP 47 tag
// of a shipped language (Languages), with an optional region or script
// ("es-419", "de-AT"). Empty input returns "" (the default applies). The
// error says what was wrong and which languages may be chosen.
func Parse(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if len(s) > maxTagLen {
		return "", fmt.Errorf("The language %q is too long for a language tag: %s", s[:maxTagLen]+"…", choose())
	}
	parts := strings.Split(strings.ReplaceAll(s, "_", "-"), "-")
	for i, p := range parts {
		if !subtag(p, i == 0) {
			return "", fmt.Errorf("The language %q is not a language tag: %s", s, choose())
		}
		switch {
		case i == 0:
			parts[i] = strings.ToLower(p)
		case len(p) == 2:
			parts[i] = strings.ToUpper(p)
		case len(p) == 4 && isLetters(p):
			parts[i] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:])
		default:
			parts[i] = strings.ToLower(p)
		}
	}
	if _, ok := catalogues[parts[0]]; !ok {
		return "", fmt.Errorf("Interviews cannot be held in %q yet: %s", s, choose())
	}
	return strings.Join(parts, "-"), nil
}

// subtag reports whether p is a well-formed subtag: the first 2 or 3
// letters, the others 1 to 8 letters or digits.
func subtag(p string, first bool) bool {
	if first {
		return len(p) >= 2 && len(p) <= 3 && isLetters(p)
	}
	if len(p) < 1 || len(p) > 8 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i] | 0x20; !(c >= 'a' && c <= 'z') && !(p[i] >= '0' && p[i] <= '9') {
			return false
		}
	}
	return true
}

func isLetters(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Tags are the shipped languages' tags, in Languages' order: en, es, de.
func Tags() []string {
	tags := make([]string, len(Languages))
	for i, l := range Languages {
		tags[i] = l.Tag
	}
	return tags
}

// choose says which languages may be chosen.
func choose() string {
	tags := Tags()
	for i, l := range Languages {
		tags[i] += " (" + l.Name + ")"
	}
	return "choose one of " + strings.Join(tags, ", ") + ", optionally with a region such as es-MX"
}

// Base is the language subtag of tag, lower case: "es" for "es-MX"; the
// default for "".
func Base(tag string) string {
	if tag == "" {
		return Default
	}
	base, _, _ := strings.Cut(tag, "-")
	return strings.ToLower(base)
}

// IsDefault reports whether tag is English (or empty), the language of
// the built-in designs and of the offline engines.
func IsDefault(tag string) bool { return Base(tag) == Default }

// Lookup returns the shipped language of tag; English for "" and for a
// language not shipped.
func Lookup(tag string) Language {
	base := Base(tag)
	if i := slices.IndexFunc(Languages, func(l Language) bool { return l.Tag == base }); i >= 0 {
		return Languages[i]
	}
	return Languages[0]
}

// Catalogue is one language's texts by key.
type Catalogue map[Key]string

// catalogues are the shipped catalogues by base tag.
var catalogues = map[string]Catalogue{"en": english, "es": spanish, "de": german}

// Text is the text of key in tag's language (English when the language
// or the key is missing from its catalogue; the tests keep them complete).
// Keys ending in "f" take fmt arguments: use Textf.
func Text(tag string, key Key) string {
	if s, ok := catalogues[Base(tag)][key]; ok {
		return s
	}
	return english[key]
}

// Textf is Text formatted with args (fmt.Sprintf verbs).
func Textf(tag string, key Key, args ...any) string {
	return fmt.Sprintf(Text(tag, key), args...)
}

// Prefixed returns the texts of tag's language whose keys start with
// prefix, keyed without it: the room page's script reads its texts so.
func Prefixed(tag, prefix string) map[string]string {
	out := map[string]string{}
	for k := range english {
		if rest, ok := strings.CutPrefix(string(k), prefix); ok {
			out[rest] = Text(tag, k)
		}
	}
	return out
}
