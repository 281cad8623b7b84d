// Package retry holds the waits of viva's retry loops, written once: an
// exponential backoff, with an optional "equal jitter" so that clients
// that failed together do not retry together, and a sleep that ends early
// with its context.
//
// The loops themselves stay with their callers, because their rules
// differ: what may be retried, how many times or for how long, whether a
// newer piece of work replaces the one failing, what wait a server asks
// for. Every wait is a time.Timer, so tests run the loops under
// testing/synctest without sleeping.
//
// lkagent keeps its own copy of the backoff on purpose: it imports nothing
// of viva so that any Go agent can use it.
package retry

import (
	"context"
	"time"
)

// Backoff is an exponential backoff: the wait before retry n (counted from
// 0) is First doubled n times, capped at Max.
type Backoff struct {
	// First is the wait before the first retry.
	First time.Duration
	// Max caps every wait; it must be positive.
	Max time.Duration
	// Jitter, when set, returns a number in [0, 1] that picks the wait in
	// the upper half of the exponential one, [d/2, d] ("equal jitter");
	// rand.Float64 will do. Nil waits exactly d.
	Jitter func() float64
}

// Delay is the wait before retry n (from 0).
func (b Backoff) Delay(n int) time.Duration {
	d := b.First
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	if b.Jitter == nil {
		return d
	}
	half := d / 2
	return half + time.Duration(b.Jitter()*float64(d-half))
}

// Sleep waits d, or returns ctx's error as soon as ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
