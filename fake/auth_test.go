package fake_test

import (
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// coreOperations are the operations the fake serves so far: organizations,
// members, the current user, regions and databases.
var coreOperations = []string{
	"list_organizations", "get_organization", "update_organization", "list_regions_for_organization",
	"list_organization_members", "get_organization_membership", "update_organization_membership",
	"remove_organization_member", "get_current_user", "list_public_regions",
	"list_databases", "create_database", "get_database", "update_database_settings",
	"delete_database", "list_database_regions",
}

// tsvOperation is a row of operations.tsv.
type tsvOperation struct {
	group, method, path string
	status              int
	perms               []string            // nil: no permission needed ("-")
	scopes              map[string][]string // resource -> scopes; nil: none listed ("-")
}

// loadOperations reads the package's copy of operations.tsv.
func loadOperations(t testing.TB) map[string]tsvOperation {
	t.Helper()
	data, err := os.ReadFile("operations.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]tsvOperation{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 {
			continue
		}
		if len(f) != 7 {
			t.Fatalf("operations.tsv line %d has %d columns", i+1, len(f))
		}
		status, err := strconv.Atoi(f[4])
		if err != nil {
			t.Fatalf("operations.tsv line %d: status %q", i+1, f[4])
		}
		op := tsvOperation{group: f[0], method: f[1], path: f[2], status: status}
		if f[5] != "-" {
			op.perms = strings.Fields(f[5])
		}
		if f[6] != "-" {
			op.scopes = map[string][]string{}
			for _, rs := range strings.Fields(f[6]) {
				res, list, _ := strings.Cut(rs, ":")
				op.scopes[res] = strings.Split(list, ",")
			}
		}
		ops[f[3]] = op
	}
	return ops
}

// permFixture is a server set up for one request of the permission table:
// the database "app" (ready) and the member Bob.
type permFixture struct {
	srv *fake.Server
	bob string
}

func newPermFixture(t *testing.T) permFixture {
	t.Helper()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	mustDB(t, srv, "other")
	srv.Advance(5 * time.Second)
	return permFixture{srv: srv, bob: mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)}
}

// path fills the operation's path values: organization acme, database app,
// member Bob.
func (f permFixture) path(op tsvOperation) string {
	return strings.NewReplacer("{organization}", f.srv.Org(), "{database}", "app", "{id}", f.bob).Replace(op.path)
}

// permBodies are the request bodies of the operations that take one: each
// a change that succeeds from the fixture's state.
var permBodies = map[string]string{
	"update_organization":            `{"billing_email":"accounts@acme.example.com"}`,
	"update_organization_membership": `{"role":"admin"}`,
	"create_database":                `{"name":"fresh","cluster_size":"PS_10"}`,
	"update_database_settings":       `{"deletion_protected":true}`,
}

func TestOperationsTableCoversCoreOperations(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	all := fake.AllPermissions()
	for _, name := range coreOperations {
		op, ok := ops[name]
		if !ok {
			t.Errorf("%s is not in operations.tsv", name)
			continue
		}
		for _, p := range op.perms {
			if !slices.Contains(all, p) {
				t.Errorf("%s needs %s, which AllPermissions lacks", name, p)
			}
		}
	}
	if !slices.IsSorted(all) {
		t.Error("AllPermissions is not sorted")
	}
}

