package fake_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// deviceAuthAnswer is the answer of POST /oauth/authorize_device.
type deviceAuthAnswer struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval"`
	Error                   string `json:"error"`
	ErrorDescription        string `json:"error_description"`
}

// deviceStart starts a device authorization of app with params (client_id
// added) and returns the status and answer.
func deviceStart(t *testing.T, srv *fake.Server, clientID string, params url.Values) (int, deviceAuthAnswer) {
	t.Helper()
	form := url.Values{"client_id": {clientID}}
	maps.Copy(form, params)
	r := oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/authorize_device", form, nil)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("authorize_device: Content-Type %q, body %s", ct, r.body)
	}
	var a deviceAuthAnswer
	if err := json.Unmarshal([]byte(r.body), &a); err != nil {
		t.Fatalf("authorize_device body %q: %v", r.body, err)
	}
	return r.status, a
}

// devicePoll polls the token endpoint with a device code as a public
// client (no secret) and returns the status and answer.
func devicePoll(t *testing.T, srv *fake.Server, clientID, deviceCode string) (int, oauthTokenResponse) {
	t.Helper()
	return oauthToken(t, srv, "form", url.Values{
		"grant_type": {fake.DeviceCodeGrantType}, "client_id": {clientID}, "device_code": {deviceCode},
	})
}

// wantPoll polls and checks the error code ("" for a token).
func wantPoll(t *testing.T, srv *fake.Server, clientID, deviceCode, wantErr string) oauthTokenResponse {
	t.Helper()
	status, tok := devicePoll(t, srv, clientID, deviceCode)
	switch {
	case wantErr == "" && (status != http.StatusOK || tok.AccessToken == ""):
		t.Fatalf("poll at %s: status %d, %+v; want a token", srv.Now().Format(time.TimeOnly), status, tok)
	case wantErr != "" && (status != http.StatusBadRequest || tok.Error != wantErr || tok.ErrorDescription == ""):
		t.Fatalf("poll at %s: status %d, %+v; want 400 %s with a description", srv.Now().Format(time.TimeOnly), status, tok, wantErr)
	}
	return tok
}

// deviceConsent opens the verification page for userCode and returns its
// consent form.
func deviceConsent(t *testing.T, srv *fake.Server, userCode string) oauthForm {
	t.Helper()
	r := oauthDo(t, http.MethodGet, srv.AuthURL()+"oauth/device?"+url.Values{"user_code": {userCode}}.Encode(), nil, nil)
	oauthPage(t, r, http.StatusOK, "Authorize Dashboard")
	return parseOAuthForm(t, r)
}

// deviceDecide posts the consent form with a decision and the chosen
// resources, and returns the page.
func deviceDecide(t *testing.T, srv *fake.Server, f oauthForm, decision string, chosen url.Values) oauthResponse {
	t.Helper()
	return oauthDo(t, http.MethodPost, srv.AuthURL()+strings.TrimPrefix(f.action, "/"), f.values(decision, chosen), f.header())
}

