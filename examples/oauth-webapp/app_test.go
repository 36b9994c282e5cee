package main

import (
	"encoding/json"
	"errors"
	"html"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/oauth"
)

// These tests drive the app end to end against the real fake, as a browser
// would, with net/http and a cookie jar: the app's pages, the fake's
// consent page and form, the token endpoint and the API. The fake runs on
// its virtual clock, so a test moves time past a token's expiry at once.
// Failures of the platform (an outage of the token endpoint, an API that
// refuses fresh tokens) are the fake's injected faults; no stub is needed.

// startTestDemo serves the demo on loopback for t, on a virtual clock.
// sessionsFile "" keeps the sessions in memory.
func startTestDemo(t *testing.T, sessionsFile string, opts ...fake.Option) *demo {
	t.Helper()
	d, err := startDemo(t.Context(), "127.0.0.1:0", sessionsFile, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// browser is an HTTP client with a cookie jar that follows redirects, as a
// browser does.
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, c: &http.Client{Jar: jar}}
}

// stopAt makes b stop following redirects at a URL whose path is path, as
// if the browser were closed there.
func (b *browser) stopAt(path string) *browser {
	b.c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if path == "" || req.URL.Path == path {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return b
}

// page is where a request ended.
type page struct {
	status int
	url    *url.URL
	header http.Header
	body   string
}

// do sends a request, with form as its body when not nil.
func (b *browser) do(method, target string, form url.Values) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, target, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{status: res.StatusCode, url: res.Request.URL, header: res.Header, body: string(got)}
}

func (b *browser) get(target string) page { b.t.Helper(); return b.do(http.MethodGet, target, nil) }

// consentForm is the fake's consent form, as a browser would submit it.
type consentForm struct {
	action *url.URL
	// fields are what the browser sends: the hidden inputs and the options
	// selected by default.
	fields url.Values
	// options are the choices of each select.
	options map[string][]string
}

var (
	consentFormRE   = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	consentHiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	consentSelectRE = regexp.MustCompile(`(?s)<select name="([^"]+)" multiple>(.*?)</select>`)
	consentOptionRE = regexp.MustCompile(`<option value="([^"]*)"( selected)?>`)
)

// readConsent reads the consent form of p, which must be the fake's
// consent page.
func readConsent(t *testing.T, d *demo, p page) consentForm {
	t.Helper()
	if p.status != http.StatusOK || !strings.HasPrefix(p.url.String(), d.fake.AuthURL()+"oauth/authorize") {
		t.Fatalf("want the consent page, got %d at %s:\n%s", p.status, p.url, p.body)
	}
	m := consentFormRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no form on the consent page:\n%s", p.body)
	}
	action, err := p.url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	f := consentForm{action: action, fields: url.Values{}, options: map[string][]string{}}
	for _, m := range consentHiddenRE.FindAllStringSubmatch(p.body, -1) {
		f.fields.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	for _, s := range consentSelectRE.FindAllStringSubmatch(p.body, -1) {
		for _, o := range consentOptionRE.FindAllStringSubmatch(s[2], -1) {
			v := html.UnescapeString(o[1])
			f.options[s[1]] = append(f.options[s[1]], v)
			if o[2] != "" {
				f.fields.Add(s[1], v)
			}
		}
	}
	return f
}

// decide submits the consent form with decision ("authorize" or "deny"),
// the selects set as in choose (the defaults for those it leaves out).
func (b *browser) decide(f consentForm, decision string, choose url.Values) page {
	b.t.Helper()
	form := url.Values{"decision": {decision}}
	maps.Copy(form, f.fields)
	maps.Copy(form, choose)
	return b.do(http.MethodPost, f.action.String(), form)
}

// signIn signs b in to d's app, choosing choose on the consent page, and
// returns the page it lands on.
func signIn(t *testing.T, d *demo, b *browser, choose url.Values) page {
	t.Helper()
	return b.decide(readConsent(t, d, b.get(d.url+"/login")), "authorize", choose)
}

// pageShows is what a page of the app shows: the databases it lists (as
// "organization/database"), the organizations not shared with it, whether
// it offers to sign in or to sign out, its notice and its error.
type pageShows struct {
	Databases []string
	NotShared []string
	SignIn    bool
	SignOut   bool
	Notice    string
	Error     string
}

