package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"
)

func TestBackoffDelay(t *testing.T) {
	tests := []struct {
		name    string
		attempt int
		jitter  func() float64
		want    time.Duration
	}{
		{name: "first", attempt: 0, want: 250 * time.Millisecond},
		{name: "doubled", attempt: 3, want: 2 * time.Second},
		{name: "capped", attempt: 6, want: 15 * time.Second}, // 16 s capped at 15 s
		{name: "far past the cap", attempt: 500, want: 15 * time.Second},
		{name: "jitter low", attempt: 0, jitter: func() float64 { return 0 }, want: 125 * time.Millisecond},
		{name: "jitter high", attempt: 0, jitter: func() float64 { return 1 }, want: 250 * time.Millisecond},
		{name: "jitter capped", attempt: 200, jitter: func() float64 { return 0.5 }, want: 11250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Backoff{First: 250 * time.Millisecond, Max: 15 * time.Second, Jitter: tt.jitter}
			if got := b.Delay(tt.attempt); got != tt.want {
				t.Errorf("Delay(%d) = %s, want %s", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestBackoffJitterSpreads(t *testing.T) {
	const d = 800 * time.Millisecond
	b := Backoff{First: d, Max: d, Jitter: rand.Float64}
	seen := map[bool]int{}
	for range 1000 {
		j := b.Delay(0)
		if j < d/2 || j > d {
			t.Fatalf("jittered wait %v outside [%v, %v]", j, d/2, d)
		}
		seen[j < 3*d/4]++
	}
	if seen[true] < 300 || seen[false] < 300 {
		t.Errorf("jittered waits not spread over the range: %v", seen)
	}
}

func TestSleep(t *testing.T) {
	tests := []struct {
		name     string
		sleep    time.Duration
		cancelAt time.Duration // 0: never
		want     time.Duration
		wantErr  error
	}{
		{name: "full wait", sleep: 10 * time.Second, want: 10 * time.Second},
		{name: "cancelled", sleep: 10 * time.Second, cancelAt: 3 * time.Second, want: 3 * time.Second, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancelAt > 0 {
					time.AfterFunc(tt.cancelAt, cancel)
				}
				start := time.Now()
				err := Sleep(ctx, tt.sleep)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
				if d := time.Since(start); d != tt.want {
					t.Errorf("slept %v, want %v", d, tt.want)
				}
			})
		})
	}
}
