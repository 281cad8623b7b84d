package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/accounts"
	apostgres "github.com/viva-interviews/viva/accounts/postgres"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/testrig/pgtest"
	"github.com/viva-interviews/viva/web"
)

// TestBrowserAcrossTwoWebApps: two web apps on one PostgreSQL database
// behind a round-robin load balancer, used in a real browser as a
// recruiter would. Pages reach the two apps in turn: the recruiter signs in
// once, registers a candidate and finds the invitation on both, and once
// signed out is asked to sign in by both.
func TestBrowserAcrossTwoWebApps(t *testing.T) {
	dbURL := pgtest.Database(t)
	app := func(first bool) http.Handler {
		store, err := postgres.Open(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(store.Close)
		db, err := apostgres.Open(context.Background(), store, nil)
		if err != nil {
			t.Fatal(err)
		}
		users, err := accounts.NewService(db.Store(), accounts.Params{Time: 1, MemoryKiB: 64, Threads: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := web.New(web.Options{Store: store, Accounts: users, Logger: testLogger(t),
			// No candidate joins a room here: the address is only written into links.
			LiveKitURL: "ws://127.0.0.1:7880", APIKey: "devkey", APISecret: "secret-of-at-least-32-characters!!",
			Sessions: db.Sessions(accounts.SessionLimits{}),
			Limiter:  func(name string, perMinute int) accounts.Limiter { return db.Limiter(name, perMinute) }})
		if err != nil {
			t.Fatal(err)
		}
		if first {
			if _, err := users.AddUser(t.Context(), e2eRecruiter, accounts.RoleRecruiter, e2ePassword); err != nil {
				t.Fatal(err)
			}
		}
		return srv.Handler()
	}
	apps := []http.Handler{app(true), app(false)}
	var (
		next   atomic.Int64
		mu     sync.Mutex
		served = map[int][]string{} // app → the pages (not assets) it served
	)
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Pages take turns strictly, so two loads in a row reach both apps;
		// scripts, styles and images go to either.
		i := 0
		if !strings.HasPrefix(r.URL.Path, "/static/") && !strings.HasPrefix(r.URL.Path, "/brand") {
			i = int(next.Add(1) % 2)
			mu.Lock()
			served[i] = append(served[i], r.Method+" "+r.URL.Path)
			mu.Unlock()
		}
		apps[i].ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)

	b := newBrowser(t)
	var title, list1, list2 string
	b.step(t, "sign in and register a candidate",
		signIn(lb.URL+"/", e2eRecruiter),
		chromedp.WaitVisible(`#name`, chromedp.ByID),
		chromedp.SendKeys(`#name`, "Grace Hopper", chromedp.ByID),
		chromedp.SendKeys(`#role`, "Compiler engineer", chromedp.ByID),
		chromedp.Click(`main form button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#join-url`, chromedp.ByID),
		chromedp.Text(`main h1`, &title, chromedp.ByQuery),
	)
	if !strings.Contains(title, "Grace Hopper") {
		t.Fatalf("after registering: %q, want the invitation of Grace Hopper", title)
	}
	b.step(t, "the invitations, twice, whichever app answers",
		chromedp.Navigate(lb.URL+"/invitations"),
		chromedp.WaitVisible(`main table`, chromedp.ByQuery),
		chromedp.Text(`main`, &list1, chromedp.ByQuery),
		chromedp.Navigate(lb.URL+"/invitations"),
		chromedp.WaitVisible(`main table`, chromedp.ByQuery),
		chromedp.Text(`main`, &list2, chromedp.ByQuery),
	)
	for i, l := range []string{list1, list2} {
		if !strings.Contains(l, "Grace Hopper") {
			t.Errorf("invitations, load %d: Grace Hopper missing", i+1)
		}
	}
	mu.Lock()
	for i := range apps {
		if len(served[i]) == 0 {
			t.Errorf("app %d served no page: the test did not spread the pages (%v)", i+1, served)
		}
	}
	mu.Unlock()

	var after1, after2 string
	b.step(t, "sign out, then each app asks to sign in",
		chromedp.Click(`form[action="/review/logout"] button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#password`, chromedp.ByID),
		chromedp.Navigate(lb.URL+"/invitations"),
		chromedp.WaitVisible(`#password`, chromedp.ByID),
		chromedp.Location(&after1),
		chromedp.Navigate(lb.URL+"/invitations"),
		chromedp.WaitVisible(`#password`, chromedp.ByID),
		chromedp.Location(&after2),
	)
	for i, loc := range []string{after1, after2} {
		if !strings.Contains(loc, "login") {
			t.Errorf("after signing out, load %d ended at %q, want the sign-in page", i+1, loc)
		}
	}
	b.checkClean(t)
}
