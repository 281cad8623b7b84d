package candidatebot

import "context"

// notify wakes every waiter: something the bot observes has changed.
func (b *Bot) notify() {
	b.mu.Lock()
	b.notifyLocked()
	b.mu.Unlock()
}

// notifyLocked is notify with b.mu held.
func (b *Bot) notifyLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// changes is the channel the next notify closes.
func (b *Bot) changes() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// wait blocks until cond holds, re-evaluating it after every notify. cond
// runs without b.mu held (it may take it). It returns ctx's error when ctx
// ends, or a wrapped ErrDisconnected when the bot leaves the room before
// cond holds.
func (b *Bot) wait(ctx context.Context, cond func() bool) error {
	for {
		// Take the channel before evaluating: a change after the
		// evaluation closes it, so no update is missed.
		changed := b.changes()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-b.disconnected:
			if cond() {
				return nil
			}
			return b.disconnectErr()
		}
	}
}

// waitFirst waits until list, a snapshot of what b received, holds an
// element that match accepts and returns the first such element; elements
// received before the call count. Errors are wait's.
func waitFirst[T any](ctx context.Context, b *Bot, list func() []T, match func(T) bool) (T, error) {
	var found T
	err := b.wait(ctx, func() bool {
		for _, v := range list() {
			if match(v) {
				found = v
				return true
			}
		}
		return false
	})
	return found, err
}
