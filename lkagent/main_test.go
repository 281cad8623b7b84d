package lkagent

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// leakWait is how long the goroutines the tests started get to end once
// they are over: pion's ICE agent of a closed room waits out its STUN
// gathering (5 s) before its goroutines return.
const leakWait = 15 * time.Second

// TestMain fails the package's tests if any goroutine they started is
// still running leakWait after they end: every goroutine here has a way
// to stop.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(leakWait)
		err := goleak.Find()
		for err != nil && time.Now().Before(deadline) {
			time.Sleep(250 * time.Millisecond)
			err = goleak.Find()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines still running %v after the tests: %v\n", leakWait, err)
			code = 1
		}
	}
	os.Exit(code)
}
