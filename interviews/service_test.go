package interviews_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// now is the service's clock in these tests.
var now = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// ownKeys are provider keys an interview was registered with.
var ownKeys = interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij"}

// failingCreates is a store whose Create fails, to see what the service
// undoes.
type failingCreates struct{ interviews.Store }

func (failingCreates) Create(context.Context, *interviews.Record) error {
	return errors.New("disk full")
}

// events remembers what a Notifier was told.
type events []string

func (e *events) Notify(event string, rec *interviews.Record) { *e = append(*e, event+" "+rec.ID) }

// newService returns a service on a file store holding recs, and the store.
func newService(t *testing.T, recs ...*interviews.Record) (*interviews.Service, *filestore.Store) {
	t.Helper()
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{7}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	store.SetSealer(sl)
	for _, r := range recs {
		if err := store.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	rooms := 0
	svc := &interviews.Service{Store: store, LinkTTL: 48 * time.Hour, Now: func() time.Time { return now },
		NewRoom: func(name string) string {
			rooms++
			return "room-" + strings.ToLower(name) + "-" + string(rune('a'+rooms))
		}}
	return svc, store
}

// get reads the stored record id.
func get(t *testing.T, s interviews.Store, id string) *interviews.Record {
	t.Helper()
	rec, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// scheduled, started and finished are records in those states.
func scheduled(id string) *interviews.Record {
	return storetest.NewRecord(id, "Ada", "Engineer", interviews.StatusScheduled, now.Add(-time.Hour))
}

func started(id string) *interviews.Record {
	return storetest.NewRecord(id, "Ada", "Engineer", interviews.StatusInProgress, now.Add(-time.Hour))
}

func finished(id string) *interviews.Record {
	return storetest.NewRecord(id, "Ada", "Engineer", interviews.StatusCompleted, now.Add(-time.Hour))
}

func TestServiceRegister(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys interviews.Keys
	}{
		{"without keys", interviews.Keys{}},
		{"with its own keys", ownKeys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, store := newService(t)
			reg := interviews.Registration{Candidate: interviews.Candidate{Name: "Grace", Role: "Engineer"}, Blueprint: "default",
				ResumeText: "Compilers.", ResumeSummary: "Compilers.", Keys: tc.keys, By: "recruiter@example.com"}
			rec, err := svc.Register(t.Context(), reg)
			if err != nil {
				t.Fatal(err)
			}
			got := get(t, store, rec.ID)
			if got.Status != interviews.StatusScheduled || got.Room != "room-grace-b" || got.CreatedBy != reg.By ||
				!got.CreatedAt.Equal(now) || got.ExpiresAt == nil || !got.ExpiresAt.Equal(now.Add(48*time.Hour)) || got.ResumeSummary != "Compilers." {
				t.Errorf("registered %+v", got)
			}
			if keys, _ := store.Keys(t.Context(), rec.ID); keys != tc.keys {
				t.Errorf("keys %v, want %v", keys, tc.keys)
			}
		})
	}
	t.Run("the record cannot be stored: its keys go too", func(t *testing.T) {
		svc, store := newService(t)
		svc.Store = failingCreates{store}
		_, err := svc.Register(t.Context(), interviews.Registration{Candidate: interviews.Candidate{Name: "Grace", Role: "x"}, Keys: ownKeys})
		if err == nil {
			t.Fatal("Register succeeded on a store that cannot create")
		}
		if page, _ := store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
			t.Errorf("%d records stored", page.Total)
		}
	})
}

func TestServiceRevoke(t *testing.T) {
	revoked := scheduled("revoked")
	revoked.Revoke("earlier@example.com", now.Add(-time.Minute))
	for _, tc := range []struct {
		name    string
		id      string
		want    error
		revoker string // who the record names afterwards; "" for nobody
		audits  int    // revocations in its audit list
	}{
		{"a scheduled link", "sched", nil, "r@example.com", 1},
		{"withdrawn already: nothing changes", "revoked", nil, "earlier@example.com", 0},
		{"started", "started", interviews.ErrStarted, "", 0},
		{"unknown", "nosuchinterview", interviews.ErrNotFound, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, store := newService(t, scheduled("sched"), revoked, started("started"))
			err := svc.Revoke(t.Context(), tc.id, "r@example.com")
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Revoke = %v, want %v", err, tc.want)
			}
			if tc.want == interviews.ErrNotFound {
				return
			}
			rec := get(t, store, tc.id)
			if rec.RevokedBy != tc.revoker || (tc.revoker != "") != (rec.RevokedAt != nil) {
				t.Errorf("revoked by %q at %v, want by %q", rec.RevokedBy, rec.RevokedAt, tc.revoker)
			}
			if n := countAudit(rec, interviews.AuditInvitationRevoked); n != tc.audits {
				t.Errorf("%d revocations audited, want %d", n, tc.audits)
			}
		})
	}
}

