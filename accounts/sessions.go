package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"sync"
	"time"
)

// Session limits: how long a user stays signed in and how many sessions
// are held.
const (
	// SessionTTL is how long a user stays signed in.
	SessionTTL = 12 * time.Hour
	// MaxSessions bounds the sessions held: past it, sign-ins are refused
	// (ErrSessionsFull) until sessions end, rather than ending anyone
	// else's.
	MaxSessions = 1000
	// MaxSessionsPerUser bounds one account's sessions: a new one ends
	// that account's session closest to expiry, and no one else's.
	MaxSessionsPerUser = 10
)

// ErrSessionsFull means a session was not started: MaxSessions are live.
var ErrSessionsFull = errors.New("accounts: every session slot is taken")

// ErrNoSession means a session id names no live session: it never
// existed, it expired or it was ended.
var ErrNoSession = errors.New("accounts: no such session")

// SessionLimits are how long sessions last and how many are held.
type SessionLimits struct {
	// TTL is how long a session lasts (SessionTTL when zero).
	TTL time.Duration
	// Max bounds the sessions held (MaxSessions when zero).
	Max int
	// PerUser bounds one account's sessions (MaxSessionsPerUser when
	// zero).
	PerUser int
}

// OrDefaults returns l with its zero fields set to the defaults.
func (l SessionLimits) OrDefaults() SessionLimits {
	if l.TTL == 0 {
		l.TTL = SessionTTL
	}
	if l.Max == 0 {
		l.Max = MaxSessions
	}
	if l.PerUser == 0 {
		l.PerUser = MaxSessionsPerUser
	}
	return l
}

// Sessions keeps the sessions of signed-in browsers: a random id (the
// cookie) mapped to who signed in (the account's email address, ID and
// generation, see User.SameAccount) until when. Only a hash of each id is
// kept, so a dump of the memory or the database hands out no live cookie.
// Implementations are safe for concurrent use; the PostgreSQL one is
// shared by every web app on the database, so a session started on one is
// known to all and one ended on one is over on all.
type Sessions interface {
	// Create starts a session for account and returns its id (32 random
	// bytes, base64url). When the account holds PerUser sessions already,
	// its session closest to expiry ends; when Max are held, it fails
	// with ErrSessionsFull.
	Create(ctx context.Context, account User) (string, error)
	// Lookup returns who signed in with the live session id (Email, ID
	// and Generation set), or ErrNoSession.
	Lookup(ctx context.Context, id string) (User, error)
	// End ends the session id; an unknown id is not an error.
	End(ctx context.Context, id string) error
}

// NewSessionID returns a new session id and the hash it is kept under.
func NewSessionID() (id string, hash [sha256.Size]byte) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	id = base64.RawURLEncoding.EncodeToString(b[:])
	return id, SessionHash(id)
}

// SessionHash is what a session id is kept under.
func SessionHash(id string) [sha256.Size]byte { return sha256.Sum256([]byte(id)) }

// SessionAccount is what a session keeps of the account that signed in:
// its email address, ID and generation.
func SessionAccount(u User) User { return User{Email: u.Email, ID: u.ID, Generation: u.Generation} }

// MemorySessions keeps sessions in this process's memory: the embedded
// default for one web app. A restart signs everyone out.
type MemorySessions struct {
	limits SessionLimits
	now    func() time.Time

	mu       sync.Mutex
	sessions map[[sha256.Size]byte]memorySession
}

// memorySession is one session MemorySessions holds.
type memorySession struct {
	account User
	expires time.Time
}

var _ Sessions = (*MemorySessions)(nil)

// NewMemorySessions returns an empty MemorySessions with limits (the
// defaults for zero fields) reading the time from now (time.Now when nil).
func NewMemorySessions(limits SessionLimits, now func() time.Time) *MemorySessions {
	if now == nil {
		now = time.Now
	}
	return &MemorySessions{limits: limits.OrDefaults(), now: now, sessions: map[[sha256.Size]byte]memorySession{}}
}

// Create implements Sessions.
func (s *MemorySessions) Create(ctx context.Context, account User) (string, error) {
	id, hash := NewSessionID()
	account = SessionAccount(account)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		own    int
		oldest [sha256.Size]byte
		first  time.Time
	)
	for k, ss := range s.sessions {
		switch {
		case !now.Before(ss.expires):
			delete(s.sessions, k)
		case ss.account.Email == account.Email:
			own++
			if first.IsZero() || ss.expires.Before(first) {
				oldest, first = k, ss.expires
			}
		}
	}
	switch {
	case own >= s.limits.PerUser: // the account's own session closest to expiry
		delete(s.sessions, oldest)
	case len(s.sessions) >= s.limits.Max:
		return "", ErrSessionsFull
	}
	s.sessions[hash] = memorySession{account: account, expires: now.Add(s.limits.TTL)}
	return id, nil
}

// Lookup implements Sessions.
func (s *MemorySessions) Lookup(ctx context.Context, id string) (User, error) {
	if id == "" {
		return User{}, ErrNoSession
	}
	key := SessionHash(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[key]
	if !ok {
		return User{}, ErrNoSession
	}
	if !s.now().Before(ss.expires) {
		delete(s.sessions, key)
		return User{}, ErrNoSession
	}
	return ss.account, nil
}

// End implements Sessions.
func (s *MemorySessions) End(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, SessionHash(id))
	return nil
}

// Len returns how many sessions are held, expired ones included until
// the next Create drops them.
func (s *MemorySessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
