package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestDatabasesAreFreshAndSeparate: each test database starts empty, takes
// writes, and is not another test's.
func TestDatabasesAreFreshAndSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := Database(t), Database(t)
	if a == b {
		t.Fatalf("two databases share the URL %s", a)
	}
	for _, u := range []string{a, b} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
	}
	bad := shared.URL("postgres")
	cfg, err := pgx.ParseConfig(bad)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = "wrong"
	if conn, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		conn.Close(ctx)
		t.Fatal("a wrong password was accepted over TCP")
	}
}
