package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/viva-interviews/viva/interviews"
)

// MinFreeBytes is the free space the data directory must have when viva
// starts. A record is a few kilobytes to a few hundred (a kept résumé is at
// most 100 KB) and is rewritten whole after every turn, so 64 MiB holds
// hundreds of interviews; less means the disk is as good as full, and an
// interview started now would lose its turns mid-way.
const MinFreeBytes = 64 << 20

// dataDirHelp ends CheckWritable's errors: what to do about them.
const dataDirHelp = "or choose another data directory with --data-dir or VIVA_DATA_DIR"

// volume is what CheckWritable asks of the file system holding the data
// directory; tests replace it to play a read-only or full disk.
type volume interface {
	// probe creates, writes, syncs and removes a small file in dir, as a
	// save does.
	probe(dir string) error
	// freeBytes returns the bytes this process may still write in dir's
	// file system.
	freeBytes(dir string) (uint64, error)
}

// probeData is written by the probe: about the size of a small record.
var probeData = make([]byte, 4<<10)

// CheckWritable makes sure records can be saved: it creates, writes, syncs
// and removes a file in the data directory, and checks the disk has at
// least MinFreeBytes free. viva calls it at start, so an unwritable or full
// disk stops it with a message saying what to do, instead of a worker that
// registers and then loses every interview it takes. It fails with an error
// wrapping ErrNotWritable or ErrFull.
func (s *Store) CheckWritable(ctx context.Context) error {
	if err := s.vol.probe(s.dir); err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
			return fmt.Errorf("%w: %s has no space left (%v): free some space %s", interviews.ErrFull, s.dir, err, dataDirHelp)
		}
		return fmt.Errorf("%w: cannot save a file in %s (%v): make it writable by the user viva runs as (uid %d) and check the disk is not mounted read-only, %s",
			interviews.ErrNotWritable, s.dir, err, os.Geteuid(), dataDirHelp)
	}
	free, err := s.vol.freeBytes(s.dir)
	if err != nil {
		return fmt.Errorf("interviews: checking the free space of the data directory %s: %w", s.dir, err)
	}
	if free < MinFreeBytes {
		return fmt.Errorf("%w: %s has %d MiB free, less than the %d MiB viva needs to save interviews: free some space %s",
			interviews.ErrFull, s.dir, free>>20, MinFreeBytes>>20, dataDirHelp)
	}
	return nil
}

// osVolume is the real file system.
type osVolume struct{}

func (osVolume) probe(dir string) (err error) {
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := os.Remove(f.Name()); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = rmErr
		}
	}()
	if _, err := f.Write(probeData); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func (osVolume) freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
