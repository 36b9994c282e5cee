package fake_test

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// browserAccept is the Accept header of a browser's navigation.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// pageBrowser sends requests to a server's state page as a browser would:
// with its Accept header, its Origin on a POST, and the session cookie it
// was given. It follows no redirects, so that a test sees them.
type pageBrowser struct {
	t      *testing.T
	srv    *fake.Server
	origin string // the server's origin, http://127.0.0.1:PORT
	cookie *http.Cookie
}

func newPageBrowser(t *testing.T, srv *fake.Server) *pageBrowser {
	return &pageBrowser{t: t, srv: srv, origin: strings.TrimSuffix(srv.URL(), "/")}
}

// pageAnswer is a response of the state page, with its body read.
type pageAnswer struct {
	status int
	header http.Header
	body   string
}

// do sends a request to path (below the server's URL, without its "/"),
// with form as the body of a POST, and keeps the session cookie the answer
// sets. edit, when set, changes the request before it is sent.
func (b *pageBrowser) do(method, path string, form url.Values, edit func(*http.Request)) pageAnswer {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.srv.URL()+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Accept", browserAccept)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.origin)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	if b.cookie != nil {
		req.AddCookie(b.cookie)
	}
	if edit != nil {
		edit(req)
	}
	client := clientOf(b.srv)
	client.CheckRedirect = noFollow
	resp, err := client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "fake_state_session" {
			b.cookie = c
			if c.MaxAge < 0 {
				b.cookie = nil
			}
		}
	}
	return pageAnswer{status: resp.StatusCode, header: resp.Header, body: string(data)}
}

// signIn signs in with the admin token's form and checks the answer.
func (b *pageBrowser) signIn() {
	b.t.Helper()
	a := b.do(http.MethodPost, "_fake/page/sign-in", url.Values{"token": {b.srv.AdminToken().Authorization()}}, nil)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != fake.ControlPrefix || b.cookie == nil {
		b.t.Fatalf("signing in: status %d, Location %q, cookie %v; want 303 to %s with a cookie\n%s", a.status, a.header.Get("Location"), b.cookie, fake.ControlPrefix, a.body)
	}
}

// page opens the state page and checks that it is shown.
func (b *pageBrowser) page() pageAnswer {
	b.t.Helper()
	a := b.do(http.MethodGet, "_fake/", nil, nil)
	if a.status != http.StatusOK || !strings.Contains(a.body, `id="clock"`) {
		b.t.Fatalf("GET /_fake/: status %d, want 200 and the state page:\n%s", a.status, a.body)
	}
	return a
}

var (
	csrfField   = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	sectionRE   = regexp.MustCompile(`(?s)<section id="([^"]+)">(.*?)</section>`)
	rowRE       = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE      = regexp.MustCompile(`(?s)<td>(.*?)</td>`)
	nowRE       = regexp.MustCompile(`<time id="now" datetime="([^"]+)"`)
	noticeRE    = regexp.MustCompile(`<p class="notice" role="alert">([^<]*)</p>`)
	signInField = `<input type="password" id="token" name="token"`
)

// find returns the first group of re's first match in the page; what names
// it in the failure when there is none.
func (a pageAnswer) find(t *testing.T, re *regexp.Regexp, what string) string {
	t.Helper()
	m := re.FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("the page shows no %s:\n%s", what, a.body)
	}
	return m[1]
}

// csrf returns the CSRF token of the page's forms.
func (a pageAnswer) csrf(t *testing.T) string { t.Helper(); return a.find(t, csrfField, "csrf field") }

// now returns the clock's time the page shows.
func (a pageAnswer) now(t *testing.T) string { t.Helper(); return a.find(t, nowRE, "clock") }

// rows returns the rows of the page's table id, as the text of their cells.
func (a pageAnswer) rows(id string) [][]string {
	for _, sec := range sectionRE.FindAllStringSubmatch(a.body, -1) {
		if sec[1] != id {
			continue
		}
		var out [][]string
		for _, row := range rowRE.FindAllStringSubmatch(sec[2], -1) {
			var cells []string
			for _, c := range cellRE.FindAllStringSubmatch(row[1], -1) {
				cells = append(cells, html.UnescapeString(c[1]))
			}
			if cells != nil {
				out = append(out, cells)
			}
		}
		return out
	}
	return nil
}

