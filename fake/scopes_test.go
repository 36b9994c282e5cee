package fake_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This file checks the scope column of operations.tsv for every API
// operation, through the operation table (opfixtures_test.go): OAuth
// tokens are held to their scopes, on the resources the user granted them
// on; the operations without a scope are closed to OAuth, or open to it
// when they need no permission either.

// scopeWorld is an operation's world for OAuth: the admin user, who
// authorizes the applications, is also an admin of a second organization,
// globex.
func scopeWorld(t *testing.T) *opWorld {
	t.Helper()
	w := newOpWorld(t)
	if err := w.srv.CreateOrganization("globex"); err != nil {
		t.Fatal(err)
	}
	if err := w.srv.AddMember("globex", w.srv.AdminUserID(), platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	return w
}

// scopeConsent grants on acme, app and the call's branch of app (dev when
// it names none).
func scopeConsent(call opCall) fake.Consent {
	branch := call.target()
	if branch == "" {
		branch = "dev"
	}
	return fake.Consent{Organizations: []string{"acme"}, Databases: []string{"acme/app"}, Branches: []string{"acme/app/" + branch}}
}

// scopeElsewhere grants on resources of the same kind that the call does
// not act on: the organization globex, the database other, and a branch of
// app other than the call's for an operation on one branch, or a branch of
// other for one on the database's branches.
func scopeElsewhere(op tsvOperation, call opCall) fake.Consent {
	branch := "acme/other/main"
	if call.vals["branch"] != "" {
		branch = "acme/app/main"
		if call.vals["branch"] == "main" {
			branch = "acme/app/dev"
		}
	}
	return fake.Consent{Organizations: []string{"globex"}, Databases: []string{"acme/other"}, Branches: []string{branch}}
}

// scopeRefused sends the call with the access token and checks the plain
// 404 of a missing permission, and that nothing changed.
func scopeRefused(t *testing.T, w *opWorld, op tsvOperation, call opCall, access string) {
	t.Helper()
	before := opWorldState(t, w.srv)
	r := opSend(t, w.srv, op.method, call.path(t, w, op), bearer(access), call.body)
	if e := wantError(t, r, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
		t.Errorf("message %q, want the plain Not Found of a missing resource", e.Message)
	}
	if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
		t.Errorf("a refused request changed the world (-before +after):\n%s", diff)
	}
}

// scopeCases are the requests the scope table sends for an operation,
// each with an access token of an application the admin user authorized:
//   - lacking: every scope but the listed ones, granted on the request's
//     resources (scopeConsent), is refused;
//   - only S: exactly one listed scope, granted on the request's resources,
//     is allowed, for each listed S;
//   - elsewhere: the first listed scope of each kind but the user's,
//     granted on other resources of that kind (scopeElsewhere), is refused.
func scopeCases(op tsvOperation) []opCase {
	grant := func(consent func(opCall) fake.Consent, scopes ...platform.Scope) func(*opWorld, opCall) string {
		return func(w *opWorld, call opCall) string { return bearer(oauthGrant(w.t, w.srv, consent(call), scopes...)) }
	}
	var rest []platform.Scope
	for _, sc := range platform.Scopes() {
		if !slices.Contains(op.scopes[sc.Resource()], sc.Name()) {
			rest = append(rest, sc)
		}
	}
	cases := []opCase{{name: "lacking", auth: grant(scopeConsent, rest...)}}
	if op.method == http.MethodGet && op.path == "/v1/organizations" { // list_organizations
		// It shows a credential only what it holds: without the scope, the
		// organizations the grant names (TestListOrganizationsOwnView).
		cases[0].allow = true
	}
	if slices.Contains(op.scopes[platform.ScopeResourceOrganization], "admin") {
		// organization:admin: the admin user's token passes whatever it
		// was granted; a member's (an admin of globex only) with every
		// scope a member may grant does not.
		cases = []opCase{
			{name: "lacking", auth: scopeOfMember(slices.DeleteFunc(rest, func(sc platform.Scope) bool { return sc == platform.ScopeOrganizationWriteOrganization })...)},
			{name: "admin with only user:read_user", need: "admin", allow: true, auth: grant(scopeConsent, platform.ScopeUserReadUser)},
		}
	}
	for _, res := range scopeResourceKinds {
		for i, scope := range op.scopes[res] {
			if res == platform.ScopeResourceOrganization && scope == "admin" {
				continue
			}
			sc := platform.Scope(res + ":" + scope)
			cases = append(cases, opCase{name: "only " + string(sc), need: scope, allow: true, auth: grant(scopeConsent, sc)})
			if i == 0 && res != platform.ScopeResourceUser {
				elsewhere := func(call opCall) fake.Consent { return scopeElsewhere(op, call) }
				cases = append(cases, opCase{name: "only " + string(sc) + " elsewhere", need: scope, auth: grant(elsewhere, sc)})
			}
		}
	}
	return cases
}