// TestPermissions checks each operation against its permission column: a
// token holding every permission but the listed ones gets 404 and changes
// nothing; a token holding exactly one listed permission succeeds; where no
// permission is listed, a token with none succeeds.
func TestPermissions(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for _, name := range coreOperations {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if op.perms == nil {
				t.Run("no permission needed", func(t *testing.T) {
					t.Parallel()
					f := newPermFixture(t)
					tok := mustToken(t, f.srv, fake.TokenSpec{Name: "nothing"})
					w := send(t, f.srv, op.method, f.path(op), tok.Authorization(), permBodies[name])
					wantStatus(t, w, op.status)
				})
				return
			}

			t.Run("lacking", func(t *testing.T) {
				t.Parallel()
				f := newPermFixture(t)
				var rest []string
				for _, p := range fake.AllPermissions() {
					if !slices.Contains(op.perms, p) {
						rest = append(rest, p)
					}
				}
				tok := mustToken(t, f.srv, fake.TokenSpec{Name: "all but", Permissions: rest})
				before := observe(t, f.srv)
				w := send(t, f.srv, op.method, f.path(op), tok.Authorization(), permBodies[name])
				if e := wantError(t, w, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
					t.Errorf("message %q, want the plain Not Found of a missing resource", e.Message)
				}
				unchanged(t, f.srv, before)
			})

			for _, perm := range op.perms {
				t.Run("only "+perm, func(t *testing.T) {
					t.Parallel()
					f := newPermFixture(t)
					tok := mustToken(t, f.srv, fake.TokenSpec{Name: "one", Permissions: []string{perm}})
					before := observe(t, f.srv)
					w := send(t, f.srv, op.method, f.path(op), tok.Authorization(), permBodies[name])
					wantStatus(t, w, op.status)
					if changed := !cmp.Equal(before, observe(t, f.srv)); changed != (op.method != http.MethodGet) {
						t.Errorf("state changed: %v, want %v", changed, op.method != http.MethodGet)
					}
				})
			}

			switch {
			case strings.Contains(op.path, "{database}"):
				// A grant on the database counts; a grant on another
				// database does not.
				for _, perm := range op.perms {
					t.Run("only "+perm+" on the database", func(t *testing.T) {
						t.Parallel()
						f := newPermFixture(t)
						tok := mustToken(t, f.srv, fake.TokenSpec{Name: "db", DatabasePermissions: map[string][]string{"app": {perm}}})
						wantStatus(t, send(t, f.srv, op.method, f.path(op), tok.Authorization(), permBodies[name]), op.status)
					})
					t.Run("only "+perm+" on another database", func(t *testing.T) {
						t.Parallel()
						f := newPermFixture(t)
						tok := mustToken(t, f.srv, fake.TokenSpec{Name: "elsewhere", DatabasePermissions: map[string][]string{"other": {perm}}})
						before := observe(t, f.srv)
						wantError(t, send(t, f.srv, op.method, f.path(op), tok.Authorization(), permBodies[name]), http.StatusNotFound, "not_found")
						unchanged(t, f.srv, before)
					})
				}
			case name != "list_databases":
				// An organization operation needs an organization grant:
				// the same permission granted on a database does not
				// count (the seeding API may refuse such a grant).
				for _, perm := range op.perms {
					t.Run("only "+perm+" on a database", func(t *testing.T) {
						t.Parallel()
						f := newPermFixture(t)
						tok, err := f.srv.CreateServiceToken(f.srv.Org(), fake.TokenSpec{Name: "misplaced", DatabasePermissions: map[string][]string{"app": {perm}}})
						if err != nil {
							return
						}
						before := observe(t, f.srv)
						wantError(t, send(t, f.srv, op.method, f.path(op), tok.Authorization(), permBodies[name]), http.StatusNotFound, "not_found")
						unchanged(t, f.srv, before)
					})
				}
			}
		})
	}
}

// badCredentials are Authorization headers that must get 401, built for a
// server: missing, malformed, unknown, wrong secret, revoked, expired.
func badCredentials(t *testing.T, srv *fake.Server) map[string]string {
	t.Helper()
	admin := srv.AdminToken()
	expired := mustToken(t, srv, fake.TokenSpec{Name: "expired", Permissions: fake.AllPermissions(), TTL: time.Second})
	revoked := mustToken(t, srv, fake.TokenSpec{Name: "revoked", Permissions: fake.AllPermissions()})
	if err := srv.DeleteServiceToken(revoked.ID); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Second)
	return map[string]string{
		"missing":            "",
		"no colon":           admin.ID + admin.Secret,
		"bearer":             "Bearer " + admin.Secret,
		"empty id":           ":" + admin.Secret,
		"empty secret":       admin.ID + ":",
		"space in id":        "Token " + admin.ID + ":" + admin.Secret,
		"unknown id":         "nosuchtoken1:" + admin.Secret,
		"wrong secret":       admin.ID + ":" + admin.Secret + "x",
		"secret of another":  expired.ID + ":" + admin.Secret,
		"expired":            expired.Authorization(),
		"revoked":            revoked.Authorization(),
		"secret with prefix": admin.ID + ":" + admin.Secret[:len(admin.Secret)-1],
	}
}