func TestDeviceFlowSignsIn(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
	if _, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}

	status, da := deviceStart(t, srv, app.ClientID, url.Values{"scope": {"user:read_user organization:read_databases"}})
	if status != http.StatusOK {
		t.Fatalf("authorize_device: %d %+v", status, da)
	}
	verify := srv.AuthURL() + "oauth/device"
	if da.DeviceCode == "" || len(da.UserCode) != 9 || da.UserCode[4] != '-' {
		t.Errorf("device code %q, user code %q; want a device code and a user code XXXX-XXXX", da.DeviceCode, da.UserCode)
	}
	want := deviceAuthAnswer{
		DeviceCode: da.DeviceCode, UserCode: da.UserCode, VerificationURI: verify,
		VerificationURIComplete: verify + "?user_code=" + da.UserCode, ExpiresIn: 900, Interval: 5,
	}
	if diff := cmp.Diff(want, da); diff != "" {
		t.Errorf("authorize_device answer (-want +got):\n%s", diff)
	}

	// The user has not decided: pending, and slow_down for a poll sooner
	// than the interval, which then grows by 5 s.
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")
	srv.Advance(time.Second)
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "slow_down")
	srv.Advance(5 * time.Second)
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "slow_down") // 5 s < the new 10 s
	srv.Advance(15 * time.Second)
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")

	// The user types the code as it comes, lower case, without the dash.
	f := deviceConsent(t, srv, strings.ToLower(strings.ReplaceAll(da.UserCode, "-", "")))
	if diff := cmp.Diff(url.Values{"user_code": {da.UserCode}}, f.fields(t)); diff != "" {
		t.Errorf("hidden fields (-want +got):\n%s", diff)
	}
	if f.action != "/oauth/device" {
		t.Errorf("the form posts to %s, want /oauth/device", f.action)
	}
	oauthPage(t, deviceDecide(t, srv, f, "authorize", url.Values{"organization": {srv.Org()}}), http.StatusOK, "Device signed in", "Dashboard has access")

	srv.Advance(20 * time.Second)
	tok := wantPoll(t, srv, app.ClientID, da.DeviceCode, "")
	if tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.Scope != "user:read_user organization:read_databases" {
		t.Errorf("token %+v: want a Bearer token, a refresh token and the application's scopes", tok)
	}
	page, err := oauthClient(t, srv, tok.AccessToken).Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: srv.Org()})
	if err != nil || len(page.Items) != 1 || page.Items[0].Name != "app" {
		t.Errorf("listing databases with the device's token: %v, %v", page, err)
	}

	// The code worked once; the user code is spent.
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "invalid_grant")
	r := oauthDo(t, http.MethodGet, da.VerificationURIComplete, nil, nil)
	oauthPage(t, r, http.StatusBadRequest, "was already used")
}

func TestDeviceFlowDenyAndExpiry(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)

	_, denied := deviceStart(t, srv, app.ClientID, nil)
	oauthPage(t, deviceDecide(t, srv, deviceConsent(t, srv, denied.UserCode), "deny", nil), http.StatusOK, "Access denied")
	wantPoll(t, srv, app.ClientID, denied.DeviceCode, "access_denied")

	_, late := deviceStart(t, srv, app.ClientID, nil)
	srv.Advance(15*time.Minute - time.Second)
	wantPoll(t, srv, app.ClientID, late.DeviceCode, "authorization_pending")
	srv.Advance(time.Second)
	wantPoll(t, srv, app.ClientID, late.DeviceCode, "expired_token")
	oauthPage(t, oauthDo(t, http.MethodGet, late.VerificationURIComplete, nil, nil), http.StatusBadRequest, "not a pending device sign-in")
	// Long after, the code is forgotten.
	srv.Advance(time.Hour)
	wantPoll(t, srv, app.ClientID, late.DeviceCode, "invalid_grant")
}

func TestDeviceFlowAutoApprove(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
	srv.SetAutoApprove(&fake.Consent{})
	// Approved at once: the tool's first poll gets the token, with no
	// visit of the verification page, whose code is then used.
	_, da := deviceStart(t, srv, app.ClientID, nil)
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "")
	oauthPage(t, oauthDo(t, http.MethodGet, da.VerificationURIComplete, nil, nil), http.StatusBadRequest, "already used")
	// A consent the user cannot give leaves the sign-in waiting, and the
	// page says why.
	srv.SetAutoApprove(&fake.Consent{Organizations: []string{"nosuchorg"}})
	_, da = deviceStart(t, srv, app.ClientID, nil)
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")
}

func TestDeviceFlowRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
	other := oauthApp(t, srv, "https://other.example.com/cb", platform.ScopeUserReadUser)

	t.Run("authorize_device", func(t *testing.T) {
		for _, tc := range []struct {
			name       string
			clientID   string
			params     url.Values
			wantStatus int
			wantErr    string
		}{
			{"no client", "", nil, 401, "invalid_client"},
			{"unknown client", "nope", nil, 401, "invalid_client"},
			{"wrong secret", app.ClientID, url.Values{"client_secret": {"wrong"}}, 401, "invalid_client"},
			{"scope of no application", app.ClientID, url.Values{"scope": {"user:read_user organization:delete_databases"}}, 400, "invalid_scope"},
		} {
			status, a := deviceStart(t, srv, tc.clientID, tc.params)
			if status != tc.wantStatus || a.Error != tc.wantErr || a.ErrorDescription == "" || a.DeviceCode != "" {
				t.Errorf("%s: %d %+v; want %d %s with a description", tc.name, status, a, tc.wantStatus, tc.wantErr)
			}
		}
		// The right secret is accepted, though the flow needs none.
		if status, _ := deviceStart(t, srv, app.ClientID, url.Values{"client_secret": {app.ClientSecret}}); status != http.StatusOK {
			t.Errorf("with the right secret: %d", status)
		}
	})

	t.Run("token", func(t *testing.T) {
		_, da := deviceStart(t, srv, app.ClientID, nil)
		wantPoll(t, srv, app.ClientID, "", "invalid_request")
		wantPoll(t, srv, other.ClientID, da.DeviceCode, "invalid_grant")
		wantPoll(t, srv, app.ClientID, "device_nosuch", "invalid_grant")
		if status, tok := devicePoll(t, srv, "", da.DeviceCode); status != 401 || tok.Error != "invalid_client" {
			t.Errorf("poll without client_id: %d %+v", status, tok)
		}
	})

	t.Run("page", func(t *testing.T) {
		oauthPage(t, oauthDo(t, http.MethodGet, srv.AuthURL()+"oauth/device", nil, nil), http.StatusOK, "Enter the code your device shows")
		oauthPage(t, oauthDo(t, http.MethodGet, srv.AuthURL()+"oauth/device?user_code=BCDF-GHJK", nil, nil), http.StatusBadRequest, "not a pending device sign-in")
		_, da := deviceStart(t, srv, app.ClientID, nil)
		f := deviceConsent(t, srv, da.UserCode)
		oauthPage(t, deviceDecide(t, srv, f, "maybe", nil), http.StatusBadRequest, "decision must be authorize or deny")
		wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending") // nothing decided
	})
}

