package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/internal/metrics"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/viva-interviews/viva/internal/sandbox"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// registrar is the registration of candidates: the recruiter's form and
// the API that registers an interview (and mints a candidate's token).
type registrar struct {
	records
	*plans
	links
	tokens     *roomTokens
	interviews *interviews.Service
	metrics    *metrics.Web // nil: nothing counted
}

// plans are the interview plans and role templates offered when
// registering a candidate.
type plans struct {
	blueprints []blueprintOption
	templates  []TemplateChoice
}

// links builds the candidates' join links.
type links struct {
	publicURL string // without a trailing slash; empty: from the request
}

// Request body limits. A registration may carry a résumé text of up to
// interviews.MaxResumeTextLen bytes (as JSON or a form field, where line
// breaks may take two bytes) or a résumé file of up to MaxResumeFileSize,
// and a brief of up to interviews.MaxBriefLen characters, typed or as a file.
const (
	// maxSmallBody bounds the JSON bodies of the token and login endpoints.
	maxSmallBody = 64 << 10
	// maxRegistrationBody bounds a JSON or URL-encoded registration: the
	// résumé text, a brief written with JSON escapes and the other fields.
	maxRegistrationBody = 2*interviews.MaxResumeTextLen + 6*interviews.MaxBriefLen + 256<<10
	// maxMultipartBody bounds a multipart registration: the files, the
	// pasted texts and the other fields.
	maxMultipartBody = MaxResumeFileSize + maxBriefFileSize + maxRegistrationBody
	// maxMultipartParts bounds the parts of a multipart registration.
	maxMultipartParts = 32
	// resumeReadTimeout bounds the extraction of a résumé's text.
	resumeReadTimeout = 15 * time.Second
)

// maxBriefFileSize bounds an uploaded brief file in bytes: interviews.MaxBriefLen
// characters of up to four bytes each, with CRLF line ends.
const maxBriefFileSize = 5 * interviews.MaxBriefLen

// briefFileExts are the extensions of the brief files the form takes:
// Markdown and plain text.
var briefFileExts = []string{".md", ".markdown", ".txt"}

// Form and JSON field names of a registration.
const (
	fieldName       = interviews.FieldName
	fieldEmail      = interviews.FieldEmail
	fieldRole       = interviews.FieldRole
	fieldLevel      = interviews.FieldLevel
	fieldBlueprint  = "blueprint"
	fieldJobDesc    = "job_description"
	fieldResume     = "resume"      // the file
	fieldResumeText = "resume_text" // pasted text
	fieldTemplate   = "template"    // a role template's name
	fieldBrief      = "brief"       // a knowledge capture's brief, typed
	fieldBriefFile  = "brief_file"  // the brief as a .md or .txt file
	fieldUI         = "ui"          // "html" from the registration page
	// fieldOpenAIKey and fieldDeepgramKey carry the interview's own
	// provider keys: stored sealed, never echoed.
	fieldOpenAIKey   = "openai_api_key"
	fieldDeepgramKey = "deepgram_api_key"
)

