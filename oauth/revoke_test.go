package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/oauth"
)

// signedInCLI signs a command-line tool in on a new fake through the
// device flow, approved by the fake, and returns its settings and token.
// The tool sends its client secret, as the service's own tool does.
func signedInCLI(t *testing.T) (*fake.Server, *oauth.Config, *oauth2.Token) {
	t.Helper()
	srv := fake.NewServer(t)
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Platform CLI", Domain: "https://cli.example.com", RedirectURI: "https://cli.example.com/cb",
		Scopes: []platform.Scope{platform.ScopeUserReadUser},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &oauth.Config{ClientID: app.ClientID, ClientSecret: app.ClientSecret, AuthURL: srv.AuthURL(), Now: srv.Now}
	da, err := cfg.DeviceAuth(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.ApproveDevice(da.UserCode); err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.DeviceAccessToken(t.Context(), da, srv.Sleep)
	if err != nil {
		t.Fatal(err)
	}
	return srv, cfg, tok
}

// currentUser calls the API with an access token.
func currentUser(t *testing.T, srv *fake.Server, access string) error {
	t.Helper()
	c, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithoutRetries(),
		platform.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: access})))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Users.GetCurrent(t.Context())
	return err
}

// TestRevoke signs out as a command-line tool does: revoking either token
// of a sign-in ends both, and revoking again succeeds.
func TestRevoke(t *testing.T) {
	t.Parallel()
	for _, which := range []string{"access", "refresh"} {
		t.Run(which, func(t *testing.T) {
			t.Parallel()
			srv, cfg, tok := signedInCLI(t)
			if err := currentUser(t, srv, tok.AccessToken); err != nil {
				t.Fatalf("before the revocation: %v", err)
			}
			revoked := tok.AccessToken
			if which == "refresh" {
				revoked = tok.RefreshToken
			}
			if err := cfg.Revoke(t.Context(), revoked); err != nil {
				t.Fatalf("Revoke: %v", err)
			}
			var apiErr *platform.Error
			if err := currentUser(t, srv, tok.AccessToken); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
				t.Errorf("the access token after the revocation: %v, want a 401", err)
			}
			_, err := cfg.TokenSource(t.Context(), &oauth2.Token{RefreshToken: tok.RefreshToken}, nil).Token()
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
				t.Errorf("refreshing after the revocation: %v, want invalid_grant", err)
			}
			// Already revoked: unknown to the server, still a success.
			if err := cfg.Revoke(t.Context(), revoked); err != nil {
				t.Errorf("Revoke again: %v", err)
			}
		})
	}
}

func TestRevokeRefused(t *testing.T) {
	t.Parallel()
	srv, cfg, tok := signedInCLI(t)
	other, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Other", Domain: "https://other.example.com", RedirectURI: "https://other.example.com/cb",
		Scopes: []platform.Scope{platform.ScopeUserReadUser},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		cfg     oauth.Config
		wantErr string
	}{
		{"unknown client", oauth.Config{ClientID: "nosuch", AuthURL: cfg.AuthURL}, "invalid_client"},
		{"wrong secret", oauth.Config{ClientID: cfg.ClientID, ClientSecret: "wrong", AuthURL: cfg.AuthURL}, "invalid_client"},
		{"another application's token", oauth.Config{ClientID: other.ClientID, ClientSecret: other.ClientSecret, AuthURL: cfg.AuthURL}, "unauthorized_client"},
	} {
		err := tc.cfg.Revoke(t.Context(), tok.AccessToken)
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.ErrorCode != tc.wantErr || re.ErrorDescription == "" {
			t.Errorf("%s: Revoke = %v, want an *oauth2.RetrieveError %s with a description", tc.name, err, tc.wantErr)
		}
	}
	if err := cfg.Revoke(t.Context(), ""); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Revoke of an empty token = %v, want an error saying so", err)
	}
	// None of the refusals revoked anything.
	if err := currentUser(t, srv, tok.AccessToken); err != nil {
		t.Errorf("the token after refused revocations: %v", err)
	}
}

// TestRevokeHTTPClient checks that Revoke sends through the client of ctx.
func TestRevokeHTTPClient(t *testing.T) {
	t.Parallel()
	srv, cfg, tok := signedInCLI(t)
	sent := 0
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		return testTransport.RoundTrip(r)
	})}
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, hc)
	if err := cfg.Revoke(ctx, tok.AccessToken); err != nil {
		t.Fatal(err)
	}
	if sent != 1 {
		t.Errorf("the context's client sent %d requests, want 1", sent)
	}
	if err := currentUser(t, srv, tok.AccessToken); err == nil {
		t.Error("the token works after Revoke through the context's client")
	}
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRevokeTransportError: a revocation that fails to reach the server
// returns an error that keeps what it wraps (errors.Is finds it) and holds
// neither the token nor the client secret, even when the transport's error
// repeats the request's form.
func TestRevokeTransportError(t *testing.T) {
	t.Parallel()
	_, cfg, tok := signedInCLI(t)
	errDown := errors.New("the network is down")
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		return nil, fmt.Errorf("sending %s: %w", body, errDown)
	})}
	err := cfg.Revoke(context.WithValue(t.Context(), oauth2.HTTPClient, hc), tok.AccessToken)
	if !errors.Is(err, errDown) || !strings.Contains(err.Error(), "oauth: Revoke") {
		t.Fatalf("Revoke = %v, want an error of Revoke wrapping the transport's", err)
	}
	for name, secret := range map[string]string{"token": tok.AccessToken, "client secret": cfg.ClientSecret} {
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), url.QueryEscape(secret)) {
			t.Errorf("the error holds the %s: %v", name, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := cfg.Revoke(ctx, tok.AccessToken); !errors.Is(err, context.Canceled) {
		t.Errorf("Revoke with an ended context = %v, want context.Canceled", err)
	}
}