func TestDeviceFlowSignedOut(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
	_, da := deviceStart(t, srv, app.ClientID, nil)
	srv.SignOut()
	oauthPage(t, oauthDo(t, http.MethodGet, da.VerificationURIComplete, nil, nil), http.StatusUnauthorized, "no user is signed in")
	oauthPage(t, oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/device", url.Values{"user_code": {da.UserCode}, "decision": {"authorize"}}, nil), http.StatusUnauthorized, "no user is signed in")
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")
}

func TestApproveAndDenyDevice(t *testing.T) {
	t.Parallel()
	type decide func(t *testing.T, srv *fake.Server, userCode string) error
	goAPI := func(approve bool) decide {
		return func(_ *testing.T, srv *fake.Server, code string) error {
			if approve {
				return srv.ApproveDevice(code)
			}
			return srv.DenyDevice(code)
		}
	}
	control := func(approve bool) decide {
		return func(t *testing.T, srv *fake.Server, code string) error {
			path := "/_fake/oauth/device/deny"
			if approve {
				path = "/_fake/oauth/device/approve"
			}
			w := send(t, srv, http.MethodPost, path, admin(srv), controlJSON(t, map[string]string{"user_code": code}))
			if w.status != http.StatusNoContent {
				return fmt.Errorf("%d %s", w.status, w.body)
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name             string
		approve, deny    decide
		unknownMentioned string // what an unknown code's error says
	}{
		{"Go", goAPI(true), goAPI(false), "not a pending device sign-in"},
		{"control", control(true), control(false), "404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
			// Approved as the signed-in user, on their default
			// organization; the code as the user types it.
			bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
			if err := srv.SignIn(bob); err != nil {
				t.Fatal(err)
			}
			_, da := deviceStart(t, srv, app.ClientID, nil)
			if err := tc.approve(t, srv, strings.ToLower(da.UserCode)); err != nil {
				t.Fatalf("approve: %v", err)
			}
			tok := wantPoll(t, srv, app.ClientID, da.DeviceCode, "")
			if tok.Scope != "user:read_user organization:read_databases" {
				t.Errorf("scope %q, want the application's on the default organization", tok.Scope)
			}
			me, err := oauthClient(t, srv, tok.AccessToken).Users.GetCurrent(t.Context())
			if err != nil || me.ID != bob {
				t.Errorf("the approved token acts for %+v (%v), want the signed-in %s", me, err, bob)
			}

			_, denied := deviceStart(t, srv, app.ClientID, nil)
			if err := tc.deny(t, srv, denied.UserCode); err != nil {
				t.Fatalf("deny: %v", err)
			}
			wantPoll(t, srv, app.ClientID, denied.DeviceCode, "access_denied")

			// Refusals: a used code, an unknown one, an expired one, and
			// nobody signed in; none changes anything.
			for _, code := range []string{da.UserCode, denied.UserCode} {
				if err := tc.approve(t, srv, code); err == nil || !strings.Contains(err.Error(), "already used") {
					t.Errorf("approving the decided %s: %v, want it refused as already used", code, err)
				}
			}
			if err := tc.deny(t, srv, "BCDF-GHJK"); err == nil || !strings.Contains(err.Error(), tc.unknownMentioned) {
				t.Errorf("denying an unknown code: %v, want it refused (%s)", err, tc.unknownMentioned)
			}
			_, late := deviceStart(t, srv, app.ClientID, nil)
			srv.Advance(15 * time.Minute)
			if err := tc.approve(t, srv, late.UserCode); err == nil || !strings.Contains(err.Error(), "expired") {
				t.Errorf("approving an expired code: %v, want it refused as expired", err)
			}
			_, waiting := deviceStart(t, srv, app.ClientID, nil)
			srv.SignOut()
			if err := tc.approve(t, srv, waiting.UserCode); err == nil || !strings.Contains(err.Error(), "signed in") {
				t.Errorf("approving with nobody signed in: %v, want it refused", err)
			}
			wantPoll(t, srv, app.ClientID, waiting.DeviceCode, "authorization_pending")
		})
	}
}

// TestDevicePollErrorsExplain checks that the poll's refusals say what
// approves a sign-in, and when it was too late.
func TestDevicePollErrorsExplain(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
	_, pending := deviceStart(t, srv, app.ClientID, nil)
	_, denied := deviceStart(t, srv, app.ClientID, nil)
	_, unpolled := deviceStart(t, srv, app.ClientID, nil)
	if err := srv.DenyDevice(denied.UserCode); err != nil {
		t.Fatal(err)
	}
	if err := srv.ApproveDevice(unpolled.UserCode); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		da    deviceAuthAnswer
		code  string
		words []string
	}{
		{pending, "authorization_pending", []string{pending.UserCode, "ApproveDevice"}},
		{denied, "access_denied", []string{"Ada Admin", "denied", denied.UserCode, "authorize_device"}},
	} {
		tok := wantPoll(t, srv, app.ClientID, tc.da.DeviceCode, tc.code)
		for _, w := range tc.words {
			if !strings.Contains(tok.ErrorDescription, w) {
				t.Errorf("%s: %q does not mention %q", tc.code, tok.ErrorDescription, w)
			}
		}
	}
	srv.Advance(15 * time.Minute)
	for _, tc := range []struct {
		da    deviceAuthAnswer
		words []string
	}{
		{pending, []string{"nobody approved", pending.UserCode, "ApproveDevice", "authorize_device"}},
		{unpolled, []string{"was approved", "authorize_device"}},
	} {
		tok := wantPoll(t, srv, app.ClientID, tc.da.DeviceCode, "expired_token")
		for _, w := range tc.words {
			if !strings.Contains(tok.ErrorDescription, w) {
				t.Errorf("expired_token of %s: %q does not mention %q", tc.da.UserCode, tok.ErrorDescription, w)
			}
		}
	}
}

// TestDeviceUserCodesThrottled guesses user codes at the verification
// page: the fifth wrong code within a minute is answered slow_down, and
// then every code is refused, the right one too, until the minute on the
// fake's clock has passed.
func TestDeviceUserCodesThrottled(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
	_, da := deviceStart(t, srv, app.ClientID, nil)
	page := func(code string) oauthResponse {
		return oauthDo(t, http.MethodGet, srv.AuthURL()+"oauth/device?"+url.Values{"user_code": {code}}.Encode(), nil, nil)
	}
	guesses := []string{"BCDF-GHJB", "BCDF-GHJC", "BCDF-GHJD", "BCDF-GHJF"}
	for _, g := range guesses {
		oauthPage(t, page(g), http.StatusBadRequest, "not a pending device sign-in")
		srv.Advance(10 * time.Second)
	}
	slow := page("BCDF-GHJG")
	oauthPage(t, slow, http.StatusTooManyRequests, "slow_down")
	if got := slow.header.Get("Retry-After"); got != "20" {
		t.Errorf("Retry-After %q, want 20 (the rest of the minute)", got)
	}
	// The right code is refused too, on the page and in the form.
	oauthPage(t, page(da.UserCode), http.StatusTooManyRequests, "too many wrong user codes")
	srv.Advance(19 * time.Second)
	oauthPage(t, page(da.UserCode), http.StatusTooManyRequests)
	srv.Advance(time.Second)
	f := deviceConsent(t, srv, da.UserCode)
	oauthPage(t, deviceDecide(t, srv, f, "authorize", nil), http.StatusOK, "Device signed in")
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "")
}