// scopeOfMember returns the auth of a scope case for a token that a
// member of acme, who administers globex, grants with scopes on the call's
// resources (scopeConsent).
func scopeOfMember(scopes ...platform.Scope) func(*opWorld, opCall) string {
	return func(w *opWorld, call opCall) string {
		id := mustMember(w.t, w.srv, w.srv.Org(), "Mia Member", platform.RoleMember)
		if err := w.srv.AddMember("globex", id, platform.RoleAdmin); err != nil {
			w.t.Fatal(err)
		}
		if err := w.srv.SignIn(id); err != nil {
			w.t.Fatal(err)
		}
		defer func() {
			if err := w.srv.SignIn(w.srv.AdminUserID()); err != nil {
				w.t.Fatal(err)
			}
		}()
		return bearer(oauthGrant(w.t, w.srv, scopeConsent(call), scopes...))
	}
}

// scopeResourceKinds are the kinds of resources scopes are granted on.
var scopeResourceKinds = []string{
	platform.ScopeResourceUser, platform.ScopeResourceOrganization,
	platform.ScopeResourceDatabase, platform.ScopeResourceBranch,
}

// TestOAuthScopes runs scopeCases for each operation with an OAuth scope
// column (see opRunCases).
func TestOAuthScopes(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	base := opTemplateOf(t, scopeWorld(t))
	for _, name := range opOperations(t, func(op tsvOperation) bool { return op.scopes != nil }) {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for res := range op.scopes {
				if !slices.Contains(scopeResourceKinds, res) {
					t.Fatalf("%s lists scopes of %q, not a kind of resource", name, res)
				}
			}
			opRunCases(t, name, op, base, scopeCases(op), false)
		})
	}
}

// TestOAuthClosedOperations checks the operations whose row lists
// service-token permissions but no scope: documented for service tokens
// only, they refuse an OAuth token holding every scope.
func TestOAuthClosedOperations(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	names := opOperations(t, func(op tsvOperation) bool { return op.scopes == nil && op.perms != nil })
	if len(names) == 0 {
		t.Fatal("no operation is closed to OAuth")
	}
	for _, name := range names {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := scopeWorld(t)
			call := opFixtures[name](w, "")
			scopeRefused(t, w, op, call, oauthGrant(t, w.srv, scopeConsent(call), platform.Scopes()...))
		})
	}
}

// TestOAuthOpenOperations checks the operations whose row lists neither
// permissions nor scopes: like a service token without permissions, an
// OAuth token of a member with an unrelated scope may call them.
func TestOAuthOpenOperations(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	names := opOperations(t, func(op tsvOperation) bool { return op.scopes == nil && op.perms == nil })
	if len(names) == 0 {
		t.Fatal("no operation is open to OAuth")
	}
	for _, name := range names {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := scopeWorld(t)
			call := opFixtures[name](w, "")
			access := oauthGrant(t, w.srv, fake.Consent{}, platform.ScopeUserReadUser)
			wantStatus(t, send(t, w.srv, op.method, call.path(t, w, op), bearer(access), call.body), op.status)
		})
	}
}

