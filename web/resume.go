package web

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/viva-interviews/viva/internal/sandbox"
	"github.com/viva-interviews/viva/internal/utf8cut"
	"github.com/viva-interviews/viva/interviews"
)

// Résumé upload limits.
const (
	// MaxResumeFileSize is the largest résumé file accepted, in bytes.
	MaxResumeFileSize = 5 << 20
	// ResumeSummaryLen is the length, in characters, of the résumé summary
	// stored beside the text (see ResumeSummary).
	ResumeSummaryLen = 600
	// maxDocxXMLSize bounds the unpacked size of a DOCX's document.xml, so
	// a zip bomb cannot exhaust memory.
	maxDocxXMLSize = 32 << 20
	// maxDocxFiles bounds the entries of a DOCX archive.
	maxDocxFiles = 5000
	// maxPDFPages bounds the pages read from a PDF.
	maxPDFPages = 300
)

// Messages shown when a résumé cannot be used; each says what to do.
const (
	msgResumeType      = "Résumé must be a PDF, DOCX, TXT or Markdown file of at most 5 MB"
	msgResumeEmptyPDF  = "We couldn't read any text from this PDF — is it a scanned image? Upload a text PDF or paste the text"
	msgResumeEmpty     = "We couldn't find any text in this file. Upload another file or paste the text"
	msgResumeBadPDF    = "We couldn't read this PDF; it looks damaged. Save it again as PDF, upload a DOCX or TXT file, or paste the text"
	msgResumeLocked    = "This PDF is password-protected. Upload a copy without a password, or paste the text"
	msgResumeBadDOCX   = "We couldn't read this DOCX file. Save it again from your word processor, upload a PDF or TXT file, or paste the text"
	msgResumeBigDOCX   = "This DOCX file is too large once unpacked. Upload a PDF or TXT file, or paste the text"
	msgResumeBigPDF    = "This PDF is too large to read once unpacked. Upload a shorter PDF, a DOCX or TXT file, or paste the text"
	msgResumeEncoding  = "This text file is not UTF-8 text. Save it as UTF-8 (or as PDF or DOCX) and upload it again, or paste the text"
	msgResumeSlow      = "Reading this file took too long. Upload a smaller file, a TXT file, or paste the text"
	msgResumeMismatch  = "This file's content does not match its extension. " + msgResumeType
	msgResumeTooLarge  = "This résumé is larger than 5 MB. " + msgResumeType
	msgResumeTextLarge = "The résumé text is larger than 100 KB; shorten it to the parts an interviewer needs"
	msgResumeNoReader  = "Résumé files cannot be read on this server right now. Paste the résumé's text instead"
)

// ResumeError is a résumé that cannot be used, with a message for the
// person who uploaded it.
type ResumeError struct {
	// Message says what is wrong and what to do instead.
	Message string
	// Err is the underlying cause, for logs; nil when there is none.
	Err error
}

func (e *ResumeError) Error() string {
	if e.Err != nil {
		return "résumé: " + e.Message + ": " + e.Err.Error()
	}
	return "résumé: " + e.Message
}

func (e *ResumeError) Unwrap() error { return e.Err }

// resumeKind is the format of a résumé file, from its content.
type resumeKind int

const (
	kindUnknown resumeKind = iota
	kindPDF
	kindDOCX
	kindText
)

// extensions maps accepted file extensions to the format their content
// must have.
var extensions = map[string]resumeKind{
	".pdf": kindPDF, ".docx": kindDOCX,
	".txt": kindText, ".text": kindText, ".md": kindText, ".markdown": kindText,
}

