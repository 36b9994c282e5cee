package oauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// ErrNoClientSecret is the error of a [Config.TokenSource] without a
// ClientSecret once its token has expired: the platform refreshes a token
// only for a client that sends its secret, so a public client (such as a
// command-line tool signed in with the device flow) signs the user in again
// instead. No request is sent. Match it with errors.Is.
var ErrNoClientSecret = errors.New("oauth: the access token has expired and refreshing it needs Config.ClientSecret; sign the user in again")

// TokenSource returns a source of access tokens for the user who was given
// tok. While tok is valid the source returns it; once it expires (10
// seconds before its Expiry, by [Config.Now]'s clock) the source refreshes
// it at the token endpoint (POST /oauth/token with
// grant_type=refresh_token, the operation of [Config.Exchange]) and returns
// the new one.
//
// The platform rotates the refresh token on every refresh and the old one
// stops working, so save is called with every refreshed token, before the
// token is used; store it where the next run of the application will find
// it. save receives its own copy of the token. If save returns an error,
// Token returns it, wrapped; the refreshed token is kept in memory and the
// next call to Token saves it again instead of refreshing, while it is
// valid. save may be nil when nothing outlives the process.
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
	cfg := *c // later changes to c do not reach the source
	s := &refreshingSource{
		config: &cfg,
		ctx:    withoutRedirects(context.WithoutCancel(ctx)),
		save:   save,
		tok:    tok,
	}
	if tok != nil {
		s.refresh = tok.RefreshToken
	}
	return s
}

// expiryDelta is how long before its Expiry a token counts as expired, as
// x/oauth2 counts it: a token about to expire is not sent.
const expiryDelta = 10 * time.Second

// refreshingSource is the source of [Config.TokenSource]. It does what
// x/oauth2's ReuseTokenSource does (returns its token while valid, else
// refreshes it, one caller at a time), but judges validity by the Config's
// clock, which x/oauth2 cannot be given, and hands every refreshed token
// to save.
type refreshingSource struct {
	config *Config
	ctx    context.Context // the refreshes' context, detached
	save   func(*oauth2.Token) error

	mu  sync.Mutex
	tok *oauth2.Token // returned while valid
	// refresh is the refresh token the next refresh sends, kept out of
	// its error's text with the client secret.
	refresh string
	// unsaved is set when save refused tok: the next call saves it again
	// instead of refreshing, while it is valid.
	unsaved bool
}

// Token implements oauth2.TokenSource.
func (s *refreshingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tok; t != nil && t.AccessToken != "" && (t.Expiry.IsZero() || !t.Expiry.Round(0).Add(-expiryDelta).Before(s.config.now())) {
		if s.unsaved {
			return s.saved(t)
		}
		return t, nil
	}
	secret := s.config.ClientSecret
	if secret == "" {
		return nil, ErrNoClientSecret
	}
	// A token without an access token is always refreshed: x/oauth2's
	// own check, by the wall clock, does not decide.
	tok, err := s.config.OAuth2().TokenSource(s.ctx, &oauth2.Token{RefreshToken: s.refresh}).Token()
	if err != nil {
		return nil, redact(err, secret, s.refresh)
	}
	s.tok = s.config.dated(tok)
	s.refresh = tok.RefreshToken
	return s.saved(tok)
}

// saved hands tok, refreshed, to save and returns it; when save refuses
// it, tok is kept and the next call saves it again.
func (s *refreshingSource) saved(tok *oauth2.Token) (*oauth2.Token, error) {
	s.unsaved = false
	if s.save != nil {
		cp := *tok
		if err := s.save(&cp); err != nil {
			s.unsaved = true
			return nil, fmt.Errorf("oauth: saving the refreshed token: %w", err)
		}
	}
	return tok, nil
}
