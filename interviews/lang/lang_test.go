package lang

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCataloguesComplete fails when a shipped language misses a text of
// the English catalogue, has one English does not, or takes other
// arguments ("%s", "{name}") than the English one.
func TestCataloguesComplete(t *testing.T) {
	for _, l := range Languages {
		c, ok := catalogues[l.Tag]
		if !ok {
			t.Errorf("language %s (%s) is listed but has no catalogue", l.Tag, l.Name)
			continue
		}
		for k, en := range english {
			s, ok := c[k]
			switch {
			case !ok || strings.TrimSpace(s) == "":
				t.Errorf("%s catalogue: missing %q (English: %q)", l.Name, k, en)
			case !slices.Equal(placeholders(s), placeholders(en)):
				t.Errorf("%s catalogue: %q has placeholders %v, English has %v", l.Name, k, placeholders(s), placeholders(en))
			case strings.HasSuffix(string(k), "f") != strings.Contains(en, "%"):
				t.Errorf("key %q: a key ends in f exactly when its text takes fmt arguments", k)
			}
		}
		for k := range c {
			if _, ok := english[k]; !ok {
				t.Errorf("%s catalogue: %q is not an English key", l.Name, k)
			}
		}
	}
	if len(catalogues) != len(Languages) {
		t.Errorf("%d catalogues for %d listed languages", len(catalogues), len(Languages))
	}
}

// placeholders lists the fmt verbs and {names} of s, sorted.
func placeholders(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			if i+1 < len(s) {
				out = append(out, s[i:i+2])
				i++
			}
		case '{':
			if j := strings.IndexByte(s[i:], '}'); j > 0 {
				out = append(out, s[i:i+j+1])
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "", ""},
		{"es", "es", ""},
		{" ES-mx ", "es-MX", ""},
		{"de_at", "de-AT", ""},
		{"es-419", "es-419", ""},
		{"en-Latn-GB", "en-Latn-GB", ""},
		{"fr", "", `Interviews cannot be held in "fr" yet: choose one of en (English), es (Spanish), de (German)`},
		{"spanish!", "", "is not a language tag"},
		{"e", "", "is not a language tag"},
		{"es--MX", "", "is not a language tag"},
		{"../../etc/passwd", "", "is not a language tag"},
		{strings.Repeat("a", 40), "", "too long"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	if got := Text("es-MX", Filler); got != "Deme un momento." {
		t.Errorf("Text(es-MX, Filler) = %q", got)
	}
	if got := Text("", Filler); got != "Give me a moment." {
		t.Errorf("Text(\"\", Filler) = %q", got)
	}
	if got := Textf("de", WelcomeBackNamef, "Ada"); got != "Willkommen zurück, Ada. Wir hatten Sie kurz verloren." {
		t.Errorf("Textf(de, WelcomeBackNamef) = %q", got)
	}
	if got := Prefixed("es", "js.")["you"]; got != "Usted" {
		t.Errorf("Prefixed(es, js.)[you] = %q", got)
	}
	if Lookup("de-AT").Name != "German" || Lookup("xx").Tag != "en" {
		t.Errorf("Lookup: %+v %+v", Lookup("de-AT"), Lookup("xx"))
	}
}

func TestDates(t *testing.T) {
	at := time.Date(2026, 11, 27, 14, 5, 0, 0, time.UTC)
	for _, tc := range []struct{ tag, day, long string }{
		{"en", "27 November 2026", "Friday 27 November 2026, 14:05 UTC"},
		{"es-MX", "27 de noviembre de 2026", "viernes, 27 de noviembre de 2026, 14:05 UTC"},
		{"de", "27. November 2026", "Freitag, 27. November 2026, 14:05 UTC"},
	} {
		if got := Date(tc.tag, at); got != tc.day {
			t.Errorf("Date(%s) = %q, want %q", tc.tag, got, tc.day)
		}
		if got := DateTime(tc.tag, at.In(time.FixedZone("CET", 3600))); got != tc.long {
			t.Errorf("DateTime(%s) = %q, want %q", tc.tag, got, tc.long)
		}
	}
	if got := Minutes("de", 7*time.Minute+time.Second); got != "8 Minuten" {
		t.Errorf("Minutes(de) = %q", got)
	}
}

func TestFromAccept(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "en",
		"de-DE,de;q=0.9,en;q=0.8": "de",
		"fr-FR,fr;q=0.9,es;q=0.7": "es",
		"en;q=0.5, es-MX;q=0.8":   "es",
		"fr":                      "en",
		"es;q=oops,de;q=0.1":      "de",
		"*":                       "en",
	} {
		if got := FromAccept(in); got != want {
			t.Errorf("FromAccept(%q) = %q, want %q", in, got, want)
		}
	}
}