// Shapes of the provider keys a recruiter may enter: a format check that
// catches a pasted wrong value, not a proof that the key works (the worker
// checks that with the provider before the greeting).
const (
	// openAIKeyPrefix starts every OpenAI API key.
	openAIKeyPrefix = "sk-"
	// minProviderKeyLen and maxProviderKeyLen bound a key's length in bytes.
	minProviderKeyLen = 20
	maxProviderKeyLen = 256
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
	// Brief is a knowledge-capture interview's brief (markdown).
	Brief string `json:"brief"`
	// OpenAIAPIKey and DeepgramAPIKey are the interview's own provider
	// keys, optional. They are never rendered back into a page.
	OpenAIAPIKey   string `json:"openai_api_key"`
	DeepgramAPIKey string `json:"deepgram_api_key"`
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
	case fieldBrief:
		return &r.Brief
	case fieldOpenAIKey:
		return &r.OpenAIAPIKey
	case fieldDeepgramKey:
		return &r.DeepgramAPIKey
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

var errTooLarge = &requestError{http.StatusRequestEntityTooLarge,
	"The request is too large: a résumé file may be at most 5 MB and its text at most 1 MB. Upload a smaller file or paste a shorter text."}

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
			Template: f.Get(fieldTemplate), Brief: f.Get(fieldBrief),
			OpenAIAPIKey: f.Get(fieldOpenAIKey), DeepgramAPIKey: f.Get(fieldDeepgramKey),
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

// fieldErrors maps field names to what is wrong with each: the
// candidate's (interviews.Candidate.Validate) and the registration's own.
type fieldErrors = interviews.FieldErrors

// validated is a registration that passed validation, ready to store.
type validated struct {
	candidate      interviews.Candidate
	blueprint      string
	jobDescription string
	resumeText     string
	resumeSource   string // the file name the text came from; empty for pasted text
	template       string
	brief          string
	keys           interviews.Keys
}

// validate checks and normalises a submission: the candidate as
// interviews.Candidate has it (Normalize, Validate), a known blueprint, a job
// description and a résumé within their limits. It extracts the text of an
// uploaded résumé; when another field is wrong, that text is kept in
// sub.reg.ResumeText so the form can show it instead of asking for the
// file again.
func (s *registrar) validate(ctx context.Context, sub *submission) (*validated, fieldErrors) {
	errs := fieldErrors{}
	in := &sub.reg
	v := &validated{}

	v.candidate = interviews.Candidate{Name: in.Name, Email: in.Email, Role: in.Role, Level: in.Level}
	v.candidate.Normalize()
	in.Name, in.Email, in.Role, in.Level = v.candidate.Name, v.candidate.Email, v.candidate.Role, v.candidate.Level
	if fe, ok := errors.AsType[interviews.FieldErrors](v.candidate.Validate()); ok {
		maps.Copy(errs, fe)
	}

	in.Blueprint = interviews.CleanLine(in.Blueprint)
	if in.Blueprint == "" {
		in.Blueprint = s.blueprints[0].Name
	}
	if !slices.ContainsFunc(s.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint }) {
		errs[fieldBlueprint] = "Choose one of the interview plans offered: " + strings.Join(s.blueprintNames(), ", ")
	}
	v.blueprint = in.Blueprint

	in.Template = interviews.CleanLine(in.Template)
	if in.Template != "" && !slices.ContainsFunc(s.templates, func(t TemplateChoice) bool { return t.Name == in.Template }) {
		if len(s.templates) == 0 {
			errs[fieldTemplate] = "This server offers no role templates: leave the template empty"
		} else {
			errs[fieldTemplate] = "Choose one of the role templates offered: " + strings.Join(s.templateNames(), ", ")
		}
	}
	if i := slices.IndexFunc(s.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint }); in.Template != "" && errs[fieldTemplate] == "" && i >= 0 && s.blueprints[i].NoTemplate != "" {
		errs[fieldTemplate] = "The " + s.blueprints[i].Title + " plan asks no role template's questions: leave the template empty, or choose another plan"
	}
	v.template = in.Template

	s.validateBrief(sub, errs)
	v.brief = in.Brief

	in.JobDescription = strings.TrimSpace(normalizeNewlines(in.JobDescription))
	if !utf8.ValidString(in.JobDescription) {
		in.JobDescription = strings.ToValidUTF8(in.JobDescription, "")
	}
	if n := utf8.RuneCountInString(in.JobDescription); n > interviews.MaxJobDescriptionLen {
		errs[fieldJobDesc] = fmt.Sprintf("The job description has %s characters; shorten it to %s or fewer",
			thousands(n), thousands(interviews.MaxJobDescriptionLen))
	}
	v.jobDescription = in.JobDescription

	in.ResumeText = normalizeText(in.ResumeText)
	switch f := sub.file; {
	case f != nil && f.tooLarge:
		errs[fieldResume] = msgResumeTooLarge
	case f != nil:
		ctx, cancel := context.WithTimeout(ctx, resumeReadTimeout)
		text, err := ExtractResume(ctx, f.name, f.data)
		cancel()
		if re, ok := errors.AsType[*ResumeError](err); ok {
			errs[fieldResume] = re.Message
			// The cause is not logged: parser messages may quote the file.
			attrs := []any{"file_type", strings.ToLower(pathExt(f.name)), "size", len(f.data), "reason", re.Message}
			if je, ok := errors.AsType[*sandbox.JobError](err); ok && je.Reason != sandbox.ReasonJob {
				attrs = append(attrs, "stopped_by", string(je.Reason)) // a file built to exhaust the parser
			}
			s.log.Info("web: résumé refused", attrs...)
			break
		} else if err != nil {
			errs[fieldResume] = msgResumeBadPDF
			break
		}
		in.ResumeText, v.resumeSource = text, f.name
	}
	if len(in.ResumeText) > interviews.MaxResumeTextLen {
		errs[fieldResumeText] = msgResumeTextLarge
	}
	v.resumeText = in.ResumeText

	in.OpenAIAPIKey, in.DeepgramAPIKey = strings.TrimSpace(in.OpenAIAPIKey), strings.TrimSpace(in.DeepgramAPIKey)
	v.keys = in.keys()
	if !v.keys.Empty() && !s.store.KeepsKeys() {
		msg := "This server cannot keep interview keys: its operator must set VIVA_SECRETS_KEY (for the web app and the worker). Leave the key fields empty to use the server's own engines."
		for field, key := range map[string]string{fieldOpenAIKey: in.OpenAIAPIKey, fieldDeepgramKey: in.DeepgramAPIKey} {
			if key != "" {
				errs[field] = msg
			}
		}
	} else {
		if msg := checkProviderKey(in.OpenAIAPIKey, openAIKeyPrefix, "An OpenAI API key"); msg != "" {
			errs[fieldOpenAIKey] = msg
		}
		if msg := checkProviderKey(in.DeepgramAPIKey, "", "A Deepgram API key"); msg != "" {
			errs[fieldDeepgramKey] = msg
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return v, nil
}

// checkProviderKey says what is wrong with the shape of a provider key
// (empty is fine: the key is optional); what names the key in the message.
// The message never quotes the key.
func checkProviderKey(key, prefix, what string) string {
	switch {
	case key == "":
		return ""
	case !strings.HasPrefix(key, prefix):
		return what + " starts with " + strconv.Quote(prefix) + ": paste the whole key from the provider's dashboard"
	case len(key) < minProviderKeyLen || len(key) > maxProviderKeyLen:
		return fmt.Sprintf("%s is %d to %d characters long: paste the whole key from the provider's dashboard", what, minProviderKeyLen, maxProviderKeyLen)
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return what + " has only letters, digits, '-' and '_': paste the whole key and nothing else"
		}
	}
	return ""
}

