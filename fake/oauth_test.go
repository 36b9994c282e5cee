package fake_test

import (
	"encoding/json"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This file tests the fake's OAuth server: the authorization-code flow over
// real HTTP with a plain net/http client, as a browser and an application's
// backend would drive it. Its helpers (oauth...) serve the other OAuth and
// scope tests too.

// oauthCallback is an application's redirect URI: an httptest server that
// records the query of every request it receives.
type oauthCallback struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []url.Values
}

func newOAuthCallback(t *testing.T) *oauthCallback {
	t.Helper()
	cb := &oauthCallback{}
	cb.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cb.mu.Lock()
		cb.got = append(cb.got, r.URL.Query())
		cb.mu.Unlock()
		_, _ = io.WriteString(w, "signed in")
	}))
	t.Cleanup(cb.srv.Close)
	return cb
}

// uri is the callback's redirect URI.
func (cb *oauthCallback) uri() string { return cb.srv.URL + "/callback" }

// only returns the one query the callback received.
func (cb *oauthCallback) only(t *testing.T) url.Values {
	t.Helper()
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if len(cb.got) != 1 {
		t.Fatalf("the redirect URI received %d requests, want 1: %v", len(cb.got), cb.got)
	}
	return cb.got[0]
}

// oauthApp creates an application of acme on the callback's domain.
func oauthApp(t testing.TB, srv *fake.Server, redirectURI string, scopes ...platform.Scope) fake.OAuthApp {
	t.Helper()
	u, err := url.Parse(redirectURI)
	if err != nil {
		t.Fatal(err)
	}
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Dashboard", Domain: u.Scheme + "://" + u.Host, RedirectURI: redirectURI, Scopes: scopes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// oauthResponse is a response of the OAuth endpoints.
type oauthResponse struct {
	status int
	header http.Header
	body   string
}

// oauthDo sends a request to the fake without following redirects; a
// non-nil form is the body, form-encoded.
func oauthDo(t testing.TB, method, target string, form url.Values, header http.Header) oauthResponse {
	t.Helper()
	if form == nil {
		return oauthSend(t, method, target, nil, header)
	}
	return oauthSend(t, method, target, strings.NewReader(form.Encode()), header)
}

// oauthDoRaw sends a request whose form body is body as it is ("" for
// none), without following redirects. A target that is not a URL fails the
// test.
func oauthDoRaw(t testing.TB, method, target, body string, header http.Header) oauthResponse {
	t.Helper()
	if body == "" {
		return oauthSend(t, method, target, nil, header)
	}
	return oauthSend(t, method, target, strings.NewReader(body), header)
}

// oauthSend sends a request with a form body (none when body is nil),
// without following redirects; in process to a server of the operation
// tables (opInProcessHosts).
func oauthSend(t testing.TB, method, target string, body io.Reader, header http.Header) oauthResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(req.Header, header)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	// Over a transport of the request's own, unless in process: its
	// connection ends when the server closes it, and no later server on
	// the same port is reached through it (see clientOf).
	var transport http.RoundTripper = &http.Transport{}
	if srv, ok := opInProcessHosts.Load(req.URL.Host); ok {
		transport = opInProcess{srv.(*fake.Server)}
	}
	client := &http.Client{Transport: transport, CheckRedirect: noFollow}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return oauthResponse{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// oauthAuthorizeURL is the authorization page's address for app; state is
// left out when empty.
func oauthAuthorizeURL(srv *fake.Server, clientID, redirectURI, state string) string {
	q := url.Values{"client_id": {clientID}, "redirect_uri": {redirectURI}}
	if state != "" {
		q.Set("state", state)
	}
	return srv.AuthURL() + "oauth/authorize?" + q.Encode()
}

// oauthRedirect checks that r redirects to redirectURI and returns the
// redirect's query.
func oauthRedirect(t testing.TB, r oauthResponse, redirectURI string) url.Values {
	t.Helper()
	if r.status != http.StatusFound {
		t.Fatalf("status %d, want 302; body %s", r.status, r.body)
	}
	loc, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != redirectURI {
		t.Fatalf("redirect to %s, want %s", got, redirectURI)
	}
	return loc.Query()
}

// oauthPage checks that r is an HTML page with status (no redirect) whose
// text mentions every one of words.
func oauthPage(t testing.TB, r oauthResponse, status int, words ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if loc := r.header.Get("Location"); loc != "" {
		t.Errorf("the page redirects to %s", loc)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q, want text/html", ct)
	}
	text := html.UnescapeString(r.body)
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not mention %q:\n%s", w, r.body)
		}
	}
}

// oauthForm is the consent page's form as a browser sees it.
type oauthForm struct {
	action  string
	hidden  url.Values
	selects map[string][]oauthOption
	buttons []string // the values of the submit buttons named decision
	// cookie is the Cookie header a browser sends back: the form session
	// the page set.
	cookie string
}

// oauthOption is an option of a select.
type oauthOption struct {
	value    string
	selected bool
}

var (
	oauthFormRE    = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	oauthHiddenRE  = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	oauthSelectRE  = regexp.MustCompile(`(?s)<select name="([^"]+)" multiple>(.*?)</select>`)
	oauthOptionRE  = regexp.MustCompile(`<option value="([^"]*)"( selected)?>`)
	oauthButtonRE  = regexp.MustCompile(`<button type="submit" name="decision" value="([^"]+)">`)
	oauthElementRE = regexp.MustCompile(`<(input|select|button|textarea)\b`)
)

// parseOAuthForm reads the consent page's one form, and the cookies the
// page set.
func parseOAuthForm(t testing.TB, r oauthResponse) oauthForm {
	t.Helper()
	page := r.body
	m := oauthFormRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form on the consent page:\n%s", page)
	}
	f := oauthForm{action: html.UnescapeString(m[1]), hidden: url.Values{}, selects: map[string][]oauthOption{}}
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		f.cookie = c.Name + "=" + c.Value
	}
	for _, m := range oauthHiddenRE.FindAllStringSubmatch(page, -1) {
		f.hidden.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	for _, m := range oauthSelectRE.FindAllStringSubmatch(page, -1) {
		var opts []oauthOption
		for _, o := range oauthOptionRE.FindAllStringSubmatch(m[2], -1) {
			opts = append(opts, oauthOption{value: html.UnescapeString(o[1]), selected: o[2] != ""})
		}
		f.selects[m[1]] = opts
	}
	for _, m := range oauthButtonRE.FindAllStringSubmatch(page, -1) {
		f.buttons = append(f.buttons, m[1])
	}
	// Every form element must be one the expressions read.
	seen := len(f.hidden) + len(f.selects) + len(f.buttons)
	if n := len(oauthElementRE.FindAllString(page, -1)); n != seen {
		t.Fatalf("the consent page has %d form elements, the test read %d:\n%s", n, seen, page)
	}
	return f
}

// values are what a browser sends for the form: the decision button, the
// hidden fields and the chosen select values. The Cookie header goes with
// them (header).
func (f oauthForm) values(decision string, chosen url.Values) url.Values {
	form := url.Values{"decision": {decision}}
	maps.Copy(form, f.hidden)
	maps.Copy(form, chosen)
	return form
}

// fields are the form's hidden fields but its csrf_token, which must be
// there, with the session cookie the page set.
func (f oauthForm) fields(t testing.TB) url.Values {
	t.Helper()
	if f.hidden.Get("csrf_token") == "" || f.cookie == "" {
		t.Errorf("the form has no csrf_token (%q) or the page set no session cookie (%q)", f.hidden.Get("csrf_token"), f.cookie)
	}
	out := url.Values{}
	for k, v := range f.hidden {
		if k != "csrf_token" {
			out[k] = v
		}
	}
	return out
}

