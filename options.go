package platform

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// Option configures a [Client]. Options are order-independent: each records
// its setting and [NewClient] checks the whole set.
type Option func(*config) error

// config collects the options before NewClient builds the client.
type config struct {
	baseURL    string
	tokenID    string
	token      string
	tokenSrc   oauth2.TokenSource
	httpClient *http.Client
	retry      RetryPolicy
	retrySet   bool
	noRetries  bool
	userAgent  string
	logger     *slog.Logger
	sleep      SleepFunc
	jitter     rand.Source
}

// check reports combinations of options that contradict each other.
func (c *config) check() error {
	if c.tokenID != "" && c.tokenSrc != nil {
		return errors.New("platform: WithServiceToken and WithTokenSource both given; choose one credential")
	}
	if c.retrySet && c.noRetries {
		return errors.New("platform: WithRetryPolicy and WithoutRetries both given")
	}
	return nil
}

// WithBaseURL sets the API's address, for a fake or a proxy. The URL must be
// absolute http or https; operation paths ("v1/...") are resolved below it,
// and a URL that ends in the version ("https://host/v1") means its parent.
func WithBaseURL(raw string) Option {
	return func(c *config) error {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("platform: WithBaseURL: %w", err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("platform: WithBaseURL: %q is not an absolute http(s) URL", raw)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("platform: WithBaseURL: %q must not have a query or fragment", raw)
		}
		c.baseURL = raw
		return nil
	}
}

// WithServiceToken authenticates every request with a service token: its ID
// and its secret, sent as "Authorization: ID:TOKEN".
func WithServiceToken(id, token string) Option {
	return func(c *config) error {
		if id == "" || token == "" {
			return errors.New("platform: WithServiceToken: the token ID and the token must not be empty")
		}
		if strings.ContainsAny(id, ":\r\n") || strings.ContainsAny(token, "\r\n") {
			return errors.New("platform: WithServiceToken: the token ID must not contain ':' and neither may contain a line break")
		}
		c.tokenID, c.token = id, token
		return nil
	}
}

// WithTokenSource authenticates every request with OAuth 2.0 access tokens
// from ts ("Authorization: Bearer ..."); package oauth builds one that
// refreshes and saves tokens. A call's context bounds its wait for a token:
// when ts.Token stalls (a refresh the token endpoint does not answer), the
// call ends with the context's error as soon as the context ends, while
// that Token call goes on and its token serves later calls.
func WithTokenSource(ts oauth2.TokenSource) Option {
	return func(c *config) error {
		if ts == nil {
			return errors.New("platform: WithTokenSource: nil token source")
		}
		c.tokenSrc = ts
		return nil
	}
}

// WithHTTPClient sends requests through hc's transport and keeps its
// timeout, which bounds each attempt (a call that retries may take longer
// in all; an attempt that times out is not retried). The client's own
// credentials, retries and redirect guard are layered above that
// transport; hc's Jar and CheckRedirect are not used, and hc itself is not
// modified.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("platform: WithHTTPClient: nil client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithRetryPolicy replaces [DefaultRetryPolicy].
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) error {
		if err := p.validate(); err != nil {
			return err
		}
		c.retry, c.retrySet = p, true
		return nil
	}
}

// WithoutRetries sends every request once.
func WithoutRetries() Option {
	return func(c *config) error {
		c.noRetries = true
		return nil
	}
}

// WithUserAgent puts product (such as "my-tool/1.2") in front of the SDK's
// own User-Agent.
func WithUserAgent(product string) Option {
	return func(c *config) error {
		if strings.TrimSpace(product) == "" || strings.ContainsAny(product, "\r\n") {
			return fmt.Errorf("platform: WithUserAgent: %q is not a valid product token", product)
		}
		c.userAgent = product
		return nil
	}
}

// WithLogger logs one debug line per HTTP exchange (method, path without
// its query, status, attempt, duration, and the error of a failed one) to
// l; a redirect the client follows counts as another attempt. Without it
// the client logs nothing. Credentials and query strings are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("platform: WithLogger: nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithJitterSource draws the random part of retry backoff (see
// [RetryPolicy]) from src instead of the global source, so that a run that
// retries waits the same each time: the fake's clients take a source seeded
// from the fake's seed, so that its virtual clock, and the timestamps it
// gives, repeat from run to run. The client uses src alone, under a lock.
func WithJitterSource(src rand.Source) Option {
	return func(c *config) error {
		if src == nil {
			return errors.New("platform: WithJitterSource: nil source")
		}
		c.jitter = src
		return nil
	}
}

// WithSleep makes waiters and retry backoff wait through sleep instead of the
// wall clock. The fake's client uses it to advance the fake's virtual clock,
// so code under test waits without sleeping; a waiter's wait between polls
// may end early, retry backoff may not.
func WithSleep(sleep SleepFunc) Option {
	return func(c *config) error {
		if sleep == nil {
			return errors.New("platform: WithSleep: nil function")
		}
		c.sleep = sleep
		return nil
	}
}
