package web

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/viva-interviews/viva/interviews"
)

// Messages of the candidate's pages and join endpoint.
const (
	msgUnknownInterview = "This interview link is not valid. Check that you opened the whole link you were sent, or ask the recruiter for a new one."
	msgEndedInterview   = "This interview has ended. Thank you for your time — your answers were saved, and the recruiter will be in touch."
	msgRoomMissing      = "The interview room page is not available on this server yet. Please try again later or contact the recruiter."
	msgRoomNoScript     = "The interview room cannot open: this server was installed without the room page's program. Please tell the recruiter; the server's operator needs to rebuild viva with make build."
	msgElsewhere        = "This interview is already running outside a room (in a terminal session), so it cannot be joined here. Ask the recruiter for a new link."
)

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
}

// lookupJoinable reads the interview a candidate link names. It answers
// the request itself (404, 410, 500) and returns nil when the interview
// cannot be joined.
func (s *Server) lookupJoinable(w http.ResponseWriter, r *http.Request, asJSON bool) *interviews.Record {
	fail := func(status int, title, msg string) {
		if asJSON {
			s.writeJSON(w, status, apiError{Error: msg})
			return
		}
		s.renderMessage(w, r, status, title, msg)
	}
	rec, err := s.store.Get(r.PathValue("id"))
	switch {
	case errors.Is(err, interviews.ErrNotFound):
		fail(http.StatusNotFound, "Interview not found", msgUnknownInterview)
		return nil
	case err != nil:
		s.log.Error("web: reading an interview", "err", err)
		fail(http.StatusInternalServerError, "Something went wrong", "Something went wrong on our side. Try again in a moment.")
		return nil
	case rec.Status.Finished() && !rec.CanRejoin(s.now()):
		fail(http.StatusGone, "Interview ended", msgEndedInterview)
		return nil
	case s.joinRefusal(rec) != "":
		fail(http.StatusGone, "Link no longer valid", s.joinRefusal(rec))
		return nil
	}
	if !asJSON {
		s.markOpened(rec)
	}
	return rec
}

// handleRoom serves the candidate's room page.
func (s *Server) handleRoom(w http.ResponseWriter, r *http.Request) {
	rec := s.lookupJoinable(w, r, false)
	if rec == nil {
		return
	}
	if s.roomPage == nil {
		s.renderMessage(w, r, http.StatusInternalServerError, "Room unavailable", msgRoomMissing)
		return
	}
	if !s.hasRoomBundle {
		s.log.Error("web: a candidate opened a room page that cannot work", "interview_id", rec.ID, "err", ErrNoRoomBundle)
		s.renderMessage(w, r, http.StatusServiceUnavailable, "Room unavailable", msgRoomNoScript)
		return
	}
	page := RoomPage{
		ID: rec.ID, CandidateName: rec.Candidate.Name, Role: rec.Candidate.Role,
		Stage: rec.CurrentStage(), LiveKitURL: s.clientURL,
	}
	if s.feedbackBlueprint(rec) != nil {
		page.FeedbackURL = feedbackPath(rec.ID)
	}
	var buf bytes.Buffer
	err := s.roomPage.ExecuteTemplate(&buf, roomTemplate, page)
	if err != nil {
		s.log.Error("web: rendering the room page", "interview_id", rec.ID, "err", err)
		s.renderMessage(w, r, http.StatusInternalServerError, "Room unavailable", msgRoomMissing)
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

// handleJoin mints a fresh candidate token for an interview that has not
// finished, or that the candidate left moments ago and may still rejoin, so
// the room page can connect and reconnect.
func (s *Server) handleJoin(w http.ResponseWriter, r *http.Request) {
	rec := s.lookupJoinable(w, r, true)
	if rec == nil {
		return
	}
	if rec.Room == "" {
		// Registered without a room (viva chat); give it one unless a
		// terminal interview is already running on it.
		if rec.Status != interviews.StatusScheduled {
			s.writeJSON(w, http.StatusConflict, apiError{Error: msgElsewhere})
			return
		}
		rec.Room = RoomName(rec.Candidate.Name)
		if err := s.store.Save(rec); err != nil {
			s.log.Error("web: giving an interview a room", "interview_id", rec.ID, "err", err)
			s.serverError(w, r)
			return
		}
	}
	token, ok := s.issueToken(w, r, rec)
	if !ok {
		return
	}
	s.writeJSON(w, http.StatusOK, joinResponse{
		Token: token, LiveKitURL: s.clientURL, Room: rec.Room,
		Identity: CandidateIdentity(rec.ID), Name: rec.Candidate.Name,
	})
}
