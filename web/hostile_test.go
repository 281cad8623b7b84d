package web

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

// hostilePDFXref is a PDF of under 200 bytes whose cross-reference table starts at
// object 2^40: a parser that sizes its table from it asks the system for
// 44 TB and dies ("fatal error: runtime: out of memory"), which no recover
// catches.
func hostilePDFXref() []byte {
	return pdfWithTrailer("xref\n1099511627776 1\n0000000009 00000 n \ntrailer<</Size 3/Root 1 0 R>>\n")
}

func pdfWithTrailer(xref string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	b.WriteString("1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n")
	b.WriteString("2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n")
	off := b.Len()
	b.WriteString(xref)
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", off)
	return b.Bytes()
}

// hostilePDFObjStm is a PDF whose root object sits in an object stream
// claiming 4e18 objects: a parser that counts to N before it finds the
// object's end spins for ever without reading, so a context never stops it.
func hostilePDFObjStm() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	off1 := b.Len()
	b.WriteString("1 0 obj<</Type/ObjStm/N 4000000000000000000/First 1/Length 0>>stream\n\nendstream endobj\n")
	off2 := b.Len()
	// Cross-reference stream, W [1 1 1]: 0 free; 1 and 2 at their offsets;
	// 3 (the catalog) is object 0 of stream 1.
	entries := []byte{0, 0, 0, 1, byte(off1), 0, 1, byte(off2), 0, 2, 1, 0}
	fmt.Fprintf(&b, "2 0 obj<</Type/XRef/Size 4/W[1 1 1]/Root 3 0 R/Length %d>>stream\n", len(entries))
	b.Write(entries)
	b.WriteString("\nendstream endobj\n")
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", off2)
	return b.Bytes()
}

// hostileDOCXNested is a small DOCX whose document is millions of nested
// elements: a streaming XML decoder keeps a stack entry for each.
func hostileDOCXNested(t testing.TB) []byte {
	doc := `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		strings.Repeat(`<w:p xmlns:a="urn:a">`, 1_400_000) // under the 32 MB cap
	return buildDOCX(t, doc)
}

// hostilePDFInflate is a PDF whose one page's content stream inflates from
// under a megabyte to 600 MB of text-showing operators.
func hostilePDFInflate(t testing.TB) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write([]byte("BT /F1 12 Tf\n"))
	line := bytes.Repeat([]byte("(Experienced engineer with many years) Tj\n"), 1<<12)
	for n := 0; n < 600<<20; n += len(line) {
		zw.Write(line)
	}
	zw.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	return assemblePDF("%PDF-1.4\n", objs)
}

// TestHostileResumesCannotStopTheServer uploads files built to exhaust
// memory or a core to the public registration endpoint. Each is refused
// with a message saying what to do, and the server goes on serving.
func TestHostileResumesCannotStopTheServer(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name, file string
		data       []byte
		msg        string
	}{
		{"xref claims 2^40 entries", "cv.pdf", hostilePDFXref(), msgResumeBigPDF},
		{"object stream claims 4e18 objects", "cv.pdf", hostilePDFObjStm(), msgResumeSlow},
		{"nested DOCX elements", "cv.docx", hostileDOCXNested(t), ""},
		{"PDF text inflating to 600 MB", "cv.pdf", hostilePDFInflate(t), ""},
	}
	if testing.Short() {
		tests = tests[:2] // the critical two; the others take seconds to build
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.postForm(t, validForm(), formFile{"resume", tt.file, tt.data})
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422 (refused with a message)", rec.Code)
			}
			body := rec.Body.String()
			if !strings.Contains(body, `id="resume-error"`) {
				t.Fatalf("no message at the résumé field")
			}
			if tt.msg != "" && !strings.Contains(body, htmlEscape(tt.msg)) {
				t.Errorf("message is not %q", tt.msg)
			}
		})
	}
	// Still serving: a real résumé is read.
	rec := ts.resultPage(t, ts.postForm(t, validForm(), formFile{"resume", "cv.pdf", buildPDF(t, "%PDF-1.4", []string{"Ada Lovelace", "Analytical Engine programmer"}, true)}))
	if rec.Code != http.StatusOK {
		t.Fatalf("a real résumé after the hostile ones: status %d", rec.Code)
	}
}

func TestCheckResumeParser(t *testing.T) {
	if err := CheckResumeParser(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// htmlEscape escapes a message as the page templates do.
func htmlEscape(s string) string {
	return strings.NewReplacer("'", "&#39;", `"`, "&#34;", "&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// fuzzResume checks one file: extraction returns text or a *ResumeError
// with a message, and never takes the test process down with it.
func fuzzResume(t *testing.T, name string, data []byte) {
	ctx := context.Background()
	text, err := ExtractResume(ctx, name, data)
	if err != nil {
		re, ok := errors.AsType[*ResumeError](err)
		if !ok || re.Message == "" {
			t.Fatalf("ExtractResume(%s, %d bytes) = %v, want a *ResumeError with a message", name, len(data), err)
		}
		return
	}
	if strings.TrimSpace(text) == "" || len(text) > interviews.MaxResumeTextLen {
		t.Fatalf("ExtractResume(%s) = %d bytes of text", name, len(text))
	}
}

// seedFiles adds the files of testdata/resumes with the given extension.
func seedFiles(f *testing.F, ext string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "resumes", "*"+ext))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzExtractPDF feeds PDF files to résumé extraction. The seeds include
// the hostile files above; `go test -fuzz FuzzExtractPDF ./web/` explores
// from them.
func FuzzExtractPDF(f *testing.F) {
	f.Add(hostilePDFXref())
	f.Add(hostilePDFObjStm())
	f.Add(buildPDF(f, "%PDF-1.4", []string{"Ada Lovelace", "Engineer"}, true))
	f.Add(buildPDF(f, "%PDF-2.0", []string{"Grace Hopper"}, false))
	f.Add([]byte("%PDF-1.7\n%%EOF"))
	seedFiles(f, ".pdf")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzResume(t, "cv.pdf", data) })
}

// FuzzExtractDOCX feeds DOCX files to résumé extraction.
func FuzzExtractDOCX(f *testing.F) {
	f.Add(buildDOCX(f, `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Ada Lovelace</w:t></w:r></w:p></w:body></w:document>`))
	f.Add(buildDOCX(f, `<w:document xmlns:w="w"><w:body>`+strings.Repeat(`<w:p>`, 10_000)))
	f.Add([]byte("PK\x03\x04"))
	seedFiles(f, ".docx")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzResume(t, "cv.docx", data) })
}
