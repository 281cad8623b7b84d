package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/web"
)

// startEnv sets the settings viva agent and viva web need to get as far as
// opening the data directory; nothing listens at the LiveKit address.
func startEnv(t *testing.T) {
	t.Helper()
	for k, v := range map[string]string{
		"LIVEKIT_URL": "ws://127.0.0.1:1", "LIVEKIT_API_KEY": "devkey", "LIVEKIT_API_SECRET": "secret-secret-secret-secret-secret",
		"VIVA_REVIEWER_TOKEN": "reviewer-token-0123456789abcdef", "OPENAI_API_KEY": "", "DEEPGRAM_API_KEY": "", "VIVA_LLM": "", "VIVA_STT": "", "VIVA_TTS": "",
	} {
		t.Setenv(k, v)
	}
}

// TestStartRefusesUnusableDataDir: viva agent and viva web stop at start,
// before registering or listening, when records cannot be saved, and say
// which directory and how to choose another.
func TestStartRefusesUnusableDataDir(t *testing.T) {
	startEnv(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"inside a file": filepath.Join(file, "interviews")}
	// /sys refuses new files even to root, where directory modes do not.
	if s, err := filestore.Open("/sys"); err == nil && errors.Is(s.CheckWritable(t.Context()), interviews.ErrNotWritable) {
		dirs["read-only"] = "/sys"
	}
	for name, dir := range dirs {
		for _, cmd := range []string{"agent", "web"} {
			t.Run(name+"/"+cmd, func(t *testing.T) {
				var stderr bytes.Buffer
				args := []string{cmd, "--data-dir", dir}
				if cmd == "web" {
					args = append(args, "--addr", "127.0.0.1:0")
				}
				code := run(context.Background(), args, strings.NewReader(""), &stderr, &stderr)
				if code != 1 {
					t.Fatalf("exit code %d, want 1: %s", code, &stderr)
				}
				if msg := stderr.String(); !strings.Contains(msg, dir) || !strings.Contains(msg, "data director") {
					t.Errorf("message does not name the data directory %s: %s", dir, msg)
				}
			})
		}
	}
}

// TestRoomPageCheck: viva web and viva dev refuse a binary built without the
// room page's script, saying to run make build, unless the operator allows
// it; then they warn.
func TestRoomPageCheck(t *testing.T) {
	if err := checkRoomPage(web.CheckRoomBundle, false, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("this build has its room page: %v", err)
	}
	missing := func() error { return web.ErrNoRoomBundle }
	err := checkRoomPage(missing, false, slog.New(slog.DiscardHandler))
	if !errors.Is(err, web.ErrNoRoomBundle) || !strings.Contains(err.Error(), "make build") || !strings.Contains(err.Error(), "--"+allowNoRoomPageFlag) {
		t.Errorf("missing bundle: %v", err)
	}
	var logs bytes.Buffer
	if err := checkRoomPage(missing, true, slog.New(slog.NewTextHandler(&logs, nil))); err != nil {
		t.Errorf("allowed: %v", err)
	}
	if !strings.Contains(logs.String(), "make build") {
		t.Errorf("allowed without a warning: %q", logs.String())
	}
}

// TestDispatchNamesInstalledBlueprints: the worker's design library takes
// names only; a dispatch or record naming a file is refused without
// reading it, and nothing of the file reaches the error.
func TestDispatchNamesInstalledBlueprints(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "plan.yaml")
	const contents = "name: secret-plan-contents"
	if err := os.WriteFile(secret, []byte(contents), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, meta := range []string{
		`{"name":"Ada","role":"x","blueprint":"/etc/passwd"}`,
		`{"name":"Ada","role":"x","blueprint":"` + secret + `"}`,
	} {
		_, err := func() (*interviews.Opened, error) {
			d, err := interviews.ParseDispatch(meta)
			if err != nil {
				return nil, err
			}
			return d.Open(t.Context(), store, "room", interviews.Library{Store: store})
		}()
		if err == nil || strings.Contains(err.Error(), contents) || strings.Contains(err.Error(), "root:") {
			t.Errorf("dispatch %s: %v", meta, err)
		}
	}
	if page, _ := store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Errorf("refused dispatches stored %d records", page.Total)
	}
	// A record that names a file (written by hand or by an old version) is
	// refused the same way when dispatched.
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada", Role: "x"}, Blueprint: secret}
	if err := store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	if _, err := (interviews.Dispatch{InterviewID: rec.ID}).Open(t.Context(), store, "room", interviews.Library{Store: store}); err == nil || strings.Contains(err.Error(), contents) {
		t.Errorf("record naming a file: %v", err)
	}
}
