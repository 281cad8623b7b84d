// Package atomicfile writes files so that a crash at any moment leaves
// either the old content or the new one, never a mix, and locks files
// between processes. The interview records, their leases and the user
// accounts are all kept this way.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Options adjust Write. The zero value writes with mode 0600.
type Options struct {
	// Perm is the new file's mode (default 0600).
	Perm os.FileMode
	// BeforeRename, when set, runs with the temporary file's path once it
	// is complete and synced, just before it replaces path. Tests use it
	// to stop a process at the worst moment.
	BeforeRename func(tmp string)
	// Volatile is for data that need not outlive a crash of the machine,
	// such as a lease, which such a crash ends anyway: the file is still
	// replaced whole, but neither it nor the directory is synced, which
	// spares two disk flushes a write.
	Volatile bool
}

// Write replaces path with data: a temporary file in the same directory is
// written, synced and renamed over path, then the directory is synced so
// the rename itself survives a crash. On error path is untouched and the
// temporary file removed.
func Write(path string, data []byte, opts Options) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	perm := opts.Perm
	if perm == 0 {
		perm = 0o600
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if !opts.Volatile {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if opts.BeforeRename != nil {
		opts.BeforeRename(tmp)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if opts.Volatile {
		return nil
	}
	return SyncDir(dir)
}

// SyncDir flushes a directory's entries (a rename or a removal in it) to
// disk. File systems that cannot sync a directory are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

// Lock takes an exclusive lock on the file at path (created with mode perm
// if missing), waiting while another process or goroutine holds it, and
// returns its release. The lock is advisory: every writer must take it.
func Lock(path string, perm os.FileMode) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, perm)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
