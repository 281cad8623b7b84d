package main

import (
	"os"
	"testing"

	"github.com/viva-interviews/viva/internal/sandbox"
)

func TestMain(m *testing.M) {
	// The web app started in process by these tests parses résumés in
	// children of the test binary, as viva does in children of itself.
	sandbox.Serve()
	os.Exit(m.Run())
}
