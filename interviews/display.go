package interviews

import (
	"strings"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// How an interview stands and which stages it reached, in words: defined
// once here, so every page, list and export says the same.

// Standing is an interview as people read it: its Status, or what became
// of its link when the interview never started (withdrawn, expired).
type Standing string

// The standings besides the statuses (a Status converts to the Standing of
// the same name).
const (
	// StandingWithdrawn: a recruiter withdrew the link before the
	// interview started.
	StandingWithdrawn Standing = "withdrawn"
	// StandingExpired: the link lapsed before the interview started.
	StandingExpired Standing = "expired"
)

// standingLabels say each standing in words.
var standingLabels = map[Standing]string{
	Standing(StatusScheduled):  "Scheduled",
	Standing(StatusInProgress): "In progress",
	Standing(StatusCompleted):  "Completed",
	// Saved however the candidate's side ended it: pressing End, leaving
	// the room, falling silent; the ending says which.
	Standing(StatusCandidateLeft): "Ended early",
	Standing(StatusFailed):        "Failed",
	StandingWithdrawn:             "Withdrawn",
	StandingExpired:               "Link expired",
}

// Standings are every standing, in the order a filter offers them.
var Standings = []Standing{
	Standing(StatusScheduled), Standing(StatusInProgress), Standing(StatusCompleted),
	Standing(StatusCandidateLeft), Standing(StatusFailed), StandingWithdrawn, StandingExpired,
}

// Narrow returns opts keeping only interviews that stand s at opts.At: a
// status, and for an interview not started, the state of its link (one
// scheduled stays so while its link is created or opened, not once it was
// withdrawn or lapsed).
func (s Standing) Narrow(opts ListOptions) ListOptions {
	switch s {
	case Standing(StatusScheduled):
		opts.Status, opts.Invitations = StatusScheduled, []InvitationState{InvitationCreated, InvitationOpened}
	case StandingWithdrawn:
		opts.Status, opts.Invitations = StatusScheduled, []InvitationState{InvitationRevoked}
	case StandingExpired:
		opts.Status, opts.Invitations = StatusScheduled, []InvitationState{InvitationExpired}
	default:
		opts.Status = Status(s)
	}
	return opts
}

// Label says the standing in words ("Withdrawn", "Ended early").
func (s Standing) Label() string {
	if l, ok := standingLabels[s]; ok {
		return l
	}
	return string(s)
}

// Label says the status in words, as Standing.Label does.
func (s Status) Label() string { return Standing(s).Label() }

// Standing returns how the interview stands at now: withdrawn or expired
// when its link was withdrawn or lapsed before it started, else its status.
func (r *Record) Standing(now time.Time) Standing {
	return standing(r.Status, r.StartedAt, r.ExpiresAt, r.RevokedAt, now)
}

// Standing returns how the interview stands at now, as Record.Standing
// does.
func (s *Summary) Standing(now time.Time) Standing {
	return standing(s.Status, s.StartedAt, s.ExpiresAt, s.RevokedAt, now)
}

func standing(status Status, started, expires, revoked *time.Time, now time.Time) Standing {
	switch {
	case status == StatusScheduled && revoked != nil:
		return StandingWithdrawn
	case status == StatusScheduled && linkExpired(expires, started, now):
		return StandingExpired
	}
	return Standing(status)
}

// Visits returns the stage visits as people read them: for a finished
// interview only those entered by its end, the last one left when the
// interview ended (never "current" after the candidate left), and never
// the terminal done state.
func (r *Record) Visits() []StageVisit {
	var out []StageVisit
	for _, v := range r.Stages {
		if v.Name == stages.Done || r.EndedAt != nil && r.Status.Finished() && v.EnteredAt.After(*r.EndedAt) {
			continue
		}
		out = append(out, v)
	}
	if n := len(out); n > 0 && r.Status.Finished() && r.EndedAt != nil &&
		(out[n-1].LeftAt == nil || out[n-1].LeftAt.After(*r.EndedAt)) {
		end := *r.EndedAt
		out[n-1].LeftAt = &end
	}
	return out
}

// StagesReached counts the distinct stages of Visits.
func (r *Record) StagesReached() int {
	seen := map[string]bool{}
	for _, v := range r.Visits() {
		seen[v.Name] = true
	}
	return len(seen)
}

// LastStage is the stage of the last of Visits: where the interview ended,
// or is now; "" before the first stage.
func (r *Record) LastStage() string {
	if vs := r.Visits(); len(vs) > 0 {
		return vs[len(vs)-1].Name
	}
	return r.FinalStage
}

// StageTitle is the title of stage name as the record's visits give it,
// else the name in words.
func (r *Record) StageTitle(name string) string {
	for _, v := range r.Stages {
		if v.Name == name && v.Title != "" {
			return v.Title
		}
	}
	return Humanize(name)
}

// Humanize turns a code into words: "years_experience" → "Years
// experience".
func Humanize(code string) string {
	s := strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(code))
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// The sources of a turn (Turn.Source).
const (
	SourceVoice = "voice"
	SourceText  = "text"
	SourceTimer = "timer"
)

// Typed reports whether t is a candidate's typed answer.
func (t *Turn) Typed() bool { return t.Role == RoleCandidate && t.Source == SourceText }

// SourceLabel says how a turn arrived when that is worth saying: "typed"
// for the candidate's typed answers, "after the timer" for an
// acknowledgement of a forced move; empty otherwise (spoken turns, and the
// interviewer's replies in a typed conversation, which are not typed).
func (t *Turn) SourceLabel() string {
	switch {
	case t.Typed():
		return "typed"
	case t.Source == SourceTimer:
		return "after the timer"
	}
	return ""
}

// MinConfidentSTT is the speech recogniser's confidence (Turn.STTConfidence)
// from which a spoken turn's text is taken as the candidate's words.
const MinConfidentSTT = 0.7

// Hearing is how far a candidate turn's text can be taken as what they
// said.
type Hearing int

// The hearings of a turn.
const (
	// HeardUnrated: spoken, and the recogniser reported no confidence.
	HeardUnrated Hearing = iota
	// HeardTyped: typed by the candidate, their own words.
	HeardTyped
	// HeardConfident: spoken, the recogniser at least MinConfidentSTT sure.
	HeardConfident
	// HeardUnsure: spoken, the recogniser less than MinConfidentSTT sure.
	HeardUnsure
)

// Heard says how far t's text can be taken as the candidate's words.
func (t *Turn) Heard() Hearing {
	switch {
	case t.Typed():
		return HeardTyped
	case t.STTConfidence >= MinConfidentSTT:
		return HeardConfident
	case t.STTConfidence > 0:
		return HeardUnsure
	}
	return HeardUnrated
}

// ListedQuestions returns the questions as people read them: a question
// put down more than once in a stage with the same words (a follow-up
// suggested again and again) is listed once, as the copy that was spoken
// if one was, else the first; in the order first put down.
func (r *Record) ListedQuestions() []stages.Question {
	type key struct{ stage, text string }
	index := map[key]int{}
	var out []stages.Question
	for _, q := range r.Questions {
		k := key{q.Stage, strings.ToLower(strings.Join(strings.Fields(q.Text), " "))}
		i, seen := index[k]
		switch {
		case !seen:
			index[k] = len(out)
			out = append(out, q)
		case q.Spoken() && !out[i].Spoken():
			out[i] = q
		}
	}
	return out
}
