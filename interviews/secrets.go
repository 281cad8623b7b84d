package interviews

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// SealKeys seals k for the interview id, as a Store keeps it;
// ErrNoSecretsKey when there is no Sealer (s is nil).
func (s *Sealer) SealKeys(id string, k Keys) ([]byte, error) {
	if s == nil {
		return nil, ErrNoSecretsKey
	}
	plain, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	defer clear(plain)
	return s.Seal(id, plain), nil
}

// OpenKeys opens what SealKeys made for the same id: ErrNoSecretsKey when
// there is no Sealer (s is nil), ErrSealBroken when it does not open.
func (s *Sealer) OpenKeys(id string, sealed []byte) (Keys, error) {
	if s == nil {
		return Keys{}, ErrNoSecretsKey
	}
	plain, err := s.Open(id, sealed)
	if err != nil {
		return Keys{}, err
	}
	defer clear(plain)
	var k Keys
	if err := json.Unmarshal(plain, &k); err != nil {
		return Keys{}, ErrSealBroken
	}
	return k, nil
}

// PutSealedKeys is what a store's PutKeys does around its own writing: it
// checks id, deletes the keys (del) when k is empty, else seals k with sl
// and hands the sealed bytes to put.
func PutSealedKeys(sl *Sealer, id string, k Keys, put func(sealed []byte) error, del func() error) error {
	if !ValidID(id) {
		return fmt.Errorf("interviews: put keys of %q: %w", id, ErrNotFound)
	}
	if k.Empty() {
		return del()
	}
	sealed, err := sl.SealKeys(id, k)
	if err != nil {
		return fmt.Errorf("interviews: put keys of %s: %w", id, err)
	}
	return put(sealed)
}

// OpenStoredKeys is what a store's Keys does around its own reading: it
// checks id, reads the sealed bytes with get (found false: none are
// stored, ErrNoKeys) and opens them with sl.
func OpenStoredKeys(sl *Sealer, id string, get func() (sealed []byte, found bool, err error)) (Keys, error) {
	if !ValidID(id) {
		return Keys{}, fmt.Errorf("interviews: keys of %q: %w", id, ErrNotFound)
	}
	sealed, found, err := get()
	if err == nil && !found {
		err = ErrNoKeys
	}
	if err == nil {
		var k Keys
		if k, err = sl.OpenKeys(id, sealed); err == nil {
			return k, nil
		}
	}
	return Keys{}, fmt.Errorf("interviews: keys of %s: %w", id, err)
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
