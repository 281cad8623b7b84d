package web

import (
	"context"
	"fmt"
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
	mail       *inviteMail
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
	// JoinURL is the candidate's link, to copy; empty once it cannot be
	// used.
	JoinURL string
	// Result is how the interview went, for the recruiter: the report's
	// score and the latest decision, in words; empty before there is any.
	Result string
}

func newInvitationRow(sum interviews.Summary, now time.Time, join string) invitationRow {
	st := sum.Invitation(now)
	row := invitationRow{
		Summary: sum, State: invitationLabel(st), StateClass: invitationClass(st),
		CanRevoke:  sum.RevokedAt == nil && sum.StartedAt == nil,
		CanReissue: sum.ReissuedAs == "" && st != interviews.InvitationInProgress,
		Result:     resultLabel(sum),
	}
	if st == interviews.InvitationCreated || st == interviews.InvitationOpened {
		row.JoinURL = join
	}
	return row
}

// resultLabel says how an interview went in a few words: "Score 72 ·
// Advance"; empty while there is neither a score nor a decision.
func resultLabel(sum interviews.Summary) string {
	var parts []string
	if sum.Score != nil {
		parts = append(parts, fmt.Sprintf("Score %d", score100(*sum.Score)))
	}
	if sum.Decision != "" {
		parts = append(parts, decisionLabel(sum.Decision))
	}
	return strings.Join(parts, " · ")
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
	// Undo offers to take back the link just withdrawn; nil when none
	// may be.
	Undo *undoView
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
	opts := interviews.ListOptions{At: now, Offset: (pageNo - 1) * reviewPageSize, Limit: reviewPageSize}
	if state != "" {
		opts.Invitations = []interviews.InvitationState{state}
	}
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
	if id := q.Get("withdrawn"); id != "" {
		if rec, err := s.store.Get(r.Context(), id); err == nil && p.manages(rec.CreatedBy) && rec.CanRestore(now) {
			page.Undo = &undoView{ID: rec.ID, Name: rec.Candidate.Name}
		}
	}
	page.States = append(page.States, statusOption{Value: "", Label: "Any state", Selected: state == ""})
	for _, st := range interviews.InvitationStates {
		page.States = append(page.States, statusOption{Value: string(st), Label: invitationLabel(st), Selected: st == state})
	}
	for _, sum := range list.Items {
		page.Items = append(page.Items, newInvitationRow(sum, now, s.joinURL(r, sum.ID)))
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
		Blueprint: blueprintTitle(rec.Blueprint), BlueprintVersion: rec.BlueprintVersion, MailTo: s.mail.mailTo(r.Context(), rec, join), Length: s.mail.plannedLength(r.Context(), rec),
		Mailings: mailingsView(rec), CanEmail: s.mail.canEmail(rec, s.now()),
		HasResume: rec.ResumeText != "", HasJD: rec.JobDescription != "", OwnKeys: s.store.HasKeys(r.Context(), rec.ID),
		Template: s.templateTitle(rec.Template), HasBrief: rec.Brief != "",
		State: invitationLabel(st), StateClass: invitationClass(st), ExpiresAt: rec.ExpiresAt,
		Revoked: rec.RevokedAt != nil, ReissuedAs: rec.ReissuedAs, ReissuedFrom: rec.ReissuedFrom, CanUndo: rec.CanRestore(s.now()),
		CanRevoke: rec.RevokedAt == nil && rec.StartedAt == nil,
	})
}

// backTo is where an invitation action returns: the list page the form
// was on (its hidden "back" field), else the invitation's own page.
func backTo(r *http.Request, id string) string {
	return safeBack(r.PostForm.Get("back"), id)
}

// handleRevoke withdraws a candidate's link (POST from the invitations
// list or page): the room page then refuses it with the reason.
func (s *invitations) handleRevoke(w http.ResponseWriter, r *http.Request) {
	s.linkAction(w, r, s.interviews.Revoke, "Link not withdrawn", "web: invitation revoked", withdrawnBack)
}

// linkAction carries out act on the link of the interview the path names,
// as the signed-in user (POST from the invitations list or page), and
// returns to where the form came from, as next makes it of the page back
// and the id; a refusal answers with failed as the title.
func (s *invitations) linkAction(w http.ResponseWriter, r *http.Request, act func(ctx context.Context, id, who string) error,
	failed, done string, next func(back, id string) string) {
	id := r.PathValue("id")
	if !s.ownsInterview(w, r, id) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	_ = r.ParseForm() // only the optional "back" field is read
	who := reviewerOf(r)
	if err := act(r.Context(), id, who); err != nil {
		s.invitationFailed(w, r, id, failed, err)
		return
	}
	s.log.Info(done, "interview_id", id, "user", who)
	http.Redirect(w, r, next(backTo(r, id), id), http.StatusSeeOther)
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
	s.formFailed(w, r, id, title, "the invitations", "web: an invitation action failed", err)
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
	mux.HandleFunc("GET "+invitationsPath+"/{id}/revoke", g.register(s.handleRevokeForm))
	mux.HandleFunc("POST "+invitationsPath+"/{id}/revoke", g.register(s.handleRevoke))
	mux.HandleFunc("POST "+invitationsPath+"/{id}/restore", g.register(s.handleRestore))
	mux.HandleFunc("POST "+invitationsPath+"/{id}/email", g.register(s.handleInviteEmail))
	mux.HandleFunc("POST "+invitationsPath+"/{id}/reissue", g.register(s.handleReissue))
}
