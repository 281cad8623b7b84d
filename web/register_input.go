package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/viva-interviews/viva/interviews"
)

// fieldReadLimit is how many bytes of a form field are read; longer values
// are cut there and refused by validation.
func fieldReadLimit(field string) int64 {
	switch field {
	case fieldJobDesc:
		return 5*interviews.MaxJobDescriptionLen + 1 // 4-byte characters, CRLF
	case fieldResumeText:
		return 2*interviews.MaxResumeTextLen + 1
	case fieldBrief:
		return maxBriefFileSize + 1
	}
	return 4*interviews.MaxNameLen + 1
}

// registration is what a recruiter submits, as typed.
type registration struct {
	Name           string `json:"name"`
	Email          string `json:"email"`
	Role           string `json:"role"`
	Level          string `json:"level"`
	Blueprint      string `json:"blueprint"`
	JobDescription string `json:"job_description"`
	ResumeText     string `json:"resume_text"`
	// Template is the role template to ask from; empty for none.
	Template string `json:"template"`
	// Problem is the design problem of the plan's pool; empty draws one.
	Problem string `json:"problem"`
	// Brief is a knowledge-capture interview's brief (markdown).
	Brief string `json:"brief"`
	// Language is the language the interview is held in (a BCP 47 tag
	// such as es); empty for the plan's.
	Language string `json:"language"`
	// OpenAIAPIKey and DeepgramAPIKey are the interview's own provider
	// keys, optional. They are never rendered back into a page.
	OpenAIAPIKey   string `json:"openai_api_key"`
	DeepgramAPIKey string `json:"deepgram_api_key"`
	// Feedback and FeedbackScores are "yes", "no" or empty (as the
	// blueprint says): the candidate's feedback page at the end (a
	// practice interview) and its scores.
	Feedback       string `json:"feedback"`
	FeedbackScores string `json:"feedback_scores"`
	// LengthMinutes is the expected length in minutes; empty keeps the
	// blueprint's timings.
	LengthMinutes string `json:"length_minutes"`
	// SendEmail is the form's "email the invitation now" box ("on" when
	// ticked); the JSON API does not send email.
	SendEmail string `json:"-"`
}

// keys returns the provider keys typed into the registration.
func (r registration) keys() interviews.Keys {
	return interviews.Keys{OpenAI: r.OpenAIAPIKey, Deepgram: r.DeepgramAPIKey}
}

// withoutKeys is r as a page may show it: with no provider keys.
func (r registration) withoutKeys() registration {
	r.OpenAIAPIKey, r.DeepgramAPIKey = "", ""
	return r
}

// field returns the registration's text field named by a form field name,
// or nil for a name that is not one.
func (r *registration) field(name string) *string {
	switch name {
	case fieldName:
		return &r.Name
	case fieldEmail:
		return &r.Email
	case fieldRole:
		return &r.Role
	case fieldLevel:
		return &r.Level
	case fieldBlueprint:
		return &r.Blueprint
	case fieldJobDesc:
		return &r.JobDescription
	case fieldResumeText:
		return &r.ResumeText
	case fieldTemplate:
		return &r.Template
	case fieldProblem:
		return &r.Problem
	case fieldBrief:
		return &r.Brief
	case fieldLanguage:
		return &r.Language
	case fieldOpenAIKey:
		return &r.OpenAIAPIKey
	case fieldDeepgramKey:
		return &r.DeepgramAPIKey
	case fieldFeedback:
		return &r.Feedback
	case fieldFeedbackScores:
		return &r.FeedbackScores
	case fieldLength:
		return &r.LengthMinutes
	case fieldSendEmail:
		return &r.SendEmail
	}
	return nil
}

// upload is a résumé file received in a multipart form.
type upload struct {
	name     string
	data     []byte
	tooLarge bool
}

// submission is a parsed registration request.
type submission struct {
	reg  registration
	file *upload
	// brief is the brief uploaded as a file; nil when none was.
	brief *upload
	html  bool // answer with pages, not JSON
}

// requestError is a request that cannot be read at all.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

// bodyError turns an error reading a body into a requestError.
func bodyError(err error, what string) *requestError {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return errTooLarge
	}
	return &requestError{http.StatusBadRequest, what + ": " + err.Error()}
}

