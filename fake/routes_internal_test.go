package fake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// branchPathRoutes returns every route of the table whose pattern has {branch}.
func branchPathRoutes() []route {
	var out []route
	for _, rt := range routeTable() {
		if slices.Contains(wildcards(rt.pattern), "branch") {
			out = append(out, rt)
		}
	}
	return out
}

// routeRequest makes a request of rt's pattern whose {branch} is branch,
// {organization} acme, {database} app and every other wildcard "x" (a
// {rest...} "summary"), with its path values set as the ServeMux sets them,
// and body.
func routeRequest(rt route, branch, auth, body string) *http.Request {
	method, path, _ := strings.Cut(rt.pattern, " ")
	values := map[string]string{"organization": "acme", "database": "app", "branch": branch, "rest": "summary"}
	for _, name := range wildcards(path) {
		path = strings.Replace(path, "{"+name+"}", cmp.Or(values[name], "x"), 1)
	}
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	for _, name := range wildcards(cmp.Or(rt.muxPattern, rt.pattern)) {
		v := cmp.Or(values[name], "x")
		if name == "rest" {
			v = values[name]
		}
		r.SetPathValue(name, v)
	}
	r.Header.Set("Authorization", auth)
	return r
}

// validBodies are the bodies that pass the body check (bodyChecker) of the
// routes whose body has one; the others are sent without a body.
var validBodies = map[string]string{"update_safe_migrations": `{"safe_migrations": true}`}

// TestPipelineResolvesBranch checks, for every route whose pattern has
// {branch} (taken from the route table, so that a new route is covered),
// that the pipeline sets call.branch to the path's branch before the
// handler runs; that a {branch} naming no live branch (one never made, one
// deleted) is refused with the 404 the handlers gave, whose logged reason
// names the branch, without running the handler and changing nothing;
// and that the permission check comes first, as it did. A route whose
// resource outlives its branch (branchMayBeGone: a backup) runs its handler
// with call.branch nil instead, which answers 404 for its {id}.
func TestPipelineResolvesBranch(t *testing.T) {
	t.Parallel()
	srv := newTrafficServer(t)
	c := srv.Client()
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: "acme", Database: "app", Name: "gone"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	if err := c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: "acme", Database: "app", Branch: "gone"}); err != nil {
		t.Fatal(err)
	}
	bystander, err := srv.CreateServiceToken("acme", TokenSpec{Name: "bystander", Permissions: []platform.Permission{platform.PermissionReadOrganization}})
	if err != nil {
		t.Fatal(err)
	}
	main := srv.world.orgs["acme"].dbByName["app"].branch("main")
	if main == nil {
		t.Fatal("database app has no branch main")
	}
	routes := branchPathRoutes()
	if len(routes) < 100 {
		t.Fatalf("the route table has %d routes with {branch}; want the 100 and more of operations.tsv", len(routes))
	}
	// The bystander's first use marks its token used; the clock stands
	// still, so the refusals below mark nothing more.
	if _, err := srv.ClientFor(bystander).Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "acme"}); err != nil {
		t.Fatal(err)
	}
	before, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	errSpy := errors.New("the handler ran")
	for _, rt := range routes {
		spec := operations[rt.op]
		spec.need = permsOf(spec.perms)

		// The pipeline, with a handler that records what it is given.
		for _, name := range []string{"main", "nope", "gone"} {
			spy := rt
			spy.spec = spec
			ran, got := false, (*branchRec)(nil)
			spy.serve = func(c *call) (any, error) {
				ran, got = true, c.branch
				return nil, errSpy
			}
			_, _, err := srv.run(&spy, routeRequest(rt, name, srv.AdminToken().Authorization(), ""), nil, nil)
			switch {
			case name == "main":
				if !ran || got != main {
					t.Errorf("%s on main: the handler ran %t with call.branch %v, want it run with main", rt.op, ran, got)
				}
			case rt.branchMayBeGone:
				if !ran || got != nil {
					t.Errorf("%s on %s: the handler ran %t with call.branch %v, want it run with nil", rt.op, name, ran, got)
				}
			default:
				var ae *apiError
				if ran || !errors.As(err, &ae) || ae.status != http.StatusNotFound {
					t.Errorf("%s on %s: the handler ran %t, error %v; want a 404 before the handler", rt.op, name, ran, err)
				}
			}
		}

		// The server, with the handler of the table.
		for _, tt := range []struct {
			who, branch, auth string
			reason            string
		}{
			{"admin", "nope", srv.AdminToken().Authorization(), `branch "nope" names nothing in database app`},
			{"admin", "gone", srv.AdminToken().Authorization(), `branch "gone" names nothing in database app`},
			{"bystander", "nope", bystander.Authorization(), "service token " + bystander.ID + " lacks the permission for " + rt.op + " "},
		} {
			if tt.who == "bystander" && len(spec.perms) == 0 {
				continue
			}
			if tt.who == "admin" && rt.branchMayBeGone {
				tt.reason = `id "x" names nothing in database app`
			}
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, routeRequest(rt, tt.branch, tt.auth, validBodies[rt.op]))
			var body errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("%s by %s on %s: body %s: %v", rt.op, tt.who, tt.branch, w.Body, err)
			}
			if diff := gocmp.Diff(errorBody{Code: "not_found", Message: "Not Found"}, body); w.Code != http.StatusNotFound || diff != "" {
				t.Errorf("%s by %s on %s: status %d, body (-want +got):\n%s", rt.op, tt.who, tt.branch, w.Code, diff)
			}
			log := srv.Requests()
			reason := log[len(log)-1].Reason
			if tt.who == "bystander" {
				reason, _, _ = strings.Cut(reason, "(") // the permissions the operation needs and the token holds follow
			}
			if reason != tt.reason {
				t.Errorf("%s by %s on %s: the logged reason is %q, want %q", rt.op, tt.who, tt.branch, reason, tt.reason)
			}
		}
	}
	after, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the refused requests changed the server's state")
	}
}

