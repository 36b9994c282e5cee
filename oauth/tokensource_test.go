package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/oauth"
)

// expiredToken is a token that needs a refresh, holding the refresh token
// the test endpoint accepts first.
func expiredToken() *oauth2.Token {
	return &oauth2.Token{AccessToken: "access-0", RefreshToken: "refresh-0", TokenType: "Bearer", Expiry: time.Now().Add(-time.Minute)}
}

// tokenPair is the part of a token the tests compare.
type tokenPair struct{ Access, Refresh string }

func pairOf(t *oauth2.Token) tokenPair { return tokenPair{t.AccessToken, t.RefreshToken} }

// savedTokens records what a TokenSource saves.
type savedTokens struct {
	mu     sync.Mutex
	tokens []tokenPair
	fail   error // returned by save, and not recorded, while set
}

func (s *savedTokens) save(t *oauth2.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.tokens = append(s.tokens, pairOf(t))
	return nil
}

func (s *savedTokens) setFail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = err
}

func (s *savedTokens) list() []tokenPair {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tokenPair(nil), s.tokens...)
}

// refreshTokensSent lists the refresh tokens of the refresh requests e got.
func refreshTokensSent(e *tokenEndpoint) []string {
	var sent []string
	for _, r := range e.received() {
		if r.Form.Get("grant_type") == "refresh_token" {
			sent = append(sent, r.Form.Get("refresh_token"))
		}
	}
	return sent
}

func TestTokenSourceValidTokenIsNotRefreshed(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	var saved savedTokens
	valid := &oauth2.Token{AccessToken: "access-0", RefreshToken: "refresh-0", Expiry: time.Now().Add(time.Hour)}
	ts := e.config().TokenSource(t.Context(), valid, saved.save)
	got, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessToken != "access-0" {
		t.Errorf("Token() = %q, want the valid access-0", got.AccessToken)
	}
	if n := len(e.received()); n != 0 {
		t.Errorf("%d token requests for a valid token, want 0", n)
	}
	if s := saved.list(); len(s) != 0 {
		t.Errorf("saved %v, want nothing saved", s)
	}
}

func TestTokenSourceRotatesAndSavesEveryToken(t *testing.T) {
	t.Parallel()
	// Tokens that live 1 s are inside x/oauth2's expiry margin, so every
	// call refreshes.
	e := newTokenEndpoint(t, 1)
	var saved savedTokens
	ts := e.config().TokenSource(t.Context(), expiredToken(), saved.save)
	var got []tokenPair
	for range 3 {
		tok, err := ts.Token()
		if err != nil {
			t.Fatalf("Token() after %v: %v", got, err)
		}
		got = append(got, pairOf(tok))
	}
	want := []tokenPair{{"access-1", "refresh-1"}, {"access-2", "refresh-2"}, {"access-3", "refresh-3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, saved.list()); diff != "" {
		t.Errorf("tokens saved (-want +got):\n%s", diff)
	}
	// Each refresh used the refresh token the previous one returned.
	if diff := cmp.Diff([]string{"refresh-0", "refresh-1", "refresh-2"}, refreshTokensSent(e)); diff != "" {
		t.Errorf("refresh tokens sent (-want +got):\n%s", diff)
	}
	for _, r := range e.received() {
		if r.Form.Get("client_id") != testClientID || r.Form.Get("client_secret") != testClientSecret {
			t.Errorf("refresh without the client credentials in the form: %v", r.Form)
		}
	}
}

func TestTokenSourceOutlivesItsContext(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 1)
	// The context carries a custom HTTP client (a value the refresh must
	// keep) and is cancelled before the first refresh (a cancellation it
	// must ignore).
	hc := &http.Client{Transport: markingTransport{}}
	ctx, cancel := context.WithCancel(context.WithValue(t.Context(), oauth2.HTTPClient, hc))
	ts := e.config().TokenSource(ctx, expiredToken(), nil)
	cancel()
	for i := range 2 {
		if _, err := ts.Token(); err != nil {
			t.Fatalf("Token() #%d after the context was cancelled: %v", i+1, err)
		}
	}
	reqs := e.received()
	if len(reqs) != 2 {
		t.Fatalf("%d token requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.Marker != "yes" {
			t.Errorf("a refresh did not go through the context's HTTP client")
		}
	}
}

