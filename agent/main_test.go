package agent

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine they started is
// still running when they end: every goroutine here has a way to stop.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
