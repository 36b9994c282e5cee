package fake_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This file checks the service-token permission column of operations.tsv
// for every API operation, through the operation table
// (opfixtures_test.go): any one listed permission suffices, "-" needs
// none, and lacking the permission is a plain 404 that changes nothing.

// permException is a request the fake refuses although the token holds a
// permission of the row: the resource the request acts on decides which of
// the row's permissions counts. A token holding only perm sends the
// request the fixture builds for need.
type permException struct {
	perm, need string
}

// permExceptions are the operations whose handler asks more than the row
// for some requests. The table adds each as a refused case, next to the
// allowed "only perm" case, whose fixture builds the request perm covers.
var permExceptions = map[string][]permException{
	// Approving takes approve_deploy_request; review_deploy_request only
	// lets a token comment.
	"review_deploy_request": {{perm: "review_deploy_request", need: "approve_deploy_request"}},
	// Each permission covers the backups of its kind of branch:
	// delete_backups a development branch's, delete_production_branch_backups
	// a production branch's.
	"delete_backup": {
		{perm: "delete_backups", need: "delete_production_branch_backups"},
		{perm: "delete_production_branch_backups", need: "delete_backups"},
	},
	// Each connect permission covers the passwords of its kind of branch
	// (connect_production_read_only_branch the read-only passwords of a
	// production branch), and so does each delete permission.
	"create_password": passwordPermExceptions("connect_branch", "connect_production_branch", "connect_production_read_only_branch"),
	"update_password": passwordPermExceptions("connect_branch", "connect_production_branch", "connect_production_read_only_branch"),
	"renew_password":  passwordPermExceptions("connect_branch", "connect_production_branch", "connect_production_read_only_branch"),
	"delete_password": passwordPermExceptions("delete_branch_password", "delete_production_branch_password", "delete_production_read_only_branch_password"),
	// Restoring a backup into a new branch takes the restore permission of
	// the backup's kind of branch; a branch from a parent (need "") takes
	// create_branch, which does not restore.
	"create_branch": {
		{perm: "create_branch", need: "restore_backup"},
		{perm: "restore_backup", need: "restore_production_branch_backup"},
		{perm: "restore_backup", need: ""},
		{perm: "restore_production_branch_backup", need: "restore_backup"},
		{perm: "restore_production_branch_backup", need: ""},
	},
	// Each VSchema permission covers its kind of branch: the production
	// one a production branch's VSchema and routing rules.
	"update_keyspace_vschema": {
		{perm: "write_branch_vschema", need: "write_production_branch_vschema"},
		{perm: "write_production_branch_vschema", need: "write_branch_vschema"},
	},
	"update_branch_routing_rules": {
		{perm: "write_branch_vschema", need: "write_production_branch_vschema"},
		{perm: "write_production_branch_vschema", need: "write_branch_vschema"},
	},
}

// passwordPermExceptions are the refusals of a change to a password, given
// the permissions for a development branch, a production branch, and a
// production branch's read-only passwords: each is refused the others'
// passwords (the read-only one an admin password of a production branch).
func passwordPermExceptions(dev, prod, prodReadOnly string) []permException {
	return []permException{
		{perm: dev, need: prod},
		{perm: dev, need: prodReadOnly},
		{perm: prod, need: dev},
		{perm: prodReadOnly, need: prod},
		{perm: prodReadOnly, need: dev},
	}
}

// permDatabaseScoped reports whether an operation acts on one database,
// whose grants count.
func permDatabaseScoped(op tsvOperation) bool { return strings.Contains(op.path, "{database}") }

// permDatabasePermissions returns the permissions that can be granted on a
// database (the others are organization permissions), as the seeding API
// tells them apart.
func permDatabasePermissions(t *testing.T) map[string]bool {
	t.Helper()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	out := map[string]bool{}
	for _, p := range permissionNames() {
		_, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{DatabasePermissions: map[string][]platform.Permission{"app": permissions(p)}})
		out[p] = err == nil
	}
	return out
}