// testTransport sends the requests of the tests' own clients. It is not
// http.DefaultTransport, whose idle connections every closed httptest
// server (the token endpoints of helpers_test.go, in parallel tests)
// closes, breaking a request about to reuse one. It keeps no idle
// connection either: one kept to a server that has closed could be reused
// for a new server given the same port, and the request would meet a
// reset.
var testTransport = &http.Transport{DisableKeepAlives: true}

// markingTransport marks the requests it sends, so the endpoint can tell
// which client sent them.
type markingTransport struct{}

func (markingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Client", "yes")
	return testTransport.RoundTrip(r)
}

func TestTokenSourceReturnsTheSaveError(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	diskFull := errors.New("disk full")
	saved := savedTokens{fail: diskFull}
	ts := e.config().TokenSource(t.Context(), expiredToken(), saved.save)

	if tok, err := ts.Token(); !errors.Is(err, diskFull) {
		t.Fatalf("Token() = %v, %v; want the save error", tok, err)
	}
	// The refreshed token is not lost: once saving works, the next call
	// saves and returns it without refreshing again (its refresh token
	// already replaced refresh-0, which no longer works).
	saved.setFail(nil)
	tok, err := ts.Token()
	if err != nil {
		t.Fatalf("Token() once saving works: %v", err)
	}
	if diff := cmp.Diff(tokenPair{"access-1", "refresh-1"}, pairOf(tok)); diff != "" {
		t.Errorf("token (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]tokenPair{{"access-1", "refresh-1"}}, saved.list()); diff != "" {
		t.Errorf("saved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"refresh-0"}, refreshTokensSent(e)); diff != "" {
		t.Errorf("refresh tokens sent (-want +got):\n%s", diff)
	}
}

// TestTokenSourceUnsavedTokenExpires: a refreshed token that save refused
// is saved again by the next call only while it is valid; once the clock
// (Config.Now) passes its expiry, the next call refreshes and saves the
// new token instead of returning the expired one.
func TestTokenSourceUnsavedTokenExpires(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	now := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	cfg := e.config()
	cfg.Now = func() time.Time { return now }
	diskFull := errors.New("disk full")
	saved := savedTokens{fail: diskFull}
	expired := expiredToken()
	expired.Expiry = now.Add(-time.Minute)
	ts := cfg.TokenSource(t.Context(), expired, saved.save)
	if _, err := ts.Token(); !errors.Is(err, diskFull) {
		t.Fatalf("Token() = %v, want the save error", err)
	}
	saved.setFail(nil)
	now = now.Add(time.Hour) // access-1 expired an hour after its refresh
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tokenPair{"access-2", "refresh-2"}, pairOf(tok)); diff != "" {
		t.Errorf("token (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]tokenPair{{"access-2", "refresh-2"}}, saved.list()); diff != "" {
		t.Errorf("saved (-want +got):\n%s", diff)
	}
	if want := now.Add(time.Hour); !tok.Expiry.Equal(want) {
		t.Errorf("the refreshed token expires at %v, want %v (Config.Now plus expires_in)", tok.Expiry, want)
	}
}

func TestTokenSourceConcurrentCallsRefreshOnce(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	var saved savedTokens
	ts := e.config().TokenSource(t.Context(), expiredToken(), saved.save)

	const callers = 16
	got := make([]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := ts.Token()
			if err == nil {
				got[i] = tok.AccessToken
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, a := range got {
		if a != "access-1" {
			t.Errorf("caller %d got %q, want access-1", i, a)
		}
	}
	if diff := cmp.Diff([]string{"refresh-0"}, refreshTokensSent(e)); diff != "" {
		t.Errorf("refreshes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]tokenPair{{"access-1", "refresh-1"}}, saved.list()); diff != "" {
		t.Errorf("saved (-want +got):\n%s", diff)
	}
}

func TestTokenSourceRefreshRefused(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	var saved savedTokens
	stale := expiredToken()
	stale.RefreshToken = "refresh-rotated-away"
	_, err := e.config().TokenSource(t.Context(), stale, saved.save).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("Token() with a stale refresh token: err = %v, want an *oauth2.RetrieveError with code invalid_grant", err)
	}
	if s := saved.list(); len(s) != 0 {
		t.Errorf("saved %v after a refused refresh, want nothing", s)
	}
}

// TestTokenSourceWithoutClientSecret checks a public client's source: it
// returns a valid token, and, for an expired or missing one, fails with
// ErrNoClientSecret instead of refreshing, sending no request and saving
// nothing.
func TestTokenSourceWithoutClientSecret(t *testing.T) {
	t.Parallel()
	valid := &oauth2.Token{AccessToken: "access-0", RefreshToken: "refresh-0", Expiry: time.Now().Add(time.Hour)}
	for _, tc := range []struct {
		name    string
		tok     *oauth2.Token
		want    string // the access token returned
		wantErr error
	}{
		{name: "valid", tok: valid, want: "access-0"},
		{name: "expired", tok: expiredToken(), wantErr: oauth.ErrNoClientSecret},
		{name: "none", tok: nil, wantErr: oauth.ErrNoClientSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTokenEndpoint(t, 3600)
			cfg := e.config()
			cfg.ClientSecret = ""
			var saved savedTokens
			ts := cfg.TokenSource(t.Context(), tc.tok, saved.save)
			for range 2 { // asking again sends nothing either
				got, err := ts.Token()
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Token() error = %v, want %v", err, tc.wantErr)
				}
				if got != nil && got.AccessToken != tc.want || got == nil && tc.want != "" {
					t.Errorf("Token() = %v, want access token %q", got, tc.want)
				}
			}
			if n := len(e.received()); n != 0 {
				t.Errorf("%d token requests, want none", n)
			}
			if s := saved.list(); len(s) != 0 {
				t.Errorf("saved %v, want nothing saved", s)
			}
		})
	}
}

// TestTokenSourceOnTheFakesClock signs in against the fake with Config.Now
// set to the fake's clock: the token expires expires_in after the sign-in
// on that clock, the source sends it until 10 seconds before then, and
// refreshes it (saving the new one, dated on the same clock) once the
// fake's clock gets there, with no wall-clock wait and no hand-made Expiry.
func TestTokenSourceOnTheFakesClock(t *testing.T) {
	t.Parallel()
	srv, cfg, tok := signedInCLI(t)
	lifetime := time.Duration(tok.ExpiresIn) * time.Second
	if want := srv.Now().Add(lifetime); !tok.Expiry.Equal(want) {
		t.Fatalf("the signed-in token expires at %v, want %v: the fake's clock plus expires_in", tok.Expiry, want)
	}
	var saved []*oauth2.Token
	ts := cfg.TokenSource(t.Context(), tok, func(t *oauth2.Token) error { saved = append(saved, t); return nil })
	client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithoutRetries(), platform.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	call := func(wantRefreshes int) {
		t.Helper()
		before := pollsOf(srv)
		if _, err := client.Users.GetCurrent(t.Context()); err != nil {
			t.Fatalf("at %v after the sign-in: %v", srv.Now().Sub(tok.Expiry.Add(-lifetime)), err)
		}
		if n := pollsOf(srv) - before; n != wantRefreshes {
			t.Errorf("at %v after the sign-in: %d token requests, want %d", srv.Now().Sub(tok.Expiry.Add(-lifetime)), n, wantRefreshes)
		}
	}
	srv.Advance(lifetime - 11*time.Second)
	call(0) // 11 s before the expiry: sent as it is
	srv.Advance(2 * time.Second)
	call(1) // 9 s before: refreshed first
	call(0)
	if len(saved) != 1 {
		t.Fatalf("saved %d tokens, want the refreshed one", len(saved))
	}
	if got := saved[0]; got.AccessToken == tok.AccessToken || !got.Expiry.Equal(srv.Now().Add(lifetime)) {
		t.Errorf("saved token %q expiring %v, want a new access token expiring %v", got.AccessToken, got.Expiry, srv.Now().Add(lifetime))
	}
}
