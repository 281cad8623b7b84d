package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

func TestUsersCommand(t *testing.T) {
	dir := t.TempDir()
	viva := vivaIn(dir)
	const pw = "a long enough password"
	if code, out, errs := viva(pw+"\n", "users", "add", "--email", "Ada@Example.com", "--role", "admin"); code != 0 || !strings.Contains(out, "Added ada@example.com (admin)") {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	if code, _, errs := viva(pw+"\n", "users", "add", "--email", "ada@example.com", "--role", "reviewer"); code != 1 || !strings.Contains(errs, "already has an account") {
		t.Errorf("second add: %d %q", code, errs)
	}
	if code, _, errs := viva(pw+"\n", "users", "add", "--email", "bob@example.com", "--role", "owner"); code != 2 || !strings.Contains(errs, "admin, recruiter or reviewer") {
		t.Errorf("bad role: %d %q", code, errs)
	}
	if code, _, errs := viva("", "users", "add", "--email", "bob@example.com", "--role", "reviewer"); code != 2 || !strings.Contains(errs, "--generate-password") {
		t.Errorf("no password: %d %q", code, errs)
	}
	code, out, errs := viva("", "users", "add", "--email", "bob@example.com", "--role", "reviewer", "--generate-password")
	if code != 0 || !strings.Contains(out, "Password: ") {
		t.Fatalf("generated: %d %q %q", code, out, errs)
	}
	generated := strings.Fields(strings.SplitN(out, "Password: ", 2)[1])[0]
	code, out, _ = viva("", "users", "token", "--email", "bob@example.com")
	if code != 0 || !strings.Contains(out, "viva_") {
		t.Fatalf("token: %d %q", code, out)
	}
	token := strings.Fields(strings.SplitN(out, "viva_", 2)[1])[0]
	if code, _, errs := viva("", "users", "token", "--email", "carol@example.com"); code != 1 || !strings.Contains(errs, "has no account") {
		t.Errorf("token for nobody: %d %q", code, errs)
	}
	code, out, _ = viva("", "users", "list")
	if code != 0 || !strings.Contains(out, "ada@example.com") || !strings.Contains(out, "bob@example.com") || !strings.Contains(out, "reviewer") {
		t.Errorf("list: %d %q", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "accounts", "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{pw, generated, token} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the users file holds %q", secret)
		}
	}
	if code, out, _ := viva("", "users", "remove", "--email", "bob@example.com"); code != 0 || !strings.Contains(out, "Removed bob@example.com") {
		t.Errorf("remove: %d %q", code, out)
	}
	if code, _, _ := viva("", "users", "remove", "--email", "bob@example.com"); code != 1 {
		t.Errorf("second remove: %d", code)
	}
	if code, _, errs := viva("", "users", "frobnicate"); code != 2 || !strings.Contains(errs, "unknown users command") {
		t.Errorf("unknown: %d %q", code, errs)
	}
}

