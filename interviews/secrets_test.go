package interviews

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testSealer(t *testing.T, fill byte) *Sealer {
	t.Helper()
	sl, err := NewSealer(bytes.Repeat([]byte{fill}, SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// TestSealerOpensOnlyItsOwn: a sealed value opens with the same key and
// id, and any change — a flipped bit, a cut, another key, another id —
// makes Open fail instead of returning something else.
func TestSealerOpensOnlyItsOwn(t *testing.T) {
	sl := testSealer(t, 1)
	plain := []byte(`{"openai":"sk-test"}`)
	sealed := sl.Seal("iv1", plain)
	if bytes.Contains(sealed, plain) {
		t.Fatal("the sealed value holds the plain text")
	}
	if again := sl.Seal("iv1", plain); bytes.Equal(again, sealed) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	got, err := sl.Open("iv1", sealed)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v; want the plain text", got, err)
	}
	flipped := func(i int) []byte {
		b := bytes.Clone(sealed)
		b[i] ^= 0x01
		return b
	}
	cases := map[string]struct {
		sealer *Sealer
		id     string
		sealed []byte
	}{
		"nonce changed":      {sl, "iv1", flipped(0)},
		"ciphertext changed": {sl, "iv1", flipped(len(sealed) / 2)},
		"tag changed":        {sl, "iv1", flipped(len(sealed) - 1)},
		"cut short":          {sl, "iv1", sealed[:len(sealed)-1]},
		"too short":          {sl, "iv1", sealed[:5]},
		"empty":              {sl, "iv1", nil},
		"wrong key":          {testSealer(t, 2), "iv1", sealed},
		"wrong id":           {sl, "iv2", sealed},
	}
	for name, c := range cases {
		if got, err := c.sealer.Open(c.id, c.sealed); !errors.Is(err, ErrSealBroken) || got != nil {
			t.Errorf("%s: Open = %q, %v; want ErrSealBroken", name, got, err)
		}
	}
}

func TestNewSealerWantsThirtyTwoBytes(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33, 64} {
		if _, err := NewSealer(make([]byte, n)); err == nil {
			t.Errorf("NewSealer accepted a %d-byte key", n)
		}
	}
}

// TestKeysNeverPrinted: formatting or logging Keys says which are set,
// never the values.
func TestKeysNeverPrinted(t *testing.T) {
	k := Keys{OpenAI: "sk-secret-openai", Deepgram: "dg-secret"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("keys", "keys", k, "ptr", &k)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("keys", "keys", k)
	out := fmt.Sprintf("%v %+v %#v %s", k, k, k, k) + logged.String()
	for _, secret := range []string{k.OpenAI, k.Deepgram} {
		if strings.Contains(out, secret) {
			t.Errorf("a key was printed: %s", out)
		}
	}
	if !strings.Contains(k.String(), "openai:set") || !strings.Contains(Keys{}.String(), "deepgram:unset") {
		t.Errorf("String = %q", k.String())
	}
}

// TestStoreKeysFiles: keys are stored sealed in <id>.keys (0600), and no
// file holds them in clear; a keys file copied to another interview does
// not open (the rest of the keys' behaviour is in the store conformance
// suite).
func TestStoreKeysFiles(t *testing.T) {
	s := openStore(t)
	r := newRecord("iv1", "Ada", "x", StatusScheduled, time.Now().UTC())
	if err := s.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	k := Keys{OpenAI: "sk-proj-0123456789abcdefghij", Deepgram: "0123456789abcdef0123456789abcdef01234567"}
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
	if page, err := s.List(t.Context(), ListOptions{}); err != nil || page.Total != 1 {
		t.Errorf("List with a keys file = %+v, %v; want the one record", page, err)
	}

	// A keys file copied to another interview does not open there.
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(filepath.Join(s.Dir(), "iv2"+keysExt), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Keys(t.Context(), "iv2"); !errors.Is(err, ErrSealBroken) {
		t.Errorf("Keys of a copied file = %v, want ErrSealBroken", err)
	}
	// Another secrets key does not open it either.
	other := openStore(t)
	other.SetSealer(testSealer(t, 8))
	if err := os.WriteFile(filepath.Join(other.Dir(), "iv1"+keysExt), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Keys(t.Context(), "iv1"); !errors.Is(err, ErrSealBroken) {
		t.Errorf("Keys under another secrets key = %v, want ErrSealBroken", err)
	}
}
