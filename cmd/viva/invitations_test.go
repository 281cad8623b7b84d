package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// TestInvitationsCommands: viva invitations revoke and reissue change the
// stored interviews as the web app's buttons do, and say why when they
// cannot.
func TestInvitationsCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	store, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Now().Add(-time.Hour)
	for _, r := range []*interviews.Record{
		storetest.NewRecord("sched", "Ada", "Engineer", interviews.StatusScheduled, created),
		storetest.NewRecord("other", "Grace", "Engineer", interviews.StatusScheduled, created),
		storetest.NewRecord("started", "Alan", "Engineer", interviews.StatusInProgress, created),
	} {
		if err := store.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	// A live session holds the running interview, so no start sweeps it.
	if _, err := store.AcquireLease(t.Context(), "started", "a live session", time.Hour); err != nil {
		t.Fatal(err)
	}
	invitations := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		args = append(append([]string{"invitations"}, args...), "--data-dir", dir, "--public-url", "https://iv.example.com")
		code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	if code, out, errOut := invitations("revoke", "--id", "sched", "--as", "r@example.com"); code != 0 || !strings.Contains(out, "withdrew the link of interview sched") {
		t.Fatalf("revoke: exit %d, %q, %q", code, out, errOut)
	}
	if rec, _ := store.Get(t.Context(), "sched"); rec.RevokedAt == nil || rec.RevokedBy != "r@example.com" {
		t.Errorf("after revoke: %+v", rec)
	}

	code, out, errOut := invitations("reissue", "--id", "other")
	if code != 0 || !strings.Contains(out, "re-issued interview other as ") || !strings.Contains(out, "send the candidate: https://iv.example.com/interview/") {
		t.Fatalf("reissue: exit %d, %q, %q", code, out, errOut)
	}
	old, _ := store.Get(t.Context(), "other")
	if fresh, err := store.Get(t.Context(), old.ReissuedAs); err != nil || fresh.ReissuedFrom != "other" || fresh.CreatedBy != interviews.AuditSystem {
		t.Errorf("the re-issued interview: %+v, %v", fresh, err)
	}

	for _, tc := range []struct{ args, want string }{
		{"revoke --id started", "already started"},
		{"reissue --id started", "is running"},
		{"revoke", "--id is required"},
		{"withdraw --id sched", `unknown invitations command "withdraw": use revoke or reissue`},
	} {
		if code, _, errOut := invitations(strings.Fields(tc.args)...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("viva invitations %s: exit %d, stderr %q; want it to say %q", tc.args, code, errOut, tc.want)
		}
	}
}
