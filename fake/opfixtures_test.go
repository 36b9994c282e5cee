package fake_test

import (
	"encoding/json"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This file holds the operation table's machinery, for the tests that run
// every operation of operations.tsv under some credentials (the OAuth scope
// table of scopes_test.go; a permission table over service tokens can use
// the same): a world every operation can act in, a fixture per operation
// that sets up what it needs and builds a request that succeeds, and a
// snapshot of the world to check that a refused request changed nothing.

// opWorld is a fake set up for one request of the operation table: acme
// with the admin and the member Bob; the database app, whose production
// branch main (safe migrations on) holds drBase and whose ready development
// branch dev holds drChange, so that a deploy request from dev into main
// has changes; and a second ready database, other.
type opWorld struct {
	*drEnv
	bob string
}

func newOpWorld(t *testing.T) *opWorld {
	t.Helper()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	mustDB(t, e.srv, "other")
	e.srv.Advance(5 * time.Second)
	return &opWorld{drEnv: e, bob: mustMember(t, e.srv, e.org, "Bob Builder", platform.RoleMember)}
}

// opCall is the request of an operation: the values of its path's
// placeholders ({organization} and {database} are acme and app unless
// given), its JSON body ("" for none), and the branch of app it acts on,
// which a grant on a branch must name (the path's {branch} unless given).
type opCall struct {
	vals   map[string]string
	body   string
	branch string
}

// opFixture sets up in w what an operation needs and returns a request that
// succeeds from there. need is the permission or scope (without its
// resource) the request is to exercise, for the operations whose handler
// needs one or another by case (deleting a production branch's backup,
// restoring one, approving rather than commenting); "" for any case.
type opFixture func(w *opWorld, need string) opCall

// opOn is a fixture of an operation on a branch of app.
func opOn(branch string) opFixture {
	return func(*opWorld, string) opCall { return opCall{vals: map[string]string{"branch": branch}} }
}

// opBody is a fixture of an operation that only takes a body.
func opBody(body string) opFixture {
	return func(*opWorld, string) opCall { return opCall{body: body} }
}

// opOnBody is a fixture of an operation on a branch of app with a body.
func opOnBody(branch, body string) opFixture {
	return func(*opWorld, string) opCall { return opCall{vals: map[string]string{"branch": branch}, body: body} }
}

// opDR is a fixture of an operation on deploy request 1, from dev into
// main, walked through steps, with body.
func opDR(body string, steps ...drStep) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.takeSteps(w.open(platform.CreateDeployRequestParams{Branch: "dev"}), steps)
		return opCall{vals: map[string]string{"number": "1"}, body: body}
	}
}

// opBackup is a fixture of an operation on a successful backup of dev, or
// of main when need is about production branches.
func opBackup(body string) opFixture {
	return func(w *opWorld, need string) opCall {
		branch := "dev"
		if strings.Contains(need, "production") {
			branch = "main"
		}
		return opCall{vals: map[string]string{"branch": branch, "id": w.backup(branch)}, body: body}
	}
}

// opRole is a fixture of an operation on role credentials of dev (with a
// ttl, so that they can be renewed).
func opRole(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "id": w.role("dev")}, body: body}
	}
}

// opPolicy is a fixture of an operation on a backup policy of app that is
// not the required one.
func opPolicy(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"id": w.policy()}, body: body}
	}
}