// validateBrief checks the brief, typed or uploaded (an uploaded one's
// text is kept in sub.reg.Brief): text within interviews.MaxBriefLen characters,
// required by a knowledge-capture plan and refused by any other.
func (s *registrar) validateBrief(sub *submission, errs fieldErrors) {
	in := &sub.reg
	in.Brief = strings.TrimSpace(normalizeNewlines(in.Brief))
	if f := sub.brief; f != nil {
		switch {
		case !slices.Contains(briefFileExts, strings.ToLower(pathExt(f.name))):
			errs[fieldBriefFile] = "The brief must be a Markdown (.md) or plain text (.txt) file: save it as one, or paste its text below"
			return
		case f.tooLarge:
			errs[fieldBriefFile] = fmt.Sprintf("The brief file is larger than %d KB: a brief has at most %s characters; shorten it", maxBriefFileSize>>10, thousands(interviews.MaxBriefLen))
			return
		case !utf8.Valid(f.data) || bytes.IndexByte(f.data, 0) >= 0:
			errs[fieldBriefFile] = "The brief file is not text: save it as Markdown or plain text (UTF-8) and upload it again"
			return
		case in.Brief != "":
			errs[fieldBriefFile] = "Give the brief either as a file or as text, not both: clear the text or leave out the file"
			return
		}
		in.Brief = strings.TrimSpace(normalizeNewlines(strings.TrimPrefix(string(f.data), "\uFEFF")))
	}
	if !utf8.ValidString(in.Brief) {
		in.Brief = strings.ToValidUTF8(in.Brief, "")
	}
	i := slices.IndexFunc(s.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint })
	capture := i >= 0 && s.blueprints[i].KnowledgeCapture
	switch n := utf8.RuneCountInString(in.Brief); {
	case n > interviews.MaxBriefLen:
		errs[fieldBrief] = fmt.Sprintf("The brief has %s characters; shorten it to %s or fewer", thousands(n), thousands(interviews.MaxBriefLen))
	case n == 0 && capture:
		errs[fieldBrief] = "A knowledge-capture interview needs a brief: write the topics to cover, as headings and bullet points, or upload a .md or .txt file"
	case n > 0 && i >= 0 && !capture:
		errs[fieldBrief] = "Only a knowledge-capture plan uses a brief: choose one, or leave the brief empty"
	}
}