// TestStatePageNegotiation: only a browser's GET of /_fake/ gets the page
// (or its sign-in form); the control surface answers the rest as before,
// in JSON.
func TestStatePageNegotiation(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	admin := srv.AdminToken().Authorization()
	for _, tc := range []struct {
		name, method, path, accept, auth string
		status                           int
		contentType                      string
		signIn                           bool
	}{
		{"curl without token", "GET", "_fake/", "*/*", "", 401, "application/json", false},
		{"curl with token", "GET", "_fake/", "*/*", admin, 404, "application/json", false},
		{"no Accept", "GET", "_fake/", "", admin, 404, "application/json", false},
		{"JSON client", "GET", "_fake/", "application/json", admin, 404, "application/json", false},
		{"html refused by q=0", "GET", "_fake/", "text/html;q=0, */*", admin, 404, "application/json", false},
		{"browser POST", "POST", "_fake/", browserAccept, admin, 404, "application/json", false},
		{"browser GET of an endpoint", "GET", "_fake/now", browserAccept, admin, 200, "application/json", false},
		{"browser", "GET", "_fake/", browserAccept, "", 401, "text/html; charset=utf-8", true},
		{"browser with the token but no session", "GET", "_fake/", browserAccept, admin, 401, "text/html; charset=utf-8", true},
		{"sign-in form", "GET", "_fake/page/sign-in", "*/*", "", 200, "text/html; charset=utf-8", true},
		{"unknown page", "GET", "_fake/page/nothing", "*/*", "", 404, "text/html; charset=utf-8", false},
		{"page endpoint, wrong method", "GET", "_fake/page/advance", "*/*", "", 405, "text/html; charset=utf-8", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), tc.method, srv.URL()+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := clientOf(srv).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.contentType {
				t.Errorf("status %d, Content-Type %q; want %d, %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.contentType, body)
			}
			if got := strings.Contains(string(body), signInField); got != tc.signIn {
				t.Errorf("shows the sign-in form: %v, want %v\n%s", got, tc.signIn, body)
			}
			if strings.HasPrefix(tc.contentType, "text/html") {
				if got := resp.Header.Get("X-Frame-Options"); got != "DENY" {
					t.Errorf("X-Frame-Options %q, want DENY", got)
				}
				if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
					t.Errorf("Content-Security-Policy %q lacks frame-ancestors 'none' or default-src 'none'", csp)
				}
			}
		})
	}
}