// opFixtures are the fixtures by operation name. An operation of
// operations.tsv without one is listed by TestOpFixturesCoverOperations.
var opFixtures = map[string]opFixture{
	// organizations, members, users, regions
	"list_organizations":            opBody(""),
	"get_organization":              opBody(""),
	"update_organization":           opBody(`{"billing_email":"accounts@acme.example.com"}`),
	"list_regions_for_organization": opBody(""),
	"list_organization_members":     opBody(""),
	"get_organization_membership":   func(w *opWorld, _ string) opCall { return opCall{vals: map[string]string{"id": w.bob}} },
	"update_organization_membership": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"id": w.bob}, body: `{"role":"admin"}`}
	},
	"remove_organization_member": func(w *opWorld, _ string) opCall { return opCall{vals: map[string]string{"id": w.bob}} },
	"get_current_user":           opBody(""),
	"list_public_regions":        opBody(""),

	// databases
	"list_databases":           opBody(""),
	"create_database":          opBody(`{"name":"fresh","cluster_size":"PS_10"}`),
	"get_database":             opBody(""),
	"update_database_settings": opBody(`{"deletion_protected":true}`),
	"delete_database":          opBody(""),
	"list_database_regions":    opBody(""),

	// branches
	"list_branches": func(*opWorld, string) opCall { return opCall{branch: "dev"} },
	"create_branch": func(w *opWorld, need string) opCall {
		switch need {
		case "restore_backup", "restore_backups":
			return opCall{body: `{"name":"restored","backup_id":"` + w.backup("dev") + `","cluster_size":"PS_10"}`, branch: "dev"}
		case "restore_production_branch_backup", "restore_production_branch_backups":
			return opCall{body: `{"name":"restored","backup_id":"` + w.backup("main") + `","cluster_size":"PS_10"}`, branch: "main"}
		}
		return opCall{body: `{"name":"feature","parent_branch":"main"}`, branch: "main"}
	},
	"delete_branch":  opOn("dev"),
	"get_branch":     opOn("dev"),
	"update_branch":  opOnBody("dev", `{"deletion_protected":true}`),
	"promote_branch": opOn("dev"),
	"demote_branch": func(w *opWorld, _ string) opCall {
		w.promote("dev")
		return opCall{vals: map[string]string{"branch": "dev"}}
	},
	"enable_safe_migrations": func(w *opWorld, _ string) opCall {
		w.promote("dev")
		return opCall{vals: map[string]string{"branch": "dev"}}
	},
	"disable_safe_migrations": opOn("main"),
	"update_safe_migrations":  opOnBody("main", `{"safe_migrations":false}`),
	"get_branch_schema":       opOn("dev"),
	"lint_branch_schema":      opOn("dev"),

	// keyspaces (the default keyspace of a branch of app is named app)
	"list_keyspaces":  opOn("dev"),
	"create_keyspace": opOnBody("dev", `{"name":"extra","cluster_size":"PS_10"}`),
	"get_keyspace": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}}
	},
	"update_keyspace": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}, body: `{"node_ttl_strategy":"node_ttl_off"}`}
	},
	"delete_keyspace": func(w *opWorld, _ string) opCall {
		if err := w.srv.AddKeyspace(w.org, drDB, "dev", "extra", 1); err != nil {
			w.t.Fatal(err)
		}
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "extra"}}
	},

	// deploy requests
	"get_deploy_queue":              opBody(""),
	"list_deploy_requests":          opDR("", toReady...),
	"create_deploy_request":         opBody(`{"branch":"dev","into_branch":"main"}`),
	"get_deploy_request":            opDR("", toReady...),
	"close_deploy_request":          opDR(`{"state":"closed"}`),
	"complete_gated_deploy_request": opDR("", toPendingCutover...),
	"update_auto_apply":             opDR(`{"enable":true}`),
	"update_auto_delete_branch":     opDR(`{"enable":true}`),
	"cancel_deploy_request":         opDR("", toQueued...),
	"complete_errored_deploy":       opDR("", then(toInProgress, failNext, adv(10*time.Second))...),
	"queue_deploy_request":          opDR(`{}`, toReady...),
	"get_deployment":                opDR("", toReady...),
	"force_cutover_deploy_request":  opDR("", toQueued...),
	"list_deploy_operations":        opDR("", toReady...),
	"complete_revert":               opDR("", toPendingRevert...),
	"list_deploy_request_reviews":   opDR("", toReady...),
	"review_deploy_request": func(w *opWorld, need string) opCall {
		state := "approved"
		if need == "review_deploy_request" {
			state = "commented" // the permission that lets a token comment only
		}
		return opDR(`{"state":"`+state+`","body":"looks good"}`, toReady...)(w, need)
	},
	"skip_revert_period": opDR("", toPendingRevert...),

	// backups and backup policies
	"list_backups":         opOn("dev"),
	"create_backup":        opOnBody("dev", `{}`),
	"get_backup":           opBackup(""),
	"update_backup":        opBackup(`{"protected":true}`),
	"delete_backup":        opBackup(""),
	"list_backup_policies": opBody(""),
	"create_backup_policy": opBody(`{"name":"nightly","target":"development","retention_value":7,"retention_unit":"day","frequency_value":1,"frequency_unit":"day"}`),
	"get_backup_policy":    opPolicy(""),
	"update_backup_policy": opPolicy(`{"name":"renamed"}`),
	"delete_backup_policy": opPolicy(""),

	// roles
	"list_roles":         opOn("dev"),
	"create_role":        opOnBody("dev", `{}`),
	"get_default_role":   opOn("dev"),
	"reset_default_role": opOn("dev"),
	"get_role":           opRole(""),
	"update_role":        opRole(`{"name":"renamed"}`),
	"delete_role":        opRole(""),
	"renew_role":         opRole(""),
	"reset_role":         opRole(""),
	"reassign_role_objects": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "id": w.role("dev")}, body: `{"successor":"` + w.role("dev") + `"}`}
	},

	// OAuth applications
	"list_oauth_applications": opBody(""),
	"get_oauth_application": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"application_id": w.oauthApp().ID}}
	},
	"list_oauth_tokens": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"application_id": w.oauthApp().ID}}
	},
	"get_oauth_token": func(w *opWorld, _ string) opCall {
		app := w.oauthApp()
		return opCall{vals: map[string]string{"application_id": app.ID, "token_id": w.oauthTokenID(app)}}
	},
	"delete_oauth_token": func(w *opWorld, _ string) opCall {
		app := w.oauthApp()
		return opCall{vals: map[string]string{"application_id": app.ID, "token_id": w.oauthTokenID(app)}}
	},
	"create_oauth_token": func(w *opWorld, _ string) opCall {
		app := w.oauthApp()
		body, _ := json.Marshal(map[string]string{
			"client_id": app.ClientID, "client_secret": app.ClientSecret, "grant_type": "authorization_code",
			"code": oauthCode(w.t, w.srv, app, fake.Consent{}), "redirect_uri": app.RedirectURI,
		})
		return opCall{vals: map[string]string{"id": app.ID}, body: string(body)}
	},
}

