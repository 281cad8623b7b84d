package recordings

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/viva-interviews/viva/internal/every"
	"github.com/viva-interviews/viva/internal/retry"
)

// uploadTimeout bounds one attempt to upload one recording.
const uploadTimeout = 5 * time.Minute

// DefaultUploadInterval is how often Uploader.Run looks for recordings
// the directory still holds.
const DefaultUploadInterval = 5 * time.Minute

// uploadBackoff spaces the attempts at a recording the object store
// refused: 1 s, 2 s, 4 s … at most a minute, jittered so that workers
// that failed together do not retry together.
var uploadBackoff = retry.Backoff{First: time.Second, Max: time.Minute, Jitter: rand.Float64}

// uploadAttempts is how many times one sweep tries a recording before it
// leaves it for the next sweep.
const uploadAttempts = 5

// uploads is what the copies of one directory with an object store share
// about uploading: the recordings being uploaded (so a Commit and the
// Uploader never put the same one at once), and the Uploader's wake-up
// with the failure that asked for it.
type uploads struct {
	wake chan struct{}
	mu   sync.Mutex
	busy map[string]bool
	last error // the latest failed upload of a Commit, not yet logged
}

func newUploads() *uploads { return &uploads{wake: make(chan struct{}, 1), busy: map[string]bool{}} }

// failed records a Commit's failed upload and wakes the Uploader.
func (u *uploads) failed(err error) {
	u.mu.Lock()
	u.last = err
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default: // already woken
	}
}

// takeFailure returns the failure that woke the Uploader, once.
func (u *uploads) takeFailure() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	err := u.last
	u.last = nil
	return err
}

// claim marks name as being uploaded; false when it already is.
func (u *uploads) claim(name string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.busy[name] {
		return false
	}
	u.busy[name] = true
	return true
}

func (u *uploads) release(name string) {
	u.mu.Lock()
	delete(u.busy, name)
	u.mu.Unlock()
}

// upload puts the finished recording called name into the object store
// and only then removes it from the directory. It reports whether this
// call uploaded it: a recording already being uploaded, or whose file is
// gone (uploaded meanwhile), is left alone and no error.
func (d *Dir) upload(ctx context.Context, name string) (bool, error) {
	if !d.uploads.claim(name) {
		return false, nil
	}
	defer d.uploads.release(name)
	path := filepath.Join(d.path, name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("recordings: uploading %s: %w", name, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("recordings: uploading %s: %w", name, err)
	}
	if err := d.objects.Put(ctx, name, f, info.Size()); err != nil {
		return false, fmt.Errorf("recordings: uploading %s to %s: %w (it stays in %s, plays from there meanwhile, and is tried again)", name, d.objects.Where(), err, d.path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true, fmt.Errorf("recordings: %s was uploaded but not removed from %s: %w", name, d.path, err)
	}
	return true, nil
}

// Uploader puts into the object store the finished recordings that a
// worker's directory still holds: those whose upload failed when their
// session ended, and those of a worker stopped before it uploaded them.
// A recording leaves the directory only once the store has it. Every
// worker with an object store runs one.
type Uploader struct {
	// Dir is the worker's directory, with its object store. Required.
	Dir *Dir
	// Logger receives what was uploaded and what failed.
	Logger *slog.Logger
	// Backoff spaces the attempts at one recording (default: from 1 s,
	// doubling, at most a minute).
	Backoff retry.Backoff
	// Attempts is how many times one sweep tries a recording (default 5).
	Attempts int
}

func (u *Uploader) log() *slog.Logger { return cmp.Or(u.Logger, slog.Default()) }

// Run sweeps at once, then every interval (DefaultUploadInterval when
// zero) and whenever a session's upload failed, until ctx ends. Without
// an object store it returns at once.
func (u *Uploader) Run(ctx context.Context, interval time.Duration) {
	if u.Dir.objects == nil {
		return
	}
	if interval <= 0 {
		interval = DefaultUploadInterval
	}
	every.RunOrWake(ctx, interval, u.Dir.uploads.wake, func(ctx context.Context) {
		if err := u.Dir.uploads.takeFailure(); err != nil {
			u.log().Warn("a recording's upload failed when its session ended; trying again", "err", err)
		}
		uploaded, err := u.Sweep(ctx)
		if len(uploaded) > 0 {
			u.log().Info("recordings uploaded", "recordings", uploaded, "to", u.Dir.objects.Where())
		}
		if err != nil && ctx.Err() == nil {
			u.log().Error("recordings wait in the directory until the object store takes them", "dir", u.Dir.path, "next_sweep_in", interval, "err", err)
		}
	})
}

// Sweep uploads every finished recording in the directory, trying each
// a few times, and returns the names it uploaded. It stops at the first
// that still fails, when the store is most likely down: the rest wait for
// the next sweep.
func (u *Uploader) Sweep(ctx context.Context) ([]string, error) {
	if u.Dir.objects == nil {
		return nil, nil
	}
	entries, err := os.ReadDir(u.Dir.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recordings: reading %s: %w", u.Dir.path, err)
	}
	var uploaded []string
	for _, e := range entries {
		name := e.Name()
		if _, _, ok := Parse(name); !ok || !e.Type().IsRegular() {
			continue // being written, or not a recording
		}
		done, err := u.try(ctx, name)
		if err != nil {
			return uploaded, err
		}
		if done {
			uploaded = append(uploaded, name)
		}
	}
	return uploaded, nil
}

// try uploads name, trying again after a backoff when the store fails,
// up to the attempts allowed.
func (u *Uploader) try(ctx context.Context, name string) (bool, error) {
	backoff := u.Backoff
	if backoff.Max <= 0 {
		backoff = uploadBackoff
	}
	attempts := cmp.Or(u.Attempts, uploadAttempts)
	for n := 0; ; n++ {
		actx, cancel := context.WithTimeout(ctx, uploadTimeout)
		done, err := u.Dir.upload(actx, name)
		cancel()
		if err == nil || n+1 >= attempts || ctx.Err() != nil {
			return done, err
		}
		wait := backoff.Delay(n)
		u.log().Warn("uploading a recording failed; trying again", "recording", name, "in", wait, "err", err)
		if err := retry.Sleep(ctx, wait); err != nil {
			return false, err
		}
	}
}
