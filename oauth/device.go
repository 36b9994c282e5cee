package oauth

import (
	"context"
	"errors"
	"time"

	"golang.org/x/oauth2"
)

// The device authorization grant (RFC 8628) signs a user in from a program
// that has no browser of its own, such as a command-line tool: the program
// asks for a device code ([Config.DeviceAuth]), shows the user a short user
// code and where to enter it, and polls the token endpoint until the user
// has approved or denied ([Config.DeviceAccessToken]). Such a program is a
// public client: ClientID is enough, and ClientSecret may stay empty. A
// refresh needs the client secret, though: a public client's token lasts
// until it expires (expires_in seconds after the sign-in), and then
// [Config.TokenSource] returns [ErrNoClientSecret] and the program signs
// its user in again. With ClientSecret set, TokenSource refreshes the token.

// DeviceCodeGrantType is the grant_type of a device-flow poll of the token
// endpoint.
const DeviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// DeviceAuth starts a device sign-in: it sends client_id and, when Scopes
// is set, scope, and returns the device code to poll with, the user code to
// show the user, the page to enter it (VerificationURI, and
// VerificationURIComplete with the code filled in), how long the codes live
// and how long to wait between polls. A refusal, or a redirect (which is
// not followed), is an *oauth2.RetrieveError (such as "invalid_client").
//
// API: POST /oauth/authorize_device
func (c *Config) DeviceAuth(ctx context.Context) (*oauth2.DeviceAuthResponse, error) {
	da, err := c.OAuth2().DeviceAuth(withoutRedirects(ctx))
	if err != nil {
		return nil, redact(err, c.ClientSecret)
	}
	return da, nil
}

// SleepFunc waits for d or until ctx ends, returning ctx.Err() in the second
// case; [Config.DeviceAccessToken] waits between polls through it.
type SleepFunc func(ctx context.Context, d time.Duration) error

// DeviceAccessToken waits until the user has decided on the device sign-in
// da and returns the token. It polls the token endpoint (POST /oauth/token,
// the operation of [Config.Exchange]) with grant_type
// urn:ietf:params:oauth:grant-type:device_code, first after da.Interval
// seconds (5 when the server gives none), then at that interval, which
// grows by 5 s at each slow_down answer (RFC 8628 3.5). An
// authorization_pending answer polls again; access_denied (the user chose
// Deny), expired_token (the codes expired: start again) and any other
// refusal end the wait with an *oauth2.RetrieveError whose ErrorCode says
// which; ctx ending ends it with ctx's error. A poll follows no redirect (a
// redirect ends the wait with an *oauth2.RetrieveError), and no error text
// repeats the client secret or the device code.
//
// sleep waits between polls; nil waits on the wall clock, as x/oauth2's
// DeviceAccessToken does (which this then is, with da.Expiry as a deadline).
// A test against a fake server passes one that moves the fake's clock, so
// the sign-in runs without waiting.
func (c *Config) DeviceAccessToken(ctx context.Context, da *oauth2.DeviceAuthResponse, sleep SleepFunc) (*oauth2.Token, error) {
	if da == nil {
		return nil, errors.New("oauth: DeviceAccessToken: da is nil: pass what DeviceAuth returned")
	}
	tok, err := c.deviceAccessToken(withoutRedirects(ctx), da, sleep)
	if err != nil {
		return nil, redact(err, c.ClientSecret, da.DeviceCode)
	}
	return c.dated(tok), nil
}

// deviceAccessToken is DeviceAccessToken before its error is redacted.
func (c *Config) deviceAccessToken(ctx context.Context, da *oauth2.DeviceAuthResponse, sleep SleepFunc) (*oauth2.Token, error) {
	oc := c.OAuth2()
	if sleep == nil {
		return oc.DeviceAccessToken(ctx, da)
	}
	interval := time.Duration(da.Interval) * time.Second
	if interval <= 0 {
		interval = 5 * time.Second
	}
	for {
		if err := sleep(ctx, interval); err != nil {
			return nil, err
		}
		// x/oauth2 polls through a wall-clock ticker only; Exchange sends
		// the same request (with an empty code, which the device grant
		// ignores) through the same client authentication and error
		// decoding.
		tok, err := oc.Exchange(ctx, "",
			oauth2.SetAuthURLParam("grant_type", DeviceCodeGrantType),
			oauth2.SetAuthURLParam("device_code", da.DeviceCode))
		if err == nil {
			return tok, nil
		}
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) {
			return nil, err
		}
		switch re.ErrorCode {
		case "authorization_pending":
		case "slow_down":
			interval += 5 * time.Second
		default:
			return nil, err
		}
	}
}