// opServedElsewhere are the operations of operations.tsv that are not API
// routes: the OAuth server's, tested by oauth_test.go.
var opServedElsewhere = []string{"oauth_authorize", "oauth_token"}

// backup takes a backup of a branch of app and waits for its success, and
// returns its ID.
func (w *opWorld) backup(branch string) string {
	w.t.Helper()
	bk, err := w.c.Backups.Create(w.t.Context(), &platform.CreateBackupParams{Organization: w.org, Database: drDB, Branch: branch})
	if err != nil {
		w.t.Fatal(err)
	}
	tm := fake.DefaultTimings()
	w.srv.Advance(tm.BackupStart + tm.BackupRun)
	return bk.ID
}

// promote makes a branch of app a production branch.
func (w *opWorld) promote(branch string) {
	w.t.Helper()
	if _, err := w.c.Branches.Promote(w.t.Context(), &platform.PromoteBranchParams{Organization: w.org, Database: drDB, Branch: branch}); err != nil {
		w.t.Fatal(err)
	}
}

// role creates role credentials with a ttl on a branch of app and returns
// their ID.
func (w *opWorld) role(branch string) string {
	w.t.Helper()
	r, err := w.c.Roles.Create(w.t.Context(), &platform.CreateRoleParams{Organization: w.org, Database: drDB, Branch: branch, TTL: platform.Ptr(3600)})
	if err != nil {
		w.t.Fatal(err)
	}
	return r.ID
}

