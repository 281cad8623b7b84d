package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net/http"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// roomPages are the candidate's pages: the room, the join endpoint that
// records consent and mints the room token, the transcript so far, and the
// feedback page.
type roomPages struct {
	records
	tokens        *roomTokens
	interviews    *interviews.Service
	findBlueprint blueprintFinder
	consent       consents
	timeScale     float64
	roomPage      *template.Template // nil when templates/room.html is absent
	// hasRoomBundle is false when the binary lacks the room page's script
	// (ErrNoRoomBundle): the room page then says so instead of hanging.
	hasRoomBundle bool
}

// maxJoinBodyBytes bounds the join request's body (the consent).
const maxJoinBodyBytes = 4 << 10

// RoomPage is the data the room page template (templates/room.html) is
// executed with.
type RoomPage struct {
	// ID identifies the interview; the page fetches its token from
	// POST /api/interviews/{ID}/join.
	ID string
	// CandidateName is the candidate's name as registered.
	CandidateName string
	// Role is the role applied for.
	Role string
	// Stage is the name of the stage the interview is in ("" before it
	// starts), as in the agent's viva.stage attribute.
	Stage string
	// LiveKitURL is the LiveKit server to connect to (ws:// or wss://).
	LiveKitURL string
	// FeedbackURL is the candidate's feedback page, offered on the
	// closing screen when the blueprint gives candidates feedback; empty
	// otherwise.
	FeedbackURL string
	// Consent is the notice the candidate agrees to before the microphone
	// is asked for, and its version, which the join request sends back.
	Consent, ConsentVersion string
	// Consented is true when the candidate already agreed to this version
	// (a rejoin): the page shows the agreement as given.
	Consented bool
	// ExpectedLength is the interview's planned length
	// (interviews.PlannedLength), zero when the plan sets none.
	ExpectedLength time.Duration
	// Plan is what the page's script reads: every stage, in order.
	Plan RoomPlan
	// Lang is the interview's language (a BCP 47 tag, "en" by default):
	// the page's texts are the catalogue's in it.
	Lang string
	// Texts are the page script's texts in Lang, by name.
	Texts map[string]string
}

// RoomPlan is the interview's plan as the room page's script reads it,
// from a JSON data block: the stepper shows every stage and the time left.
type RoomPlan struct {
	// Stages are the blueprint's stages in order.
	Stages []RoomStage `json:"stages"`
}

// RoomStage is one stage of the plan.
type RoomStage struct {
	// Name is the stage id, as the agent's viva.stage attribute names it.
	Name string `json:"name"`
	// Title is its human name.
	Title string `json:"title"`
	// LimitMs is the stage's time limit (scaled as the worker scales it)
	// in milliseconds; 0 for none.
	LimitMs int64 `json:"limit_ms"`
}

// roomPlan is the plan of rec's blueprint, and its expected length; empty
// when the blueprint cannot be read.
func (s *roomPages) roomPlan(ctx context.Context, rec *interviews.Record) (RoomPlan, time.Duration) {
	plan := RoomPlan{Stages: []RoomStage{}}
	bp, err := s.findBlueprint.find(ctx, rec)
	if err != nil || bp == nil {
		s.log.Warn("web: the room page shows no plan: the blueprint cannot be read", "interview_id", rec.ID, "blueprint", rec.Blueprint, "err", err)
		return plan, 0
	}
	for _, st := range bp.Stages {
		title := st.Title
		if t, ok := lang.StageTitle(rec.Language, st.Name); ok && rec.Language != "" && lang.Base(rec.Language) != lang.Base(bp.Language) {
			title = t // the built-in design's stage, in the interview's language
		}
		if title == "" {
			title = st.Name
		}
		plan.Stages = append(plan.Stages, RoomStage{Name: st.Name, Title: title, LimitMs: interviews.ScaledLimit(st, s.timeScale).Milliseconds()})
	}
	return plan, interviews.PlannedLength(bp, s.timeScale)
}

