package web

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/viva-interviews/viva/accounts"
)

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
// requests, and otherwise passes the request on. When the limit cannot be
// read (its database does not answer) it answers 503: nothing limited
// runs unchecked.
func (s *site) limited(l accounts.Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait, err := l.Allow(r.Context(), clientKey(r))
		if err != nil {
			s.log.Error("web: reading a rate limit", "path", r.URL.Path, "err", err)
			retryAfter(w, limitUnreadableRetry)
			msg := "The server cannot check its request limits right now. Try again in a few seconds."
			if wantsJSON(r) {
				s.writeJSON(w, http.StatusServiceUnavailable, apiError{Error: msg})
				return
			}
			s.renderMessage(w, r, http.StatusServiceUnavailable, "Try again shortly", msg)
			return
		}
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

// limitUnreadableRetry is the Retry-After of a request refused because
// its rate limit could not be read.
const limitUnreadableRetry = 5 * time.Second

// retryAfter sets w's Retry-After to wait in whole seconds (at least one)
// and returns them, for the message that goes with it.
func retryAfter(w http.ResponseWriter, wait time.Duration) string {
	secs := strconv.Itoa(max(int(math.Ceil(wait.Seconds())), 1))
	w.Header().Set("Retry-After", secs)
	return secs
}
