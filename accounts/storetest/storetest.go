// Package storetest is the conformance suite of the accounts' backends:
// accounts.Store, accounts.Sessions and accounts.Limiter. The embedded
// defaults (the users file, sessions and limits in memory) and PostgreSQL
// run it on fresh, empty backends. Every opener call returns another
// handle on the same backend, as another web app sharing it would have:
// what one handle writes, the others see.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// Backend opens handles on one fresh backend.
type Backend struct {
	// Store returns another handle on the backend's users.
	Store func() accounts.Store
	// Sessions returns another handle on the backend's sessions, under
	// limits, reading the time from now.
	Sessions func(limits accounts.SessionLimits, now func() time.Time) accounts.Sessions
	// Limiter returns another handle on the limiter called name of
	// perMinute requests a minute, reading the time from now.
	Limiter func(name string, perMinute int, now func() time.Time) accounts.Limiter
}

// Run runs the suite; newBackend returns a fresh, empty backend each time
// it is called (once per test).
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	tests := []struct {
		name string
		run  func(t *testing.T, b Backend)
	}{
		{"Users", testUsers},
		{"UpdatesFromTwoHandles", testConcurrentUpdates},
		{"TokensAcrossHandles", testTokens},
		{"SessionsAcrossHandles", testSessionsShared},
		{"SessionsAreBounded", testSessionsBounded},
		{"LimiterBucket", testLimiter},
		{"LimiterShared", testLimiterShared},
		{"CopyFromTheUsersFile", testCopy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newBackend(t)) })
	}
}

// testParams hash passwords cheaply: the suite checks storage, not
// hashing.
var testParams = accounts.Params{Time: 1, MemoryKiB: 64, Threads: 1}

// password passes the password policy.
const password = "tundra ladle orbit pepper quay"

