package accounts

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id cost parameters of new password hashes. A stored
// hash carries its own, so raising them later keeps old passwords valid.
type Params struct {
	// Time is the number of passes over the memory.
	Time uint32
	// MemoryKiB is the memory used, in KiB.
	MemoryKiB uint32
	// Threads is the degree of parallelism.
	Threads uint8
}

// DefaultParams follow RFC 9106's second recommended option (64 MiB,
// 3 passes), with 2 lanes: about 100 ms per sign-in on a small server.
var DefaultParams = Params{Time: 3, MemoryKiB: 64 << 10, Threads: 2}

// Hash sizes.
const (
	saltLen = 16 // bytes of random salt per password
	keyLen  = 32 // bytes of derived key
	// MinPasswordLen is the shortest password accepted.
	MinPasswordLen = 12
	// MaxPasswordLen bounds a password, so hashing cost stays bounded.
	MaxPasswordLen = 1024
)

// Limits a stored hash may claim, so a tampered file cannot make a sign-in
// allocate or spin without bound.
const (
	maxTime      = 16
	maxMemoryKiB = 1 << 20 // 1 GiB
)

// checkLength says what is wrong with the length or edges of a password,
// or nil.
func checkLength(password string) error {
	switch {
	case len(password) < MinPasswordLen:
		return fmt.Errorf("%w: it is shorter than %d characters: %s", ErrWeakPassword, MinPasswordLen, choosePassword)
	case len(password) > MaxPasswordLen:
		return fmt.Errorf("accounts: the password is longer than %d bytes", MaxPasswordLen)
	case strings.TrimSpace(password) != password:
		return errors.New("accounts: the password starts or ends with white space: remove it")
	}
	return nil
}

// HashPassword returns the argon2id hash of password with a new random
// salt, as a PHC string: $argon2id$v=19$m=…,t=…,p=…$salt$key.
func HashPassword(password string, p Params) (string, error) {
	if err := checkLength(password); err != nil {
		return "", err
	}
	if p.Time == 0 || p.MemoryKiB == 0 || p.Threads == 0 || p.Time > maxTime || p.MemoryKiB > maxMemoryKiB {
		return "", fmt.Errorf("accounts: argon2id parameters %+v are out of range", p)
	}
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails
	key := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches hash (from
// HashPassword). The keys are compared in constant time.
func VerifyPassword(hash, password string) bool {
	p, salt, key, err := decodeHash(hash)
	if err != nil || len(password) > MaxPasswordLen {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// decodeHash parses a PHC argon2id string within the limits above.
func decodeHash(hash string) (Params, []byte, []byte, error) {
	bad := errors.New("password hash is not an argon2id hash made by viva")
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return Params{}, nil, nil, bad
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return Params{}, nil, nil, bad
	}
	var p Params
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil || n != 3 {
		return Params{}, nil, nil, bad
	}
	if p.Time == 0 || p.MemoryKiB == 0 || p.Threads == 0 || p.Time > maxTime || p.MemoryKiB > maxMemoryKiB {
		return Params{}, nil, nil, bad
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 || len(key) > 64 {
		return Params{}, nil, nil, bad
	}
	return p, salt, key, nil
}

// API tokens: "viva_" and 43 base64url characters (256 random bits).
const (
	// TokenPrefix starts every API token, so a leaked one is recognisable.
	TokenPrefix     = "viva_"
	tokenBytes      = 32
	tokenIDLen      = len(TokenPrefix) + 8
	tokenHashHexLen = 2 * sha256.Size
	maxTokenLen     = 128
)

// NewToken returns a new API token and its stored form. The token itself
// is shown to the user once and kept nowhere.
func NewToken() (token string, stored Token) {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, Token{ID: token[:tokenIDLen], Hash: HashToken(token)}
}

// HashToken returns the stored form of an API token: its hex SHA-256.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// LooksLikeToken reports whether s has the form of an API token.
func LooksLikeToken(s string) bool {
	return strings.HasPrefix(s, TokenPrefix) && len(s) > tokenIDLen && len(s) <= maxTokenLen
}
