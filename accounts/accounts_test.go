package accounts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testParams keep hashing cheap in tests; the format and checks are the
// same as with DefaultParams.
var testParams = Params{Time: 1, MemoryKiB: 64, Threads: 1}

func TestHashAndVerify(t *testing.T) {
	const pw = "correct horse battery"
	h1, err := HashPassword(pw, testParams)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword(pw, testParams)
	if h1 == h2 {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	if !strings.HasPrefix(h1, "$argon2id$v=19$m=64,t=1,p=1$") || strings.Contains(h1, pw) {
		t.Errorf("hash %q", h1)
	}
	if !VerifyPassword(h1, pw) || !VerifyPassword(h2, pw) {
		t.Error("the right password is refused")
	}
	for _, wrong := range []string{"", "correct horse batter", pw + " ", strings.ToUpper(pw)} {
		if VerifyPassword(h1, wrong) {
			t.Errorf("%q accepted", wrong)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5",
		"$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5", // 95 GiB
		"$argon2id$v=19$m=64,t=1000,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5"} {
		if VerifyPassword(bad, pw) {
			t.Errorf("hash %q accepted", bad)
		}
	}
	if DefaultParams.MemoryKiB < 19<<10 || DefaultParams.Time < 2 {
		t.Errorf("DefaultParams %+v are below OWASP's argon2id minimum", DefaultParams)
	}
}

func TestCheckPassword(t *testing.T) {
	const email = "ada.lovelace@example.com"
	for pw, ok := range map[string]bool{
		"short":                               false,
		" leading space padding":              false,
		strings.Repeat("x", MaxPasswordLen+1): false,
		"aaaaaaaaaaaa":                        false, // one character
		"aaaaaaaaaaab":                        false, // two
		"abababababab":                        false,
		"abcdeabcdeab":                        false, // a part repeated, not whole
		"hellohellohello":                     false,
		"abcdefghijkl":                        false,
		"lkjihgfedcba":                        false,
		"123456789012":                        false,
		"qwertyuiopas":                        false,
		"1q2w3e4r5t6y":                        false,
		"Password1234":                        false,
		"P@ssw0rd2024!":                       false,
		"iloveyou1234":                        false,
		"letmein!!2025":                       false,
		"correct horse battery staple":        false,
		"Ada.Lovelace2024":                    false,
		"ada.lovelace@example.com":            false,
		"example12345":                        false,
		"tundra ladle orbit pepper":           true,
		"twelve chars":                        true,
		"a good password":                     true,
		"Xk3#vR9!qLmZ":                        true,
		"correct horse battery":               true,
		"my dog loves the password manager":   true,
		"2aQ7-mountain-violet-spoon-harbour":  true,
	} {
		err := CheckPassword(email, pw)
		if (err == nil) != ok {
			t.Errorf("%.20q: %v, want accepted %v", pw, err, ok)
		}
		if err != nil && len(pw) <= MaxPasswordLen && strings.TrimSpace(pw) == pw {
			if !errors.Is(err, ErrWeakPassword) || !strings.Contains(err.Error(), "passphrase") {
				t.Errorf("%q: %v: want ErrWeakPassword saying what to choose", pw, err)
			}
		}
	}
	if len(commonPasswords) < 250 {
		t.Errorf("%d common passwords, want a few hundred", len(commonPasswords))
	}
}

func TestRoles(t *testing.T) {
	cases := []struct {
		role             Role
		register, review bool
	}{
		{RoleAdmin, true, true},
		{RoleRecruiter, true, false},
		{RoleReviewer, false, true},
		{Role("root"), false, false},
		{Role(""), false, false},
	}
	for _, c := range cases {
		if c.role.Allows(Register) != c.register || c.role.Allows(Review) != c.review {
			t.Errorf("%q: register %v review %v", c.role, c.role.Allows(Register), c.role.Allows(Review))
		}
	}
	if r, err := ParseRole(" Recruiter "); err != nil || r != RoleRecruiter {
		t.Errorf("ParseRole: %q %v", r, err)
	}
	if _, err := ParseRole("superuser"); err == nil {
		t.Error("unknown role accepted")
	}
	if got := RolesAllowing(Review); len(got) != 2 || got[0] != RoleAdmin || got[1] != RoleReviewer {
		t.Errorf("RolesAllowing(Review) = %v", got)
	}
}

func TestUserValidate(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	hash, _ := HashPassword("a good password", testParams)
	ok := User{Email: "ada@example.com", Role: RoleAdmin, PasswordHash: hash, CreatedAt: now}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*User){
		"upper-case email": func(u *User) { u.Email = "Ada@example.com" },
		"not an email":     func(u *User) { u.Email = "ada" },
		"named address":    func(u *User) { u.Email = "ada <ada@example.com>" },
		"unknown role":     func(u *User) { u.Role = "owner" },
		"plain password":   func(u *User) { u.PasswordHash = "a good password" },
		"bad token":        func(u *User) { u.Tokens = []Token{{ID: "x", Hash: "abc"}} },
		"no created_at":    func(u *User) { u.CreatedAt = time.Time{} },
	} {
		u := ok
		edit(&u)
		if u.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func newService(t *testing.T) (*Service, *FileStore) {
	t.Helper()
	st, err := OpenFile(filepath.Join(t.TempDir(), "accounts", "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(st, testParams, nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

func TestServiceSignInAndTokens(t *testing.T) {
	ctx := context.Background()
	svc, st := newService(t)
	if _, err := svc.AddUser(ctx, " Ada@Example.com ", RoleRecruiter, "a good password"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddUser(ctx, "ada@example.com", RoleAdmin, "another password"); !errors.Is(err, ErrExists) {
		t.Errorf("second add: %v, want ErrExists", err)
	}
	if _, err := svc.AddUser(ctx, "bob@example.com", RoleReviewer, "short"); err == nil {
		t.Error("short password accepted")
	}
	u, err := svc.Authenticate(ctx, "ADA@example.com", "a good password")
	if err != nil || u.Email != "ada@example.com" || u.Role != RoleRecruiter {
		t.Fatalf("Authenticate: %+v %v", u, err)
	}
	for _, c := range [][2]string{{"ada@example.com", "wrong password"}, {"nobody@example.com", "a good password"}, {"", ""}} {
		if _, err := svc.Authenticate(ctx, c[0], c[1]); !errors.Is(err, ErrBadCredentials) {
			t.Errorf("Authenticate(%q, %q): %v", c[0], c[1], err)
		}
	}

	token, err := svc.CreateToken(ctx, "ada@example.com")
	if err != nil || !LooksLikeToken(token) {
		t.Fatalf("CreateToken: %q %v", token, err)
	}
	if _, err := svc.CreateToken(ctx, "nobody@example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("token for unknown user: %v", err)
	}
	if u, err := svc.AuthenticateToken(ctx, token); err != nil || u.Email != "ada@example.com" {
		t.Errorf("AuthenticateToken: %+v %v", u, err)
	}
	for _, bad := range []string{"", token + "x", token[:len(token)-1], "Bearer " + token, "viva_"} {
		if _, err := svc.AuthenticateToken(ctx, bad); !errors.Is(err, ErrBadCredentials) {
			t.Errorf("AuthenticateToken(%q): %v", bad, err)
		}
	}
	data, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) || strings.Contains(string(data), "a good password") {
		t.Errorf("the users file holds a secret:\n%s", data)
	}
	if info, _ := os.Stat(st.Path()); info.Mode().Perm() != 0o600 {
		t.Errorf("users file mode %v, want 0600", info.Mode().Perm())
	}

	if err := st.Remove(ctx, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AuthenticateToken(ctx, token); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("a removed user's token still works: %v", err)
	}
	if err := st.Remove(ctx, "ada@example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second remove: %v", err)
	}
}

func TestFileStoreSharedBetweenProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "users.json")
	a, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenFile(path) // another process's view of the same file
	if err != nil {
		t.Fatal(err)
	}
	svcA, _ := NewService(a, testParams, nil)
	svcB, _ := NewService(b, testParams, nil)
	var wg sync.WaitGroup
	for i, svc := range []*Service{svcA, svcB, svcA, svcB} {
		wg.Go(func() {
			email := string(rune('a'+i)) + "@example.com"
			if _, err := svc.AddUser(ctx, email, RoleReviewer, "a good password"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, st := range []*FileStore{a, b} {
		users, err := st.List(ctx)
		if err != nil || len(users) != 4 || users[0].Email != "a@example.com" || users[3].Email != "d@example.com" {
			t.Errorf("List: %v %v", users, err)
		}
	}
	if err := b.Update(ctx, "a@example.com", func(u *User) error { u.Role = RoleAdmin; return nil }); err != nil {
		t.Fatal(err)
	}
	if u, err := a.Get(ctx, "a@example.com"); err != nil || u.Role != RoleAdmin {
		t.Errorf("the other store does not see the change: %+v %v", u, err)
	}
	if err := b.Update(ctx, "a@example.com", func(u *User) error { u.Email = "z@example.com"; return nil }); err == nil {
		t.Error("an update changed the email address")
	}
}

func TestFileStoreRefusesACorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(path, []byte(`{"users":[{"email":"ada@example.com","role":"owner"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(path); err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("OpenFile: %v", err)
	}
}

func TestHashSlotsFollowTheMemoryBudget(t *testing.T) {
	for _, tt := range []struct {
		p    Params
		want int
	}{
		{DefaultParams, 4},
		{Params{Time: 3, MemoryKiB: 128 << 10, Threads: 2}, 2},
		{Params{Time: 3, MemoryKiB: 1 << 20, Threads: 2}, 1},
		{testParams, 4},
	} {
		if got := HashSlots(tt.p); got != tt.want {
			t.Errorf("HashSlots(%d KiB) = %d, want %d", tt.p.MemoryKiB, got, tt.want)
		}
	}
}

// TestSignInFloodHashesAtMostHashSlotsAtOnce: a flood of concurrent
// failed sign-ins, for known and unknown addresses, never has more than
// HashSlots hashes running; the attempts beyond them are refused with
// ErrBusy at once, without hashing; once the hashes end, sign-in works.
func TestSignInFloodHashesAtMostHashSlotsAtOnce(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	if _, err := svc.AddUser(ctx, "ada@example.com", RoleReviewer, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	slots := HashSlots(testParams)
	var (
		mu               sync.Mutex
		running, maxRun  int
		hashed           int
		entered, release = make(chan struct{}, 100), make(chan struct{})
	)
	svc.verify = func(hash, password string) bool {
		mu.Lock()
		running++
		hashed++
		maxRun = max(maxRun, running)
		mu.Unlock()
		entered <- struct{}{}
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return VerifyPassword(hash, password)
	}

	const flood = 50
	errs := make(chan error, flood)
	var wg sync.WaitGroup
	for i := range flood {
		email := "ada@example.com"
		if i%2 == 1 {
			email = "nobody@example.com"
		}
		wg.Go(func() {
			_, err := svc.Authenticate(ctx, email, "wrong password guess")
			errs <- err
		})
	}
	for range slots { // the first HashSlots attempts hash and wait
		<-entered
	}
	busy := 0
	for range flood - slots { // every other one is refused without waiting
		if err := <-errs; !errors.Is(err, ErrBusy) {
			t.Fatalf("attempt beyond %d hashes: %v, want ErrBusy", slots, err)
		}
		busy++
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrBadCredentials) {
			t.Errorf("hashed attempt: %v, want ErrBadCredentials", err)
		}
	}
	if maxRun > slots || hashed != slots || busy != flood-slots {
		t.Fatalf("%d hashes at most at once, %d hashed, %d refused; want at most %d at once, %d hashed, %d refused",
			maxRun, hashed, busy, slots, slots, flood-slots)
	}
	if _, err := svc.Authenticate(ctx, "ada@example.com", "correct horse battery"); err != nil {
		t.Fatalf("sign-in after the flood: %v", err)
	}
}

// TestAccountVersions: removing and adding a user again makes another
// account (another ID), and a password reset or a role change makes
// another generation of it with no API tokens, so whatever was bound to
// the old one (sessions, tokens) is over.
func TestAccountVersions(t *testing.T) {
	ctx := context.Background()
	svc, st := newService(t)
	first, err := svc.AddUser(ctx, "ada@example.com", RoleReviewer, "tundra ladle orbit pepper")
	if err != nil {
		t.Fatal(err)
	}
	token, err := svc.CreateToken(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Remove(ctx, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	again, err := svc.AddUser(ctx, "ada@example.com", RoleAdmin, "tundra ladle orbit pepper")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == "" || again.SameAccount(first) {
		t.Fatalf("re-added user %+v is the same account as %+v", again, first)
	}
	if _, err := svc.AuthenticateToken(ctx, token); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("the removed account's token: %v, want ErrBadCredentials", err)
	}

	token, _ = svc.CreateToken(ctx, "ada@example.com")
	if _, err := svc.SetPassword(ctx, "ada@example.com", "aaaaaaaaaaaa"); !errors.Is(err, ErrWeakPassword) {
		t.Errorf("weak new password: %v, want ErrWeakPassword", err)
	}
	if _, err := svc.SetPassword(ctx, "nobody@example.com", "violet spoon harbour kettle"); !errors.Is(err, ErrNotFound) {
		t.Errorf("password of nobody: %v, want ErrNotFound", err)
	}
	revoked, err := svc.SetPassword(ctx, "ADA@example.com", "violet spoon harbour kettle")
	if err != nil || revoked != 1 {
		t.Fatalf("SetPassword: %d revoked, %v", revoked, err)
	}
	reset, _ := st.Get(ctx, "ada@example.com")
	if reset.SameAccount(again) || reset.ID != again.ID || len(reset.Tokens) != 0 {
		t.Errorf("after the reset %+v, before %+v: want the same ID, another generation, no tokens", reset, again)
	}
	if _, err := svc.AuthenticateToken(ctx, token); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("token from before the reset: %v", err)
	}
	if _, err := svc.Authenticate(ctx, "ada@example.com", "tundra ladle orbit pepper"); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("old password: %v", err)
	}
	if _, err := svc.Authenticate(ctx, "ada@example.com", "violet spoon harbour kettle"); err != nil {
		t.Errorf("new password: %v", err)
	}

	if n, err := svc.SetRole(ctx, "ada@example.com", RoleAdmin); err != nil || n != 0 {
		t.Errorf("setting the same role: %d, %v", n, err)
	}
	same, _ := st.Get(ctx, "ada@example.com")
	if !same.SameAccount(reset) {
		t.Error("setting the role the user has made another generation")
	}
	if _, err := svc.SetRole(ctx, "ada@example.com", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	demoted, _ := st.Get(ctx, "ada@example.com")
	if demoted.SameAccount(reset) || demoted.Role != RoleReviewer {
		t.Errorf("after the role change %+v: want another generation", demoted)
	}
}

// TestTokenExpiryAndRevocation: a token works until it expires (by
// default DefaultTokenTTL after its creation, also for tokens stored
// without an expiry), and one revoked stops at once while the others
// keep working.
func TestTokenExpiryAndRevocation(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	st, err := OpenFile(filepath.Join(t.TempDir(), "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(st, testParams, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddUser(ctx, "ada@example.com", RoleReviewer, "tundra ladle orbit pepper"); err != nil {
		t.Fatal(err)
	}
	long, _ := svc.CreateToken(ctx, "ada@example.com")
	short, stored, err := svc.CreateTokenValidFor(ctx, "ada@example.com", 24*time.Hour)
	if err != nil || !stored.ExpiresAt.Equal(now.Add(24*time.Hour)) {
		t.Fatalf("CreateTokenValidFor: %+v %v", stored, err)
	}
	if _, _, err := svc.CreateTokenValidFor(ctx, "ada@example.com", MaxTokenTTL+time.Hour); err == nil {
		t.Error("a token for longer than MaxTokenTTL was created")
	}
	legacy, old := NewToken() // stored before tokens expired: no ExpiresAt
	old.CreatedAt = now
	if err := st.Update(ctx, "ada@example.com", func(u *User) error { u.Tokens = append(u.Tokens, old); return nil }); err != nil {
		t.Fatal(err)
	}
	works := func(token string) bool { _, err := svc.AuthenticateToken(ctx, token); return err == nil }
	if !works(long) || !works(short) || !works(legacy) {
		t.Fatal("new tokens refused")
	}
	now = now.Add(24 * time.Hour)
	if !works(long) || works(short) || !works(legacy) {
		t.Errorf("a day on: long %v, short %v, legacy %v; want only the short one expired", works(long), works(short), works(legacy))
	}
	now = now.Add(DefaultTokenTTL - 24*time.Hour)
	if works(long) || works(legacy) {
		t.Errorf("after DefaultTokenTTL: long %v, legacy %v; want both expired", works(long), works(legacy))
	}

	a, _ := svc.CreateToken(ctx, "ada@example.com")
	if u, _ := st.Get(ctx, "ada@example.com"); len(u.Tokens) != 1 {
		t.Errorf("%d tokens stored after a new one, want the expired ones dropped", len(u.Tokens))
	}
	b, storedB, _ := svc.CreateTokenValidFor(ctx, "ada@example.com", time.Hour)
	if err := svc.RevokeToken(ctx, "ada@example.com", storedB.ID+"…"); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	if works(b) || !works(a) {
		t.Errorf("after revoking b: a %v, b %v; want only a", works(a), works(b))
	}
	if err := svc.RevokeToken(ctx, "ada@example.com", storedB.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoking b again: %v, want ErrNotFound", err)
	}
}
