package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/oauth2"
)

// modulePath is this module's import path, looked up in the build info.
const modulePath = "github.com/dbplatform/platform-go"

// sender sends a request and returns its final response: after retries,
// and through the transport chain.
type sender func(*http.Request) (*http.Response, error)

// buildSender assembles the request path:
// retry (outermost) -> logging -> credentials (only for the API's host) -> base,
// the last three in one http.Client with the redirect guard.
// bearer, when not nil, is the transport of the token source: its base is
// set here.
func (c *config) buildSender(base *url.URL, sleep SleepFunc, bearer *tokenTransport) sender {
	rt := http.DefaultTransport
	var timeout time.Duration
	if c.httpClient != nil {
		timeout = c.httpClient.Timeout
		if c.httpClient.Transport != nil {
			rt = c.httpClient.Transport
		}
	}
	switch {
	case c.tokenID != "":
		rt = &hostGuard{host: base.Host, scheme: base.Scheme, authed: &ServiceTokenTransport{ID: c.tokenID, Token: c.token, Base: rt}, plain: rt}
	case bearer != nil:
		bearer.base = rt
		rt = &hostGuard{host: base.Host, scheme: base.Scheme, authed: bearer, plain: rt}
	}
	if c.logger != nil {
		rt = &logTransport{logger: c.logger, base: rt}
	}
	hc := &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: sameHostRedirect}
	if c.noRetries {
		return hc.Do
	}
	// One retrying client per kind of method, so that deciding whether an
	// attempt may be repeated needs nothing carried with the request.
	jitter := &jitterSource{}
	if c.jitter != nil {
		jitter.r = rand.New(c.jitter)
	}
	idempotent, other := c.retry.client(hc, sleep, jitter, true), c.retry.client(hc, sleep, jitter, false)
	return func(req *http.Request) (*http.Response, error) {
		rc := other
		if isIdempotent(req.Method) {
			rc = idempotent
		}
		rreq, err := retryablehttp.FromRequest(req)
		if err != nil {
			return nil, err
		}
		return rc.Do(rreq)
	}
}

// ServiceTokenTransport adds a service token's Authorization header to each
// request, on a clone: the caller's request is never modified. A request
// that already carries exactly this header is sent as it is. [NewClient]
// uses it for [WithServiceToken]; it is exported for callers that build their
// own http.Client.
type ServiceTokenTransport struct {
	// ID is the service token's ID.
	ID string
	// Token is the service token's secret.
	Token string
	// Base sends the request; http.DefaultTransport when nil.
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *ServiceTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if !t.carried(req.Header["Authorization"]) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", t.ID+":"+t.Token)
	}
	return base.RoundTrip(req)
}

// carried reports whether v, a request's Authorization values, is this
// token's header and nothing else.
func (t *ServiceTokenTransport) carried(v []string) bool {
	if len(v) != 1 {
		return false
	}
	h := v[0]
	return len(h) == len(t.ID)+1+len(t.Token) && h[len(t.ID)] == ':' &&
		strings.HasPrefix(h, t.ID) && strings.HasSuffix(h, t.Token)
}

// tokenTransport adds the Authorization header of a token source's
// current token to each request, on a clone, as x/oauth2's Transport does,
// except that the request's context bounds the wait for the token:
// TokenSource.Token takes no context, so it is called on a goroutine of
// its own, and a context that ends first ends the request with its error.
// The Token call (a stalled refresh) goes on, and the token it gets serves
// the next request. It notes the last few access tokens it sent, for
// [Client.redact].
type tokenTransport struct {
	src  oauth2.TokenSource
	base http.RoundTripper

	mu   sync.Mutex
	sent [4]string // the latest first
}

// note records access as the latest access token sent.
func (t *tokenTransport) note(access string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sent[0] != access {
		copy(t.sent[1:], t.sent[:])
		t.sent[0] = access
	}
}

// recent returns the access tokens sent lately.
func (t *tokenTransport) recent() [4]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.token(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper closes the body, even on errors
		}
		return nil, err
	}
	t.note(tok.AccessToken)
	req = req.Clone(req.Context())
	tok.SetAuthHeader(req)
	return t.base.RoundTrip(req)
}

