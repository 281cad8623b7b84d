package lang

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// monthKey is the key of the name of month m (1–12).
func monthKey(m time.Month) Key { return Key("month." + strconv.Itoa(int(m))) }

// weekdayKey is the key of the name of weekday d (0 is Sunday).
func weekdayKey(d time.Weekday) Key { return Key("weekday." + strconv.Itoa(int(d))) }

// Date writes the day of t (in UTC) as tag's language writes it: "27
// November 2026", "27 de noviembre de 2026", "27. November 2026".
func Date(tag string, t time.Time) string {
	return fillDate(Text(tag, DateDay), tag, t.UTC())
}

// DateTime writes the day and time of t (in UTC) with its weekday, as
// tag's language writes it: "Friday 27 November 2026, 14:05 UTC",
// "viernes, 27 de noviembre de 2026, 14:05 UTC".
func DateTime(tag string, t time.Time) string {
	return fillDate(Text(tag, DateLong), tag, t.UTC())
}

// fillDate fills a date pattern's placeholders with t's parts in tag's
// language.
func fillDate(pattern, tag string, t time.Time) string {
	return strings.NewReplacer(
		"{weekday}", Text(tag, weekdayKey(t.Weekday())),
		"{day}", strconv.Itoa(t.Day()),
		"{month}", Text(tag, monthKey(t.Month())),
		"{year}", strconv.Itoa(t.Year()),
		"{time}", t.Format("15:04"),
	).Replace(pattern)
}

// Minutes says a length in whole minutes, rounded up, in tag's language:
// "8 minutes", "1 minute", "8 minutos", "8 Minuten".
func Minutes(tag string, d time.Duration) string {
	m := int(math.Ceil(d.Minutes()))
	if m == 1 {
		return Text(tag, MinuteOne)
	}
	return Textf(tag, MinutesShortf, m)
}

// FromAccept picks the shipped language a browser asks for first in its
// Accept-Language header ("de-DE,de;q=0.9,en;q=0.8" → "de"); the default
// when it asks for none of them. It is for pages shown before the
// interview, and so its language, is known.
func FromAccept(header string) string {
	best, bestQ := Default, 0.0
	for _, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		base := Base(strings.TrimSpace(tag))
		if _, ok := catalogues[base]; ok && q > bestQ {
			best, bestQ = base, q
		}
	}
	return best
}
