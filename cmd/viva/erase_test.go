package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/privacy"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

// runCmd runs viva with args and stdin and returns its exit code, stdout
// and stderr.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// subjectFixture stores two interviews of Ada (the first with two
// recordings, one of them unlisted as a crashed session leaves it, and
// provider keys) and one of Alan, in the store cfg names.
func subjectFixture(t *testing.T, cfg *config.Config) (ada []string, alan string) {
	t.Helper()
	store, err := openStore(t.Context(), cfg, newLogger(&bytes.Buffer{}, "error"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore(store)
	rec, err := recordings.Open(cfg.ResolvedRecordingsDir())
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for i, c := range []interviews.Candidate{
		{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Engineer", Level: "mid"},
		{Name: "Ada Lovelace", Email: "Ada@Example.com", Role: "Architect", Level: "senior"},
		{Name: "Alan Turing", Email: "alan@example.com", Role: "Engineer", Level: "mid"},
	} {
		r := &interviews.Record{Candidate: c, Blueprint: "default", CreatedAt: created.Add(time.Duration(i) * time.Minute),
			ResumeText: c.Name + "'s résumé", JobDescription: "Build engines."}
		if err := store.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			alan = r.ID
			continue
		}
		ada = append(ada, r.ID)
		if i > 0 {
			continue
		}
		for part := 1; part <= 2; part++ {
			f, err := rec.Create(recordings.Name(r.ID, part))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.Write([]byte("OggS part"))
			if _, err := f.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := store.Update(t.Context(), r.ID, func(r *interviews.Record) error {
			r.Recordings = []interviews.Recording{{Name: recordings.Name(r.ID, 1), ContentType: interviews.RecordingContentType, StartedAt: created, Bytes: 9}}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := store.PutKeys(t.Context(), r.ID, interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij"}); err != nil {
			t.Fatal(err)
		}
	}
	return ada, alan
}

// TestExportAndEraseACandidate: on the file store and on PostgreSQL,
// viva export --email writes everything held about one candidate (their
// records whole, their recordings) and nobody else's; viva erase --email
// lists their interviews, erases nothing unless told yes, then erases the
// records, recordings and keys, prints what went, and leaves an erasure
// log without personal data; the other candidate keeps everything.
func TestExportAndEraseACandidate(t *testing.T) {
	for _, backend := range []string{"files", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			cfg := config.Default()
			cfg.DataDir, cfg.RecordingsDir = filepath.Join(dir, "interviews"), filepath.Join(dir, "recordings")
			cfg.SecretsKey = strings.Repeat("ab", 32)
			if backend == "postgres" {
				cfg.DatabaseURL = pgtest.Database(t)
			}
			t.Setenv("VIVA_DATA_DIR", cfg.DataDir)
			t.Setenv("VIVA_RECORDINGS_DIR", cfg.RecordingsDir)
			t.Setenv("VIVA_SECRETS_KEY", cfg.SecretsKey)
			t.Setenv("VIVA_DATABASE_URL", cfg.DatabaseURL)
			ada, alan := subjectFixture(t, cfg)

			out := filepath.Join(dir, "ada-export")
			code, stdout, stderr := runCmd(t, "", exportName, "--email", "ADA@example.com", "--out", out)
			if code != 0 || !strings.Contains(stdout, "exported 2 interviews of ADA@example.com") || !strings.Contains(stdout, "and 2 recordings") {
				t.Fatalf("viva export --email: exit %d, stdout %q, stderr %s", code, stdout, stderr)
			}
			exported := openExported(t, out)
			for _, id := range ada {
				r, err := exported.Get(t.Context(), id)
				if err != nil || r.ResumeText != "Ada Lovelace's résumé" {
					t.Fatalf("exported %s: %+v, %v; want the whole record", id, r, err)
				}
			}
			if _, err := exported.Get(t.Context(), alan); !errors.Is(err, interviews.ErrNotFound) {
				t.Fatal("Alan's interview was exported with Ada's")
			}
			for part := 1; part <= 2; part++ {
				if _, err := os.Stat(filepath.Join(out, privacy.RecordingsDirName, recordings.Name(ada[0], part))); err != nil {
					t.Errorf("recording %d not exported: %v", part, err)
				}
			}

			code, stdout, _ = runCmd(t, "no\n", eraseName, "--email", "ada@example.com")
			if code != 1 || !strings.Contains(stdout, "2 interviews of ada@example.com") || !strings.Contains(stdout, ada[0]) || !strings.Contains(stdout, "Type yes") {
				t.Fatalf("viva erase answered no: exit %d, stdout %q", code, stdout)
			}
			store, err := openBackend(cfg, newLogger(&bytes.Buffer{}, "error"))
			if err != nil {
				t.Fatal(err)
			}
			defer closeStore(store)
			if found, _ := privacy.Find(t.Context(), store, "ada@example.com"); len(found) != 2 {
				t.Fatalf("answering no erased something: %d left", len(found))
			}

			code, stdout, stderr = runCmd(t, "yes\n", eraseName, "--email", "ada@example.com", "--by", "dpo@example.com")
			if code != 0 {
				t.Fatalf("viva erase: exit %d, stdout %q, stderr %s", code, stdout, stderr)
			}
			for _, want := range []string{"erased " + ada[0] + ": record, 2 recordings, provider keys", "erased " + ada[1] + ": record, 0 recordings", "erased 2 interviews of ada@example.com"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if found, _ := privacy.Find(t.Context(), store, "ada@example.com"); len(found) != 0 {
				t.Fatalf("%d of Ada's interviews are left", len(found))
			}
			if store.HasKeys(t.Context(), ada[0]) {
				t.Error("Ada's provider keys are left")
			}
			if names, _ := recordings.At(cfg.ResolvedRecordingsDir()).Of(t.Context(), ada[0]); len(names) != 0 {
				t.Errorf("Ada's recordings are left: %v", names)
			}
			if _, err := store.Get(t.Context(), alan); err != nil {
				t.Errorf("Alan's interview: %v", err)
			}
			log, err := store.Erasures(t.Context())
			if err != nil || len(log) != 2 {
				t.Fatalf("erasure log %+v, %v", log, err)
			}
			raw, _ := json.Marshal(log)
			for _, personal := range []string{"Ada", "ada@", "Engineer", "Architect", "résumé"} {
				if strings.Contains(string(raw), personal) {
					t.Errorf("the erasure log holds %q: %s", personal, raw)
				}
			}
			if log[0].Who != "dpo@example.com" || log[0].Reason != interviews.ErasureRequested {
				t.Errorf("erasure entry %+v", log[0])
			}

			code, stdout, _ = runCmd(t, "", eraseName, "--email", "ada@example.com", "--yes")
			if code != 0 || !strings.Contains(stdout, "nothing to erase") {
				t.Fatalf("erasing again: exit %d, stdout %q", code, stdout)
			}
		})
	}
}

// TestEraseUsageErrors: no --email, or one that is not an address, is a
// usage error (exit 2) that says what to give.
func TestEraseUsageErrors(t *testing.T) {
	t.Setenv("VIVA_DATABASE_URL", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{eraseName, "--data-dir", t.TempDir()}, "--email ADDRESS is required"},
		{[]string{eraseName, "--data-dir", t.TempDir(), "--email", "ada"}, "is not an email address"},
		{[]string{exportName, "--data-dir", t.TempDir(), "--out", t.TempDir(), "--email", "ada"}, "is not an email address"},
	} {
		code, _, stderr := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("viva %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
