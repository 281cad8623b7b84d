package interviews

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The Service's refusals; test with errors.Is. Each says what the person
// asked for cannot be done now; a Store's errors (ErrNotFound, …) come
// through wrapped as they are.
var (
	// ErrStarted: the interview has started, so its link can no longer
	// be withdrawn.
	ErrStarted = errors.New("interviews: the interview has already started")
	// ErrRunning: the interview is running (or its candidate may still
	// come back), so its link cannot be re-issued until it has ended.
	ErrRunning = errors.New("interviews: the interview is running")
	// ErrReissued: the invitation was re-issued already; its replacement
	// is the one to act on.
	ErrReissued = errors.New("interviews: the invitation was re-issued already")
	// ErrNotEnded: a decision waits for the interview to end.
	ErrNotEnded = errors.New("interviews: the interview has not ended")
	// ErrInvalidDecision: a decision is advance, hold or reject.
	ErrInvalidDecision = errors.New("interviews: a decision is advance, hold or reject")
)

// AuditDetailLen bounds, in characters, the text an audit entry repeats
// from what a person wrote (a decision's note, an error).
const AuditDetailLen = 120

// Service carries out what people do with interviews — register one,
// withdraw or re-issue its link, note it opened, record a decision — with
// the rules in one place, over a Store, for the web app and the command
// line alike. Its methods are safe for concurrent use.
type Service struct {
	// Store keeps the records. Required.
	Store Store
	// NewRoom names the LiveKit room of a new interview from the
	// candidate's name (unique, sanitised). Required.
	NewRoom func(candidateName string) string
	// Notifier hears EventDecisionRecorded; nil tells nobody.
	Notifier Notifier
	// LinkTTL is how long a new link stays valid; 0 is DefaultLinkTTL.
	LinkTTL time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// now returns the time to stamp records with: UTC, without the monotonic
// reading.
func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Round(0)
	}
	return time.Now().UTC().Round(0)
}

func (s *Service) linkTTL() time.Duration {
	if s.LinkTTL > 0 {
		return s.LinkTTL
	}
	return DefaultLinkTTL
}

// Registration is a new interview as a recruiter describes it, already
// validated (the Candidate with Validate, the rest by the caller's form).
type Registration struct {
	Candidate Candidate
	// Blueprint and Template name the plan and the role template ("" for
	// none): designs of the library, whose current versions the interview
	// keeps.
	Blueprint, Template string
	// Language is the language the interview is held in (checked with
	// lang.Parse; the caller resolves the blueprint's when none was
	// chosen).
	Language string
	// Options are the recruiter's choices for this interview; nil for
	// none.
	Options *Options
	// Problem is the design problem chosen from the blueprint's pool; ""
	// draws one when the interview starts.
	Problem string
	// Brief, JobDescription, ResumeText and ResumeSummary are kept in the
	// record for the interviewer.
	Brief, JobDescription, ResumeText, ResumeSummary string
	// Keys are the interview's own provider keys; empty for none.
	Keys Keys
	// By is who registers it (the signed-in user's email).
	By string
}

// Register stores a new scheduled interview for reg, in a new room, with
// a link valid for LinkTTL. Its designs must be in the library (an error
// wrapping ErrDesignNotFound otherwise, or saying why the template does
// not fit the blueprint): the record keeps their current versions, which
// the interview runs whatever is added to the library later. The keys are
// stored first, so a worker never finds the interview without the keys it
// was registered with; if the record cannot be stored they are deleted
// again.
func (s *Service) Register(ctx context.Context, reg Registration) (*Record, error) {
	at := s.now()
	expires := at.Add(s.linkTTL())
	rec := &Record{
		ID: NewID(), Room: s.NewRoom(reg.Candidate.Name), Candidate: reg.Candidate,
		Blueprint: reg.Blueprint, Template: reg.Template, Options: reg.Options.Clone(), Problem: reg.Problem, Language: reg.Language, Brief: reg.Brief,
		JobDescription: reg.JobDescription, ResumeText: reg.ResumeText, ResumeSummary: reg.ResumeSummary,
		Status: StatusScheduled, CreatedBy: reg.By, CreatedAt: at, ExpiresAt: &expires,
	}
	if rec.Options != nil && rec.Options.IsZero() {
		rec.Options = nil
	}
	o, err := OpenDesigns(ctx, Library{Store: s.Store}, rec)
	if err != nil {
		return nil, fmt.Errorf("interviews: registering: %w", err)
	}
	if rec.Template != "" {
		if err := o.Blueprint.TakesTemplate(); err != nil {
			return nil, fmt.Errorf("interviews: registering: %w", err)
		}
	}
	if err := s.create(ctx, rec, reg.Keys); err != nil {
		return nil, fmt.Errorf("interviews: registering: %w", err)
	}
	return rec, nil
}