// TestStatePageSignIn: the admin token's form and a one-time link sign a
// browser in, with an HttpOnly, SameSite=Strict cookie; a wrong token, a
// used link and sign-out leave it signed out.
func TestStatePageSignIn(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)

	t.Run("form", func(t *testing.T) {
		t.Parallel()
		b := newPageBrowser(t, srv)
		a := b.do(http.MethodPost, "_fake/page/sign-in", url.Values{"token": {srv.AdminToken().ID + ":wrong"}}, nil)
		if a.status != http.StatusUnauthorized || b.cookie != nil || !strings.Contains(a.body, "That is not the admin token") {
			t.Fatalf("a wrong token: status %d, cookie %v; want 401, none, and the reason\n%s", a.status, b.cookie, a.body)
		}
		b.signIn()
		c := b.cookie
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != fake.ControlPrefix {
			t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=%s", c, fake.ControlPrefix)
		}
		page := b.page()
		if got := page.header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", got)
		}
		a = b.do(http.MethodPost, "_fake/page/sign-out", url.Values{"csrf": {page.csrf(t)}}, nil)
		if a.status != http.StatusSeeOther || b.cookie != nil {
			t.Fatalf("signing out: status %d, cookie %v; want 303 and the cookie removed", a.status, b.cookie)
		}
		b.cookie = c // the old cookie names an ended session
		if a := b.do(http.MethodGet, "_fake/", nil, nil); a.status != http.StatusUnauthorized || !strings.Contains(a.body, signInField) {
			t.Errorf("after sign-out: status %d, want 401 and the sign-in form\n%s", a.status, a.body)
		}
	})

	t.Run("link", func(t *testing.T) {
		t.Parallel()
		link := srv.StatePageLink()
		path, ok := strings.CutPrefix(link, srv.URL())
		if !ok || !strings.HasPrefix(path, "_fake/page/sign-in?code=") {
			t.Fatalf("StatePageLink() = %q, want %s_fake/page/sign-in?code=...", link, srv.URL())
		}
		b := newPageBrowser(t, srv)
		if a := b.do(http.MethodGet, path, nil, nil); a.status != http.StatusSeeOther || b.cookie == nil {
			t.Fatalf("following the link: status %d, cookie %v; want 303 and a cookie\n%s", a.status, b.cookie, a.body)
		}
		b.page()
		other := newPageBrowser(t, srv)
		if a := other.do(http.MethodGet, path, nil, nil); a.status != http.StatusUnauthorized || other.cookie != nil || !strings.Contains(a.body, "used already") {
			t.Errorf("the link again: status %d, cookie %v; want 401, no cookie and the reason\n%s", a.status, other.cookie, a.body)
		}
	})

	t.Run("the 16 newest links", func(t *testing.T) {
		t.Parallel()
		own := fake.NewServer(t)
		var paths []string
		for range 17 {
			path, _ := strings.CutPrefix(own.StatePageLink(), own.URL())
			paths = append(paths, path)
		}
		if a := newPageBrowser(t, own).do(http.MethodGet, paths[0], nil, nil); a.status != http.StatusUnauthorized {
			t.Errorf("the 17th newest link: status %d, want 401 (forgotten)", a.status)
		}
		b := newPageBrowser(t, own)
		if a := b.do(http.MethodGet, paths[1], nil, nil); a.status != http.StatusSeeOther || b.cookie == nil {
			t.Errorf("the 16th newest link: status %d, cookie %v; want 303 and a cookie", a.status, b.cookie)
		}
	})

	t.Run("the 64 newest sessions", func(t *testing.T) {
		t.Parallel()
		own := fake.NewServer(t)
		browsers := make([]*pageBrowser, 65)
		for i := range browsers {
			browsers[i] = newPageBrowser(t, own)
			browsers[i].signIn()
		}
		if a := browsers[0].do(http.MethodGet, "_fake/", nil, nil); a.status != http.StatusUnauthorized {
			t.Errorf("the oldest of 65 sessions: status %d, want 401 (ended)", a.status)
		}
		browsers[1].page()
		browsers[64].page()
	})

	t.Run("forms without a session", func(t *testing.T) {
		t.Parallel()
		b := newPageBrowser(t, srv)
		if a := b.do(http.MethodPost, "_fake/page/sign-out", url.Values{"csrf": {"x"}}, nil); a.status != http.StatusUnauthorized || !strings.Contains(a.body, "Your session has ended") {
			t.Errorf("signing out without a session: status %d, want 401 and the reason\n%s", a.status, a.body)
		}
		a := b.do(http.MethodPost, "_fake/page/sign-in", url.Values{}, func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader("token=%zz"))
		})
		if a.status != http.StatusBadRequest || b.cookie != nil || !strings.Contains(a.body, "The form could not be read") {
			t.Errorf("an unreadable sign-in form: status %d, cookie %v; want 400 and the reason\n%s", a.status, b.cookie, a.body)
		}
	})

	t.Run("admin token changes", func(t *testing.T) {
		t.Parallel()
		own := fake.NewServer(t)
		b := newPageBrowser(t, own)
		b.signIn()
		b.page()
		other := fake.NewServer(t, fake.WithSeed(7))
		snap, err := other.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := own.Restore(snap); err != nil {
			t.Fatal(err)
		}
		if a := b.do(http.MethodGet, "_fake/", nil, nil); a.status != http.StatusUnauthorized {
			t.Errorf("after a Restore with another admin token: status %d, want 401 (signed out)", a.status)
		}
	})
}

