package fake

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

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
func (s *Server) consentPage(app *oauthAppRec, user *userRec, action string, hidden [][2]string) ([]byte, error) {
	v := consentView{App: app.name, User: user.name, Action: action, Hidden: hidden}
	var orgs []*orgRec
	for _, o := range s.world.orgIdx.all() {
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

// writeConsentPage answers with the consent page.
func (s *Server) writeConsentPage(w http.ResponseWriter, app *oauthAppRec, user *userRec, action string, hidden [][2]string) {
	page, err := s.consentPage(app, user, action, hidden)
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
		for _, db := range o.dbs.all() {
			if res == platform.ScopeResourceDatabase {
				out = append(out, consentOption{Value: o.name + "/" + db.name})
				continue
			}
			names := make([]string, 0, db.branchIdx.len())
			for _, b := range db.branchIdx.all() {
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
}

func pageErr(status int, format string, args ...any) *pageError {
	return &pageError{status: status, message: fmt.Sprintf(format, args...)}
}

// write writes the error page.
func (e *pageError) write(w http.ResponseWriter) {
	writePage(w, e.status, renderPage(errorTemplate, e.message))
}

// writePage writes an HTML page.
func writePage(w http.ResponseWriter, status int, page []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
	_, _ = w.Write(page)
}
