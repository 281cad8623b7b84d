package filestore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
)

func testSealer(t *testing.T, fill byte) *interviews.Sealer {
	t.Helper()
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{fill}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// TestStoreKeysFiles: keys are stored sealed in <id>.keys (0600), and no
// file holds them in clear; a keys file copied to another interview does
// not open (the rest of the keys' behaviour is in the store conformance
// suite).
func TestStoreKeysFiles(t *testing.T) {
	s := openStore(t)
	r := storetest.NewRecord("iv1", "Ada", "x", interviews.StatusScheduled, time.Now().UTC())
	if err := s.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	k := interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij", Deepgram: "0123456789abcdef0123456789abcdef01234567"}
	s.SetSealer(testSealer(t, 7))
	if err := s.PutKeys(t.Context(), "iv1", k); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Dir(), "iv1"+keysExt)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("keys file mode = %v, want 0600", mode)
	}
	// No file in the store — record, keys, lease or leftover — holds a key
	// in clear.
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(s.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		for _, secret := range []string{k.OpenAI, k.Deepgram} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds a key in clear", filepath.Base(p))
			}
		}
		return nil
	})
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 1 {
		t.Errorf("List with a keys file = %+v, %v; want the one record", page, err)
	}

	// A keys file copied to another interview does not open there.
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(filepath.Join(s.Dir(), "iv2"+keysExt), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Keys(t.Context(), "iv2"); !errors.Is(err, interviews.ErrSealBroken) {
		t.Errorf("Keys of a copied file = %v, want ErrSealBroken", err)
	}
	// Another secrets key does not open it either.
	other := openStore(t)
	other.SetSealer(testSealer(t, 8))
	if err := os.WriteFile(filepath.Join(other.Dir(), "iv1"+keysExt), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrSealBroken) {
		t.Errorf("Keys under another secrets key = %v, want ErrSealBroken", err)
	}
}
