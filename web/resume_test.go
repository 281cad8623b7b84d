package web

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews"
)

// buildPDF writes a one-page PDF showing lines in Helvetica (WinAnsi
// encoding), its content stream Flate-compressed when compress is set. An
// empty lines draws a line and no text, like a scanned page.
func buildPDF(t testing.TB, header string, lines []string, compress bool) []byte {
	t.Helper()
	var content bytes.Buffer
	if len(lines) == 0 {
		content.WriteString("0 0 m 100 100 l S\n")
	} else {
		content.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, l := range lines {
			l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
			fmt.Fprintf(&content, "(%s) Tj T*\n", l)
		}
		content.WriteString("ET\n")
	}
	stream, filter := content.Bytes(), ""
	if compress {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(stream)
		zw.Close()
		stream, filter = z.Bytes(), " /Filter /FlateDecode"
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(stream), filter, stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	return assemblePDF(header+"\n%\xe2\xe3\xcf\xd3\n", objs)
}

// assemblePDF writes a PDF of the given objects (numbered from 1, the
// first the catalog) with a cross-reference table and trailer.
func assemblePDF(header string, objs []string) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// docxPart is one file of a DOCX archive.
type docxPart struct {
	name string
	data []byte
}

// buildDOCX zips the parts of a minimal Word document.
func buildDOCX(t testing.TB, documentXML string, extra ...docxPart) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	parts := append([]docxPart{
		{"[Content_Types].xml", []byte(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)},
		{"word/document.xml", []byte(documentXML)},
	}, extra...)
	for _, p := range parts {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(p.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

var sampleDocumentXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + wordNS + `><w:body>
<w:p><w:r><w:t>Ada Lovelace</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Analyst </w:t></w:r><w:r><w:tab/><w:t>1843</w:t></w:r></w:p>
<w:p><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del><w:r><w:t>Kept &amp; escaped &lt;tag&gt; — Zürich</w:t></w:r></w:p>
<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>HYPERLINK "x"</w:instrText></w:r><w:r><w:t>link text</w:t></w:r><w:r><w:br/><w:t>after break</w:t></w:r></w:p>
<mc:AlternateContent><mc:Choice Requires="wps"><w:p><w:r><w:t>Text box</w:t></w:r></w:p></mc:Choice><mc:Fallback><w:p><w:r><w:t>Text box</w:t></w:r></w:p></mc:Fallback></mc:AlternateContent>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Go</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Rust</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>`

func pngBytes() []byte {
	return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
}

func TestExtractResume(t *testing.T) {
	latin1 := buildPDF(t, "%PDF-1.4", []string{"Ada Lovelace", "Jos\xe9 worked (hard) on engines", "Skills: Go, C"}, true)
	tests := []struct {
		name     string
		filename string
		data     []byte
		want     string
	}{
		{"pdf compressed", "cv.pdf", latin1, "Ada Lovelace\nJosé worked (hard) on engines\nSkills: Go, C"},
		{"pdf plain, upper-case extension", "CV.PDF", buildPDF(t, "%PDF-1.7", []string{"Grace Hopper"}, false), "Grace Hopper"},
		{"pdf 2.0 header", "cv.pdf", buildPDF(t, "%PDF-2.0", []string{"PDF two"}, false), "PDF two"},
		{"pdf with trailing garbage", "cv.pdf", append(buildPDF(t, "%PDF-1.4", []string{"Trailing"}, true), "\x00\x00\r\n  junk"...), "Trailing"},
		{"docx", "cv.docx", buildDOCX(t, sampleDocumentXML), "Ada Lovelace\nAnalyst \t1843\nKept & escaped <tag> — Zürich\nlink text\nafter break\nText box\nGo\nRust"},
		{"txt", "cv.txt", []byte("\xef\xbb\xbfAda Lovelace\r\nMathematician\r\n\r\n\r\n\r\nLondon\t1843   \n"), "Ada Lovelace\nMathematician\n\nLondon\t1843"},
		{"markdown", "cv.md", []byte("# Ada Lovelace\n\n* Notes on the *Analytical Engine*\n"), "# Ada Lovelace\n\n* Notes on the *Analytical Engine*"},
		{"markdown long extension", "notes.markdown", []byte("## Grace\n"), "## Grace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractResume(context.Background(), tt.filename, tt.data)
			if err != nil {
				t.Fatalf("ExtractResume: %v", err)
			}
			if got != tt.want {
				t.Errorf("text\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestExtractResumeRejects(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	pdfDoc := buildPDF(t, "%PDF-1.4", []string{"Ada"}, true)
	// 40 MB of paragraphs compress to a few hundred kilobytes.
	huge := bytes.Repeat([]byte("<w:p/>"), 40<<20/6)
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document ` + wordNS + `><w:body>`))
	w.Write(huge)
	zw.Close()
	lying := lieAboutSize(t, bomb.Bytes())

	tests := []struct {
		name     string
		ctx      context.Context
		filename string
		data     []byte
		msg      string
	}{
		{"png renamed pdf", nil, "cv.pdf", pngBytes(), msgResumeType},
		{"exe", nil, "setup.exe", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"), msgResumeType},
		{"exe renamed txt", nil, "cv.txt", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"), msgResumeType},
		{"no extension", nil, "resume", []byte("Ada Lovelace"), msgResumeType},
		{"old word", nil, "cv.doc", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), msgResumeType},
		{"text renamed pdf", nil, "cv.pdf", []byte("Ada Lovelace"), msgResumeMismatch},
		{"pdf renamed docx", nil, "cv.docx", pdfDoc, msgResumeMismatch},
		{"oversized", nil, "cv.txt", bytes.Repeat([]byte("a"), MaxResumeFileSize+1), "larger than 5 MB"},
		{"scanned pdf", nil, "scan.pdf", buildPDF(t, "%PDF-1.4", nil, true), "We couldn't read any text from this PDF — is it a scanned image? Upload a text PDF or paste the text"},
		{"broken pdf", nil, "cv.pdf", []byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n"), msgResumeBadPDF},
		{"truncated pdf", nil, "cv.pdf", pdfDoc[:len(pdfDoc)/2], msgResumeBadPDF},
		{"pdf read cancelled", cancelled, "cv.pdf", pdfDoc, msgResumeSlow},
		{"zip without document", nil, "cv.docx", zipOf(t, "word/styles.xml", "<w:styles/>"), msgResumeType},
		{"odt renamed docx", nil, "cv.docx", zipOf(t, "content.xml", "<office:document/>"), msgResumeType},
		{"docx with bad xml", nil, "cv.docx", buildDOCX(t, "<w:document><w:body><w:p>"), msgResumeBadDOCX},
		{"docx without text", nil, "cv.docx", buildDOCX(t, `<w:document `+wordNS+`><w:body><w:p/></w:body></w:document>`), msgResumeEmpty},
		{"docx bomb", nil, "cv.docx", bomb.Bytes(), msgResumeBigDOCX},
		{"docx bomb lying about its size", nil, "cv.docx", lying, msgResumeBadDOCX},
		{"latin-1 text", nil, "cv.txt", []byte("Jos\xe9 N\xfa\xf1ez, ingeniero de software en M\xe1laga"), msgResumeEncoding},
		{"utf-16 text", nil, "cv.txt", []byte("\xff\xfeA\x00d\x00a\x00"), msgResumeEncoding},
		{"empty text", nil, "cv.txt", []byte(" \n\t\n"), msgResumeEmpty},
		{"binary text", nil, "cv.txt", bytes.Repeat([]byte{1, 2, 3, 'a'}, 100), msgResumeType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			got, err := ExtractResume(ctx, tt.filename, tt.data)
			var re *ResumeError
			if !errors.As(err, &re) {
				t.Fatalf("got %q, %v; want a ResumeError", got, err)
			}
			if !strings.Contains(re.Message, tt.msg) {
				t.Errorf("message %q, want %q", re.Message, tt.msg)
			}
		})
	}
}

// zipOf zips one file.
func zipOf(t testing.TB, name, content string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(content))
	zw.Close()
	return buf.Bytes()
}

// lieAboutSize rewrites the uncompressed sizes in a one-file zip's local
// and central headers to 1 KB, as a zip bomb would.
func lieAboutSize(t testing.TB, z []byte) []byte {
	t.Helper()
	out := bytes.Clone(z)
	patch := func(sig []byte, sizeOff int) {
		i := bytes.Index(out, sig)
		if i < 0 {
			t.Fatalf("zip signature %x not found", sig)
		}
		copy(out[i+sizeOff:], []byte{0, 4, 0, 0}) // 1024, little endian
	}
	patch([]byte("PK\x01\x02"), 24) // central directory: uncompressed size
	r, err := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	if err != nil || r.File[0].UncompressedSize64 != 1024 {
		t.Fatalf("patched zip: %v", err)
	}
	return out
}

func TestResumeSummary(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct{ in, want string }{
		{"", ""},
		{"Ada  Lovelace\n\nMathematician\tLondon", "Ada Lovelace Mathematician London"},
		{long, strings.TrimSpace(strings.Repeat("word ", 120)) + "…"},
		{strings.Repeat("é", 700), strings.Repeat("é", ResumeSummaryLen) + "…"},
	}
	for _, tt := range tests {
		got := ResumeSummary(tt.in)
		if got != tt.want {
			t.Errorf("ResumeSummary(%.20q…) = %.40q… (%d runes), want %.40q… (%d runes)", tt.in, got, len([]rune(got)), tt.want, len([]rune(tt.want)))
		}
		if n := len([]rune(got)); n > ResumeSummaryLen+1 {
			t.Errorf("summary of %d runes", n)
		}
	}
}

func TestUploadExtractionThroughForm(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name     string
		file     formFile
		wantText string
	}{
		{"pdf", formFile{"resume", "Ada CV.pdf", buildPDF(t, "%PDF-1.5", []string{"Ada Lovelace", "Analytical Engine notes"}, true)}, "Ada Lovelace\nAnalytical Engine notes"},
		{"docx", formFile{"resume", "cv.docx", buildDOCX(t, sampleDocumentXML)}, "Ada Lovelace\nAnalyst \t1843"},
		{"txt", formFile{"resume", "cv.txt", []byte("Plain text résumé\n")}, "Plain text résumé"},
		{"md", formFile{"resume", "cv.md", []byte("# Markdown résumé\n")}, "# Markdown résumé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts.clock.Advance(time.Minute) // newest first: this one
			rec := ts.resultPage(t, ts.postForm(t, validForm(), tt.file))
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if !strings.Contains(rec.Body.String(), "Read and kept on the server") {
				t.Error("result page does not confirm the résumé")
			}
			page, _ := ts.store.List(t.Context(), interviews.ListOptions{Limit: 1})
			r, err := ts.store.Get(t.Context(), page.Items[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.ResumeText, tt.wantText) || r.ResumeSummary == "" || strings.Contains(r.ResumeSummary, "\n") {
				t.Errorf("résumé %q summary %q", r.ResumeText, r.ResumeSummary)
			}
			if logs := ts.logs.String(); strings.Contains(logs, "Analytical") || strings.Contains(logs, "résumé\n") {
				t.Errorf("logs carry résumé text:\n%s", logs)
			}
		})
	}
}

func TestExtractResumeCapsText(t *testing.T) {
	// 1.5 MB of two-byte characters: cut at interviews.MaxResumeTextLen
	// without splitting one.
	data := bytes.Repeat([]byte("é"), 750_000)
	got, err := ExtractResume(context.Background(), "cv.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != interviews.MaxResumeTextLen || !utf8.ValidString(got) {
		t.Errorf("text of %d bytes (valid UTF-8: %v), want %d", len(got), utf8.ValidString(got), interviews.MaxResumeTextLen)
	}
}
