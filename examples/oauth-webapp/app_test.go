package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go/oauth"
)

// startApp serves the app for stub at a new address. sessionsFile "" keeps
// the sessions in memory.
func startApp(t *testing.T, stub *platformStub, sessionsFile string) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	cfg := oauth.Config{
		ClientID:     stubClientID,
		ClientSecret: stubClientSecret,
		RedirectURL:  "http://" + srv.Listener.Addr().String() + callbackPath,
		AuthURL:      stub.authURL(),
	}
	store, err := openSessions(sessionsFile)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newApp(cfg, stub.apiURL(), store)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
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

// do sends a request and returns the final status and body.
func (b *browser) do(method, u string) (int, string) {
	b.t.Helper()
	req, err := http.NewRequestWithContext(b.t.Context(), method, u, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

func (b *browser) get(u string) (int, string) { b.t.Helper(); return b.do(http.MethodGet, u) }

// pageShows is what a home page shows: the databases it lists (as
// "organization/database"), whether it offers to sign in, and its notice.
type pageShows struct {
	Databases []string
	SignIn    bool
	Notice    string
}

var (
	pageItem   = regexp.MustCompile(`<h2 class="organization">([^<]*)</h2>|data-name="([^"]*)"`)
	pageNotice = regexp.MustCompile(`<p class="notice">([^<]*)</p>`)
)

func readPage(body string) pageShows {
	var p pageShows
	org := ""
	for _, m := range pageItem.FindAllStringSubmatch(body, -1) {
		if m[1] != "" {
			org = m[1]
			continue
		}
		p.Databases = append(p.Databases, org+"/"+m[2])
	}
	p.SignIn = strings.Contains(body, `id="sign-in" href="/login"`)
	if m := pageNotice.FindStringSubmatch(body); m != nil {
		p.Notice = m[1]
	}
	return p
}

// allDatabases is what a signed-in user's page lists.
var allDatabases = []string{"acme/app-db", "acme/analytics", "side-project/hobby-db"}

// signIn signs b in to app and checks it lands on the list of databases.
func signIn(t *testing.T, b *browser, app *httptest.Server) {
	t.Helper()
	status, body := b.get(app.URL + "/login")
	if diff := cmp.Diff(pageShows{Databases: allDatabases}, readPage(body)); status != http.StatusOK || diff != "" {
		t.Fatalf("after signing in: status %d, page (-want +got):\n%s\n%s", status, diff, body)
	}
}

func TestSignInListsDatabases(t *testing.T) {
	t.Parallel()
	stub := newPlatformStub(t, 3600)
	app := startApp(t, stub, "")
	b := newBrowser(t)

	status, body := b.get(app.URL + "/")
	if diff := cmp.Diff(pageShows{SignIn: true}, readPage(body)); status != http.StatusOK || diff != "" {
		t.Fatalf("before signing in: status %d, page (-want +got):\n%s", status, diff)
	}

	// /login -> consent page (approves at once) -> /callback -> /.
	signIn(t, b, app)
	status, body = b.get(app.URL + "/")
	if diff := cmp.Diff(pageShows{Databases: allDatabases}, readPage(body)); status != http.StatusOK || diff != "" {
		t.Errorf("back on the home page: status %d, page (-want +got):\n%s", status, diff)
	}
	// One exchange, no refresh: the token is valid for an hour.
	if diff := cmp.Diff([]string{"authorization_code:code-1"}, stub.tokenRequests()); diff != "" {
		t.Errorf("token requests (-want +got):\n%s", diff)
	}

	// Another browser is not signed in.
	_, body = newBrowser(t).get(app.URL + "/")
	if diff := cmp.Diff(pageShows{SignIn: true}, readPage(body)); diff != "" {
		t.Errorf("another browser's page (-want +got):\n%s", diff)
	}
}

func TestRefreshedTokensAreSaved(t *testing.T) {
	t.Parallel()
	// Tokens expire at once, so each API request refreshes first, and each
	// refresh rotates the refresh token.
	stub := newPlatformStub(t, 1)
	file := filepath.Join(t.TempDir(), "sessions.json")
	b := newBrowser(t)
	signIn(t, b, startApp(t, stub, file))

	// The home page made three API requests (organizations, then the
	// databases of each of two), each after a refresh with the refresh
	// token the previous one returned.
	want := []string{"authorization_code:code-1", "refresh_token:refresh-2", "refresh_token:refresh-3", "refresh_token:refresh-4"}
	if diff := cmp.Diff(want, stub.tokenRequests()); diff != "" {
		t.Errorf("token requests (-want +got):\n%s", diff)
	}
	if got, want := savedRefreshTokens(t, file), []string{stub.lastRefreshToken()}; !cmp.Equal(want, got) {
		t.Errorf("the sessions file holds refresh tokens %v, want the latest one %v", got, want)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("sessions file: %v, mode %v; want mode 0600", err, fi.Mode().Perm())
	}

	// After a restart the browser is still signed in: the file had the
	// refresh token that works now; an older one would have been refused.
	status, body := b.get(startApp(t, stub, file).URL + "/")
	if diff := cmp.Diff(pageShows{Databases: allDatabases}, readPage(body)); status != http.StatusOK || diff != "" {
		t.Errorf("after a restart: status %d, page (-want +got):\n%s", status, diff)
	}
	if got, want := savedRefreshTokens(t, file), []string{stub.lastRefreshToken()}; !cmp.Equal(want, got) {
		t.Errorf("after a restart the sessions file holds refresh tokens %v, want the latest one %v", got, want)
	}
}

// savedRefreshTokens reads the refresh tokens kept in a sessions file.
func savedRefreshTokens(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var byID map[string]struct {
		Token struct {
			RefreshToken string `json:"refresh_token"`
		} `json:"token"`
	}
	if err := json.Unmarshal(b, &byID); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []string
	for _, s := range byID {
		out = append(out, s.Token.RefreshToken)
	}
	return out
}

func TestAccessDenied(t *testing.T) {
	t.Parallel()
	stub := newPlatformStub(t, 3600)
	stub.setDeny(true)
	app := startApp(t, stub, "")
	b := newBrowser(t)

	if status, body := b.get(app.URL + "/login"); status != http.StatusForbidden {
		t.Errorf("denied sign-in: status %d %q, want 403", status, body)
	}
	if _, body := b.get(app.URL + "/"); !readPage(body).SignIn {
		t.Errorf("after a denied sign-in the home page does not offer to sign in:\n%s", body)
	}
	if reqs := stub.tokenRequests(); len(reqs) != 0 {
		t.Errorf("token requests %v after a denial, want none", reqs)
	}
}

// TestForgedCallbackIsRefused plays an attacker who gets a valid code for
// their own account and sends a victim's browser to the callback with it:
// the state does not match the victim's, so no code is exchanged and the
// victim is not signed in to the attacker's account.
func TestForgedCallbackIsRefused(t *testing.T) {
	t.Parallel()
	stub := newPlatformStub(t, 3600)
	app := startApp(t, stub, "")

	// The attacker starts a sign-in and stops before the callback.
	attacker := newBrowser(t)
	attacker.c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == callbackPath {
			return http.ErrUseLastResponse
		}
		return nil
	}
	res, err := attacker.c.Get(app.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	callback, err := url.Parse(res.Header.Get("Location"))
	if err != nil || callback.Query().Get("code") == "" {
		t.Fatalf("no callback with a code: %v %q", err, res.Header.Get("Location"))
	}

	// The victim, who started a sign-in of their own, follows the link.
	victim := newBrowser(t)
	victim.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	victim.get(app.URL + "/login")
	status, _ := victim.get(callback.String())
	if status != http.StatusBadRequest {
		t.Errorf("forged callback: status %d, want 400", status)
	}
	if reqs := stub.tokenRequests(); len(reqs) != 0 {
		t.Errorf("token requests %v for a forged callback, want none", reqs)
	}
	if _, body := victim.get(app.URL + "/"); !readPage(body).SignIn {
		t.Errorf("the victim is signed in after a forged callback:\n%s", body)
	}
}

func TestSignInEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		expiresIn int
	}{
		{"the API refuses the access token", 3600},
		{"the token endpoint refuses the refresh token", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stub := newPlatformStub(t, tt.expiresIn)
			app := startApp(t, stub, "")
			b := newBrowser(t)
			signIn(t, b, app)

			stub.revoke()
			status, body := b.get(app.URL + "/")
			if diff := cmp.Diff(pageShows{SignIn: true, Notice: "Your sign-in has ended."}, readPage(body)); status != http.StatusOK || diff != "" {
				t.Errorf("after the revocation: status %d, page (-want +got):\n%s\n%s", status, diff, body)
			}
			// The session is gone: the next visit is a plain signed-out one.
			_, body = b.get(app.URL + "/")
			if diff := cmp.Diff(pageShows{SignIn: true}, readPage(body)); diff != "" {
				t.Errorf("next visit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLogout(t *testing.T) {
	t.Parallel()
	stub := newPlatformStub(t, 3600)
	app := startApp(t, stub, "")
	b := newBrowser(t)
	signIn(t, b, app)

	status, body := b.do(http.MethodPost, app.URL+"/logout")
	if diff := cmp.Diff(pageShows{SignIn: true}, readPage(body)); status != http.StatusOK || diff != "" {
		t.Errorf("after signing out: status %d, page (-want +got):\n%s", status, diff)
	}
	// Signing in again works, with a new code.
	signIn(t, b, app)
	if diff := cmp.Diff([]string{"authorization_code:code-1", "authorization_code:code-3"}, stub.tokenRequests()); diff != "" {
		t.Errorf("token requests (-want +got):\n%s", diff)
	}
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
			want: &options{addr: "localhost:8080", apiURL: "https://api.dbplatform.dev/", oauth: oauth.Config{
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
