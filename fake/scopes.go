package fake

import (
	"cmp"
	"slices"

	"github.com/dbplatform/platform-go"
)

// This file holds the OAuth side of the permission check: what a user
// granted an application (a grant), and how an operation's scope column of
// operations.tsv is checked against it.
//
// The rules:
//
//   - A grant holds, per kind of resource (user, organization, database,
//     branch), the scopes of that kind the application asked for, and the
//     resources the user chose on the consent page. Every scope of a kind
//     applies to every chosen resource of that kind, as the API's
//     oauth_accesses_by_resource shows it.
//   - An operation is allowed when the grant holds one of the scopes its row
//     lists for a kind, on the request's resource of that kind: the user
//     scopes on the token's user, an organization scope on the path's
//     {organization}, a database scope on the path's {database}, a branch
//     scope on the path's {branch}. A scope granted on an organization
//     therefore covers its databases and their branches, and one granted on
//     a database covers its branches: the row of an operation on a branch
//     lists the organization and database scopes that reach it.
//   - A list of branches (no {branch} in the path) admits a branch scope held
//     on any branch of the database, and shows only the branches the grant
//     covers. Creating a branch from a backup takes a branch scope on the
//     backup's branch (the route's scopeBranch).
//   - An operation whose row lists no scope is closed to OAuth tokens when
//     it lists service-token permissions (the reference documents it for
//     service tokens only: keyspaces, OAuth applications), and open to
//     every OAuth token of a member when it lists neither, as it is to
//     every service token: list_public_regions alone, apart from the OAuth
//     server (TestOnlyTheListedOperationsAreOpen).
//   - The scope organization:admin (the service-token rows) is not one an
//     application asks for: it admits an OAuth token whose user holds the
//     admin role in the path's organization, whatever scopes it was
//     granted, and no token of a user who does not.
//   - An admin-only scope (adminScopes: organization:write_organization)
//     is granted only on organizations the user administers, and counts on
//     one only while the user still does: it is checked when the token is
//     used, not only at consent, so a token of a demoted admin keeps its
//     other scopes but loses this one (and regains it if the user is made
//     an admin again).
//   - A token reaches an organization only while its user is a member: a
//     removed member's token finds the organization, and everything in it,
//     missing, whatever the grant names (belongsTo, in resolvePath).
//   - Lacking a scope is a 404, as lacking a permission is.

// scopeResources are the kinds of resource scopes are granted on, widest
// last.
var scopeResources = []string{
	platform.ScopeResourceUser, platform.ScopeResourceOrganization,
	platform.ScopeResourceDatabase, platform.ScopeResourceBranch,
}

// adminScope is the name of the scope column's organization:admin (see
// the rules above).
var adminScope = platform.ScopeOrganizationAdmin.Name()