// TestDeviceConsentsTheUserCannotGive: a consent naming a resource that is
// not there, or not the user's, is refused naming it, by ApproveDevice
// (with the auto-approval's consent), by the verification page under
// auto-approval and by the consent form; the sign-in keeps waiting.
func TestDeviceConsentsTheUserCannotGive(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	org := srv.Org()
	mustDB(t, srv, "app")
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeOrganizationReadDatabases, platform.ScopeDatabaseReadDatabase, platform.ScopeBranchReadBranch)
	for _, tc := range []struct {
		name string
		c    fake.Consent
		word string
	}{
		{"no such organization", fake.Consent{Organizations: []string{"nosuch"}}, `not a member of an organization "nosuch"`},
		{"database of no such organization", fake.Consent{Databases: []string{"nosuch/app"}}, `not a member of an organization "nosuch"`},
		{"no such database", fake.Consent{Databases: []string{org + "/nope"}}, `database "` + org + `/nope" is not a database of ` + org},
		{"branch not a path", fake.Consent{Branches: []string{org + "/app"}}, `branch "` + org + `/app" is not organization/database/branch`},
		{"branch of no such organization", fake.Consent{Branches: []string{"nosuch/app/main"}}, `not a member of an organization "nosuch"`},
		{"branch of no such database", fake.Consent{Branches: []string{org + "/nope/main"}}, `branch "` + org + `/nope/main" is not a branch of ` + org},
		{"no such branch", fake.Consent{Branches: []string{org + "/app/nope"}}, `branch "` + org + `/app/nope" is not a branch of ` + org},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, da := deviceStart(t, srv, app.ClientID, nil)
			srv.SetAutoApprove(&tc.c)
			defer srv.SetAutoApprove(nil)
			if err := srv.ApproveDevice(da.UserCode); err == nil || !strings.Contains(err.Error(), tc.word) || !strings.Contains(err.Error(), "ApproveDevice") {
				t.Errorf("ApproveDevice = %v, want an error of ApproveDevice naming %s", err, tc.word)
			}
			oauthPage(t, oauthDo(t, http.MethodGet, da.VerificationURIComplete, nil, nil), http.StatusBadRequest, tc.word)
			srv.SetAutoApprove(nil)
			f := deviceConsent(t, srv, da.UserCode)
			chosen := url.Values{"organization": tc.c.Organizations, "database": tc.c.Databases, "branch": tc.c.Branches}
			oauthPage(t, deviceDecide(t, srv, f, "authorize", chosen), http.StatusBadRequest, tc.word)
			srv.Advance(10 * time.Second)
			wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")
		})
	}
}