// readSubmission parses a registration sent as JSON, a multipart form or
// a URL-encoded form, within the body limits.
func readSubmission(w http.ResponseWriter, r *http.Request) (*submission, *requestError) {
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		ct = ""
	}
	sub := &submission{}
	switch {
	case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		r.Body = http.MaxBytesReader(w, r.Body, maxRegistrationBody)
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := decodeOne(dec, &sub.reg); err != nil {
			return nil, err
		}
	case ct == "multipart/form-data":
		r.Body = http.MaxBytesReader(w, r.Body, maxMultipartBody)
		if params["boundary"] == "" {
			return nil, &requestError{http.StatusBadRequest, "The form is malformed (no multipart boundary). Submit it again from the registration page."}
		}
		sub.html = acceptsHTML(r)
		if err := readMultipart(multipart.NewReader(r.Body, params["boundary"]), sub); err != nil {
			return nil, err
		}
	case ct == "application/x-www-form-urlencoded":
		r.Body = http.MaxBytesReader(w, r.Body, maxRegistrationBody)
		if err := r.ParseForm(); err != nil {
			return nil, bodyError(err, "The form could not be read")
		}
		f := r.PostForm
		sub.reg = registration{
			Name: f.Get(fieldName), Email: f.Get(fieldEmail), Role: f.Get(fieldRole),
			Level: f.Get(fieldLevel), Blueprint: f.Get(fieldBlueprint),
			JobDescription: f.Get(fieldJobDesc), ResumeText: f.Get(fieldResumeText),
			Template: f.Get(fieldTemplate), Problem: f.Get(fieldProblem), Brief: f.Get(fieldBrief), Language: f.Get(fieldLanguage),
			OpenAIAPIKey: f.Get(fieldOpenAIKey), DeepgramAPIKey: f.Get(fieldDeepgramKey),
			Feedback: f.Get(fieldFeedback), FeedbackScores: f.Get(fieldFeedbackScores), LengthMinutes: f.Get(fieldLength),
			SendEmail: f.Get(fieldSendEmail),
		}
		sub.html = f.Get(fieldUI) == "html" || acceptsHTML(r)
	default:
		return nil, &requestError{http.StatusUnsupportedMediaType,
			"Send the registration as JSON (Content-Type: application/json) or as a form (multipart/form-data or application/x-www-form-urlencoded)."}
	}
	return sub, nil
}

// decodeOne decodes exactly one JSON value into v.
func decodeOne(dec *json.Decoder, v any) *requestError {
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return &requestError{http.StatusBadRequest, "The request body is empty: send a JSON object."}
		}
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return &requestError{http.StatusBadRequest, fmt.Sprintf("Field %q must be a %s.", te.Field, te.Type.Kind())}
		}
		return bodyError(err, "The JSON body could not be read")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &requestError{http.StatusBadRequest, "The JSON body must hold a single object."}
	}
	return nil
}

// readMultipart reads the parts of a multipart registration: text fields
// up to their read limits, the résumé file up to MaxResumeFileSize (a
// larger file is marked and skipped, so the other fields still arrive).
func readMultipart(mr *multipart.Reader, sub *submission) *requestError {
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return bodyError(err, "The form could not be read")
		}
		if n >= maxMultipartParts {
			return &requestError{http.StatusBadRequest, "The form has too many fields. Submit it from the registration page."}
		}
		field := part.FormName()
		switch field {
		case fieldResume:
			up, err := readUpload(part, MaxResumeFileSize, "The résumé could not be read")
			if err != nil {
				return err
			}
			sub.file = up
			continue
		case fieldBriefFile:
			up, err := readUpload(part, maxBriefFileSize, "The brief could not be read")
			if err != nil {
				return err
			}
			sub.brief = up
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, fieldReadLimit(field)))
		if err == nil {
			_, err = io.Copy(io.Discard, part)
		}
		if err != nil {
			return bodyError(err, "The form could not be read")
		}
		if v := string(data); field == fieldUI {
			sub.html = sub.html || v == "html"
		} else if dst := sub.reg.field(field); dst != nil {
			*dst = v
		}
	}
}

// readUpload reads a file part of up to limit bytes (a larger file is
// marked and its data dropped); nil when the file input was left empty.
// what starts the message of a read error.
func readUpload(part *multipart.Part, limit int, what string) (*upload, *requestError) {
	data, err := io.ReadAll(io.LimitReader(part, int64(limit)+1))
	if err != nil {
		return nil, bodyError(err, what)
	}
	rest, err := io.Copy(io.Discard, part)
	if err != nil {
		return nil, bodyError(err, what)
	}
	name := part.FileName()
	if name == "" && len(data) == 0 {
		return nil, nil // the file input was left empty
	}
	up := &upload{name: name, data: data}
	if rest > 0 || len(data) > limit {
		up.data, up.tooLarge = nil, true
	}
	return up, nil
}