// TestBodyCheckBeforeBranch checks that a body a route refuses for itself
// (bodyChecker) is refused before an unknown {branch}, as its handler did
// when it looked the branch up itself, and after the permission check.
func TestBodyCheckBeforeBranch(t *testing.T) {
	t.Parallel()
	srv := newTrafficServer(t)
	byOp := map[string]route{}
	for _, rt := range branchPathRoutes() {
		byOp[rt.op] = rt
	}
	for _, tt := range []struct {
		op, body string
		status   int
		message  string
	}{
		{"update_safe_migrations", `{}`, http.StatusUnprocessableEntity, "safe_migrations is required: true or false"},
		{"update_keyspace", `{"shards": 2}`, http.StatusBadRequest, "unknown field shards; the settings are " + strings.Join(keyspaceSettingsFields, ", ")},
		{"update_keyspace", `{"vttablet_options": 7}`, http.StatusBadRequest, "field vttablet_options must be an object, not 7"},
	} {
		rt, ok := byOp[tt.op]
		if !ok {
			t.Fatalf("no route of %s with {branch}", tt.op)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, routeRequest(rt, "nope", srv.AdminToken().Authorization(), tt.body))
		var body errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: body %s: %v", tt.op, tt.body, w.Body, err)
		}
		if w.Code != tt.status || body.Message != tt.message {
			t.Errorf("%s %s on an unknown branch: %d %q, want %d %q", tt.op, tt.body, w.Code, body.Message, tt.status, tt.message)
		}
	}
}

// TestCleanPath holds cleanPath to its definition, a path already in the
// form path.Clean gives it (but for a final "/"), on both sides of its
// shortcut for paths with no "//" and no "/.".
func TestCleanPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		"", "a", "/", "//", "/v1/organizations/acme", "/v1/organizations/acme/",
		"/v1//organizations", "/v1/./organizations", "/v1/../organizations",
		"/v1/organizations/.", "/v1/organizations/..", "/.well-known/x",
		"/v1/a.b/c", "/v1/.b", "/v1/b.", "/v1/...", "/v1/a//",
	} {
		want := p != "" && p[0] == '/' && (path.Clean(p) == p || path.Clean(p)+"/" == p)
		if got := cleanPath(p); got != want {
			t.Errorf("cleanPath(%q) = %v, want %v", p, got, want)
		}
	}
}
