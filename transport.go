package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// modulePath is this module's import path, looked up in the build info.
const modulePath = "github.com/dbplatform/platform-go"

// buildHTTPClient assembles the transport chain:
// retry (outermost) -> logging -> credentials (only for the API's host) -> base.
func (c *config) buildHTTPClient(base *url.URL, sleep SleepFunc) *http.Client {
	var rt http.RoundTripper = http.DefaultTransport
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
	case c.tokenSrc != nil:
		rt = &hostGuard{host: base.Host, scheme: base.Scheme, authed: tokenSourceTransport(c.tokenSrc, rt), plain: rt}
	}
	if c.logger != nil {
		rt = &logTransport{logger: c.logger, base: rt}
	}
	inner := &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: sameHostRedirect}
	if c.noRetries {
		return inner
	}
	// The outer client needs the redirect guard too: a redirect to another
	// host that inner returns unfollowed would otherwise be followed here.
	return &http.Client{Transport: &retryablehttp.RoundTripper{Client: c.retry.client(inner, sleep)}, CheckRedirect: sameHostRedirect}
}

// ServiceTokenTransport adds a service token's Authorization header to each
// request, on a clone: the caller's request is never modified. [NewClient]
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
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", t.ID+":"+t.Token)
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

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
	if req.URL.Host == g.host && (req.URL.Scheme == g.scheme || req.URL.Scheme == "https") {
		return g.authed.RoundTrip(req)
	}
	return g.plain.RoundTrip(req)
}

// sameHostRedirect follows a redirect only within the host of the original
// request, and not from https to http; any other redirect is returned to the
// caller unfollowed.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host || (via[0].URL.Scheme == "https" && req.URL.Scheme != "https") {
		return http.ErrUseLastResponse
	}
	return nil
}

// attempts is carried in a request's context so that the retry policy knows
// the method and the log line knows the attempt number.
type attempts struct {
	method string
	n      atomic.Int32
}

type attemptsKey struct{}

func withAttempts(ctx context.Context, method string) context.Context {
	return context.WithValue(ctx, attemptsKey{}, &attempts{method: method})
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
