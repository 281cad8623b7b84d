package every_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/internal/every"
)

func TestRunAtOnceThenEveryIntervalUntilCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		var at []time.Duration
		done := make(chan struct{})
		go func() {
			defer close(done)
			every.Run(ctx, time.Minute, func(context.Context) {
				at = append(at, time.Since(start))
				if len(at) == 3 {
					cancel()
				}
			})
		}()
		<-done
		if len(at) != 3 || at[0] != 0 || at[1] != time.Minute || at[2] != 2*time.Minute {
			t.Errorf("ran at %v, want at 0, 1m and 2m", at)
		}
	})
}

func TestRunOrWakeRunsAsSoonAsWoken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		wake := make(chan struct{}, 1)
		var at []time.Duration
		done := make(chan struct{})
		go func() {
			defer close(done)
			every.RunOrWake(ctx, time.Hour, wake, func(context.Context) {
				at = append(at, time.Since(start))
				if len(at) == 3 {
					cancel()
				}
			})
		}()
		time.Sleep(time.Minute) // fake time: the first run is over
		wake <- struct{}{}
		synctest.Wait()
		<-done
		if len(at) != 3 || at[0] != 0 || at[1] != time.Minute || at[2] != time.Hour {
			t.Errorf("ran at %v, want at 0, when woken (1m) and at the interval (1h)", at)
		}
	})
}