// create stores rec with keys (none when empty), keys first.
func (s *Service) create(ctx context.Context, rec *Record, keys Keys) error {
	if !keys.Empty() {
		if err := s.Store.PutKeys(ctx, rec.ID, keys); err != nil {
			return fmt.Errorf("storing the keys of %s: %w", rec.ID, err)
		}
	}
	if err := s.Store.Create(ctx, rec); err != nil {
		if !keys.Empty() {
			_ = s.Store.DeleteKeys(ctx, rec.ID)
		}
		return fmt.Errorf("storing %s: %w", rec.ID, err)
	}
	return nil
}

// Revoke withdraws the link of interview id, as by who: the room page then
// refuses it with the reason. Withdrawing a withdrawn link does nothing;
// ErrStarted once the interview has started.
func (s *Service) Revoke(ctx context.Context, id, who string) error {
	_, err := s.Store.Update(ctx, id, func(rec *Record) error {
		if rec.RevokedAt != nil {
			return nil
		}
		if rec.StartedAt != nil {
			return ErrStarted
		}
		at := s.now()
		rec.Revoke(who, at)
		rec.Audit = append(rec.Audit, AuditEntry{At: at, Who: who, Action: AuditInvitationRevoked})
		return nil
	})
	return err
}

// Reissue replaces the link of interview id, as by who: the invitation is
// withdrawn and a new interview is registered for the same candidate with
// the same plan, template, brief, job description, résumé and provider
// keys, under a new id and room; each names the other in its record and
// audit list. It returns the new interview. ErrReissued when id was
// re-issued already, ErrRunning while it runs or its candidate may still
// come back. When the new interview cannot be stored the old one is put
// back as it was, so the recruiter can try again.
func (s *Service) Reissue(ctx context.Context, id, who string) (*Record, error) {
	newID := NewID()
	at := s.now()
	var revokedNow bool
	old, err := s.Store.Update(ctx, id, func(rec *Record) error {
		switch {
		case rec.ReissuedAs != "":
			return ErrReissued
		case rec.Status == StatusInProgress || rec.CanRejoin(at):
			return ErrRunning
		}
		revokedNow = rec.RevokedAt == nil
		rec.Revoke(who, at)
		rec.ReissuedAs = newID
		rec.Audit = append(rec.Audit, AuditEntry{At: at, Who: who, Action: AuditInvitationReissued, Detail: "re-issued as " + newID})
		return nil
	})
	if err != nil {
		return nil, err
	}
	expires := at.Add(s.linkTTL())
	rec := &Record{
		ID: newID, Room: s.NewRoom(old.Candidate.Name), Candidate: old.Candidate,
		Blueprint: old.Blueprint, BlueprintVersion: old.BlueprintVersion, Template: old.Template, TemplateVersion: old.TemplateVersion,
		Options: old.Options.Clone(), Problem: old.Problem, Language: old.Language, Brief: old.Brief, JobDescription: old.JobDescription, ResumeText: old.ResumeText, ResumeSummary: old.ResumeSummary,
		Status: StatusScheduled, CreatedBy: who, CreatedAt: at, ExpiresAt: &expires,
		ReissuedFrom: old.ID,
		Audit:        []AuditEntry{{At: at, Who: who, Action: AuditInvitationReissued, Detail: "re-issued from " + old.ID}},
	}
	keys, kerr := s.Store.Keys(ctx, old.ID)
	if kerr != nil {
		keys = Keys{} // none, or none that open: the new interview runs on the server's
	}
	if err := s.create(ctx, rec, keys); err != nil {
		_, uerr := s.Store.Update(ctx, id, func(o *Record) error {
			o.ReissuedAs = ""
			if revokedNow {
				o.RevokedAt, o.RevokedBy = nil, ""
			}
			o.Audit = o.Audit[:max(len(o.Audit)-1, 0)]
			return nil
		})
		return nil, errors.Join(fmt.Errorf("interviews: re-issuing %s: %w", id, err), uerr)
	}
	return rec, nil
}