// TestOAuthTokenOfAFormerMember checks that a grant ends with the user's
// membership: the organization is as missing as one that does not exist.
func TestOAuthTokenOfAFormerMember(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	if err := srv.SignIn(bob); err != nil {
		t.Fatal(err)
	}
	access := oauthGrant(t, srv, fake.Consent{}, platform.ScopeOrganizationReadOrganization, platform.ScopeUserReadOrganizations)
	c := oauthClient(t, srv, access)
	if _, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client().Organizations.RemoveMember(t.Context(), &platform.RemoveMemberParams{Organization: srv.Org(), UserID: bob}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
	apiError(t, err, http.StatusNotFound)
	orgs, err := c.Organizations.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(orgs.Items) != 0 {
		t.Errorf("a former member lists %d organizations", len(orgs.Items))
	}
}

// TestOAuthScopesFollowMembership checks that a token's reach follows its
// user's membership when it is used, not only when it was granted: a
// demoted admin's token loses organization:write_organization (an
// admin-only scope) on that organization, and keeps it where the user
// still administers; a removed member's token finds the organization
// missing, and still reaches the user's other organizations. Ana, an admin
// of acme and globex, grants read_organization and write_organization on
// both, then the change is made by acme's admin.
func TestOAuthScopesFollowMembership(t *testing.T) {
	t.Parallel()
	type request struct{ method, path, body string }
	const anaEmail = `{"billing_email": "ana@example.com"}`
	for _, tc := range []struct {
		name string
		// change is what acme's admin does to Ana after the grant.
		change func(t *testing.T, c *platform.Client, ana string)
		// refused must answer 404 and change nothing; allowed must pass.
		refused, allowed func(ana string) []request
	}{
		{
			name: "demoted admin",
			change: func(t *testing.T, c *platform.Client, ana string) {
				if _, err := c.Organizations.UpdateMember(t.Context(), &platform.UpdateMemberParams{Organization: "acme", UserID: ana, Role: platform.RoleMember}); err != nil {
					t.Fatal(err)
				}
			},
			refused: func(ana string) []request {
				return []request{
					{"PATCH", "/v1/organizations/acme/members/" + ana, `{"role": "admin"}`},
					{"PATCH", "/v1/organizations/acme", anaEmail},
				}
			},
			allowed: func(ana string) []request {
				return []request{
					{"GET", "/v1/organizations/acme", ""},
					{"GET", "/v1/organizations/acme/members/" + ana, ""},
					{"PATCH", "/v1/organizations/globex", anaEmail},
				}
			},
		},
		{
			name: "demoted and made admin again",
			change: func(t *testing.T, c *platform.Client, ana string) {
				for _, role := range []platform.MemberRole{platform.RoleMember, platform.RoleAdmin} {
					if _, err := c.Organizations.UpdateMember(t.Context(), &platform.UpdateMemberParams{Organization: "acme", UserID: ana, Role: role}); err != nil {
						t.Fatal(err)
					}
				}
			},
			refused: func(string) []request { return nil },
			allowed: func(string) []request {
				return []request{{"PATCH", "/v1/organizations/acme", anaEmail}}
			},
		},
		{
			name: "removed member",
			change: func(t *testing.T, c *platform.Client, ana string) {
				if err := c.Organizations.RemoveMember(t.Context(), &platform.RemoveMemberParams{Organization: "acme", UserID: ana}); err != nil {
					t.Fatal(err)
				}
			},
			refused: func(ana string) []request {
				return []request{
					{"GET", "/v1/organizations/acme", ""},
					{"GET", "/v1/organizations/acme/members/" + ana, ""},
					{"PATCH", "/v1/organizations/acme", anaEmail},
					{"GET", "/v1/organizations/acme/databases", ""},
				}
			},
			allowed: func(ana string) []request {
				return []request{
					{"GET", "/v1/organizations/globex", ""},
					{"GET", "/v1/organizations/globex/members/" + ana, ""},
					{"PATCH", "/v1/organizations/globex", anaEmail},
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			if err := srv.CreateOrganization("globex"); err != nil {
				t.Fatal(err)
			}
			ana := mustMember(t, srv, "acme", "Ana Admin", platform.RoleAdmin)
			if err := srv.AddMember("globex", ana, platform.RoleAdmin); err != nil {
				t.Fatal(err)
			}
			if err := srv.SignIn(ana); err != nil {
				t.Fatal(err)
			}
			access := bearer(oauthGrant(t, srv, fake.Consent{Organizations: []string{"acme", "globex"}},
				platform.ScopeOrganizationReadOrganization, platform.ScopeOrganizationWriteOrganization))
			tc.change(t, srv.Client(), ana)
			for _, r := range tc.refused(ana) {
				before := opWorldState(t, srv)
				w := send(t, srv, r.method, r.path, access, r.body)
				if w.status != http.StatusNotFound {
					t.Errorf("%s %s: status %d, want 404; body %s", r.method, r.path, w.status, w.body)
					continue
				}
				if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
					t.Errorf("%s %s: a refused request changed the world (-before +after):\n%s", r.method, r.path, diff)
				}
			}
			for _, r := range tc.allowed(ana) {
				if w := send(t, srv, r.method, r.path, access, r.body); w.status != http.StatusOK {
					t.Errorf("%s %s: status %d, want 200; body %s", r.method, r.path, w.status, w.body)
				}
			}
		})
	}
}

func TestOAuthListVisibility(t *testing.T) {
	t.Parallel()
	w := scopeWorld(t)
	ctx, srv := t.Context(), w.srv
	if _, err := w.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: "third", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	names := func(c *platform.Client, db string) []string {
		var out []string
		for _, b := range opCollect(t, c.Branches.All(ctx, &platform.ListBranchesParams{Organization: w.org, Database: db})) {
			out = append(out, b.Name)
		}
		return out
	}

	// Branch scopes show the granted branches only, and not another
	// database's.
	branchOnly := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{Branches: []string{"acme/app/dev", "acme/app/third"}}, platform.ScopeBranchReadBranch))
	if diff := cmp.Diff([]string{"dev", "third"}, names(branchOnly, drDB)); diff != "" {
		t.Errorf("branches seen through branch scopes (-want +got):\n%s", diff)
	}
	page, err := branchOnly.Branches.List(ctx, &platform.ListBranchesParams{Organization: w.org, Database: drDB, ListParams: platform.ListParams{PerPage: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalCount == nil || *page.TotalCount != 2 || len(page.Items) != 1 || page.Items[0].Name != "dev" {
		t.Errorf("first page of one: total %v, items %d", page.TotalCount, len(page.Items))
	}
	_, err = branchOnly.Branches.List(ctx, &platform.ListBranchesParams{Organization: w.org, Database: "other"})
	apiError(t, err, http.StatusNotFound)

	// A database scope shows every branch of the database.
	dbScope := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{Databases: []string{"acme/app"}}, platform.ScopeDatabaseReadBranches))
	if diff := cmp.Diff([]string{"main", "dev", "third"}, names(dbScope, drDB)); diff != "" {
		t.Errorf("branches seen through a database scope (-want +got):\n%s", diff)
	}

	// An organization scope shows every database; database scopes alone do
	// not list databases (the row names only organization:read_databases).
	orgScope := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeOrganizationReadDatabases))
	dbs := opCollect(t, orgScope.Databases.All(ctx, &platform.ListDatabasesParams{Organization: w.org}))
	if len(dbs) != 2 {
		t.Errorf("an organization scope lists %d databases, want 2", len(dbs))
	}
	_, err = oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{Databases: []string{"acme/app"}}, platform.ScopeDatabaseReadDatabase)).Databases.List(ctx, &platform.ListDatabasesParams{Organization: w.org})
	apiError(t, err, http.StatusNotFound)

	// user:read_organizations lists every organization of the user.
	orgs := opCollect(t, oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeUserReadOrganizations)).Organizations.All(ctx, nil))
	var orgNames []string
	for _, o := range orgs {
		orgNames = append(orgNames, o.Name)
	}
	if diff := cmp.Diff([]string{"acme", "globex"}, orgNames); diff != "" {
		t.Errorf("organizations (-want +got):\n%s", diff)
	}
}

