package accounts_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/accounts/storetest"
)

// TestConformance runs the backends' suite on the embedded defaults: the
// users file (each handle another FileStore on it, as another process
// has), sessions and limits in memory (one process: every handle is the
// same).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		path := filepath.Join(t.TempDir(), "users.json")
		var sessions *accounts.MemorySessions
		limiters := map[string]*accounts.MemoryLimiter{}
		return storetest.Backend{
			Store: func() accounts.Store {
				s, err := accounts.OpenFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			Sessions: func(limits accounts.SessionLimits, now func() time.Time) accounts.Sessions {
				if sessions == nil {
					sessions = accounts.NewMemorySessions(limits, now)
				}
				return sessions
			},
			Limiter: func(name string, perMinute int, now func() time.Time) accounts.Limiter {
				if limiters[name] == nil {
					limiters[name] = accounts.NewMemoryLimiter(perMinute, now)
				}
				return limiters[name]
			},
		}
	})
}