var (
	pageDatabaseRE  = regexp.MustCompile(`<li class="database" data-organization="([^"]*)" data-name="([^"]*)"`)
	pageNotSharedRE = regexp.MustCompile(`<p class="not-shared" data-organization="([^"]*)"`)
	pageNoticeRE    = regexp.MustCompile(`<p class="notice">([^<]*)</p>`)
	pageErrorRE     = regexp.MustCompile(`<p class="error">([^<]*)</p>`)
)

func readPage(body string) pageShows {
	var p pageShows
	for _, m := range pageDatabaseRE.FindAllStringSubmatch(body, -1) {
		p.Databases = append(p.Databases, html.UnescapeString(m[1]+"/"+m[2]))
	}
	for _, m := range pageNotSharedRE.FindAllStringSubmatch(body, -1) {
		p.NotShared = append(p.NotShared, html.UnescapeString(m[1]))
	}
	// The API's order is not the app's concern.
	slices.Sort(p.Databases)
	slices.Sort(p.NotShared)
	p.SignIn = strings.Contains(body, `id="sign-in" href="/login"`)
	p.SignOut = strings.Contains(body, `action="/logout"`)
	if m := pageNoticeRE.FindStringSubmatch(body); m != nil {
		p.Notice = html.UnescapeString(m[1])
	}
	if m := pageErrorRE.FindStringSubmatch(body); m != nil {
		p.Error = html.UnescapeString(m[1])
	}
	return p
}

// wantPage checks that p is the app's page at path with status and shows
// want.
func wantPage(t *testing.T, d *demo, p page, path string, status int, want pageShows) {
	t.Helper()
	if got := p.url.Scheme + "://" + p.url.Host + p.url.Path; got != d.url+path || p.status != status {
		t.Errorf("at %s with status %d, want %s%s with %d", p.url, p.status, d.url, path, status)
	}
	if diff := cmp.Diff(want, readPage(p.body)); diff != "" {
		t.Errorf("page at %s (-want +got):\n%s\n%s", p.url.Path, diff, p.body)
	}
}

// seeded returns the page of a user who shared the organizations orgs
// (demoOrgs names): their databases, and the other organizations as not
// shared.
func seeded(orgs ...string) pageShows {
	p := pageShows{SignOut: true}
	for _, o := range demoOrgs {
		if !slices.Contains(orgs, o.name) {
			p.NotShared = append(p.NotShared, o.name)
			continue
		}
		for _, db := range o.databases {
			p.Databases = append(p.Databases, o.name+"/"+db)
		}
	}
	slices.Sort(p.Databases)
	slices.Sort(p.NotShared)
	return p
}

// signedOut is the page of a visitor who is not signed in.
var signedOut = pageShows{SignIn: true}

// tokenRequests counts the requests of the fake's token endpoint.
func tokenRequests(d *demo) int {
	n := 0
	for _, r := range d.fake.Requests() {
		if r.Operation == "oauth_token" {
			n++
		}
	}
	return n
}

// expireTokens moves the fake's clock past the expiry of the access tokens
// it has issued.
func expireTokens(d *demo) { d.fake.Advance(fake.DefaultTimings().OAuthAccessToken) }

func TestSignInListsDatabases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		choose url.Values // on the consent page
		shared []string
	}{
		{"the default organization", nil, []string{demoOrgs[0].name}},
		{"every organization", url.Values{"organization": {demoOrgs[0].name, demoOrgs[1].name}}, []string{demoOrgs[0].name, demoOrgs[1].name}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := startTestDemo(t, "")
			b := newBrowser(t)
			wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, signedOut)

			// "/login" leads to the fake's consent page for the demo user.
			consent := b.get(d.url + "/login")
			form := readConsent(t, d, consent)
			for _, word := range []string{demoAppName, demoUserName, "Authorize", "Deny"} {
				if !strings.Contains(html.UnescapeString(consent.body), word) {
					t.Errorf("the consent page does not mention %q:\n%s", word, consent.body)
				}
			}
			var orgs []string
			for _, o := range demoOrgs {
				orgs = append(orgs, o.name)
			}
			slices.Sort(orgs)
			offered := slices.Sorted(slices.Values(form.options["organization"]))
			if diff := cmp.Diff(orgs, offered); diff != "" {
				t.Errorf("organizations offered (-want +got):\n%s", diff)
			}

			// Authorize -> the app's /callback -> "/" with the databases.
			wantPage(t, d, b.decide(form, "authorize", tt.choose), "/", http.StatusOK, seeded(tt.shared...))
			if n := tokenRequests(d); n != 1 {
				t.Errorf("%d token requests, want 1 (the exchange)", n)
			}
			// Another browser is not signed in.
			wantPage(t, d, newBrowser(t).get(d.url+"/"), "/", http.StatusOK, signedOut)
		})
	}
}

