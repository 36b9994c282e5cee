package fake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// refusalWorld is the snapshot the refusal tests edit, made once: acme
// with members Alice (member) and Bob (admin) and a team (Alice, database
// app); a MySQL database app (main with a table, safe migrations, a
// password, a traffic budget, a queued resize, a backup running, a backup
// policy and a webhook; dev, with a deploy request into main being
// deployed); a PostgreSQL database pg with a role and a queued change; a
// service token ci with a grant on app, an OAuth application; and another
// organization, other, with its database odb.
var refusalWorld = sync.OnceValues(func() ([]byte, error) {
	srv, err := fake.New()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	return buildRefusalWorld(srv)
})

func buildRefusalWorld(srv *fake.Server) ([]byte, error) {
	ctx, c, org := context.Background(), srv.Client(), srv.Org()
	var errs []error
	must := func(_ any, err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	alice := srv.CreateUser("Alice", "alice@example.com")
	bob := srv.CreateUser("Bob", "bob@example.com")
	must(nil, srv.AddMember(org, alice, platform.RoleMember))
	must(nil, srv.AddMember(org, bob, platform.RoleAdmin))
	must(c.Teams.Create(ctx, &platform.CreateTeamParams{Organization: org, Name: "Backend"}))
	must(c.Teams.AddMember(ctx, &platform.AddTeamMemberParams{Organization: org, Team: "backend", UserID: alice}))
	must(c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app", ClusterSize: "PS_10"}))
	must(c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: "app"}))
	must(nil, srv.AddTeamDatabase(org, "backend", "app"))
	must(nil, srv.PushSchema(org, "app", "main", "CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id))"))
	must(c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: org, Database: "app", Branch: "main"}))
	must(c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: "dev", ParentBranch: "main"}))
	must(c.Branches.Wait(ctx, &platform.GetBranchParams{Organization: org, Database: "app", Branch: "dev"}))
	must(nil, srv.PushSchema(org, "app", "dev", "CREATE TABLE users (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))"))
	must(c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: "app", Branch: "dev", IntoBranch: "main", AutoCutover: platform.Ptr(false)}))
	must(c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: org, Database: "app", Branch: "main", Name: platform.Ptr("pw1"), TTL: platform.Ptr(3600)}))
	must(c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Organization: org, Database: "app", URL: "https://hooks.example.com/x", Events: []platform.WebhookEvent{"branch.ready"}}))
	must(c.Backups.Create(ctx, &platform.CreateBackupParams{Organization: org, Database: "app", Branch: "main", Name: platform.Ptr("bk1")}))
	must(c.BackupPolicies.Create(ctx, &platform.CreateBackupPolicyParams{Organization: org, Database: "app", Name: "nightly", Target: "production", RetentionValue: 7, RetentionUnit: "day", FrequencyValue: 1, FrequencyUnit: "day"}))
	must(c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: org, Database: "app", Branch: "main", Name: "budget1", Capacity: platform.Ptr(50), Rules: []string{"app=web"}}))
	must(c.BranchChanges.UpdateResize(ctx, &platform.UpdateBranchResizeRequestParams{Organization: org, Database: "app", Branch: "main", VTGateCount: platform.Ptr(2)}))
	must(c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL}))
	must(c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: "pg"}))
	must(c.Roles.Create(ctx, &platform.CreateRoleParams{Organization: org, Database: "pg", Branch: "main", Name: platform.Ptr("r1")}))
	must(c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: org, Database: "pg", Branch: "main", ClusterSize: platform.Ptr("PS_20")}))
	must(srv.CreateServiceToken(org, fake.TokenSpec{Name: "ci", Permissions: []platform.Permission{platform.PermissionReadDatabases},
		DatabasePermissions: map[string][]platform.Permission{"app": {platform.PermissionReadBranch}}}))
	must(srv.CreateOAuthApplication(org, fake.OAuthAppSpec{Name: "App", Domain: "https://app.example.com", RedirectURI: "https://app.example.com/cb", Scopes: []platform.Scope{platform.ScopeUserReadUser}}))
	must(c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: org, Database: "app", Number: 1}))
	srv.Advance(1500 * time.Millisecond)
	must(nil, srv.CreateOrganization("other"))
	must(nil, srv.AddMember("other", srv.AdminUserID(), platform.RoleAdmin))
	otok, err := srv.CreateServiceToken("other", fake.TokenSpec{Name: "o", Permissions: fake.AllPermissions()})
	must(nil, err)
	oc := srv.ClientFor(otok)
	must(oc.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "other", Name: "odb", ClusterSize: "PS_10"}))
	must(oc.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "other", Database: "odb"}))
	if len(errs) > 0 {
		return nil, fmt.Errorf("building the refusal world: %v", errs)
	}
	return srv.Snapshot()
}

// refusalCase is an edit of the refusal world that Restore refuses with
// an error saying want.
type refusalCase struct {
	name string
	edit func(m refusalDoc)
	want string
}

// runRefusals checks that Restore refuses each edit of the refusal world
// with its error, naming the path, and leaves the server as it was; and
// that the world unedited restores.
func runRefusals(t *testing.T, cases []refusalCase) {
	t.Helper()
	base, err := refusalWorld()
	if err != nil {
		t.Fatal(err)
	}
	runRefusalsOf(t, base, cases)
}

// runRefusalsOf is runRefusals of the world base.
func runRefusalsOf(t *testing.T, base []byte, cases []refusalCase) {
	t.Helper()
	if err := fake.NewServer(t).Restore(base); err != nil {
		t.Fatalf("the refusal world does not restore: %v", err)
	}
	// Each case edits a copy of the document decoded once: decoding it
	// again for each would cost the suite seconds under the race detector.
	var doc map[string]any
	snapshotEdit(t, base, func(m map[string]any) { doc = m })
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := copyJSON(doc).(map[string]any)
			tc.edit(refusalDoc{m})
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			srv := fake.NewServer(t, fake.WithSeed(5))
			mustDB(t, srv, "mine")
			before, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			err = srv.Restore(data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore: %v, want an error saying %q", err, tc.want)
			}
			after, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("a refused Restore changed the server")
			}
		})
	}
}

// copyJSON copies a decoded JSON value: its objects and arrays, each anew.
func copyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = copyJSON(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = copyJSON(e)
		}
		return c
	}
	return v // a string, json.Number, bool or nil: never edited in place
}

// refusalDoc is the refusal world as a JSON document, with finders.
type refusalDoc struct{ m map[string]any }

func (d refusalDoc) list(v any, key string) []any {
	l, _ := v.(map[string]any)[key].([]any)
	return l
}

func (d refusalDoc) find(list []any, key string, val any) map[string]any {
	for _, e := range list {
		if e := e.(map[string]any); fmt.Sprint(e[key]) == fmt.Sprint(val) {
			return e
		}
	}
	panic(fmt.Sprintf("no record with %s %v", key, val))
}

func (d refusalDoc) db(name string) map[string]any {
	return d.find(d.list(d.m, "databases"), "name", name)
}

func (d refusalDoc) branch(db, name string) map[string]any {
	id := d.db(db)["id"]
	for _, e := range d.list(d.m, "branches") {
		if b := e.(map[string]any); b["database"] == id && b["name"] == name {
			return b
		}
	}
	panic("no branch " + db + "/" + name)
}

func (d refusalDoc) org(name string) map[string]any {
	return d.find(d.list(d.m, "organizations"), "name", name)
}

func (d refusalDoc) user(name string) map[string]any {
	return d.find(d.list(d.m, "users"), "name", name)
}

func (d refusalDoc) team() map[string]any { return d.list(d.org("acme"), "teams")[0].(map[string]any) }

// at returns the i-th record of list key of v.
func (d refusalDoc) at(v map[string]any, key string, i int) map[string]any {
	return d.list(v, key)[i].(map[string]any)
}

// twin appends a copy of the i-th record of list key of v, with changes,
// and returns it.
func (d refusalDoc) twin(v map[string]any, key string, i int, set map[string]any) map[string]any {
	c := map[string]any{}
	maps.Copy(c, d.at(v, key, i))
	maps.Copy(c, set)
	v[key] = append(d.list(v, key), c)
	return c
}

// index is the position of a record in the list key of m.
func (d refusalDoc) index(key string, rec map[string]any) int {
	for i, e := range d.list(d.m, key) {
		if e.(map[string]any)["id"] == rec["id"] {
			return i
		}
	}
	panic("not in " + key)
}