// header is the form's Cookie header, as a browser sends it with the form.
func (f oauthForm) header() http.Header {
	h := http.Header{}
	if f.cookie != "" {
		h.Set("Cookie", f.cookie)
	}
	return h
}

// submit posts the form as a browser would, with the decision button and
// the chosen select values, following redirects (to the application's
// redirect URI).
func (f oauthForm) submit(t testing.TB, srv *fake.Server, decision string, chosen url.Values) *http.Response {
	t.Helper()
	form := f.values(decision, chosen)
	target, err := url.Parse(srv.AuthURL())
	if err != nil {
		t.Fatal(err)
	}
	target = target.ResolveReference(&url.URL{Path: f.action})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, target.String(), strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = f.header()
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := clientOf(srv).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// oauthTokenResponse is the token endpoint's answer.
type oauthTokenResponse struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int    `json:"expires_in"`
	RefreshToken     string `json:"refresh_token"`
	Scope            string `json:"scope"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// oauthToken posts params to the token endpoint, in the query string
// (mode "query") or a form body (mode "form"), and returns the status and
// the decoded answer.
func oauthToken(t testing.TB, srv *fake.Server, mode string, params url.Values) (int, oauthTokenResponse) {
	t.Helper()
	target := srv.AuthURL() + "oauth/token"
	var r oauthResponse
	switch mode {
	case "query":
		r = oauthDo(t, http.MethodPost, target+"?"+params.Encode(), nil, nil)
	case "form":
		r = oauthDo(t, http.MethodPost, target, params, nil)
	default:
		t.Fatalf("mode %q", mode)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("token endpoint Content-Type %q, want application/json", ct)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("token endpoint Cache-Control %q, want no-store", cc)
	}
	var out oauthTokenResponse
	if err := json.Unmarshal([]byte(r.body), &out); err != nil {
		t.Fatalf("token endpoint body %q: %v", r.body, err)
	}
	return r.status, out
}

// wantOAuthError checks an RFC 6749 error of the token endpoint.
func wantOAuthError(t testing.TB, status int, got oauthTokenResponse, wantStatus int, code string) {
	t.Helper()
	if status != wantStatus || got.Error != code {
		t.Fatalf("token endpoint: %d %q (%s), want %d %q", status, got.Error, got.ErrorDescription, wantStatus, code)
	}
	if got.ErrorDescription == "" || got.AccessToken != "" {
		t.Errorf("error body %+v: want a description and no token", got)
	}
}

// revokeParams are the revocation endpoint's parameters for token.
func revokeParams(app fake.OAuthApp, token string) url.Values {
	return url.Values{"token": {token}, "client_id": {app.ClientID}, "client_secret": {app.ClientSecret}}
}

// codeParams are the token endpoint's parameters for exchanging code.
func codeParams(app fake.OAuthApp, code string) url.Values {
	return url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {app.RedirectURI},
		"client_id": {app.ClientID}, "client_secret": {app.ClientSecret},
	}
}

// refreshParams are the token endpoint's parameters for a refresh.
func refreshParams(app fake.OAuthApp, refresh string) url.Values {
	return url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refresh},
		"client_id": {app.ClientID}, "client_secret": {app.ClientSecret},
	}
}

// oauthCode gets a code for app through auto-approval with consent c.
func oauthCode(t testing.TB, srv *fake.Server, app fake.OAuthApp, c fake.Consent) string {
	t.Helper()
	srv.SetAutoApprove(&c)
	q := oauthRedirect(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, ""), nil, nil), app.RedirectURI)
	if q.Get("code") == "" {
		t.Fatalf("redirect without a code: %v", q)
	}
	return q.Get("code")
}

// oauthIssue gets a token for app through auto-approval with consent c and
// the token endpoint.
func oauthIssue(t testing.TB, srv *fake.Server, app fake.OAuthApp, c fake.Consent) oauthTokenResponse {
	t.Helper()
	status, tok := oauthToken(t, srv, "form", codeParams(app, oauthCode(t, srv, app, c)))
	if status != http.StatusOK {
		t.Fatalf("exchanging the code: %d %+v", status, tok)
	}
	return tok
}

// oauthGrant creates an application asking for scopes and returns an
// access token the admin user granted it with consent c.
func oauthGrant(t testing.TB, srv *fake.Server, c fake.Consent, scopes ...platform.Scope) string {
	t.Helper()
	return oauthIssue(t, srv, oauthApp(t, srv, "https://app.example.com/callback", scopes...), c).AccessToken
}

// oauthClient is an SDK client of srv that sends the access token.
func oauthClient(t testing.TB, srv *fake.Server, access string) *platform.Client {
	t.Helper()
	c, err := platform.NewClient(
		platform.WithBaseURL(srv.URL()),
		platform.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: access})),
		platform.WithoutRetries(),
	)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bearer is the Authorization header of an access token.
func bearer(access string) string { return "Bearer " + access }

func TestOAuthCodeFlow(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"query", "form"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			mustDB(t, srv, "app")
			mustDB(t, srv, "other")
			srv.Advance(5 * time.Second)
			cb := newOAuthCallback(t)
			app := oauthApp(t, srv, cb.uri(), platform.ScopeUserReadUser, platform.ScopeOrganizationReadOrganization,
				platform.ScopeDatabaseReadDatabase, platform.ScopeBranchReadBranch)

			// The consent page of the signed-in admin.
			page := oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "xyz&1"), nil, nil)
			oauthPage(t, page, http.StatusOK, "Dashboard", "Ada Admin", "user:read_user", "organization:read_organization",
				"database:read_database", "branch:read_branch", "Authorize", "Deny")
			form := parseOAuthForm(t, page)
			wantHidden := url.Values{"client_id": {app.ClientID}, "redirect_uri": {app.RedirectURI}, "state": {"xyz&1"}}
			if diff := cmp.Diff(wantHidden, form.fields(t)); diff != "" {
				t.Errorf("hidden fields (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"authorize", "deny"}, form.buttons); diff != "" {
				t.Errorf("buttons (-want +got):\n%s", diff)
			}
			wantSelects := map[string][]oauthOption{
				"organization": {{value: "acme", selected: true}},
				"database":     {{value: "acme/app"}, {value: "acme/other"}},
				"branch":       {{value: "acme/app/main"}, {value: "acme/other/main"}},
			}
			if diff := cmp.Diff(wantSelects, form.selects, cmp.AllowUnexported(oauthOption{})); diff != "" {
				t.Errorf("selects (-want +got):\n%s", diff)
			}

			// Authorize: the browser lands on the redirect URI with a code
			// and the state.
			resp := form.submit(t, srv, "authorize", url.Values{"organization": {"acme"}, "database": {"acme/app"}, "branch": {"acme/app/main"}})
			if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/callback" {
				t.Fatalf("after Authorize: %d at %s", resp.StatusCode, resp.Request.URL)
			}
			got := cb.only(t)
			if got.Get("state") != "xyz&1" || got.Get("code") == "" || len(got) != 2 {
				t.Fatalf("redirect query %v, want a code and state xyz&1", got)
			}

			status, tok := oauthToken(t, srv, mode, codeParams(app, got.Get("code")))
			if status != http.StatusOK {
				t.Fatalf("token endpoint: %d %+v", status, tok)
			}
			if tok.TokenType != "Bearer" || tok.ExpiresIn != 2592000 || tok.AccessToken == "" || tok.RefreshToken == "" {
				t.Errorf("token response %+v", tok)
			}
			if want := "user:read_user organization:read_organization database:read_database branch:read_branch"; tok.Scope != want {
				t.Errorf("scope %q, want %q", tok.Scope, want)
			}

			// The token acts for the admin, within its scopes.
			ctx, c := t.Context(), oauthClient(t, srv, tok.AccessToken)
			me, err := c.Users.GetCurrent(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if me.ID != srv.AdminUserID() {
				t.Errorf("current user %s, want the admin %s", me.ID, srv.AdminUserID())
			}
			if _, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "acme"}); err != nil {
				t.Errorf("reading acme: %v", err)
			}
			if _, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err != nil {
				t.Errorf("reading app: %v", err)
			}
			if _, err := c.Branches.Get(ctx, &platform.GetBranchParams{Organization: "acme", Database: "app", Branch: "main"}); err != nil {
				t.Errorf("reading app/main: %v", err)
			}
			// Not granted: the other database, its branch, and listing
			// databases (organization:read_databases).
			_, err = c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "other"})
			apiError(t, err, http.StatusNotFound)
			_, err = c.Branches.Get(ctx, &platform.GetBranchParams{Organization: "acme", Database: "other", Branch: "main"})
			apiError(t, err, http.StatusNotFound)
			_, err = c.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme"})
			apiError(t, err, http.StatusNotFound)
		})
	}
}

func TestOAuthDeny(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	cb := newOAuthCallback(t)
	app := oauthApp(t, srv, cb.uri(), platform.ScopeUserReadUser)
	page := oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "s1"), nil, nil)
	form := parseOAuthForm(t, page)
	if _, ok := form.selects["organization"]; ok {
		t.Error("a consent page for user scopes only offers organizations")
	}
	form.submit(t, srv, "deny", nil)
	got := cb.only(t)
	if got.Get("error") != "access_denied" || got.Get("state") != "s1" || got.Has("code") {
		t.Errorf("redirect query %v, want error=access_denied, state s1 and no code", got)
	}
	tokens, err := srv.Client().OAuthApplications.ListTokens(t.Context(), &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens.Items) != 0 {
		t.Errorf("a denied authorization left %d tokens", len(tokens.Items))
	}
}

func TestOAuthRedirectWithoutState(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb?tenant=7", platform.ScopeUserReadUser)
	srv.SetAutoApprove(&fake.Consent{})
	q := oauthRedirect(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, ""), nil, nil), "https://app.example.com/cb")
	if q.Has("state") || q.Get("code") == "" || q.Get("tenant") != "7" {
		t.Errorf("redirect query %v: want a code, the redirect URI's own query, and no state", q)
	}
}

func TestOAuthCodeSingleUse(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	code := oauthCode(t, srv, app, fake.Consent{})
	status, tok := oauthToken(t, srv, "query", codeParams(app, code))
	if status != http.StatusOK {
		t.Fatalf("first exchange: %d %+v", status, tok)
	}
	status, again := oauthToken(t, srv, "query", codeParams(app, code))
	wantOAuthError(t, status, again, http.StatusBadRequest, "invalid_grant")
	// A code that comes back revokes the token issued from it (RFC 6749
	// 4.1.2): both its access and refresh tokens.
	_, err := oauthClient(t, srv, tok.AccessToken).Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized)
	status, refreshed := oauthToken(t, srv, "form", refreshParams(app, tok.RefreshToken))
	wantOAuthError(t, status, refreshed, http.StatusBadRequest, "invalid_grant")
}

func TestOAuthCodeExpires(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	late := oauthCode(t, srv, app, fake.Consent{})
	srv.Advance(10*time.Minute - time.Second)
	inTime := oauthCode(t, srv, app, fake.Consent{})
	srv.Advance(time.Second)
	status, tok := oauthToken(t, srv, "query", codeParams(app, late))
	wantOAuthError(t, status, tok, http.StatusBadRequest, "invalid_grant")
	if status, tok := oauthToken(t, srv, "query", codeParams(app, inTime)); status != http.StatusOK {
		t.Fatalf("a code 1s old: %d %+v", status, tok)
	}
}

func TestOAuthRedirectURIOffDomain(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	form := parseOAuthForm(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "s"), nil, nil))
	for _, uri := range []string{
		"https://evil.example.com/cb",
		"https://app.example.com.evil.test/cb",
		"http://app.example.com/cb",
		"https://app.example.com:8443/cb",
		"https://user@app.example.com/cb",
		"/cb",
		"not a url",
	} {
		for _, auto := range []bool{false, true} {
			if auto {
				srv.SetAutoApprove(&fake.Consent{})
			} else {
				srv.SetAutoApprove(nil)
			}
			r := oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, uri, "s"), nil, nil)
			oauthPage(t, r, http.StatusBadRequest, "redirect_uri")
		}
		// The form cannot be forged to another domain either.
		forged := form.values("authorize", nil)
		forged.Set("redirect_uri", uri)
		r := oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/authorize", forged, form.header())
		oauthPage(t, r, http.StatusBadRequest, "redirect_uri")
	}
}

func TestOAuthRedirectURIMustMatchAtExchange(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	// Another path on the domain is a valid redirect URI...
	srv.SetAutoApprove(&fake.Consent{})
	q := oauthRedirect(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, "https://app.example.com/other", ""), nil, nil), "https://app.example.com/other")
	// ...but the exchange must name the one the code was issued for.
	status, tok := oauthToken(t, srv, "query", codeParams(app, q.Get("code")))
	wantOAuthError(t, status, tok, http.StatusBadRequest, "invalid_grant")
	params := codeParams(app, q.Get("code"))
	params.Set("redirect_uri", "https://app.example.com/other")
	if status, tok := oauthToken(t, srv, "query", params); status != http.StatusOK {
		t.Fatalf("with the authorization's redirect_uri: %d %+v", status, tok)
	}
}

func TestOAuthClientAuthentication(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	other := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	code := oauthCode(t, srv, app, fake.Consent{})
	for name, change := range map[string]func(url.Values){
		"wrong secret":        func(p url.Values) { p.Set("client_secret", app.ClientSecret+"x") },
		"no secret":           func(p url.Values) { p.Del("client_secret") },
		"unknown client":      func(p url.Values) { p.Set("client_id", "app_nosuchclient") },
		"no client":           func(p url.Values) { p.Del("client_id") },
		"another app's creds": func(p url.Values) { p.Set("client_id", other.ClientID); p.Set("client_secret", other.ClientSecret) },
	} {
		params := codeParams(app, code)
		change(params)
		r := oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/token", params, nil)
		var got oauthTokenResponse
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		if name == "another app's creds" {
			// Authenticated, but the code is not the other app's.
			wantOAuthError(t, r.status, got, http.StatusBadRequest, "invalid_grant")
			continue
		}
		wantOAuthError(t, r.status, got, http.StatusUnauthorized, "invalid_client")
		if r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: no WWW-Authenticate header on invalid_client", name)
		}
	}
	// The refused attempts did not use the code up; HTTP Basic
	// authentication of the client works too.
	params := codeParams(app, code)
	params.Del("client_id")
	params.Del("client_secret")
	basic := http.Header{}
	basic.Set("Authorization", "Basic "+basicAuth(url.QueryEscape(app.ClientID), url.QueryEscape(app.ClientSecret)))
	// Credentials in both places must agree.
	for name, p := range map[string]url.Values{
		"another client_id":     {"client_id": {other.ClientID}},
		"another client_secret": {"client_secret": {other.ClientSecret}},
	} {
		mixed := codeParams(app, code)
		mixed.Del("client_id")
		mixed.Del("client_secret")
		maps.Copy(mixed, p)
		r := oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/token", mixed, basic)
		var got oauthTokenResponse
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		wantOAuthError(t, r.status, got, http.StatusBadRequest, "invalid_request")
		if !strings.Contains(got.ErrorDescription, "differ") {
			t.Errorf("%s with Basic authentication: %q, want it to say the credentials differ", name, got.ErrorDescription)
		}
	}
	r := oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/token", params, basic)
	if r.status != http.StatusOK {
		t.Fatalf("exchange with Basic client authentication: %d %s", r.status, r.body)
	}
}

// basicAuth encodes HTTP Basic credentials.
func basicAuth(user, password string) string {
	req, _ := http.NewRequest(http.MethodGet, "http://x", nil)
	req.SetBasicAuth(user, password)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

func TestOAuthTokenRequestErrors(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	code := oauthCode(t, srv, app, fake.Consent{})
	tests := []struct {
		name   string
		change func(url.Values)
		status int
		code   string
	}{
		{"unsupported grant_type", func(p url.Values) { p.Set("grant_type", "password") }, http.StatusBadRequest, "unsupported_grant_type"},
		{"client_credentials", func(p url.Values) { p.Set("grant_type", "client_credentials") }, http.StatusBadRequest, "unsupported_grant_type"},
		{"no grant_type", func(p url.Values) { p.Del("grant_type") }, http.StatusBadRequest, "invalid_request"},
		{"no code", func(p url.Values) { p.Del("code") }, http.StatusBadRequest, "invalid_request"},
		{"no redirect_uri", func(p url.Values) { p.Del("redirect_uri") }, http.StatusBadRequest, "invalid_request"},
		{"unknown code", func(p url.Values) { p.Set("code", "code_nosuchcode") }, http.StatusBadRequest, "invalid_grant"},
		{"no refresh_token", func(p url.Values) { p.Set("grant_type", "refresh_token") }, http.StatusBadRequest, "invalid_request"},
		{"unknown refresh_token", func(p url.Values) { p.Set("grant_type", "refresh_token"); p.Set("refresh_token", "ort_nope") }, http.StatusBadRequest, "invalid_grant"},
	}
	for _, tc := range tests {
		params := codeParams(app, code)
		tc.change(params)
		for _, mode := range []string{"query", "form"} {
			status, got := oauthToken(t, srv, mode, params)
			if status != tc.status || got.Error != tc.code {
				t.Errorf("%s (%s): %d %q, want %d %q", tc.name, mode, status, got.Error, tc.status, tc.code)
			}
		}
	}
	// None of them used the code.
	if status, tok := oauthToken(t, srv, "form", codeParams(app, code)); status != http.StatusOK {
		t.Fatalf("the code after refused requests: %d %+v", status, tok)
	}
}

func TestOAuthRefreshRotates(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	first := oauthIssue(t, srv, app, fake.Consent{})
	srv.Advance(time.Hour)
	status, second := oauthToken(t, srv, "query", refreshParams(app, first.RefreshToken))
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %+v", status, second)
	}
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Error("a refresh kept the old access or refresh token")
	}
	if second.TokenType != "Bearer" || second.ExpiresIn != 2592000 || second.Scope != first.Scope {
		t.Errorf("refresh response %+v, want the form of the first %+v", second, first)
	}
	// The old refresh token and the old access token stop working.
	status, again := oauthToken(t, srv, "form", refreshParams(app, first.RefreshToken))
	wantOAuthError(t, status, again, http.StatusBadRequest, "invalid_grant")
	_, err := oauthClient(t, srv, first.AccessToken).Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized)
	if _, err := oauthClient(t, srv, second.AccessToken).Users.GetCurrent(t.Context()); err != nil {
		t.Fatalf("the new access token: %v", err)
	}
	// One authorization is one token record, renewed in place.
	tokens, err := srv.Client().OAuthApplications.ListTokens(t.Context(), &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens.Items) != 1 {
		t.Fatalf("%d tokens after a refresh, want 1", len(tokens.Items))
	}
	if got, want := tokens.Items[0].ExpiresAt.Time, srv.Now().Add(2592000*time.Second); !got.Equal(want) {
		t.Errorf("expires_at %s, want %s", got, want)
	}
	// Another application's credentials cannot refresh it.
	other := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	status, stolen := oauthToken(t, srv, "form", refreshParams(other, second.RefreshToken))
	wantOAuthError(t, status, stolen, http.StatusBadRequest, "invalid_grant")
}

// TestOAuthRefreshScope checks a refresh's scope parameter (RFC 6749 6): a
// scope the grant does not hold (the token response's scope) is
// invalid_scope, and the refresh token stays as it was; scopes within the
// grant are accepted, and the new token keeps the grant's scopes. The
// application also asks for database:read_database, which the consent
// grants on no database.
func TestOAuthRefreshScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, scope string
		wantErr     string // "" for a refresh that succeeds
	}{
		{name: "a scope of no grant", scope: "organization:write_databases", wantErr: "invalid_scope"},
		{name: "a bare name of no grant", scope: "read_user write_databases", wantErr: "invalid_scope"},
		{name: "an unknown scope", scope: "nosuch", wantErr: "invalid_scope"},
		{name: "a scope granted on nothing", scope: "database:read_database", wantErr: "invalid_scope"},
		{name: "one scope of the grant", scope: "user:read_user"},
		{name: "the grant's scopes, bare", scope: "read_databases read_user"},
	} {
		for _, mode := range []string{"query", "form"} {
			t.Run(tc.name+" in "+mode, func(t *testing.T) {
				t.Parallel()
				srv := fake.NewServer(t)
				app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser,
					platform.ScopeOrganizationReadDatabases, platform.ScopeDatabaseReadDatabase)
				first := oauthIssue(t, srv, app, fake.Consent{})
				if want := "user:read_user organization:read_databases"; first.Scope != want {
					t.Fatalf("granted scope %q, want %q", first.Scope, want)
				}
				params := refreshParams(app, first.RefreshToken)
				params.Set("scope", tc.scope)
				status, got := oauthToken(t, srv, mode, params)
				if tc.wantErr != "" {
					wantOAuthError(t, status, got, http.StatusBadRequest, tc.wantErr)
					if !strings.Contains(got.ErrorDescription, "scope") {
						t.Errorf("error_description %q does not name scope", got.ErrorDescription)
					}
					// Nothing changed: the refresh token and the access
					// token still work.
					if _, err := oauthClient(t, srv, first.AccessToken).Users.GetCurrent(t.Context()); err != nil {
						t.Errorf("the access token after a refused refresh: %v", err)
					}
					if status, got = oauthToken(t, srv, mode, refreshParams(app, first.RefreshToken)); status != http.StatusOK {
						t.Fatalf("the refresh token after a refused refresh: %d %+v", status, got)
					}
					return
				}
				if status != http.StatusOK {
					t.Fatalf("refresh with scope %q: %d %+v", tc.scope, status, got)
				}
				if diff := cmp.Diff(first.Scope, got.Scope); diff != "" {
					t.Errorf("refreshed token's scope (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestOAuthRepeatedParams checks RFC 6749 3.2 at the token,
// device-authorization and revocation endpoints: a parameter the endpoint
// defines, sent twice in the form body, twice in the query string, or once
// in each (even with the same value), is invalid_request naming it, and
// changes nothing: the request sent right afterwards with the parameter
// once succeeds. A parameter no endpoint defines may repeat.
func TestOAuthRepeatedParams(t *testing.T) {
	t.Parallel()
	type endpoint struct {
		path string
		// params are the parameters of a request that succeeds.
		params func(app fake.OAuthApp, code, access string) url.Values
	}
	token := endpoint{"oauth/token", func(app fake.OAuthApp, code, _ string) url.Values { return codeParams(app, code) }}
	device := endpoint{"oauth/authorize_device", func(app fake.OAuthApp, _, _ string) url.Values {
		return url.Values{"client_id": {app.ClientID}, "scope": {"user:read_user"}}
	}}
	revoke := endpoint{"oauth/revoke", func(app fake.OAuthApp, _, access string) url.Values { return revokeParams(app, access) }}
	for _, tc := range []struct {
		name  string
		ep    endpoint
		param string
		// second is the repeated value; "" repeats the request's own.
		second string
		// allowed: the repetition is no error (a parameter not defined).
		allowed bool
	}{
		{name: "token code", ep: token, param: "code", second: "code_other"},
		{name: "token grant_type", ep: token, param: "grant_type", second: "refresh_token"},
		{name: "token client_id, same value", ep: token, param: "client_id"},
		{name: "token scope", ep: token, param: "scope", second: "user:read_user"},
		{name: "device scope", ep: device, param: "scope", second: "user:read_user"},
		{name: "device client_id, same value", ep: device, param: "client_id"},
		{name: "revoke token", ep: revoke, param: "token", second: "oat_other"},
		{name: "revoke client_secret, same value", ep: revoke, param: "client_secret"},
		{name: "token, undefined parameter", ep: token, param: "utm_source", second: "b", allowed: true},
	} {
		for _, where := range []string{"form twice", "query twice", "query and form"} {
			t.Run(tc.name+", "+where, func(t *testing.T) {
				t.Parallel()
				srv := fake.NewServer(t)
				app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
				access := oauthIssue(t, srv, app, fake.Consent{}).AccessToken
				params := tc.ep.params(app, oauthCode(t, srv, app, fake.Consent{}), access)
				second := tc.second
				if second == "" {
					second = params.Get(tc.param)
				}
				if !params.Has(tc.param) { // a parameter the request may send
					params.Set(tc.param, second)
				}
				target := srv.AuthURL() + tc.ep.path
				var r oauthResponse
				switch where {
				case "form twice", "query twice":
					twice := url.Values{}
					for k, v := range params {
						twice[k] = slices.Clone(v)
					}
					twice.Add(tc.param, second)
					if where == "form twice" {
						r = oauthDo(t, http.MethodPost, target, twice, nil)
					} else {
						r = oauthDo(t, http.MethodPost, target+"?"+twice.Encode(), nil, nil)
					}
				case "query and form":
					r = oauthDo(t, http.MethodPost, target+"?"+url.Values{tc.param: {second}}.Encode(), params, nil)
				}
				if tc.allowed {
					if r.status != http.StatusOK {
						t.Fatalf("%s repeated: %d %s, want 200", tc.param, r.status, r.body)
					}
					return
				}
				var got oauthTokenResponse
				if err := json.Unmarshal([]byte(r.body), &got); err != nil {
					t.Fatalf("body %q: %v", r.body, err)
				}
				wantOAuthError(t, r.status, got, http.StatusBadRequest, "invalid_request")
				if !strings.Contains(got.ErrorDescription, tc.param) {
					t.Errorf("error_description %q does not name %s", got.ErrorDescription, tc.param)
				}
				// The refusal changed nothing: the access token works, and
				// the request with each parameter once succeeds (the code
				// was not used, the token not revoked).
				if _, err := oauthClient(t, srv, access).Users.GetCurrent(t.Context()); err != nil {
					t.Errorf("the access token after the refusal: %v", err)
				}
				if r := oauthDo(t, http.MethodPost, target, params, nil); r.status != http.StatusOK {
					t.Errorf("the request with each parameter once: %d %s", r.status, r.body)
				}
			})
		}
	}
}

func TestOAuthAccessTokenExpires(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithTimings(fake.Timings{OAuthAccessToken: time.Hour}))
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	tok := oauthIssue(t, srv, app, fake.Consent{})
	if tok.ExpiresIn != 3600 {
		t.Errorf("expires_in %d, want the configured 3600", tok.ExpiresIn)
	}
	c := oauthClient(t, srv, tok.AccessToken)
	srv.Advance(time.Duration(tok.ExpiresIn)*time.Second - time.Millisecond)
	if _, err := c.Users.GetCurrent(t.Context()); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	srv.Advance(time.Millisecond)
	_, err := c.Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized, "expired")
	// An expired token is refreshed.
	status, renewed := oauthToken(t, srv, "form", refreshParams(app, tok.RefreshToken))
	if status != http.StatusOK {
		t.Fatalf("refresh after expiry: %d %+v", status, renewed)
	}
	if _, err := oauthClient(t, srv, renewed.AccessToken).Users.GetCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestOAuthDeletedToken(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	tok := oauthIssue(t, srv, app, fake.Consent{})
	ctx, admin := t.Context(), srv.Client()
	tokens, err := admin.OAuthApplications.ListTokens(ctx, &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens.Items) != 1 {
		t.Fatalf("%d tokens, want 1", len(tokens.Items))
	}
	if err := admin.OAuthApplications.DeleteToken(ctx, &platform.DeleteOAuthTokenParams{Organization: srv.Org(), ApplicationID: app.ID, TokenID: tokens.Items[0].ID}); err != nil {
		t.Fatal(err)
	}
	w := send(t, srv, http.MethodGet, "/v1/user", bearer(tok.AccessToken), "")
	wantError(t, w, http.StatusUnauthorized, "unauthorized")
	status, got := oauthToken(t, srv, "form", refreshParams(app, tok.RefreshToken))
	wantOAuthError(t, status, got, http.StatusBadRequest, "invalid_grant")
}

func TestOAuthBearerMalformed(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, h := range []string{"Bearer ", "Bearer", "bearer oat_nosuchtoken", "Bearer " + srv.AdminToken().Secret} {
		wantError(t, send(t, srv, http.MethodGet, "/v1/user", h, ""), http.StatusUnauthorized, "unauthorized")
	}
}

func TestOAuthAutoApprove(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	if err := srv.CreateOrganization("globex"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddMember("globex", srv.AdminUserID(), platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeOrganizationReadDatabases, platform.ScopeDatabaseReadDatabase, platform.ScopeBranchReadBranch)
	tests := []struct {
		name    string
		consent fake.Consent
		scope   string
		orgs    []string // what list_databases reaches
	}{
		{"defaults: the default organization, no database or branch", fake.Consent{}, "organization:read_databases", []string{"acme"}},
		{"chosen", fake.Consent{Organizations: []string{"globex", "acme"}, Databases: []string{"acme/app"}, Branches: []string{"acme/app/main"}},
			"organization:read_databases database:read_database branch:read_branch", []string{"acme", "globex"}},
	}
	for _, tc := range tests {
		srv.SetAutoApprove(&tc.consent)
		q := oauthRedirect(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "st"), nil, nil), app.RedirectURI)
		if q.Get("state") != "st" {
			t.Errorf("%s: state %q", tc.name, q.Get("state"))
		}
		status, tok := oauthToken(t, srv, "query", codeParams(app, q.Get("code")))
		if status != http.StatusOK {
			t.Fatalf("%s: %d %+v", tc.name, status, tok)
		}
		if tok.Scope != tc.scope {
			t.Errorf("%s: scope %q, want %q", tc.name, tok.Scope, tc.scope)
		}
		c := oauthClient(t, srv, tok.AccessToken)
		var reached []string
		for _, org := range []string{"acme", "globex"} {
			if _, err := c.Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: org}); err == nil {
				reached = append(reached, org)
			}
		}
		if diff := cmp.Diff(tc.orgs, reached); diff != "" {
			t.Errorf("%s: organizations whose databases the token lists (-want +got):\n%s", tc.name, diff)
		}
	}
	// Without auto-approval the consent page is back.
	srv.SetAutoApprove(nil)
	oauthPage(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, ""), nil, nil), http.StatusOK, "Authorize")
}

func TestOAuthAuthorizeRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeOrganizationWriteOrganization, platform.ScopeDatabaseReadDatabase)
	authorize := func(clientID, redirectURI string) oauthResponse {
		return oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, clientID, redirectURI, "s"), nil, nil)
	}
	oauthPage(t, authorize("app_nosuchclient", app.RedirectURI), http.StatusBadRequest, "client_id")
	oauthPage(t, authorize("", app.RedirectURI), http.StatusBadRequest, "client_id")
	oauthPage(t, authorize(app.ClientID, ""), http.StatusBadRequest, "redirect_uri")

	// An unsupported response type goes back to the application.
	q := oauthRedirect(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "s")+"&response_type=token", nil, nil), app.RedirectURI)
	if q.Get("error") != "unsupported_response_type" || q.Get("state") != "s" {
		t.Errorf("response_type=token: redirect query %v", q)
	}

	// Consents the signed-in user cannot give.
	for _, c := range []fake.Consent{
		{Organizations: []string{"nosuchorg"}},
		{Databases: []string{"acme/nosuchdb"}},
		{Databases: []string{"app"}},
	} {
		srv.SetAutoApprove(&c)
		oauthPage(t, authorize(app.ClientID, app.RedirectURI), http.StatusBadRequest)
	}
	srv.SetAutoApprove(nil)
	// A form that chooses a database of an organization the user is not in.
	page := parseOAuthForm(t, authorize(app.ClientID, app.RedirectURI))
	r := oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/authorize", page.values("authorize", url.Values{
		"organization": {"acme"}, "database": {"globex/app"},
	}), page.header())
	oauthPage(t, r, http.StatusBadRequest, "globex")
	r = oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/authorize", page.values("maybe", nil), page.header())
	oauthPage(t, r, http.StatusBadRequest, "decision")

	// Bob, a plain member, cannot grant an admin scope on acme.
	if err := srv.SignIn(bob); err != nil {
		t.Fatal(err)
	}
	oauthPage(t, authorize(app.ClientID, app.RedirectURI), http.StatusOK, "Bob Builder")
	srv.SetAutoApprove(&fake.Consent{})
	oauthPage(t, authorize(app.ClientID, app.RedirectURI), http.StatusBadRequest, "admin", "organization:write_organization")

	// Nobody signed in.
	srv.SignOut()
	oauthPage(t, authorize(app.ClientID, app.RedirectURI), http.StatusUnauthorized, "signed in")
	if err := srv.SignIn("nosuchuser1"); err == nil {
		t.Error("SignIn of an unknown user succeeded")
	}
}

func TestOAuthRequestLog(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	srv.ClearRequests()
	oauthIssue(t, srv, app, fake.Consent{})
	var ops []string
	for _, r := range srv.Requests() {
		ops = append(ops, r.Operation)
	}
	if diff := cmp.Diff([]string{"oauth_authorize", "oauth_token"}, ops); diff != "" {
		t.Errorf("logged operations (-want +got):\n%s", diff)
	}
}

func TestCreateOAuthApplicationRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	good := fake.OAuthAppSpec{Name: "Dash", Domain: "https://app.example.com", RedirectURI: "https://app.example.com/cb", Scopes: []platform.Scope{platform.ScopeUserReadUser}}
	for name, change := range map[string]func(*fake.OAuthAppSpec){
		"no name":             func(s *fake.OAuthAppSpec) { s.Name = " " },
		"domain with a path":  func(s *fake.OAuthAppSpec) { s.Domain = "https://app.example.com/x" },
		"domain not a URL":    func(s *fake.OAuthAppSpec) { s.Domain = "app.example.com" },
		"redirect off domain": func(s *fake.OAuthAppSpec) { s.RedirectURI = "https://evil.example.com/cb" },
		"no scopes":           func(s *fake.OAuthAppSpec) { s.Scopes = nil },
		"unknown scope":       func(s *fake.OAuthAppSpec) { s.Scopes = []platform.Scope{"organization:read_everything"} },
		"unqualified scope":   func(s *fake.OAuthAppSpec) { s.Scopes = []platform.Scope{"read_user"} },
		"scope listed twice": func(s *fake.OAuthAppSpec) {
			s.Scopes = []platform.Scope{platform.ScopeUserReadUser, platform.ScopeUserReadUser}
		},
	} {
		spec := good
		change(&spec)
		if _, err := srv.CreateOAuthApplication(srv.Org(), spec); err == nil {
			t.Errorf("%s: created", name)
		}
	}
	if _, err := srv.CreateOAuthApplication("nosuchorg", good); err == nil {
		t.Error("created in an unknown organization")
	}
	apps, err := srv.Client().OAuthApplications.List(t.Context(), &platform.ListOAuthApplicationsParams{Organization: srv.Org()})
	if err != nil {
		t.Fatal(err)
	}
	if len(apps.Items) != 0 {
		t.Errorf("refused specs left %d applications", len(apps.Items))
	}
	if _, err := srv.CreateOAuthApplication(srv.Org(), good); err != nil {
		t.Fatal(err)
	}
}

// TestKnownScopesAreTheSDKs checks that applications may ask for exactly
// the scopes the SDK names.
func TestKnownScopesAreTheSDKs(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, sc := range platform.Scopes() {
		if _, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{Name: "x", Domain: "https://a.example.com", RedirectURI: "https://a.example.com/", Scopes: []platform.Scope{sc}}); err != nil {
			t.Errorf("%s: %v", sc, err)
		}
	}
	all := slices.Clone(platform.Scopes())
	if _, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{Name: "all", Domain: "https://a.example.com", RedirectURI: "https://a.example.com/", Scopes: all}); err != nil {
		t.Fatal(err)
	}
}

// cliScope is the scope parameter the service's command-line tool sends
// at sign-in, without resource prefixes.
const cliScope = "read_databases write_databases read_user read_organization"

// cliScopes are what cliScope means: the organization's scopes, and the
// user's read_user.
var cliScopes = []platform.Scope{
	platform.ScopeOrganizationReadDatabases, platform.ScopeOrganizationWriteDatabases,
	platform.ScopeUserReadUser, platform.ScopeOrganizationReadOrganization,
}

func TestOAuthBareScopeNames(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://cli.example.com/cb", cliScopes...)
	narrow := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
	authorize := func(a fake.OAuthApp, scope string) oauthResponse {
		return oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, a.ClientID, a.RedirectURI, "s")+"&"+url.Values{"scope": {scope}}.Encode(), nil, nil)
	}
	for _, scope := range []string{cliScope, "organization:read_databases user:read_user", "read_user organization:write_databases"} {
		if status, da := deviceStart(t, srv, app.ClientID, url.Values{"scope": {scope}}); status != http.StatusOK || da.DeviceCode == "" {
			t.Errorf("authorize_device with scope %q: %d %+v", scope, status, da)
		}
		oauthPage(t, authorize(app, scope), http.StatusOK, "Authorize Dashboard")
	}
	// A bare name means the scope of the application or nothing: an
	// unknown name, or a scope the application lacks, is invalid_scope.
	for _, tc := range []struct {
		app   fake.OAuthApp
		scope string
	}{
		{app, "read_everything"},
		{app, "read_user delete_databases"},
		{narrow, cliScope},
	} {
		status, da := deviceStart(t, srv, tc.app.ClientID, url.Values{"scope": {tc.scope}})
		if status != http.StatusBadRequest || da.Error != "invalid_scope" {
			t.Errorf("authorize_device with scope %q: %d %+v, want 400 invalid_scope", tc.scope, status, da)
		}
		q := oauthRedirect(t, authorize(tc.app, tc.scope), tc.app.RedirectURI)
		if q.Get("error") != "invalid_scope" || q.Get("error_description") == "" || q.Get("state") != "s" || q.Has("code") {
			t.Errorf("authorize with scope %q: redirect query %v, want error=invalid_scope with a description and the state", tc.scope, q)
		}
	}
	// Signed in with the tool's scopes, the token holds the application's.
	srv.SetAutoApprove(&fake.Consent{})
	_, da := deviceStart(t, srv, app.ClientID, url.Values{"scope": {cliScope}})
	tok := wantPoll(t, srv, app.ClientID, da.DeviceCode, "")
	if want := "user:read_user organization:read_databases organization:write_databases organization:read_organization"; tok.Scope != want {
		t.Errorf("token scope %q, want %q", tok.Scope, want)
	}
	if _, err := oauthClient(t, srv, tok.AccessToken).Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: srv.Org()}); err != nil {
		t.Errorf("listing databases with the tool's token: %v", err)
	}
}

// revoke posts params to the revocation endpoint.
func revoke(t testing.TB, srv *fake.Server, params url.Values, header http.Header) oauthResponse {
	t.Helper()
	return oauthDo(t, http.MethodPost, srv.AuthURL()+"oauth/revoke", params, header)
}

func TestOAuthRevoke(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		token func(tok oauthTokenResponse) string
	}{
		{"access token", func(tok oauthTokenResponse) string { return tok.AccessToken }},
		{"refresh token", func(tok oauthTokenResponse) string { return tok.RefreshToken }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
			tok := oauthIssue(t, srv, app, fake.Consent{})
			kept := oauthIssue(t, srv, app, fake.Consent{}) // another sign-in
			r := revoke(t, srv, revokeParams(app, tc.token(tok)), nil)
			if r.status != http.StatusOK || r.body != "" || r.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("revoke: %d %q (Cache-Control %q), want 200, no body, no-store", r.status, r.body, r.header.Get("Cache-Control"))
			}
			// Both tokens of the sign-in stop working; the other sign-in
			// does not.
			_, err := oauthClient(t, srv, tok.AccessToken).Users.GetCurrent(t.Context())
			apiError(t, err, http.StatusUnauthorized)
			status, got := oauthToken(t, srv, "form", refreshParams(app, tok.RefreshToken))
			wantOAuthError(t, status, got, http.StatusBadRequest, "invalid_grant")
			if _, err := oauthClient(t, srv, kept.AccessToken).Users.GetCurrent(t.Context()); err != nil {
				t.Errorf("another sign-in's token after the revocation: %v", err)
			}
			tokens, err := srv.Client().OAuthApplications.ListTokens(t.Context(), &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(tokens.Items) != 1 {
				t.Errorf("%d tokens listed after the revocation, want the other sign-in's 1", len(tokens.Items))
			}
			// Revoking again, or a token never issued, is a success
			// (RFC 7009 2.2).
			for _, again := range []string{tc.token(tok), "oat_neverissued"} {
				if r := revoke(t, srv, revokeParams(app, again), nil); r.status != http.StatusOK {
					t.Errorf("revoking %s: %d %s, want 200", again, r.status, r.body)
				}
			}
		})
	}
}

func TestOAuthRevokeRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	other := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	tok := oauthIssue(t, srv, app, fake.Consent{})
	for _, tc := range []struct {
		name   string
		change func(url.Values)
		status int
		code   string
	}{
		{"no token", func(p url.Values) { p.Del("token") }, http.StatusBadRequest, "invalid_request"},
		{"no client", func(p url.Values) { p.Del("client_id"); p.Del("client_secret") }, http.StatusUnauthorized, "invalid_client"},
		{"unknown client", func(p url.Values) { p.Set("client_id", "app_nosuchclient") }, http.StatusUnauthorized, "invalid_client"},
		{"wrong secret", func(p url.Values) { p.Set("client_secret", app.ClientSecret+"x") }, http.StatusUnauthorized, "invalid_client"},
		{"another application's token", func(p url.Values) { p.Set("client_id", other.ClientID); p.Set("client_secret", other.ClientSecret) }, http.StatusBadRequest, "unauthorized_client"},
	} {
		params := revokeParams(app, tok.AccessToken)
		tc.change(params)
		r := revoke(t, srv, params, nil)
		var got oauthTokenResponse
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatalf("%s: body %q: %v", tc.name, r.body, err)
		}
		if r.status != tc.status || got.Error != tc.code || got.ErrorDescription == "" {
			t.Errorf("%s: %d %+v, want %d %s with a description", tc.name, r.status, got, tc.status, tc.code)
		}
	}
	// Nothing was revoked; the client may authenticate with HTTP Basic,
	// and, like the device flow's public clients, with its client ID
	// alone.
	if _, err := oauthClient(t, srv, tok.AccessToken).Users.GetCurrent(t.Context()); err != nil {
		t.Fatalf("the token after refused revocations: %v", err)
	}
	basic := http.Header{"Authorization": {"Basic " + basicAuth(url.QueryEscape(app.ClientID), url.QueryEscape(app.ClientSecret))}}
	if r := revoke(t, srv, url.Values{"token": {tok.AccessToken}}, basic); r.status != http.StatusOK {
		t.Fatalf("revoke with Basic client authentication: %d %s", r.status, r.body)
	}
	tok = oauthIssue(t, srv, app, fake.Consent{})
	if r := revoke(t, srv, url.Values{"token": {tok.RefreshToken}, "client_id": {app.ClientID}}, nil); r.status != http.StatusOK {
		t.Fatalf("revoke with the client ID only: %d %s", r.status, r.body)
	}
	_, err := oauthClient(t, srv, tok.AccessToken).Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized)
}

// oauthFormFlow is a consent form to forge: how to open its page, and
// whether a submission of it took effect.
type oauthFormFlow struct {
	name string
	// open opens the page and returns its form and a check of whether
	// the submission r decided the authorization.
	open func(t *testing.T, srv *fake.Server) (oauthForm, func(r oauthResponse) bool)
}

// oauthFormFlows are the two consent forms: the authorization page's and
// the device flow's.
var oauthFormFlows = []oauthFormFlow{
	{"authorize", func(t *testing.T, srv *fake.Server) (oauthForm, func(oauthResponse) bool) {
		app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
		f := parseOAuthForm(t, oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "s"), nil, nil))
		return f, func(r oauthResponse) bool {
			loc, err := url.Parse(r.header.Get("Location"))
			return r.status == http.StatusFound && err == nil && loc.Query().Get("code") != ""
		}
	}},
	{"device", func(t *testing.T, srv *fake.Server) (oauthForm, func(oauthResponse) bool) {
		app := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
		_, da := deviceStart(t, srv, app.ClientID, nil)
		f := deviceConsent(t, srv, da.UserCode)
		return f, func(r oauthResponse) bool {
			_, tok := devicePoll(t, srv, app.ClientID, da.DeviceCode)
			return tok.AccessToken != ""
		}
	}},
}

// TestOAuthFormsOnlyFromTheirPage forges the consent forms: a submission
// from another site, or without the token its page gave this browser for
// the user signed in now, is refused and decides nothing.
func TestOAuthFormsOnlyFromTheirPage(t *testing.T) {
	t.Parallel()
	for _, flow := range oauthFormFlows {
		for _, tc := range []struct {
			name  string
			forge func(t *testing.T, srv *fake.Server, form url.Values, h http.Header)
		}{
			{"cross-site Origin", func(_ *testing.T, _ *fake.Server, _ url.Values, h http.Header) {
				h.Set("Origin", "https://evil.example.com")
			}},
			{"opaque Origin", func(_ *testing.T, _ *fake.Server, _ url.Values, h http.Header) { h.Set("Origin", "null") }},
			{"cross-site fetch", func(_ *testing.T, _ *fake.Server, _ url.Values, h http.Header) { h.Set("Sec-Fetch-Site", "cross-site") }},
			{"same-site fetch from another origin", func(_ *testing.T, _ *fake.Server, _ url.Values, h http.Header) { h.Set("Sec-Fetch-Site", "same-site") }},
			{"no token", func(_ *testing.T, _ *fake.Server, form url.Values, _ http.Header) { form.Del("csrf_token") }},
			{"a made-up token", func(_ *testing.T, _ *fake.Server, form url.Values, _ http.Header) { form.Set("csrf_token", "x") }},
			{"no session cookie", func(_ *testing.T, _ *fake.Server, _ url.Values, h http.Header) { h.Del("Cookie") }},
			{"another browser's session", func(t *testing.T, srv *fake.Server, _ url.Values, h http.Header) {
				other, _ := flow.open(t, srv)
				h.Set("Cookie", other.cookie)
			}},
			{"another user signed in since", func(t *testing.T, srv *fake.Server, _ url.Values, _ http.Header) {
				if err := srv.SignIn(mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleAdmin)); err != nil {
					t.Fatal(err)
				}
			}},
		} {
			t.Run(flow.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := fake.NewServer(t)
				f, decided := flow.open(t, srv)
				form, h := f.values("authorize", nil), f.header()
				tc.forge(t, srv, form, h)
				r := oauthDo(t, http.MethodPost, srv.AuthURL()+strings.TrimPrefix(f.action, "/"), form, h)
				oauthPage(t, r, http.StatusForbidden)
				if decided(r) {
					t.Error("the forged form decided the authorization")
				}
			})
		}
		// The form as its page sent it, from the server's own origin,
		// decides.
		t.Run(flow.name+"/same origin", func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			f, decided := flow.open(t, srv)
			h := f.header()
			h.Set("Origin", strings.TrimSuffix(srv.AuthURL(), "/"))
			h.Set("Sec-Fetch-Site", "same-origin")
			r := oauthDo(t, http.MethodPost, srv.AuthURL()+strings.TrimPrefix(f.action, "/"), f.values("authorize", nil), h)
			if !decided(r) {
				t.Errorf("the page's own form: %d %s, want it to decide", r.status, r.body)
			}
		})
	}
}

// TestOAuthPagesRefuseFraming checks that no OAuth page can be framed by
// another site: the consent pages, the error page and the device pages.
func TestOAuthPagesRefuseFraming(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	_, da := deviceStart(t, srv, app.ClientID, nil)
	device := deviceConsent(t, srv, da.UserCode)
	pages := map[string]oauthResponse{
		"consent":        oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, ""), nil, nil),
		"error":          oauthDo(t, http.MethodGet, oauthAuthorizeURL(srv, "app_nosuchclient", app.RedirectURI, ""), nil, nil),
		"user code form": oauthDo(t, http.MethodGet, srv.AuthURL()+"oauth/device", nil, nil),
		"device consent": oauthDo(t, http.MethodGet, da.VerificationURIComplete, nil, nil),
		"device done":    deviceDecide(t, srv, device, "authorize", nil),
	}
	for name, r := range pages {
		if got := r.header.Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("%s page: X-Frame-Options %q, want DENY", name, got)
		}
		if got := r.header.Get("Content-Security-Policy"); !strings.Contains(got, "frame-ancestors 'none'") {
			t.Errorf("%s page: Content-Security-Policy %q, want frame-ancestors 'none'", name, got)
		}
	}
	// The session cookie of the forms is out of scripts' and other sites'
	// reach.
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: pages["consent"].header}).Cookies() {
		cookie = c
	}
	if cookie == nil || !cookie.HttpOnly || (cookie.SameSite != http.SameSiteLaxMode && cookie.SameSite != http.SameSiteStrictMode) {
		t.Errorf("the consent page's cookie %+v, want an HttpOnly SameSite=Lax or Strict one", cookie)
	}
}

// TestOAuthAuthorizeRepeatedParams checks that GET /oauth/authorize
// refuses a parameter sent twice with invalid_request naming it: with an
// error page when it is the client or the redirect URI (RFC 6749 4.1.2.1),
// else with a redirect to the application; and approves nothing, though
// auto-approval is on.
func TestOAuthAuthorizeRepeatedParams(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	srv.SetAutoApprove(&fake.Consent{})
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	tests := []struct {
		name  string
		extra url.Values
		page  bool   // an error page, no redirect
		state string // the state the redirect sends back
	}{
		{"client_id twice", url.Values{"client_id": {app.ClientID}}, true, ""},
		{"client_id twice, the second another", url.Values{"client_id": {"app_nosuchclient"}}, true, ""},
		{"redirect_uri twice", url.Values{"redirect_uri": {"https://app.example.com/other"}}, true, ""},
		{"response_type twice", url.Values{"response_type": {"code", "code"}}, false, "s"},
		{"scope twice", url.Values{"scope": {"user:read_user", "user:read_user"}}, false, "s"},
		{"state twice", url.Values{"state": {"t"}}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := ""
			for k := range tc.extra {
				name = k
			}
			u := oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "s") + "&" + tc.extra.Encode()
			r := oauthDo(t, http.MethodGet, u, nil, nil)
			if tc.page {
				oauthPage(t, r, http.StatusBadRequest, "invalid_request", name+" is sent 2 times")
				return
			}
			q := oauthRedirect(t, r, app.RedirectURI)
			want := url.Values{"error": {"invalid_request"}, "error_description": {name + " is sent 2 times; send each parameter once"}}
			if tc.state != "" {
				want.Set("state", tc.state)
			}
			if diff := cmp.Diff(want, q); diff != "" {
				t.Errorf("redirect query (-want +got):\n%s", diff)
			}
		})
	}
	// Sent once each, the same parameters approve.
	u := oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "s") + "&response_type=code&scope=user:read_user"
	if q := oauthRedirect(t, oauthDo(t, http.MethodGet, u, nil, nil), app.RedirectURI); q.Get("code") == "" {
		t.Errorf("no code: %v", q)
	}
}
