package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open opens a Store on dbURL, closed when t ends.
func open(t *testing.T, dbURL string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestConformance runs the store suite on a fresh database per test; each
// opener is another pool on it, as another process has.
func TestConformance(t *testing.T) {
	storetest.Run(t, opener)
	storetest.RunDesigns(t, opener)
}

func opener(t *testing.T) storetest.Opener {
	dbURL := pgtest.Database(t)
	return func(o storetest.Options) interviews.Store {
		s := open(t, dbURL)
		s.SetClock(o.Now)
		s.SetSealer(o.Sealer)
		return s
	}
}

// TestMigrationsOnceWhenStartedTogether: processes opening a new database
// at once apply each migration once, and a later open applies none.
func TestMigrationsOnceWhenStartedTogether(t *testing.T) {
	dbURL := pgtest.Database(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s, err := Open(context.Background(), dbURL)
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		})
	}
	wg.Wait()
	s := open(t, dbURL)
	all, err := loadMigrations(migrations)
	if err != nil {
		t.Fatal(err)
	}
	var n, max int
	if err := s.pool.QueryRow(context.Background(), "SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != len(all) || max != all[len(all)-1].version {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d up to %d", n, max, len(all), all[len(all)-1].version)
	}
	// A database migrated by a newer viva is refused with what to do.
	if _, err := s.pool.Exec(context.Background(), "INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), dbURL); err == nil || !strings.Contains(err.Error(), "upgrade viva") {
		t.Fatalf("Open of a newer schema = %v", err)
	}
}

// TestOpenErrorsSayWhatToDo: a bad URL, an unreachable server, a wrong
// password and a missing database each get their own advice, and no
// message holds the password.
func TestOpenErrorsSayWhatToDo(t *testing.T) {
	good, err := url.Parse(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	password, _ := good.User.Password()
	with := func(change func(u *url.URL)) string {
		u := *good
		change(&u)
		return u.String()
	}
	cases := []struct {
		name, url, want string
	}{
		{"empty", "", "VIVA_DATABASE_URL"},
		{"not a URL", "postgres://user:" + password + "@host:notaport/db", "not a valid PostgreSQL URL"},
		{"unreachable", with(func(u *url.URL) { u.Host = "127.0.0.1:1" }), "cannot reach"},
		{"wrong password", with(func(u *url.URL) { u.User = url.UserPassword("postgres", "wrong-"+password) }), "user or password"},
		{"no such database", with(func(u *url.URL) { u.Path = "/nosuchdb" }), "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := Open(ctx, c.url)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open = %v, want it to say %q", err, c.want)
			}
			if password != "" && strings.Contains(err.Error(), password) {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
	s := open(t, good.String())
	if strings.Contains(s.Where(), password) || strings.Contains(s.Locate("x"), password) {
		t.Errorf("Where %q or Locate %q shows the password", s.Where(), s.Locate("x"))
	}
}

// TestCheckWritableReadOnlyDatabase: a database that refuses writes stops
// viva with ErrNotWritable and what to do.
func TestCheckWritableReadOnlyDatabase(t *testing.T) {
	dbURL := pgtest.Database(t)
	s := open(t, dbURL)
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "ALTER DATABASE "+conn.Config().Database+" SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	s.pool.Reset() // new connections take the setting
	err = s.CheckWritable(t.Context())
	if !errors.Is(err, interviews.ErrNotWritable) || !strings.Contains(err.Error(), "refuses writes") {
		t.Fatalf("CheckWritable on a read-only database = %v, want ErrNotWritable", err)
	}
	if _, err := s.List(t.Context(), interviews.ListOptions{}); err != nil {
		t.Errorf("a read-only database cannot be listed: %v", err)
	}
}

// TestNULInTextIsSaved: a NUL character, which jsonb cannot hold, does not
// fail a save; it is kept as U+FFFD, and an escaped backslash before
// "u0000" stays text.
func TestNULInTextIsSaved(t *testing.T) {
	s := open(t, pgtest.Database(t))
	r := &interviews.Record{ID: "nul", Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default",
		Status: interviews.StatusScheduled, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), JobDescription: "a\x00b \\u0000 c"}
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(t.Context(), "nul")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\uFFFDb \\u0000 c"; got.JobDescription != want {
		t.Errorf("JobDescription = %q, want %q", got.JobDescription, want)
	}
	if !got.CreatedAt.Equal(r.CreatedAt) {
		t.Errorf("CreatedAt = %v, want %v to the nanosecond", got.CreatedAt, r.CreatedAt)
	}
}

