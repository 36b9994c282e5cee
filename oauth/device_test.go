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
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/oauth"
)

// deviceCLI is a command-line tool's OAuth settings for srv: a public
// client, with a client ID and no secret.
func deviceCLI(t *testing.T, srv *fake.Server) *oauth.Config {
	t.Helper()
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Platform CLI", Domain: "https://cli.example.com", RedirectURI: "https://cli.example.com/cb",
		Scopes: []platform.Scope{platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &oauth.Config{ClientID: app.ClientID, AuthURL: srv.AuthURL(), Scopes: []string{"user:read_user"}}
}

// startDevice starts a device sign-in of a command-line tool on a new
// server.
func startDevice(t *testing.T) (*fake.Server, *oauth.Config, *oauth2.DeviceAuthResponse) {
	t.Helper()
	srv := fake.NewServer(t)
	cfg := deviceCLI(t, srv)
	da, err := cfg.DeviceAuth(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return srv, cfg, da
}

// decideDevice does what the user does in a browser: approves or denies
// the device sign-in of userCode on the verification page (decision
// "authorize" or "deny"), through the fake's Go API.
func decideDevice(t *testing.T, srv *fake.Server, userCode, decision string) {
	t.Helper()
	decide := srv.ApproveDevice
	if decision == "deny" {
		decide = srv.DenyDevice
	}
	if err := decide(userCode); err != nil {
		t.Fatalf("%s: %v", decision, err)
	}
}

// pollsOf counts the device-flow polls in the fake's request log.
func pollsOf(srv *fake.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Operation == "oauth_token" {
			n++
		}
	}
	return n
}

// TestDeviceSignIn signs a command-line style client in end to end on the
// fake's clock: the tool asks for a code, shows it, and polls while the
// user approves in a browser; then it calls the API with the token.
func TestDeviceSignIn(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	cfg := deviceCLI(t, srv)
	ctx := t.Context()
	start := srv.Now()

	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(da.VerificationURIComplete, da.VerificationURI+"?user_code=") || da.UserCode == "" || da.Interval != 5 {
		t.Fatalf("device authorization %+v: want a user code, where to enter it, and a 5 s interval", da)
	}

	// The user approves while the tool waits for its third poll. The first
	// wait lasts only a second (a tool in a hurry), so the second poll is
	// answered slow_down and the tool waits 5 s longer from then on.
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		switch len(waits) {
		case 2:
			d = time.Second
		case 3:
			decideDevice(t, srv, da.UserCode, "authorize")
		}
		return srv.Sleep(ctx, d)
	}
	tok, err := cfg.DeviceAccessToken(ctx, da, sleep)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 5 * time.Second, 10 * time.Second}, waits); diff != "" {
		t.Errorf("waits between polls (-want +got):\n%s", diff)
	}
	if got, want := srv.Now().Sub(start), 16*time.Second; got != want {
		t.Errorf("the sign-in took %s on the fake's clock, want %s", got, want)
	}
	if n := pollsOf(srv); n != 3 {
		t.Errorf("%d polls, want 3 (pending, slow_down, the token)", n)
	}

	client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithTokenSource(oauth2.StaticTokenSource(tok)))
	if err != nil {
		t.Fatal(err)
	}
	me, err := client.Users.GetCurrent(ctx)
	if err != nil || me.ID != srv.AdminUserID() {
		t.Errorf("GetCurrent with the device's token: %+v, %v; want the signed-in user %s", me, err, srv.AdminUserID())
	}
}

func TestDeviceAccessTokenEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		user    func(t *testing.T, srv *fake.Server, userCode string) // during the first wait
		wait    time.Duration                                         // how far each wait moves the clock
		wantErr string
	}{
		{"denied", func(t *testing.T, srv *fake.Server, code string) { decideDevice(t, srv, code, "deny") }, 5 * time.Second, "access_denied"},
		{"expired", func(*testing.T, *fake.Server, string) {}, 8 * time.Minute, "expired_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, cfg, da := startDevice(t)
			first := true
			tok, err := cfg.DeviceAccessToken(t.Context(), da, func(ctx context.Context, _ time.Duration) error {
				if first {
					tc.user(t, srv, da.UserCode)
					first = false
				}
				return srv.Sleep(ctx, tc.wait)
			})
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) || re.ErrorCode != tc.wantErr || tok != nil {
				t.Errorf("DeviceAccessToken = %v, %v; want an *oauth2.RetrieveError %s", tok, err, tc.wantErr)
			}
		})
	}
}

