package web

import (
	"net/http"
	"strings"

	"github.com/viva-interviews/viva/interviews"
)

// reviewerOf names who made a request: the signed-in user's email, or the
// shared password's user.
func reviewerOf(r *http.Request) string {
	if p, ok := principalOf(r.Context()); ok && p.Email != "" {
		return p.Email
	}
	return SharedPasswordUser
}

// handleDecisionForm records the decision posted from the reviewer page
// (decision: advance, hold or reject; note) and shows the page again.
func (s *decisionActions) handleDecisionForm(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	if err := r.ParseForm(); err != nil {
		s.render(w, r, http.StatusBadRequest, "message.html", messagePage{view: view{Title: "Decision not recorded", SignedIn: true}, Message: "The form could not be read. Go back and submit it again."})
		return
	}
	decision := interviews.DecisionKind(strings.TrimSpace(r.PostForm.Get("decision")))
	note := strings.TrimSpace(r.PostForm.Get("note"))
	if _, err := s.recordDecision(r.Context(), id, reviewerOf(r), decision, note); err != nil {
		s.actionFailed(w, r, id, "Decision not recorded", err)
		return
	}
	http.Redirect(w, r, "/review/"+id+"#decisions", http.StatusSeeOther)
}

// handleRegenerateForm asks for a new report from the reviewer page.
func (s *decisionActions) handleRegenerateForm(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := s.requestReport(r.Context(), id, reviewerOf(r)); err != nil {
		s.actionFailed(w, r, id, "New report not requested", err)
		return
	}
	http.Redirect(w, r, "/review/"+id+"#report", http.StatusSeeOther)
}

// actionFailed answers a reviewer's form that could not be carried out:
// a *requestError with its status and message, anything else as a logged
// 500.
func (s *decisionActions) actionFailed(w http.ResponseWriter, r *http.Request, id, title string, err error) {
	s.formFailed(w, r, id, title, "the interview", "web: a reviewer's action failed", err)
}