// TestRestoreRefusesDuplicates checks that a snapshot in which two
// records share an ID (of one kind or two), or two records of a branch a
// name the API gives one of them only, or the deploy queue a request
// twice, is refused at the path of the second.
func TestRestoreRefusesDuplicates(t *testing.T) {
	t.Parallel()
	acme := func(d refusalDoc) string {
		return fmt.Sprintf("organizations[%d]", d.index("organizations", d.org("acme")))
	}
	var paths struct{ acme, appMain, pgMain, app, pg string }
	base, err := refusalWorld()
	if err != nil {
		t.Fatal(err)
	}
	snapshotEdit(t, base, func(m map[string]any) {
		d := refusalDoc{m}
		paths.acme = acme(d)
		paths.appMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("app", "main")))
		paths.pgMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("pg", "main")))
		paths.app = fmt.Sprintf("databases[%d]", d.index("databases", d.db("app")))
		paths.pg = fmt.Sprintf("databases[%d]", d.index("databases", d.db("pg")))
	})
	runRefusals(t, []refusalCase{
		{"two members with one ID", func(d refusalDoc) {
			d.at(d.org("acme"), "members", 1)["id"] = d.at(d.org("acme"), "members", 0)["id"]
		}, paths.acme + ".members[1].id: ID "},
		{"two teams with one ID", func(d refusalDoc) {
			d.twin(d.org("acme"), "teams", 0, map[string]any{"slug": "second", "name": "Second", "members": nil})
		}, paths.acme + ".teams[1].id: ID "},
		{"two team members with one ID", func(d refusalDoc) {
			d.twin(d.team(), "members", 0, map[string]any{"user": d.user("Bob")["id"]})
		}, paths.acme + ".teams[0].members[1].id: ID "},
		{"a branch with a database's ID", func(d refusalDoc) {
			d.branch("app", "dev")["id"] = d.db("pg")["id"]
		}, "appears twice"},
		{"two deploy requests with one ID", func(d refusalDoc) {
			dr := d.twin(d.db("app"), "deploy_requests", 0, map[string]any{"number": 2, "open": false})
			dep := map[string]any{}
			maps.Copy(dep, dr["deployment"].(map[string]any))
			dep["id"], dep["state"], dep["operations"] = "seconddepxxx", "complete", nil
			dr["deployment"] = dep
			d.db("app")["last_deploy_request"] = 2
		}, paths.app + ".deploy_requests[1].id: ID "},
		{"two deployments with one ID", func(d refusalDoc) {
			dr := d.twin(d.db("app"), "deploy_requests", 0, map[string]any{"number": 2, "open": false, "id": "seconddrxxxx"})
			dep := map[string]any{}
			maps.Copy(dep, dr["deployment"].(map[string]any))
			dep["state"], dep["operations"] = "complete", nil
			dr["deployment"] = dep
			d.db("app")["last_deploy_request"] = 2
		}, paths.app + ".deploy_requests[1].deployment.id: ID "},
		{"one backup ID in two databases", func(d refusalDoc) {
			bk := d.twin(d.db("app"), "backups", 0, map[string]any{"branch": d.branch("pg", "main")["id"], "state": "success"})
			d.db("app")["backups"] = d.list(d.db("app"), "backups")[:1]
			d.db("pg")["backups"] = append(d.list(d.db("pg"), "backups"), bk)
		}, paths.pg + ".backups[0].id: ID "},
		{"two budgets with one ID", func(d refusalDoc) {
			d.twin(d.branch("app", "main"), "traffic_budgets", 0, map[string]any{"name": "budget2", "rules": nil})
		}, paths.appMain + ".traffic_budgets[1].id: ID "},
		{"two budgets with one name", func(d refusalDoc) {
			d.twin(d.branch("app", "main"), "traffic_budgets", 0, map[string]any{"id": "secondbgxxxx", "rules": nil})
		}, paths.appMain + `.traffic_budgets[1].name: "budget1" appears twice`},
		{"two passwords with one name", func(d refusalDoc) {
			d.twin(d.branch("app", "main"), "passwords", 0, map[string]any{"id": "secondpwxxxx"})
		}, paths.appMain + `.passwords[1].name: "pw1" appears twice`},
		{"two live roles with one name", func(d refusalDoc) {
			d.twin(d.branch("pg", "main"), "roles", 1, map[string]any{"id": "secondrlxxxx"})
		}, paths.pgMain + `.roles[2].name: "r1" appears twice`},
		{"a deploy request queued twice", func(d refusalDoc) {
			d.db("app")["deploy_queue"] = []any{1, 1}
		}, paths.app + ".deploy_queue[1]: deploy request #1 appears twice"},
	})
}

// refusalPaths are the places of the refusal world's records in its
// document, for the paths errors name.
type refusalPaths struct {
	acme, app, pg, odb, appMain, appDev, pgMain, ci string
	// appMainID and appDevID are the IDs of app's branches.
	appMainID, appDevID string
	// The IDs of records errors name.
	appID, pgMainID, ciID, teamID, backupID string
}

// refusalWorldPaths returns the refusal world's refusalPaths.
func refusalWorldPaths(t *testing.T) refusalPaths {
	t.Helper()
	base, err := refusalWorld()
	if err != nil {
		t.Fatal(err)
	}
	var p refusalPaths
	snapshotEdit(t, base, func(m map[string]any) {
		d := refusalDoc{m}
		p.acme = fmt.Sprintf("organizations[%d]", d.index("organizations", d.org("acme")))
		p.app = fmt.Sprintf("databases[%d]", d.index("databases", d.db("app")))
		p.pg = fmt.Sprintf("databases[%d]", d.index("databases", d.db("pg")))
		p.odb = fmt.Sprintf("databases[%d]", d.index("databases", d.db("odb")))
		p.appMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("app", "main")))
		p.appDev = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("app", "dev")))
		p.pgMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("pg", "main")))
		p.ci = fmt.Sprintf("service_tokens[%d]", d.index("service_tokens", d.token("ci")))
		p.appMainID, p.appDevID = d.branch("app", "main")["id"].(string), d.branch("app", "dev")["id"].(string)
		p.appID, p.pgMainID, p.ciID = d.db("app")["id"].(string), d.branch("pg", "main")["id"].(string), d.token("ci")["id"].(string)
		p.teamID, p.backupID = d.team()["id"].(string), d.at(d.db("app"), "backups", 0)["id"].(string)
	})
	return p
}

func (d refusalDoc) token(name string) map[string]any {
	return d.find(d.list(d.m, "service_tokens"), "name", name)
}

func (d refusalDoc) dr() map[string]any { return d.at(d.db("app"), "deploy_requests", 0) }

