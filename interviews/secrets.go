package interviews

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/viva-interviews/viva/internal/atomicfile"
)

// SecretsKeySize is the length in bytes of the key that seals provider
// keys at rest (AES-256).
const SecretsKeySize = 32

// Errors about sealed provider keys; test with errors.Is.
var (
	// ErrNoSecretsKey means the store has no secrets key, so it cannot keep
	// provider keys.
	ErrNoSecretsKey = errors.New("interviews: no secrets key is set, so provider keys cannot be stored: set VIVA_SECRETS_KEY (64 hex characters, for example from: openssl rand -hex 32) for both viva web and viva agent")
	// ErrNoKeys means the interview has no provider keys of its own.
	ErrNoKeys = errors.New("interviews: the interview has no provider keys of its own")
	// ErrSealBroken means a sealed value could not be opened: it was
	// changed, sealed with another key or for another interview.
	ErrSealBroken = errors.New("interviews: sealed keys cannot be opened: they were altered, or sealed with another secrets key or for another interview")
)

// ProviderKeys names an interview's own provider keys where a provider is
// named: an interview whose keys a provider refused ends with
// EndedByProviderError(ProviderKeys).
const ProviderKeys = "keys"

// sealLabel binds every sealed value to its purpose as well as its id.
const sealLabel = "viva provider keys v1:"

// Sealer encrypts small secrets with AES-256-GCM: a random 96-bit nonce
// per value, and the interview id as additional data, so a value copied to
// another interview's file does not open. A Sealer is safe for concurrent
// use.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer returns a Sealer with a SecretsKeySize-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != SecretsKeySize {
		return nil, fmt.Errorf("interviews: the secrets key is %d bytes; it must be %d (64 hex characters, for example from: openssl rand -hex 32)", len(key), SecretsKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("interviews: secrets key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("interviews: secrets key: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain for the interview id: nonce followed by ciphertext
// and tag.
func (s *Sealer) Seal(id string, plain []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return s.aead.Seal(nonce, nonce, plain, []byte(sealLabel+id))
}

// Open decrypts what Seal made for the same id; ErrSealBroken when the
// value was altered, or sealed with another key or for another id.
func (s *Sealer) Open(id string, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return nil, ErrSealBroken
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(sealLabel+id))
	if err != nil {
		return nil, ErrSealBroken
	}
	return plain, nil
}

// Keys are an interview's own provider keys, entered by the recruiter and
// used by the worker instead of its configured ones. They are kept sealed
// beside the record, never in it, and never printed: String, GoString and
// LogValue say only which keys are set.
type Keys struct {
	// OpenAI is an OpenAI API key ("sk-…"), for the model and OpenAI speech.
	OpenAI string `json:"openai,omitempty"`
	// Deepgram is a Deepgram API key, for Deepgram recognition.
	Deepgram string `json:"deepgram,omitempty"`
}

// Empty reports whether no key is set.
func (k Keys) Empty() bool { return k.OpenAI == "" && k.Deepgram == "" }

// String names the keys that are set, never their values.
func (k Keys) String() string {
	set := func(v string) string {
		if v == "" {
			return "unset"
		}
		return "set"
	}
	return "openai:" + set(k.OpenAI) + " deepgram:" + set(k.Deepgram)
}

// GoString is String, so %#v prints no key either.
func (k Keys) GoString() string { return k.String() }

// LogValue is String, so a logged Keys shows no key.
func (k Keys) LogValue() slog.Value { return slog.StringValue(k.String()) }

// keysExt ends the file name of an interview's sealed keys: "<id>.keys",
// beside the record.
const keysExt = ".keys"

// SetSealer gives the store the secrets key's Sealer, so that it can keep
// provider keys (PutKeys, Keys); without one they are refused with
// ErrNoSecretsKey. Call it before the store is shared.
func (s *FileStore) SetSealer(sl *Sealer) { s.sealer = sl }

// KeepsKeys reports whether the store can keep provider keys: it has a
// secrets key.
func (s *FileStore) KeepsKeys() bool { return s.sealer != nil }

// PutKeys seals k for the interview id and writes it to <id>.keys (mode
// 0600, atomically), replacing any keys it had. Empty keys delete the file.
func (s *FileStore) PutKeys(ctx context.Context, id string, k Keys) error {
	if !ValidID(id) {
		return fmt.Errorf("interviews: put keys of %q: %w", id, ErrNotFound)
	}
	if k.Empty() {
		return s.DeleteKeys(ctx, id)
	}
	if s.sealer == nil {
		return ErrNoSecretsKey
	}
	plain, err := json.Marshal(k)
	if err != nil {
		return fmt.Errorf("interviews: put keys of %s: %w", id, err)
	}
	sealed := s.sealer.Seal(id, plain)
	clear(plain)
	unlock := s.lock(id + keysExt)
	defer unlock()
	if err := atomicfile.Write(filepath.Join(s.dir, id+keysExt), sealed, atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("interviews: put keys of %s: %w", id, err)
	}
	return nil
}

// Keys opens the provider keys of the interview id: ErrNoKeys when it has
// none, ErrNoSecretsKey when the store has no secrets key, ErrSealBroken
// when the file does not open with it.
func (s *FileStore) Keys(ctx context.Context, id string) (Keys, error) {
	if !ValidID(id) {
		return Keys{}, fmt.Errorf("interviews: keys of %q: %w", id, ErrNotFound)
	}
	sealed, err := os.ReadFile(filepath.Join(s.dir, id+keysExt))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Keys{}, fmt.Errorf("interviews: keys of %s: %w", id, ErrNoKeys)
	case err != nil:
		return Keys{}, fmt.Errorf("interviews: keys of %s: %w", id, err)
	case s.sealer == nil:
		return Keys{}, fmt.Errorf("interviews: keys of %s: %w", id, ErrNoSecretsKey)
	}
	plain, err := s.sealer.Open(id, sealed)
	if err != nil {
		return Keys{}, fmt.Errorf("interviews: keys of %s: %w", id, err)
	}
	defer clear(plain)
	var k Keys
	if err := json.Unmarshal(plain, &k); err != nil {
		return Keys{}, fmt.Errorf("interviews: keys of %s: %w", id, ErrSealBroken)
	}
	return k, nil
}

// HasKeys reports whether the interview id has provider keys stored,
// without opening them.
func (s *FileStore) HasKeys(ctx context.Context, id string) bool {
	if !ValidID(id) {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.dir, id+keysExt))
	return err == nil
}

// DeleteKeys removes the provider keys of the interview id; having none is
// not an error. Interviews drop their keys when they end.
func (s *FileStore) DeleteKeys(ctx context.Context, id string) error {
	if !ValidID(id) {
		return fmt.Errorf("interviews: delete keys of %q: %w", id, ErrNotFound)
	}
	unlock := s.lock(id + keysExt)
	defer unlock()
	if err := os.Remove(filepath.Join(s.dir, id+keysExt)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("interviews: delete keys of %s: %w", id, err)
	}
	return atomicfile.SyncDir(s.dir)
}
