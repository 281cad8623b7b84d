package accounts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Service is what the web app and the users command do with accounts:
// add users, check passwords and API tokens, create tokens. It is safe for
// concurrent use.
//
// Hashing a password takes Params.MemoryKiB of memory (64 MiB by default)
// for about 100 ms, and anyone can ask for it by failing to sign in. The
// service hashes at most HashSlots passwords at once, so sign-ins from
// however many addresses cost at most HashMemoryBudgetKiB: an
// Authenticate that finds every slot taken returns ErrBusy at once,
// without hashing or queueing.
type Service struct {
	store  Store
	params Params
	now    func() time.Time
	// dummy is a hash verified when the email is unknown, so a failed
	// sign-in takes as long whether or not the address has an account.
	dummy string
	// slots holds one token per password being hashed.
	slots chan struct{}
	// verify checks a password against a hash: VerifyPassword, or a
	// test's instrumented stand-in.
	verify func(hash, password string) bool
}

// HashMemoryBudgetKiB is the memory all password hashing of one Service
// may take at once; with DefaultParams it allows 4 hashes at a time.
const HashMemoryBudgetKiB = 256 << 10

// maxHashSlots bounds the hashes run at once whatever their memory, as
// each also keeps Threads cores busy.
const maxHashSlots = 4

// HashSlots is how many passwords hashed with p a Service hashes at once:
// as many as HashMemoryBudgetKiB holds, from 1 to 4.
func HashSlots(p Params) int {
	if p.MemoryKiB == 0 {
		return maxHashSlots
	}
	return int(min(max(HashMemoryBudgetKiB/p.MemoryKiB, 1), maxHashSlots))
}

// NewService returns a Service on store that hashes new passwords with p
// (DefaultParams when zero) and reads the time from now (time.Now when
// nil).
func NewService(store Store, p Params, now func() time.Time) (*Service, error) {
	if p == (Params{}) {
		p = DefaultParams
	}
	if now == nil {
		now = time.Now
	}
	dummy, err := HashPassword("not-a-password-of-anyone", p)
	if err != nil {
		return nil, err
	}
	return &Service{store: store, params: p, now: now, dummy: dummy,
		slots: make(chan struct{}, HashSlots(p)), verify: VerifyPassword}, nil
}

// Store returns the store the service keeps users in.
func (s *Service) Store() Store { return s.store }

// AddUser stores a new user with the given email address, role and
// password (checked with CheckPassword). Its errors say what to change.
// The user gets a new random ID, so sessions of an account removed before
// under the same address do not carry over.
func (s *Service) AddUser(ctx context.Context, email string, role Role, password string) (*User, error) {
	email = NormalizeEmail(email)
	if err := ValidateEmail(email); err != nil {
		return nil, err
	}
	hash, err := s.hashNew(ctx, email, password)
	if err != nil {
		return nil, err
	}
	u := &User{Email: email, ID: newUserID(), Generation: 1, Role: role, PasswordHash: hash, Tokens: []Token{}, CreatedAt: s.now().UTC().Round(0)}
	if err := u.Validate(); err != nil {
		return nil, err
	}
	if err := s.store.Add(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// hashNew checks a new password for the user with the (normalised) email
// address against the policy and hashes it, waiting for a hashing slot:
// an administrator's command waits its turn.
func (s *Service) hashNew(ctx context.Context, email, password string) (string, error) {
	if err := CheckPassword(email, password); err != nil {
		return "", err
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("accounts: hashing the password of %s: %w", email, ctx.Err())
	}
	defer func() { <-s.slots }()
	return HashPassword(password, s.params)
}

// newUserID returns a random user ID: 16 bytes, hex.
func newUserID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// SetPassword replaces the user's password (checked with CheckPassword).
// It ends the user's sessions and revokes their API tokens: it raises the
// user's Generation and drops the tokens. It returns how many tokens were
// revoked.
func (s *Service) SetPassword(ctx context.Context, email, password string) (revoked int, err error) {
	email = NormalizeEmail(email)
	if _, err := s.store.Get(ctx, email); err != nil {
		return 0, err
	}
	hash, err := s.hashNew(ctx, email, password)
	if err != nil {
		return 0, err
	}
	err = s.store.Update(ctx, email, func(u *User) error {
		u.PasswordHash = hash
		revoked = newGeneration(u)
		return nil
	})
	return revoked, err
}

// SetRole gives the user another role. A change ends the user's sessions
// and revokes their API tokens, as SetPassword does; it returns how many
// tokens were revoked. Setting the role the user has changes nothing.
func (s *Service) SetRole(ctx context.Context, email string, role Role) (revoked int, err error) {
	if !role.Valid() {
		return 0, fmt.Errorf("accounts: role %q is not one of admin, recruiter, reviewer", role)
	}
	err = s.store.Update(ctx, NormalizeEmail(email), func(u *User) error {
		if u.Role != role {
			u.Role = role
			revoked = newGeneration(u)
		}
		return nil
	})
	return revoked, err
}

// newGeneration raises u's generation, which ends its sessions, and drops
// its API tokens; it returns how many there were.
func newGeneration(u *User) int {
	n := len(u.Tokens)
	u.Generation++
	u.Tokens = []Token{}
	return n
}

// Authenticate returns the user with the email address when password is
// theirs, else ErrBadCredentials (after the same work either way). When
// HashSlots passwords are being hashed already it returns ErrBusy at once,
// having checked nothing.
func (s *Service) Authenticate(ctx context.Context, email, password string) (*User, error) {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		return nil, ErrBusy
	}
	u, err := s.store.Get(ctx, NormalizeEmail(email))
	switch {
	case errors.Is(err, ErrNotFound):
		s.verify(s.dummy, password)
		return nil, ErrBadCredentials
	case err != nil:
		return nil, fmt.Errorf("accounts: signing in: %w", err)
	case u.PasswordHash == "":
		s.verify(s.dummy, password)
		return nil, ErrBadCredentials
	case !s.verify(u.PasswordHash, password):
		return nil, ErrBadCredentials
	}
	return u, nil
}

// AuthenticateToken returns the user holding the API token, else
// ErrBadCredentials: also when the token has expired or was revoked.
func (s *Service) AuthenticateToken(ctx context.Context, token string) (*User, error) {
	if !LooksLikeToken(token) {
		return nil, ErrBadCredentials
	}
	hash := HashToken(token)
	u, err := s.store.FindToken(ctx, hash)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, ErrBadCredentials
	case err != nil:
		return nil, fmt.Errorf("accounts: checking an API token: %w", err)
	}
	i := slices.IndexFunc(u.Tokens, func(t Token) bool { return t.Hash == hash })
	if i < 0 || u.Tokens[i].Expired(s.now()) {
		return nil, ErrBadCredentials
	}
	return u, nil
}

