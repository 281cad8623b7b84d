// Package accounts holds the people who may use the web app — recruiters,
// reviewers and administrators — with their roles, passwords and API
// tokens.
//
// Passwords are kept only as argon2id hashes with a random salt per
// password; API tokens only as SHA-256 hashes (a token is 256 random bits,
// so a slow hash adds nothing). Neither a password nor a token can be read
// back: a token is shown once, when it is created.
//
// The domain types live here; a Store keeps users. FileStore keeps them in
// one JSON file; a database backend implements the same interface.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Errors returned by stores and Service; test with errors.Is.
var (
	// ErrNotFound means no user has the email address.
	ErrNotFound = errors.New("accounts: no such user")
	// ErrExists means a user with the email address is already present.
	ErrExists = errors.New("accounts: user already exists")
	// ErrBadCredentials means an email address, password or API token was
	// not accepted. It does not say which, so a caller cannot learn which
	// addresses have accounts.
	ErrBadCredentials = errors.New("accounts: wrong email, password or token")
	// ErrBusy means every password-hashing slot was taken (see
	// Service.Authenticate): the password was not checked, and the caller
	// may try again in a moment.
	ErrBusy = errors.New("accounts: too many passwords are being checked at once")
	// ErrWeakPassword means a new password was refused by the password
	// policy (see CheckPassword); the error says what to choose instead.
	ErrWeakPassword = errors.New("accounts: the password is too easy to guess")
)

// Role is what a user may do.
type Role string

// The roles.
const (
	// RoleAdmin may do everything: register candidates and read interviews.
	RoleAdmin Role = "admin"
	// RoleRecruiter registers candidates and mints their room tokens.
	RoleRecruiter Role = "recruiter"
	// RoleReviewer reads interviews: the reviewer pages and API.
	RoleReviewer Role = "reviewer"
)

// Roles lists every role, for messages and flags.
var Roles = []Role{RoleAdmin, RoleRecruiter, RoleReviewer}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool { return r == RoleAdmin || r == RoleRecruiter || r == RoleReviewer }

// Permission is one thing the web app guards.
type Permission int

// The permissions.
const (
	// Register is creating interviews and candidates' room tokens.
	Register Permission = iota + 1
	// Review is reading interviews: the reviewer pages and API.
	Review
	// Design is managing the library of interview designs (blueprints and
	// role templates): adding, editing, removing and trying them.
	Design
)

// String names the permission for messages.
func (p Permission) String() string {
	switch p {
	case Register:
		return "register candidates"
	case Review:
		return "read interviews"
	case Design:
		return "manage interview designs"
	}
	return fmt.Sprintf("permission(%d)", int(p))
}

// Allows reports whether the role grants p: admins everything, recruiters
// Register, reviewers Review.
func (r Role) Allows(p Permission) bool {
	switch r {
	case RoleAdmin:
		return p == Register || p == Review || p == Design
	case RoleRecruiter:
		return p == Register
	case RoleReviewer:
		return p == Review
	}
	return false
}

// RolesAllowing lists the roles that grant p, for messages.
func RolesAllowing(p Permission) []Role {
	var out []Role
	for _, r := range Roles {
		if r.Allows(p) {
			out = append(out, r)
		}
	}
	return out
}

// ParseRole returns the role named s (case-insensitive).
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if !r.Valid() {
		return "", fmt.Errorf("accounts: role %q is not one of admin, recruiter, reviewer", s)
	}
	return r, nil
}

// maxEmailLen bounds an email address (RFC 5321's path limit).
const maxEmailLen = 254

// NormalizeEmail trims and lower-cases an email address, the form users
// are stored and looked up under.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidateEmail checks that email is a bare address such as
// ada@example.com (already normalised).
func ValidateEmail(email string) error {
	if email == "" {
		return errors.New("accounts: the email address is empty")
	}
	if len(email) > maxEmailLen {
		return fmt.Errorf("accounts: the email address is longer than %d characters", maxEmailLen)
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return fmt.Errorf("accounts: %q is not an email address such as ada@example.com", email)
	}
	return nil
}

