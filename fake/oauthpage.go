package fake

import (
	"bytes"
	"crypto/hmac"
	cryptorand "crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The pages of the authorization endpoint: the consent form and the error
// page. Both are plain HTML without scripts, so that a test can read the
// form with a regular expression and submit it with net/http.

// consentTemplate is the consent page. The form posts back to
// /oauth/authorize with the hidden client_id, redirect_uri and state (to
// /oauth/device with the hidden user_code), the chosen organization,
// database and branch values (multiple selects), and decision=authorize or
// decision=deny.
var consentTemplate = template.Must(template.New("consent").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorize {{.App}}</title></head>
<body>
<h1>Authorize {{.App}}</h1>
<p>Signed in as {{.User}}. {{.App}} asks for access to your account.</p>
<form method="post" action="{{.Action}}">
{{- range .Hidden}}
<input type="hidden" name="{{index . 0}}" value="{{index . 1}}">
{{- end}}
{{- range .Groups}}
<fieldset>
<legend>{{.Title}}</legend>
<ul>
{{- range .Scopes}}
<li><code>{{.}}</code>: {{.Description}}</li>
{{- end}}
</ul>
{{- if .Field}}
<label>{{.Label}}
<select name="{{.Field}}" multiple>
{{- range .Options}}
<option value="{{.Value}}"{{if .Selected}} selected{{end}}>{{.Value}}</option>
{{- end}}
</select>
</label>
{{- end}}
</fieldset>
{{- end}}
<button type="submit" name="decision" value="authorize">Authorize</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</body>
</html>
`))

// errorTemplate is the page of a refused authorization.
var errorTemplate = template.Must(template.New("error").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorization failed</title></head>
<body>
<h1>Authorization failed</h1>
<p>{{.}}</p>
</body>
</html>
`))

// userCodeTemplate is the device flow's verification page: a form for the
// user code the command-line tool shows, sent to the same page.
var userCodeTemplate = template.Must(template.New("user-code").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in a device</title></head>
<body>
<h1>Sign in a device</h1>
<form method="get" action="{{.}}">
<label>Enter the code your device shows:
<input type="text" name="user_code" autocomplete="off" autofocus>
</label>
<button type="submit">Continue</button>
</form>
</body>
</html>
`))

// deviceDoneTemplate is the page after a decision on a device sign-in.
var deviceDoneTemplate = template.Must(template.New("device-done").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{{if .Denied}}Access denied{{else}}Device signed in{{end}}</title></head>
<body>
{{- if .Denied}}
<h1>Access denied</h1>
<p>{{.App}} was not given access. You can close this page.</p>
{{- else}}
<h1>Device signed in</h1>
<p>{{.App}} has access. Return to your device; you can close this page.</p>
{{- end}}
</body>
</html>
`))

// deviceDone is what deviceDoneTemplate shows.
type deviceDone struct {
	App    string
	Denied bool
}

// renderPage renders one of the pages whose data cannot fail to render.
func renderPage(t *template.Template, data any) []byte {
	var buf bytes.Buffer
	_ = t.Execute(&buf, data)
	return buf.Bytes()
}

// consentView is what the consent page shows.
type consentView struct {
	App, User, Action string
	// Hidden are the form's hidden fields, name and value.
	Hidden [][2]string
	Groups []consentGroup
}

// consentGroup is the scopes of one kind of resource, with the select of
// the resources to grant them on (none for user scopes).
type consentGroup struct {
	Title, Label, Field string
	Scopes              []platform.Scope
	Options             []consentOption
}

// consentOption is a resource the user may choose.
type consentOption struct {
	Value    string
	Selected bool
}

// consentPage renders the consent page of an authorization of app by user,
// whose form posts to action with the hidden fields. The selects offer the
// user's organizations (their default one selected), the databases of
// those organizations as organization/database, and their branches as
// organization/database/branch.
func (w *world) consentPage(app *oauthAppRec, user *userRec, action string, hidden [][2]string) ([]byte, error) {
	v := consentView{App: app.name, User: user.name, Action: action, Hidden: hidden}
	var orgs []*orgRec
	for _, o := range w.orgIdx.All() {
		if o.memberByUser[user.id] != nil {
			orgs = append(orgs, o)
		}
	}
	for _, res := range scopeResources {
		g := consentGroup{Title: strings.ToUpper(res[:1]) + res[1:] + " access"}
		for _, sc := range app.scopes {
			if sc.Resource() == res {
				g.Scopes = append(g.Scopes, sc)
			}
		}
		if len(g.Scopes) == 0 {
			continue
		}
		if res != platform.ScopeResourceUser {
			g.Field, g.Label = res, "Grant on these "+map[string]string{
				platform.ScopeResourceOrganization: "organizations",
				platform.ScopeResourceDatabase:     "databases",
				platform.ScopeResourceBranch:       "branches",
			}[res]+":"
			g.Options = consentOptions(res, orgs, user.defaultOrg)
		}
		v.Groups = append(v.Groups, g)
	}
	var buf bytes.Buffer
	if err := consentTemplate.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeConsentPage answers r with the consent page, whose form carries
// the token of the browser's form session (started if need be).
func (s *Server) writeConsentPage(w http.ResponseWriter, r *http.Request, app *oauthAppRec, user *userRec, action string, hidden [][2]string) {
	hidden = append(hidden, [2]string{csrfField, s.formToken(formSession(w, r), user)})
	page, err := s.world.consentPage(app, user, action, hidden)
	if err != nil {
		pageErr(http.StatusInternalServerError, "rendering the consent page: %v", err).write(w)
		return
	}
	writePage(w, http.StatusOK, page)
}

// consentOptions lists the resources of kind res in orgs.
func consentOptions(res string, orgs []*orgRec, defaultOrg *orgRec) []consentOption {
	var out []consentOption
	for _, o := range orgs {
		if res == platform.ScopeResourceOrganization {
			out = append(out, consentOption{Value: o.name, Selected: o == defaultOrg})
			continue
		}
		for _, db := range o.dbs.All() {
			if res == platform.ScopeResourceDatabase {
				out = append(out, consentOption{Value: o.name + "/" + db.name})
				continue
			}
			names := make([]string, 0, db.branchIdx.Len())
			for _, b := range db.branchIdx.All() {
				names = append(names, b.name)
			}
			slices.Sort(names)
			for _, name := range names {
				out = append(out, consentOption{Value: o.name + "/" + db.name + "/" + name})
			}
		}
	}
	return out
}

// pageError is a refusal of the authorization endpoint, shown as a page
// instead of a redirect.
type pageError struct {
	status  int
	message string
	// retryAfter, when set, is sent as Retry-After (a throttled user code).
	retryAfter time.Duration
}

func pageErr(status int, format string, args ...any) *pageError {
	return &pageError{status: status, message: fmt.Sprintf(format, args...)}
}

// write writes the error page.
func (e *pageError) write(w http.ResponseWriter) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.retryAfter+time.Second-1)/time.Second)))
	}
	writePage(w, e.status, renderPage(errorTemplate, e.message))
}