// token gets the source's token, or ctx's error if ctx ends first.
func (t *tokenTransport) token(ctx context.Context) (*oauth2.Token, error) {
	if ctx.Done() == nil { // a context that never ends: no wait to bound
		return checkToken(t.src.Token())
	}
	type result struct {
		tok *oauth2.Token
		err error
	}
	got := make(chan result, 1) // the Token call may outlive the wait
	go func() {
		tok, err := t.src.Token()
		got <- result{tok, err}
	}()
	select {
	case r := <-got:
		return checkToken(r.tok, r.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkToken returns what a token source's Token returned, with an error
// for a nil token without one; either error is a *tokenSourceError.
func checkToken(tok *oauth2.Token, err error) (*oauth2.Token, error) {
	if err == nil && tok == nil {
		err = errors.New("platform: the token source returned no token")
	}
	if err != nil {
		return nil, &tokenSourceError{err}
	}
	return tok, nil
}

// tokenSourceError is the failure of a request's token source to give a
// token, which [RetryPolicy.checkRetry] tells from the request's own
// failures. Its text and what it unwraps to are the source's error's.
type tokenSourceError struct{ err error }

func (e *tokenSourceError) Error() string { return e.err.Error() }

func (e *tokenSourceError) Unwrap() error { return e.err }

// hostGuard sends credentials only to the API's own host, so that a request
// to another host (a redirect, or an absolute URL passed to Do) carries none,
// and only over https when the API's URL is https.
type hostGuard struct {
	host   string
	scheme string
	authed http.RoundTripper
	plain  http.RoundTripper
}

func (g *hostGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if !anonymous(req.Context()) && req.URL.Host == g.host && (req.URL.Scheme == g.scheme || req.URL.Scheme == "https") {
		return g.authed.RoundTrip(req)
	}
	return g.plain.RoundTrip(req)
}

// sameHostRedirect follows a redirect only within the host of the original
// request, and not from https to http; any other redirect is returned to the
// caller unfollowed.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if _, ok := req.Context().Value(signedFetchKey{}).(signedFetch); ok {
		return http.ErrUseLastResponse // see fetchSigned
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host || (via[0].URL.Scheme == "https" && req.URL.Scheme != "https") {
		return http.ErrUseLastResponse
	}
	return nil
}

// signedFetch marks the context of the two requests of fetchSigned: no
// redirect is followed automatically, and the second request (anon) carries
// no credentials, even to the API's own host.
type signedFetch struct{ anon bool }

type signedFetchKey struct{}

// anonymous reports whether ctx is that of a request sent without the
// client's credentials.
func anonymous(ctx context.Context) bool {
	f, _ := ctx.Value(signedFetchKey{}).(signedFetch)
	return f.anon
}

// fetchSigned gets an operation at path that answers with a redirect to a
// signed, short-lived address (a report's download): it decodes the
// redirect's JSON body, when it has one, into meta, then gets the address
// it points to and decodes that JSON body into v (a *[]byte takes the body
// as it is, for a file that is not JSON). The address carries its
// own authorization in its signature, and may be another host's (a storage
// service), so the second request carries none of the client's credentials,
// whatever its host; it is refused if it would go from https to http, and a
// redirect from it is not followed (it becomes an error) rather than
// leading the caller anywhere else.
func (c *Client) fetchSigned(ctx context.Context, path string, meta, v any) error {
	return c.redact(c.fetchSignedUnredacted(ctx, path, meta, v))
}

// fetchSignedUnredacted is fetchSigned before its error is redacted.
func (c *Client) fetchSignedUnredacted(ctx context.Context, path string, meta, v any) error {
	if c.logged {
		ctx = withAttempts(ctx)
	}
	req, err := c.newRequest(context.WithValue(ctx, signedFetchKey{}, signedFetch{}), http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	if c.auth != nil {
		req.Header["Authorization"] = c.auth
	}
	resp, err := c.send(req)
	if err != nil {
		return c.transportError(req, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect:
	default:
		if resp.StatusCode >= 300 {
			return newError(req, resp)
		}
		return fmt.Errorf("platform: %s %s: status %d, want a redirect to the download", req.Method, req.URL.Path, resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); meta != nil && mt == "application/json" {
		if err := decodeJSON(resp, meta); err != nil {
			return fmt.Errorf("platform: %s %s: decoding response: %w", req.Method, req.URL.Path, err)
		}
	}
	loc, err := resp.Location()
	if err != nil {
		return fmt.Errorf("platform: %s %s: a redirect without a usable Location", req.Method, req.URL.Path)
	}
	if loc.Scheme != "https" && (loc.Scheme != "http" || req.URL.Scheme == "https") {
		return fmt.Errorf("platform: %s %s: refusing to follow a redirect to a %s address", req.Method, req.URL.Path, loc.Scheme)
	}
	signed, err := c.newRequest(context.WithValue(ctx, signedFetchKey{}, signedFetch{anon: true}), http.MethodGet, loc.String(), nil)
	if err != nil {
		return err
	}
	_, err = c.do(signed, v, true)
	return err
}

// attempts is carried in a request's context, when the client logs, so
// that each log line knows its attempt number.
type attempts struct {
	n atomic.Int32
}

type attemptsKey struct{}

func withAttempts(ctx context.Context) context.Context {
	return context.WithValue(ctx, attemptsKey{}, new(attempts))
}

func attemptsFrom(ctx context.Context) *attempts {
	a, _ := ctx.Value(attemptsKey{}).(*attempts)
	return a
}

// logTransport writes one debug line per attempt.
type logTransport struct {
	logger *slog.Logger
	base   http.RoundTripper
}

func (t *logTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := 1
	if a := attemptsFrom(req.Context()); a != nil {
		n = int(a.n.Add(1))
	}
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	logAttempt(t.logger, req, status, n, time.Since(start), err)
	return resp, err
}

// userAgent is "[product ]platform-go/VERSION (GOVERSION; OS/ARCH)", with the
// version read from the build info.
func userAgent(product string) string {
	ua := fmt.Sprintf("platform-go/%s (%s; %s/%s)", moduleVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if product != "" {
		ua = product + " " + ua
	}
	return ua
}

// moduleVersion is this module's version in the running binary's build info,
// or "devel" when it is built from a checkout.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if info.Main.Path == modulePath && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	for _, dep := range info.Deps {
		if dep.Path == modulePath {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			if dep.Version != "" {
				return dep.Version
			}
		}
	}
	return "devel"
}