// TestRestoreRefusesWrongReferences checks that a reference to a record
// that exists but where the API never puts it (another organization's,
// another database's, a member of no organization where removing a
// member removes the reference) is refused at its path.
func TestRestoreRefusesWrongReferences(t *testing.T) {
	t.Parallel()
	p := refusalWorldPaths(t)
	runRefusals(t, []refusalCase{
		{"a team member who is no member of the organization", func(d refusalDoc) {
			d.twin(d.m, "users", 0, map[string]any{"id": "nomemberxxxx", "name": "Stranger", "email": "s@example.com", "default_organization": nil})
			d.at(d.team(), "members", 0)["user"] = "nomemberxxxx"
		}, p.acme + ".teams[0].members[0].user: user nomemberxxxx is not a member of organization acme"},
		{"a team's database of another organization", func(d refusalDoc) {
			d.team()["databases"] = []any{d.db("odb")["id"]}
		}, p.acme + ".teams[0].databases[0]: database "},
		{"a team's database twice", func(d refusalDoc) {
			d.team()["databases"] = []any{d.db("app")["id"], d.db("app")["id"]}
		}, p.acme + ".teams[0].databases[1]: database "},
		{"a token's grant on another organization's database", func(d refusalDoc) {
			d.at(d.token("ci"), "database_grants", 0)["database"] = d.db("odb")["id"]
		}, p.ci + ".database_grants[0].database: database "},
		{"a deploy request's head in another database", func(d refusalDoc) {
			d.dr()["head"] = d.branch("pg", "main")["id"]
		}, p.app + ".deploy_requests[0].head: branch "},
		{"a deploy request's base in another database", func(d refusalDoc) {
			d.dr()["into"] = d.branch("odb", "main")["id"]
		}, p.app + ".deploy_requests[0].into: branch "},
		{"a deploy request from a branch into itself", func(d refusalDoc) {
			d.dr()["head"] = d.dr()["into"]
		}, p.app + ".deploy_requests[0].into: branch "},
		{"a backup of another database's branch", func(d refusalDoc) {
			d.at(d.db("app"), "backups", 0)["branch"] = d.branch("pg", "main")["id"]
		}, p.app + ".backups[0].branch: branch "},
		{"a default branch that is no branch", func(d refusalDoc) {
			d.db("app")["default_branch"] = "nosuch"
		}, p.app + `.default_branch: "nosuch" is not a branch`},
		{"the admin token of another organization", func(d refusalDoc) {
			admin := d.m["admin"].(map[string]any)
			d.find(d.list(d.m, "service_tokens"), "id", admin["token_id"])["organization"] = "other"
		}, "admin.token_id: token "},
		{"a grant on a database not in the snapshot", func(d refusalDoc) { d.at(d.token("ci"), "database_grants", 0)["database"] = "nodb" }, p.ci + `: service token ` + p.ciID + `: granted database "nodb" is not in the snapshot`},
		{"a database granted twice", func(d refusalDoc) { d.twin(d.token("ci"), "database_grants", 0, nil) }, p.ci + ": service token " + p.ciID + ": database " + p.appID + " is granted twice"},
		{"a grant of an organization permission", func(d refusalDoc) {
			d.at(d.token("ci"), "database_grants", 0)["permissions"] = []any{"read_invoices"}
		}, p.ci + ": service token " + p.ciID + ": grant on database " + p.appID + `: "read_invoices" is not a permission held there`},
		{"a grant of no permission", func(d refusalDoc) { d.at(d.token("ci"), "database_grants", 0)["permissions"] = []any{} }, p.ci + ": service token " + p.ciID + ": grant on database " + p.appID + " holds no permission"},
		{"a token of no organization", func(d refusalDoc) { d.token("ci")["organization"] = "nowhere" }, p.ci + `.organization: organization "nowhere" is not in the snapshot`},
		{"a token's creator not in the snapshot", func(d refusalDoc) { d.token("ci")["creator"] = "ghost" }, p.ci + `.creator: creator "ghost" is not in the snapshot`},
		{"a token of no creator", func(d refusalDoc) { d.token("ci")["creator"] = "" }, p.ci + ".creator: must name a user"},
		{"a token's permission the API has not", func(d refusalDoc) { d.token("ci")["permissions"] = []any{"rule_the_world"} }, p.ci + `.permissions: "rule_the_world" is not a permission held there`},
		{"a team slug twice", func(d refusalDoc) {
			d.twin(d.org("acme"), "teams", 0, map[string]any{"id": "secondtmxxxx", "name": "Other", "members": nil})
		}, p.acme + `.teams[1]: team secondtmxxxx: slug "backend" appears twice`},
		{"a team's creator not in the snapshot", func(d refusalDoc) { d.team()["creator"] = "ghost" }, p.acme + `.teams[0]: team ` + p.teamID + `: creator "ghost" is not in the snapshot`},
		{"a team member not in the snapshot", func(d refusalDoc) { d.at(d.team(), "members", 0)["user"] = "ghost" }, p.acme + `.teams[0]: team ` + p.teamID + `: member "ghost" is not in the snapshot`},
		{"a team member's actor not in the snapshot", func(d refusalDoc) { d.at(d.team(), "members", 0)["actor"] = "ghost" }, p.acme + `.teams[0]: team ` + p.teamID + `: member's actor "ghost" is not in the snapshot`},
		{"a team member twice", func(d refusalDoc) { d.twin(d.team(), "members", 0, map[string]any{"id": "secondtmmxxx"}) }, p.acme + ".teams[0]: team " + p.teamID + ": member secondtmmxxx: user missing or twice"},
		{"a team's database not in the snapshot", func(d refusalDoc) { d.team()["databases"] = []any{"nodb"} }, p.acme + `.teams[0].databases: team database "nodb" is not in the snapshot`},
		{"a role's actor not in the snapshot", func(d refusalDoc) { d.at(d.branch("pg", "main"), "roles", 1)["actor"] = "ghost" }, p.pgMain + ": branch " + p.pgMainID + `: role actor "ghost" is not in the snapshot`},
		{"a default role that is none", func(d refusalDoc) { d.branch("pg", "main")["default_role"] = "norole" }, p.pgMain + ": branch " + p.pgMainID + `: default role "norole" is not in the snapshot`},
		{"a password's actor not in the snapshot", func(d refusalDoc) { d.at(d.branch("app", "main"), "passwords", 0)["actor"] = "ghost" }, p.appMain + ": branch " + p.appMainID + `: password actor "ghost" is not in the snapshot`},
		{"a branch's actor not in the snapshot", func(d refusalDoc) { d.branch("app", "dev")["actor"] = "ghost" }, p.appDev + ": branch " + p.appDevID + `: actor "ghost" is not in the snapshot`},
		{"a branch in a region the API has not", func(d refusalDoc) { d.branch("app", "dev")["region"] = "mars" }, p.appDev + ": branch " + p.appDevID + `: unknown region "mars"`},
		{"a branch name twice", func(d refusalDoc) { d.branch("app", "dev")["name"] = "main" }, p.appDev + ": branch " + p.appDevID + `: name "main" appears twice in database ` + p.appID},
		{"a primary instance on a MySQL branch", func(d refusalDoc) { d.branch("app", "dev")["primary"] = 1 }, p.appDev + ".primary: branch dev runs instances 0 to 0 (a mysql branch has no primary instance), got 1"},
		{"a backup policy's generation past the counters", func(d refusalDoc) { d.at(d.db("app"), "backup_policies", 0)["gen"] = 1 << 62 }, p.app + ".backup_policies[0].gen: must be from 0 to "},
		{"a backup of no branch", func(d refusalDoc) { d.at(d.db("app"), "backups", 0)["branch"] = "" }, p.app + ": database " + p.appID + ": backup " + p.backupID + ": no branch"},
		{"a backup step of no backup", func(d refusalDoc) { d.find(d.list(d.m, "transitions"), "kind", "backup.step")["id"] = "nobackup" }, `: transition backup.step of nobackup: backup "nobackup" is not in the snapshot`},
		{"a backup step from a state it ends in", func(d refusalDoc) { d.find(d.list(d.m, "transitions"), "kind", "backup.step")["step"] = "success" }, `: transition backup.step of ` + p.backupID + `: a backup does not leave state "success" on the clock`},
		{"a policy run of no policy", func(d refusalDoc) { d.find(d.list(d.m, "transitions"), "kind", "backup_policy.run")["id"] = "nopolicy" }, `: transition backup_policy.run of nopolicy: backup policy "nopolicy" is not in the snapshot`},
		{"a live branch of a deleted database", func(d refusalDoc) {
			d.db("pg")["deleted"] = true
		}, "].deleted: a live branch of database "},
	})
}

// TestRestoreAcceptsWhatTheAPIReaches restores worlds the API reaches
// whose references look wrong: a deploy request, closed, into a branch
// demoted since (an open one keeps its branch from being demoted), the admin user removed from the organization (the creator of
// tokens still there, a user whose default organization is no longer
// theirs), the admin token deleted. Each restores, and saves again byte
// for byte.
func TestRestoreAcceptsWhatTheAPIReaches(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c, org := t.Context(), srv.Client(), srv.Org()
	ok := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustDB(t, srv, "app")
	srv.Advance(time.Hour)
	ok(nil, srv.PushSchema(org, "app", "main", "CREATE TABLE t (id bigint NOT NULL, PRIMARY KEY (id))"))
	for _, name := range []string{"staging", "dev"} {
		ok(c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: name, ParentBranch: "main"}))
	}
	srv.Advance(time.Hour)
	ok(c.Branches.Promote(ctx, &platform.PromoteBranchParams{Organization: org, Database: "app", Branch: "staging"}))
	ok(c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: org, Database: "app", Branch: "staging"}))
	ok(nil, srv.PushSchema(org, "app", "dev", "CREATE TABLE u (id bigint NOT NULL, PRIMARY KEY (id))"))
	ok(c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: "app", Branch: "dev", IntoBranch: "staging"}))
	srv.Advance(time.Minute)
	ok(c.DeployRequests.Close(ctx, &platform.CloseDeployRequestParams{Organization: org, Database: "app", Number: 1}))
	ok(c.Branches.Demote(ctx, &platform.DemoteBranchParams{Organization: org, Database: "app", Branch: "staging"}))
	ok(srv.CreateServiceToken(org, fake.TokenSpec{Name: "ci", Permissions: []platform.Permission{platform.PermissionReadDatabases}}))
	bob := srv.CreateUser("Bob", "bob@example.com")
	ok(nil, srv.AddMember(org, bob, platform.RoleAdmin))
	ok(nil, c.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{Organization: org, UserID: srv.AdminUserID()}))
	tok := srv.AdminToken()
	ok(nil, c.ServiceTokens.Delete(ctx, &platform.DeleteServiceTokenParams{Organization: org, ID: tok.ID}))
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	twin := fake.NewServer(t)
	if err := twin.Restore(data); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := twin.AdminToken(); got != tok {
		t.Errorf("the restored server's admin token is %v, want the deleted %v", got, tok)
	}
	again, err := twin.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("the restored server's snapshot differs from the one it restored")
	}
}