// User returns the user with the email address, or ErrNotFound: the web
// app reads it on every request, so a removed user or a changed role takes
// effect at once.
func (s *Service) User(ctx context.Context, email string) (*User, error) {
	return s.store.Get(ctx, NormalizeEmail(email))
}

// CreateToken adds a new API token to the user that works for
// DefaultTokenTTL and returns it: the only time it is seen, as only its
// hash is stored.
func (s *Service) CreateToken(ctx context.Context, email string) (string, error) {
	token, _, err := s.CreateTokenValidFor(ctx, email, DefaultTokenTTL)
	return token, err
}

// CreateTokenValidFor adds a new API token to the user that works for ttl
// (at most MaxTokenTTL) and returns it with its stored form. The user's
// expired tokens are dropped meanwhile.
func (s *Service) CreateTokenValidFor(ctx context.Context, email string, ttl time.Duration) (string, Token, error) {
	if ttl < time.Minute || ttl > MaxTokenTTL {
		return "", Token{}, fmt.Errorf("accounts: a token's lifetime must be between a minute and %d days, not %v", MaxTokenTTL/(24*time.Hour), ttl)
	}
	token, stored := NewToken()
	stored.CreatedAt = s.now().UTC().Round(0)
	stored.ExpiresAt = stored.CreatedAt.Add(ttl)
	err := s.store.Update(ctx, NormalizeEmail(email), func(u *User) error {
		u.Tokens = append(slices.DeleteFunc(u.Tokens, func(t Token) bool { return t.Expired(stored.CreatedAt) }), stored)
		return nil
	})
	if err != nil {
		return "", Token{}, err
	}
	return token, stored, nil
}

// RevokeToken removes the user's API token whose ID is id (as listed),
// which stops working at once; ErrNotFound when the user has none such.
func (s *Service) RevokeToken(ctx context.Context, email, id string) error {
	id = strings.TrimRight(strings.TrimSpace(id), "…")
	return s.store.Update(ctx, NormalizeEmail(email), func(u *User) error {
		i := slices.IndexFunc(u.Tokens, func(t Token) bool { return t.ID == id })
		if i < 0 {
			return fmt.Errorf("accounts: %s has no API token %q: %w", u.Email, id, ErrNotFound)
		}
		u.Tokens = slices.Delete(u.Tokens, i, i+1)
		return nil
	})
}

// Copy adds to the store to every user of the store from that to lacks
// (by email address), tokens included, and returns how many it added:
// moving the users file into a database keeps everyone's password and
// tokens, and copying again adds nothing.
func Copy(ctx context.Context, from, to Store) (int, error) {
	users, err := from.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range users {
		switch err := to.Add(ctx, &users[i]); {
		case errors.Is(err, ErrExists):
		case err != nil:
			return n, fmt.Errorf("accounts: copying %s: %w", users[i].Email, err)
		default:
			n++
		}
	}
	return n, nil
}