// writePage writes an HTML page. No page may be framed by another site
// (clickjacking on the consent form): X-Frame-Options for old browsers, the
// CSP's frame-ancestors for the others.
func writePage(w http.ResponseWriter, status int, page []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
	_, _ = w.Write(page)
}

// pageBuffer is an answer of the OAuth pages, written while the server's
// lock is held and sent to the client after it is released (sendTo): a
// client that does not read its page holds up nobody else.
type pageBuffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header implements http.ResponseWriter.
func (b *pageBuffer) Header() http.Header { return b.header }

// WriteHeader implements http.ResponseWriter.
func (b *pageBuffer) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

// Write implements http.ResponseWriter.
func (b *pageBuffer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

// sendTo writes the buffered answer to w.
func (b *pageBuffer) sendTo(w http.ResponseWriter) {
	h := w.Header()
	maps.Copy(h, b.header)
	b.WriteHeader(http.StatusOK)
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

// underLock runs answer with the server's lock held, writing into a
// buffer, and sends what it wrote once the lock is released.
func (s *Server) underLock(w http.ResponseWriter, answer func(w http.ResponseWriter)) {
	buf := &pageBuffer{header: http.Header{}}
	func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		answer(buf)
	}()
	buf.sendTo(w)
}

// The consent forms (of /oauth/authorize and /oauth/device) can be
// submitted only from the page the server showed, in the same browser:
//
//   - the page sets a session cookie (formCookie: random, HttpOnly,
//     SameSite=Lax, for /oauth only) unless the browser already has one,
//     and the form carries a token (the hidden csrf_token) that is an HMAC
//     of that session and the signed-in user; a POST whose token is not
//     the one of its cookie and of the user signed in now is refused (403);
//   - a POST whose Origin (or Sec-Fetch-Site) says it comes from another
//     site is refused (403) before anything else. A client that sends
//     neither header, such as a test's HTTP client, is held to the token
//     alone.
//
// The fake has no sign-in page: anyone who can open the pages acts as the
// signed-in user. The token stops other sites from submitting the form
// through a user's browser, not a client that reads the page itself.

// formCookie is the name of the consent pages' session cookie.
const formCookie = "oauth_session"

// csrfField is the name of the forms' hidden token field.
const csrfField = "csrf_token"

// formSession returns the browser's form session, from its cookie, or
// starts one, setting the cookie on w.
func formSession(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(formCookie); err == nil && validFormSession(c.Value) {
		return c.Value
	}
	b := make([]byte, 32)
	_, _ = cryptorand.Read(b) // never fails (crypto/rand)
	sess := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name: formCookie, Value: sess, Path: "/oauth", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil,
	})
	return sess
}

// validFormSession reports whether v can be a session formSession made.
func validFormSession(v string) bool {
	b, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(b) == 32
}

// formToken is the csrf_token of the forms of session for user: an HMAC
// with the server's secret key, which it shares, separated by the prefix,
// with the download addresses.
func (s *Server) formToken(session string, user *userRec) string {
	m := hmac.New(sha256.New, s.fileKey[:])
	_, _ = io.WriteString(m, "oauth form\x00"+session+"\x00"+user.id)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkForm refuses a POST of a consent form whose token is not the one
// its page sent to this browser for the user signed in now (see above);
// nil lets it through. The form must be parsed.
func (s *Server) checkForm(r *http.Request, user *userRec) *pageError {
	c, err := r.Cookie(formCookie)
	if err != nil || !validFormSession(c.Value) {
		return pageErr(http.StatusForbidden, "this form was not sent by the page of this browser (no %s cookie): open the page again", formCookie)
	}
	want := s.formToken(c.Value, user)
	if got := r.PostForm.Get(csrfField); !hmac.Equal([]byte(got), []byte(want)) {
		return pageErr(http.StatusForbidden, "the form's %s is not the one of this browser's page for %s: open the page again", csrfField, user.name)
	}
	return nil
}

// checkSameOrigin refuses a form that its browser says a page of another
// origin sent (see foreignOrigin).
func checkSameOrigin(r *http.Request) *pageError {
	if why := foreignOrigin(r); why != "" {
		return pageErr(http.StatusForbidden, "a form of another site cannot be submitted here (%s)", why)
	}
	return nil
}
