package accounts_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// TestMemoryLimiterIsBounded: idle buckets are dropped once refilled, and
// a flood of addresses never holds more than MaxBuckets.
func TestMemoryLimiterIsBounded(t *testing.T) {
	ctx := t.Context()
	clock := storetest.NewClock(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	l := accounts.NewMemoryLimiter(60, clock.Now)
	for i := range 500 {
		l.Allow(ctx, fmt.Sprintf("10.0.%d.%d", i/256, i%256))
	}
	if n := l.Len(); n != 500 {
		t.Fatalf("%d buckets, want 500", n)
	}
	// Idle buckets refill within a minute and are dropped on the next sweep.
	clock.Advance(61 * time.Second)
	l.Allow(ctx, "10.9.9.9")
	if n := l.Len(); n != 1 {
		t.Errorf("%d buckets after the idle ones refilled, want 1", n)
	}
	// A flood of addresses never holds more than accounts.MaxBuckets.
	for i := range accounts.MaxBuckets + 50 {
		l.Allow(ctx, fmt.Sprintf("flood-%d", i))
	}
	if n := l.Len(); n > accounts.MaxBuckets {
		t.Errorf("%d buckets, want at most %d", n, accounts.MaxBuckets)
	}
}
