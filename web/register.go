package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
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
	mail       *inviteMail
}

// plans are the interview plans and role templates offered when
// registering a candidate.
type plans struct {
	blueprints []blueprintOption
	templates  []TemplateChoice
	// designs is the design library, whose installed designs are offered
	// after the configured ones; nil offers those only.
	designs interviews.DesignStore
	// speaks says why the interviewer cannot hold an interview in a
	// language (Options.CheckLanguage); nil knows no reason.
	speaks func(language string, keys interviews.Keys) error
}

// current returns the plans offered now: the configured ones, then the
// blueprints and role templates installed in the design library (a
// library that cannot be read offers none of its own; registering then
// says why).
func (s *plans) current(ctx context.Context) *plans {
	cur := &plans{blueprints: s.blueprints, templates: s.templates, designs: s.designs, speaks: s.speaks}
	if s.designs == nil {
		return cur
	}
	bps, _ := s.designs.Designs(ctx, interviews.KindBlueprint)
	for _, d := range bps {
		if bp, err := d.Blueprint(); err == nil {
			opt := blueprintOption{Name: d.Name, Title: bp.Title, KnowledgeCapture: bp.KnowledgeCapture(), Problems: problemsOf(bp)}
			if err := bp.TakesTemplate(); err != nil {
				opt.NoTemplate = err.Error()
			}
			if opt.Title == "" {
				opt.Title = d.Name
			}
			cur.blueprints = append(slices.Clip(cur.blueprints), opt)
		}
	}
	tpls, _ := s.designs.Designs(ctx, interviews.KindTemplate)
	for _, d := range tpls {
		if t, err := d.Template(); err == nil {
			cur.templates = append(slices.Clip(cur.templates), TemplateChoice{Name: d.Name, Title: cmp.Or(t.Title, d.Name)})
		}
	}
	return cur
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
	fieldProblem    = "problem"     // a design problem of the plan's pool
	fieldBrief      = "brief"       // a knowledge capture's brief, typed
	fieldBriefFile  = "brief_file"  // the brief as a .md or .txt file
	fieldUI         = "ui"          // "html" from the registration page
	fieldLanguage   = "language"    // the interview's language, a BCP 47 tag
	// fieldOpenAIKey and fieldDeepgramKey carry the interview's own
	// provider keys: stored sealed, never echoed.
	fieldOpenAIKey   = "openai_api_key"
	fieldDeepgramKey = "deepgram_api_key"
	// fieldFeedback, fieldFeedbackScores and fieldLength are the
	// interview's options (interviews.Options).
	fieldFeedback       = "feedback"
	fieldFeedbackScores = "feedback_scores"
	fieldLength         = "length_minutes"
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

var errTooLarge = &requestError{http.StatusRequestEntityTooLarge,
	"The request is too large: a résumé file may be at most 5 MB and its text at most 1 MB. Upload a smaller file or paste a shorter text."}

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

// createRecord registers a new interview for v (interviews.Service.Register),
// recording who registered it (the signed-in user of ctx).
func (s *registrar) createRecord(ctx context.Context, v *validated) (*interviews.Record, error) {
	by, ok := principalOf(ctx)
	if !ok {
		return nil, errors.New("web: registering without a signed-in user")
	}
	reg := interviews.Registration{
		Candidate: v.candidate, Blueprint: v.blueprint, Template: v.template, Options: v.options, Problem: v.problem, Language: v.language, Brief: v.brief,
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
	// Languages are the languages an interview may be held in.
	Languages  []lang.Language
	MaxJobDesc int
	MaxBrief   int
	// MaxBriefText is MaxBrief as the form writes it, "20,000".
	MaxBriefText string
	// Capture is true when a knowledge-capture plan is offered: the form
	// then has the brief field.
	Capture bool
	// Problems is true when a plan with a pool of design problems is
	// offered: the form then has the problem field.
	Problems bool
	// OwnKeys offers the provider key fields: the server has a secrets
	// key to seal them with.
	OwnKeys bool
	// SendsEmail offers to email the invitation: the server sends email.
	SendsEmail bool
}

func (s *registrar) registerPage(ctx context.Context) registerPage {
	cur := s.plans.current(ctx)
	return registerPage{
		view:         view{Title: "Register a candidate", SignedIn: true},
		Values:       registration{Blueprint: cur.blueprints[0].Name, SendEmail: "on"},
		Errors:       fieldErrors{},
		Levels:       stages.Levels,
		Blueprints:   cur.blueprints,
		Templates:    cur.templates,
		Languages:    lang.Languages,
		MaxJobDesc:   interviews.MaxJobDescriptionLen,
		MaxBrief:     interviews.MaxBriefLen,
		MaxBriefText: thousands(interviews.MaxBriefLen),
		Capture:      slices.ContainsFunc(cur.blueprints, func(b blueprintOption) bool { return b.KnowledgeCapture }),
		Problems:     slices.ContainsFunc(cur.blueprints, func(b blueprintOption) bool { return len(b.Problems) > 0 }),
		OwnKeys:      s.store.KeepsKeys(),
		SendsEmail:   s.mail.sender != nil,
	}
}

// handleForm serves the registration form.
func (s *registrar) handleForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "register.html", s.registerPage(r.Context()))
}

