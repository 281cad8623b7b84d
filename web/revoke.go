package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/viva-interviews/viva/interviews"
)

// confirmPage is the data of confirm.html: a question, the form that
// carries out the action, and the way back without it.
type confirmPage struct {
	view
	Message string
	// Action is where the form posts; Button says what it does.
	Action, Button string
	// Back is where both the action and Cancel return.
	Back, Cancel string
}

// handleRevokeForm asks the recruiter to confirm withdrawing a link (GET
// from the Revoke buttons): the candidate could no longer use it.
func (s *invitations) handleRevokeForm(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), false)
	if rec == nil || !s.owns(w, r, rec.CreatedBy) {
		return
	}
	back := safeBack(r.URL.Query().Get("back"), rec.ID)
	s.render(w, r, http.StatusOK, "confirm.html", confirmPage{
		view: view{Title: "Withdraw " + rec.Candidate.Name + "'s link?", SignedIn: true},
		Message: rec.Candidate.Name + " will no longer be able to open the interview with the link they were sent. " +
			"You can undo this for " + interviews.LengthInWords(interviews.UndoWindow) + " afterwards.",
		Action: invitationPath(rec.ID) + "/revoke", Button: "Withdraw the link", Back: back, Cancel: "Keep the link",
	})
}

// handleRestore undoes the withdrawal of a link within
// interviews.UndoWindow (POST from the Undo buttons).
func (s *invitations) handleRestore(w http.ResponseWriter, r *http.Request) {
	s.linkAction(w, r, s.interviews.Restore, "Withdrawal not undone", "web: invitation restored",
		func(back, _ string) string { return back })
}

// withdrawnBack is where a withdrawal returns: back, telling the page
// which link was just withdrawn so it offers to undo it.
func withdrawnBack(back, id string) string {
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	return back + sep + "withdrawn=" + url.QueryEscape(id)
}

// safeBack is back when it is one of the invitation pages, else the
// invitation's own page.
func safeBack(back, id string) string {
	if back == invitationsPath || strings.HasPrefix(back, invitationsPath+"?") || back == invitationPath(id) {
		return back
	}
	return invitationPath(id)
}

// undoView offers to undo a withdrawal just made.
type undoView struct {
	ID, Name string
}