// TestOAuthGrantFollowsTheRecord checks that a grant is on a resource, not
// on a name: a branch deleted and created again under its name is not
// covered.
func TestOAuthGrantFollowsTheRecord(t *testing.T) {
	t.Parallel()
	w := scopeWorld(t)
	ctx := t.Context()
	c := oauthClient(t, w.srv, oauthGrant(t, w.srv, fake.Consent{Branches: []string{"acme/app/dev"}}, platform.ScopeBranchReadBranch))
	get := &platform.GetBranchParams{Organization: w.org, Database: drDB, Branch: "dev"}
	if _, err := c.Branches.Get(ctx, get); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: w.org, Database: drDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	w.branch("dev")
	_, err := c.Branches.Get(ctx, get)
	apiError(t, err, http.StatusNotFound)
}

// TestOAuthRestoreFromAGrantedBranch checks the branch scope of
// create_branch: restoring the granted branch's backups, and nothing else.
func TestOAuthRestoreFromAGrantedBranch(t *testing.T) {
	t.Parallel()
	w := scopeWorld(t)
	ctx := t.Context()
	devBackup, mainBackup := w.backup("dev"), w.backup("main")
	c := oauthClient(t, w.srv, oauthGrant(t, w.srv, fake.Consent{Branches: []string{"acme/app/dev", "acme/app/main"}}, platform.ScopeBranchRestoreBackups))
	create := func(name, backup string) error {
		p := &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: name, ParentBranch: "main"}
		if backup != "" {
			p.BackupID, p.ClusterSize = backup, "PS_10"
		}
		_, err := c.Branches.Create(ctx, p)
		return err
	}
	before := opWorldState(t, w.srv)
	// Not a plain branch, and not a production branch's backup (a scope of
	// the organization or the database).
	apiError(t, create("plain", ""), http.StatusNotFound)
	apiError(t, create("from-main", mainBackup), http.StatusNotFound)
	apiError(t, create("from-nowhere", "nosuchbackup"), http.StatusNotFound)
	if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
		t.Errorf("refused restores changed the world (-before +after):\n%s", diff)
	}
	if err := create("from-dev", devBackup); err != nil {
		t.Fatal(err)
	}
}

