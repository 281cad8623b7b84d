// Package every runs a job now and then at a fixed interval until its
// context ends: the loop of every background sweep (reminders, retention).
package every

import (
	"context"
	"time"
)

// Run calls job(ctx) at once, then every interval, until ctx ends; it
// returns when ctx has ended and the job running then has returned. A job
// that takes longer than interval delays the next call rather than
// overlapping it.
func Run(ctx context.Context, interval time.Duration, job func(context.Context)) {
	RunOrWake(ctx, interval, nil, job)
}

// RunOrWake is Run, calling job also as soon as wake receives (a nil
// wake never does): work that must not wait for the next interval asks
// for it there, and is taken with whatever else is due.
func RunOrWake(ctx context.Context, interval time.Duration, wake <-chan struct{}, job func(context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		job(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
	}
}
