package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// site is what every area of the web app shares: the page templates, the
// logger and the clock, with the ways of answering a request (a page, a
// message, JSON, a server error).
type site struct {
	pages map[string]*template.Template
	log   *slog.Logger
	now   func() time.Time
}

// records is a site that reads the interview store: the areas that show
// or act on one interview.
type records struct {
	*site
	store interviews.Store
}

// writeJSON writes v as the JSON response body with the given status.
func (s *site) writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.log.Error("web: encoding a JSON response", "err", err)
		http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// serverError answers a request that failed on the server's side.
func (s *site) serverError(w http.ResponseWriter, r *http.Request) {
	const msg = "Something went wrong on our side. Try again in a moment; if it keeps happening, ask the administrator to check the server log."
	if wantsJSON(r) {
		s.writeJSON(w, http.StatusInternalServerError, apiError{Error: msg})
		return
	}
	s.renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", msg)
}

// render executes the page template with data and writes it with status.
// The page is rendered in full before anything is written, so a template
// error becomes a clean 500.
func (s *site) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	t := s.pages[page]
	if t == nil {
		s.log.Error("web: no such page template", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", withNav(data, navFor(r))); err != nil {
		s.log.Error("web: rendering a page", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// renderMessage renders a page that only says something: an error, a
// refusal, the end of an interview.
func (s *site) renderMessage(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	s.render(w, r, status, "message.html", messagePage{view: view{Title: title}, Message: msg})
}

// renderCandidateMessage renders a message to a candidate in the language
// tag (a BCP 47 tag; "" is English): the catalogue's title and message
// (msg's arguments fill it), with the brand and none of the staff's links.
func (s *site) renderCandidateMessage(w http.ResponseWriter, r *http.Request, status int, tag string, title, msg lang.Key, args ...any) {
	s.render(w, r, status, "message.html", messagePage{view: view{Title: lang.Text(tag, title), Candidate: true, Lang: tag}, Message: lang.Textf(tag, msg, args...)})
}

// apiError is the body of every JSON error response.
type apiError struct {
	// Error says what went wrong and what to do.
	Error string `json:"error"`
	// Fields maps request fields to what is wrong with each.
	Fields map[string]string `json:"fields,omitempty"`
}

// wantsJSON reports whether an error for r should be answered in JSON: API
// paths, unless a browser posted a form there and asks for HTML.
func wantsJSON(r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		return false
	}
	return !acceptsHTML(r) || isJSONBody(r)
}

// acceptsHTML reports whether the client asks for an HTML page, as browsers
// do when they navigate or submit a form.
func acceptsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// isJSONBody reports whether the request body is declared as JSON.
func isJSONBody(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	ct, _, _ = strings.Cut(ct, ";")
	ct = strings.ToLower(strings.TrimSpace(ct))
	return ct == "application/json" || strings.HasSuffix(ct, "+json")
}

// messagePage is the data of message.html: a titled message with a link
// onwards.
type messagePage struct {
	view
	Message string
}

// view is what every page's layout reads.
type view struct {
	// Title is the page title and heading.
	Title string
	// SignedIn shows the signed-in navigation (sign out, back to the
	// interviews).
	SignedIn bool
	// Refresh reloads the page every 5 seconds (a running interview).
	Refresh bool
	// Candidate hides the staff navigation: the page is a candidate's.
	Candidate bool
	// Lang is the page's language, a BCP 47 tag ("" is English): a
	// candidate's page is in their interview's language.
	Lang string
	// Nav is what the signed-in user may open; render sets it (see
	// withNav), so no page links to what would answer 403.
	Nav nav
}

// readRecord reads the interview named by the path, answering 404 or 500
// itself (as JSON when asJSON) and returning nil when it cannot.
func (s *records) readRecord(w http.ResponseWriter, r *http.Request, id string, asJSON bool) *interviews.Record {
	rec, err := s.store.Get(r.Context(), id)
	if err == nil {
		return rec
	}
	if errors.Is(err, interviews.ErrNotFound) {
		s.noInterview(w, r, asJSON)
		return nil
	}
	s.log.Error("web: reading an interview", "interview_id", id, "err", err)
	s.serverError(w, r)
	return nil
}

// noInterview answers 404 for an interview there is none of (or the user
// may not see), as JSON when asJSON.
func (s *records) noInterview(w http.ResponseWriter, r *http.Request, asJSON bool) {
	const msg = "There is no interview with this id. Go back to the list of interviews."
	if asJSON {
		s.writeJSON(w, http.StatusNotFound, apiError{Error: msg})
		return
	}
	s.render(w, r, http.StatusNotFound, "message.html", messagePage{view: view{Title: "Interview not found", SignedIn: true}, Message: msg})
}

// owns answers 404, as for an unknown interview, when the request's user
// may not manage an invitation created by createdBy, and reports whether
// they may.
func (s *records) owns(w http.ResponseWriter, r *http.Request, createdBy string) bool {
	if p, _ := principalOf(r.Context()); p.manages(createdBy) {
		return true
	}
	s.noInterview(w, r, false)
	return false
}

// ownsInterview is owns for the interview id; it answers an unknown one
// with 404 too.
func (s *records) ownsInterview(w http.ResponseWriter, r *http.Request, id string) bool {
	rec := s.readRecord(w, r, id, false)
	return rec != nil && s.owns(w, r, rec.CreatedBy)
}