// TestUnauthorized sends every operation that needs credentials with bad
// ones: 401 unauthorized, and no state change.
func TestUnauthorized(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for _, name := range coreOperations {
		if name == "list_public_regions" {
			continue
		}
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newPermFixture(t)
			before := observe(t, f.srv)
			for label, auth := range badCredentials(t, f.srv) {
				w := send(t, f.srv, op.method, f.path(op), auth, permBodies[name])
				if w.status != http.StatusUnauthorized {
					t.Errorf("%s: status %d, want 401; body %s", label, w.status, w.body)
					continue
				}
				wantError(t, w, http.StatusUnauthorized, "unauthorized")
			}
			unchanged(t, f.srv, before)
		})
	}
}

func TestUnauthorizedBeforeNotFound(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, path := range []string{
		"/v1/organizations/nope",
		"/v1/organizations/acme/databases/nope",
		"/v1/organizations/acme/members/nobody",
	} {
		wantError(t, send(t, srv, "GET", path, "", ""), http.StatusUnauthorized, "unauthorized")
	}
	// A malformed body of an unauthenticated request is not looked at.
	wantError(t, send(t, srv, "POST", "/v1/organizations/acme/databases", "", "{"), http.StatusUnauthorized, "unauthorized")
}

func TestUnauthorizedThroughTheSDK(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for label, tok := range map[string]fake.Token{
		"zero token":    {},
		"unknown token": {ID: "nosuchtoken1", Secret: "sk_nope"},
		"wrong secret":  {ID: srv.AdminToken().ID, Secret: "sk_nope"},
	} {
		_, err := srv.ClientFor(tok).Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
		e := apiError(t, err, http.StatusUnauthorized)
		if e.Code != "unauthorized" || e.Message == "" {
			t.Errorf("%s: %v", label, e)
		}
	}
}

func TestPublicRegionsNeedNoCredentials(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for label, auth := range badCredentials(t, srv) {
		w := send(t, srv, "GET", "/v1/regions", auth, "")
		if w.status != http.StatusOK {
			t.Errorf("%s: status %d, want 200", label, w.status)
		}
	}
	anon, err := platform.NewClient(platform.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	page, err := anon.Regions.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) == 0 {
		t.Error("no public regions")
	}
}

// TestOtherOrganization checks that a token of another organization, even
// one holding every permission and created by a member of both, sees
// nothing of acme and changes nothing.
func TestOtherOrganization(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	f := newPermFixture(t)
	srv := f.srv
	tok := otherOrg(t, srv, "globex")
	// Bob, a member of acme, joins globex and creates a token there.
	if err := srv.AddMember("globex", f.bob, platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	bobs, err := srv.CreateServiceToken("globex", fake.TokenSpec{Name: "bob", CreatedBy: f.bob, Permissions: fake.AllPermissions()})
	if err != nil {
		t.Fatal(err)
	}
	before := observe(t, srv)
	for _, tok := range []fake.Token{tok, bobs} {
		for _, name := range coreOperations {
			op := ops[name]
			if !strings.Contains(op.path, "{organization}") {
				continue
			}
			w := send(t, srv, op.method, f.path(op), tok.Authorization(), permBodies[name])
			if w.status != http.StatusNotFound {
				t.Errorf("%s on acme with a globex token: status %d, want 404", name, w.status)
				continue
			}
			wantError(t, w, http.StatusNotFound, "not_found")
		}
		orgs, err := srv.ClientFor(tok).Organizations.List(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(orgs.Items) != 1 || orgs.Items[0].Name != "globex" {
			var names []string
			for _, o := range orgs.Items {
				names = append(names, o.Name)
			}
			t.Errorf("a globex token lists organizations %v, want [globex]", names)
		}
	}
	unchanged(t, srv, before)

	// And the other way round: acme's admin sees nothing of globex.
	c := srv.Client()
	if _, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "globex"}); err == nil {
		t.Error("acme's admin token reads globex")
	} else {
		apiError(t, err, http.StatusNotFound)
	}
	orgs, err := c.Organizations.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(orgs.Items) != 1 || orgs.Items[0].Name != "acme" {
		t.Errorf("acme's admin lists %d organizations, want only acme", len(orgs.Items))
	}
}
