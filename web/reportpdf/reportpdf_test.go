package reportpdf

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// utf16Hex is how gopdf writes a metadata string: code points in hex.
func utf16Hex(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "%04X", r)
	}
	return b.String()
}

func TestWriteMakesAPDFWithPagesAndTheName(t *testing.T) {
	long := strings.Repeat("A long rationale that wraps over several lines of the page. ", 40)
	doc := Document{
		Title:      "Zoë Bérénice",
		Subtitle:   "Backend engineer · Default interview",
		PageBreaks: true,
		CreatedAt:  time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Sections: []Section{
			{Heading: "Overall", Lines: []Line{{Text: "72 / 100 — solid", Bold: true}}},
			{Heading: "Competencies", Lines: []Line{
				{Text: "Communication 80", Score: 80, HasScore: true},
				{Text: long, Indent: true},
				{Text: ""},
			}},
		},
	}
	var buf bytes.Buffer
	if err := Write(&buf, doc); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Fatalf("the PDF starts with %q", data[:min(len(data), 16)])
	}
	pages := CountPages(data)
	if pages < 2 {
		t.Errorf("%d page objects, want at least 2 (a page break between sections)", pages)
	}
	if !bytes.Contains(data, []byte(utf16Hex("Zoë Bérénice"))) {
		t.Error("the PDF does not carry the candidate's name")
	}
}