// lookupJoinable reads the interview a candidate link names. It answers
// the request itself (404, 410, 500) and returns nil when the interview
// cannot be joined.
func (s *roomPages) lookupJoinable(w http.ResponseWriter, r *http.Request, asJSON bool) *interviews.Record {
	// Before the record is known, the browser's languages choose.
	tag := lang.FromAccept(r.Header.Get("Accept-Language"))
	fail := func(status int, title, msg lang.Key, args ...any) {
		if asJSON {
			s.writeJSON(w, status, apiError{Error: lang.Textf(tag, msg, args...)})
			return
		}
		s.renderCandidateMessage(w, r, status, tag, title, msg, args...)
	}
	rec, err := s.store.Get(r.Context(), r.PathValue("id"))
	if err == nil {
		tag = candidateLang(rec)
	}
	switch {
	case errors.Is(err, interviews.ErrNotFound):
		fail(http.StatusNotFound, lang.MsgNotFoundTitle, lang.MsgNotFound)
		return nil
	case err != nil:
		s.log.Error("web: reading an interview", "err", err)
		fail(http.StatusInternalServerError, lang.MsgErrorTitle, lang.MsgError)
		return nil
	case rec.Status.Finished() && !rec.CanRejoin(s.now()):
		fail(http.StatusGone, lang.MsgEndedTitle, lang.MsgEnded)
		return nil
	case rec.RevokedAt != nil:
		fail(http.StatusGone, lang.MsgLinkGoneTitle, lang.MsgWithdrawn)
		return nil
	case rec.LinkExpired(s.now()):
		fail(http.StatusGone, lang.MsgLinkGoneTitle, lang.MsgExpiredf, lang.Date(tag, *rec.ExpiresAt))
		return nil
	}
	if !asJSON {
		s.markOpened(r.Context(), rec)
	}
	return rec
}

// handleRoom serves the candidate's room page.
func (s *roomPages) handleRoom(w http.ResponseWriter, r *http.Request) {
	rec := s.lookupJoinable(w, r, false)
	if rec == nil {
		return
	}
	tag := candidateLang(rec)
	if s.roomPage == nil {
		s.renderCandidateMessage(w, r, http.StatusInternalServerError, tag, lang.MsgRoomDownTitle, lang.MsgRoomMissing)
		return
	}
	if !s.hasRoomBundle {
		s.log.Error("web: a candidate opened a room page that cannot work", "interview_id", rec.ID, "err", ErrNoRoomBundle)
		s.renderCandidateMessage(w, r, http.StatusServiceUnavailable, tag, lang.MsgRoomDownTitle, lang.MsgRoomNoScript)
		return
	}
	notice := s.consent.For(rec.Language)
	page := RoomPage{
		ID: rec.ID, CandidateName: rec.Candidate.Name, Role: rec.Candidate.Role,
		Stage: rec.CurrentStage(), LiveKitURL: s.tokens.clientURL,
		Consent: notice.Text, ConsentVersion: notice.Version,
		Consented: rec.Consent != nil && rec.Consent.Version == notice.Version,
	}
	page.Lang = tag
	page.Texts = lang.Prefixed(page.Lang, "js.")
	page.Plan, page.ExpectedLength = s.roomPlan(r.Context(), rec)
	if s.findBlueprint.feedbackBlueprint(r.Context(), rec) != nil {
		page.FeedbackURL = feedbackPath(rec.ID)
	}
	var buf bytes.Buffer
	err := s.roomPage.ExecuteTemplate(&buf, roomTemplate, page)
	if err != nil {
		s.log.Error("web: rendering the room page", "interview_id", rec.ID, "err", err)
		s.renderCandidateMessage(w, r, http.StatusInternalServerError, tag, lang.MsgRoomDownTitle, lang.MsgRoomMissing)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w)
}

// joinResponse is the answer of POST /api/interviews/{id}/join.
type joinResponse struct {
	// Token is a fresh LiveKit token for the candidate.
	Token string `json:"token"`
	// LiveKitURL is the server to connect to with it.
	LiveKitURL string `json:"livekit_url"`
	// Room is the interview's room.
	Room string `json:"room"`
	// Identity is the candidate's participant identity.
	Identity string `json:"identity"`
	// Name is the candidate's name.
	Name string `json:"name"`
}

// joinRequest is the body of POST /api/interviews/{id}/join.
type joinRequest struct {
	// Consent is true when the candidate ticked "I agree" to the notice.
	Consent bool `json:"consent"`
	// ConsentVersion is the version of the notice the page showed.
	ConsentVersion string `json:"consent_version"`
}