func TestDenyShowsAccessDenied(t *testing.T) {
	t.Parallel()
	d := startTestDemo(t, "")
	b := newBrowser(t)
	denied := b.decide(readConsent(t, d, b.get(d.url+"/login")), "deny", nil)
	wantPage(t, d, denied, callbackPath, http.StatusForbidden, pageShows{SignIn: true, Notice: accessDeniedNotice})
	if n := tokenRequests(d); n != 0 {
		t.Errorf("%d token requests after a denial, want none", n)
	}
	wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, signedOut)
}

func TestRefreshedTokensAreSaved(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sessions.json")
	d := startTestDemo(t, file)
	b := newBrowser(t)
	signIn(t, d, b, nil)
	first := savedRefreshToken(t, file)

	// While the token is valid the app uses it.
	wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, seeded(demoOrgs[0].name))
	if n := tokenRequests(d); n != 1 {
		t.Fatalf("%d token requests before the expiry, want 1 (the exchange)", n)
	}

	// Past its expiry on the platform's clock, the API refuses it; the app
	// refreshes and saves the new refresh token, and the old one no longer
	// works.
	expireTokens(d)
	wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, seeded(demoOrgs[0].name))
	if n := tokenRequests(d); n != 2 {
		t.Errorf("%d token requests after the expiry, want 2 (the exchange and one refresh)", n)
	}
	second := savedRefreshToken(t, file)
	if second == first {
		t.Fatal("the saved refresh token is still the first one after a refresh")
	}
	wantRefused(t, d, first)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("sessions file: %v, %v; want mode 0600", err, fi)
	}

	// After a restart the browser is still signed in, and the next refresh
	// works: the file held the refresh token that works now.
	restarted := restartApp(t, d, file)
	expireTokens(d)
	p := b.get(restarted + "/")
	if diff := cmp.Diff(seeded(demoOrgs[0].name), readPage(p.body)); p.status != http.StatusOK || diff != "" {
		t.Errorf("after a restart: status %d, page (-want +got):\n%s", p.status, diff)
	}
	if third := savedRefreshToken(t, file); third == second {
		t.Error("the saved refresh token did not change with the refresh after the restart")
	}
	wantRefused(t, d, second)
}

// restartApp serves d's app anew on the sessions kept in file, as after a
// restart, and returns its URL. It answers at another port of the same
// host, to which the browser sends the same cookies.
func restartApp(t *testing.T, d *demo, file string) string {
	t.Helper()
	store, err := openSessions(file)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newApp(d.config, d.fake.URL(), store)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// savedRefreshToken reads the refresh token of the one session kept in a
// sessions file.
func savedRefreshToken(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var byID map[string]struct {
		Token oauth2.Token `json:"token"`
	}
	if err := json.Unmarshal(b, &byID); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var refresh []string
	for _, s := range byID {
		refresh = append(refresh, s.Token.RefreshToken)
	}
	if len(refresh) != 1 || refresh[0] == "" {
		t.Fatalf("%s holds the refresh tokens %q, want one", file, refresh)
	}
	return refresh[0]
}

// wantRefused checks that the fake's token endpoint refuses refresh.
func wantRefused(t *testing.T, d *demo, refresh string) {
	t.Helper()
	_, err := d.config.OAuth2().TokenSource(t.Context(), &oauth2.Token{RefreshToken: refresh}).Token()
	var refused *oauth2.RetrieveError
	if !errors.As(err, &refused) || refused.ErrorCode != "invalid_grant" {
		t.Errorf("refreshing with a replaced refresh token: %v, want invalid_grant", err)
	}
}

func TestSignInEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(t *testing.T, d *demo)
	}{
		{"the user revokes the app's access", revokeTokens},
		{"the API refuses a refreshed token too", func(t *testing.T, d *demo) {
			if _, err := d.fake.InjectFault("list_organizations", fake.Fault{Status: http.StatusUnauthorized, Times: 2}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := startTestDemo(t, "")
			b := newBrowser(t)
			signIn(t, d, b, nil)

			tt.end(t, d)
			wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, pageShows{SignIn: true, Notice: signInEndedNotice})
			// One refresh after the refusal, and no more.
			if n := tokenRequests(d); n != 2 {
				t.Errorf("%d token requests, want 2: the exchange and one refresh", n)
			}
			// The session is gone: the next visit is a plain signed-out one.
			wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, signedOut)
		})
	}
}