func countAudit(rec *interviews.Record, action string) int {
	n := 0
	for _, a := range rec.Audit {
		if a.Action == action {
			n++
		}
	}
	return n
}

func TestServiceReissue(t *testing.T) {
	reissued := scheduled("reissued")
	reissued.ReissuedAs = "someotherid"
	for _, tc := range []struct {
		name string
		id   string
		want error
	}{
		{"a scheduled link", "sched", nil},
		{"a finished interview", "done", nil},
		{"re-issued already", "reissued", interviews.ErrReissued},
		{"running", "started", interviews.ErrRunning},
		{"unknown", "nosuchinterview", interviews.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, store := newService(t, scheduled("sched"), finished("done"), reissued, started("started"))
			if err := store.PutKeys(t.Context(), "sched", ownKeys); err != nil {
				t.Fatal(err)
			}
			rec, err := svc.Reissue(t.Context(), tc.id, "r@example.com")
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Reissue = %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				return
			}
			old, fresh := get(t, store, tc.id), get(t, store, rec.ID)
			if old.ReissuedAs != rec.ID || old.RevokedAt == nil || fresh.ReissuedFrom != tc.id || fresh.Status != interviews.StatusScheduled ||
				fresh.Candidate != old.Candidate || fresh.CreatedBy != "r@example.com" || fresh.Room == old.Room {
				t.Errorf("old %+v\nnew %+v", old, fresh)
			}
			wantKeys := interviews.Keys{}
			if tc.id == "sched" {
				wantKeys = ownKeys
			}
			if keys, _ := store.Keys(t.Context(), rec.ID); keys != wantKeys {
				t.Errorf("the new interview's keys %v, want %v", keys, wantKeys)
			}
		})
	}
	t.Run("the new interview cannot be stored: the old one is as it was", func(t *testing.T) {
		svc, store := newService(t, scheduled("sched"))
		before := get(t, store, "sched")
		svc.Store = failingCreates{store}
		if _, err := svc.Reissue(t.Context(), "sched", "r@example.com"); err == nil {
			t.Fatal("Reissue succeeded on a store that cannot create")
		}
		after := get(t, store, "sched")
		if after.ReissuedAs != "" || after.RevokedAt != nil || len(after.Audit) != len(before.Audit) {
			t.Errorf("after a failed re-issue: %+v", after)
		}
	})
}

func TestServiceDecide(t *testing.T) {
	withReport := finished("reported")
	withReport.Report = &interviews.Report{Status: interviews.ReportReady, Version: 3}
	long := strings.Repeat("n", interviews.AuditDetailLen+10)
	for _, tc := range []struct {
		name     string
		id       string
		decision interviews.DecisionKind
		note     string
		want     error
		version  int    // the decision's report version
		detail   string // the audit entry's detail
	}{
		{"advance, with the report read", "reported", interviews.DecisionAdvance, "Strong.", nil, 3, "advance: Strong."},
		{"hold, no report yet", "done", interviews.DecisionHold, "", nil, 0, "hold"},
		{"a long note is clipped in the audit list", "done", interviews.DecisionReject, long, nil, 0, "reject: " + long[:interviews.AuditDetailLen] + "…"},
		{"not a decision", "done", "maybe", "", interviews.ErrInvalidDecision, 0, ""},
		{"still running", "started", interviews.DecisionAdvance, "", interviews.ErrNotEnded, 0, ""},
		{"unknown", "nosuchinterview", interviews.DecisionAdvance, "", interviews.ErrNotFound, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, store := newService(t, withReport, finished("done"), started("started"))
			var told events
			svc.Notifier = &told
			rec, err := svc.Decide(t.Context(), tc.id, "r@example.com", tc.decision, tc.note)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Decide = %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				if len(told) != 0 {
					t.Errorf("a refused decision was announced: %v", told)
				}
				return
			}
			saved := get(t, store, tc.id)
			d, a := saved.Decisions[len(saved.Decisions)-1], saved.Audit[len(saved.Audit)-1]
			if d.Decision != tc.decision || d.Note != tc.note || d.ReportVersion != tc.version || !d.At.Equal(now) ||
				a.Action != interviews.AuditDecision || a.Detail != tc.detail || a.ReportVersion != tc.version {
				t.Errorf("decision %+v, audit %+v", d, a)
			}
			if want := []string{interviews.EventDecisionRecorded + " " + tc.id}; strings.Join(told, ",") != strings.Join(want, ",") || len(rec.Decisions) != len(saved.Decisions) {
				t.Errorf("told %v, want %v", told, want)
			}
		})
	}
}

