package web

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// maxBuckets bounds the memory of a rate limiter: past it, idle buckets are
// dropped first and then arbitrary ones.
const maxBuckets = 10_000

// rateLimiter is a per-client token bucket: each client address may make
// perMinute requests in a burst, and gets perMinute more each minute,
// spread evenly. Buckets that have refilled completely carry no
// information and are dropped, so memory stays bounded by the number of
// recently active clients (and by maxBuckets).
type rateLimiter struct {
	burst     float64
	perSecond float64
	now       func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(perMinute int, now func() time.Time) *rateLimiter {
	return &rateLimiter{
		burst:     float64(perMinute),
		perSecond: float64(perMinute) / 60,
		now:       now,
		buckets:   map[string]*bucket{},
	}
}

// allow takes a token from key's bucket. When the bucket is empty it
// returns false and how long until the next token.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			for k := range l.buckets { // drop one arbitrary bucket
				delete(l.buckets, k)
				break
			}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.refill(now, l)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, l.wait(b)
}

// exhausted reports, without taking a token, whether key's bucket is
// empty, and then how long until its next token.
func (l *rateLimiter) exhausted(key string) (time.Duration, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		return 0, false
	}
	b.refill(now, l)
	if b.tokens >= 1 {
		return 0, false
	}
	return l.wait(b), true
}

// wait is how long until b holds a token again.
func (l *rateLimiter) wait(b *bucket) time.Duration {
	return time.Duration(math.Ceil((1 - b.tokens) / l.perSecond * float64(time.Second)))
}

func (b *bucket) refill(now time.Time, l *rateLimiter) {
	if el := now.Sub(b.last); el > 0 {
		b.tokens = min(l.burst, b.tokens+el.Seconds()*l.perSecond)
		b.last = now
	}
}

// sweep drops the buckets that have refilled completely, at most once a
// minute (or whenever the map is full).
func (l *rateLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute && len(l.buckets) < maxBuckets {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		b.refill(now, l)
		if b.tokens >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// size returns the number of buckets held.
func (l *rateLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// clientKey identifies the client of r for rate limiting: its IP address,
// or its /64 network for IPv6 (one host usually holds a whole /64). The
// address is the connection's peer: behind a reverse proxy every client
// shares the proxy's bucket, so put the limit in the proxy there.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

// limited answers 429 with Retry-After when the client has used up its
// requests, and otherwise passes the request on.
func (s *site) limited(l *rateLimiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := l.allow(clientKey(r))
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		secs := retryAfter(w, wait)
		s.log.Warn("web: rate limit reached", "path", r.URL.Path, "client", clientKey(r))
		msg := "Too many requests from your address. Wait " + secs + " seconds and try again."
		if wantsJSON(r) {
			s.writeJSON(w, http.StatusTooManyRequests, apiError{Error: msg})
			return
		}
		s.renderMessage(w, r, http.StatusTooManyRequests, "Too many requests", msg)
	})
}

// retryAfter sets w's Retry-After to wait in whole seconds (at least one)
// and returns them, for the message that goes with it.
func retryAfter(w http.ResponseWriter, wait time.Duration) string {
	secs := strconv.Itoa(max(int(math.Ceil(wait.Seconds())), 1))
	w.Header().Set("Retry-After", secs)
	return secs
}