// TestStatePageAdvance: the Advance form moves the virtual clock; a
// refusal says why on the page and moves nothing.
func TestStatePageAdvance(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	b := newPageBrowser(t, srv)
	b.signIn()
	page := b.page()
	start := srv.Now()
	if got, want := page.now(t), platform.NewTimestamp(start).String(); got != want {
		t.Errorf("the page shows %s, want the clock's %s", got, want)
	}
	a := b.do(http.MethodPost, "_fake/page/advance", url.Values{"csrf": {page.csrf(t)}, "d": {"1m30s"}}, nil)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != fake.ControlPrefix {
		t.Fatalf("advance: status %d, Location %q; want 303 to %s\n%s", a.status, a.header.Get("Location"), fake.ControlPrefix, a.body)
	}
	want := start.Add(90 * time.Second)
	if got := srv.Now(); !got.Equal(want) {
		t.Errorf("after advance 1m30s the clock is %v, want %v", got, want)
	}
	if got := b.page().now(t); got != platform.NewTimestamp(want).String() {
		t.Errorf("the page shows %s after the advance, want %s", got, platform.NewTimestamp(want).String())
	}

	for _, tc := range []struct{ d, status, notice string }{
		{"", "400", "Not advanced: d is required: a duration such as 5s or 1m30s."},
		{"-5s", "400", `Not advanced: d must be a non-negative duration such as 5s or 1m30s, got &#34;-5s&#34;.`},
		{"soon", "400", `Not advanced: d must be a non-negative duration such as 5s or 1m30s, got &#34;soon&#34;.`},
	} {
		a := b.do(http.MethodPost, "_fake/page/advance", url.Values{"csrf": {page.csrf(t)}, "d": {tc.d}}, nil)
		m := noticeRE.FindStringSubmatch(a.body)
		if got := strings.TrimSpace(http.StatusText(a.status)); a.status != 400 || m == nil || m[1] != tc.notice {
			t.Errorf("advance %q: status %d %s, notice %q; want 400 and %q", tc.d, a.status, got, m, tc.notice)
		}
		if got := srv.Now(); !got.Equal(want) {
			t.Errorf("advance %q moved the clock to %v", tc.d, got)
		}
	}

	real := fake.NewServer(t, fake.WithRealTime())
	rb := newPageBrowser(t, real)
	rb.signIn()
	rpage := rb.page()
	if strings.Contains(rpage.body, `id="advance"`) {
		t.Errorf("a real-time server's page offers the Advance form")
	}
	if a := rb.do(http.MethodPost, "_fake/page/advance", url.Values{"csrf": {rpage.csrf(t)}, "d": {"5s"}}, nil); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "follows the wall clock") {
		t.Errorf("advance on the wall clock: status %d, want 422 and the reason\n%s", a.status, a.body)
	}
}

// TestStatePageRefusesForgedForms: a form's POST without the session's
// CSRF token, from another origin, or without a session changes nothing.
func TestStatePageRefusesForgedForms(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	b := newPageBrowser(t, srv)
	b.signIn()
	token := b.page().csrf(t)
	other := newPageBrowser(t, srv)
	other.signIn()
	otherToken := other.page().csrf(t)
	for _, tc := range []struct {
		name   string
		csrf   string
		edit   func(*http.Request)
		status int
		says   string
	}{
		{"no CSRF token", "", nil, 403, "CSRF token does not match"},
		{"another session's CSRF token", otherToken, nil, 403, "CSRF token does not match"},
		{"another origin", token, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example"); r.Header.Del("Sec-Fetch-Site") }, 403, "from another site"},
		{"a cross-site fetch", token, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site"); r.Header.Del("Origin") }, 403, "from another site"},
		{"a same-site fetch from another origin", token, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }, 403, "from another site"},
		{"no session", token, func(r *http.Request) { r.Header.Del("Cookie") }, 401, "Your session has ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Now()
			a := b.do(http.MethodPost, "_fake/page/advance", url.Values{"csrf": {tc.csrf}, "d": {"1h"}}, tc.edit)
			if a.status != tc.status || !strings.Contains(a.body, tc.says) {
				t.Errorf("status %d, want %d and %q\n%s", a.status, tc.status, tc.says, a.body)
			}
			if got := srv.Now(); !got.Equal(before) {
				t.Errorf("the refused form moved the clock from %v to %v", before, got)
			}
		})
	}
	// A request without Origin and Sec-Fetch-Site (not a browser's) with
	// the session's token is served.
	a := b.do(http.MethodPost, "_fake/page/advance", url.Values{"csrf": {token}, "d": {"1s"}}, func(r *http.Request) {
		r.Header.Del("Origin")
		r.Header.Del("Sec-Fetch-Site")
	})
	if a.status != http.StatusSeeOther {
		t.Errorf("a form without Origin, with the token: status %d, want 303\n%s", a.status, a.body)
	}
}