func TestServiceOpened(t *testing.T) {
	svc, store := newService(t, scheduled("sched"))
	if err := svc.Opened(t.Context(), "sched"); err != nil {
		t.Fatal(err)
	}
	first := get(t, store, "sched").OpenedAt
	svc.Now = func() time.Time { return now.Add(time.Hour) }
	if err := svc.Opened(t.Context(), "sched"); err != nil {
		t.Fatal(err)
	}
	if first == nil || !first.Equal(now) || !get(t, store, "sched").OpenedAt.Equal(now) {
		t.Errorf("opened at %v, then %v; want the first opening, %v", first, get(t, store, "sched").OpenedAt, now)
	}
	if err := svc.Opened(t.Context(), "nosuchinterview"); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("Opened(unknown) = %v, want ErrNotFound", err)
	}
}

func TestServiceConsented(t *testing.T) {
	svc, store := newService(t, scheduled("sched"))
	rec, err := svc.Consented(t.Context(), "sched", "sha256:0123456789ab", "We record the interview.")
	if err != nil {
		t.Fatal(err)
	}
	want := interviews.Consent{At: now, Version: "sha256:0123456789ab", Text: "We record the interview."}
	for _, got := range []*interviews.Record{rec, get(t, store, "sched")} {
		if got.Consent == nil || *got.Consent != want {
			t.Errorf("consent %+v, want %+v", got.Consent, want)
		}
	}
	if _, err := svc.Consented(t.Context(), "nosuchinterview", "v", "text"); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("Consented(unknown) = %v, want ErrNotFound", err)
	}
}

func TestServiceGiveRoom(t *testing.T) {
	roomed := scheduled("sched")
	roomed.Room = "room-ada-a"
	svc, store := newService(t, scheduled("chat"), roomed)
	rec, err := svc.GiveRoom(t.Context(), "chat")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Room == "" || get(t, store, "chat").Room != rec.Room {
		t.Errorf("room %q, stored %q; want a new room, stored", rec.Room, get(t, store, "chat").Room)
	}
	if rec, err := svc.GiveRoom(t.Context(), "sched"); err != nil || rec.Room != "room-ada-a" {
		t.Errorf("GiveRoom(with a room) = %+v, %v; want the room kept", rec, err)
	}
}

func TestServiceFeedbackMailed(t *testing.T) {
	svc, store := newService(t, finished("done"))
	if err := svc.FeedbackMailed(t.Context(), "done", "ada@example.com", 2, nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.FeedbackMailed(t.Context(), "done", "ada@example.com", 2, errors.New("mailbox full")); err != nil {
		t.Fatal(err)
	}
	audit := get(t, store, "done").Audit
	if n := len(audit); n < 2 {
		t.Fatalf("audit %+v, want the two emails", audit)
	}
	sent, failed := audit[len(audit)-2], audit[len(audit)-1]
	if sent.Action != interviews.AuditFeedbackEmailed || sent.Detail != "to ada@example.com" || sent.ReportVersion != 2 || sent.Who != interviews.AuditSystem {
		t.Errorf("sent entry %+v", sent)
	}
	if failed.Action != interviews.AuditFeedbackEmailFail || failed.Detail != "to ada@example.com: mailbox full" {
		t.Errorf("failed entry %+v", failed)
	}
}
