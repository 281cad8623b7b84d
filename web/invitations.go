package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews"
)

// invitations is the recruiter's list of the invitations sent, one
// invitation's page, and the two things done to a link: withdraw it and
// re-issue it.
type invitations struct {
	records
	*plans
	links
	interviews *interviews.Service
}

// invitationsPath is the recruiter's list of invitations.
const invitationsPath = "/invitations"

// invitationPath is the page of one invitation: the result of registering
// a candidate, with the link to send.
func invitationPath(id string) string { return invitationsPath + "/" + url.PathEscape(id) }

// invitationStateLabels say each invitation state in words.
var invitationStateLabels = map[interviews.InvitationState]string{
	interviews.InvitationCreated:    "Not opened yet",
	interviews.InvitationOpened:     "Opened",
	interviews.InvitationInProgress: "In progress",
	interviews.InvitationCompleted:  "Completed",
	interviews.InvitationExpired:    "Expired",
	interviews.InvitationRevoked:    "Withdrawn",
}

// invitationLabel says an invitation state in words.
func invitationLabel(st interviews.InvitationState) string {
	if l, ok := invitationStateLabels[st]; ok {
		return l
	}
	return interviews.Humanize(string(st))
}

// invitationClass is the CSS class of an invitation state's badge.
func invitationClass(st interviews.InvitationState) string {
	return "invitation-" + strings.ReplaceAll(string(st), "_", "-")
}

// invitationRow is one invitation of the list.
type invitationRow struct {
	interviews.Summary
	State      string
	StateClass string
	// CanRevoke and CanReissue offer the two actions: a link can be
	// withdrawn until the interview starts, and re-issued unless the
	// interview is running or was re-issued already.
	CanRevoke, CanReissue bool
}

func newInvitationRow(sum interviews.Summary, now time.Time) invitationRow {
	st := sum.Invitation(now)
	return invitationRow{
		Summary: sum, State: invitationLabel(st), StateClass: invitationClass(st),
		CanRevoke:  sum.RevokedAt == nil && sum.StartedAt == nil,
		CanReissue: sum.ReissuedAs == "" && st != interviews.InvitationInProgress,
	}
}

// invitationsPage is the data of invitations.html.
type invitationsPage struct {
	view
	// State is the state filtered on; empty for all.
	State   string
	States  []statusOption
	Items   []invitationRow
	Total   int
	First   int
	Last    int
	PrevURL string
	NextURL string
	// Back is this page's address, where the row actions return to.
	Back string
}

// invitationsURL is the list's address filtered on state, on page.
func invitationsURL(state string, page int) string {
	v := url.Values{}
	if state != "" {
		v.Set("state", state)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return invitationsPath
	}
	return invitationsPath + "?" + v.Encode()
}

// handleInvitations lists the invitations sent, newest first, with their
// state at this moment, filtered by ?state=.
func (s *invitations) handleInvitations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := interviews.InvitationState(strings.TrimSpace(q.Get("state")))
	if _, ok := invitationStateLabels[state]; !ok {
		state = ""
	}
	pageNo := 1
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 1 {
		pageNo = p
	}
	now := s.now()
	p, _ := principalOf(r.Context())
	opts := interviews.ListOptions{Invitation: state, At: now, Offset: (pageNo - 1) * reviewPageSize, Limit: reviewPageSize}
	if p.Role == accounts.RoleRecruiter {
		opts.CreatedBy = p.Email // see principal.manages
	}
	list, err := s.store.List(r.Context(), opts)
	if err != nil {
		s.log.Error("web: listing invitations", "err", err)
		s.serverError(w, r)
		return
	}
	page := invitationsPage{
		view:  view{Title: "Invitations", SignedIn: true},
		State: string(state), Total: list.Total,
		Back: invitationsURL(string(state), pageNo),
	}
	page.States = append(page.States, statusOption{Value: "", Label: "Any state", Selected: state == ""})
	for _, st := range interviews.InvitationStates {
		page.States = append(page.States, statusOption{Value: string(st), Label: invitationLabel(st), Selected: st == state})
	}
	for _, sum := range list.Items {
		page.Items = append(page.Items, newInvitationRow(sum, now))
	}
	if len(page.Items) > 0 {
		page.First, page.Last = opts.Offset+1, opts.Offset+len(page.Items)
	}
	if pageNo > 1 {
		page.PrevURL = invitationsURL(string(state), pageNo-1)
	}
	if pageNo*reviewPageSize < list.Total {
		page.NextURL = invitationsURL(string(state), pageNo+1)
	}
	s.render(w, r, http.StatusOK, "invitations.html", page)
}

