package atomicfile

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteReplacesWholeFiles: synced or volatile, a write replaces the
// file whole and leaves nothing beside it.
func TestWriteReplacesWholeFiles(t *testing.T) {
	for _, volatile := range []bool{false, true} {
		t.Run(map[bool]string{false: "synced", true: "volatile"}[volatile], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "record.json")
			if err := Write(path, []byte("old"), Options{Volatile: volatile}); err != nil {
				t.Fatal(err)
			}
			var seen string
			err := Write(path, []byte("new"), Options{Perm: 0o640, Volatile: volatile, BeforeRename: func(tmp string) {
				// At the last moment before the rename, the old content is intact
				// and the new one complete beside it.
				old, _ := os.ReadFile(path)
				next, _ := os.ReadFile(tmp)
				seen = string(old) + "/" + string(next)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if seen != "old/new" {
				t.Errorf("before the rename: %q, want old/new", seen)
			}
			got, _ := os.ReadFile(path)
			info, _ := os.Stat(path)
			if string(got) != "new" || info.Mode().Perm() != 0o640 {
				t.Errorf("file %q mode %v, want new 0640", got, info.Mode().Perm())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("%d files left in the directory, want 1", len(entries))
			}
		})
	}
}

func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.json")
	if err := Write(path, []byte("old"), Options{}); err != nil {
		t.Fatal(err)
	}
	// Renaming over a directory fails: the old file must stay and no
	// temporary file may be left behind.
	target := filepath.Join(dir, "sub")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("new"), Options{}); err == nil {
		t.Fatal("writing over a non-empty directory succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old file is %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries, want the file and the directory only", len(entries))
	}
}

func TestLockIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	var (
		mu      sync.Mutex
		inside  int
		maximum int
		wg      sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := Lock(path, 0o600)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			maximum = max(maximum, inside)
			mu.Unlock()
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if maximum != 1 {
		t.Errorf("%d holders at once, want 1", maximum)
	}
}