// templateTitle is the title of the offered role template name; empty
// for none.
func (s *plans) templateTitle(name string) string {
	if i := slices.IndexFunc(s.templates, func(t TemplateChoice) bool { return t.Name == name }); i >= 0 {
		return s.templates[i].Title
	}
	return name
}

func (s *plans) templateNames() []string {
	names := make([]string, len(s.templates))
	for i, t := range s.templates {
		names[i] = t.Name
	}
	return names
}

func (s *plans) blueprintNames() []string {
	names := make([]string, len(s.blueprints))
	for i, b := range s.blueprints {
		names[i] = b.Name
	}
	return names
}

// normalizeNewlines turns CRLF and CR line ends (browsers send CRLF) into
// LF, so limits count a line break as one character.
func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func pathExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.ContainsAny(name[i:], `/\`) {
		return name[i:]
	}
	return ""
}

// thousands formats n with comma separators, "20,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// createRecord registers a new interview for v (interviews.Service.Register),
// recording who registered it (the signed-in user of ctx).
func (s *registrar) createRecord(ctx context.Context, v *validated) (*interviews.Record, error) {
	by, ok := principalOf(ctx)
	if !ok {
		return nil, errors.New("web: registering without a signed-in user")
	}
	reg := interviews.Registration{
		Candidate: v.candidate, Blueprint: v.blueprint, Template: v.template, Brief: v.brief,
		JobDescription: v.jobDescription, ResumeText: v.resumeText, Keys: v.keys, By: by.Email,
	}
	if v.resumeText != "" {
		reg.ResumeSummary = ResumeSummary(v.resumeText)
	}
	rec, err := s.interviews.Register(ctx, reg)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.metrics.InterviewCreated()
	s.log.Info("web: interview registered", "interview_id", rec.ID, "created_by", rec.CreatedBy, "room", rec.Room, "blueprint", rec.Blueprint,
		"has_resume", rec.ResumeText != "", "has_job_description", rec.JobDescription != "", "own_keys", !v.keys.Empty(),
		"template", rec.Template, "has_brief", rec.Brief != "")
	return rec, nil
}

// joinURL is the candidate's link to the room page of interview id.
func (s links) joinURL(r *http.Request, id string) string {
	base := s.publicURL
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return base + "/interview/" + url.PathEscape(id)
}

// createdResponse is the JSON answer to POST /api/interviews.
type createdResponse struct {
	// ID identifies the interview.
	ID string `json:"id"`
	// Room is the LiveKit room of the interview.
	Room string `json:"room"`
	// JoinURL is the link to send the candidate.
	JoinURL string `json:"join_url"`
	// Token is a LiveKit token for the candidate, for clients that build
	// their own room page.
	Token string `json:"token"`
	// LiveKitURL is the LiveKit server the token is for.
	LiveKitURL string `json:"livekit_url"`
	// OwnKeys says the interview runs on the provider keys given with it;
	// the keys themselves are never sent back.
	OwnKeys bool `json:"own_keys"`
}

// registerPage is the data of register.html.
type registerPage struct {
	view
	Values     registration
	Errors     fieldErrors
	Error      string // about the whole form
	Notice     string // the résumé text kept from an upload
	Levels     []string
	Blueprints []blueprintOption
	Templates  []TemplateChoice
	MaxJobDesc int
	MaxBrief   int
	// MaxBriefText is MaxBrief as the form writes it, "20,000".
	MaxBriefText string
	// Capture is true when a knowledge-capture plan is offered: the form
	// then has the brief field.
	Capture bool
	// OwnKeys offers the provider key fields: the server has a secrets
	// key to seal them with.
	OwnKeys bool
}

func (s *registrar) registerPage() registerPage {
	return registerPage{
		view:         view{Title: "Register a candidate", SignedIn: true},
		Values:       registration{Blueprint: s.blueprints[0].Name},
		Errors:       fieldErrors{},
		Levels:       stages.Levels,
		Blueprints:   s.blueprints,
		Templates:    s.templates,
		MaxJobDesc:   interviews.MaxJobDescriptionLen,
		MaxBrief:     interviews.MaxBriefLen,
		MaxBriefText: thousands(interviews.MaxBriefLen),
		Capture:      slices.ContainsFunc(s.blueprints, func(b blueprintOption) bool { return b.KnowledgeCapture }),
		OwnKeys:      s.store.KeepsKeys(),
	}
}

// handleForm serves the registration form.
func (s *registrar) handleForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "register.html", s.registerPage())
}

// createdPage is the data of created.html.
type createdPage struct {
	view
	ID        string
	Room      string
	JoinURL   string
	Candidate interviews.Candidate
	Blueprint string
	MailTo    string
	HasResume bool
	HasJD     bool
	OwnKeys   bool
	// Template is the chosen role template's title; empty for none.
	Template string
	HasBrief bool
	// State is the invitation's state in words, ExpiresAt when its link
	// lapses; Revoked says it was withdrawn, ReissuedAs names its
	// replacement.
	State      string
	StateClass string
	ExpiresAt  *time.Time
	Revoked    bool
	ReissuedAs string
	// ReissuedFrom names the invitation this one replaced.
	ReissuedFrom string
}

// handleCreate registers a candidate: from the form it answers with the
// result page (or the form again, with what is wrong), from JSON or API
// form posts with 201 and the join details.
func (s *registrar) handleCreate(w http.ResponseWriter, r *http.Request) {
	sub, rerr := readSubmission(w, r)
	if rerr != nil {
		if acceptsHTML(r) && !isJSONBody(r) {
			p := s.registerPage()
			p.Error = rerr.msg
			s.render(w, r, rerr.status, "register.html", p)
			return
		}
		s.writeJSON(w, rerr.status, apiError{Error: rerr.msg})
		return
	}
	v, errs := s.validate(r.Context(), sub)
	if errs != nil {
		if sub.html {
			p := s.registerPage()
			p.Values, p.Errors = sub.reg.withoutKeys(), errs
			p.Error = "Some fields need your attention; see the messages below."
			if sub.file != nil && errs[fieldResume] == "" {
				p.Notice = "The text of " + sub.file.name + " is kept below; you don't need to upload the file again."
			}
			if sub.brief != nil && errs[fieldBriefFile] == "" {
				p.Notice = strings.TrimSpace(p.Notice + " The brief from " + sub.brief.name + " is kept below; you don't need to upload it again.")
			}
			if !sub.reg.keys().Empty() {
				p.Notice = strings.TrimSpace(p.Notice + " Provider keys are never shown again: enter them once more.")
			}
			s.render(w, r, http.StatusUnprocessableEntity, "register.html", p)
			return
		}
		s.writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "Some fields are not valid; see fields.", Fields: errs})
		return
	}
	rec, err := s.createRecord(r.Context(), v)
	if err != nil {
		s.log.Error("web: registering a candidate", "err", err)
		s.serverError(w, r)
		return
	}
	join := s.joinURL(r, rec.ID)
	if sub.html {
		// Post/redirect/get: the result has its own address, so reloading
		// it never registers the candidate twice.
		http.Redirect(w, r, invitationPath(rec.ID), http.StatusSeeOther)
		return
	}
	token, ok := s.issueToken(w, r, s.tokens, rec)
	if !ok {
		return
	}
	s.writeJSON(w, http.StatusCreated, createdResponse{ID: rec.ID, Room: rec.Room, JoinURL: join, Token: token, LiveKitURL: s.tokens.clientURL, OwnKeys: !v.keys.Empty()})
}

// mailTo is a mailto: link that drafts the invitation to the candidate.
func mailTo(c interviews.Candidate, join string) string {
	if c.Email == "" {
		return ""
	}
	subject := "Your interview"
	if c.Role != "" {
		subject += " for the " + c.Role + " role"
	}
	body := "Hello " + c.Name + ",\n\nYour interview is ready. Open this link in Chrome, Edge, Firefox or Safari, " +
		"allow the microphone, and the interviewer will greet you:\n\n" + join +
		"\n\nFind a quiet place and plan for about 30 minutes.\n"
	return "mailto:" + url.PathEscape(c.Email) + "?subject=" + url.PathEscape(subject) + "&body=" + url.PathEscape(body)
}

// tokenRequest is the body of POST /api/token, as frontends written for
// the Python original send it.
type tokenRequest struct {
	Name      string `json:"name"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	Level     string `json:"level"`
	Blueprint string `json:"blueprint"`
}

