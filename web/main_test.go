package web

import (
	"os"
	"testing"
	"time"

	"github.com/viva-interviews/viva/internal/sandbox"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

func TestMain(m *testing.M) {
	// Résumé parses run in children of this test binary, as they run in
	// children of viva.
	sandbox.Serve()
	// A file built to loop is stopped after 2 s of CPU here, not 10 s.
	parser.Limits.CPUTime = 2 * time.Second
	// The tests of web apps sharing a database start PostgreSQL, stopped
	// at the end.
	os.Exit(pgtest.Main(m))
}
