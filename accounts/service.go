package accounts

import (
	"context"
	"errors"
	"fmt"
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
func (s *Service) AddUser(ctx context.Context, email string, role Role, password string) (*User, error) {
	email = NormalizeEmail(email)
	if err := ValidateEmail(email); err != nil {
		return nil, err
	}
	if err := CheckPassword(password); err != nil {
		return nil, err
	}
	select { // an administrator's command waits its turn
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("accounts: adding %s: %w", email, ctx.Err())
	}
	hash, err := HashPassword(password, s.params)
	<-s.slots
	if err != nil {
		return nil, err
	}
	u := &User{Email: email, Role: role, PasswordHash: hash, Tokens: []Token{}, CreatedAt: s.now().UTC().Round(0)}
	if err := u.Validate(); err != nil {
		return nil, err
	}
	if err := s.store.Add(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
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
// ErrBadCredentials.
func (s *Service) AuthenticateToken(ctx context.Context, token string) (*User, error) {
	if !LooksLikeToken(token) {
		return nil, ErrBadCredentials
	}
	u, err := s.store.FindToken(ctx, HashToken(token))
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, ErrBadCredentials
	case err != nil:
		return nil, fmt.Errorf("accounts: checking an API token: %w", err)
	}
	return u, nil
}

// User returns the user with the email address, or ErrNotFound: the web
// app reads it on every request, so a removed user or a changed role takes
// effect at once.
func (s *Service) User(ctx context.Context, email string) (*User, error) {
	return s.store.Get(ctx, NormalizeEmail(email))
}

// CreateToken adds a new API token to the user and returns it: the only
// time it is seen, as only its hash is stored.
func (s *Service) CreateToken(ctx context.Context, email string) (string, error) {
	token, stored := NewToken()
	stored.CreatedAt = s.now().UTC().Round(0)
	err := s.store.Update(ctx, NormalizeEmail(email), func(u *User) error {
		u.Tokens = append(u.Tokens, stored)
		return nil
	})
	if err != nil {
		return "", err
	}
	return token, nil
}
