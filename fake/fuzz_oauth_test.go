package fake_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// The OAuth server's endpoints, fuzzed: the token endpoint, the
// authorization page and its consent form, and the device flow. Each input
// runs on a fresh server with an application, a live token, an unused
// code and a pending device authorization; the inputs name those with
// placeholders ($CLIENT, $SECRET, $REDIRECT, $CODE, $REFRESH, $DEVICE,
// $USERCODE), so that the fuzzer reaches the paths past the credential
// checks. Whatever the input, the answer is never a 5xx, errors are RFC
// 6749 bodies (JSON endpoints) or pages (HTML ones), and nothing opSnapshot
// shows changes unless a token was issued.

// oauthFuzzWorld is the state every OAuth fuzz input starts from.
type oauthFuzzWorld struct {
	srv          *fake.Server
	app          fake.OAuthApp
	placeholders *strings.Replacer
}

func newOAuthFuzzWorld(t *testing.T) oauthFuzzWorld {
	t.Helper()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
	tok := oauthIssue(t, srv, app, fake.Consent{})
	code := oauthCode(t, srv, app, fake.Consent{})
	srv.SetAutoApprove(nil)
	status, da := deviceStart(t, srv, app.ClientID, nil)
	if status != http.StatusOK {
		t.Fatalf("authorize_device: %d", status)
	}
	esc := url.QueryEscape
	return oauthFuzzWorld{srv: srv, app: app, placeholders: strings.NewReplacer(
		"$CLIENT", esc(app.ClientID), "$SECRET", esc(app.ClientSecret), "$REDIRECT", esc(app.RedirectURI),
		"$CODE", esc(code), "$REFRESH", esc(tok.RefreshToken), "$DEVICE", esc(da.DeviceCode), "$USERCODE", esc(da.UserCode),
	)}
}

// oauthErrorCodes are the error codes the token and device endpoints may
// answer (RFC 6749 5.2, RFC 8628 3.5).
var oauthErrorCodes = []string{
	"invalid_request", "invalid_client", "invalid_grant", "unsupported_grant_type", "invalid_scope",
	"authorization_pending", "slow_down", "access_denied", "expired_token",
}

// fuzzOAuthJSON checks an answer of a JSON endpoint of the OAuth server and
// returns its error code ("" on success).
func fuzzOAuthJSON(t *testing.T, what string, r oauthResponse) string {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("%s: status %d: %s", what, r.status, r.body)
	}
	if ct, cc := r.header.Get("Content-Type"), r.header.Get("Cache-Control"); ct != "application/json" || cc != "no-store" {
		t.Errorf("%s: Content-Type %q, Cache-Control %q; want application/json, no-store", what, ct, cc)
	}
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal([]byte(r.body), &e); err != nil {
		t.Fatalf("%s: %d with a body that is not JSON: %q", what, r.status, r.body)
	}
	switch {
	case r.status == http.StatusOK && e.Error == "":
	case (r.status == http.StatusBadRequest || r.status == http.StatusUnauthorized) && slices.Contains(oauthErrorCodes, e.Error) && e.Description != "":
	default:
		t.Errorf("%s: status %d with error %q (%q)", what, r.status, e.Error, e.Description)
	}
	return e.Error
}

// fuzzOAuthPage checks an answer of an HTML endpoint of the OAuth server:
// a page, or a redirect to the application's redirect URI with a code or
// an error.
func fuzzOAuthPage(t *testing.T, w oauthFuzzWorld, what string, r oauthResponse) {
	t.Helper()
	switch {
	case r.status >= 500:
		t.Fatalf("%s: status %d: %s", what, r.status, r.body)
	case r.status == http.StatusFound:
		loc, err := url.Parse(r.header.Get("Location"))
		if err != nil || loc.Scheme+"://"+loc.Host+loc.Path != w.app.RedirectURI {
			t.Fatalf("%s: redirect to %q, not the application's redirect URI", what, r.header.Get("Location"))
		}
		if q := loc.Query(); (q.Get("code") == "") == (q.Get("error") == "") {
			t.Errorf("%s: redirect to %s without exactly one of code and error", what, loc)
		}
	default:
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: status %d with Content-Type %q, want a page", what, r.status, ct)
		}
	}
}

