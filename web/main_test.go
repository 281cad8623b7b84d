package web

import (
	"os"
	"testing"
	"time"

	"github.com/viva-interviews/viva/internal/sandbox"
)

func TestMain(m *testing.M) {
	// Résumé parses run in children of this test binary, as they run in
	// children of viva.
	sandbox.Serve()
	// A file built to loop is stopped after 2 s of CPU here, not 10 s.
	parser.Limits.CPUTime = 2 * time.Second
	os.Exit(m.Run())
}