// TestOAuthApprovalRules checks the spec's rule 2 for users acting through
// OAuth: a user cannot approve a deploy request they opened, nor one that a
// service token they created opened (403); another user may.
func TestOAuthApprovalRules(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	ctx := t.Context()
	if _, err := e.c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: e.org, Database: drDB, RequireApprovalForDeploy: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	bob := mustMember(t, e.srv, e.org, "Bob Builder", platform.RoleMember)
	approver := func(user string) *platform.Client {
		if err := e.srv.SignIn(user); err != nil {
			t.Fatal(err)
		}
		return oauthClient(t, e.srv, oauthGrant(t, e.srv, fake.Consent{Databases: []string{"acme/app"}},
			platform.ScopeDatabaseApproveDeployRequests, platform.ScopeDatabaseWriteDeployRequests, platform.ScopeDatabaseReadDeployRequests))
	}
	admin, bobs := approver(e.srv.AdminUserID()), approver(bob)
	approve := func(c *platform.Client, n int) error {
		_, err := c.DeployRequests.Review(ctx, &platform.ReviewParams{Organization: e.org, Database: drDB, Number: n, State: platform.ReviewApproved})
		return err
	}

	// #1 is opened by the admin token, which the admin user created.
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	// #2 is opened by Bob through OAuth.
	e.branch("bobs", drChange...)
	if _, err := bobs.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: e.org, Database: drDB, Branch: "bobs", IntoBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Second)

	before := opWorldState(t, e.srv)
	apiError(t, approve(admin, 1), http.StatusForbidden, "service token you created")
	apiError(t, approve(bobs, 2), http.StatusForbidden, "your own")
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("refused approvals changed the world (-before +after):\n%s", diff)
	}
	// Each may approve the other's.
	if err := approve(bobs, 1); err != nil {
		t.Fatalf("Bob approving #1: %v", err)
	}
	if err := approve(admin, 2); err != nil {
		t.Fatalf("the admin approving #2: %v", err)
	}
	for n := 1; n <= 2; n++ {
		if !e.get(n).Approved {
			t.Errorf("#%d is not approved", n)
		}
	}
	e.mustDo("deploy", 1)
}

