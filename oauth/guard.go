package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"

	redactpkg "github.com/dbplatform/platform-go/internal/redact"
)

// Redacted stands, in the text of an error of this package, for a value
// the request sent in its form (the client secret, a code, a refresh
// token, a revoked token, a device code) that the server echoed back.
const Redacted = redactpkg.Marker

// noRedirectClient returns the *http.Client that sends this package's
// requests to the token, device and revocation endpoints: a copy of the
// one stored under [oauth2.HTTPClient] in ctx, or of http.DefaultClient,
// keeping its transport, timeout and jar, that follows no redirect. A 307
// or 308 would send the form (client secret, code, refresh token) again to
// whatever host its Location names: the redirect is returned instead, and
// becomes an error. The caller's client is not modified.
func noRedirectClient(ctx context.Context) *http.Client {
	hc := http.DefaultClient
	if c, ok := ctx.Value(oauth2.HTTPClient).(*http.Client); ok && c != nil {
		hc = c
	}
	noFollow := *hc
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &noFollow
}

// withoutRedirects returns ctx with [noRedirectClient] stored under
// [oauth2.HTTPClient], for the requests x/oauth2 sends.
func withoutRedirects(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, noRedirectClient(ctx))
}

// redact keeps secrets, the values a request sent in its form, out of
// err's text, as they are and form-encoded: an *oauth2.RetrieveError in
// err's chain has them replaced by [Redacted] in its description, URI and
// body, and an error whose text still holds one is wrapped in an error
// whose text has them replaced (it unwraps to err, for errors.Is and
// errors.As).
func redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	for _, s := range secrets {
		if e := url.QueryEscape(s); e != s {
			secrets = append(secrets, e)
		}
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		re.ErrorDescription = redactpkg.Text(re.ErrorDescription, secrets...)
		re.ErrorURI = redactpkg.Text(re.ErrorURI, secrets...)
		re.Body = []byte(redactpkg.Text(string(re.Body), secrets...))
	}
	return redactpkg.Error(err, secrets...)
}