// TestStatePageShowsTheWorld: the page lists what the API created, with
// states, the request log and webhook deliveries.
func TestStatePageShowsTheWorld(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	ctx := t.Context()
	e.branch("add-orders", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "add-orders"})
	if _, err := e.c.Workflows.Create(ctx, wfCreate(e.srv)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Backups.Create(ctx, &platform.CreateBackupParams{Organization: e.org, Database: drDB, Branch: "main", Name: platform.Ptr("nightly")}); err != nil {
		t.Fatal(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	hook, err := e.c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Organization: e.org, Database: drDB, URL: receiver.URL + "/hook", Events: []platform.WebhookEvent{platform.WebhookEvent("branch.ready")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.Webhooks.Test(ctx, &platform.TestWebhookParams{Organization: e.org, Database: drDB, ID: hook.ID}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FlushDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	dr, err := e.c.DeployRequests.Get(ctx, &platform.DeployRequestParams{Organization: e.org, Database: drDB, Number: 1})
	if err != nil {
		t.Fatal(err)
	}

	b := newPageBrowser(t, e.srv)
	b.signIn()
	page := b.page()
	created := func(id string) [][]string { // the rows, without their Created column
		var out [][]string
		for _, r := range page.rows(id) {
			out = append(out, r[:len(r)-1])
		}
		return out
	}
	where := e.org + "/" + drDB
	for _, tc := range []struct {
		id   string
		want [][]string
	}{
		{"organizations", [][]string{{e.org, "1", "1"}}},
		{"databases", [][]string{{e.org, drDB, "mysql", "ready", "us-east", "2"}}},
		{"branches", [][]string{{where, "main", "", "yes", "ready"}, {where, "add-orders", "main", "no", "ready"}}},
		{"deploy-requests", [][]string{{where, "1", "add-orders", "main", "open", string(dr.DeploymentState)}}},
		{"workflows", [][]string{{where, "1", "move-audit", "main", "pending"}}},
		{"backups", [][]string{{where, "main", "nightly", "pending"}}},
	} {
		if diff := cmp.Diff(tc.want, created(tc.id)); diff != "" {
			t.Errorf("table %s (-want +got):\n%s", tc.id, diff)
		}
	}

	requests := page.rows("requests")
	wantReq := []string{"GET", "/v1/organizations/" + e.org + "/databases/" + drDB + "/deploy-requests/1", "200", "get_deploy_request", ""}
	if !slices.ContainsFunc(requests, func(r []string) bool { return cmp.Equal(r[1:], wantReq) }) {
		t.Errorf("the request log does not show %q; it shows:\n%q", wantReq, requests)
	}
	if len(requests) == 0 || requests[0][4] != "_fake/page/sign-in" {
		t.Errorf("the request log's first row is %q, want the newest request, the sign-in", requests[:min(1, len(requests))])
	}

	deliveries := page.rows("deliveries")
	if len(deliveries) != 1 || deliveries[0][1] != "webhook.test" || deliveries[0][2] != receiver.URL+"/hook" || deliveries[0][4] != "204 No Content" {
		t.Errorf("webhook deliveries: %q, want the one test delivery to %s/hook, 204 No Content", deliveries, receiver.URL)
	}
}

// TestStatePageBoundsItsTables: a large world's tables show their first
// 200 rows and say how many there are; the request log its newest 100.
func TestStatePageBoundsItsTables(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for i := range 205 {
		if err := srv.CreateOrganization(fmt.Sprintf("org-%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for range 150 {
		if _, err := srv.Client().Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
			t.Fatal(err)
		}
	}
	b := newPageBrowser(t, srv)
	b.signIn()
	page := b.page()
	orgs := page.rows("organizations")
	if len(orgs) != 200 || !strings.Contains(page.body, "The first 200 of 206.") {
		t.Errorf("organizations: %d rows; want the first 200 of 206, said so", len(orgs))
	}
	requests := page.rows("requests")
	if len(requests) != 100 || requests[0][4] != "_fake/page/sign-in" || !strings.Contains(page.body, "Newest first: the last 100 of the 151 requests kept.") {
		t.Errorf("request log: %d rows, the first %q; want the newest 100 of 151, said so", len(requests), requests[0])
	}
}
