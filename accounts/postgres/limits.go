package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viva-interviews/viva/accounts"
)

// Limiter keeps token buckets in the database; it implements
// accounts.Limiter for every web app sharing it. Its buckets are rows
// named after the limiter, so limiters of different names share a table
// and not their counts.
type Limiter struct {
	d      *DB
	name   string
	bucket accounts.Bucket

	mu        sync.Mutex
	lastSweep time.Time
}

var _ accounts.Limiter = (*Limiter)(nil)

// Limiter returns the limiter called name (such as "login") of perMinute
// requests a minute per key.
func (d *DB) Limiter(name string, perMinute int) *Limiter {
	return &Limiter{d: d, name: name, bucket: accounts.NewBucket(perMinute)}
}

// refillSQL refills a key's bucket (creating it full) up to the time $3
// and returns what it holds: $2 is the burst, $4 the tokens a second.
// Concurrent refills are safe: the second sees the first's time.
const refillSQL = `INSERT INTO accounts_rate_buckets AS b (key, tokens, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (key) DO UPDATE SET
	tokens = least($2, b.tokens + greatest(0, extract(epoch FROM $3 - b.updated_at)) * $4),
	updated_at = greatest(b.updated_at, $3)
RETURNING tokens`

// Allow implements accounts.Limiter: the bucket is refilled, then one
// token taken only if it holds one, each in one statement, so requests
// on any number of processes never take more than the bucket holds.
func (l *Limiter) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	now := l.d.now()
	ctx, cancel := opContext(ctx)
	defer cancel()
	l.sweep(ctx, now)
	k := l.name + ":" + key
	var tokens float64
	if err := l.d.pool.QueryRow(ctx, refillSQL, k, l.bucket.Burst, now, l.bucket.PerSecond).Scan(&tokens); err != nil {
		return false, 0, l.d.fail("rate limit "+l.name, err)
	}
	err := l.d.pool.QueryRow(ctx, `UPDATE accounts_rate_buckets SET tokens = tokens - 1
		WHERE key = $1 AND tokens >= 1 RETURNING tokens`, k).Scan(&tokens)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, l.bucket.Wait(tokens), nil
	case err != nil:
		return false, 0, l.d.fail("rate limit "+l.name, err)
	}
	return true, 0, nil
}

// Exhausted implements accounts.Limiter; it writes nothing.
func (l *Limiter) Exhausted(ctx context.Context, key string) (time.Duration, bool, error) {
	now := l.d.now()
	ctx, cancel := opContext(ctx)
	defer cancel()
	var tokens float64
	var at time.Time
	err := l.d.pool.QueryRow(ctx, "SELECT tokens, updated_at FROM accounts_rate_buckets WHERE key = $1",
		l.name+":"+key).Scan(&tokens, &at)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, l.d.fail("rate limit "+l.name, err)
	}
	if tokens = l.bucket.Refill(tokens, now.Sub(at)); tokens >= 1 {
		return 0, false, nil
	}
	return l.bucket.Wait(tokens), true, nil
}

// sweep drops, at most once a minute per limiter, the buckets of every
// limiter idle long enough to have refilled completely: they carry no
// information, so the table holds only recently active clients.
func (l *Limiter) sweep(ctx context.Context, now time.Time) {
	l.mu.Lock()
	due := now.Sub(l.lastSweep) >= time.Minute
	if due {
		l.lastSweep = now
	}
	l.mu.Unlock()
	if !due {
		return
	}
	// A bucket of this limiter full again; other limiters' full buckets
	// go with their own sweeps.
	_, _ = l.d.pool.Exec(ctx, `DELETE FROM accounts_rate_buckets WHERE key LIKE $1 AND updated_at < $2`,
		likePrefix(l.name+":"), now.Add(-l.bucket.FullAfter()))
}

// likePrefix is the LIKE pattern of the strings starting with p.
func likePrefix(p string) string {
	out := make([]byte, 0, len(p)+1)
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '%' || c == '_' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, p[i])
	}
	return string(append(out, '%'))
}

// Len returns how many buckets the limiter holds.
func (l *Limiter) Len(ctx context.Context) (int, error) {
	var n int
	err := l.d.pool.QueryRow(ctx, "SELECT count(*) FROM accounts_rate_buckets WHERE key LIKE $1", likePrefix(l.name+":")).Scan(&n)
	if err != nil {
		return 0, l.d.fail("counting rate limit buckets", err)
	}
	return n, nil
}