// revokeTokens deletes every token of d's application, as a user who
// revokes its access does.
func revokeTokens(t *testing.T, d *demo) {
	t.Helper()
	ctx, admin := t.Context(), d.fake.Client()
	tokens, err := admin.OAuthApplications.ListTokens(ctx, &platform.ListOAuthTokensParams{Organization: d.fake.Org(), ApplicationID: d.app.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens.Items) == 0 {
		t.Fatal("the application has no token to revoke")
	}
	for _, tok := range tokens.Items {
		p := &platform.DeleteOAuthTokenParams{Organization: d.fake.Org(), ApplicationID: d.app.ID, TokenID: tok.ID}
		if err := admin.OAuthApplications.DeleteToken(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTokenEndpointOutageKeepsTheSession(t *testing.T) {
	t.Parallel()
	d := startTestDemo(t, "")
	b := newBrowser(t)
	signIn(t, d, b, nil)
	expireTokens(d)
	if _, err := d.fake.InjectFault("oauth_token", fake.Fault{Status: http.StatusServiceUnavailable, Times: 1}); err != nil {
		t.Fatal(err)
	}

	// The refresh fails: an error, but the user stays signed in.
	p := b.get(d.url + "/")
	if got := readPage(p.body); p.status != http.StatusBadGateway || !got.SignOut || got.Error == "" || got.SignIn {
		t.Errorf("during the outage: status %d, page %+v; want 502, an error and still signed in", p.status, got)
	}
	// The next visit refreshes.
	wantPage(t, d, b.get(d.url+"/"), "/", http.StatusOK, seeded(demoOrgs[0].name))
	if n := tokenRequests(d); n != 3 {
		t.Errorf("%d token requests, want 3: the exchange, the failed refresh, the refresh", n)
	}
}

// TestForgedCallbackIsRefused plays an attacker who gets a valid code for
// their own account and sends a victim's browser to the callback with it:
// the state does not match the victim's, so no code is exchanged and the
// victim is not signed in to the attacker's account.
func TestForgedCallbackIsRefused(t *testing.T) {
	t.Parallel()
	d := startTestDemo(t, "")

	// The attacker authorizes and stops before the callback.
	attacker := newBrowser(t).stopAt(callbackPath)
	res := attacker.decide(readConsent(t, d, attacker.get(d.url+"/login")), "authorize", nil)
	callback, err := url.Parse(res.header.Get("Location"))
	if err != nil || callback.Path != callbackPath || callback.Query().Get("code") == "" {
		t.Fatalf("no callback with a code: %v %q", err, res.header.Get("Location"))
	}

	// The victim, who started a sign-in of their own, follows the link.
	victim := newBrowser(t).stopAt("")
	victim.get(d.url + "/login")
	wantPage(t, d, victim.get(callback.String()), callbackPath, http.StatusBadRequest, pageShows{
		SignIn: true, Notice: stateNotice,
	})
	if n := tokenRequests(d); n != 0 {
		t.Errorf("%d token requests for a forged callback, want none", n)
	}
	wantPage(t, d, victim.get(d.url+"/"), "/", http.StatusOK, signedOut)
}

func TestLogout(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sessions.json")
	d := startTestDemo(t, file)
	b := newBrowser(t)
	signIn(t, d, b, nil)
	refresh := savedRefreshToken(t, file)

	wantPage(t, d, b.do(http.MethodPost, d.url+"/logout", nil), "/", http.StatusOK, signedOut)
	// Signing in again works, with a new code.
	wantPage(t, d, signIn(t, d, b, nil), "/", http.StatusOK, seeded(demoOrgs[0].name))
	if n := tokenRequests(d); n != 2 {
		t.Errorf("%d token requests, want 2 (two exchanges)", n)
	}
	// The first session's token was revoked at the platform, not only
	// forgotten.
	wantRefused(t, d, refresh)
}

func TestNewAppChecksItsSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, redirectURL, apiURL string
	}{
		{"redirect URL with another path", "http://localhost:8080/cb", "http://localhost:9000/"},
		{"relative redirect URL", "/callback", "http://localhost:9000/"},
		{"API URL not absolute", "http://localhost:8080/callback", "api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := oauth.Config{ClientID: "id", ClientSecret: "secret", RedirectURL: tt.redirectURL}
			if _, err := newApp(cfg, tt.apiURL, &sessions{byID: map[string]*session{}}); err == nil {
				t.Errorf("newApp(%q, %q) = nil error", tt.redirectURL, tt.apiURL)
			}
		})
	}
}

func TestDemoBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr, listening, want string
	}{
		{"localhost:8080", "127.0.0.1:8080", "http://localhost:8080"},
		{"127.0.0.1:0", "127.0.0.1:41234", "http://127.0.0.1:41234"},
		{":8080", "[::]:8080", "http://localhost:8080"},
		{"0.0.0.0:9000", "0.0.0.0:9000", "http://localhost:9000"},
		{"[::1]:0", "[::1]:5555", "http://[::1]:5555"},
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.listening)
		if err != nil {
			t.Fatal(err)
		}
		if got := demoBaseURL(tt.addr, addr); got != tt.want {
			t.Errorf("demoBaseURL(%q, %s) = %q, want %q", tt.addr, tt.listening, got, tt.want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	t.Parallel()
	env := func(secret string) func(string) string {
		return func(k string) string {
			if k == secretEnv {
				return secret
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		args    []string
		env     string
		want    *options
		wantErr bool
	}{
		{
			name: "defaults",
			args: []string{"-client-id", "id", "-client-secret", "s"},
			want: &options{addr: "localhost:8080", apiURL: platform.DefaultBaseURL, oauth: oauth.Config{
				ClientID: "id", ClientSecret: "s", RedirectURL: "http://localhost:8080/callback", AuthURL: oauth.DefaultAuthURL,
			}},
		},
		{
			name: "everything set, secret from the environment",
			args: []string{"-addr", "127.0.0.1:9999", "-client-id", "id", "-auth-url", "http://auth.test", "-api-url", "http://api.test/", "-redirect-url", "https://app.test/callback", "-sessions", "s.json"},
			env:  "from-env",
			want: &options{addr: "127.0.0.1:9999", apiURL: "http://api.test/", sessionsFile: "s.json", oauth: oauth.Config{
				ClientID: "id", ClientSecret: "from-env", RedirectURL: "https://app.test/callback", AuthURL: "http://auth.test",
			}},
		},
		{name: "demo", args: []string{"-demo"}, env: "ignored", want: &options{demo: true, addr: "localhost:8080"}},
		{name: "demo on another address", args: []string{"-demo", "-addr", "127.0.0.1:0"}, want: &options{demo: true, addr: "127.0.0.1:0"}},
		{name: "demo with credentials", args: []string{"-demo", "-client-id", "id"}, wantErr: true},
		{name: "demo with a sessions file", args: []string{"-demo", "-sessions", "s.json"}, wantErr: true},
		{name: "no client ID", args: []string{"-client-secret", "s"}, wantErr: true},
		{name: "no secret", args: []string{"-client-id", "id"}, wantErr: true},
		{name: "stray argument", args: []string{"-client-id", "id", "-client-secret", "s", "extra"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseOptions(tt.args, env(tt.env), io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseOptions: err = %v, want an error: %t", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}