// TestOAuthPlainBranchNeedsWriteBranches checks the other side of
// create_branch's scopes: the restore scopes, on the organization or the
// database, restore backups but do not create a branch from a parent,
// which takes write_branches.
func TestOAuthPlainBranchNeedsWriteBranches(t *testing.T) {
	t.Parallel()
	w := scopeWorld(t)
	ctx := t.Context()
	consent := fake.Consent{Organizations: []string{"acme"}, Databases: []string{"acme/app"}}
	create := func(c *platform.Client, name string) error {
		_, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: name, ParentBranch: "main"})
		return err
	}
	restorer := oauthClient(t, w.srv, oauthGrant(t, w.srv, consent,
		platform.ScopeOrganizationRestoreBackups, platform.ScopeOrganizationRestoreProductionBranchBackups,
		platform.ScopeDatabaseRestoreBackups, platform.ScopeDatabaseRestoreProductionBranchBackups))
	before := opWorldState(t, w.srv)
	apiError(t, create(restorer, "plain"), http.StatusNotFound)
	if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
		t.Errorf("a refused create changed the world (-before +after):\n%s", diff)
	}
	if _, err := restorer.Branches.Create(ctx, &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: "restored", BackupID: w.backup("dev"), ClusterSize: "PS_10"}); err != nil {
		t.Fatalf("restoring with the restore scopes: %v", err)
	}
	writer := oauthClient(t, w.srv, oauthGrant(t, w.srv, consent, platform.ScopeDatabaseWriteBranches))
	if err := create(writer, "plain"); err != nil {
		t.Fatalf("creating a branch with database:write_branches: %v", err)
	}
}

// TestListOrganizationsOwnView checks list_organizations for OAuth tokens:
// a sign-in that asked for organization scopes only (as the service's
// command-line tool does, with bare scope names) lists the organizations
// its grant names, and one granted user:read_organizations every
// organization of its user.
func TestListOrganizationsOwnView(t *testing.T) {
	t.Parallel()
	w := scopeWorld(t)
	for _, tc := range []struct {
		name   string
		scopes []platform.Scope
		want   []string
	}{
		{"organization scopes only", []platform.Scope{platform.ScopeOrganizationReadOrganization}, []string{"acme"}},
		{"user:read_organizations", []platform.Scope{platform.ScopeUserReadOrganizations}, []string{"acme", "globex"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			access := oauthGrant(t, w.srv, fake.Consent{Organizations: []string{"acme"}}, tc.scopes...)
			var got []string
			for org, err := range oauthClient(t, w.srv, access).Organizations.All(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, org.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("organizations (-want +got):\n%s", diff)
			}
		})
	}
}
