package web

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
)

// TestRoomBundleMissing: a binary built without the room page's script
// says so at start (CheckRoomBundle, a warning when the server is made) and
// shows candidates a message instead of a page that never connects.
func TestRoomBundleMissing(t *testing.T) {
	if err := CheckRoomBundle(); err != nil {
		t.Fatalf("this test binary lacks the bundle: %v (run make assets)", err)
	}
	for name, files := range map[string]fstest.MapFS{
		"absent": {"static/app.css": {Data: []byte("body{}")}},
		"empty":  {"static/" + roomBundleFile: {Data: nil}},
	} {
		if err := checkRoomBundle(files); !errors.Is(err, ErrNoRoomBundle) {
			t.Errorf("bundle %s: %v, want ErrNoRoomBundle", name, err)
		}
	}
	if !strings.Contains(ErrNoRoomBundle.Error(), "make build") {
		t.Errorf("%q does not say what to do", ErrNoRoomBundle)
	}

	ts := newTestServer(t)
	ts.room.hasRoomBundle = false
	open := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	rec := ts.get("/interview/"+open.ID, "Accept", "text/html")
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	if !strings.Contains(body, "The interview room cannot open") || strings.Contains(body, roomBundleFile) {
		t.Errorf("room page without its script: %s", body)
	}
	if logs := ts.logs.String(); !strings.Contains(logs, "make build") {
		t.Errorf("the operator's log does not say what to do: %s", logs)
	}
}
