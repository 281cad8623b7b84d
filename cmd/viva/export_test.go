package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

// exportFixture stores three interviews, one completed, in s.
func exportFixture(t *testing.T, s interviews.Store) []*interviews.Record {
	t.Helper()
	created := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var out []*interviews.Record
	for i, name := range []string{"Ada Lovelace", "Alan Turing", "Grace Hopper"} {
		r := &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Engineer", Level: "mid"}, Blueprint: "default",
			CreatedAt: created.Add(time.Duration(i) * time.Minute)}
		if i == 1 {
			r.Start(r.CreatedAt.Add(time.Minute))
			r.EnterStage("greeting", "Welcome", r.CreatedAt.Add(time.Minute), false, "start")
			r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "greeting", Text: "Hello", StartedAt: r.CreatedAt.Add(time.Minute), EndedAt: r.CreatedAt.Add(2 * time.Minute)})
			r.Finish(interviews.StatusCompleted, "test", r.CreatedAt.Add(10*time.Minute))
		}
		if err := s.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// runExportCmd runs viva export with args and returns its exit code,
// stdout and stderr.
func runExportCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, "", append([]string{exportName}, args...)...)
}

// TestExportFromPostgres: with VIVA_DATABASE_URL set, viva export writes
// every record as <id>.json in the file store's format, and neither its
// output nor its log shows the database password.
func TestExportFromPostgres(t *testing.T) {
	dbURL := pgtest.Database(t)
	t.Setenv("VIVA_DATABASE_URL", dbURL)
	cfg := config.Default()
	cfg.DatabaseURL = dbURL
	cfg.DataDir = filepath.Join(t.TempDir(), "unused")
	store, err := openStore(t.Context(), cfg, newLogger(&bytes.Buffer{}, "error"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore(store)
	if where := store.Locate("x"); !strings.HasPrefix(where, "postgres") {
		t.Fatalf("openStore with a database URL opened %q, want PostgreSQL", where)
	}
	recs := exportFixture(t, store)

	dir := filepath.Join(t.TempDir(), "export")
	code, stdout, stderr := runExportCmd(t, "--out", dir, "--data-dir", cfg.DataDir)
	if code != 0 {
		t.Fatalf("viva export: exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "exported 3 interviews to "+dir) {
		t.Errorf("stdout = %q", stdout)
	}
	u, _ := url.Parse(dbURL)
	if password, _ := u.User.Password(); strings.Contains(stdout+stderr, password) {
		t.Errorf("the password shows in the output:\n%s\n%s", stdout, stderr)
	}
	if _, err := os.Stat(cfg.DataDir); err == nil {
		t.Error("the data directory was created although the records are in PostgreSQL")
	}
	files := openExported(t, dir)
	for _, r := range recs {
		got, err := files.Get(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, got), mustJSON(t, r); !bytes.Equal(a, b) {
			t.Errorf("exported %s:\n%s\nwant\n%s", r.ID, a, b)
		}
	}
	if page, err := files.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != len(recs) {
		t.Errorf("the export lists %+v, %v", page, err)
	}
}

// TestExportByStatus: --status exports the interviews in that status only,
// here from a data directory.
func TestExportByStatus(t *testing.T) {
	t.Setenv("VIVA_DATABASE_URL", "")
	src := t.TempDir()
	store, err := filestore.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	recs := exportFixture(t, store)
	dir := t.TempDir()
	code, stdout, stderr := runExportCmd(t, "--data-dir", src, "--out", dir, "--status", "completed")
	if code != 0 || !strings.Contains(stdout, "exported 1 interviews") {
		t.Fatalf("viva export --status completed: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	page, err := openExported(t, dir).List(t.Context(), interviews.ListOptions{})
	if err != nil || page.Total != 1 || page.Items[0].ID != recs[1].ID {
		t.Fatalf("exported %+v, %v; want only %s", page, err, recs[1].ID)
	}
}

// TestExportUsageErrors: no --out, an unknown status, or the data
// directory itself as --out are usage errors (exit 2) that say what to do.
func TestExportUsageErrors(t *testing.T) {
	t.Setenv("VIVA_DATABASE_URL", "")
	src := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", src}, "--out DIR is required"},
		{[]string{"--data-dir", src, "--out", t.TempDir(), "--status", "done"}, `--status "done" is not a status`},
		{[]string{"--data-dir", src, "--out", src}, "is the data directory"},
	} {
		code, _, stderr := runExportCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("viva export %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func openExported(t *testing.T, dir string) *filestore.Store {
	t.Helper()
	s, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
