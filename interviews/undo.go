package interviews

import (
	"context"
	"errors"
	"time"
)

// UndoWindow is how long after withdrawing a link a recruiter may take it
// back (Service.Restore).
const UndoWindow = 10 * time.Minute

// ErrUndoLapsed: the link was withdrawn longer ago than UndoWindow, or
// was never withdrawn, so there is nothing to take back.
var ErrUndoLapsed = errors.New("interviews: the withdrawal can no longer be undone")

// AuditInvitationRestored: a withdrawn link was made valid again within
// UndoWindow.
const AuditInvitationRestored = "invitation.restored"

// CanRestore reports whether the withdrawal of r's link may be undone at
// now: it was withdrawn within UndoWindow and not replaced since.
func (r *Record) CanRestore(now time.Time) bool {
	return r.RevokedAt != nil && r.ReissuedAs == "" && now.Sub(*r.RevokedAt) <= UndoWindow
}

// CanRestore reports whether the withdrawal may be undone at now, as
// Record.CanRestore does.
func (s *Summary) CanRestore(now time.Time) bool {
	return s.RevokedAt != nil && s.ReissuedAs == "" && now.Sub(*s.RevokedAt) <= UndoWindow
}

// Restore undoes the withdrawal of interview id's link, as by who, within
// UndoWindow of it: the link works again as before. ErrUndoLapsed after
// that, or when the link was re-issued.
func (s *Service) Restore(ctx context.Context, id, who string) error {
	_, err := s.Store.Update(ctx, id, func(rec *Record) error {
		at := s.now()
		if !rec.CanRestore(at) {
			return ErrUndoLapsed
		}
		rec.RevokedAt, rec.RevokedBy = nil, ""
		rec.Audit = append(rec.Audit, AuditEntry{At: at, Who: who, Action: AuditInvitationRestored})
		return nil
	})
	return err
}
