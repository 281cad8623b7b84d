package interviews_test

import (
	"errors"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

func TestServiceRestore(t *testing.T) {
	recent := scheduled("recent")
	recent.Revoke("r@example.com", now.Add(-time.Minute))
	old := scheduled("old")
	old.Revoke("r@example.com", now.Add(-interviews.UndoWindow-time.Second))
	replaced := scheduled("replaced")
	replaced.Revoke("r@example.com", now.Add(-time.Minute))
	replaced.ReissuedAs = "newer"
	for _, tc := range []struct {
		id   string
		want error
	}{
		{"recent", nil},
		{"old", interviews.ErrUndoLapsed},
		{"replaced", interviews.ErrUndoLapsed},
		{"sched", interviews.ErrUndoLapsed},
	} {
		t.Run(tc.id, func(t *testing.T) {
			svc, store := newService(t, scheduled("sched"), recent, old, replaced)
			if err := svc.Restore(t.Context(), tc.id, "r@example.com"); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Restore = %v, want %v", err, tc.want)
			}
			rec := get(t, store, tc.id)
			if tc.want == nil && (rec.RevokedAt != nil || rec.Joinable(now) != nil || countAudit(rec, interviews.AuditInvitationRestored) != 1) {
				t.Errorf("after undoing: revoked %v, joinable %v, audit %+v", rec.RevokedAt, rec.Joinable(now), rec.Audit)
			}
		})
	}
}
