package filestore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

// fakeVolume plays a disk that fails the probe or has little space left.
type fakeVolume struct {
	probeErr error
	free     uint64
}

func (v fakeVolume) probe(string) error               { return v.probeErr }
func (v fakeVolume) freeBytes(string) (uint64, error) { return v.free, nil }

func TestCheckWritable(t *testing.T) {
	t.Run("writable", func(t *testing.T) {
		dir := t.TempDir()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckWritable(t.Context()); err != nil {
			t.Fatalf("CheckWritable on a fresh directory: %v", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("the check left %d files behind: %v", len(entries), entries)
		}
	})
	t.Run("directory gone", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckWritable(t.Context()); !errors.Is(err, interviews.ErrNotWritable) {
			t.Fatalf("CheckWritable = %v, want ErrNotWritable", err)
		}
	})
	t.Run("read-only mode", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes through directory modes; the read-only disk case below covers this")
		}
		dir := t.TempDir()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o750) })
		if err := s.CheckWritable(t.Context()); !errors.Is(err, interviews.ErrNotWritable) {
			t.Fatalf("CheckWritable = %v, want ErrNotWritable", err)
		}
	})
	for _, tc := range []struct {
		name    string
		vol     fakeVolume
		want    error
		message string
	}{
		{"read-only disk", fakeVolume{probeErr: &fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, free: 1 << 40}, interviews.ErrNotWritable, "make it writable"},
		{"permission denied", fakeVolume{probeErr: &fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, free: 1 << 40}, interviews.ErrNotWritable, "make it writable"},
		{"no space on write", fakeVolume{probeErr: &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, free: 0}, interviews.ErrFull, "free some space"},
		{"quota exceeded", fakeVolume{probeErr: &fs.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT}, free: 1 << 40}, interviews.ErrFull, "free some space"},
		{"nearly full", fakeVolume{free: 3 << 20}, interviews.ErrFull, "3 MiB free"},
		{"just enough", fakeVolume{free: MinFreeBytes}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			s.vol = tc.vol
			err = s.CheckWritable(t.Context())
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("CheckWritable = %v, want %v", err, tc.want)
			}
			if err != nil && (!strings.Contains(err.Error(), tc.message) || !strings.Contains(err.Error(), "--data-dir")) {
				t.Errorf("message %q should contain %q and say how to choose another directory", err, tc.message)
			}
		})
	}
}