// TestDevicePageAutoApprovesAnEarlierSignIn: a sign-in started before
// SetAutoApprove is approved, with its consent, when the user opens the
// verification page; ApproveDevice approves another with it too.
func TestDevicePageAutoApprovesAnEarlierSignIn(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	org := srv.Org()
	mustDB(t, srv, "app")
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser, platform.ScopeDatabaseReadDatabase)
	_, viaPage := deviceStart(t, srv, app.ClientID, nil)
	_, viaAPI := deviceStart(t, srv, app.ClientID, nil)
	srv.SetAutoApprove(&fake.Consent{Databases: []string{org + "/app"}})
	oauthPage(t, oauthDo(t, http.MethodGet, viaPage.VerificationURIComplete, nil, nil), http.StatusOK, "Device signed in", "Dashboard has access")
	if err := srv.ApproveDevice(viaAPI.UserCode); err != nil {
		t.Fatal(err)
	}
	for _, da := range []deviceAuthAnswer{viaPage, viaAPI} {
		tok := wantPoll(t, srv, app.ClientID, da.DeviceCode, "")
		if tok.Scope != "user:read_user database:read_database" {
			t.Errorf("scope %q, want the consent's database scope with the user's", tok.Scope)
		}
		if _, err := oauthClient(t, srv, tok.AccessToken).Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: org, Database: "app"}); err != nil {
			t.Errorf("the token does not reach the consented database: %v", err)
		}
	}
}

// TestDeviceFormRefusals: the device consent form's POST refuses a body
// that is not a form and a code that names no pending sign-in, deciding
// nothing.
func TestDeviceFormRefusals(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
	_, da := deviceStart(t, srv, app.ClientID, nil)
	f := deviceConsent(t, srv, da.UserCode)
	oauthPage(t, oauthDoRaw(t, http.MethodPost, srv.AuthURL()+"oauth/device", "user_code=%zz", f.header()), http.StatusBadRequest, "reading the form")
	bad := f.values("authorize", nil)
	bad.Set("user_code", "BCDF-GHJK")
	oauthPage(t, oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/device", bad, f.header()), http.StatusBadRequest, "not a pending device sign-in")
	srv.Advance(10 * time.Second)
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")
	oauthPage(t, deviceDecide(t, srv, f, "authorize", nil), http.StatusOK, "Device signed in")
}

// TestDeviceApprovalByAUserOfNoOrganization: an application asking for
// organization scopes cannot be approved by a signed-in user who belongs
// to no organization, as there is none to grant them on; the sign-in keeps
// waiting.
func TestDeviceApprovalByAUserOfNoOrganization(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
	if err := srv.SignIn(srv.CreateUser("Nora Nobody", "nora@example.com")); err != nil {
		t.Fatal(err)
	}
	_, da := deviceStart(t, srv, app.ClientID, nil)
	if err := srv.ApproveDevice(da.UserCode); err == nil || !strings.Contains(err.Error(), "choose at least one organization") {
		t.Errorf("ApproveDevice = %v, want an error asking for an organization", err)
	}
	wantPoll(t, srv, app.ClientID, da.DeviceCode, "authorization_pending")
}