// permCases are the requests the table sends for an operation, each with
// a service token seeded with the case's permissions:
//   - "-": a token without permissions is allowed;
//   - lacking: a token holding every permission but the listed ones, on
//     the whole organization, is refused;
//   - only P: a token holding just P is allowed, for each listed P: on the
//     whole organization, and, for a database permission, on app alone
//     (the database the fixtures act on; for list_databases, a grant on
//     one database lets the list show it);
//   - elsewhere: for an operation on a database, a token holding every
//     listed database permission on the database other is refused;
//   - the operation's permExceptions, refused.
func permCases(name string, op tsvOperation, dbPerm map[string]bool) []opCase {
	token := func(spec fake.TokenSpec) func(*opWorld, opCall) string {
		return func(w *opWorld, _ opCall) string { return mustToken(w.t, w.srv, spec).Authorization() }
	}
	if op.perms == nil {
		return []opCase{{name: "no permission needed", auth: token(fake.TokenSpec{Name: "none"}), allow: true}}
	}
	rest := slices.DeleteFunc(permissionNames(), func(p string) bool { return slices.Contains(op.perms, p) })
	cases := []opCase{{name: "lacking", auth: token(fake.TokenSpec{Name: "all but", Permissions: permissions(rest...)})}}
	for _, p := range op.perms {
		cases = append(cases, opCase{name: "only " + p, auth: token(fake.TokenSpec{Name: "one", Permissions: permissions(p)}), need: p, allow: true})
		if dbPerm[p] {
			cases = append(cases, opCase{name: "only " + p + " on app", auth: token(fake.TokenSpec{Name: "one on app", DatabasePermissions: map[string][]platform.Permission{drDB: permissions(p)}}), need: p, allow: true})
		}
	}
	if permDatabaseScoped(op) {
		onOther := slices.DeleteFunc(slices.Clone(op.perms), func(p string) bool { return !dbPerm[p] })
		cases = append(cases, opCase{name: "every listed database permission on other", auth: token(fake.TokenSpec{Name: "elsewhere", DatabasePermissions: map[string][]platform.Permission{"other": permissions(onOther...)}})})
	}
	for _, ex := range permExceptions[name] {
		what := ex.need
		if what == "" {
			what = "the plain request"
		}
		cases = append(cases, opCase{name: "only " + ex.perm + " for " + what, auth: token(fake.TokenSpec{Name: "exception", Permissions: permissions(ex.perm)}), need: ex.need})
	}
	return cases
}

// TestPermissions runs permCases for every API operation (see
// opRunCases).
func TestPermissions(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	dbPerm := permDatabasePermissions(t)
	base := opPlainTemplate(t)
	for _, name := range opOperations(t, func(tsvOperation) bool { return true }) {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// An operation on a database lists database permissions, which
			// a grant on it can hold, and maybe organization permissions
			// that reach every database (read_databases for the reads of
			// IP restrictions). Any other lists organization permissions,
			// which no database grant reaches, or only database
			// permissions, for a list across databases that shows those a
			// grant is on.
			onDB := 0
			for _, p := range op.perms {
				if dbPerm[p] {
					onDB++
				}
			}
			switch {
			case permDatabaseScoped(op) && op.perms != nil && onDB == 0:
				t.Fatalf("%s acts on a database but lists no permission that can be granted on one: %v", name, op.perms)
			case !permDatabaseScoped(op) && onDB != 0 && onDB != len(op.perms):
				t.Fatalf("%s mixes organization and database permissions: %v", name, op.perms)
			}
			if op.method == http.MethodGet && len(permExceptions[name]) > 0 {
				t.Fatalf("%s is a read, whose cases share the fixture's request of no need: it cannot have permExceptions", name)
			}
			opRunCases(t, name, op, base, permCases(name, op, dbPerm), true)
		})
	}
}

// TestOnlyTheListedOperationsAreOpen checks the rule of the permissions
// the reference leaves out: apart from the OAuth server, list_public_regions,
// and list_organizations and get_current_user (which show a credential only
// itself), every operation needs a permission on its resource.
func TestOnlyTheListedOperationsAreOpen(t *testing.T) {
	t.Parallel()
	var open []string
	for name, op := range loadOperations(t) {
		if op.perms == nil && op.group != "oauth server" {
			open = append(open, name)
		}
	}
	slices.Sort(open)
	if diff := cmp.Diff([]string{"get_current_user", "list_organizations", "list_public_regions"}, open); diff != "" {
		t.Errorf("operations open to a credential without a permission (-want +got):\n%s", diff)
	}
}