func TestDeviceAccessTokenContext(t *testing.T) {
	t.Parallel()
	srv, cfg, da := startDevice(t)
	ctx, cancel := context.WithCancel(t.Context())
	polls := 0
	_, err := cfg.DeviceAccessToken(ctx, da, func(ctx context.Context, d time.Duration) error {
		if polls++; polls == 3 {
			cancel()
		}
		return srv.Sleep(ctx, d)
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("DeviceAccessToken after cancel = %v, want context.Canceled", err)
	}
}

// TestDeviceAccessTokenWithoutAuth checks the poll given no device
// authorization: an error saying what to pass, sent to no server.
func TestDeviceAccessTokenWithoutAuth(t *testing.T) {
	t.Parallel()
	_, cfg, _ := startDevice(t)
	tok, err := cfg.DeviceAccessToken(t.Context(), nil, func(context.Context, time.Duration) error {
		t.Error("DeviceAccessToken waited to poll")
		return nil
	})
	if tok != nil || err == nil || !strings.Contains(err.Error(), "DeviceAuth") {
		t.Errorf("DeviceAccessToken(nil) = %v, %v; want an error naming DeviceAuth", tok, err)
	}
}

func TestDeviceAuthRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	cfg := &oauth.Config{ClientID: "nosuch", AuthURL: srv.AuthURL()}
	_, err := cfg.DeviceAuth(t.Context())
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Errorf("DeviceAuth of an unknown client = %v, want an *oauth2.RetrieveError invalid_client", err)
	}
}

// TestDeviceSignInBareScopes signs in with the scopes a command-line tool
// writes without resources, approved by the fake's auto-approval as the
// sign-in starts.
func TestDeviceSignInBareScopes(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Platform CLI", Domain: "https://cli.example.com", RedirectURI: "https://cli.example.com/cb",
		Scopes: []platform.Scope{
			platform.ScopeOrganizationReadDatabases, platform.ScopeOrganizationWriteDatabases,
			platform.ScopeUserReadUser, platform.ScopeOrganizationReadOrganization,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetAutoApprove(&fake.Consent{})
	cfg := &oauth.Config{ClientID: app.ClientID, AuthURL: srv.AuthURL(), Scopes: []string{"read_databases", "write_databases", "read_user", "read_organization"}}
	da, err := cfg.DeviceAuth(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.DeviceAccessToken(t.Context(), da, srv.Sleep)
	if err != nil {
		t.Fatal(err)
	}
	if n := pollsOf(srv); n != 1 {
		t.Errorf("%d polls, want 1: auto-approval approves as the sign-in starts", n)
	}
	client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithTokenSource(oauth2.StaticTokenSource(tok)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: srv.Org()}); err != nil {
		t.Errorf("listing databases with the token: %v", err)
	}
}

// TestDeviceTokenExpires checks what a command-line tool's TokenSource does
// with its device-flow token once the token has expired at the fake: a
// public client (no ClientSecret) gets ErrNoClientSecret without asking the
// token endpoint, since the platform refreshes only for a client that sends
// its secret; with the secret, the token is refreshed.
func TestDeviceTokenExpires(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		public  bool
		wantErr error
		// wantRequests is how many token requests the refresh sends.
		wantRequests int
	}{
		{name: "public client", public: true, wantErr: oauth.ErrNoClientSecret, wantRequests: 0},
		{name: "with client secret", wantRequests: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, cfg, tok := signedInCLI(t)
			if tc.public {
				cfg.ClientSecret = ""
			}
			// The token expires on the fake's clock, which cfg.Now reads.
			srv.Advance(time.Duration(tok.ExpiresIn) * time.Second)
			if err := currentUser(t, srv, tok.AccessToken); err == nil {
				t.Fatal("the expired access token still works at the fake")
			}
			before := pollsOf(srv)
			client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithoutRetries(),
				platform.WithTokenSource(cfg.TokenSource(t.Context(), tok, nil)))
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Users.GetCurrent(t.Context())
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("GetCurrent with an expired token = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil && !strings.Contains(fmt.Sprint(err), "ClientSecret") {
				t.Errorf("error %q does not name Config.ClientSecret", err)
			}
			if n := pollsOf(srv) - before; n != tc.wantRequests {
				t.Errorf("%d token requests, want %d", n, tc.wantRequests)
			}
		})
	}
}

// TestDeviceAccessTokenTransportError: a poll that fails to reach the
// server ends the wait with an error that keeps what it wraps and holds
// neither the device code nor the client secret; with no interval in the
// device authorization, the polls wait 5 s.
func TestDeviceAccessTokenTransportError(t *testing.T) {
	t.Parallel()
	_, cfg, da := startDevice(t)
	cfg.ClientSecret = "a-client-secret"
	da.Interval = 0
	errDown := errors.New("the network is down")
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		return nil, fmt.Errorf("sending %s: %w", body, errDown)
	})}
	var waits []time.Duration
	tok, err := cfg.DeviceAccessToken(context.WithValue(t.Context(), oauth2.HTTPClient, hc), da, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	if tok != nil || !errors.Is(err, errDown) {
		t.Fatalf("DeviceAccessToken = %v, %v; want the transport's error", tok, err)
	}
	for name, secret := range map[string]string{"device code": da.DeviceCode, "client secret": cfg.ClientSecret} {
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), url.QueryEscape(secret)) {
			t.Errorf("the error holds the %s: %v", name, err)
		}
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}
