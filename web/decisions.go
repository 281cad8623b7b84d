package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews"
)

// decisionActions are what a reviewer does to a finished interview:
// record a decision, ask for its report to be written again; from the
// review pages and the API.
type decisionActions struct {
	records
	interviews *interviews.Service
	reports    ReportRequester // nil: reports are not regenerated here
	// reportLim counts each user's requests for a new report.
	reportLim accounts.Limiter
}

// ReportRequester regenerates an interview's report in the background (a
// *reports.Runner). Request returns at once; it fails with an error whose
// NotDue method returns true (reports.ErrNotDue) for an interview that
// gets no report, and with interviews.ErrNotFound for an unknown one.
type ReportRequester interface {
	Request(ctx context.Context, id, who string) error
}

// MaxDecisionNoteLen bounds a decision's note, in characters.
const MaxDecisionNoteLen = 2000

// decisionRequest is the body of POST /api/interviews/{id}/decision.
type decisionRequest struct {
	Decision interviews.DecisionKind `json:"decision"`
	Note     string                  `json:"note"`
}

// decisionResponse answers a recorded decision.
type decisionResponse struct {
	// Decision is the decision just recorded.
	Decision interviews.Decision `json:"decision"`
	// Decisions are all the interview's decisions, oldest first.
	Decisions []interviews.Decision `json:"decisions"`
}

// reportResponse answers a report request.
type reportResponse struct {
	Status  interviews.ReportStatus `json:"status"`
	Version int                     `json:"version"`
}

// recordDecision records who's decision d, with note, on the finished
// interview id (interviews.Service.Decide). The note is cleaned and
// bounded here, as a form sends it. Errors a person can fix are a
// *requestError with the HTTP status and a message saying what to do.
func (s *decisionActions) recordDecision(ctx context.Context, id, who string, d interviews.DecisionKind, note string) (*interviews.Record, error) {
	note = strings.TrimSpace(normalizeNewlines(strings.ToValidUTF8(note, "")))
	if n := utf8.RuneCountInString(note); n > MaxDecisionNoteLen {
		return nil, &requestError{http.StatusUnprocessableEntity, fmt.Sprintf("The note has %s characters; shorten it to at most %s.", thousands(n), thousands(MaxDecisionNoteLen))}
	}
	rec, err := s.interviews.Decide(ctx, id, who, d, note)
	if err != nil {
		return nil, forPeople(fmt.Errorf("web: recording a decision on %s: %w", id, err))
	}
	s.log.Info("web: decision recorded", "interview_id", id, "user", who, "decision", string(d))
	return rec, nil
}

// reportRequestsPerMinute is how many reports one user may ask to be
// written again per minute (and at once).
const reportRequestsPerMinute = 6

// requestReport asks for id's report to be written again (or tried again
// now, when it is pending), as by who; the report is written in the
// background. Errors a person can fix are a *requestError. One user may
// ask reportRequestsPerMinute times a minute; beyond, requests are refused
// with 429 and logged.
func (s *decisionActions) requestReport(ctx context.Context, id, who string) error {
	if s.reports == nil {
		return &requestError{http.StatusServiceUnavailable, "This server does not write reports. Ask the administrator to run viva web, which writes them."}
	}
	ok, wait, err := s.reportLim.Allow(ctx, who)
	if err != nil {
		s.log.Error("web: reading the report request limit", "interview_id", id, "err", err)
		return &requestError{http.StatusServiceUnavailable, "The server cannot check its request limits right now. Try again in a few seconds."}
	}
	if !ok {
		s.log.Warn("web: report request refused: too many from this user", "interview_id", id, "user", who)
		return &requestError{http.StatusTooManyRequests, fmt.Sprintf("You asked for %d new reports within a minute, the most allowed, as each costs model calls. Wait %d seconds and ask again.",
			reportRequestsPerMinute, max(int(math.Ceil(wait.Seconds())), 1))}
	}
	err = s.reports.Request(ctx, id, who)
	switch {
	case notDue(err):
		return &requestError{http.StatusConflict, "This interview gets no report: only interviews that completed, or that the candidate left after answering at least three questions, have one."}
	case errors.Is(err, interviews.ErrNotFound):
		return errNoInterview
	case err != nil:
		return fmt.Errorf("web: requesting the report of %s: %w", id, err)
	}
	s.log.Info("web: report requested", "interview_id", id, "user", who)
	return nil
}

// notDue reports whether err says the interview gets no report.
func notDue(err error) bool {
	var nd interface{ NotDue() bool }
	return errors.As(err, &nd) && nd.NotDue()
}

