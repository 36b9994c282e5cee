package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// DefaultAuthURL is the address of the live authorization server, used when
// [Config.AuthURL] is empty.
const DefaultAuthURL = "https://auth.dbplatform.dev"

// Config is an OAuth application registered with the platform.
type Config struct {
	// ClientID identifies the application: the client_id of its
	// authorization and token requests.
	ClientID string
	// ClientSecret authenticates the application's token requests. The
	// platform shows it once, when the application is created.
	ClientSecret string
	// RedirectURL is where the platform sends the browser back after the
	// user decides (the application's callback). It must be on the
	// application's configured domain.
	RedirectURL string
	// AuthURL is the authorization server's address; empty means
	// [DefaultAuthURL]. A fake server gives its own.
	AuthURL string
	// Scopes, if any, are sent in the authorization and device-authorization
	// requests; each must be one of the application's scopes, or the sign-in
	// is refused with invalid_scope. The platform grants the scopes chosen
	// in the application's settings.
	Scopes []string
	// Now, if set, is the clock that dates tokens: the tokens of Exchange,
	// DeviceAccessToken and TokenSource's refreshes expire Now() plus their
	// expires_in, and TokenSource refreshes a token when Now() reaches its
	// Expiry (less 10 seconds). Nil is time.Now. A test against a fake
	// server sets its clock (Now: srv.Now), so that moving the clock past a
	// token's lifetime makes the source refresh it, as the server judges
	// it expired, without waiting.
	Now func() time.Time
}

// now reads the configured clock.
func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// dated sets tok's Expiry by the configured clock, from its expires_in;
// x/oauth2 dates it by the wall clock. A token without expires_in is left
// as it is.
func (c *Config) dated(tok *oauth2.Token) *oauth2.Token {
	if c.Now != nil && tok != nil && tok.ExpiresIn > 0 {
		tok.Expiry = c.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	return tok
}

// OAuth2 returns the x/oauth2 configuration for the platform's endpoints,
// {AuthURL}/oauth/authorize, {AuthURL}/oauth/token and, for the device flow,
// {AuthURL}/oauth/authorize_device.
//
// The client ID and secret travel as parameters of the token request
// (oauth2.AuthStyleInParams), never in a Basic header: the platform reads
// them as parameters. The API reference puts those parameters in the query
// string; x/oauth2 sends them as an RFC 6749 form body, which the platform
// accepts as well, and which keeps the secret out of URLs and access logs.
func (c *Config) OAuth2() *oauth2.Config {
	base := c.baseURL()
	return &oauth2.Config{
		ClientID:     c.ClientID,
		ClientSecret: c.ClientSecret,
		RedirectURL:  c.RedirectURL,
		Scopes:       c.Scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL:       base + "/oauth/authorize",
			TokenURL:      base + "/oauth/token",
			DeviceAuthURL: base + "/oauth/authorize_device",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
	}
}

// baseURL is AuthURL without its trailing slash, or DefaultAuthURL.
func (c *Config) baseURL() string {
	if base := strings.TrimSuffix(c.AuthURL, "/"); base != "" {
		return base
	}
	return DefaultAuthURL
}

// AuthCodeURL returns the address of the consent page to send the user to:
// the authorization endpoint with client_id, redirect_uri, response_type=code,
// state and, when Scopes is set, scope. state should come from [NewState] and
// be checked when the user comes back ([Config.CallbackHandler] does both).
//
// API: GET /oauth/authorize
func (c *Config) AuthCodeURL(state string) string {
	return c.OAuth2().AuthCodeURL(state)
}

// Exchange trades the code the platform passed to the redirect URI for a
// token (grant_type=authorization_code, with client_id, client_secret, code
// and redirect_uri). A code works once. ctx bounds the request; a copy of
// the *http.Client stored under [oauth2.HTTPClient] in ctx sends it, which
// follows no redirect. A refusal, or a redirect, is an
// *oauth2.RetrieveError with the server's status and error code (such as
// "invalid_grant"); no error text repeats the client secret or the code.
//
// API: POST /oauth/token
func (c *Config) Exchange(ctx context.Context, code string) (*oauth2.Token, error) {
	tok, err := c.OAuth2().Exchange(withoutRedirects(ctx), code)
	if err != nil {
		return nil, redact(err, c.ClientSecret, code)
	}
	return c.dated(tok), nil
}

// stateBytes is how much randomness a state carries: 256 bits.
const stateBytes = 32

// NewState returns a fresh, unguessable state for an authorization request:
// 32 random bytes from crypto/rand, URL-safe base64 without padding (43
// characters).
func NewState() (string, error) {
	b := make([]byte, stateBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("oauth: reading random state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