// newClock returns a clock tests move by hand.
func newClock() *storetest.Clock {
	return storetest.NewClock(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
}

// service returns a Service on store with clock.
func service(t *testing.T, store accounts.Store, clock *storetest.Clock) *accounts.Service {
	t.Helper()
	svc, err := accounts.NewService(store, testParams, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func testUsers(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	one, two := service(t, b.Store(), clock), service(t, b.Store(), clock)
	for _, email := range []string{"bea@example.com", "ada@example.com"} {
		if _, err := one.AddUser(ctx, email, accounts.RoleReviewer, password); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := two.AddUser(ctx, "ADA@example.com ", accounts.RoleAdmin, password); !errors.Is(err, accounts.ErrExists) {
		t.Errorf("adding ada again on another handle: %v, want ErrExists", err)
	}
	list, err := two.Store().List(ctx)
	if err != nil || len(list) != 2 || list[0].Email != "ada@example.com" || list[1].Email != "bea@example.com" {
		t.Fatalf("list on the other handle = %+v, %v; want ada then bea", list, err)
	}
	if _, err := two.Authenticate(ctx, "ada@example.com", password); err != nil {
		t.Errorf("signing in on the other handle: %v", err)
	}
	if _, err := two.Authenticate(ctx, "ada@example.com", "wrong password here"); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Errorf("a wrong password: %v, want ErrBadCredentials", err)
	}
	if _, err := one.SetRole(ctx, "ada@example.com", accounts.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	u, err := two.User(ctx, "ada@example.com")
	if err != nil || u.Role != accounts.RoleAdmin || u.Generation != 2 {
		t.Errorf("after a role change on one handle, the other reads %+v, %v; want admin at generation 2", u, err)
	}
	if err := two.Store().Update(ctx, "ada@example.com", func(u *accounts.User) error { u.Email = "eve@example.com"; return nil }); err == nil {
		t.Error("an update changed the email address")
	}
	if err := two.Store().Update(ctx, "nobody@example.com", func(*accounts.User) error { return nil }); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("updating an unknown user: %v, want ErrNotFound", err)
	}
	if err := one.Store().Remove(ctx, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := two.User(ctx, "ada@example.com"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("a removed user read on the other handle: %v, want ErrNotFound", err)
	}
	if err := two.Store().Remove(ctx, "ada@example.com"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("removing a removed user: %v, want ErrNotFound", err)
	}
}

// testConcurrentUpdates: tokens created at once on two handles are all
// kept.
func testConcurrentUpdates(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	svcs := []*accounts.Service{service(t, b.Store(), clock), service(t, b.Store(), clock)}
	if _, err := svcs[0].AddUser(ctx, "ada@example.com", accounts.RoleAdmin, password); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			if _, err := svcs[i%2].CreateToken(ctx, "ada@example.com"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	u, err := svcs[1].User(ctx, "ada@example.com")
	if err != nil || len(u.Tokens) != 10 {
		t.Errorf("after 10 tokens created at once on two handles, ada has %d tokens (%v), want 10", len(u.Tokens), err)
	}
}

// testTokens: a token created on one handle works on the other; revoked,
// expired or after a password change on one, the other refuses it.
func testTokens(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	one, two := service(t, b.Store(), clock), service(t, b.Store(), clock)
	if _, err := one.AddUser(ctx, "ada@example.com", accounts.RoleRecruiter, password); err != nil {
		t.Fatal(err)
	}
	token, stored, err := one.CreateTokenValidFor(ctx, "ada@example.com", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	short, _, err := one.CreateTokenValidFor(ctx, "ada@example.com", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := two.AuthenticateToken(ctx, token); err != nil || u.Email != "ada@example.com" {
		t.Fatalf("a token created on one handle, on the other: %+v, %v", u, err)
	}
	clock.Advance(time.Minute)
	if _, err := two.AuthenticateToken(ctx, short); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Errorf("an expired token: %v, want ErrBadCredentials", err)
	}
	if err := two.RevokeToken(ctx, "ada@example.com", stored.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := one.AuthenticateToken(ctx, token); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Errorf("a token revoked on the other handle: %v, want ErrBadCredentials", err)
	}
	again, err := one.CreateToken(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := two.SetPassword(ctx, "ada@example.com", "lantern fjord cobalt mitten"); err != nil || n != 1 {
		t.Fatalf("password reset revoked %d tokens (%v), want 1", n, err)
	}
	if _, err := one.AuthenticateToken(ctx, again); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Errorf("a token after a password reset on the other handle: %v, want ErrBadCredentials", err)
	}
	if _, err := two.Store().FindToken(ctx, accounts.HashToken(again)); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("FindToken of a dropped token: %v, want ErrNotFound", err)
	}
}

// testSessionsShared: a session started on one handle is live on the
// other; ended on the other, it is over on the first.
func testSessionsShared(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	one, two := b.Sessions(accounts.SessionLimits{TTL: time.Hour}, clock.Now), b.Sessions(accounts.SessionLimits{TTL: time.Hour}, clock.Now)
	ada := accounts.User{Email: "ada@example.com", ID: "id-1", Generation: 3, Role: accounts.RoleAdmin, PasswordHash: "secret"}
	id, err := one.Create(ctx, ada)
	if err != nil {
		t.Fatal(err)
	}
	got, err := two.Lookup(ctx, id)
	if err != nil || got.Email != ada.Email || got.ID != ada.ID || got.Generation != 3 || got.PasswordHash != "" || got.Role != "" {
		t.Fatalf("the session on the other handle: %+v, %v; want ada's email, ID and generation only", got, err)
	}
	if _, err := two.Lookup(ctx, id+"x"); !errors.Is(err, accounts.ErrNoSession) {
		t.Errorf("a made-up session id: %v, want ErrNoSession", err)
	}
	if _, err := two.Lookup(ctx, ""); !errors.Is(err, accounts.ErrNoSession) {
		t.Errorf("an empty session id: %v, want ErrNoSession", err)
	}
	if err := two.End(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := one.Lookup(ctx, id); !errors.Is(err, accounts.ErrNoSession) {
		t.Errorf("a session ended on the other handle: %v, want ErrNoSession", err)
	}
	later, err := one.Create(ctx, ada)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, err := two.Lookup(ctx, later); !errors.Is(err, accounts.ErrNoSession) {
		t.Errorf("an expired session: %v, want ErrNoSession", err)
	}
}

// testSessionsBounded: at most Max sessions and PerUser per account. An
// account signing in again and again ends only its own oldest sessions;
// past Max, new sessions are refused and nobody else's ends; expired
// sessions free their place.
func testSessionsBounded(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	s := b.Sessions(accounts.SessionLimits{TTL: time.Hour, Max: 4, PerUser: 2}, clock.Now)
	user := func(i int) accounts.User { return accounts.User{Email: fmt.Sprintf("user%d@example.com", i)} }
	create := func(u accounts.User) string {
		t.Helper()
		id, err := s.Create(ctx, u)
		if err != nil {
			t.Fatalf("create %s: %v", u.Email, err)
		}
		clock.Advance(time.Second)
		return id
	}
	live := func(id string) bool { _, err := s.Lookup(ctx, id); return err == nil }
	admin := create(user(0))
	var flood []string
	for range 30 {
		flood = append(flood, create(user(1)))
	}
	if !live(admin) {
		t.Fatal("another account's sign-ins ended user0's session")
	}
	n := 0
	for _, id := range flood {
		if live(id) {
			n++
		}
	}
	if n != 2 || !live(flood[len(flood)-1]) || !live(flood[len(flood)-2]) {
		t.Errorf("user1 holds %d sessions after 30 sign-ins, want 2 (its newest)", n)
	}
	third := create(user(2))
	if _, err := s.Create(ctx, user(3)); !errors.Is(err, accounts.ErrSessionsFull) {
		t.Errorf("a fifth session past the cap of 4: %v, want ErrSessionsFull", err)
	}
	for _, id := range []string{admin, third, flood[len(flood)-1]} {
		if !live(id) {
			t.Error("a refused session ended a live one")
		}
	}
	clock.Advance(time.Hour)
	create(user(3)) // the expired ones free their places
	create(user(4))
	create(user(5))
}

func testLimiter(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	l := b.Limiter("login", 3, clock.Now)
	allow := func(key string) (bool, time.Duration) {
		t.Helper()
		ok, wait, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return ok, wait
	}
	if _, out, err := l.Exhausted(ctx, "203.0.113.5"); err != nil || out {
		t.Errorf("an unseen client is exhausted: %v %v", out, err)
	}
	for i := range 3 {
		if ok, _ := allow("203.0.113.5"); !ok {
			t.Fatalf("request %d of a burst of 3 refused", i+1)
		}
	}
	if ok, wait := allow("203.0.113.5"); ok || wait != 20*time.Second {
		t.Errorf("request 4: allowed %v, wait %v; want refused, 20 s (3 a minute)", ok, wait)
	}
	if wait, out, err := l.Exhausted(ctx, "203.0.113.5"); err != nil || !out || wait != 20*time.Second {
		t.Errorf("Exhausted = %v %v %v, want 20 s, true", wait, out, err)
	}
	if ok, _ := allow("203.0.113.6"); !ok {
		t.Error("another client shares the first one's bucket")
	}
	clock.Advance(19 * time.Second)
	if ok, _ := allow("203.0.113.5"); ok {
		t.Error("a request came back after 19 s, want 20")
	}
	clock.Advance(time.Second)
	if ok, _ := allow("203.0.113.5"); !ok {
		t.Error("no request came back after 20 s")
	}
	if _, out, _ := l.Exhausted(ctx, "203.0.113.5"); !out {
		t.Error("Exhausted took a request or the refill gave two")
	}
	other := b.Limiter("create", 3, clock.Now)
	if ok, _, err := other.Allow(ctx, "203.0.113.5"); err != nil || !ok {
		t.Errorf("another limiter shares the login limiter's bucket: %v %v", ok, err)
	}
}

// testLimiterShared: requests spread over two handles at once count
// against one bucket.
func testLimiterShared(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	ls := []accounts.Limiter{b.Limiter("login", 10, clock.Now), b.Limiter("login", 10, clock.Now)}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for i := range 30 {
		wg.Go(func() {
			ok, _, err := ls[i%2].Allow(ctx, "198.51.100.7")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != 10 {
		t.Errorf("30 requests at once over two handles, %d allowed, want 10", allowed)
	}
}

// testCopy: users copied from a users file sign in with their passwords
// and tokens; copying again adds nobody and changes nothing.
func testCopy(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := newClock()
	file, err := accounts.OpenFile(filepath.Join(t.TempDir(), "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	old := service(t, file, clock)
	for _, email := range []string{"ada@example.com", "bea@example.com"} {
		if _, err := old.AddUser(ctx, email, accounts.RoleReviewer, password); err != nil {
			t.Fatal(err)
		}
	}
	token, err := old.CreateToken(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	to := b.Store()
	if n, err := accounts.Copy(ctx, file, to); err != nil || n != 2 {
		t.Fatalf("copied %d users (%v), want 2", n, err)
	}
	svc := service(t, b.Store(), clock)
	if _, err := svc.Authenticate(ctx, "bea@example.com", password); err != nil {
		t.Errorf("a copied user's password: %v", err)
	}
	if u, err := svc.AuthenticateToken(ctx, token); err != nil || u.Email != "ada@example.com" {
		t.Errorf("a copied user's token: %v %v", u, err)
	}
	if n, err := accounts.Copy(ctx, file, to); err != nil || n != 0 {
		t.Errorf("copying again added %d users (%v), want none", n, err)
	}
}
