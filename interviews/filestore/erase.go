package filestore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/viva-interviews/viva/internal/atomicfile"
	"github.com/viva-interviews/viva/interviews"
)

// erasureLogName is the erasure log: one JSON object per line, appended
// by Delete. Its name is no record's, so List never reads it.
const erasureLogName = "erasures.jsonl"

// Delete implements interviews.Store: under the record's locks it appends
// e to the erasure log (synced), then removes the record, its lease and
// its keys. A crash between the two leaves the record and its log entry;
// erasing it again removes it and logs it once more.
func (s *Store) Delete(ctx context.Context, id string, e interviews.Erasure) error {
	if !interviews.ValidID(id) {
		return fmt.Errorf("interviews: delete %q: %w", id, interviews.ErrNotFound)
	}
	unlock := s.lock(id)
	defer unlock()
	unlockFile, err := atomicfile.Lock(filepath.Join(s.dir, updateLockName), 0o640)
	if err != nil {
		return fmt.Errorf("interviews: delete %s: locking the records: %w", id, err)
	}
	defer unlockFile()
	rec := filepath.Join(s.dir, id+recordExt)
	switch _, err := os.Lstat(rec); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("interviews: delete %s: %w", id, interviews.ErrNotFound)
	case err != nil:
		return fmt.Errorf("interviews: delete %s: %w", id, err)
	}
	e.ID = id
	if err := s.appendErasure(e); err != nil {
		return fmt.Errorf("interviews: delete %s: %w", id, err)
	}
	if err := s.DeleteKeys(ctx, id); err != nil {
		return fmt.Errorf("interviews: delete %s: %w", id, err)
	}
	if err := s.withLease(id, func(interviews.LeaseInfo, bool) (*interviews.LeaseInfo, error) {
		return nil, removeMissingOK(s.leasePath(id))
	}); err != nil {
		return fmt.Errorf("interviews: delete %s: removing its lease: %w", id, err)
	}
	if err := removeMissingOK(rec); err != nil {
		return fmt.Errorf("interviews: delete %s: %w", id, err)
	}
	return atomicfile.SyncDir(s.dir)
}

// removeMissingOK removes path; a missing file is not an error.
func removeMissingOK(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// appendErasure appends e to the erasure log and syncs it. The caller
// holds the update lock, which serialises writers among processes.
func (s *Store) appendErasure(e interviews.Erasure) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, erasureLogName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("opening the erasure log: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the erasure log: %w", err)
	}
	return nil
}

// Erasures implements interviews.Store: the erasure log's entries, oldest
// first. A line that does not decode (cut by a full disk) is skipped.
func (s *Store) Erasures(ctx context.Context) ([]interviews.Erasure, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, erasureLogName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("interviews: reading the erasure log: %w", err)
	}
	var out []interviews.Erasure
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e interviews.Erasure
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.ID != "" {
			out = append(out, e)
		}
	}
	return out, nil
}