// handleJoin mints a fresh candidate token for an interview that has not
// finished, or that the candidate left moments ago and may still rejoin, so
// the room page can connect and reconnect. The candidate must have agreed
// to the current notice: the first join stores the agreement in the record,
// later ones (reconnects, rejoins) find it there.
func (s *roomPages) handleJoin(w http.ResponseWriter, r *http.Request) {
	rec := s.lookupJoinable(w, r, true)
	if rec == nil {
		return
	}
	if rec.Room == "" && rec.Status != interviews.StatusScheduled {
		// A terminal interview is already running without a room.
		s.writeJSON(w, http.StatusConflict, apiError{Error: lang.Text(rec.Language, lang.MsgElsewhere)})
		return
	}
	notice := s.consent.For(rec.Language)
	if rec.Consent == nil || rec.Consent.Version != notice.Version {
		var req joinRequest
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJoinBodyBytes))
		if err == nil && len(bytes.TrimSpace(body)) > 0 {
			err = json.Unmarshal(body, &req)
		}
		switch {
		case err != nil:
			s.writeJSON(w, http.StatusBadRequest, apiError{Error: lang.Text(rec.Language, lang.MsgBadJoin)})
			return
		case !req.Consent:
			s.writeJSON(w, http.StatusBadRequest, apiError{Error: lang.Text(rec.Language, lang.MsgNoConsent)})
			return
		case req.ConsentVersion != notice.Version:
			s.writeJSON(w, http.StatusConflict, apiError{Error: lang.Text(rec.Language, lang.MsgConsentChanged)})
			return
		}
		rec, err = s.interviews.Consented(r.Context(), rec.ID, notice.Version, notice.Text)
		if err != nil {
			s.log.Error("web: storing the candidate's consent", "interview_id", r.PathValue("id"), "err", err)
			s.serverError(w, r)
			return
		}
	}
	if rec.Room == "" {
		// Registered without a room (viva chat) and not started: give it one.
		roomed, err := s.interviews.GiveRoom(r.Context(), rec.ID)
		if err != nil {
			s.log.Error("web: giving an interview a room", "interview_id", rec.ID, "err", err)
			s.serverError(w, r)
			return
		}
		rec = roomed
	}
	token, ok := s.issueToken(w, r, s.tokens, rec)
	if !ok {
		return
	}
	s.writeJSON(w, http.StatusOK, joinResponse{
		Token: token, LiveKitURL: s.tokens.clientURL, Room: rec.Room,
		Identity: CandidateIdentity(rec.ID), Name: rec.Candidate.Name,
	})
}

// transcriptResponse is the answer of GET /api/interviews/{id}/transcript:
// what was said so far, for the candidate's own captions after a reload.
// It holds nothing else of the record.
type transcriptResponse struct {
	// Turns are the turns in order.
	Turns []transcriptTurn `json:"turns"`
}

// transcriptTurn is one turn as the candidate may read it again.
type transcriptTurn struct {
	// Speaker is "agent" or "candidate".
	Speaker interviews.Role `json:"speaker"`
	// Text is what was said (for an interrupted interviewer turn, what was
	// played).
	Text string `json:"text"`
	// Interrupted is true when the candidate cut the interviewer off.
	Interrupted bool `json:"interrupted"`
	// At is when the turn started.
	At time.Time `json:"at"`
	// Stage is the title of the stage the turn was spoken in.
	Stage string `json:"stage"`
}

// handleTranscript answers the candidate's link (the capability) with the
// interview's turns so far: speaker, text, interruption, time and stage
// title, and nothing else of the record — no assessments, analysis,
// résumé, job description, brief, keys or report.
func (s *roomPages) handleTranscript(w http.ResponseWriter, r *http.Request) {
	rec := s.lookupJoinable(w, r, true)
	if rec == nil {
		return
	}
	titles := make(map[string]string, len(rec.Stages))
	for _, v := range rec.Stages {
		titles[v.Name] = v.Title
	}
	resp := transcriptResponse{Turns: make([]transcriptTurn, 0, len(rec.Turns))}
	for _, t := range rec.Turns {
		if t.Role != interviews.RoleAgent && t.Role != interviews.RoleCandidate {
			continue
		}
		resp.Turns = append(resp.Turns, transcriptTurn{Speaker: t.Role, Text: t.Text, Interrupted: t.Interrupted, At: t.StartedAt, Stage: titles[t.Stage]})
	}
	s.writeJSON(w, http.StatusOK, resp)
}

// routes registers the candidate's pages: public, as the interview id in
// the link is the candidate's key.
func (s *roomPages) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("GET /interview/{id}", s.handleRoom)
	mux.Handle("POST /api/interviews/{id}/join", g.limited(http.HandlerFunc(s.handleJoin)))
	mux.HandleFunc("GET /api/interviews/{id}/transcript", s.handleTranscript)
	mux.HandleFunc("GET /interview/{id}/feedback", s.handleFeedback)
}

// markOpened notes the first time the candidate opened the room page of
// rec. A failure is logged: it must not keep the candidate out.
func (s *roomPages) markOpened(ctx context.Context, rec *interviews.Record) {
	if rec.OpenedAt != nil {
		return
	}
	if err := s.interviews.Opened(ctx, rec.ID); err != nil {
		s.log.Warn("web: noting that the candidate opened the link", "interview_id", rec.ID, "err", err)
	}
}

// candidateLang is the language of rec's candidate pages: its
// interview's, English by default.
func candidateLang(rec *interviews.Record) string {
	return cmp.Or(rec.Language, lang.Default)
}
