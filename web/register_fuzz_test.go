package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Encodings of a fuzzed registration body: the low bits of the mode pick
// the content type, fuzzHTML asks for pages instead of JSON.
const (
	fuzzJSON = iota
	fuzzMultipart
	fuzzURLEncoded
	fuzzHTML = 4

	// fuzzBoundary is the multipart boundary of fuzzed forms.
	fuzzBoundary = "fuzzboundary"
)

// registrationFields are the fields a refused registration may name.
var registrationFields = []string{fieldName, fieldEmail, fieldRole, fieldLevel, fieldBlueprint, fieldJobDesc, fieldResume, fieldResumeText}

// fuzzForm encodes fields (pairs) and files as a multipart body with
// fuzzBoundary.
func fuzzForm(t testing.TB, fields []string, files ...formFile) []byte {
	t.Helper()
	_, body := encodeMultipart(t, fuzzBoundary, fields, files)
	return body
}

// FuzzRegister posts arbitrary registrations (JSON, multipart and
// URL-encoded bodies, answered as JSON or as pages) through the real
// handler. It must never panic or answer 5xx, and every refusal says what
// is wrong: a JSON error message (with the fields at fault for a 422) or a
// page with an alert (and a message at the fields for a 422).
func FuzzRegister(f *testing.F) {
	valid := `{"name":"Ada Lovelace","email":"ada@example.com","role":"Backend engineer","level":"senior","blueprint":"default","job_description":"Build engines.","resume_text":"Mathematician"}`
	for _, s := range []string{
		valid,
		`{"name":"<script>alert(1)</script>","role":"x","level":"guru","blueprint":"../../etc/passwd"}`,
		`{"name":5}`,
		`{"name":"Ada","role":"x"}garbage`,
		`{"name":"Ada","role":"x","extra":1}`,
		`{"name":"Ada","role":"x","email":"ada@localhost"}`,
		`{"name":"\u0000\ud800","role":"\u2028"}`,
		`[]`, `null`, ``, `{`,
		strings.Repeat("[", 10000),
	} {
		f.Add(uint8(fuzzJSON), []byte(s))
	}
	form := validForm("job_description", "Build engines.\r\nAnalytical ones.")
	f.Add(uint8(fuzzMultipart|fuzzHTML), fuzzForm(f, form))
	f.Add(uint8(fuzzMultipart), fuzzForm(f, form, formFile{fieldResume, "cv.txt", []byte("Ada Lovelace\nMathematician")}))
	f.Add(uint8(fuzzMultipart|fuzzHTML), fuzzForm(f, form, formFile{fieldResume, "cv.pdf", hostilePDFXref()}))
	f.Add(uint8(fuzzMultipart), fuzzForm(f, []string{"name", "", "level", "guru", "blueprint", "nope"}, formFile{fieldResume, "cv.exe", []byte("MZ")}))
	f.Add(uint8(fuzzMultipart|fuzzHTML), []byte("--"+fuzzBoundary+"\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda"))
	f.Add(uint8(fuzzMultipart), []byte("--"+fuzzBoundary+"--\r\n"))
	f.Add(uint8(fuzzMultipart), []byte(strings.Repeat("--"+fuzzBoundary+"\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nx\r\n", 40)+"--"+fuzzBoundary+"--\r\n"))
	f.Add(uint8(fuzzURLEncoded|fuzzHTML), []byte(url.Values{"name": {"Ada Lovelace"}, "role": {"Engineer"}, "level": {"mid"}, "ui": {"html"}}.Encode()))
	f.Add(uint8(fuzzURLEncoded), []byte("name=%zz&role=%"))
	f.Add(uint8(fuzzURLEncoded), []byte("name=Ada&name=Bob&role=x;level=mid"))

	f.Fuzz(func(t *testing.T, mode uint8, body []byte) {
		ts := newTestServer(t)
		req := httptest.NewRequest(http.MethodPost, "/api/interviews", bytes.NewReader(body))
		switch mode % 3 {
		case fuzzJSON:
			req.Header.Set("Content-Type", "application/json")
		case fuzzMultipart:
			req.Header.Set("Content-Type", "multipart/form-data; boundary="+fuzzBoundary)
		case fuzzURLEncoded:
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if mode&fuzzHTML != 0 {
			req.Header.Set("Accept", "text/html,application/xhtml+xml")
		}
		ts.authorize(req, testRecruiter)
		rec := ts.do(req)
		checkRegisterResponse(t, rec)
	})
}

// checkRegisterResponse checks that a registration's answer is a success or
// a refusal that says what is wrong.
func checkRegisterResponse(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	code, body := rec.Code, rec.Body.String()
	switch {
	case code >= 500:
		t.Fatalf("status %d: %s", code, body)
	case code < 400:
		if code == http.StatusSeeOther && strings.HasPrefix(rec.Header().Get("Location"), invitationsPath+"/") {
			return // a form's registration, redirected to its page
		}
		if code != http.StatusCreated {
			t.Fatalf("status %d, want 201, 303 to the invitation or a 4xx: %s", code, body)
		}
		return
	}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		if !strings.Contains(body, `role="alert"`) {
			t.Fatalf("status %d page without an alert:\n%s", code, body)
		}
		if code == http.StatusUnprocessableEntity && !strings.Contains(body, `class="field-error"`) {
			t.Fatalf("status %d page names no field:\n%s", code, body)
		}
		return
	}
	var e apiError
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("status %d answer is not a JSON error (%v): %q", code, err, body)
	}
	if strings.TrimSpace(e.Error) == "" {
		t.Fatalf("status %d without a message: %q", code, body)
	}
	if code != http.StatusUnprocessableEntity {
		return
	}
	if len(e.Fields) == 0 {
		t.Fatalf("status 422 names no field: %q", body)
	}
	for field, msg := range e.Fields {
		known := false
		for _, f := range registrationFields {
			known = known || f == field
		}
		if !known || strings.TrimSpace(msg) == "" {
			t.Fatalf("status 422 with field %q: %q", field, msg)
		}
	}
}