// handleInvitation shows one invitation: the link to send the candidate,
// a copy button, and the invitation's state. Registering a candidate from
// the form redirects here.
func (s *invitations) handleInvitation(w http.ResponseWriter, r *http.Request) {
	rec := s.readRecord(w, r, r.PathValue("id"), false)
	if rec == nil || !s.owns(w, r, rec.CreatedBy) {
		return
	}
	join := s.joinURL(r, rec.ID)
	st := rec.Invitation(s.now())
	title := "Interview ready for " + rec.Candidate.Name
	if st != interviews.InvitationCreated && st != interviews.InvitationOpened {
		title = "Invitation for " + rec.Candidate.Name
	}
	s.render(w, r, http.StatusOK, "created.html", createdPage{
		view: view{Title: title, SignedIn: true},
		ID:   rec.ID, Room: rec.Room, JoinURL: join, Candidate: rec.Candidate,
		Blueprint: blueprintTitle(rec.Blueprint), MailTo: mailTo(rec.Candidate, join),
		HasResume: rec.ResumeText != "", HasJD: rec.JobDescription != "", OwnKeys: s.store.HasKeys(r.Context(), rec.ID),
		Template: s.templateTitle(rec.Template), HasBrief: rec.Brief != "",
		State: invitationLabel(st), StateClass: invitationClass(st), ExpiresAt: rec.ExpiresAt,
		Revoked: rec.RevokedAt != nil, ReissuedAs: rec.ReissuedAs, ReissuedFrom: rec.ReissuedFrom,
	})
}

// backTo is where an invitation action returns: the list page the form
// was on (its hidden "back" field), else the invitation's own page.
func backTo(r *http.Request, id string) string {
	back := r.PostForm.Get("back")
	if back == invitationsPath || strings.HasPrefix(back, invitationsPath+"?") {
		return back
	}
	return invitationPath(id)
}

// handleRevoke withdraws a candidate's link (POST from the invitations
// list or page): the room page then refuses it with the reason.
func (s *invitations) handleRevoke(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.ownsInterview(w, r, id) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	_ = r.ParseForm() // only the optional "back" field is read
	who := reviewerOf(r)
	if err := s.interviews.Revoke(r.Context(), id, who); err != nil {
		s.invitationFailed(w, r, id, "Link not withdrawn", err)
		return
	}
	s.log.Info("web: invitation revoked", "interview_id", id, "user", who)
	http.Redirect(w, r, backTo(r, id), http.StatusSeeOther)
}

// handleReissue replaces a candidate's link (interviews.Service.Reissue)
// and answers with the new invitation's page.
func (s *invitations) handleReissue(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.ownsInterview(w, r, id) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	_ = r.ParseForm()
	who := reviewerOf(r)
	rec, err := s.interviews.Reissue(r.Context(), id, who)
	if err != nil {
		s.invitationFailed(w, r, id, "Link not re-issued", err)
		return
	}
	s.log.Info("web: invitation re-issued", "interview_id", id, "new_interview_id", rec.ID, "user", who)
	http.Redirect(w, r, invitationPath(rec.ID), http.StatusSeeOther)
}

// invitationFailed answers an invitation action that could not be
// carried out: a *requestError with its status and message, an unknown
// interview with 404, anything else as a logged 500.
func (s *invitations) invitationFailed(w http.ResponseWriter, r *http.Request, id, title string, err error) {
	err = forPeople(err)
	if re, ok := errors.AsType[*requestError](err); ok {
		s.render(w, r, re.status, "message.html", messagePage{view: view{Title: title, SignedIn: true}, Message: re.msg + " Go back to the invitations to try again."})
		return
	}
	s.log.Error("web: an invitation action failed", "interview_id", id, "err", err)
	s.render(w, r, http.StatusInternalServerError, "message.html", messagePage{view: view{Title: title, SignedIn: true}, Message: "It could not be saved on our side. Go back and try again in a moment."})
}

// manages reports whether p may see and act on an invitation created by
// createdBy: a recruiter only on their own, admins on every one.
func (p principal) manages(createdBy string) bool {
	return p.Role != accounts.RoleRecruiter || strings.EqualFold(p.Email, createdBy)
}

// routes registers the invitation pages and actions.
func (s *invitations) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("GET "+invitationsPath, g.register(s.handleInvitations))
	mux.HandleFunc("GET "+invitationsPath+"/{id}", g.register(s.handleInvitation))
	mux.HandleFunc("POST "+invitationsPath+"/{id}/revoke", g.register(s.handleRevoke))
	mux.HandleFunc("POST "+invitationsPath+"/{id}/reissue", g.register(s.handleReissue))
}