// ExtractResume returns the plain text of a résumé file: PDF, DOCX, or
// UTF-8 text (TXT, Markdown). The format is detected from the content and
// must agree with the file name's extension, so a PNG renamed .pdf or a
// program is refused. The text is normalised (see normalizeText) and cut
// to interviews.MaxResumeTextLen bytes. Reading stops when ctx is done.
// Every error is a *ResumeError.
func ExtractResume(ctx context.Context, filename string, data []byte) (string, error) {
	if len(data) > MaxResumeFileSize {
		return "", &ResumeError{Message: msgResumeTooLarge}
	}
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(filename, `\`, "/")))
	want, ok := extensions[ext]
	if !ok {
		return "", &ResumeError{Message: msgResumeType}
	}
	got, err := sniff(data)
	if err != nil {
		return "", err
	}
	if got != want {
		if got == kindUnknown {
			return "", &ResumeError{Message: msgResumeType}
		}
		return "", &ResumeError{Message: msgResumeMismatch}
	}
	var text string
	if got == kindText {
		text = string(bytes.TrimPrefix(data, utf8BOM))
	} else {
		text, err = parseInSandbox(ctx, got, data)
	}
	if err != nil {
		return "", err
	}
	text = utf8cut.Truncate(normalizeText(text), interviews.MaxResumeTextLen)
	if strings.TrimSpace(text) == "" {
		if got == kindPDF {
			return "", &ResumeError{Message: msgResumeEmptyPDF}
		}
		return "", &ResumeError{Message: msgResumeEmpty}
	}
	return text, nil
}

// Parsing PDF and DOCX files runs in a child process of viva (see package
// sandbox): a file built to make the parser allocate terabytes or loop for
// ever ends that child, never the web app. Plain text needs no parser and
// is read in process.
const parseJob = "resume-parse"

// Limits of one résumé parse. A real résumé takes well under a second and
// a few tens of megabytes.
var parseLimits = sandbox.Limits{
	MemoryBytes: 512 << 20,
	CPUTime:     5 * time.Second,
	WallTime:    resumeReadTimeout,
	OutputBytes: 4 * interviews.MaxResumeTextLen,
}

// parser runs the parses: at most two at once, so a burst of uploads
// queues instead of taking every core and gigabytes of memory.
var parser = &sandbox.Runner{Limits: parseLimits, MaxConcurrent: 2}

func init() { sandbox.Register(parseJob, parseJobMain) }

// parseRequest is the input of a parse: the format, then the file.
func parseRequest(kind resumeKind, data []byte) []byte {
	return append([]byte{byte(kind)}, data...)
}

// parseResult is the output of a parse.
type parseResult struct {
	Text    string `json:"text,omitempty"`
	Message string `json:"message,omitempty"` // a *ResumeError's Message
	Cause   string `json:"cause,omitempty"`   // its Err, for logs
}

// parseJobMain is the child's side: it parses the file in process.
func parseJobMain(in []byte) ([]byte, error) {
	if len(in) == 0 {
		return nil, errors.New("empty parse request")
	}
	var (
		text string
		err  error
	)
	switch kind, data := resumeKind(in[0]), in[1:]; kind {
	case kindPDF:
		text, err = pdfText(context.Background(), data)
	case kindDOCX:
		text, err = docxText(data)
	default:
		return nil, fmt.Errorf("parse request for format %d", kind)
	}
	var res parseResult
	if re, ok := errors.AsType[*ResumeError](err); ok {
		res.Message = re.Message
		if re.Err != nil {
			res.Cause = re.Err.Error()
		}
	} else if err != nil {
		return nil, err
	} else {
		res.Text = utf8cut.Truncate(text, interviews.MaxResumeTextLen)
	}
	return json.Marshal(res)
}

// parseInSandbox parses a PDF or DOCX file in a child process. Every error
// is a *ResumeError.
func parseInSandbox(ctx context.Context, kind resumeKind, data []byte) (string, error) {
	damaged := msgResumeBadPDF
	if kind == kindDOCX {
		damaged = msgResumeBadDOCX
	}
	out, err := parser.Run(ctx, parseJob, parseRequest(kind, data))
	if je, ok := errors.AsType[*sandbox.JobError](err); ok {
		switch je.Reason {
		case sandbox.ReasonCPU, sandbox.ReasonTimeout:
			return "", &ResumeError{Message: msgResumeSlow, Err: je}
		case sandbox.ReasonMemory, sandbox.ReasonOutput:
			if kind == kindDOCX {
				return "", &ResumeError{Message: msgResumeBigDOCX, Err: je}
			}
			return "", &ResumeError{Message: msgResumeBigPDF, Err: je}
		}
		return "", &ResumeError{Message: damaged, Err: je}
	}
	if err != nil {
		return "", &ResumeError{Message: msgResumeNoReader, Err: err}
	}
	var res parseResult
	if err := json.Unmarshal(out, &res); err != nil {
		return "", &ResumeError{Message: damaged, Err: fmt.Errorf("parse result: %w", err)}
	}
	if res.Message != "" {
		re := &ResumeError{Message: res.Message}
		if res.Cause != "" {
			re.Err = errors.New(res.Cause)
		}
		return "", re
	}
	return res.Text, nil
}

// CheckResumeParser parses a small file in a child process, so a server
// whose children cannot start (a binary that does not call sandbox.Serve,
// a system refusing the limits) says so at start rather than at the first
// upload.
func CheckResumeParser(ctx context.Context) error {
	_, err := parseInSandbox(ctx, kindPDF, []byte("%PDF-1.4\n%%EOF\n"))
	if re, ok := errors.AsType[*ResumeError](err); ok && re.Message != msgResumeNoReader {
		return nil // the child ran and judged the file
	} else if err != nil {
		return fmt.Errorf("web: résumé files cannot be read: %w", errors.Unwrap(err))
	}
	return nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// sniff detects the format of a file from its first bytes (and, for text,
// from all of it).
func sniff(data []byte) (resumeKind, error) {
	switch {
	case isPDF(data):
		return kindPDF, nil
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return kindDOCX, nil
	case bytes.HasPrefix(data, []byte("\xff\xfe")), bytes.HasPrefix(data, []byte("\xfe\xff")):
		return kindUnknown, &ResumeError{Message: msgResumeEncoding} // UTF-16
	}
	if looksLikeText(data) {
		return kindText, nil
	}
	if utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return kindUnknown, nil // binary: images, programs, archives
	}
	if looksLikeText([]byte(strings.ToValidUTF8(string(data), ""))) {
		return kindUnknown, &ResumeError{Message: msgResumeEncoding} // Latin-1 and the like
	}
	return kindUnknown, nil
}

// isPDF reports whether data is a PDF: it starts with "%PDF-", or has that
// header at the start of a line in its first kilobyte and a "%%EOF" marker.
func isPDF(data []byte) bool {
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		return true
	}
	head := data[:min(len(data), 1024)]
	return bytes.Contains(head, []byte("\n%PDF-")) && bytes.Contains(data, []byte("%%EOF"))
}

// looksLikeText reports whether data is UTF-8 text: valid, without NUL
// bytes and with almost no control characters besides tab, newline,
// carriage return and form feed.
func looksLikeText(data []byte) bool {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	controls, total := 0, 0
	for _, r := range string(data) {
		total++
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			controls++
		}
	}
	return controls*100 <= total // at most 1%
}

// normalizeText cleans extracted text: valid UTF-8, "\n" line ends, no
// control characters, no trailing spaces, at most one blank line in a row,
// no leading or trailing blank lines.
func normalizeText(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n', r == '\t':
			return r
		case r == '\f', r == '\v', r == '\u00a0':
			return ' '
		case unicode.IsControl(r), r == '\ufffd', r == '\ufeff':
			return -1
		}
		return r
	}, s)
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := true // drops leading blank lines
	for _, l := range lines {
		l = strings.TrimRightFunc(l, unicode.IsSpace)
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// ResumeSummary returns the short résumé summary stored in the record for
// the interviewer's instructions: the first ResumeSummaryLen characters of
// the text with all whitespace collapsed to single spaces, cut at a word
// boundary and ended with "…" when shortened. It is an excerpt, not an
// abstract: résumés open with the name, title and latest experience, which
// is what the interviewer needs to greet and steer.
func ResumeSummary(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= ResumeSummaryLen {
		return s
	}
	cut := []rune(s)[:ResumeSummaryLen]
	if i := lastSpace(cut); i > ResumeSummaryLen/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(string(cut), " ,;:-") + "…"
}

func lastSpace(rs []rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == ' ' {
			return i
		}
	}
	return -1
}

// ctxReaderAt fails every read once ctx is done, which stops the PDF
// parser (it reads the file as it goes) without a goroutine.
type ctxReaderAt struct {
	ctx context.Context
	r   *bytes.Reader
}

func (c ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}

// pdfText extracts the text of a PDF page by page, at most maxPDFPages
// pages and interviews.MaxResumeTextLen bytes.
func pdfText(ctx context.Context, data []byte) (text string, err error) {
	data = repairPDFFraming(data)
	defer func() {
		if v := recover(); v != nil { // the parser panics on some malformed files
			text, err = "", &ResumeError{Message: msgResumeBadPDF, Err: fmt.Errorf("pdf parser: %v", v)}
		}
	}()
	r, err := pdf.NewReader(ctxReaderAt{ctx: ctx, r: bytes.NewReader(data)}, int64(len(data)))
	switch {
	case ctx.Err() != nil:
		return "", &ResumeError{Message: msgResumeSlow, Err: ctx.Err()}
	case errors.Is(err, pdf.ErrInvalidPassword):
		return "", &ResumeError{Message: msgResumeLocked, Err: err}
	case err != nil:
		return "", &ResumeError{Message: msgResumeBadPDF, Err: err}
	}
	var sb strings.Builder
	pages := min(r.NumPage(), maxPDFPages)
	var firstErr error
	for i := 1; i <= pages && sb.Len() < interviews.MaxResumeTextLen; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if ctx.Err() != nil {
			return "", &ResumeError{Message: msgResumeSlow, Err: ctx.Err()}
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue // keep the pages that can be read
		}
		sb.WriteString(t)
		sb.WriteString("\n\n")
	}
	if sb.Len() == 0 && firstErr != nil {
		return "", &ResumeError{Message: msgResumeBadPDF, Err: firstErr}
	}
	return sb.String(), nil
}

// repairPDFFraming returns data as the PDF parser expects it: a "%PDF-1.x"
// header at the very start and "%%EOF" at the very end. Files with a PDF
// 2.0 header, text before the header (some mail gateways add it) or bytes
// after the last %%EOF are otherwise readable. Byte offsets are kept: the
// header is rewritten in place and only trailing bytes are cut.
func repairPDFFraming(data []byte) []byte {
	if i := bytes.LastIndex(data, []byte("%%EOF")); i >= 0 {
		data = data[:i+len("%%EOF")]
	}
	i := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-"))
	if i < 0 || len(data) < i+9 {
		return data
	}
	if i > 0 {
		// Offsets in such files count from the header; drop what precedes it.
		data = data[i:]
	}
	if !bytes.HasPrefix(data, []byte("%PDF-1.")) || data[7] < '0' || data[7] > '7' || (data[8] != '\n' && data[8] != '\r') {
		data = bytes.Clone(data)
		copy(data, "%PDF-1.7")
		if data[8] != '\n' && data[8] != '\r' {
			data[8] = '\n'
		}
	}
	return data
}

// docxText extracts the paragraphs of a DOCX file's main document
// (word/document.xml), one per line, with tabs and line breaks kept.
// Deleted revisions, field codes and the fallback copies of text boxes are
// skipped. The unpacked document is capped at maxDocxXMLSize.
func docxText(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", &ResumeError{Message: msgResumeBadDOCX, Err: err}
	}
	if len(zr.File) > maxDocxFiles {
		return "", &ResumeError{Message: msgResumeBadDOCX, Err: fmt.Errorf("%d archive entries", len(zr.File))}
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
			break
		}
	}
	if doc == nil {
		return "", &ResumeError{Message: msgResumeType, Err: errors.New("zip archive without word/document.xml")}
	}
	if doc.UncompressedSize64 > maxDocxXMLSize {
		return "", &ResumeError{Message: msgResumeBigDOCX}
	}
	rc, err := doc.Open()
	if err != nil {
		return "", &ResumeError{Message: msgResumeBadDOCX, Err: err}
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: maxDocxXMLSize + 1}
	text, err := wordXMLText(lr)
	if lr.N <= 0 {
		return "", &ResumeError{Message: msgResumeBigDOCX}
	}
	if err != nil {
		return "", &ResumeError{Message: msgResumeBadDOCX, Err: err}
	}
	return text, nil
}

// wordXMLText reads WordprocessingML and returns its text.
func wordXMLText(r io.Reader) (string, error) {
	dec := xml.NewDecoder(r)
	var sb strings.Builder
	inText := false
	skip := 0 // depth inside skipped elements
	for sb.Len() < interviews.MaxResumeTextLen {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || skippedElement(t.Name) {
				skip++
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				sb.WriteByte('\t')
			case "br", "cr":
				sb.WriteByte('\n')
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				sb.WriteByte('\n')
			}
		case xml.CharData:
			if inText && skip == 0 {
				sb.Write(t)
			}
		}
	}
	return sb.String(), nil
}

// skippedElement reports whether the element's text is not part of the
// document as read: deleted revisions, field instructions, and the
// fallback copy of content that also appears in an mc:Choice.
func skippedElement(n xml.Name) bool {
	switch n.Local {
	case "del", "delText", "instrText", "Fallback":
		return true
	}
	return false
}
