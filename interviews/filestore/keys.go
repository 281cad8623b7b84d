package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/viva-interviews/viva/internal/atomicfile"
	"github.com/viva-interviews/viva/interviews"
)

// keysExt ends the file name of an interview's sealed keys: "<id>.keys",
// beside the record.
const keysExt = ".keys"

// SetSealer gives the store the secrets key's Sealer, so that it can keep
// provider keys (PutKeys, Keys); without one they are refused with
// ErrNoSecretsKey. Call it before the store is shared.
func (s *Store) SetSealer(sl *interviews.Sealer) { s.sealer = sl }

// KeepsKeys reports whether the store can keep provider keys: it has a
// secrets key.
func (s *Store) KeepsKeys() bool { return s.sealer != nil }

// PutKeys seals k for the interview id and writes it to <id>.keys (mode
// 0600, atomically), replacing any keys it had. Empty keys delete the file.
func (s *Store) PutKeys(ctx context.Context, id string, k interviews.Keys) error {
	return interviews.PutSealedKeys(s.sealer, id, k, func(sealed []byte) error {
		unlock := s.lock(id + keysExt)
		defer unlock()
		if err := atomicfile.Write(filepath.Join(s.dir, id+keysExt), sealed, atomicfile.Options{Perm: 0o600}); err != nil {
			return fmt.Errorf("interviews: put keys of %s: %w", id, err)
		}
		return nil
	}, func() error { return s.DeleteKeys(ctx, id) })
}

// Keys opens the provider keys of the interview id: ErrNoKeys when it has
// none, ErrNoSecretsKey when the store has no secrets key, ErrSealBroken
// when the file does not open with it.
func (s *Store) Keys(ctx context.Context, id string) (interviews.Keys, error) {
	return interviews.OpenStoredKeys(s.sealer, id, func() ([]byte, bool, error) {
		sealed, err := os.ReadFile(filepath.Join(s.dir, id+keysExt))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return sealed, err == nil, err
	})
}

// HasKeys reports whether the interview id has provider keys stored,
// without opening them.
func (s *Store) HasKeys(ctx context.Context, id string) bool {
	if !interviews.ValidID(id) {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.dir, id+keysExt))
	return err == nil
}

// DeleteKeys removes the provider keys of the interview id; having none is
// not an error. Interviews drop their keys when they end.
func (s *Store) DeleteKeys(ctx context.Context, id string) error {
	if !interviews.ValidID(id) {
		return fmt.Errorf("interviews: delete keys of %q: %w", id, interviews.ErrNotFound)
	}
	unlock := s.lock(id + keysExt)
	defer unlock()
	if err := os.Remove(filepath.Join(s.dir, id+keysExt)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("interviews: delete keys of %s: %w", id, err)
	}
	return atomicfile.SyncDir(s.dir)
}
