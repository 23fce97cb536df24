package relay

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// rateLimits is the per-account token bucket on accepted envelopes: perMinute
// tokens a minute, with a burst of the same size.
type rateLimits struct {
	perMinute int
	mu        sync.Mutex // guards buckets
	buckets   map[int64]*rate.Limiter
}

func newRateLimits(perMinute int) *rateLimits {
	return &rateLimits{perMinute: perMinute, buckets: make(map[int64]*rate.Limiter)}
}

// reserve takes a token for account at now. It returns nil and the number of
// seconds to wait when none is left; otherwise the reservation, which the
// caller cancels if the envelope is not stored after all.
func (l *rateLimits) reserve(account int64, now time.Time) (*rate.Reservation, int) {
	l.mu.Lock()
	b := l.buckets[account]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.buckets[account] = b
	}
	l.mu.Unlock()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return nil, int(math.Ceil(d.Seconds()))
	}
	return r, 0
}

// sweep forgets buckets that are full again: they hold no state worth keeping.
func (l *rateLimits) sweep(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.perMinute) {
			delete(l.buckets, k)
		}
	}
}