// Opened notes the first time the candidate opened the link of interview
// id; later openings change nothing.
func (s *Service) Opened(ctx context.Context, id string) error {
	_, err := s.Store.Update(ctx, id, func(r *Record) error {
		if r.OpenedAt == nil {
			at := s.now()
			r.OpenedAt = &at
		}
		return nil
	})
	return err
}

// Decide appends who's decision d, with note (already cleaned: one or
// more lines of text), to the finished interview id, and an audit entry
// saying so with the report version the reviewer had in front of them;
// earlier decisions are never changed. It then tells the Notifier
// (EventDecisionRecorded) and returns the record as saved.
// ErrInvalidDecision for another kind, ErrNotEnded before the interview
// has ended.
func (s *Service) Decide(ctx context.Context, id, who string, d DecisionKind, note string) (*Record, error) {
	if !d.Valid() {
		return nil, ErrInvalidDecision
	}
	rec, err := s.Store.Update(ctx, id, func(rec *Record) error {
		if !rec.Status.Finished() {
			return ErrNotEnded
		}
		at := s.now()
		dec := Decision{Decision: d, Note: note, By: who, At: at}
		if rec.Report != nil && rec.Report.Status == ReportReady {
			dec.ReportVersion = rec.Report.Version
		}
		detail := string(d)
		if note != "" {
			detail += ": " + Clip(CleanLine(note), AuditDetailLen)
		}
		rec.Decisions = append(rec.Decisions, dec)
		rec.Audit = append(rec.Audit, AuditEntry{At: at, Who: who, Action: AuditDecision, Detail: detail, ReportVersion: dec.ReportVersion})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.Notifier != nil {
		s.Notifier.Notify(EventDecisionRecorded, rec)
	}
	return rec, nil
}

// Consented records that the candidate of interview id agreed to the
// consent wording text, of version, now, and returns the record as saved.
// A later agreement (to changed wording) replaces the earlier one.
func (s *Service) Consented(ctx context.Context, id, version, text string) (*Record, error) {
	given := &Consent{At: s.now(), Version: version, Text: text}
	rec, err := s.Store.Update(ctx, id, func(r *Record) error {
		r.Consent = given
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("interviews: recording the consent of %s: %w", id, err)
	}
	return rec, nil
}

// GiveRoom gives interview id, registered without a room (viva chat), a
// new room for its candidate to join, and returns the record as saved; an
// interview with a room keeps it.
func (s *Service) GiveRoom(ctx context.Context, id string) (*Record, error) {
	rec, err := s.Store.Update(ctx, id, func(r *Record) error {
		if r.Room == "" {
			r.Room = s.NewRoom(r.Candidate.Name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("interviews: giving %s a room: %w", id, err)
	}
	return rec, nil
}

// FeedbackMailed notes in the audit list of interview id that its
// candidate was emailed, at address to, the link to the feedback of report
// version; sendErr says why sending failed, when it did.
func (s *Service) FeedbackMailed(ctx context.Context, id, to string, version int, sendErr error) error {
	entry := AuditEntry{At: s.now(), Who: AuditSystem, Action: AuditFeedbackEmailed, Detail: "to " + to, ReportVersion: version}
	if sendErr != nil {
		entry.Action, entry.Detail = AuditFeedbackEmailFail, "to "+to+": "+Clip(sendErr.Error(), AuditDetailLen)
	}
	_, err := s.Store.Update(ctx, id, func(r *Record) error {
		r.Audit = append(r.Audit, entry)
		return nil
	})
	if err != nil {
		return fmt.Errorf("interviews: noting the feedback email of %s: %w", id, err)
	}
	return nil
}
