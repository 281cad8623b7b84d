package recordings_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/recordings"
)

func TestNames(t *testing.T) {
	if got := recordings.Name("k3ab-c", 2); got != "k3ab-c-2.ogg" {
		t.Fatalf("Name = %q", got)
	}
	for _, c := range []struct {
		name string
		id   string
		part int
		ok   bool
	}{
		{"k3ab-c-2.ogg", "k3ab-c", 2, true},
		{"abc-12.ogg", "abc", 12, true},
		{"abc-0.ogg", "", 0, false},
		{"abc-02.ogg", "", 0, false},
		{"abc-1.wav", "", 0, false},
		{"-1.ogg", "", 0, false},
		{"../abc-1.ogg", "", 0, false},
		{"a/b-1.ogg", "", 0, false},
		{"ABC-1.ogg", "", 0, false},
		{"abc-1.ogg/", "", 0, false},
		{".abc-1.ogg.123.partial", "", 0, false},
	} {
		id, part, ok := recordings.Parse(c.name)
		if id != c.id || part != c.part || ok != c.ok {
			t.Errorf("Parse(%q) = %q, %d, %v", c.name, id, part, ok)
		}
	}
}

func TestFileIsRenamedOnlyWhenCommitted(t *testing.T) {
	d, err := recordings.Open(filepath.Join(t.TempDir(), "rec"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.Create("abc-1.ogg")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("OggS…")); err != nil {
		t.Fatal(err)
	}
	if names := list(t, d); len(names) != 1 || !strings.HasSuffix(names[0], ".partial") || !strings.HasPrefix(names[0], ".") {
		t.Fatalf("while writing the directory holds %v", names)
	}
	n, err := f.Commit()
	if err != nil || n != int64(len("OggS…")) {
		t.Fatalf("Commit = %d, %v", n, err)
	}
	if names := list(t, d); !slices.Equal(names, []string{"abc-1.ogg"}) {
		t.Fatalf("after Commit the directory holds %v", names)
	}
	g, err := d.Create("abc-2.ogg")
	if err != nil {
		t.Fatal(err)
	}
	g.Abort()
	if names := list(t, d); !slices.Equal(names, []string{"abc-1.ogg"}) {
		t.Fatalf("after Abort the directory holds %v", names)
	}
	if _, err := d.Create("../abc-1.ogg"); err == nil {
		t.Fatal("a path was accepted as a name")
	}
}

// TestSweep deletes what retention says, marks the entries, and removes
// the temporary files crashed sessions left, on an injected clock.
func TestSweep(t *testing.T) {
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d, err := recordings.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	write := func(name string, at time.Time) {
		t.Helper()
		p := filepath.Join(d.Path(), name)
		if err := os.WriteFile(p, []byte("OggS"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(id string, part int, started time.Time) interviews.Recording {
		return interviews.Recording{Name: recordings.Name(id, part), ContentType: interviews.RecordingContentType, StartedAt: started, DurationMS: 60000, Bytes: 4}
	}
	old, recent := now.Add(-100*day), now.Add(-10*day)
	rec := &interviews.Record{ID: "old", Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default",
		Recordings: []interviews.Recording{entry("old", 1, old), entry("old", 2, recent)}}
	if err := store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	write("old-1.ogg", old.Add(time.Hour))
	write("old-2.ogg", recent.Add(time.Hour))
	write("orphan-1.ogg", old) // no record names it
	write(".old-3.ogg.1.partial", now.Add(-2*time.Hour))
	write(".old-4.ogg.2.partial", now.Add(-time.Minute)) // being written
	write("notes.txt", old)

	sw := &recordings.Sweeper{Dir: d, Store: store, Retention: 90 * day, Now: func() time.Time { return now }}
	removed, err := sw.Sweep(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{".old-3.ogg.1.partial", "old-1.ogg", "orphan-1.ogg"}; !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	if names := list(t, d); !slices.Equal(names, []string{".old-4.ogg.2.partial", "notes.txt", "old-2.ogg"}) {
		t.Fatalf("left %v", names)
	}
	got, err := store.Get(t.Context(), "old")
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Recordings[0]; r.DeletedAt == nil || !r.DeletedAt.Equal(now) {
		t.Fatalf("the expired entry: %+v", r)
	}
	if r := got.Recordings[1]; r.DeletedAt != nil {
		t.Fatalf("the recent entry was marked deleted: %+v", r)
	}

	// A hundred days on, the second goes too; with retention 0 nothing
	// would have.
	later := now.Add(100 * day)
	keep := &recordings.Sweeper{Dir: d, Store: store, Now: func() time.Time { return later }}
	if removed, err := keep.Sweep(t.Context()); err != nil || len(removed) != 1 || removed[0] != ".old-4.ogg.2.partial" {
		t.Fatalf("retention 0 removed %v, %v", removed, err)
	}
	sw.Now = func() time.Time { return later }
	if removed, err := sw.Sweep(t.Context()); err != nil || !slices.Equal(removed, []string{"old-2.ogg"}) {
		t.Fatalf("later sweep removed %v, %v", removed, err)
	}
	// A missing directory is nothing to sweep.
	gone := &recordings.Sweeper{Dir: recordings.At(filepath.Join(t.TempDir(), "none")), Store: store, Retention: day}
	if removed, err := gone.Sweep(t.Context()); err != nil || len(removed) != 0 {
		t.Fatalf("missing directory: %v, %v", removed, err)
	}
}

func list(t *testing.T, d *recordings.Dir) []string {
	t.Helper()
	entries, err := os.ReadDir(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
