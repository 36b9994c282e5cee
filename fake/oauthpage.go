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
// /oauth/authorize with the hidden client_id, redirect_uri and state, the
// chosen organization, database and branch values (multiple selects), and
// decision=authorize or decision=deny.
var consentTemplate = template.Must(template.New("consent").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorize {{.App}}</title></head>
<body>
<h1>Authorize {{.App}}</h1>
<p>Signed in as {{.User}}. {{.App}} asks for access to your account.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.RedirectURI}}">
{{- if .State}}
<input type="hidden" name="state" value="{{.State}}">
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

// consentView is what the consent page shows.
type consentView struct {
	App, User, ClientID, RedirectURI, State string
	Groups                                  []consentGroup
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

// consentPage renders the consent page of an authorization. The selects
// offer the user's organizations (their default one selected), the
// databases of those organizations as organization/database, and their
// branches as organization/database/branch.
func (s *Server) consentPage(req authorizeRequest) ([]byte, error) {
	v := consentView{App: req.app.name, User: req.user.name, ClientID: req.app.clientID, RedirectURI: req.redirectURI, State: req.state}
	var orgs []*orgRec
	for _, o := range s.world.orgIdx.all() {
		if o.memberByUser[req.user.id] != nil {
			orgs = append(orgs, o)
		}
	}
	for _, res := range scopeResources {
		g := consentGroup{Title: strings.ToUpper(res[:1]) + res[1:] + " access"}
		for _, sc := range req.app.scopes {
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
			g.Options = consentOptions(res, orgs, req.user.defaultOrg)
		}
		v.Groups = append(v.Groups, g)
	}
	var buf bytes.Buffer
	if err := consentTemplate.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
	var buf bytes.Buffer
	_ = errorTemplate.Execute(&buf, e.message)
	writePage(w, e.status, buf.Bytes())
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