// knownScopes are the scopes operations.tsv names: the ones an application
// may ask for (all but organization:admin), sorted.
var knownScopes = func() []platform.Scope {
	var out []platform.Scope
	for _, op := range operations {
		for res, names := range op.scopes {
			for _, n := range names {
				if res == platform.ScopeResourceOrganization && n == adminScope {
					continue
				}
				if s := platform.Scope(res + ":" + n); !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}()

// adminScopes are the scopes a user may grant only on organizations they
// administer, and that count only while they do (see the rules above).
var adminScopes = []platform.Scope{platform.ScopeOrganizationWriteOrganization}

// oauthGrant is what a user allowed an application on the consent page.
type oauthGrant struct {
	user *userRec
	// scopes are the granted scope names per kind of resource.
	scopes map[string][]string
	// The resources the scopes of each kind are granted on.
	orgs     []*orgRec
	dbs      []*dbRec
	branches []*branchRec
}

// scopeTarget is what a scope check looks at: the request's organization,
// database and branch.
type scopeTarget struct {
	org    *orgRec
	db     *dbRec
	branch *branchRec
	// anyBranch lets a branch scope held on any branch of db count, for a
	// list that then shows only the branches the grant covers.
	anyBranch bool
}

// allows reports whether the grant holds one of need's scopes (names per
// kind of resource) on the target's resource of that kind.
func (g *oauthGrant) allows(need map[string][]string, t scopeTarget) bool {
	for res, names := range need {
		if slices.ContainsFunc(names, func(n string) bool { return g.holds(res, n, t) }) && g.covers(res, t) {
			return true
		}
	}
	return false
}

// holds reports whether the grant's scope res:name counts for the target:
// it was granted, and, for an admin-only scope, the grant's user still
// administers the target's organization.
func (g *oauthGrant) holds(res, name string, t scopeTarget) bool {
	if !slices.Contains(g.scopes[res], name) {
		return false
	}
	adminOnly := slices.ContainsFunc(adminScopes, func(s platform.Scope) bool { return s.Resource() == res && s.Name() == name })
	return !adminOnly || g.administers(t.org)
}

// covers reports whether the grant's resources of kind res include the
// target's.
func (g *oauthGrant) covers(res string, t scopeTarget) bool {
	switch res {
	case platform.ScopeResourceUser:
		return true
	case platform.ScopeResourceOrganization:
		return t.org != nil && slices.Contains(g.orgs, t.org)
	case platform.ScopeResourceDatabase:
		return t.db != nil && slices.Contains(g.dbs, t.db)
	case platform.ScopeResourceBranch:
		if t.branch != nil {
			return slices.Contains(g.branches, t.branch)
		}
		return t.anyBranch && t.db != nil && slices.ContainsFunc(g.branches, func(b *branchRec) bool { return b.db == t.db && !b.deleted })
	}
	return false
}

// scopeList is the grant's scopes, resource-qualified, in the order of
// scopeResources: the token response's scope. Scopes of a kind granted on
// no resource are left out.
func (g *oauthGrant) scopeList() platform.ScopeList {
	var out platform.ScopeList
	for _, res := range scopeResources {
		if res != platform.ScopeResourceUser && g.resourceCount(res) == 0 {
			continue
		}
		for _, n := range g.scopes[res] {
			out = append(out, platform.Scope(res+":"+n))
		}
	}
	return out
}

// resourceCount is the number of resources of kind res the grant covers.
func (g *oauthGrant) resourceCount(res string) int {
	switch res {
	case platform.ScopeResourceOrganization:
		return len(g.orgs)
	case platform.ScopeResourceDatabase:
		return len(g.dbs)
	case platform.ScopeResourceBranch:
		return len(g.branches)
	}
	return 1
}

// permitsOAuth applies an operation's scope column to a grant (see the
// rules above).
func permitsOAuth(g *oauthGrant, op operation, t scopeTarget) bool {
	if op.scopes == nil {
		return op.perms == nil
	}
	if slices.Contains(op.scopes[platform.ScopeResourceOrganization], adminScope) && g.administers(t.org) {
		return true
	}
	return g.allows(op.scopes, t)
}

// administers reports whether the grant's user holds the admin role in o.
func (g *oauthGrant) administers(o *orgRec) bool {
	if o == nil || g.user == nil {
		return false
	}
	m := o.memberByUser[g.user.id]
	return m != nil && m.role == platform.RoleAdmin
}

// grant is the principal's OAuth grant; nil for a service token.
func (p *principal) grant() *oauthGrant {
	if p == nil || p.oauth == nil {
		return nil
	}
	return p.oauth.grant
}

// scopeTarget is what the call's scope check looks at: the path's
// organization and database, and its {branch}, or the branch the route
// names (scopeBranch), or any branch for a list.
func (c *call) scopeTarget() scopeTarget {
	t := scopeTarget{org: c.org, db: c.db}
	switch {
	case c.db == nil:
	case c.r.PathValue("branch") != "":
		t.branch = c.branch
	case c.rt.scopeBranch != nil:
		t.branch = c.rt.scopeBranch(c)
	case c.rt.list():
		t.anyBranch = true
	}
	return t
}

// holds is a check a handler makes beyond its row of operations.tsv, where
// the resource decides what is needed (approving rather than commenting,
// deleting a production backup, restoring a backup): a service token must
// hold one of perms, an OAuth token one of the row's scopes named in
// scopes, on the call's organization and database and on branch b.
func (c *call) holds(perms, scopes []string, b *branchRec) bool {
	g := c.who.grant()
	if g == nil {
		return c.who.may(perms, c.db)
	}
	need := map[string][]string{}
	for res, names := range c.rt.spec.scopes {
		for _, n := range names {
			if slices.Contains(scopes, n) {
				need[res] = append(need[res], n)
			}
		}
	}
	return g.allows(need, scopeTarget{org: c.org, db: c.db, branch: b})
}

// mayCreateDatabase is the permission check of a request that creates its
// path's database before acting in it (create_branch's
// create_database_if_missing): what create_database takes, on the
// organization. A service token holding create_databases is granted every
// database permission on the database it creates (addDatabase), so that
// suffices; an OAuth token also needs organization:write_branches, as no
// grant of a database or a branch can name one that does not exist yet.
func (c *call) mayCreateDatabase() bool {
	create := operations["create_database"]
	t := scopeTarget{org: c.org}
	if g := c.who.grant(); g != nil {
		return permitsOAuth(g, create, t) &&
			g.allows(map[string][]string{platform.ScopeResourceOrganization: {"write_branches"}}, t)
	}
	return c.who.may(create.perms, nil)
}

// seesEveryDatabase reports whether the caller, permitted to list the
// path's organization's databases, sees all of them, rather than only those
// it holds a grant on.
func (c *call) seesEveryDatabase() bool {
	if g := c.who.grant(); g != nil {
		return g.allows(c.rt.spec.scopes, scopeTarget{org: c.org})
	}
	return c.who.mayDo(&c.rt.spec, nil) && c.who.holdsAtOrgLevel(&c.rt.spec)
}

// seesDatabase reports whether a list shows db to the caller.
func (c *call) seesDatabase(db *dbRec) bool {
	if g := c.who.grant(); g != nil {
		return g.allows(c.rt.spec.scopes, scopeTarget{org: db.org, db: db})
	}
	return c.who.mayDo(&c.rt.spec, db)
}

// seesEveryBranch reports whether the caller sees every branch of the
// path's database: a service token permitted on it does, an OAuth token
// does through an organization or database scope.
func (c *call) seesEveryBranch() bool {
	g := c.who.grant()
	return g == nil || g.allows(c.rt.spec.scopes, scopeTarget{org: c.org, db: c.db})
}

// seesBranch reports whether a list shows b to the caller.
func (c *call) seesBranch(b *branchRec) bool {
	g := c.who.grant()
	return g == nil || g.allows(c.rt.spec.scopes, scopeTarget{org: c.org, db: c.db, branch: b})
}

// restoredBranch is the scopeBranch of create_branch: the branch of the
// backup the body restores (seed_data's: the parent), or the parent a
// restore_point restores, whose branch scopes let it be restored.
func restoredBranch(c *call) *branchRec {
	p, _ := c.body.(*platform.CreateBranchParams)
	if p == nil {
		return nil
	}
	if p.BackupID == "" {
		if p.SeedData == "" && p.RestorePoint == nil {
			return nil
		}
		// Seeding restores the parent's last backup, a restore point the
		// parent as it was then.
		return c.db.branch(cmp.Or(p.ParentBranch, c.db.defaultBranch))
	}
	if bk := c.db.backups.byID[p.BackupID]; bk != nil && bk.findable() {
		return bk.branch
	}
	return nil
}