// tokenResponse is the answer of POST /api/token: the fields the Python
// original returned (token, url, room, candidate) and the interview's id,
// identity and join link.
type tokenResponse struct {
	Token     string `json:"token"`
	URL       string `json:"url"`
	Room      string `json:"room"`
	Candidate string `json:"candidate"`
	ID        string `json:"id"`
	Identity  string `json:"identity"`
	JoinURL   string `json:"join_url"`
}

// handleToken registers a candidate from a JSON {name, email, role, level}
// and answers with a room token, for frontends of the Python original.
// Unknown fields are ignored, as those frontends may send more.
func (s *registrar) handleToken(w http.ResponseWriter, r *http.Request) {
	if !isJSONBody(r) {
		s.writeJSON(w, http.StatusUnsupportedMediaType, apiError{Error: "Send a JSON body (Content-Type: application/json) such as {\"name\": \"Ada Lovelace\", \"role\": \"Backend engineer\", \"level\": \"senior\"}."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	var req tokenRequest
	if err := decodeOne(json.NewDecoder(r.Body), &req); err != nil {
		s.writeJSON(w, err.status, apiError{Error: err.msg})
		return
	}
	sub := &submission{reg: registration{Name: req.Name, Email: req.Email, Role: req.Role, Level: req.Level, Blueprint: req.Blueprint}}
	v, errs := s.validate(r.Context(), sub)
	if errs != nil {
		s.writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "Some fields are not valid; see fields.", Fields: errs})
		return
	}
	rec, err := s.createRecord(r.Context(), v)
	if err != nil {
		s.log.Error("web: registering a candidate", "err", err)
		s.serverError(w, r)
		return
	}
	token, ok := s.issueToken(w, r, s.tokens, rec)
	if !ok {
		return
	}
	s.writeJSON(w, http.StatusOK, tokenResponse{
		Token: token, URL: s.tokens.clientURL, Room: rec.Room, Candidate: rec.Candidate.Name,
		ID: rec.ID, Identity: CandidateIdentity(rec.ID), JoinURL: s.joinURL(r, rec.ID),
	})
}
