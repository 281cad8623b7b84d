// Package reportpdf lays out a feedback report as an A4 PDF with
// github.com/signintech/gopdf. It knows nothing of interviews: the caller
// gives it a Document already in words (headings, paragraphs, scored bars),
// so the PDF says exactly what the printable page says.
//
// The text is set in DejaVu Sans (regular and bold, embedded; see
// fonts/LICENSE), which covers the Latin, Greek and Cyrillic letters of
// candidates' names such as "Zoë" or "Bérénice".
package reportpdf

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/signintech/gopdf"
)

//go:embed fonts/DejaVuSans.ttf
var fontRegular []byte

//go:embed fonts/DejaVuSans-Bold.ttf
var fontBold []byte

// Font families registered in the document.
const (
	familyRegular = "dejavu"
	familyBold    = "dejavu-bold"
)

// A4 page geometry, in points.
const (
	pageWidthPt    = 595.28
	pageHeightPt   = 841.89
	marginPt       = 56.7 // 20 mm
	contentWidthPt = pageWidthPt - 2*marginPt
	barWidthPt     = 120.0
	barHeightPt    = 8.0
)

// Type sizes and line heights, in points.
const (
	titleSizePt    = 20
	subtitleSizePt = 11
	headingSizePt  = 14
	bodySizePt     = 10
	lineFactor     = 1.35
)

// Document is a report in words, ready to lay out.
type Document struct {
	// Title is the document's heading and its PDF title (the candidate's
	// name).
	Title string
	// Subtitle is the line under the title (role, plan, date).
	Subtitle string
	// Sections follow in order; each starts on a new page when
	// PageBreaks is set, else after a gap.
	Sections   []Section
	PageBreaks bool
	// CreatedAt is the document's creation date (its metadata).
	CreatedAt time.Time
}

// Section is a headed part of the document.
type Section struct {
	Heading string
	Lines   []Line
}

// Line is one paragraph of a section: text, in bold or not, optionally
// with a score bar (0–100) drawn before it.
type Line struct {
	Text string
	Bold bool
	// Score, when HasScore, draws a bar of Score/100 of its width.
	Score    float64
	HasScore bool
	// Indent moves the paragraph right (a quote under its point).
	Indent bool
}

// Write lays out doc and writes the PDF to w.
func Write(w io.Writer, doc Document) error {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	pdf.SetMargins(marginPt, marginPt, marginPt, marginPt)
	if err := pdf.AddTTFFontData(familyRegular, fontRegular); err != nil {
		return fmt.Errorf("reportpdf: loading the regular font: %w", err)
	}
	if err := pdf.AddTTFFontData(familyBold, fontBold); err != nil {
		return fmt.Errorf("reportpdf: loading the bold font: %w", err)
	}
	pdf.SetInfo(gopdf.PdfInfo{Title: doc.Title, Subject: "Interview feedback report", Creator: "viva", Producer: "viva", CreationDate: doc.CreatedAt})
	l := &layout{pdf: pdf}
	l.newPage()
	if err := l.paragraph(doc.Title, familyBold, titleSizePt, 0); err != nil {
		return err
	}
	if doc.Subtitle != "" {
		pdf.SetTextColor(90, 90, 90)
		if err := l.paragraph(doc.Subtitle, familyRegular, subtitleSizePt, 0); err != nil {
			return err
		}
		pdf.SetTextColor(0, 0, 0)
	}
	for i, s := range doc.Sections {
		if doc.PageBreaks && i > 0 {
			l.newPage()
		} else {
			l.gap(headingSizePt)
		}
		if err := l.section(s); err != nil {
			return err
		}
	}
	if err := pdf.Write(w); err != nil {
		return fmt.Errorf("reportpdf: writing: %w", err)
	}
	return nil
}

// layout places paragraphs top to bottom, adding pages as they fill.
type layout struct {
	pdf *gopdf.GoPdf
	y   float64
}

func (l *layout) newPage() {
	l.pdf.AddPage()
	l.y = marginPt
}

func (l *layout) gap(h float64) { l.y += h * 0.6 }

// room makes sure h points fit on the page, starting a new one if not.
func (l *layout) room(h float64) {
	if l.y+h > pageHeightPt-marginPt {
		l.newPage()
	}
}

func (l *layout) section(s Section) error {
	l.room(headingSizePt*lineFactor + bodySizePt*lineFactor*2) // keep a heading with its first lines
	if err := l.paragraph(s.Heading, familyBold, headingSizePt, 0); err != nil {
		return err
	}
	l.gap(bodySizePt / 2)
	for _, ln := range s.Lines {
		family := familyRegular
		if ln.Bold {
			family = familyBold
		}
		indent := 0.0
		if ln.Indent {
			indent = 18
		}
		if ln.HasScore {
			l.room(bodySizePt * lineFactor)
			l.bar(ln.Score)
			indent += barWidthPt + 8
		}
		if err := l.paragraph(ln.Text, family, bodySizePt, indent); err != nil {
			return err
		}
		l.gap(bodySizePt / 3)
	}
	return nil
}

// bar draws a score bar at the current line.
func (l *layout) bar(score float64) {
	score = min(max(score, 0), 100)
	top := l.y + (bodySizePt*lineFactor-barHeightPt)/2
	l.pdf.SetFillColor(225, 228, 235)
	l.pdf.RectFromUpperLeftWithStyle(marginPt, top, barWidthPt, barHeightPt, "F")
	l.pdf.SetFillColor(37, 99, 235)
	if w := barWidthPt * score / 100; w > 0 {
		l.pdf.RectFromUpperLeftWithStyle(marginPt, top, w, barHeightPt, "F")
	}
}

// paragraph writes text wrapped to the content width less indent.
func (l *layout) paragraph(text, family string, sizePt, indent float64) error {
	if err := l.pdf.SetFont(family, "", sizePt); err != nil {
		return fmt.Errorf("reportpdf: font: %w", err)
	}
	lineH := sizePt * lineFactor
	for _, para := range strings.Split(text, "\n") {
		lines, err := l.pdf.SplitTextWithWordWrap(para, contentWidthPt-indent)
		if err != nil {
			// An empty paragraph or one the font cannot measure: one blank
			// line rather than a failed document.
			lines = []string{""}
		}
		for _, ln := range lines {
			l.room(lineH)
			l.pdf.SetXY(marginPt+indent, l.y)
			if ln != "" {
				if err := l.pdf.Cell(&gopdf.Rect{W: contentWidthPt - indent, H: lineH}, ln); err != nil {
					return fmt.Errorf("reportpdf: text: %w", err)
				}
			}
			l.y += lineH
		}
	}
	return nil
}

// CountPages counts the page objects ("/Type /Page", not "/Type /Pages")
// of a PDF made by Write: a quick check that a document has pages.
func CountPages(pdf []byte) int {
	return bytes.Count(pdf, []byte("/Type /Page")) - bytes.Count(pdf, []byte("/Type /Pages"))
}
