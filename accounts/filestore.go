package accounts

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/viva-interviews/viva/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// FileStore keeps every user in one JSON file. Writes go to a synced
// temporary file renamed over it, under an exclusive lock on a lock file
// beside it, so concurrent viva processes never lose each other's changes
// and readers always see a whole file. Reads are cached while the file is
// unchanged. The file and its lock are created with mode 0600.
type FileStore struct {
	path string

	mu     sync.Mutex // guards the cache and serialises this process's writes
	cached fs.FileInfo
	users  []User
}

// fileFormat is the content of the users file.
type fileFormat struct {
	// Users are the accounts, sorted by email address.
	Users []User `json:"users"`
}

// OpenFile returns a FileStore on path, creating its directory (mode 0700)
// when needed. A missing file is an empty store.
func OpenFile(path string) (*FileStore, error) {
	if path == "" {
		return nil, errors.New("accounts: open: no users file given: set --users-file or VIVA_USERS_FILE")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("accounts: open %s: %w", path, err)
	}
	s := &FileStore{path: path}
	if _, err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the users file.
func (s *FileStore) Path() string { return s.path }

// load returns the users in the file, from the cache when the file is
// unchanged. The returned slice is shared: callers copy what they hand out.
func (s *FileStore) load() ([]User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadLocked()
}

func (s *FileStore) loadLocked() ([]User, error) {
	info, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.cached, s.users = nil, nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("accounts: reading %s: %w", s.path, err)
	}
	if s.cached != nil && os.SameFile(s.cached, info) && s.cached.ModTime().Equal(info.ModTime()) && s.cached.Size() == info.Size() {
		return s.users, nil
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		return nil, fmt.Errorf("accounts: reading %s: %w", s.path, err)
	}
	var f fileFormat
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("accounts: users file %s is unreadable: %w: restore it from a backup", s.path, err)
	}
	for i := range f.Users {
		if err := f.Users[i].Validate(); err != nil {
			return nil, fmt.Errorf("accounts: users file %s: %w", s.path, err)
		}
	}
	s.cached, s.users = info, f.Users
	return s.users, nil
}

// clone returns a deep copy of u.
func clone(u User) *User {
	u.Tokens = slices.Clone(u.Tokens)
	if u.Tokens == nil {
		u.Tokens = []Token{}
	}
	return &u
}

// Get implements Store.
func (s *FileStore) Get(ctx context.Context, email string) (*User, error) {
	users, err := s.load()
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		if u.Email == email {
			return clone(u), nil
		}
	}
	return nil, fmt.Errorf("accounts: %s: %w", email, ErrNotFound)
}

// List implements Store.
func (s *FileStore) List(ctx context.Context) ([]User, error) {
	users, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make([]User, len(users))
	for i, u := range users {
		out[i] = *clone(u)
	}
	return out, nil
}

// FindToken implements Store.
func (s *FileStore) FindToken(ctx context.Context, hash string) (*User, error) {
	users, err := s.load()
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		for _, t := range u.Tokens {
			if t.Hash == hash {
				return clone(u), nil
			}
		}
	}
	return nil, fmt.Errorf("accounts: token: %w", ErrNotFound)
}

// Add implements Store.
func (s *FileStore) Add(ctx context.Context, u *User) error {
	if err := u.Validate(); err != nil {
		return err
	}
	return s.modify(func(users []User) ([]User, error) {
		if slices.ContainsFunc(users, func(x User) bool { return x.Email == u.Email }) {
			return nil, fmt.Errorf("accounts: %s: %w", u.Email, ErrExists)
		}
		return append(users, *clone(*u)), nil
	})
}

// Update implements Store.
func (s *FileStore) Update(ctx context.Context, email string, fn func(*User) error) error {
	return s.modify(func(users []User) ([]User, error) {
		i := slices.IndexFunc(users, func(x User) bool { return x.Email == email })
		if i < 0 {
			return nil, fmt.Errorf("accounts: %s: %w", email, ErrNotFound)
		}
		u := clone(users[i])
		if err := fn(u); err != nil {
			return nil, err
		}
		if u.Email != email {
			return nil, fmt.Errorf("accounts: update %s: the email address cannot change", email)
		}
		if err := u.Validate(); err != nil {
			return nil, err
		}
		users[i] = *u
		return users, nil
	})
}

// Remove implements Store.
func (s *FileStore) Remove(ctx context.Context, email string) error {
	return s.modify(func(users []User) ([]User, error) {
		i := slices.IndexFunc(users, func(x User) bool { return x.Email == email })
		if i < 0 {
			return nil, fmt.Errorf("accounts: %s: %w", email, ErrNotFound)
		}
		return slices.Delete(users, i, i+1), nil
	})
}

// modify reads the file under the cross-process lock, applies fn to a copy
// of its users and writes the result atomically.
func (s *FileStore) modify(fn func([]User) ([]User, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lockFile()
	if err != nil {
		return err
	}
	defer unlock()
	current, err := s.loadLocked()
	if err != nil {
		return err
	}
	users := make([]User, len(current))
	for i, u := range current {
		users[i] = *clone(u)
	}
	users, err = fn(users)
	if err != nil {
		return err
	}
	slices.SortFunc(users, func(a, b User) int { return cmp.Compare(a.Email, b.Email) })
	data, err := json.MarshalIndent(fileFormat{Users: users}, "", "  ")
	if err != nil {
		return fmt.Errorf("accounts: encoding users: %w", err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("accounts: writing %s: %w", s.path, err)
	}
	s.cached = nil // read back on the next load
	return nil
}

// lockFile takes an exclusive lock on the lock file beside the users file.
func (s *FileStore) lockFile() (unlock func(), err error) {
	unlock, err = atomicfile.Lock(s.path+".lock", 0o600)
	if err != nil {
		return nil, fmt.Errorf("accounts: locking %s: %w", s.path, err)
	}
	return unlock, nil
}
