package oauth_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go/oauth"
)

// The secrets the guard tests send in their forms; the client secret has
// characters that form encoding changes.
const (
	guardClientSecret = "client-s3cret/+="
	guardCode         = "code-s3cret"
	guardRefresh      = "refresh-s3cret"
	guardDeviceCode   = "device-s3cret"
	guardToken        = "token-s3cret"
)

// guardCalls are the package's requests to the authorization server, each
// sent through ctx.
var guardCalls = []struct {
	name string
	call func(ctx context.Context, c *oauth.Config) error
}{
	{"Exchange", func(ctx context.Context, c *oauth.Config) error {
		_, err := c.Exchange(ctx, guardCode)
		return err
	}},
	{"refresh", func(ctx context.Context, c *oauth.Config) error {
		expired := &oauth2.Token{AccessToken: "a", RefreshToken: guardRefresh, Expiry: time.Unix(1, 0)}
		_, err := c.TokenSource(ctx, expired, nil).Token()
		return err
	}},
	{"DeviceAuth", func(ctx context.Context, c *oauth.Config) error {
		_, err := c.DeviceAuth(ctx)
		return err
	}},
	{"DeviceAccessToken", func(ctx context.Context, c *oauth.Config) error {
		da := &oauth2.DeviceAuthResponse{DeviceCode: guardDeviceCode, Interval: 1}
		_, err := c.DeviceAccessToken(ctx, da, func(ctx context.Context, d time.Duration) error { return ctx.Err() })
		return err
	}},
	{"Revoke", func(ctx context.Context, c *oauth.Config) error {
		return c.Revoke(ctx, guardToken)
	}},
}

// TestRedirectsAreNotFollowed points every request at an authorization
// server that redirects it to another host: none follows (a 307 or 308
// would send the form there again), each ends in an error (for Revoke: a
// sign-out that did not happen), and the caller's client sends them,
// unmodified.
func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	for _, call := range guardCalls {
		for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			t.Run(fmt.Sprintf("%s/%d", call.name, status), func(t *testing.T) {
				t.Parallel()
				var elsewhere atomic.Int32
				other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					elsewhere.Add(1)
					_, _ = io.WriteString(w, `{"access_token": "stolen", "token_type": "Bearer", "device_code": "d", "user_code": "u", "verification_uri": "v"}`)
				}))
				t.Cleanup(other.Close)
				var marked atomic.Int32
				as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("X-Test-Client") == "yes" {
						marked.Add(1)
					}
					http.Redirect(w, r, other.URL+"/elsewhere", status)
				}))
				t.Cleanup(as.Close)
				hc := &http.Client{Transport: markingTransport{}}
				ctx := context.WithValue(t.Context(), oauth2.HTTPClient, hc)
				c := &oauth.Config{ClientID: "app", ClientSecret: guardClientSecret, AuthURL: as.URL}
				if err := call.call(ctx, c); err == nil {
					t.Error("no error after a redirect")
				}
				got := struct {
					Elsewhere, Marked int32
					CheckRedirectSet  bool
				}{elsewhere.Load(), marked.Load(), hc.CheckRedirect != nil}
				want := got
				want.Elsewhere, want.Marked, want.CheckRedirectSet = 0, 1, false
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("requests elsewhere, through the caller's client, and its CheckRedirect (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestErrorsDoNotEchoTheForm points every request at an authorization
// server that echoes the form it received in its error answer: no error
// text repeats the client secret, code, refresh token, device code or
// token, whether as sent or form-encoded.
func TestErrorsDoNotEchoTheForm(t *testing.T) {
	t.Parallel()
	answers := []struct {
		name string
		echo func(w http.ResponseWriter, form string)
	}{
		{"JSON error", func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"error": "invalid_grant", "error_description": "echo: %s", "error_uri": "https://as.example/?%s"}`, form, form)
		}},
		{"HTML error", func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = fmt.Fprintf(w, "<html>proxy error; the request was %s</html>", form)
		}},
	}
	secrets := []string{guardClientSecret, "client-s3cret%2F%2B%3D", guardCode, guardRefresh, guardDeviceCode, guardToken}
	for _, call := range guardCalls {
		for _, a := range answers {
			t.Run(call.name+"/"+a.name, func(t *testing.T) {
				t.Parallel()
				var sent atomic.Value // the form received
				as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					form, _ := io.ReadAll(r.Body)
					sent.Store(string(form))
					a.echo(w, string(form))
				}))
				t.Cleanup(as.Close)
				c := &oauth.Config{ClientID: "app", ClientSecret: guardClientSecret, AuthURL: as.URL}
				err := call.call(t.Context(), c)
				if err == nil {
					t.Fatal("no error")
				}
				text := fmt.Sprintf("%v | %+v | %#v", err, err, err)
				var leaked []string
				for _, s := range secrets {
					if strings.Contains(text, s) {
						leaked = append(leaked, s)
					}
				}
				if diff := cmp.Diff([]string(nil), leaked); diff != "" {
					t.Errorf("secrets in the error text %q (-want +got):\n%s", text, diff)
				}
				// DeviceAuth sends no secret: only a form that held one
				// shows the marker.
				form, _ := sent.Load().(string)
				heldSecret := false
				for _, s := range secrets {
					heldSecret = heldSecret || strings.Contains(form, s)
				}
				if heldSecret && !strings.Contains(err.Error(), oauth.Redacted) {
					t.Errorf("error %q lacks %q where the form was", err, oauth.Redacted)
				}
			})
		}
	}
}
