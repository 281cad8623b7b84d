package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsersCommand(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	viva := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(ctx, append(args, "--data-dir", dir), strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
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
