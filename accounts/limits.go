package accounts

import (
	"context"
	"math"
	"sync"
	"time"
)

// Limiter limits how often one client (a key: an address, a network) may
// do one thing — sign in, present a token, register a candidate — with a
// token bucket per key: perMinute requests in a burst, and perMinute more
// each minute, spread evenly. Implementations are safe for concurrent
// use; the PostgreSQL one is shared by every web app on the database, so
// a client spreading its requests over them gets no more.
type Limiter interface {
	// Allow takes a request from key's bucket. When the bucket is empty
	// it reports false and how long until the next request is allowed.
	Allow(ctx context.Context, key string) (bool, time.Duration, error)
	// Exhausted reports, without taking a request, whether key's bucket
	// is empty, and then how long until it holds one again.
	Exhausted(ctx context.Context, key string) (time.Duration, bool, error)
}

// Bucket is the arithmetic of a token bucket that refills perMinute
// tokens a minute up to a burst of perMinute, shared by every Limiter.
type Bucket struct {
	// Burst is how many requests a full bucket holds.
	Burst float64
	// PerSecond is how many requests come back each second.
	PerSecond float64
}

// NewBucket returns the bucket of perMinute requests a minute.
func NewBucket(perMinute int) Bucket {
	return Bucket{Burst: float64(perMinute), PerSecond: float64(perMinute) / 60}
}

// Refill returns tokens held at last after elapsed more time.
func (b Bucket) Refill(tokens float64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return tokens
	}
	return min(b.Burst, tokens+elapsed.Seconds()*b.PerSecond)
}

// Wait is how long a bucket holding tokens (less than one) takes to hold
// one again.
func (b Bucket) Wait(tokens float64) time.Duration {
	return time.Duration(math.Ceil((1 - tokens) / b.PerSecond * float64(time.Second)))
}

// FullAfter is how long an emptied bucket takes to fill up: a bucket idle
// that long carries no information and may be dropped.
func (b Bucket) FullAfter() time.Duration {
	return time.Duration(math.Ceil(b.Burst / b.PerSecond * float64(time.Second)))
}

// MaxBuckets bounds the memory of a MemoryLimiter: past it, idle buckets
// are dropped first and then arbitrary ones.
const MaxBuckets = 10_000

// MemoryLimiter keeps its buckets in this process's memory: the embedded
// default for one web app. Buckets that have refilled completely carry no
// information and are dropped, so memory stays bounded by the number of
// recently active clients (and by MaxBuckets).
type MemoryLimiter struct {
	bucket Bucket
	now    func() time.Time

	mu        sync.Mutex
	buckets   map[string]*memoryBucket
	lastSweep time.Time
}

// memoryBucket is one key's bucket.
type memoryBucket struct {
	tokens float64
	last   time.Time
}

var _ Limiter = (*MemoryLimiter)(nil)

// NewMemoryLimiter returns a MemoryLimiter of perMinute requests a minute
// per key, reading the time from now (time.Now when nil).
func NewMemoryLimiter(perMinute int, now func() time.Time) *MemoryLimiter {
	if now == nil {
		now = time.Now
	}
	return &MemoryLimiter{bucket: NewBucket(perMinute), now: now, buckets: map[string]*memoryBucket{}}
}

// Allow implements Limiter; it never fails.
func (l *MemoryLimiter) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= MaxBuckets {
			for k := range l.buckets { // drop one arbitrary bucket
				delete(l.buckets, k)
				break
			}
		}
		b = &memoryBucket{tokens: l.bucket.Burst, last: now}
		l.buckets[key] = b
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	return false, l.bucket.Wait(b.tokens), nil
}

// Exhausted implements Limiter; it never fails.
func (l *MemoryLimiter) Exhausted(ctx context.Context, key string) (time.Duration, bool, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		return 0, false, nil
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		return 0, false, nil
	}
	return l.bucket.Wait(b.tokens), true, nil
}

func (l *MemoryLimiter) refill(b *memoryBucket, now time.Time) {
	if now.After(b.last) {
		b.tokens = l.bucket.Refill(b.tokens, now.Sub(b.last))
		b.last = now
	}
}

// sweep drops the buckets that have refilled completely, at most once a
// minute (or whenever the map is full).
func (l *MemoryLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute && len(l.buckets) < MaxBuckets {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		l.refill(b, now)
		if b.tokens >= l.bucket.Burst {
			delete(l.buckets, k)
		}
	}
}

// Len returns the number of buckets held.
func (l *MemoryLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