// fuzzURL returns target, skipping the input when it is not a URL a client
// could send.
func fuzzURL(t *testing.T, target string) string {
	t.Helper()
	if _, err := http.NewRequest(http.MethodGet, target, nil); err != nil || strings.ContainsAny(target, " \t\r\n#") {
		t.Skip("not a request URL")
	}
	return target
}

func FuzzOAuthToken(f *testing.F) {
	f.Fuzz(func(t *testing.T, form string, basic bool) {
		t.Parallel() // the seed corpus runs in parallel; fuzzing ignores it
		w := newOAuthFuzzWorld(t)
		before := opSnapshot(t, w.srv)
		var header http.Header
		if basic {
			header = http.Header{"Authorization": {"Basic " + basicAuth(w.app.ClientID, w.app.ClientSecret)}}
		}
		r := oauthDoRaw(t, http.MethodPost, w.srv.AuthURL()+"oauth/token", w.placeholders.Replace(form), header)
		if code := fuzzOAuthJSON(t, "token", r); code != "" {
			if diff := cmp.Diff(before, opSnapshot(t, w.srv)); diff != "" {
				t.Errorf("a refused token request (%s) changed the world (-before +after):\n%s", code, diff)
			}
		}
	})
}

func FuzzOAuthAuthorize(f *testing.F) {
	f.Fuzz(func(t *testing.T, post bool, params string) {
		t.Parallel() // the seed corpus runs in parallel; fuzzing ignores it
		w := newOAuthFuzzWorld(t)
		before := opSnapshot(t, w.srv)
		params = w.placeholders.Replace(params)
		var r oauthResponse
		if post {
			r = oauthDoRaw(t, http.MethodPost, w.srv.AuthURL()+"oauth/authorize", params, nil)
		} else {
			r = oauthDoRaw(t, http.MethodGet, fuzzURL(t, w.srv.AuthURL()+"oauth/authorize?"+params), "", nil)
		}
		fuzzOAuthPage(t, w, "authorize", r)
		if diff := cmp.Diff(before, opSnapshot(t, w.srv)); diff != "" {
			t.Errorf("the authorization endpoint changed the world (-before +after):\n%s", diff)
		}
	})
}

func FuzzOAuthDevice(f *testing.F) {
	f.Fuzz(func(t *testing.T, endpoint uint8, params string) {
		t.Parallel() // the seed corpus runs in parallel; fuzzing ignores it
		w := newOAuthFuzzWorld(t)
		before := opSnapshot(t, w.srv)
		params = w.placeholders.Replace(params)
		switch endpoint % 3 {
		case 0:
			r := oauthDoRaw(t, http.MethodPost, w.srv.AuthURL()+"oauth/authorize_device", params, nil)
			if fuzzOAuthJSON(t, "authorize_device", r) == "" {
				var da deviceAuthAnswer
				_ = json.Unmarshal([]byte(r.body), &da)
				if da.DeviceCode == "" || da.UserCode == "" || da.VerificationURI == "" || da.ExpiresIn <= 0 || da.Interval <= 0 {
					t.Errorf("authorize_device: 200 with %+v", da)
				}
			}
		case 1:
			fuzzOAuthPage(t, w, "device page", oauthDoRaw(t, http.MethodGet, fuzzURL(t, w.srv.AuthURL()+"oauth/device?"+params), "", nil))
		case 2:
			fuzzOAuthPage(t, w, "device form", oauthDoRaw(t, http.MethodPost, w.srv.AuthURL()+"oauth/device", params, nil))
		}
		if diff := cmp.Diff(before, opSnapshot(t, w.srv)); diff != "" {
			t.Errorf("the device endpoints changed the world (-before +after):\n%s", diff)
		}
	})
}
