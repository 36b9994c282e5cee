package platform

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy says when and how often a failed request is sent again.
//
// 429 and 503 are retried for every method: the server says it did not act.
// Network errors and 500, 502 and 504 are retried only for GET, HEAD, PUT,
// DELETE and OPTIONS, so a POST or PATCH is never repeated after the server
// may have acted on it. A token source's failure to give an OAuth token is
// retried only when it could not reach the token endpoint (a network
// error): a refresh the token endpoint refused, or the source's own error
// (such as package oauth's ErrNoClientSecret), is returned at once. Nor is
// an attempt retried that ran out of its context's time, nor an error that
// another attempt would meet again: too many redirects, a redirect to an
// address that cannot be parsed or whose scheme is not http(s), an invalid
// header value, an untrusted TLS certificate. The first retry waits
// MinWait; each later wait is drawn uniformly between MinWait and a
// ceiling that doubles from MinWait up to MaxWait (so a MinWait of 0
// retries at once, every time). A Retry-After header sets the wait
// instead: on a 429 or 503 that asks for
// more than MaxRetryAfter, the error is returned at once (with
// [Error.RetryAfter] set) rather than holding the caller that long; on a
// 500, 502 or 504 the wait is cut to MaxRetryAfter.
type RetryPolicy struct {
	// MaxRetries is how many times a request may be repeated (0 to 10).
	MaxRetries int
	// MinWait and MaxWait bound the backoff between attempts.
	MinWait, MaxWait time.Duration
	// MaxRetryAfter is the longest Retry-After waited out: a longer one ends
	// the retries of a 429 or 503 at once, and is cut to MaxRetryAfter for
	// the other statuses.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy a client uses unless told otherwise:
// 4 retries, waits from 250ms to 8s, Retry-After honoured up to 60s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 4, MinWait: 250 * time.Millisecond, MaxWait: 8 * time.Second, MaxRetryAfter: 60 * time.Second}
}

func (p RetryPolicy) validate() error {
	switch {
	case p.MaxRetries < 0 || p.MaxRetries > 10:
		return fmt.Errorf("platform: RetryPolicy.MaxRetries %d is outside 0..10", p.MaxRetries)
	case p.MinWait < 0 || p.MaxWait < 0 || p.MaxRetryAfter < 0:
		return errors.New("platform: RetryPolicy waits must not be negative")
	case p.MaxWait < p.MinWait:
		return fmt.Errorf("platform: RetryPolicy.MaxWait %s is less than MinWait %s", p.MaxWait, p.MinWait)
	}
	return nil
}

// client builds the go-retryablehttp client that applies the policy over
// inner to requests whose method is idempotent or not. Waits go through
// sleep when it is not the wall clock, so a virtual clock sees them; their
// jitter is drawn from jitter.
func (p RetryPolicy) client(inner *http.Client, sleep SleepFunc, jitter *jitterSource, idempotent bool) *retryablehttp.Client {
	rc := &retryablehttp.Client{
		HTTPClient:   inner,
		RetryMax:     p.MaxRetries,
		RetryWaitMin: p.MinWait,
		RetryWaitMax: p.MaxWait,
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			return p.checkRetry(ctx, resp, err, idempotent)
		},
		ErrorHandler: passthroughError,
	}
	rc.Backoff = func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		d := p.backoff(n, resp, jitter)
		if sleep == nil {
			return d
		}
		ctx := context.Background()
		if resp != nil && resp.Request != nil {
			ctx = resp.Request.Context()
		}
		_ = sleep(ctx, d) // a cancelled context is seen by retryablehttp at once
		return 0
	}
	return rc
}

// passthroughError is retryablehttp.PassthroughErrorHandler (the last
// response or error goes back unchanged, so that a final 503 still decodes
// into an *Error) except that a response never comes with an error: that
// happens when the context ends as a response arrives, and net/http would
// drop such a response unclosed and complain on the standard logger.
func passthroughError(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil && resp != nil {
		_ = resp.Body.Close()
		return nil, err
	}
	return resp, err
}

// checkRetry decides whether an attempt's outcome is worth another one, for
// a request whose method is idempotent or not.
func (p RetryPolicy) checkRetry(ctx context.Context, resp *http.Response, err error, idempotent bool) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		// The token source gave no token. Only a failure to reach the token
		// endpoint may mend; a refusal (a revoked grant, a rotated refresh
		// token: an *oauth2.RetrieveError) or the source's own error (a
		// public client that cannot refresh) gets the same answer again.
		var source *tokenSourceError
		if errors.As(err, &source) {
			var netErr net.Error
			return idempotent && errors.As(source.err, &netErr) && !permanent(ctx, source.err), nil
		}
		if permanent(ctx, err) {
			return false, nil
		}
		return idempotent && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded), nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if d, ok := retryAfter(resp); ok && d > p.MaxRetryAfter {
			return false, nil
		}
		return true, nil
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return idempotent, nil
	}
	return false, nil
}

// permanent reports whether err, an attempt's failure to get an answer, is
// one that sending again cannot mend: the redirect limit, a redirect to an
// unsupported scheme, an invalid header value, an untrusted TLS
// certificate, as go-retryablehttp's DefaultRetryPolicy classifies them,
// and a redirect whose Location net/http cannot parse (an error it gives
// no type, so its text is matched).
func permanent(ctx context.Context, err error) bool {
	if retry, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, err); !retry {
		return true
	}
	var uerr *url.Error
	return errors.As(err, &uerr) && strings.HasPrefix(uerr.Err.Error(), "failed to parse Location header")
}

// backoff is the wait before attempt n+1: Retry-After when the server gave
// one, otherwise an exponential wait with full jitter drawn from jitter.
func (p RetryPolicy) backoff(n int, resp *http.Response, jitter *jitterSource) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp); ok {
			return min(d, p.MaxRetryAfter)
		}
	}
	// The ceiling doubles from MinWait (a MinWait of 0 stays 0: retry at
	// once) and stops at MaxWait, without overflowing on the way.
	ceil := p.MaxWait
	if n < 62 && p.MinWait <= p.MaxWait>>n {
		ceil = p.MinWait << n
	}
	if ceil <= p.MinWait {
		return p.MinWait
	}
	return p.MinWait + jitter.n(ceil-p.MinWait)
}

// jitterSource draws the jitter of retry backoff: from the global source,
// or from the one [WithJitterSource] gave, which it guards (a rand.Source
// is not safe for concurrent use).
type jitterSource struct {
	mu sync.Mutex
	r  *rand.Rand // nil: the global source
}

// n returns a duration in [0, d).
func (j *jitterSource) n(d time.Duration) time.Duration {
	if j == nil || j.r == nil {
		return rand.N(d)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return time.Duration(j.r.Int64N(int64(d)))
}

// isIdempotent reports whether a method may be sent again after a failure
// the server may have acted on.
func isIdempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// maxRetryAfterSeconds is the longest Retry-After, in seconds, that a
// time.Duration holds.
const maxRetryAfterSeconds = uint64(math.MaxInt64 / int64(time.Second))

// retryAfter reads a Retry-After header given in seconds or as an HTTP date.
// A number of seconds too large for a time.Duration is read as the longest
// one, not wrapped around into a short or negative wait.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || s > maxRetryAfterSeconds {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