// Refusals of the interview service, in words for people.
var (
	errNotEnded        = &requestError{http.StatusConflict, "The interview has not ended yet: record a decision once it has."}
	errNoInterview     = &requestError{http.StatusNotFound, "There is no interview with this id. Go back to the list of interviews."}
	errInvalidDecision = &requestError{http.StatusUnprocessableEntity, "Choose a decision: advance, hold or reject."}
	errStarted         = &requestError{http.StatusConflict, "The interview has already started, so its link can no longer be withdrawn."}
	errRunning         = &requestError{http.StatusConflict, "The interview is running now: re-issue its link once it has ended."}
	errReissued        = &requestError{http.StatusConflict, "This invitation was re-issued already: open its replacement from the list of invitations."}
	errUndoLapsed      = &requestError{http.StatusConflict, "The link was withdrawn more than " + interviews.LengthInWords(interviews.UndoWindow) + " ago, or replaced since, so the withdrawal stands: re-issue the invitation to give the candidate a new link."}
)

// refusals map the interview service's errors to their answers.
var refusals = []struct {
	err error
	re  *requestError
}{
	{interviews.ErrNotFound, errNoInterview},
	{interviews.ErrNotEnded, errNotEnded},
	{interviews.ErrInvalidDecision, errInvalidDecision},
	{interviews.ErrStarted, errStarted},
	{interviews.ErrRunning, errRunning},
	{interviews.ErrReissued, errReissued},
	{interviews.ErrUndoLapsed, errUndoLapsed},
}

// forPeople returns the *requestError answering err when it is one of
// the interview service's refusals, else err.
func forPeople(err error) error {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return r.re
		}
	}
	return err
}

// handleAPIDecision answers POST /api/interviews/{id}/decision: a JSON
// body {"decision": "advance"|"hold"|"reject", "note": "…"} is recorded as
// the signed-in reviewer's decision; 201 with the decision and all the
// interview's decisions.
func (s *decisionActions) handleAPIDecision(w http.ResponseWriter, r *http.Request) {
	if !isJSONBody(r) {
		s.writeJSON(w, http.StatusUnsupportedMediaType, apiError{Error: `Send a JSON body (Content-Type: application/json) such as {"decision": "advance", "note": "Strong system design."}.`})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSmallBody))
	if err != nil {
		s.writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Error: fmt.Sprintf("The request is too large: send a decision with a note of at most %s characters.", thousands(MaxDecisionNoteLen))})
		return
	}
	var req decisionRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if rerr := decodeOne(dec, &req); rerr != nil {
		s.writeJSON(w, rerr.status, apiError{Error: rerr.msg})
		return
	}
	p, _ := principalOf(r.Context())
	rec, err := s.recordDecision(r.Context(), r.PathValue("id"), p.Email, req.Decision, req.Note)
	if err != nil {
		s.apiFailure(w, r, err)
		return
	}
	s.writeJSON(w, http.StatusCreated, decisionResponse{Decision: rec.Decisions[len(rec.Decisions)-1], Decisions: rec.Decisions})
}

// handleAPIReport answers POST /api/interviews/{id}/report: the report is
// written again in the background; 202 with its status and version.
func (s *decisionActions) handleAPIReport(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p, _ := principalOf(r.Context())
	if err := s.requestReport(r.Context(), id, p.Email); err != nil {
		s.apiFailure(w, r, err)
		return
	}
	resp := reportResponse{Status: interviews.ReportPending}
	if rec, err := s.store.Get(r.Context(), id); err == nil && rec.Report != nil {
		resp = reportResponse{Status: rec.Report.Status, Version: rec.Report.Version}
	}
	s.writeJSON(w, http.StatusAccepted, resp)
}

// apiFailure answers an API request that failed: a *requestError with its
// status and message, anything else as a logged 500.
func (s *decisionActions) apiFailure(w http.ResponseWriter, r *http.Request, err error) {
	err = forPeople(err)
	if re, ok := errors.AsType[*requestError](err); ok {
		s.writeJSON(w, re.status, apiError{Error: re.msg})
		return
	}
	s.log.Error("web: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	s.serverError(w, r)
}

// routes registers the decision and report requests, from the pages and
// the API.
func (s *decisionActions) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("POST /review/{id}/decision", g.review(s.handleDecisionForm))
	mux.HandleFunc("POST /review/{id}/report/regenerate", g.review(s.handleRegenerateForm))
	mux.HandleFunc("POST /api/interviews/{id}/decision", g.review(s.handleAPIDecision))
	mux.HandleFunc("POST /api/interviews/{id}/report", g.review(s.handleAPIReport))
}