// TestUsersPasswdRoleAndTokens: viva users passwd resets a password
// (refusing a trivial one), role changes a role, and both revoke the
// user's API tokens; tokens lists tokens with their expiry and
// revoke-token revokes one while the others keep working.
func TestUsersPasswdRoleAndTokens(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	viva := vivaIn(dir)
	tokenOf := func(out string) string { return "viva_" + strings.Fields(strings.SplitN(out, "\nviva_", 2)[1])[0] }
	if code, _, errs := viva("aaaaaaaaaaaa\n", "users", "add", "--email", "ada@example.com", "--role", "admin"); code != 2 || !strings.Contains(errs, "passphrase") || !strings.Contains(errs, "--generate-password") {
		t.Errorf("trivial password: %d %q", code, errs)
	}
	if code, out, errs := viva("tundra ladle orbit pepper\n", "users", "add", "--email", "ada@example.com", "--role", "admin"); code != 0 {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	code, out, errs := viva("", "users", "token", "--email", "ada@example.com", "--valid-for", "7d")
	if code != 0 || !strings.Contains(out, "valid until") || !strings.Contains(out, "revoke-token") {
		t.Fatalf("token: %d %q %q", code, out, errs)
	}
	first := tokenOf(out)
	if code, _, errs := viva("", "users", "token", "--email", "ada@example.com", "--valid-for", "1000d"); code != 2 || !strings.Contains(errs, "730d") {
		t.Errorf("token for 1000 days: %d %q", code, errs)
	}
	_, out, _ = viva("", "users", "token", "--email", "ada@example.com")
	second := tokenOf(out)
	code, out, _ = viva("", "users", "tokens", "--email", "ada@example.com")
	if code != 0 || !strings.Contains(out, first[:13]) || !strings.Contains(out, second[:13]) || strings.Count(out, "works") != 2 {
		t.Fatalf("tokens: %d %q", code, out)
	}
	if code, out, errs := viva("", "users", "revoke-token", "--email", "ada@example.com", "--id", first[:13]); code != 0 || !strings.Contains(out, "Revoked") {
		t.Fatalf("revoke-token: %d %q %q", code, out, errs)
	}
	svc := openTestAccounts(t, dir)
	if _, err := svc.AuthenticateToken(ctx, first); err == nil {
		t.Error("the revoked token works")
	}
	if _, err := svc.AuthenticateToken(ctx, second); err != nil {
		t.Errorf("the other token: %v", err)
	}
	if code, _, errs := viva("", "users", "revoke-token", "--email", "ada@example.com", "--id", first[:13]); code != 1 || !strings.Contains(errs, "no token") {
		t.Errorf("revoking twice: %d %q", code, errs)
	}

	if code, _, errs := viva("password1234\n", "users", "passwd", "ada@example.com"); code != 2 || !strings.Contains(errs, "common") {
		t.Errorf("passwd with a common password: %d %q", code, errs)
	}
	if code, _, errs := viva("violet spoon harbour kettle\n", "users", "passwd", "carol@example.com"); code != 1 || !strings.Contains(errs, "has no account") {
		t.Errorf("passwd of nobody: %d %q", code, errs)
	}
	code, out, errs = viva("violet spoon harbour kettle\n", "users", "passwd", "ada@example.com")
	if code != 0 || !strings.Contains(out, "sessions have ended") || !strings.Contains(out, "1 API token") {
		t.Fatalf("passwd: %d %q %q", code, out, errs)
	}
	if _, err := svc.AuthenticateToken(ctx, second); err == nil {
		t.Error("a token from before the password reset works")
	}
	if _, err := svc.Authenticate(ctx, "ada@example.com", "violet spoon harbour kettle"); err != nil {
		t.Errorf("sign-in with the new password: %v", err)
	}
	if code, out, _ := viva("", "users", "role", "--email", "ada@example.com", "--role", "reviewer"); code != 0 || !strings.Contains(out, "now a reviewer") {
		t.Errorf("role: %d %q", code, out)
	}
	if u, _ := svc.User(ctx, "ada@example.com"); u == nil || u.Role != "reviewer" || u.Generation != 3 {
		t.Errorf("after passwd and role: %+v", u)
	}
}

// vivaIn returns a function that runs viva with the data directory dir,
// stdin and args, and returns its exit code, stdout and stderr.
func vivaIn(dir string) func(stdin string, args ...string) (int, string, string) {
	return func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--data-dir", dir), strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
}

// openTestAccounts opens the users file of the data directory dir.
func openTestAccounts(t *testing.T, dir string) *accounts.Service {
	t.Helper()
	st, err := accounts.OpenFile(filepath.Join(dir, "accounts", "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := accounts.NewService(st, accounts.Params{Time: 1, MemoryKiB: 64, Threads: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestWebRefusesToStartWithoutUsers(t *testing.T) {
	t.Setenv("VIVA_REVIEWER_TOKEN", "")
	t.Setenv("LIVEKIT_API_SECRET", "secret")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"web", "--data-dir", t.TempDir(), "--livekit-url", "ws://127.0.0.1:7880", "--livekit-api-key", "devkey", "--addr", "127.0.0.1:0"},
		strings.NewReader(""), &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "viva users add --email you@example.com --role admin") {
		t.Errorf("viva web without users: %d %q", code, errOut.String())
	}
}

// TestUsersInTheDatabase: with a database, viva users keeps the users
// there, after copying in those of the users file, and the file is left
// as it was.
func TestUsersInTheDatabase(t *testing.T) {
	dir := t.TempDir()
	viva := vivaIn(dir)
	const pw = "a long enough password"
	if code, _, errs := viva(pw+"\n", "users", "add", "--email", "ada@example.com", "--role", "admin"); code != 0 {
		t.Fatalf("add to the file: %d %q", code, errs)
	}
	db := pgtest.Database(t)
	code, out, errs := viva(pw+"\n", "users", "add", "--email", "bob@example.com", "--role", "reviewer", "--database-url", db)
	if code != 0 || !strings.Contains(out, "Added bob@example.com (reviewer) to PostgreSQL") {
		t.Fatalf("add to the database: %d %q %q", code, out, errs)
	}
	code, out, _ = viva("", "users", "list", "--database-url", db)
	if code != 0 || !strings.Contains(out, "ada@example.com") || !strings.Contains(out, "bob@example.com") {
		t.Errorf("the database's users: %d %q, want ada (copied from the file) and bob", code, out)
	}
	code, out, _ = viva("", "users", "list")
	if code != 0 || strings.Contains(out, "bob@example.com") {
		t.Errorf("the file's users: %d %q, want ada only", code, out)
	}
}