// TestRestoreRefusesValuesTheAPIRefuses checks that values outside what
// the API takes (enumerations, bounds, the forms it keeps), times the
// clock never reached, and records waiting for a transition that is not
// on the clock, are refused at their path.
func TestRestoreRefusesValuesTheAPIRefuses(t *testing.T) {
	t.Parallel()
	p := refusalWorldPaths(t)
	dep := func(d refusalDoc) map[string]any { return d.dr()["deployment"].(map[string]any) }
	drop := func(d refusalDoc, kind string) {
		var keep []any
		for _, x := range d.list(d.m, "transitions") {
			if x.(map[string]any)["kind"] != kind {
				keep = append(keep, x)
			}
		}
		d.m["transitions"] = keep
	}
	dr := p.app + ".deploy_requests[0]"
	runRefusals(t, []refusalCase{
		{"a deployment state the API has not", func(d refusalDoc) { dep(d)["state"] = "melted" }, dr + `.deployment.state: "melted" is not a deployment state`},
		{"an operation state the API has not", func(d refusalDoc) { d.at(dep(d), "operations", 0)["state"] = "bogus" }, dr + `.deployment.operations[0].state: "bogus" is not an operation state`},
		{"an operation the API has not", func(d refusalDoc) { d.at(dep(d), "operations", 0)["name"] = "explode" }, dr + `.deployment.operations[0].name: "explode" is not an operation`},
		{"a review state the API has not", func(d refusalDoc) {
			d.dr()["reviews"] = []any{map[string]any{"id": "reviewxxxxxx", "created": "2026-01-01T00:00:10Z", "updated": "2026-01-01T00:00:10Z",
				"actor": d.m["admin"].(map[string]any)["user"], "token": "", "state": "bogus", "body": "x"}}
		}, dr + `.reviews[0].state: "bogus" is not a review state`},
		{"a password role the API has not", func(d refusalDoc) { d.at(d.branch("app", "main"), "passwords", 0)["role"] = "superuser" },
			p.appMain + `.passwords[0].role: role "superuser" is not reader, writer, readwriter or admin`},
		{"a password's address that is no address", func(d refusalDoc) { d.at(d.branch("app", "main"), "passwords", 0)["cidrs"] = []any{"999.1.1.1/99"} },
			p.appMain + `.passwords[0].cidrs: cidrs: "999.1.1.1/99" is not an IP address or CIDR range`},
		{"a password's address not in the form kept", func(d refusalDoc) { d.at(d.branch("app", "main"), "passwords", 0)["cidrs"] = []any{"10.1.2.3/8"} },
			p.appMain + `.passwords[0].cidrs: cidrs: "10.1.2.3/8" has bits set`},
		{"a password bound to a read-only region its branch has not", func(d refusalDoc) {
			pw := d.at(d.branch("app", "main"), "passwords", 0)
			pw["read_only_region"], pw["replica"], pw["role"] = "nope", true, "reader"
		}, p.appMain + `.passwords[0].read_only_region: read_only_region_id "nope" is not a read-only region of branch main`},
		{"a password name too long", func(d refusalDoc) { d.at(d.branch("app", "main"), "passwords", 0)["name"] = strings.Repeat("x", 64) },
			p.appMain + ".passwords[0].name: name "},
		{"a password expiring before its ttl", func(d refusalDoc) {
			d.at(d.branch("app", "main"), "passwords", 0)["expires_at"] = "2026-01-01T00:00:01Z"
		},
			p.appMain + ".passwords[0].expires_at: "},
		{"a password on a PostgreSQL branch", func(d refusalDoc) {
			d.branch("pg", "main")["passwords"] = []any{d.at(d.branch("app", "main"), "passwords", 0)}
			d.branch("app", "main")["passwords"] = nil
		}, p.pgMain + ".passwords[0]: a password of a branch of postgresql database"},
		{"a role's query safety the API has not", func(d refusalDoc) { d.at(d.branch("pg", "main"), "roles", 1)["where_on_delete"] = "bogus" },
			p.pgMain + `.roles[1]: where_on_delete "bogus" is not off, warn or on`},
		{"a budget mode the API has not", func(d refusalDoc) { d.at(d.branch("app", "main"), "traffic_budgets", 0)["mode"] = "annihilate" },
			p.appMain + `.traffic_budgets[0]: mode "annihilate" is not enforce, warn or off`},
		{"a negative budget limit", func(d refusalDoc) { d.at(d.branch("app", "main"), "traffic_budgets", 0)["limits"].([]any)[0] = -5 },
			p.appMain + ".traffic_budgets[0].limits[0]: capacity must be from 0 to "},
		{"too few budget limits", func(d refusalDoc) { d.at(d.branch("app", "main"), "traffic_budgets", 0)["limits"] = []any{1} },
			p.appMain + ".traffic_budgets[0].limits: want an array of "},
		{"a rule kind the API has not", func(d refusalDoc) {
			d.at(d.at(d.branch("app", "main"), "traffic_budgets", 0), "rules", 0)["kind"] = "bogus"
		}, p.appMain + `.traffic_budgets[0].rules[0]: kind "bogus" is not match or each`},
		{"a webhook event the API has not", func(d refusalDoc) { d.at(d.db("app"), "webhooks", 0)["events"] = []any{"world.ended"} },
			p.app + `.webhooks[0].events: events: "world.ended" is not a webhook event`},
		{"a webhook URL that is no URL", func(d refusalDoc) { d.at(d.db("app"), "webhooks", 0)["url"] = "::::not a url" },
			p.app + `.webhooks[0].url: url "::::not a url" must be an absolute http or https URL`},
		{"an OAuth scope the API has not", func(d refusalDoc) {
			d.list(d.m, "oauth_applications")[0].(map[string]any)["scopes"] = []any{"root:everything"}
		},
			`scope "root:everything" is not one the API knows`},
		{"an OAuth redirect off its domain", func(d refusalDoc) {
			d.list(d.m, "oauth_applications")[0].(map[string]any)["redirect_uri"] = "https://evil.example.net/cb"
		}, `the RedirectURI "https://evil.example.net/cb" is not an http(s) URL on the domain`},
		{"a negative query router count", func(d refusalDoc) {
			d.branch("app", "main")["cluster"].(map[string]any)["vtgate"].(map[string]any)["count"] = -3
		}, p.appMain + ".cluster.vtgate.count: must be from 1 to 16, got -3"},
		{"a storage minimum above its maximum", func(d refusalDoc) {
			d.branch("app", "main")["cluster"].(map[string]any)["storage"].(map[string]any)["min"] = 99999999999999
		}, p.appMain + ".cluster.storage: storage.maximum_storage_bytes "},
		{"a PostgreSQL major version the API does not offer", func(d refusalDoc) { d.branch("pg", "main")["major_version"] = "15" },
			p.pgMain + `.major_version: "15" is not a PostgreSQL major version`},
		{"a major version on a MySQL branch", func(d refusalDoc) { d.branch("app", "main")["major_version"] = "17" },
			p.appMain + ".major_version: a major version on a branch of mysql database"},
		{"a PostgreSQL primary of no instance", func(d refusalDoc) { d.branch("pg", "main")["primary"] = -1 },
			p.pgMain + ".primary: must be from 0 to 20, got -1"},
		{"updated before created", func(d refusalDoc) { d.db("app")["updated"] = "2000-01-01T00:00:00Z" },
			p.app + ".updated: 2000-01-01T00:00:00Z is not from its creation"},
		{"created after the clock", func(d refusalDoc) { d.branch("app", "dev")["created"] = "8999-01-01T00:00:00Z" },
			p.appDev + ".created: 8999-01-01T00:00:00Z is not a time the clock reached"},
		{"created at the zero time", func(d refusalDoc) { d.branch("app", "dev")["created"] = "0001-01-01T00:00:00Z" },
			p.appDev + ".created: 0001-01-01T00:00:00Z is not a time the clock reached"},
		{"a pending database with no transition", func(d refusalDoc) { d.db("pg")["state"] = "pending" },
			p.pg + ".state: pending, with no transition on the clock to end it"},
		{"a branch not ready with no transition", func(d refusalDoc) { d.branch("app", "dev")["ready"] = false },
			p.appDev + ".ready: not ready, with no transition on the clock to end it"},
		{"a running backup with no transition", func(d refusalDoc) { drop(d, "backup.step") },
			p.app + ".backups[0].state: "},
	})
}