// TestPermissionsTheReferenceLeftOut checks, as a user sees them, the
// refusals of the operations the reference named no permission for: each
// is the 404 of a missing resource and changes nothing.
func TestPermissionsTheReferenceLeftOut(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	t.Run("a token without permissions cannot change the billing email", func(t *testing.T) {
		t.Parallel()
		srv := fake.NewServer(t)
		tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "none"})
		if err != nil {
			t.Fatal(err)
		}
		before := opWorldState(t, srv)
		_, err = srv.ClientFor(tok).Organizations.Update(ctx, &platform.UpdateOrganizationParams{Organization: srv.Org(), BillingEmail: platform.Ptr("thief@example.com")})
		apiError(t, err, http.StatusNotFound)
		if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
			t.Errorf("the refusal changed the world (-before +after):\n%s", diff)
		}
	})

	t.Run("a read-only OAuth token cannot cancel or switch workflows", func(t *testing.T) {
		t.Parallel()
		e := newWFEnv(t)
		wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowRunning)
		access := oauthGrant(t, e.srv, fake.Consent{Organizations: []string{e.srv.Org()}},
			platform.ScopeOrganizationReadDatabases, platform.ScopeOrganizationReadBranches, platform.ScopeOrganizationReadDeployRequests)
		c := oauthClient(t, e.srv, access)
		if _, err := c.Workflows.Get(ctx, wfRef(e.srv, 1)); err != nil {
			t.Fatalf("reading the workflow with read_databases: %v", err)
		}
		before := opWorldState(t, e.srv)
		for _, action := range []string{"cancel", "switch-replicas", "verify-data"} {
			_, err := wfActions[action](c, t, wfRef(e.srv, 1))
			apiError(t, err, http.StatusNotFound)
		}
		if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
			t.Errorf("the refusals changed the world (-before +after):\n%s", diff)
		}
	})

	t.Run("a token of another database cannot touch this one's workflows", func(t *testing.T) {
		t.Parallel()
		e := newWFEnv(t)
		mustDB(t, e.srv, "other")
		wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowRunning)
		tok, err := e.srv.CreateServiceToken(e.srv.Org(), fake.TokenSpec{Name: "other's", DatabasePermissions: map[string][]platform.Permission{"other": {"read_database", "write_database"}}})
		if err != nil {
			t.Fatal(err)
		}
		c := e.srv.ClientFor(tok)
		before := opWorldState(t, e.srv)
		_, err = c.Workflows.List(ctx, &platform.ListWorkflowsParams{Organization: e.srv.Org(), Database: drDB})
		apiError(t, err, http.StatusNotFound)
		_, err = c.Workflows.Get(ctx, wfRef(e.srv, 1))
		apiError(t, err, http.StatusNotFound)
		_, err = wfActions["cancel"](c, t, wfRef(e.srv, 1))
		apiError(t, err, http.StatusNotFound)
		p := wfCreate(e.srv)
		p.Name = "another"
		_, err = c.Workflows.Create(ctx, p)
		apiError(t, err, http.StatusNotFound)
		if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
			t.Errorf("the refusals changed the world (-before +after):\n%s", diff)
		}
	})

	t.Run("an admin's OAuth token manages service tokens, a member's does not", func(t *testing.T) {
		t.Parallel()
		srv := fake.NewServer(t)
		org := srv.Org()
		// The admin's token was granted no organization scope at all.
		admin := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeUserReadUser))
		created, err := admin.ServiceTokens.Create(ctx, &platform.CreateServiceTokenParams{Organization: org, Name: platform.Ptr("ci")})
		if err != nil {
			t.Fatalf("the admin's OAuth token creating a service token: %v", err)
		}
		page, err := admin.ServiceTokens.List(ctx, &platform.ListServiceTokensParams{Organization: org})
		if err != nil || !slices.ContainsFunc(page.Items, func(tk *platform.ServiceToken) bool { return tk.ID == created.ID }) {
			t.Fatalf("the admin's OAuth token listing service tokens: %+v, %v", page, err)
		}

		bob := mustMember(t, srv, org, "Bob Builder", platform.RoleMember)
		if err := srv.SignIn(bob); err != nil {
			t.Fatal(err)
		}
		var every []platform.Scope
		for _, sc := range platform.Scopes() {
			if sc != platform.ScopeOrganizationWriteOrganization { // an admin's to grant
				every = append(every, sc)
			}
		}
		member := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{Organizations: []string{org}}, every...))
		before := opWorldState(t, srv)
		_, err = member.ServiceTokens.List(ctx, &platform.ListServiceTokensParams{Organization: org})
		apiError(t, err, http.StatusNotFound)
		_, err = member.ServiceTokens.Create(ctx, &platform.CreateServiceTokenParams{Organization: org, Name: platform.Ptr("mine")})
		apiError(t, err, http.StatusNotFound)
		err = member.ServiceTokens.Delete(ctx, &platform.DeleteServiceTokenParams{Organization: org, ID: created.ID})
		apiError(t, err, http.StatusNotFound)
		if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
			t.Errorf("the refusals changed the world (-before +after):\n%s", diff)
		}
	})
}
