package relay

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// buckets are token buckets by key: n tokens every period, with a burst of
// n.
type buckets[K comparable] struct {
	n      int
	period time.Duration
	mu     sync.Mutex // guards m
	m      map[K]*rate.Limiter
}

func newBuckets[K comparable](perMinute int) *buckets[K] {
	return newBucketsPer[K](perMinute, time.Minute)
}

func newBucketsPer[K comparable](n int, period time.Duration) *buckets[K] {
	return &buckets[K]{n: n, period: period, m: make(map[K]*rate.Limiter)}
}

// reserve takes a token for key at now. It returns nil and the number of
// seconds to wait when none is left; otherwise the reservation, which the
// caller may cancel to give the token back.
func (l *buckets[K]) reserve(key K, now time.Time) (*rate.Reservation, int) {
	return l.reserveN(key, now, 1)
}

// reserveN is reserve for n tokens at once, all or none; the wait is until
// the bucket holds n. n must not exceed the burst, or the wait never ends.
func (l *buckets[K]) reserveN(key K, now time.Time, n int) (*rate.Reservation, int) {
	l.mu.Lock()
	b := l.m[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(float64(l.n)/l.period.Seconds()), l.n)
		l.m[key] = b
	}
	l.mu.Unlock()
	r := b.ReserveN(now, n)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return nil, int(math.Ceil(d.Seconds()))
	}
	return r, 0
}

// sweep forgets buckets that are full again: they hold no state worth keeping.
func (l *buckets[K]) sweep(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, b := range l.m {
		if b.TokensAt(now) >= float64(l.n) {
			delete(l.m, k)
		}
	}
}

// clientKey is the address a request is throttled by: the peer's address,
// or, when the peer is a trusted proxy, the nearest address in
// X-Forwarded-For that is not one (docs/operations.md). IPv6 addresses
// count by their /64, which one client usually has whole.
func (s *Server) clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if s.trusted(addr) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // a malformed hop: trust nothing before it
			}
			addr = a
			if !s.trusted(a) {
				break
			}
		}
	}
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// throttleAuth takes a login or registration attempt from the request's
// address and, for a login, from the username, before any password is
// hashed.
func (s *Server) throttleAuth(r *http.Request, username string) error {
	now := s.now()
	byAddr, retry := s.authLimits.reserve(s.clientKey(r), now)
	if byAddr == nil {
		return tooManyAttempts(retry)
	}
	if username != "" {
		if byUser, retry := s.userLimits.reserve(username, now); byUser == nil {
			byAddr.CancelAt(now) // refused attempts do not count twice
			return tooManyAttempts(retry)
		}
	}
	return nil
}
