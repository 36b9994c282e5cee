package oauth

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/oauth2"
)

// ErrNoClientSecret is the error of a [Config.TokenSource] without a
// ClientSecret once its token has expired: the platform refreshes a token
// only for a client that sends its secret, so a public client (such as a
// command-line tool signed in with the device flow) signs the user in again
// instead. No request is sent. Match it with errors.Is.
var ErrNoClientSecret = errors.New("oauth: the access token has expired and refreshing it needs Config.ClientSecret; sign the user in again")

// TokenSource returns a source of access tokens for the user who was given
// tok. While tok is valid the source returns it; once it expires the source
// refreshes it at the token endpoint (POST /oauth/token with
// grant_type=refresh_token, the operation of [Config.Exchange]) and returns
// the new one.
//
// The platform rotates the refresh token on every refresh and the old one
// stops working, so save is called with every refreshed token, before the
// token is used; store it where the next run of the application will find
// it. save receives its own copy of the token. If save returns an error,
// Token returns it, wrapped; the refreshed token is kept in memory and the
// next call to Token saves it again instead of refreshing. save may be nil
// when nothing outlives the process.
//
// Refreshes run on a context detached from ctx (context.WithoutCancel): ctx's
// values, such as an *http.Client stored under [oauth2.HTTPClient], are kept,
// but its cancellation and deadline are not, so a source built inside an
// HTTP request keeps working after that request ends. A refresh follows no
// redirect (it is an *oauth2.RetrieveError), and its error's text repeats
// neither the client secret nor the refresh token. The source is safe
// for concurrent use, and concurrent calls refresh once.
//
// A refresh sends the client secret, which the platform requires: with an
// empty ClientSecret (a public client), the source returns tok while it is
// valid and then fails with [ErrNoClientSecret], sending nothing.
func (c *Config) TokenSource(ctx context.Context, tok *oauth2.Token, save func(*oauth2.Token) error) oauth2.TokenSource {
	// x/oauth2's source caches the token and refreshes it when it expires,
	// but offers no hook to see the refreshed tokens. Wrapping it in
	// savingSource and that in another caching source gives the hook: the
	// outer source calls savingSource only when its token has expired, one
	// caller at a time, and the inner one then refreshes.
	refresher := c.OAuth2().TokenSource(withoutRedirects(context.WithoutCancel(ctx)), tok)
	s := &savingSource{src: refresher, save: save, secret: c.ClientSecret}
	if tok != nil {
		s.refresh = tok.RefreshToken
	}
	return oauth2.ReuseTokenSource(tok, s)
}

// savingSource passes each token it gets from src to save before returning
// it. Only [oauth2.ReuseTokenSource] calls it, under that source's lock.
type savingSource struct {
	src  oauth2.TokenSource
	save func(*oauth2.Token) error
	// secret and refresh are the client secret and the refresh token that
	// a refresh sends, kept out of its error's text.
	secret, refresh string
}

// Token implements oauth2.TokenSource.
func (s *savingSource) Token() (*oauth2.Token, error) {
	if s.secret == "" {
		return nil, ErrNoClientSecret
	}
	tok, err := s.src.Token()
	if err != nil {
		return nil, redact(err, s.secret, s.refresh)
	}
	if tok.RefreshToken != "" {
		s.refresh = tok.RefreshToken
	}
	if s.save != nil {
		saved := *tok
		if err := s.save(&saved); err != nil {
			return nil, fmt.Errorf("oauth: saving the refreshed token: %w", err)
		}
	}
	return tok, nil
}