// User is one person who signs in to the web app.
type User struct {
	// Email identifies the user: normalised (NormalizeEmail), unique in a
	// store. It is what records name as their creator.
	Email string `json:"email"`
	// ID is random and set when the user is added, so an account removed
	// and added again under the same address is another account: the old
	// one's sessions do not carry over. Users stored before IDs existed
	// have none.
	ID string `json:"id,omitempty"`
	// Generation counts the changes that end the user's sessions and API
	// tokens: a password reset and a role change raise it. A session
	// started at another generation (or for another ID) is over.
	Generation int `json:"generation,omitempty"`
	// Role is what the user may do.
	Role Role `json:"role"`
	// PasswordHash is the argon2id hash of the password (PHC string form,
	// with its parameters and salt); empty for a user who signs in with API
	// tokens only.
	PasswordHash string `json:"password_hash,omitempty"`
	// Tokens are the user's API tokens, stored hashed.
	Tokens []Token `json:"tokens"`
	// CreatedAt is when the user was added.
	CreatedAt time.Time `json:"created_at"`
}

// Token is a stored API token: its hash, never the token.
type Token struct {
	// ID names the token in listings (its first characters, not secret).
	ID string `json:"id"`
	// Hash is the hex SHA-256 of the whole token.
	Hash string `json:"hash"`
	// CreatedAt is when the token was created.
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt is when the token stops working. Tokens stored before
	// tokens expired have none and expire DefaultTokenTTL after CreatedAt.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// DefaultTokenTTL is how long a new API token works unless its creator
// says otherwise.
const DefaultTokenTTL = 90 * 24 * time.Hour

// MaxTokenTTL bounds how long an API token may work.
const MaxTokenTTL = 2 * 365 * 24 * time.Hour

// Expires returns when the token stops working.
func (t Token) Expires() time.Time {
	if t.ExpiresAt.IsZero() {
		return t.CreatedAt.Add(DefaultTokenTTL)
	}
	return t.ExpiresAt
}

// Expired reports whether the token no longer works at now.
func (t Token) Expired(now time.Time) bool { return !now.Before(t.Expires()) }

// SameAccount reports whether u is still the account, at the same
// generation, that other was read as: false once the account was removed
// (and perhaps added again), its password reset or its role changed.
func (u *User) SameAccount(other *User) bool {
	return u.Email == other.Email && u.ID == other.ID && u.Generation == other.Generation
}

// Validate checks that u can be stored: a normalised email address, a known
// role, a well-formed password hash (if any), a generation not below zero
// and well-formed tokens that expire after their creation.
func (u *User) Validate() error {
	var errs []error
	if u.Email != NormalizeEmail(u.Email) {
		errs = append(errs, fmt.Errorf("accounts: email %q is not normalised (trimmed, lower-case)", u.Email))
	} else if err := ValidateEmail(u.Email); err != nil {
		errs = append(errs, err)
	}
	if !u.Role.Valid() {
		errs = append(errs, fmt.Errorf("accounts: user %s: role %q is not one of admin, recruiter, reviewer", u.Email, u.Role))
	}
	if u.PasswordHash != "" {
		if _, _, _, err := decodeHash(u.PasswordHash); err != nil {
			errs = append(errs, fmt.Errorf("accounts: user %s: %w", u.Email, err))
		}
	}
	for i, t := range u.Tokens {
		if len(t.Hash) != tokenHashHexLen || t.ID == "" || !t.ExpiresAt.IsZero() && !t.ExpiresAt.After(t.CreatedAt) {
			errs = append(errs, fmt.Errorf("accounts: user %s: token %d is malformed", u.Email, i))
		}
	}
	if u.Generation < 0 {
		errs = append(errs, fmt.Errorf("accounts: user %s: generation %d is negative", u.Email, u.Generation))
	}
	if u.CreatedAt.IsZero() {
		errs = append(errs, fmt.Errorf("accounts: user %s: created_at is not set", u.Email))
	}
	return errors.Join(errs...)
}

// Store keeps users. Implementations are safe for concurrent use and see
// changes other processes make (viva users while viva web runs).
type Store interface {
	// Get returns the user with the (normalised) email address, or
	// ErrNotFound.
	Get(ctx context.Context, email string) (*User, error)
	// List returns every user, sorted by email address.
	List(ctx context.Context) ([]User, error)
	// Add stores a new, valid user, or fails with ErrExists.
	Add(ctx context.Context, u *User) error
	// Update replaces the stored user with u's email address through fn,
	// which may change everything but the address; ErrNotFound when absent.
	Update(ctx context.Context, email string, fn func(*User) error) error
	// Remove deletes the user and their API tokens, or fails with
	// ErrNotFound.
	Remove(ctx context.Context, email string) error
	// FindToken returns the user holding the token whose hex SHA-256 is
	// hash, or ErrNotFound.
	FindToken(ctx context.Context, hash string) (*User, error)
}