// policy creates a backup policy of app and returns its ID.
func (w *opWorld) policy() string {
	w.t.Helper()
	p, err := w.c.BackupPolicies.Create(w.t.Context(), &platform.CreateBackupPolicyParams{
		Organization: w.org, Database: drDB, Name: "weekly", Target: "development",
		RetentionValue: 4, RetentionUnit: "week", FrequencyValue: 1, FrequencyUnit: "week",
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return p.ID
}

// oauthApp creates an OAuth application of acme that the admin authorized
// once.
func (w *opWorld) oauthApp() fake.OAuthApp {
	w.t.Helper()
	app := oauthApp(w.t, w.srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	oauthIssue(w.t, w.srv, app, fake.Consent{})
	return app
}

// oauthTokenID is the ID of the one token of app.
func (w *opWorld) oauthTokenID(app fake.OAuthApp) string {
	w.t.Helper()
	toks := opCollect(w.t, w.c.OAuthApplications.AllTokens(w.t.Context(), &platform.ListOAuthTokensParams{Organization: w.org, ApplicationID: app.ID}))
	if len(toks) != 1 {
		w.t.Fatalf("%d tokens, want 1", len(toks))
	}
	return toks[0].ID
}

// opPlaceholder is a {placeholder} of a path.
var opPlaceholder = regexp.MustCompile(`\{[a-z_]+\}`)

// path fills op's path with the call's values.
func (c opCall) path(t testing.TB, w *opWorld, op tsvOperation) string {
	t.Helper()
	vals := map[string]string{"organization": w.org, "database": drDB}
	for k, v := range c.vals {
		vals[k] = v
	}
	return opPlaceholder.ReplaceAllStringFunc(op.path, func(ph string) string {
		v, ok := vals[strings.Trim(ph, "{}")]
		if !ok {
			t.Fatalf("%s: no value for %s", op.path, ph)
		}
		return v
	})
}

// target is the branch of app the call acts on.
func (c opCall) target() string {
	if c.branch != "" {
		return c.branch
	}
	return c.vals["branch"]
}

// opCollect gathers what an iterator yields.
func opCollect[T any](t testing.TB, seq iter.Seq2[*T, error]) []*T {
	t.Helper()
	var out []*T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// opState is what the admin token sees of acme: the state a refused
// request must leave unchanged.
type opState struct {
	Org            *platform.Organization
	Members        []*platform.Member
	Databases      []*platform.Database
	Branches       map[string][]*platform.Branch       // by database
	Schemas        map[string]*platform.BranchSchema   // by database/branch
	Keyspaces      map[string][]*platform.Keyspace     // by database/branch
	Backups        map[string][]*platform.Backup       // by database/branch, deleted ones too
	Roles          map[string][]*platform.Role         // by database/branch
	Policies       map[string][]*platform.BackupPolicy // by database
	DeployRequests map[string][]*platform.DeployRequest
	Reviews        map[string][]*platform.DeployRequestReview // by database#number
	OAuthApps      []*platform.OAuthApplication
	OAuthTokens    map[string][]*platform.OAuthToken // by application ID
	Events         []string
}

// opSnapshot reads acme's state through the admin token.
func opSnapshot(t testing.TB, srv *fake.Server) opState {
	t.Helper()
	ctx, c, org := t.Context(), srv.Client(), srv.Org()
	page := platform.ListParams{PerPage: 100}
	s := opState{
		Branches: map[string][]*platform.Branch{}, Schemas: map[string]*platform.BranchSchema{},
		Keyspaces: map[string][]*platform.Keyspace{}, Backups: map[string][]*platform.Backup{},
		Roles: map[string][]*platform.Role{}, Policies: map[string][]*platform.BackupPolicy{},
		DeployRequests: map[string][]*platform.DeployRequest{}, Reviews: map[string][]*platform.DeployRequestReview{},
		OAuthTokens: map[string][]*platform.OAuthToken{}, Events: srv.EventNames(),
	}
	var err error
	if s.Org, err = c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: org}); err != nil {
		t.Fatal(err)
	}
	s.Members = opCollect(t, c.Organizations.AllMembers(ctx, &platform.ListMembersParams{Organization: org, ListParams: page}))
	s.Databases = opCollect(t, c.Databases.All(ctx, &platform.ListDatabasesParams{Organization: org, ListParams: page}))
	for _, db := range s.Databases {
		s.Branches[db.Name] = opCollect(t, c.Branches.All(ctx, &platform.ListBranchesParams{Organization: org, Database: db.Name, ListParams: page}))
		for _, b := range s.Branches[db.Name] {
			key := db.Name + "/" + b.Name
			if s.Schemas[key], err = c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: org, Database: db.Name, Branch: b.Name}); err != nil {
				t.Fatal(err)
			}
			s.Keyspaces[key] = opCollect(t, c.Keyspaces.All(ctx, &platform.ListKeyspacesParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}))
			s.Backups[key] = opCollect(t, c.Backups.All(ctx, &platform.ListBackupsParams{Organization: org, Database: db.Name, Branch: b.Name, IncludeDeleted: true, ListParams: page}))
			s.Roles[key] = opCollect(t, c.Roles.All(ctx, &platform.ListRolesParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}))
		}
		s.Policies[db.Name] = opCollect(t, c.BackupPolicies.All(ctx, &platform.ListBackupPoliciesParams{Organization: org, Database: db.Name, ListParams: page}))
		s.DeployRequests[db.Name] = opCollect(t, c.DeployRequests.All(ctx, &platform.ListDeployRequestsParams{Organization: org, Database: db.Name, ListParams: page}))
		for _, dr := range s.DeployRequests[db.Name] {
			s.Reviews[db.Name+"#"+strconv.Itoa(dr.Number)] = opCollect(t, c.DeployRequests.AllReviews(ctx, &platform.ListReviewsParams{Organization: org, Database: db.Name, Number: dr.Number, ListParams: page}))
		}
	}
	s.OAuthApps = opCollect(t, c.OAuthApplications.All(ctx, &platform.ListOAuthApplicationsParams{Organization: org, ListParams: page}))
	for _, app := range s.OAuthApps {
		toks := opCollect(t, c.OAuthApplications.AllTokens(ctx, &platform.ListOAuthTokensParams{Organization: org, ApplicationID: app.ID, ListParams: page}))
		for _, tok := range toks {
			tok.LastUsedAt = nil // bookkeeping of every authenticated request, refused or not
		}
		s.OAuthTokens[app.ID] = toks
	}
	return s
}