// TestCallerContextEndsTheWait: every call runs on the caller's context,
// so a request, session or command that has ended stops waiting for the
// database and gets the context's error, and a live context still works.
func TestCallerContextEndsTheWait(t *testing.T) {
	s := open(t, pgtest.Database(t))
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default"}
	if err := s.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	calls := map[string]func(ctx context.Context) error{
		"Get":  func(ctx context.Context) error { _, err := s.Get(ctx, rec.ID); return err },
		"Save": func(ctx context.Context) error { return s.Save(ctx, rec) },
		"List": func(ctx context.Context) error { _, err := s.List(ctx, interviews.ListOptions{}); return err },
		"Update": func(ctx context.Context) error {
			_, err := s.Update(ctx, rec.ID, func(*interviews.Record) error { return nil })
			return err
		},
		"AcquireLease": func(ctx context.Context) error { _, err := s.AcquireLease(ctx, rec.ID, "me", time.Minute); return err },
	}
	for name, call := range calls {
		if err := call(ended); !errors.Is(err, context.Canceled) {
			t.Errorf("%s on an ended context = %v, want context.Canceled", name, err)
		}
		if err := call(t.Context()); err != nil {
			t.Errorf("%s on a live context: %v", name, err)
		}
	}
}

// TestListColumnsFilledForOlderRows: the migration that added the
// invitation list's columns fills them for rows written before, as a
// write fills them: every state lists the same interviews either way.
func TestListColumnsFilledForOlderRows(t *testing.T) {
	s := open(t, pgtest.Database(t))
	ctx := t.Context()
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for i, st := range []interviews.Status{interviews.StatusScheduled, interviews.StatusScheduled, interviews.StatusInProgress, interviews.StatusCompleted, interviews.StatusScheduled} {
		r := storetest.NewRecord(fmt.Sprintf("r%d", i), "Ada", "Engineer", st, at.Add(time.Duration(i)*time.Hour))
		r.CreatedBy = []string{"Rita@example.com", "sam@example.com"}[i%2]
		exp := at.Add(time.Duration(i+1) * 24 * time.Hour)
		r.ExpiresAt = &exp
		switch i {
		case 1:
			r.OpenedAt = &at
		case 4:
			r.Revoke("sam@example.com", at)
		}
		if err := s.Save(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	lists := func() map[string][]string {
		out := map[string][]string{}
		for _, when := range []time.Time{at, at.Add(36 * time.Hour), at.Add(30 * 24 * time.Hour)} {
			for _, st := range interviews.InvitationStates {
				for _, by := range []string{"", "rita@example.com"} {
					page, err := s.List(ctx, interviews.ListOptions{Invitations: []interviews.InvitationState{st}, At: when, CreatedBy: by})
					if err != nil {
						t.Fatal(err)
					}
					key := fmt.Sprint(when, st, by)
					for _, it := range page.Items {
						out[key] = append(out[key], it.ID)
					}
				}
			}
		}
		return out
	}
	written := lists()
	sql, err := migrations.ReadFile("migrations/0004_lists.sql")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(sql), "UPDATE interviews SET")
	backfill, _, _ := strings.Cut(string(sql)[i:], ";")
	if _, err := s.pool.Exec(ctx, "UPDATE interviews SET created_by_lower = '', link_state = 'created', expires_ns = NULL"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, backfill); err != nil {
		t.Fatal(err)
	}
	if filled := lists(); !reflect.DeepEqual(filled, written) || len(written) < 6 {
		t.Errorf("lists after the migration's fill:\n%v\nwant, as written:\n%v", filled, written)
	}
}
