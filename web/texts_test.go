package web

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/viva-interviews/viva/interviews/lang"
)

// roomTextsFile holds the room script's English texts for its Node tests
// (web/frontend/test/english.js).
const roomTextsFile = "frontend/test/texts.en.json"

// TestRoomScriptTextsFile keeps the Node tests' English texts equal to the
// catalogue's; run with VIVA_UPDATE_TEXTS=1 to rewrite the file.
func TestRoomScriptTextsFile(t *testing.T) {
	want, err := json.MarshalIndent(lang.Prefixed(lang.Default, "js."), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if os.Getenv("VIVA_UPDATE_TEXTS") != "" {
		if err := os.WriteFile(roomTextsFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(roomTextsFile)
	if err != nil || string(got) != string(want) {
		t.Errorf("%s is not the catalogue's English room texts (%v): run VIVA_UPDATE_TEXTS=1 go test ./web -run TestRoomScriptTextsFile", roomTextsFile, err)
	}
}