// opOperations returns the rows of operations.tsv that have a fixture, by
// name in order, with keep choosing among them.
func opOperations(t *testing.T, keep func(tsvOperation) bool) []string {
	t.Helper()
	ops := loadOperations(t)
	var names []string
	for name, op := range ops {
		if _, ok := opFixtures[name]; ok && keep(op) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// TestOpFixturesSucceed runs every fixture's request with the admin token,
// which holds every permission: each must succeed with its operation's
// status.
func TestOpFixturesSucceed(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for _, name := range opOperations(t, func(tsvOperation) bool { return true }) {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newOpWorld(t)
			call := opFixtures[name](w, "")
			wantStatus(t, send(t, w.srv, op.method, call.path(t, w, op), admin(w.srv), call.body), op.status)
		})
	}
}

// TestOpFixturesCoverOperations lists the operations of operations.tsv the
// operation tables cannot run for lack of a fixture: those the fake does
// not serve yet (another group's), and those it serves, which need one.
func TestOpFixturesCoverOperations(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	var served, notServed []string
	for name, op := range loadOperations(t) {
		if _, ok := opFixtures[name]; ok || slices.Contains(opServedElsewhere, name) {
			continue
		}
		// An unauthenticated request reaches the operation's route, which
		// logs its name, or the catch-all, which does not.
		path := opPlaceholder.ReplaceAllString(op.path, "x")
		w := send(t, srv, op.method, path, "", "")
		logged := ""
		for _, r := range srv.Requests() {
			if r.RequestID == w.header.Get("X-Request-Id") {
				logged = r.Operation
			}
		}
		if logged == name {
			served = append(served, name)
		} else {
			notServed = append(notServed, name)
		}
	}
	slices.Sort(served)
	slices.Sort(notServed)
	if len(notServed) > 0 {
		t.Logf("not served by the fake yet, so without fixtures: %s", strings.Join(notServed, " "))
	}
	if len(served) > 0 {
		t.Skipf("served but missing from opFixtures, so untested by the operation tables: %s", strings.Join(served, " "))
	}
}