// createdPage is the data of created.html.
type createdPage struct {
	view
	ID        string
	Room      string
	JoinURL   string
	Candidate interviews.Candidate
	Blueprint string
	// BlueprintVersion is the version of the plan the interview keeps.
	BlueprintVersion string
	MailTo           string
	HasResume        bool
	HasJD            bool
	OwnKeys          bool
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
	// Length is the interview's planned length; zero when unknown.
	Length time.Duration
	// Mailings are the emails sent about the invitation; CanEmail offers
	// to email it now.
	Mailings []mailingView
	CanEmail bool
	// CanUndo offers to take back the withdrawal just made; CanRevoke to
	// withdraw the link.
	CanUndo, CanRevoke bool
}

// handleCreate registers a candidate: from the form it answers with the
// result page (or the form again, with what is wrong), from JSON or API
// form posts with 201 and the join details.
func (s *registrar) handleCreate(w http.ResponseWriter, r *http.Request) {
	sub, rerr := readSubmission(w, r)
	if rerr != nil {
		if acceptsHTML(r) && !isJSONBody(r) {
			p := s.registerPage(r.Context())
			p.Error = rerr.msg
			s.render(w, r, rerr.status, "register.html", p)
			return
		}
		s.writeJSON(w, rerr.status, apiError{Error: rerr.msg})
		return
	}
	v, errs := s.validate(r.Context(), sub)
	if errs != nil {
		s.refuse(w, r, sub, errs)
		return
	}
	rec, err := s.createRecord(r.Context(), v)
	if errs := s.removedDesign(r.Context(), v, err); errs != nil {
		s.refuse(w, r, sub, errs)
		return
	}
	if err != nil {
		s.log.Error("web: registering a candidate", "err", err)
		s.serverError(w, r)
		return
	}
	join := s.joinURL(r, rec.ID)
	if sub.html {
		if err := s.mail.emailNew(r, rec, sub.reg.SendEmail != ""); err != nil {
			s.log.Warn("web: emailing a new invitation failed", "interview_id", rec.ID, "err", err)
		}
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

// refuse answers a registration with what is wrong with its fields: the
// form again, keeping what was entered (never the keys), or a 422 with
// the fields.
func (s *registrar) refuse(w http.ResponseWriter, r *http.Request, sub *submission, errs fieldErrors) {
	if !sub.html {
		s.writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "Some fields are not valid; see fields.", Fields: errs})
		return
	}
	p := s.registerPage(r.Context())
	p.Values, p.Errors = sub.reg.withoutKeys(), errs
	p.Error = "Some fields need your attention; see the messages below."
	if msg := errs[fieldTemplate]; msg != "" && len(p.Templates) == 0 {
		p.Error = msg // the form has no template field left to show it
	}
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
}

// removedDesign says which field names a design that left the library
// between the check of a registration and its storing (err wraps
// interviews.ErrDesignNotFound then), with what to do; nil for any other
// err.
func (s *registrar) removedDesign(ctx context.Context, v *validated, err error) fieldErrors {
	if !errors.Is(err, interviews.ErrDesignNotFound) {
		return nil
	}
	field, name := fieldBlueprint, v.blueprint
	if _, berr := (interviews.Library{Store: s.designs}).Design(ctx, interviews.KindBlueprint, v.blueprint, ""); berr == nil && v.template != "" {
		field, name = fieldTemplate, v.template
	}
	s.log.Info("web: registration refused: its design was removed meanwhile", "field", field, "name", name)
	return fieldErrors{field: removedDesignMsg(name)}
}

// removedDesignMsg tells a recruiter that the design called name left
// the library.
func removedDesignMsg(name string) string {
	return "The design " + name + " was removed; choose another"
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
		s.refuse(w, r, sub, errs)
		return
	}
	rec, err := s.createRecord(r.Context(), v)
	if errs := s.removedDesign(r.Context(), v, err); errs != nil {
		s.refuse(w, r, sub, errs)
		return
	}
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

// routes registers the form and the registration API.
func (s *registrar) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("GET /{$}", g.register(s.handleForm))
	mux.HandleFunc("GET "+bulkPath, g.register(s.handleBulkForm))
	mux.Handle("POST "+bulkPath, g.limited(g.register(s.handleBulk)))
	mux.Handle("POST /api/interviews", g.limited(g.register(s.handleCreate)))
	mux.Handle("POST /api/token", g.limited(g.register(s.handleToken)))
}
