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
type Service struct {
	store  Store
	params Params
	now    func() time.Time
	// dummy is a hash verified when the email is unknown, so a failed
	// sign-in takes as long whether or not the address has an account.
	dummy string
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
	return &Service{store: store, params: p, now: now, dummy: dummy}, nil
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
	hash, err := HashPassword(password, s.params)
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
// theirs, else ErrBadCredentials (after the same work either way).
func (s *Service) Authenticate(ctx context.Context, email, password string) (*User, error) {
	u, err := s.store.Get(ctx, NormalizeEmail(email))
	switch {
	case errors.Is(err, ErrNotFound):
		VerifyPassword(s.dummy, password)
		return nil, ErrBadCredentials
	case err != nil:
		return nil, fmt.Errorf("accounts: signing in: %w", err)
	case u.PasswordHash == "":
		VerifyPassword(s.dummy, password)
		return nil, ErrBadCredentials
	case !VerifyPassword(u.PasswordHash, password):
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
