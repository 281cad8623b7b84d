package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/accounts/storetest"
	ipostgres "github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open opens the accounts of the database at dbURL on a pool of their
// own, as another process has, closed when t ends.
func open(t *testing.T, dbURL string, now func() time.Time) *DB {
	t.Helper()
	store, err := ipostgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	db, err := Open(context.Background(), store, now)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestConformance runs the backends' suite on a fresh database per test;
// every handle is another pool on it, as another web app has.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		dbURL := pgtest.Database(t)
		return storetest.Backend{
			Store: func() accounts.Store { return open(t, dbURL, nil).Store() },
			Sessions: func(limits accounts.SessionLimits, now func() time.Time) accounts.Sessions {
				return open(t, dbURL, now).Sessions(limits)
			},
			Limiter: func(name string, perMinute int, now func() time.Time) accounts.Limiter {
				return open(t, dbURL, now).Limiter(name, perMinute)
			},
		}
	})
}

// TestLimiterForgetsIdleClients: buckets that have refilled completely are
// dropped, so the table holds only recently active clients.
func TestLimiterForgetsIdleClients(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	db := open(t, pgtest.Database(t), now)
	l := db.Limiter("login", 60)
	for _, key := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"} {
		if _, _, err := l.Allow(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := l.Len(ctx); err != nil || n != 3 {
		t.Fatalf("%d buckets (%v), want 3", n, err)
	}
	clock = clock.Add(61 * time.Second)
	if _, _, err := l.Allow(ctx, "10.0.0.9"); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Len(ctx); err != nil || n != 1 {
		t.Errorf("%d buckets after the idle ones refilled (%v), want 1", n, err)
	}
}