// TestRestoreRefusesBadRichWorld checks, on the rich world of
// TestSnapshotOperations (richWorld), that sessions, authentication
// attempts and their exports, and query router settings the API could not
// have made are refused at their path, and change nothing.
func TestRestoreRefusesBadRichWorld(t *testing.T) {
	t.Parallel()
	// The webhook's retry in flight ends first: its next retry is then on
	// the clock.
	w := richWorld(t)
	flushAll(t, []*fake.Server{w.srv})
	good, err := w.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		pgMain, pgDev, appDev, otherMain, app, secondOrg                       string
		appID, appDevID, adminID, poolID, appKsID, ksResizeID, bouncerResizeID string
		invoiceID, lineID, recID                                               string
		members, codes, devices                                                int
		oauthApp, oauthApp1, clientID, oauthToken, codeHash, userCode          string
		appMain, roID, appMainKsID, changeID                                   string
	}
	snapshotEdit(t, good, func(m map[string]any) {
		d := refusalDoc{m}
		p.pgMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("pg", "main")))
		p.pgDev = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("pg", "dev")))
		p.appDevID = d.branch(drDB, "dev")["id"].(string)
		p.app = fmt.Sprintf("databases[%d]", d.index("databases", d.db(drDB)))
		p.appID = d.db(drDB)["id"].(string)
		p.secondOrg = fmt.Sprintf("organizations[%d]", len(d.list(d.m, "organizations")))
		p.adminID = d.m["admin"].(map[string]any)["user"].(string)
		p.members = len(d.list(d.org("acme"), "members"))
		p.appMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch(drDB, "main")))
		p.roID = d.at(d.branch(drDB, "main"), "read_only_regions", 0)["id"].(string)
		p.appMainKsID = d.at(d.branch(drDB, "main"), "keyspaces", 0)["id"].(string)
		p.changeID = d.at(d.branch("pg", "dev")["cluster"].(map[string]any), "changes", 0)["id"].(string)
		app0, app1 := d.at(d.m, "oauth_applications", 0), d.at(d.m, "oauth_applications", 1)
		p.oauthApp, p.oauthApp1, p.clientID = app0["id"].(string), app1["id"].(string), app0["client_id"].(string)
		p.oauthToken = d.at(app0, "tokens", 0)["id"].(string)
		p.codes, p.codeHash = len(d.list(d.m, "oauth_codes")), d.at(d.m, "oauth_codes", 0)["hash"].(string)
		p.devices, p.userCode = len(d.list(d.m, "oauth_devices")), d.at(d.m, "oauth_devices", 0)["user_code"].(string)
		invoice := d.at(d.org("acme")["billing"].(map[string]any), "invoices", 0)
		p.invoiceID, p.lineID = invoice["id"].(string), d.at(invoice, "lines", 0)["id"].(string)
		p.recID = d.at(d.db(drDB), "schema_recommendations", 0)["id"].(string)
		p.poolID = d.at(d.branch("pg", "main"), "bouncers", 0)["id"].(string)
		p.bouncerResizeID = d.at(d.branch("pg", "main"), "bouncer_resizes", 0)["id"].(string)
		p.appKsID = d.at(d.branch(drDB, "dev"), "keyspaces", 0)["id"].(string)
		p.ksResizeID = d.at(d.at(d.branch(drDB, "dev"), "keyspaces", 0), "resizes", 1)["id"].(string)
		p.appDev = fmt.Sprintf("branches[%d]", d.index("branches", d.branch(drDB, "dev")))
		p.otherMain = fmt.Sprintf("branches[%d]", d.index("branches", d.branch("other", "main")))
	})
	sessions := func(d refusalDoc, db string) map[string]any {
		return d.branch(db, map[string]string{"pg": "main", drDB: "dev"}[db])["sessions"].(map[string]any)
	}
	session := func(d refusalDoc, db string, i int) map[string]any { return d.at(sessions(d, db), "sessions", i) }
	auth := func(d refusalDoc) map[string]any { return d.list(d.m, "auth_attempts")[0].(map[string]any) }
	attempt := func(d refusalDoc, i int) map[string]any { return d.at(auth(d), "attempts", i) }
	export := func(d refusalDoc, i int) map[string]any { return d.at(auth(d), "exports", i) }
	filters := func(d refusalDoc) map[string]any { return export(d, 0)["filters"].(map[string]any) }
	vtgate := func(d refusalDoc) map[string]any {
		return d.branch("other", "main")["cluster"].(map[string]any)["vtgate"].(map[string]any)
	}
	pgs, mys := p.pgMain+".sessions", p.appDev+".sessions"
	bouncer := func(d refusalDoc, i int) map[string]any { return d.at(d.branch("pg", "main"), "bouncers", i) }
	bouncerResize := func(d refusalDoc, i int) map[string]any { return d.at(d.branch("pg", "main"), "bouncer_resizes", i) }
	traffic := func(d refusalDoc) map[string]any { return d.branch(drDB, "dev")["traffic"].(map[string]any) }
	sample := func(d refusalDoc, i int) map[string]any { return d.at(traffic(d), "samples", i) }
	keyspace := func(d refusalDoc, i int) map[string]any { return d.at(d.branch(drDB, "dev"), "keyspaces", i) }
	ksResize := func(d refusalDoc, i int) map[string]any { return d.at(keyspace(d, 0), "resizes", i) }
	tr := p.appDev + ": branch " + p.appDevID + ": traffic: "
	runRefusalsOf(t, good, []refusalCase{
		{"a next PID below the first", func(d refusalDoc) { sessions(d, "pg")["next_pid"] = 1 }, pgs + ".next_pid: must be at least "},
		{"a session with no ID", func(d refusalDoc) { session(d, "pg", 0)["id"] = "" }, pgs + "[0].id: must not be empty"},
		{"PIDs out of order", func(d refusalDoc) { session(d, "pg", 1)["pid"] = 100 }, pgs + "[1].pid: must be above 100 and below next_pid 103, got 100"},
		{"a PID not yet given", func(d refusalDoc) { session(d, "pg", 2)["pid"] = 103 }, pgs + "[2].pid: must be above 101 and below next_pid 103, got 103"},
		{"a session of no user", func(d refusalDoc) { session(d, "pg", 0)["user"] = "" }, pgs + "[0].user: must not be empty"},
		{"a session never started", func(d refusalDoc) { session(d, "pg", 0)["started"] = "0001-01-01T00:00:00Z" }, pgs + "[0].started: must be set"},
		{"a change before the start", func(d refusalDoc) { session(d, "pg", 0)["changed"] = "2026-01-01T00:00:00Z" }, pgs + "[0].changed: is before started"},
		{"a query without its start", func(d refusalDoc) { session(d, "pg", 0)["query_start"] = "0001-01-01T00:00:00Z" },
			pgs + "[0].query_start: a query and its start go together"},
		{"a query started before its session", func(d refusalDoc) { session(d, "pg", 0)["query_start"] = "2026-01-01T00:00:00Z" },
			pgs + "[0].query_start: is before started"},
		{"a query ended before it started", func(d refusalDoc) { session(d, "pg", 0)["query_end"] = "2026-02-01T00:06:02Z" },
			pgs + "[0].query_end: is before its query's start, or has no query"},
		{"a recorded session without its client", func(d refusalDoc) { session(d, drDB, 0)["client"] = "" },
			mys + "[0].client: a recorded session and its client go together"},
		{"a host that is no address", func(d refusalDoc) { session(d, "pg", 0)["host"] = "not a host" }, pgs + "[0].host: "},
		{"an instance the branch has not", func(d refusalDoc) { session(d, "pg", 0)["instance"] = 9 }, pgs + "[0].instance: branch main has instances 0 to "},
		{"a PostgreSQL session in a keyspace", func(d refusalDoc) { session(d, "pg", 0)["keyspace"] = "app" },
			pgs + "[0].keyspace: a postgresql session has no keyspace"},
		{"a transaction before its session", func(d refusalDoc) { session(d, "pg", 0)["xact_start"] = "2026-01-01T00:00:00Z" },
			pgs + "[0].xact_start: is before started"},
		{"an aborted transaction never begun", func(d refusalDoc) { session(d, "pg", 2)["xact_start"] = "0001-01-01T00:00:00Z" },
			pgs + "[2].aborted: an aborted transaction needs one"},
		{"a session blocked by itself", func(d refusalDoc) { session(d, "pg", 1)["blocked_by"] = session(d, "pg", 1)["id"] },
			pgs + "[1].blocked_by: "},
		{"a session blocked by no session", func(d refusalDoc) { session(d, "pg", 1)["blocked_by"] = "nosession" },
			pgs + `[1].blocked_by: "nosession" is not another session of branch main`},
		{"a MySQL session on an instance", func(d refusalDoc) { session(d, drDB, 0)["instance"] = 1 }, mys + "[0].instance: a mysql session has no instance"},
		{"a MySQL session in a transaction", func(d refusalDoc) { session(d, drDB, 0)["application"] = "psql" },
			mys + "[0].xact_start: transactions, blockers and applications are for postgresql sessions"},
		{"a MySQL session on no shard", func(d refusalDoc) { session(d, drDB, 0)["shard"] = "-80" },
			mys + `[0].keyspace: "app"/"-80" is not a keyspace and shard of branch dev`},
		{"attempts of no organization", func(d refusalDoc) { auth(d)["organization"] = "nobody" }, `auth_attempts[0].organization: no organization "nobody"`},
		{"attempts of an organization twice", func(d refusalDoc) {
			d.m["auth_attempts"] = append(d.list(d.m, "auth_attempts"), map[string]any{"organization": "acme"})
		},
			`auth_attempts[1].organization: organization "acme" appears twice`},
		{"an attempt from no address", func(d refusalDoc) { attempt(d, 0)["source_ip"] = "nowhere" }, "auth_attempts[0].attempts[0].source_ip: "},
		{"an address not in the form kept", func(d refusalDoc) { attempt(d, 1)["source_ip"] = "2001:db8:0::1" },
			`auth_attempts[0].attempts[1].source_ip: "2001:db8:0::1" is stored as "2001:db8::1"`},
		{"an outcome the API has not", func(d refusalDoc) { attempt(d, 0)["outcome"] = "maybe" }, "auth_attempts[0].attempts[0].outcome: "},
		{"an allowed attempt with a failure", func(d refusalDoc) { attempt(d, 0)["outcome"] = "allow" },
			"auth_attempts[0].attempts[0].failure_reason: an allowed attempt has no failure"},
		{"attempts out of time order", func(d refusalDoc) { attempt(d, 1)["attempted_at"] = "2026-02-01T00:00:00.000Z" },
			"auth_attempts[0].attempts[1].attempted_at: attempts are out of time order"},
		{"a deleted password's username twice", func(d refusalDoc) {
			auth(d)["deleted_passwords"] = append(d.list(auth(d), "deleted_passwords"), d.at(auth(d), "deleted_passwords", 0))
		}, `auth_attempts[0].deleted_passwords[1].username: username "`},
		{"two exports with one ID", func(d refusalDoc) { export(d, 1)["id"] = export(d, 0)["id"] }, "auth_attempts[0].exports[1].id: ID "},
		{"an export of an empty window", func(d refusalDoc) { export(d, 0)["end_at"] = export(d, 0)["start_at"] },
			"auth_attempts[0].exports[0].start_at: start_at must be before end_at"},
		{"a filter address with bits past its prefix", func(d refusalDoc) { filters(d)["source_ips"] = []any{"198.51.100.1/24"} },
			`auth_attempts[0].exports[0].filters.source_ips[0]: "198.51.100.1/24" has bits set past its prefix`},
		{"a filter address that is no address", func(d refusalDoc) { filters(d)["source_ips"] = []any{"nowhere"} },
			"auth_attempts[0].exports[0].filters.source_ips[0]: "},
		{"branches filtered without their IDs", func(d refusalDoc) { export(d, 0)["branch_ids"] = []any{} },
			"auth_attempts[0].exports[0].filters.branches: 1 branches resolve to 0 IDs"},
		{"a branch filtered by an empty ID", func(d refusalDoc) { export(d, 0)["branch_ids"] = []any{""} },
			"auth_attempts[0].exports[0].filters.branch_ids[0]: must not be empty"},
		{"a filtered outcome the API has not", func(d refusalDoc) { filters(d)["outcomes"] = []any{"maybe"} }, "auth_attempts[0].exports[0].filters.outcomes[0]: "},
		{"a filtered failure the API has not", func(d refusalDoc) { filters(d)["failure_reasons"] = []any{"bad_luck"} },
			"auth_attempts[0].exports[0].filters.failure_reasons[0]: "},
		{"a filtered route the API has not", func(d refusalDoc) { filters(d)["backend_routes"] = []any{"carrier_pigeon"} },
			"auth_attempts[0].exports[0].filters.backend_routes[0]: "},
		{"a filter of too many values", func(d refusalDoc) {
			names := make([]any, 101)
			for i := range names {
				names[i] = fmt.Sprint("user", i)
			}
			filters(d)["usernames"] = names
		}, "auth_attempts[0].exports[0].filters: a filter of 101 values; at most "},
		{"a pending export started", func(d refusalDoc) { export(d, 2)["started"] = export(d, 0)["started"] },
			"auth_attempts[0].exports[2].started: a pending export with started time "},
		{"a pending export finished", func(d refusalDoc) { export(d, 2)["finished"] = export(d, 0)["finished"] },
			"auth_attempts[0].exports[2].finished: a pending export with finished time "},
		{"a ready export that never expires", func(d refusalDoc) { export(d, 0)["expires"] = "0001-01-01T00:00:00Z" },
			"auth_attempts[0].exports[0].expires: a ready export with expiry "},
		{"a ready export expiring as it finished", func(d refusalDoc) { export(d, 0)["expires"] = export(d, 0)["finished"] },
			"auth_attempts[0].exports[0].expires: a ready export with expiry "},
		{"a failed export without its reason", func(d refusalDoc) { export(d, 1)["failure_reason"] = "" },
			"auth_attempts[0].exports[1].failure_reason: a failed export with failure "},
		{"a failed export with rows", func(d refusalDoc) { export(d, 1)["rows"] = []any{} },
			"auth_attempts[0].exports[1].rows: a failed export has no rows"},
		{"an export row from no address", func(d refusalDoc) { d.at(export(d, 0), "rows", 0)["source_ip"] = "nowhere" },
			"auth_attempts[0].exports[0].rows[0].source_ip: "},
		{"an export step of a state no step leaves", func(d refusalDoc) { transition(d, "auth_attempt_export.step")["step"] = "ready" },
			`].step: "ready" is not a state an export leaves on the clock`},
		{"an export step from a state its export left", func(d refusalDoc) { transition(d, "auth_attempt_export.step")["step"] = "running" },
			"is pending: its step from running cannot run"},
		{"an export step of no export", func(d refusalDoc) { transition(d, "auth_attempt_export.step")["id"] = "noexport" },
			`]: transition auth_attempt_export.step of noexport: auth attempt export "noexport" is not in the snapshot`},
		{"a bouncer with no replica", func(d refusalDoc) { bouncer(d, 0)["config"].(map[string]any)["replicas_per_cell"] = 0 },
			p.pgMain + ".bouncers[0]: bouncer " + p.poolID + ": replicas_per_cell 0 is not from 1 to 10"},
		{"a bouncer target the API has not", func(d refusalDoc) { bouncer(d, 0)["config"].(map[string]any)["target"] = "anywhere" },
			p.pgMain + ".bouncers[0]: bouncer " + p.poolID + `: unknown bouncer target "anywhere"`},
		{"a bouncer parameter of PostgreSQL's", func(d refusalDoc) {
			bouncer(d, 0)["config"].(map[string]any)["parameters"] = map[string]any{"max_connections": "10"}
		}, p.pgMain + ".bouncers[0]: bouncer " + p.poolID + `: "max_connections" is not a pgbouncer parameter`},
		{"a bouncer name the API refuses", func(d refusalDoc) { bouncer(d, 1)["name"] = "Bad Name" }, p.pgMain + `.bouncers[1].name: "Bad Name" must be lowercase letters`},
		{"a bouncer resize of another branch's bouncer", func(d refusalDoc) {
			other := d.branch("pg", "dev")
			other["bouncer_resizes"] = []any{bouncerResize(d, 0)}
			d.branch("pg", "main")["bouncer_resizes"] = d.list(d.branch("pg", "main"), "bouncer_resizes")[1:]
		}, p.pgDev + ".bouncer_resizes[0]: bouncer resize " + p.bouncerResizeID + ": bouncer " + p.poolID + " is of another branch"},
		{"a bouncer resize's previous size the API has not", func(d refusalDoc) { bouncerResize(d, 0)["previous"].(map[string]any)["size"] = "PGB_HUGE" }, p.pgMain + ".bouncer_resizes[0]: bouncer resize " + p.bouncerResizeID + `: previous: unknown bouncer size "PGB_HUGE"`},
		{"a query pattern twice", func(d refusalDoc) {
			d.at(traffic(d), "patterns", 1)["keyspace"], d.at(traffic(d), "patterns", 1)["fingerprint"] = "app", "6f540be5517aaffe"
		}, tr + "query 6f540be5517aaffe of keyspace app appears twice"},
		{"a query pattern with no sample", func(d refusalDoc) { sample(d, 1)["pattern"] = 0 }, tr + "query 31d271168f7f508e of keyspace extra has no sample"},
		{"a sample with no ID", func(d refusalDoc) { sample(d, 0)["id"] = "" }, tr + "sample : no ID"},
		{"a sample of no pattern", func(d refusalDoc) { sample(d, 0)["pattern"] = 7 }, tr + "sample nzwv05i6b4te: query 7 is not in the list of 2"},
		{"a sample's error code without its message", func(d refusalDoc) { sample(d, 1)["error"] = "" }, tr + "sample 0a4u19dbj9gk: an error code without a message"},
		{"a sample of no shard query", func(d refusalDoc) { sample(d, 0)["shard_queries"] = 0 }, tr + "sample nzwv05i6b4te: a negative count or duration, or no shard query"},
		{"a sample of a tablet type the API has not", func(d refusalDoc) { sample(d, 0)["tablet_type"] = "spare" }, tr + `sample nzwv05i6b4te: unknown tablet type "spare"`},
		{"a keyspace name twice", func(d refusalDoc) { keyspace(d, 1)["name"] = "app" }, p.appDev + `.keyspaces[1].name: "app" appears twice`},
		{"a keyspace's last resize not completed", func(d refusalDoc) { keyspace(d, 0)["last_resize"] = ksResize(d, 1)["id"] },
			p.appDev + ".keyspaces[0]: keyspace " + p.appKsID + ": latest resize " + p.ksResizeID + " is resizing, not completed"},
		{"a keyspace resize of negative shard time", func(d refusalDoc) { ksResize(d, 1)["shard_time"] = -1 },
			p.appDev + ".keyspaces[0]: keyspace " + p.appKsID + ": keyspace resize " + p.ksResizeID + ": negative shard time -1ns"},
		{"a keyspace resize of too many replicas", func(d refusalDoc) { ksResize(d, 1)["replicas"] = 99 }, p.appDev + ".keyspaces[0].resizes[1].replicas: must be from 0 to 20, got 99"},
		{"a keyspace meter of no size", func(d refusalDoc) { keyspace(d, 0)["metered"].(map[string]any)["size"] = "PS_HUGE" },
			p.appDev + ".keyspaces[0]: keyspace " + p.appKsID + `: metered size "PS_HUGE" is not a cluster size`},
		{"an organization name twice", func(d refusalDoc) {
			d.twin(d.m, "organizations", 0, map[string]any{"id": "secondorgxxx", "members": nil, "teams": nil, "billing": nil})
		}, p.secondOrg + `.name: "acme" appears twice`},
		{"an organization's default region the API has not", func(d refusalDoc) { d.org("acme")["default_region"] = "mars" }, `organizations[0]: organization acme: unknown region "mars"`},
		{"a member twice", func(d refusalDoc) {
			d.twin(d.org("acme"), "members", 0, map[string]any{"id": "secondmbxxxx"})
		}, fmt.Sprintf("organizations[0].members[%d].user: user %s is a member twice", p.members, p.adminID)},
		{"a user's default organization not in the snapshot", func(d refusalDoc) { d.at(d.m, "users", 0)["default_organization"] = "nowhere" }, `users[0].default_organization: organization "nowhere" is not in the snapshot`},
		{"an ended usage of a size the API has not", func(d refusalDoc) {
			d.at(d.org("acme")["billing"].(map[string]any), "ended", 0)["size"] = "PS_HUGE"
		}, `organizations[0]: organization acme: usage of branch ` + p.appDevID + `: size "PS_HUGE" from`},
		{"an ended usage ending as it begins", func(d refusalDoc) {
			u := d.at(d.org("acme")["billing"].(map[string]any), "ended", 0)
			u["to"] = u["from"]
		}, "organizations[0]: organization acme: usage of branch " + p.appDevID + ": size \"PS_10\" from 2026-01-01 00:00:05 +0000 UTC to 2026-01-01 00:00:05 +0000 UTC is not a span"},
		{"an invoice line whose amount is not its rate by its hours", func(d refusalDoc) {
			d.at(d.at(d.org("acme")["billing"].(map[string]any), "invoices", 0), "lines", 0)["amount_cents"] = 1
		}, "organizations[0]: organization acme: invoice " + p.invoiceID + ": line item " + p.lineID + ": 1 cents is not 2232 hours at 3900 cents a month"},
		{"a payment card the API refuses", func(d refusalDoc) {
			pm := d.org("acme")["billing"].(map[string]any)["payment_method"].(map[string]any)
			pm["method"].(map[string]any)["exp_month"] = 13
		}, "organizations[0]: organization acme: payment method: exp_month 13 is not a month from 1 to 12"},
		{"an audit entry of no organization", func(d refusalDoc) { d.at(d.m["audit_log"].(map[string]any), "entries", 0)["organization"] = "nowhere" }, `audit_log: audit log entry's organization "nowhere" is not in the snapshot`},
		{"an audit entry of an operation the API has not", func(d refusalDoc) {
			d.at(d.m["audit_log"].(map[string]any), "entries", 0)["operation"] = "explode_database"
		}, `audit_log: audit log entry 1: operation "explode_database" changes nothing the audit log records`},
		{"audit entries out of order", func(d refusalDoc) { d.at(d.m["audit_log"].(map[string]any), "entries", 1)["seq"] = 1 }, "audit_log: audit log entry 1: out of order (after entry 1, the last being "},
		{"an import source's port 0", func(d refusalDoc) {
			d.at(d.m["data_imports"].(map[string]any), "imports", 0)["source"].(map[string]any)["port"] = 0
		}, "data_imports.imports[0].source.port: must be from 1 to 65535"},
		{"an import source of no organization", func(d refusalDoc) {
			d.at(d.m["data_imports"].(map[string]any), "sources", 0)["organization"] = "nowhere"
		}, `data_imports.sources[0].organization: organization "nowhere" is not in the snapshot`},
		{"an import source of no host", func(d refusalDoc) { d.at(d.m["data_imports"].(map[string]any), "sources", 0)["host"] = "" }, `data_imports.sources[0].host: "" is not a host name`},
		{"an import source twice", func(d refusalDoc) {
			d.at(d.m["data_imports"].(map[string]any), "sources", 1)["host"] = "down.example.com"
		}, "data_imports.sources[1].host: down.example.com appears twice in acme"},
		{"notifications of a database twice", func(d refusalDoc) {
			im := d.m["data_imports"].(map[string]any)
			im["notifications"] = append(d.list(im, "notifications"), d.at(im, "notifications", 0))
		}, "data_imports.notifications[1]: database " + p.appID + " appears twice"},
		{"notifications of no database", func(d refusalDoc) {
			d.at(d.m["data_imports"].(map[string]any), "notifications", 0)["database"] = "nodb"
		}, `data_imports.notifications[0].database: database "nodb" is not in the snapshot`},
		{"a schema recommendation numbered 0", func(d refusalDoc) { d.at(d.db(drDB), "schema_recommendations", 0)["number"] = 0 }, p.app + ": database " + p.appID + ": schema recommendation " + p.recID + ": number 0 missing or twice"},
		{"a schema recommendation closed by no deploy request", func(d refusalDoc) {
			d.at(d.db(drDB), "schema_recommendations", 0)["closed_by"] = 99
		}, p.app + ": database " + p.appID + ": schema recommendation #1: no deploy request #99"},
		{"a database name twice", func(d refusalDoc) { d.db("pg")["name"] = "other" }, `].name: "other" appears twice in acme`},
		{"a webhook's event twice", func(d refusalDoc) { d.at(d.db(drDB), "webhooks", 0)["events"] = []any{"branch.ready", "branch.ready"} }, p.app + ".webhooks[0].events: an event appears twice"},
		{"a backup step from a state it ends in", func(d refusalDoc) { transition(d, "backup.expire")["kind"] = "backup.step" }, `: a backup does not leave state "" on the clock`},
		{"a maintenance end of no window", func(d refusalDoc) { transition(d, "maintenance.end")["id"] = "nowindow" }, `]: transition maintenance.end of nowindow: maintenance window "nowindow" is not in the snapshot`},
		{"a code expiry of no hash", func(d refusalDoc) { transition(d, "oauth_code.expire")["id"] = "nothex" }, `]: transition oauth_code.expire of nothex: hash "nothex": encoding/hex: invalid byte`},
		{"a device expiry of no hash", func(d refusalDoc) { transition(d, "oauth_device.forget")["id"] = "nothex" }, `]: transition oauth_device.forget of nothex: hash "nothex": encoding/hex: invalid byte`},
		{"a webhook retry of no webhook", func(d refusalDoc) { transition(d, "webhook.retry")["id"] = "nohook" }, `]: transition webhook.retry of nohook: webhook "nohook" is not in the snapshot`},
		{"an OAuth application of no organization", func(d refusalDoc) { d.at(d.m, "oauth_applications", 0)["organization"] = "nowhere" }, "oauth_applications[0]: OAuth application " + p.oauthApp + `: organization "nowhere" is not in the snapshot`},
		{"an OAuth client ID twice", func(d refusalDoc) {
			d.at(d.m, "oauth_applications", 1)["client_id"] = d.at(d.m, "oauth_applications", 0)["client_id"]
		}, "oauth_applications[1]: OAuth application " + p.oauthApp1 + `: client ID "` + p.clientID + `" appears twice`},
		{"an OAuth token granted to no user", func(d refusalDoc) {
			d.at(d.at(d.m, "oauth_applications", 0), "tokens", 0)["grant"].(map[string]any)["user"] = "ghost"
		}, "oauth_applications[0].tokens[0].grant: OAuth token " + p.oauthToken + `: grant user "ghost" is not in the snapshot`},
		{"an OAuth token granted on no organization", func(d refusalDoc) {
			d.at(d.at(d.m, "oauth_applications", 0), "tokens", 0)["grant"].(map[string]any)["organizations"] = []any{"noorg"}
		}, "oauth_applications[0].tokens[0].grant: OAuth token " + p.oauthToken + `: grant organization "noorg" is not in the snapshot`},
		{"an OAuth token granted on no database", func(d refusalDoc) {
			d.at(d.at(d.m, "oauth_applications", 0), "tokens", 0)["grant"].(map[string]any)["databases"] = []any{"nodb"}
		}, "oauth_applications[0].tokens[0].grant: OAuth token " + p.oauthToken + `: grant database "nodb" is not in the snapshot`},
		{"an OAuth code twice", func(d refusalDoc) {
			d.m["oauth_codes"] = append(d.list(d.m, "oauth_codes"), d.at(d.m, "oauth_codes", 0))
		}, fmt.Sprintf("oauth_codes[%d].hash: OAuth code %s appears twice", p.codes, p.codeHash)},
		{"an OAuth code of no application", func(d refusalDoc) { d.at(d.m, "oauth_codes", 0)["application"] = "" }, "oauth_codes[0]: OAuth code " + p.codeHash[:8] + ": no application"},
		{"an OAuth code that issued no token", func(d refusalDoc) { d.at(d.m, "oauth_codes", 0)["issued"] = "notoken" }, "oauth_codes[0]: OAuth code " + p.codeHash[:8] + `: issued token "notoken" is not in the snapshot`},
		{"a device authorization twice", func(d refusalDoc) {
			d.m["oauth_devices"] = append(d.list(d.m, "oauth_devices"), d.at(d.m, "oauth_devices", 0))
		}, fmt.Sprintf("oauth_devices[%d]: device authorization %s appears twice", p.devices, p.userCode)},
		{"a device authorization of no application", func(d refusalDoc) { d.at(d.m, "oauth_devices", 0)["application"] = "noapp" }, "oauth_devices[0]: device authorization " + p.userCode + `: application "noapp" is not in the snapshot`},
		{"a device authorization of no user", func(d refusalDoc) { d.at(d.m, "oauth_devices", 0)["user"] = "ghost" }, "oauth_devices[0]: device authorization " + p.userCode + `: user "ghost" is not in the snapshot`},
		{"a read-only region in a region the API has not", func(d refusalDoc) { d.at(d.branch(drDB, "main"), "read_only_regions", 0)["region"] = "mars" }, p.appMain + ".read_only_regions[0]: read-only region " + p.roID + `: unknown region "mars"`},
		{"a read-only region's actor not in the snapshot", func(d refusalDoc) { d.at(d.branch(drDB, "main"), "read_only_regions", 0)["actor"] = "ghost" }, p.appMain + `.read_only_regions[0]: read-only region's actor "ghost" is not in the snapshot`},
		{"a keyspace's read-only region in a region the API has not", func(d refusalDoc) {
			d.at(d.at(d.branch(drDB, "main"), "keyspaces", 0), "read_only_regions", 0)["region"] = "mars"
		}, p.appMain + ".keyspaces[0]: keyspace " + p.appMainKsID + `: unknown read-only region "mars"`},
		{"a keyspace's read-only region of none of its branch's", func(d refusalDoc) {
			d.at(d.at(d.branch(drDB, "main"), "keyspaces", 0), "read_only_regions", 0)["branch_region"] = "noregion"
		}, p.appMain + ".keyspaces[0]: keyspace " + p.appMainKsID + `: read-only region of the branch "noregion" is not in the snapshot`},
		{"a parameter the API has not", func(d refusalDoc) {
			d.branch("pg", "dev")["cluster"].(map[string]any)["parameters"] = map[string]any{"warp_speed": map[string]any{"value": "9"}}
		}, p.pgDev + ".cluster.parameters.warp_speed: unknown parameter"},
		{"a parameter's actor not in the snapshot", func(d refusalDoc) {
			d.branch("pg", "dev")["cluster"].(map[string]any)["parameters"].(map[string]any)["max_connections"].(map[string]any)["actor"] = "ghost"
		}, p.pgDev + `.cluster.parameters.max_connections.actor: parameter actor "ghost" is not in the snapshot`},
		{"a change's actor not in the snapshot", func(d refusalDoc) {
			d.at(d.branch("pg", "dev")["cluster"].(map[string]any), "changes", 0)["actor"] = "ghost"
		}, p.pgDev + ".cluster.changes[0]: branch request " + p.changeID + `: request actor "ghost" is not in the snapshot`},
		{"a change's size before it the API has not", func(d refusalDoc) {
			d.at(d.branch("pg", "dev")["cluster"].(map[string]any), "changes", 0)["before"].(map[string]any)["cluster_size"] = "PS_HUGE"
		}, p.pgDev + `.cluster.changes[0].before.cluster_size: cluster size "PS_HUGE" is not a cluster size`},
		{"a query router size the API has not", func(d refusalDoc) { vtgate(d)["size"] = "VTG_HUGE" },
			p.otherMain + `.cluster.vtgate.size: "VTG_HUGE" is not a query router size`},
		{"a negative query router maximum", func(d refusalDoc) { vtgate(d)["max_count"] = -1 },
			p.otherMain + ".cluster.vtgate.max_count: must be from 0 to 16, got -1"},
		{"an autoscaling maximum below the count", func(d refusalDoc) { vtgate(d)["max_count"] = 1 },
			p.otherMain + ".cluster.vtgate.max_count: 1 is below count 2: autoscaling needs room to grow"},
		{"a CPU target over 100", func(d refusalDoc) { vtgate(d)["target_cpu"] = 101 },
			p.otherMain + ".cluster.vtgate.target_cpu: must be from 0 to 100, got 101"},
	})
}

// transition returns the first transition of a kind in d.
func transition(d refusalDoc, kind string) map[string]any {
	return d.find(d.list(d.m, "transitions"), "kind", kind)
}
