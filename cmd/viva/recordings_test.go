package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/viva-interviews/viva/config"
)

// TestRecordAudioOff: with --record-audio=false the worker records nothing
// and makes no recordings directory; on, it makes the default one inside
// the data directory.
func TestRecordAudioOff(t *testing.T) {
	data := filepath.Join(t.TempDir(), "interviews")
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--data-dir", data, "--record-audio=false"}, false},
		{[]string{"--data-dir", data}, true},
	} {
		cfg, err := config.Load(nil, c.args, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		dir, err := recordingsDir(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(data, "recordings"))
		if (dir != nil) != c.want || (statErr == nil) != c.want {
			t.Fatalf("%v: recordings directory %v, on disk: %v", c.args, dir, statErr)
		}
	}
}
