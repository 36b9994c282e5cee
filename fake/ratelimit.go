package fake

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// rateWindow is the span the rate limit counts requests over.
const rateWindow = time.Minute

// LiveRateLimit is the live service's limit: requests per minute per
// credential.
const LiveRateLimit = 600

// WithRateLimit answers a credential's requests beyond perMinute in any
// minute of the server's clock with 429 rate_limited and a Retry-After
// header saying when the oldest counted request leaves the window. The live
// service allows [LiveRateLimit]; the fake enforces no limit unless this
// option is given. On the virtual clock, time only moves when the test
// moves it, so the clients of [Server.Client] wait out a 429 by advancing it.
func WithRateLimit(perMinute int) Option {
	return func(c *config) error {
		if perMinute < 1 {
			return errors.New("fake: WithRateLimit: the limit must be at least 1 request a minute")
		}
		c.rateLimit = perMinute
		return nil
	}
}

// rateLimiter counts each credential's requests over the last minute of the
// server's clock (a sliding window).
type rateLimiter struct {
	mu    sync.Mutex
	limit int                    // 0: no limit
	seen  map[string][]time.Time // credential -> times of counted requests, oldest first
}

// allow counts a request of the credential who at now, or refuses it with
// a 429 when the credential has used up its minute. Without a limit it
// counts nothing, so it does not name the credential either.
func (l *rateLimiter) allow(who *principal, now time.Time) error {
	if l.limit == 0 {
		return nil
	}
	key := who.rateKey()
	if key == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	times := l.seen[key]
	cut := 0
	for cut < len(times) && !times[cut].After(now.Add(-rateWindow)) {
		cut++
	}
	times = times[cut:]
	if len(times) >= l.limit {
		l.seen[key] = times
		wait := times[0].Add(rateWindow).Sub(now)
		secs := int((wait + time.Second - 1) / time.Second)
		return &apiError{
			status:     http.StatusTooManyRequests,
			code:       "rate_limited",
			message:    fmt.Sprintf("rate limit of %d request(s) a minute reached; retry in %d s", l.limit, secs),
			retryAfter: max(secs, 1),
		}
	}
	if l.seen == nil {
		l.seen = map[string][]time.Time{}
	}
	l.seen[key] = append(times, now)
	return nil
}

// clear forgets every count: they were made on a clock that Reset or
// Restore has replaced.
func (l *rateLimiter) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = nil
}

// rateKey names the credential a request counts against.
func (p *principal) rateKey() string {
	switch {
	case p == nil:
		return ""
	case p.token != nil:
		return "token:" + p.token.id
	case p.oauth != nil:
		return "oauth:" + p.oauth.id
	}
	return ""
}
