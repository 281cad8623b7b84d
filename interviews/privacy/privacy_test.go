package privacy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/privacy"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// rig is a file store with a secrets key and a recordings directory.
type rig struct {
	store *filestore.Store
	rec   *recordings.Dir
}

func newRig(t *testing.T, now func() time.Time) rig {
	t.Helper()
	dir := t.TempDir()
	s, err := filestore.Open(filepath.Join(dir, "interviews"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetClock(now)
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{3}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	s.SetSealer(sl)
	rec, err := recordings.Open(filepath.Join(dir, "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	return rig{store: s, rec: rec}
}

// add stores a finished interview of email created at created, with a
// report, provider keys and the given number of recordings (the last one
// on disk only, as a crashed session leaves it).
func (r rig) add(t *testing.T, id, email string, created time.Time, recs int) {
	t.Helper()
	rec := storetest.NewRecord(id, "Ada Lovelace", "Engineer", interviews.StatusCompleted, created)
	rec.Candidate.Email = email
	rec.ResumeText = "Ada's résumé"
	rec.Report = &interviews.Report{Status: interviews.ReportReady, Version: 2, OverallScore: 70}
	for part := 1; part <= recs; part++ {
		name := recordings.Name(id, part)
		f, err := r.rec.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("OggS audio of " + id)); err != nil {
			t.Fatal(err)
		}
		n, err := f.Commit()
		if err != nil {
			t.Fatal(err)
		}
		if part < recs {
			rec.Recordings = append(rec.Recordings, interviews.Recording{Name: name, ContentType: interviews.RecordingContentType, StartedAt: created, Bytes: n})
		}
	}
	if err := r.store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	if err := r.store.PutKeys(t.Context(), id, interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij"}); err != nil {
		t.Fatal(err)
	}
}

func (r rig) ids(t *testing.T) []string {
	t.Helper()
	page, err := r.store.List(t.Context(), interviews.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range page.Items {
		out = append(out, s.ID)
	}
	return out
}

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// TestEraseRemovesEverything: the record, its recordings (listed or not),
// keys and report go; the erasure log names the id and what went, and
// nothing of the candidate; another candidate's interview stays whole.
func TestEraseRemovesEverything(t *testing.T) {
	r := newRig(t, nil)
	r.add(t, "ada1", "ada@example.com", t0, 3)
	r.add(t, "alan1", "alan@example.com", t0, 1)
	e := &privacy.Eraser{Store: r.store, Recordings: r.rec, Now: func() time.Time { return t0.Add(time.Hour) }}
	got, err := e.Erase(t.Context(), "ada1", "dpo@example.com", interviews.ErasureRequested)
	if err != nil {
		t.Fatal(err)
	}
	if want := (privacy.Erased{ID: "ada1", Recordings: 3, Keys: true, Report: 2}); got != want {
		t.Fatalf("Erase = %+v, want %+v", got, want)
	}
	if _, err := r.store.Get(t.Context(), "ada1"); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("the record is still there: %v", err)
	}
	if names, _ := r.rec.Of(t.Context(), "ada1"); len(names) != 0 || r.store.HasKeys(t.Context(), "ada1") {
		t.Fatalf("left behind: recordings %v, keys %v", names, r.store.HasKeys(t.Context(), "ada1"))
	}
	if names, _ := r.rec.Of(t.Context(), "alan1"); len(names) != 1 || !r.store.HasKeys(t.Context(), "alan1") || !slices.Equal(r.ids(t), []string{"alan1"}) {
		t.Fatalf("the other candidate's interview lost something: recordings %v, records %v", names, r.ids(t))
	}
	log, err := r.store.Erasures(t.Context())
	if err != nil || len(log) != 1 {
		t.Fatalf("erasure log %+v, %v", log, err)
	}
	want := interviews.Erasure{ID: "ada1", At: t0.Add(time.Hour), Who: "dpo@example.com", Reason: interviews.ErasureRequested,
		Detail: "record, 3 recordings, provider keys, report version 2"}
	if log[0] != want {
		t.Fatalf("erasure entry %+v, want %+v", log[0], want)
	}
	raw, _ := json.Marshal(log)
	for _, personal := range []string{"Ada", "ada@example.com", "Engineer", "résumé"} {
		if strings.Contains(string(raw), personal) {
			t.Errorf("the erasure log holds %q: %s", personal, raw)
		}
	}
	if _, err := e.Erase(t.Context(), "ada1", "dpo@example.com", interviews.ErasureRequested); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatalf("erasing again = %v, want ErrNotFound", err)
	}
}

// TestEraseLeavesARunningInterview: an interview a live session holds is
// not erased; its lease stays the session's.
func TestEraseLeavesARunningInterview(t *testing.T) {
	r := newRig(t, nil)
	r.add(t, "live1", "ada@example.com", t0, 1)
	if _, err := r.store.AcquireLease(t.Context(), "live1", "worker-a", time.Minute); err != nil {
		t.Fatal(err)
	}
	e := &privacy.Eraser{Store: r.store, Recordings: r.rec}
	if _, err := e.Erase(t.Context(), "live1", "dpo", interviews.ErasureRequested); !errors.Is(err, privacy.ErrRunning) {
		t.Fatalf("Erase of a running interview = %v, want ErrRunning", err)
	}
	if l, held, _ := r.store.Lease(t.Context(), "live1"); !held || l.Owner != "worker-a" {
		t.Fatalf("lease %+v held %v, want worker-a's", l, held)
	}
	if names, _ := r.rec.Of(t.Context(), "live1"); len(names) != 1 || !slices.Equal(r.ids(t), []string{"live1"}) {
		t.Fatal("a running interview lost its record or recording")
	}
}

// TestFindAndExport: every interview of one address, whatever its case,
// is exported whole with its recordings; nobody else's.
func TestFindAndExport(t *testing.T) {
	r := newRig(t, nil)
	r.add(t, "ada1", "ada@example.com", t0, 2)
	r.add(t, "ada2", "ADA@example.com", t0.Add(time.Hour), 0)
	r.add(t, "alan1", "alan@example.com", t0, 1)
	found, err := privacy.Find(t.Context(), r.store, "Ada@Example.com")
	if err != nil || len(found) != 2 || found[0].ID != "ada2" || found[1].ID != "ada1" {
		t.Fatalf("Find = %+v, %v", found, err)
	}
	out := t.TempDir()
	dst, err := filestore.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	n, err := privacy.Export(t.Context(), r.store, dst, interviews.ListOptions{Email: "ada@example.com"}, r.rec, filepath.Join(out, privacy.RecordingsDirName))
	if err != nil || n != (privacy.Exported{Records: 2, Recordings: 2}) {
		t.Fatalf("Export = %+v, %v", n, err)
	}
	got, err := dst.Get(t.Context(), "ada1")
	if err != nil || got.ResumeText != "Ada's résumé" || got.Report == nil {
		t.Fatalf("exported record %+v, %v: want it whole", got, err)
	}
	data, err := os.ReadFile(filepath.Join(out, privacy.RecordingsDirName, "ada1-2.ogg"))
	if err != nil || string(data) != "OggS audio of ada1" {
		t.Fatalf("exported recording %q, %v", data, err)
	}
	if _, err := dst.Get(t.Context(), "alan1"); !errors.Is(err, interviews.ErrNotFound) {
		t.Fatal("another candidate's interview was exported")
	}
	if _, err := privacy.Find(t.Context(), r.store, " "); err == nil {
		t.Fatal("Find with no address succeeded")
	}
}

// TestSweepErasesPastRetention: with a 30-day retention, the records
// registered more than 30 days before the clock are erased with their
// recordings and logged as the system's, a running one is kept for a
// later sweep, younger ones stay; no retention erases nothing.
func TestSweepErasesPastRetention(t *testing.T) {
	c := storetest.NewClock(t0)
	r := newRig(t, c.Now)
	const day = 24 * time.Hour
	r.add(t, "old1", "a@example.com", t0.Add(-40*day), 1)
	r.add(t, "old2", "b@example.com", t0.Add(-31*day), 0)
	r.add(t, "busy", "c@example.com", t0.Add(-35*day), 0)
	r.add(t, "edge", "d@example.com", t0.Add(-30*day), 0)
	r.add(t, "new1", "e@example.com", t0.Add(-day), 1)
	if _, err := r.store.AcquireLease(t.Context(), "busy", "worker-a", time.Hour); err != nil {
		t.Fatal(err)
	}
	e := &privacy.Eraser{Store: r.store, Recordings: r.rec, Now: c.Now}

	off := &privacy.Sweeper{Eraser: e, Logger: slog.New(slog.DiscardHandler)}
	if got, err := off.Sweep(t.Context()); err != nil || len(got) != 0 || len(r.ids(t)) != 5 {
		t.Fatalf("a sweep without retention erased %v, %v", got, err)
	}

	s := &privacy.Sweeper{Eraser: e, Retention: 30 * day, Logger: slog.New(slog.DiscardHandler)}
	got, err := s.Sweep(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []privacy.Erased{{ID: "old2", Keys: true, Report: 2}, {ID: "old1", Recordings: 1, Keys: true, Report: 2}}; !slices.Equal(got, want) {
		t.Fatalf("Sweep erased %+v, want %+v", got, want)
	}
	if ids := r.ids(t); !slices.Equal(ids, []string{"new1", "edge", "busy"}) {
		t.Fatalf("records left %v", ids)
	}
	if names, _ := r.rec.Of(t.Context(), "old1"); len(names) != 0 {
		t.Fatalf("old1's recordings stayed: %v", names)
	}
	log, _ := r.store.Erasures(t.Context())
	for _, l := range log {
		if l.Who != interviews.AuditSystem || l.Reason != interviews.ErasureRetention || !l.At.Equal(t0) {
			t.Errorf("erasure entry %+v", l)
		}
	}

	// Two hours on: the session has ended (its lease lapsed) and "edge" is
	// past the retention too.
	c.Advance(2 * time.Hour)
	if got, err := s.Sweep(t.Context()); err != nil || len(got) != 2 || !slices.Equal(r.ids(t), []string{"new1"}) {
		t.Fatalf("second sweep erased %+v (%v); left %v", got, err, r.ids(t))
	}
}

// TestSweeperRunsHourly: Run sweeps at once and then every interval
// until its context ends.
func TestSweeperRunsHourly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil)
		const day = 24 * time.Hour
		now := time.Now()
		r.add(t, "old", "a@example.com", now.Add(-8*day), 0)
		r.add(t, "later", "b@example.com", now.Add(-7*day+30*time.Minute), 0)
		s := &privacy.Sweeper{Eraser: &privacy.Eraser{Store: r.store, Recordings: r.rec}, Retention: 7 * day, Logger: slog.New(slog.DiscardHandler)}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { s.Run(ctx, time.Hour); close(done) }()
		synctest.Wait()
		if ids := r.ids(t); !slices.Equal(ids, []string{"later"}) {
			t.Fatalf("after the first sweep: %v", ids)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if ids := r.ids(t); len(ids) != 0 {
			t.Fatalf("after an hour: %v", ids)
		}
		cancel()
		<-done
	})
}
