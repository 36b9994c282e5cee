package fake_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// drDB is the database the deploy request tests use.
const drDB = "app"

// The schemas of the tests: main starts with drBase; a development branch
// with drChange alters users and creates orders. The statements are in the
// form the fake stores (a quoted table name), so that they read back as
// written.
var (
	drBase = []string{
		"CREATE TABLE `users` (id bigint NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE `audit` (id bigint NOT NULL, PRIMARY KEY (id))",
	}
	drChange = []string{
		"CREATE TABLE `users` (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))",
		"CREATE TABLE `orders` (id bigint NOT NULL, PRIMARY KEY (id))",
	}
	// drShardedChange changes a table of the sharded keyspace.
	drShardedChange = []string{"CREATE TABLE sharded.events (id bigint NOT NULL, kind int, PRIMARY KEY (id))"}
	// drLintError adds a table without a unique key.
	drLintError = []string{"CREATE TABLE notes (body text)"}
)

// drEnv is a fake with database app, whose production branch main holds
// drBase and has safe migrations on, ready for deploy requests.
type drEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
	org string
}

// newDREnv starts a drEnv with opts. With sharded, main also has a
// keyspace "sharded" of two shards with a table events, which branches
// copy.
func newDREnv(t *testing.T, sharded bool, opts ...fake.Option) *drEnv {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	e := &drEnv{t: t, srv: srv, c: srv.Client(), org: srv.Org()}
	_, err := e.c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: drDB, ClusterSize: "PS_10"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	base := drBase
	if sharded {
		if err := srv.AddKeyspace(e.org, drDB, "main", "sharded", 2); err != nil {
			t.Fatal(err)
		}
		base = append(slices.Clone(base), "CREATE TABLE sharded.events (id bigint NOT NULL, PRIMARY KEY (id))")
	}
	if err := srv.PushSchema(e.org, drDB, "main", base...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), &platform.EnableSafeMigrationsParams{Organization: e.org, Database: drDB, Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// branch creates a ready development branch off main and pushes stmts to it.
func (e *drEnv) branch(name string, stmts ...string) {
	e.t.Helper()
	if _, err := e.c.Branches.Create(e.t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: name, ParentBranch: "main"}); err != nil {
		e.t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	if len(stmts) > 0 {
		if err := e.srv.PushSchema(e.org, drDB, name, stmts...); err != nil {
			e.t.Fatal(err)
		}
	}
}

// productionBranch creates a branch off main as branch does, then promotes
// it and turns its safe migrations on: a branch deploy requests can go
// into.
func (e *drEnv) productionBranch(name string) {
	e.t.Helper()
	e.branch(name)
	ctx := e.t.Context()
	if _, err := e.c.Branches.Promote(ctx, &platform.PromoteBranchParams{Organization: e.org, Database: drDB, Branch: name}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: e.org, Database: drDB, Branch: name}); err != nil {
		e.t.Fatal(err)
	}
}

// open creates a deploy request; IntoBranch defaults to main.
func (e *drEnv) open(p platform.CreateDeployRequestParams) *platform.DeployRequest {
	e.t.Helper()
	p.Organization, p.Database = e.org, drDB
	if p.IntoBranch == "" {
		p.IntoBranch = "main"
	}
	dr, err := e.c.DeployRequests.Create(e.t.Context(), &p)
	if err != nil {
		e.t.Fatal(err)
	}
	return dr
}

// params names deploy request n.
func (e *drEnv) params(n int) platform.DeployRequestParams {
	return platform.DeployRequestParams{Organization: e.org, Database: drDB, Number: n}
}

// get returns deploy request n.
func (e *drEnv) get(n int) *platform.DeployRequest {
	e.t.Helper()
	p := e.params(n)
	dr, err := e.c.DeployRequests.Get(e.t.Context(), &p)
	if err != nil {
		e.t.Fatal(err)
	}
	return dr
}

// state returns the deployment state of deploy request n.
func (e *drEnv) state(n int) platform.DeploymentState {
	e.t.Helper()
	return e.get(n).Deployment.State
}

// do runs a deploy request action by name on deploy request n.
func (e *drEnv) do(action string, n int) error {
	e.t.Helper()
	for _, a := range drActions {
		if a.name == action {
			return a.do(e.t.Context(), e.c, e.params(n))
		}
	}
	e.t.Fatalf("no action %q", action)
	return nil
}

// mustDo runs an action that must succeed.
func (e *drEnv) mustDo(action string, n int) {
	e.t.Helper()
	if err := e.do(action, n); err != nil {
		e.t.Fatalf("%s #%d: %v", action, n, err)
	}
}

// drEvents returns the deploy_request.* events so far, without the prefix.
func (e *drEnv) drEvents() []string {
	var out []string
	for _, name := range e.srv.EventNames() {
		if rest, ok := strings.CutPrefix(name, "deploy_request."); ok {
			out = append(out, rest)
		}
	}
	return out
}

// schema returns the tables of a branch, as "name: CREATE ..." lines.
func (e *drEnv) schema(branch string) []string {
	e.t.Helper()
	tables, err := e.c.Branches.GetSchema(e.t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: drDB, Branch: branch})
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]string, len(tables.Tables))
	for i, tb := range tables.Tables {
		out[i] = tb.Name + ": " + tb.Raw
	}
	return out
}

// token seeds a service token with permissions on the organization,
// created by user (the admin when empty).
func (e *drEnv) token(user string, perms ...string) *platform.Client {
	e.t.Helper()
	tok, err := e.srv.CreateServiceToken(e.org, fake.TokenSpec{Name: "t", CreatedBy: user, Permissions: permissions(perms...)})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.srv.ClientFor(tok)
}

// drAction is an operation on one deploy request that may change its state.
type drAction struct {
	name string
	do   func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error
}

// drActions are every state-changing action on a deploy request.
var drActions = []drAction{
	{"close", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.Close(ctx, &p)
		return err
	}},
	{"deploy", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: p.Organization, Database: p.Database, Number: p.Number})
		return err
	}},
	{"deploy-instant", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: p.Organization, Database: p.Database, Number: p.Number, InstantDDL: platform.Ptr(true)})
		return err
	}},
	{"apply-deploy", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.ApplyDeploy(ctx, &p)
		return err
	}},
	{"force-cutover", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.ForceCutover(ctx, &p)
		return err
	}},
	{"auto-apply", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.UpdateAutoApply(ctx, &platform.UpdateAutoApplyParams{Organization: p.Organization, Database: p.Database, Number: p.Number, Enable: true})
		return err
	}},
	{"auto-delete-branch", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.UpdateAutoDeleteBranch(ctx, &platform.UpdateAutoDeleteBranchParams{Organization: p.Organization, Database: p.Database, Number: p.Number, Enable: true})
		return err
	}},
	{"cancel", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.Cancel(ctx, &p)
		return err
	}},
	{"complete-deploy", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.CompleteErroredDeploy(ctx, &p)
		return err
	}},
	{"revert", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.Revert(ctx, &p)
		return err
	}},
	{"skip-revert", func(ctx context.Context, c *platform.Client, p platform.DeployRequestParams) error {
		_, err := c.DeployRequests.SkipRevert(ctx, &p)
		return err
	}},
}

func TestCreateDeployRequest(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	start := e.srv.Now()
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev", Notes: "add <email>", AutoCutover: platform.Ptr(true), AutoDeleteBranch: platform.Ptr(true)})
	dev, err := e.c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: e.org, Database: drDB, Branch: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	admin := e.srv.AdminUserID()
	at := platform.NewTimestamp(start)
	want := &platform.DeployRequest{
		ID: dr.ID, Type: "DeployRequest", Number: 1,
		Actor:  &platform.Actor{ID: admin, Type: "User", DisplayName: "Ada Admin", AvatarURL: "https://avatars.example.com/" + admin},
		Branch: "dev", BranchID: dev.ID, IntoBranch: "main",
		IntoBranchShardCount: 1, IntoBranchKeyspaceCount: 1,
		State: platform.DeployRequestOpen, DeploymentState: platform.DeploymentPending,
		HTMLURL: e.srv.URL() + "acme/app/deploy-requests/1",
		Notes:   "add <email>", HTMLBody: "<p>add &lt;email&gt;</p>",
		CreatedAt: at, UpdatedAt: at,
		Deployment: &platform.Deployment{
			ID: dr.Deployment.ID, Type: "Deployment", State: platform.DeploymentPending,
			AutoCutover: true, AutoDeleteBranch: true, IntoBranch: "main", DeployRequestNumber: 1,
			PrecedingDeployments: []*platform.Deployment{}, DeployOperations: []*platform.DeployOperation{},
			DeployOperationSummaries: []*platform.DeployOperationSummary{}, LintErrors: []*platform.LintError{},
			SequentialDiffDependencies: []map[string]any{}, LookupVindexOperations: []map[string]any{},
			ThrottlerConfigurations: map[string]any{
				"keyspaces":      []any{"app"},
				"configurations": []any{map[string]any{"keyspace_name": "app", "ratio": float64(0)}},
			},
			CreatedAt: at, UpdatedAt: at, SchemaLastUpdatedAt: &at,
		},
	}
	if diff := cmp.Diff(want, dr); diff != "" {
		t.Errorf("created deploy request (-want +got):\n%s", diff)
	}
	if got := e.drEvents(); !slices.Equal(got, []string{"opened"}) {
		t.Errorf("events = %v, want [opened]", got)
	}

	// Numbers count per database, from 1.
	e.branch("dev2", "CREATE TABLE t2 (id int PRIMARY KEY)")
	if n := e.open(platform.CreateDeployRequestParams{Branch: "dev2"}).Number; n != 2 {
		t.Errorf("second deploy request is #%d, want 2", n)
	}
	if _, err := e.c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: "other", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	if err := e.srv.PushSchema(e.org, "other", "main", drBase...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), &platform.EnableSafeMigrationsParams{Organization: e.org, Database: "other", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: "other", Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	var other *platform.DeployRequest
	other, err = e.c.DeployRequests.Create(t.Context(), &platform.CreateDeployRequestParams{Organization: e.org, Database: "other", Branch: "dev", IntoBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if other.Number != 1 {
		t.Errorf("first deploy request of another database is #%d, want 1", other.Number)
	}
}

func TestCreateDeployRequestRefused(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.branch("staging")
	if _, err := e.c.Branches.Promote(t.Context(), &platform.PromoteBranchParams{Organization: e.org, Database: drDB, Branch: "staging"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "young"}); err != nil {
		t.Fatal(err)
	}
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	for _, tc := range []struct {
		name, branch, into, want string
	}{
		{"no branch", "", "main", "branch is required"},
		{"no into_branch: into main, the default branch", "dev", "", "#1"},
		{"same branch", "main", "main", "two branches"},
		{"unknown branch", "nope", "main", `branch "nope"`},
		{"unknown into_branch", "dev", "nope", `into_branch "nope"`},
		{"into a development branch", "main", "dev", "not a production branch"},
		{"into a production branch without safe migrations", "dev", "staging", "safe migrations"},
		{"from a pending branch", "young", "main", "not ready"},
		{"already open", "dev", "main", "#1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := e.c.DeployRequests.Create(t.Context(), &platform.CreateDeployRequestParams{Organization: e.org, Database: drDB, Branch: tc.branch, IntoBranch: tc.into})
			if apiErr := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, tc.want) {
				t.Errorf("message %q does not mention %q", apiErr.Message, tc.want)
			}
		})
	}
}

func TestDeployOperationsFromSchemaDiff(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", append([]string{"DROP TABLE audit"}, drChange...)...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	d, err := e.c.DeployRequests.GetDeployment(t.Context(), &platform.GetDeploymentParams{Organization: e.org, Database: drDB, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d.State != platform.DeploymentReady || !d.Deployable || d.InstantDDLEligible {
		t.Errorf("deployment: state %s, deployable %t, instant_ddl_eligible %t; want ready, true, false (a drop)", d.State, d.Deployable, d.InstantDDLEligible)
	}
	type op struct {
		Keyspace, Table string
		Name            platform.DeployOperationName
		DDL             string
		CanDropData     bool
	}
	want := []op{
		{drDB, "audit", platform.OperationDrop, "DROP TABLE `audit`", true},
		{drDB, "orders", platform.OperationCreate, drChange[1], false},
		{drDB, "users", platform.OperationAlter, drChange[0], false},
	}
	var got, summaries []op
	for _, o := range d.DeployOperations {
		got = append(got, op{o.KeyspaceName, o.TableName, o.OperationName, o.DDLStatement, o.CanDropData})
		if o.State != platform.OperationPending || len(o.ID) != 12 {
			t.Errorf("operation %s: state %s, id %q", o.TableName, o.State, o.ID)
		}
	}
	for _, s := range d.DeployOperationSummaries {
		summaries = append(summaries, op{s.KeyspaceName, s.TableName, s.OperationName, s.DDLStatement, s.CanDropData})
		if s.ShardCount != 1 || !slices.Equal(s.ShardNames, []string{"-"}) || s.Sharded || len(s.Operations) != 1 {
			t.Errorf("summary of %s: %d shards %v, sharded %t, %d shard operations; want one unsharded", s.TableName, s.ShardCount, s.ShardNames, s.Sharded, len(s.Operations))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deploy_operations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, summaries); diff != "" {
		t.Errorf("deploy_operation_summaries (-want +got):\n%s", diff)
	}

	// The operations list pages through the same operations.
	var listed []string
	for o, err := range e.c.DeployRequests.AllOperations(t.Context(), &platform.ListDeployOperationsParams{
		Organization: e.org, Database: drDB, Number: 1, ListParams: platform.ListParams{PerPage: 2},
	}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, o.TableName)
	}
	if !slices.Equal(listed, []string{"audit", "orders", "users"}) {
		t.Errorf("listed operations %v, want audit, orders, users", listed)
	}
}

func TestDeployOperationsOfShardedKeyspace(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, true)
	e.branch("dev", drShardedChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	dr := e.get(1)
	if !dr.IntoBranchSharded || dr.IntoBranchShardCount != 3 || dr.IntoBranchKeyspaceCount != 2 {
		t.Errorf("into branch: sharded %t, %d shards, %d keyspaces; want true, 3, 2", dr.IntoBranchSharded, dr.IntoBranchShardCount, dr.IntoBranchKeyspaceCount)
	}
	d := dr.Deployment
	if len(d.DeployOperationSummaries) != 1 || d.InstantDDLEligible {
		t.Fatalf("summaries %d, instant_ddl_eligible %t; want 1, false (a sharded change)", len(d.DeployOperationSummaries), d.InstantDDLEligible)
	}
	s := d.DeployOperationSummaries[0]
	if s.KeyspaceName != "sharded" || s.OperationName != platform.OperationAlter || !s.Sharded || s.ShardCount != 2 || !slices.Equal(s.ShardNames, []string{"-80", "80-"}) {
		t.Errorf("summary = %s.%s %s, sharded %t, %d shards %v", s.KeyspaceName, s.TableName, s.OperationName, s.Sharded, s.ShardCount, s.ShardNames)
	}
	var shards []string
	for _, o := range s.Operations {
		shards = append(shards, o.Shard)
	}
	if !slices.Equal(shards, s.ShardNames) {
		t.Errorf("shard operations on %v, want %v", shards, s.ShardNames)
	}
}

func TestDeployRequestCheckOutcomes(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("same")
	e.branch("lint", drLintError...)
	e.open(platform.CreateDeployRequestParams{Branch: "same"})
	e.open(platform.CreateDeployRequestParams{Branch: "lint"})
	e.srv.Advance(time.Second)

	same := e.get(1)
	if same.Deployment.State != platform.DeploymentNoChanges || same.Deployment.Deployable || len(same.Deployment.DeployOperations) != 0 {
		t.Errorf("no difference: state %s, deployable %t, %d operations; want no_changes, false, 0", same.Deployment.State, same.Deployment.Deployable, len(same.Deployment.DeployOperations))
	}
	lint := e.get(2)
	if lint.DeploymentState != platform.DeploymentError || lint.State != platform.DeployRequestOpen {
		t.Errorf("lint errors: deployment_state %s, state %s; want error, open", lint.DeploymentState, lint.State)
	}
	var codes []string
	for _, le := range lint.Deployment.LintErrors {
		codes = append(codes, le.LintError+" "+le.KeyspaceName+"."+le.TableName)
	}
	if want := []string{"NO_UNIQUE_KEY app.notes"}; !slices.Equal(codes, want) {
		t.Errorf("lint_errors = %v, want %v", codes, want)
	}
	if got, want := e.drEvents(), []string{"opened", "opened", "errored"}; !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
}

func TestListDeployRequests(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("staging")
	for _, step := range []func() error{
		func() error {
			_, err := e.c.Branches.Promote(t.Context(), &platform.PromoteBranchParams{Organization: e.org, Database: drDB, Branch: "staging"})
			return err
		},
		func() error {
			_, err := e.c.Branches.EnableSafeMigrations(t.Context(), &platform.EnableSafeMigrationsParams{Organization: e.org, Database: drDB, Branch: "staging"})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	e.branch("a", drChange...)
	e.branch("b", "CREATE TABLE b (id int PRIMARY KEY)")
	// Lists are in creation order (ties by ID), so the requests are opened
	// a millisecond apart.
	for _, p := range []platform.CreateDeployRequestParams{
		{Branch: "a", AutoCutover: platform.Ptr(true)}, // #1: deployed, closed
		{Branch: "b"},                        // #2: closed
		{Branch: "a", IntoBranch: "staging"}, // #3: open
		{Branch: "b", IntoBranch: "staging"}, // #4: open
	} {
		e.open(p)
		e.srv.Advance(time.Millisecond)
	}
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 1)
	e.srv.Advance(time.Minute)
	e.mustDo("skip-revert", 1)
	e.mustDo("close", 2)
	deployed := e.get(1).DeployedAt
	if deployed == nil {
		t.Fatal("#1 not deployed")
	}
	at := deployed.Time
	span := func(from, to time.Time) *platform.TimeRange { return &platform.TimeRange{Start: from, End: to} }

	for _, tc := range []struct {
		name string
		p    platform.ListDeployRequestsParams
		want []int
	}{
		{"deployed_at the moment", platform.ListDeployRequestsParams{DeployedAt: span(at, at)}, []int{1}},
		{"deployed_at a day around", platform.ListDeployRequestsParams{DeployedAt: span(at.Add(-12*time.Hour), at.Add(12*time.Hour))}, []int{1}},
		{"deployed_at before", platform.ListDeployRequestsParams{DeployedAt: span(at.Add(-time.Hour), at.Add(-time.Millisecond))}, nil},
		{"deployed_at after", platform.ListDeployRequestsParams{DeployedAt: span(at.Add(time.Millisecond), at.Add(time.Hour))}, nil},
		{"running_at its end", platform.ListDeployRequestsParams{RunningAt: span(at, at.Add(time.Hour))}, []int{1}},
		{"running_at while it ran", platform.ListDeployRequestsParams{RunningAt: span(at.Add(-time.Millisecond), at.Add(-time.Millisecond))}, []int{1}},
		{"running_at after it ended", platform.ListDeployRequestsParams{RunningAt: span(at.Add(time.Millisecond), at.Add(time.Hour))}, nil},
		{"running_at before it started", platform.ListDeployRequestsParams{RunningAt: span(at.Add(-24*time.Hour), at.Add(-23*time.Hour))}, nil},
		{"deployed_at with another filter", platform.ListDeployRequestsParams{DeployedAt: span(at, at), State: platform.DeployRequestOpen}, nil},
		{"all", platform.ListDeployRequestsParams{}, []int{1, 2, 3, 4}},
		{"open", platform.ListDeployRequestsParams{State: platform.DeployRequestOpen}, []int{3, 4}},
		{"closed", platform.ListDeployRequestsParams{State: platform.DeployRequestClosed}, []int{1, 2}},
		{"deployed", platform.ListDeployRequestsParams{State: platform.DeployRequestDeployed}, []int{1}},
		{"branch", platform.ListDeployRequestsParams{Branch: "a"}, []int{1, 3}},
		{"into_branch", platform.ListDeployRequestsParams{IntoBranch: "staging"}, []int{3, 4}},
		{"all filters", platform.ListDeployRequestsParams{State: platform.DeployRequestOpen, Branch: "b", IntoBranch: "staging"}, []int{4}},
		{"none match", platform.ListDeployRequestsParams{Branch: "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.p
			p.Organization, p.Database = e.org, drDB
			page, err := e.c.DeployRequests.List(t.Context(), &p)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, dr := range page.Items {
				got = append(got, dr.Number)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("numbers = %v, want %v", got, tc.want)
			}
			if page.TotalCount == nil || *page.TotalCount != len(tc.want) {
				t.Errorf("total_count = %v, want %d", page.TotalCount, len(tc.want))
			}
		})
	}
	for _, q := range []struct{ query, field string }{
		{"deployed_at=yesterday", "deployed_at"},
		{"deployed_at=2026-01-02T00:00:00Z..soon", "deployed_at end"},
		{"deployed_at=soon..2026-01-02T00:00:00Z", "deployed_at start"},
		{"running_at=2026-01-02T00:00:00Z..2026-01-01T00:00:00Z", "running_at"},
		{"running_at=..2026-01-01T00:00:00Z", "running_at"},
	} {
		w := send(t, e.srv, "GET", "/v1/organizations/"+e.org+"/databases/"+drDB+"/deploy-requests?"+q.query, admin(e.srv), "")
		if apiErr := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(apiErr.Message, q.field) {
			t.Errorf("%s: message %q does not name %s", q.query, apiErr.Message, q.field)
		}
	}
	t.Run("bad state", func(t *testing.T) {
		t.Parallel()
		_, err := e.c.DeployRequests.List(t.Context(), &platform.ListDeployRequestsParams{Organization: e.org, Database: drDB, State: "merged"})
		if apiErr := apiError(t, err, http.StatusBadRequest); !strings.Contains(apiErr.Message, "state") {
			t.Errorf("message %q does not name state", apiErr.Message)
		}
	})
	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		page, err := e.c.DeployRequests.List(t.Context(), &platform.ListDeployRequestsParams{Organization: e.org, Database: drDB, ListParams: platform.ListParams{Page: 2, PerPage: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Items[0].Number != 4 || page.HasNext() || *page.TotalPages != 2 {
			t.Errorf("page 2 of 3: %d items, next %v, total_pages %v", len(page.Items), page.NextPage, page.TotalPages)
		}
	})
}

func TestReviews(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	review := func(c *platform.Client, st platform.ReviewState, body string) (*platform.DeployRequestReview, error) {
		return c.DeployRequests.Review(t.Context(), &platform.ReviewParams{Organization: e.org, Database: drDB, Number: 1, State: st, Body: body})
	}
	// Without required approval, anyone may comment or approve.
	comment, err := review(e.c, platform.ReviewCommented, "looks <fine>")
	if err != nil {
		t.Fatal(err)
	}
	if comment.State != platform.ReviewCommented || comment.Body != "looks <fine>" || comment.HTMLBody != "<p>looks &lt;fine&gt;</p>" || comment.Type != "DeployRequestReview" || comment.Actor == nil {
		t.Errorf("review = %+v", comment)
	}
	// The creator's own approval is recorded but does not make the request
	// approved: approval comes from another actor.
	if _, err := review(e.c, platform.ReviewApproved, ""); err != nil {
		t.Fatal(err)
	}
	if e.get(1).Approved {
		t.Error("approved = true with only the creator's own approval")
	}
	if _, err := review(e.token("", "approve_deploy_request"), platform.ReviewApproved, ""); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []platform.ReviewState{"", "rejected"} {
		_, err := review(e.c, bad, "")
		if apiErr := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, "state") {
			t.Errorf("review state %q: message %q does not name state", bad, apiErr.Message)
		}
	}
	page, err := e.c.DeployRequests.ListReviews(t.Context(), &platform.ListReviewsParams{Organization: e.org, Database: drDB, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	var states []platform.ReviewState
	for _, r := range page.Items {
		states = append(states, r.State)
	}
	if !slices.Equal(states, []platform.ReviewState{platform.ReviewCommented, platform.ReviewApproved, platform.ReviewApproved}) {
		t.Errorf("reviews = %v, want commented, approved, approved", states)
	}
	dr := e.get(1)
	if !dr.Approved || dr.NumComments != 1 {
		t.Errorf("approved %t, num_comments %d; want true, 1", dr.Approved, dr.NumComments)
	}

	// A token that may only review comments; approving takes
	// approve_deploy_request, and a missing permission is a 404.
	commenter := e.token("", "review_deploy_request")
	if _, err := review(commenter, platform.ReviewCommented, "ok"); err != nil {
		t.Fatal(err)
	}
	_, err = review(commenter, platform.ReviewApproved, "")
	apiError(t, err, http.StatusNotFound)

	// A closed deploy request takes no more reviews.
	e.mustDo("close", 1)
	_, err = review(e.c, platform.ReviewCommented, "late")
	if apiErr := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, "cancelled") {
		t.Errorf("message %q does not name the state", apiErr.Message)
	}
}

func TestApprovalRules(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	_, err := e.c.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: e.org, Database: drDB, RequireApprovalForDeploy: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"}) // opened by the admin token
	e.srv.Advance(time.Second)
	approve := func(c *platform.Client) error {
		_, err := c.DeployRequests.Review(t.Context(), &platform.ReviewParams{Organization: e.org, Database: drDB, Number: 1, State: platform.ReviewApproved})
		return err
	}

	// Deploying needs an approval.
	apiErr := apiError(t, e.do("deploy", 1), http.StatusUnprocessableEntity)
	if !strings.Contains(apiErr.Message, "approv") {
		t.Errorf("message %q does not say an approval is missing", apiErr.Message)
	}
	// Rule 1: the token that opened it cannot approve it; it may comment.
	apiError(t, approve(e.c), http.StatusForbidden)
	if _, err := e.c.DeployRequests.Review(t.Context(), &platform.ReviewParams{Organization: e.org, Database: drDB, Number: 1, State: platform.ReviewCommented, Body: "please approve"}); err != nil {
		t.Fatal(err)
	}
	if dr := e.get(1); dr.Approved || dr.Deployment.State != platform.DeploymentReady {
		t.Fatalf("after refused approval: approved %t, state %s", dr.Approved, dr.Deployment.State)
	}
	apiError(t, e.do("deploy", 1), http.StatusUnprocessableEntity)

	// Rule 2 concerns users: a user cannot approve a request opened by a
	// service token they created (users act through OAuth; see
	// TestOAuthApprovalRules). Another service token, even one the same
	// user created, is another actor and may approve.
	sibling := e.token("", "approve_deploy_request")
	if err := approve(sibling); err != nil {
		t.Fatalf("another token of the same user approving: %v", err)
	}
	if dr := e.get(1); !dr.Approved {
		t.Error("approved = false after an approval by another token")
	}
	e.mustDo("deploy", 1)
	if st := e.state(1); st != platform.DeploymentQueued {
		t.Errorf("state after approved deploy = %s, want queued", st)
	}
}

func TestApprovalGivenBeforeApprovalWasRequired(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	// Without required approval the creator may approve its own request...
	if _, err := e.c.DeployRequests.Review(t.Context(), &platform.ReviewParams{Organization: e.org, Database: drDB, Number: 1, State: platform.ReviewApproved}); err != nil {
		t.Fatal(err)
	}
	// ...but once the database requires approval, that review does not count.
	if _, err := e.c.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: e.org, Database: drDB, RequireApprovalForDeploy: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if e.get(1).Approved {
		t.Error("approved = true with only the creator's own approval")
	}
	apiError(t, e.do("deploy", 1), http.StatusUnprocessableEntity)
	// An approval by another user's token does.
	other := e.srv.CreateUser("Bo Builder", "bo@example.com")
	if err := e.srv.AddMember(e.org, other, platform.RoleMember); err != nil {
		t.Fatal(err)
	}
	if _, err := e.token(other, "approve_deploy_request").DeployRequests.Review(t.Context(), &platform.ReviewParams{Organization: e.org, Database: drDB, Number: 1, State: platform.ReviewApproved}); err != nil {
		t.Fatal(err)
	}
	e.mustDo("deploy", 1)
}

func TestDeployRequestActors(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	bo := e.srv.CreateUser("Bo Builder", "bo@example.com")
	if err := e.srv.AddMember(e.org, bo, platform.RoleMember); err != nil {
		t.Fatal(err)
	}
	boClient := e.token(bo, "create_deploy_request", "read_deploy_request")
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 1)
	e.srv.Advance(12 * time.Second)
	p := e.params(1)
	if _, err := boClient.DeployRequests.ApplyDeploy(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Second)
	if _, err := boClient.DeployRequests.Revert(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	dr := e.get(1)
	admin := e.srv.AdminUserID()
	got := map[string]string{"actor": dr.Deployment.Actor.ID, "cutover_actor": dr.Deployment.CutoverActor.ID, "closed_by": dr.ClosedBy.ID, "creator": dr.Actor.ID}
	want := map[string]string{"actor": admin, "cutover_actor": bo, "closed_by": bo, "creator": admin}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actors (-want +got):\n%s", diff)
	}
	if dr.Deployment.State != platform.DeploymentCompleteRevert {
		t.Errorf("state = %s, want complete_revert", dr.Deployment.State)
	}
}

func TestAutoDeleteBranch(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.branch("keep", "CREATE TABLE k (id int PRIMARY KEY)")
	e.open(platform.CreateDeployRequestParams{Branch: "dev", AutoCutover: platform.Ptr(true)})
	e.open(platform.CreateDeployRequestParams{Branch: "keep", AutoCutover: platform.Ptr(true), AutoDeleteBranch: platform.Ptr(true)})
	e.srv.Advance(time.Second)
	// Turned on for #1, off for #2.
	if _, err := e.c.DeployRequests.UpdateAutoDeleteBranch(t.Context(), &platform.UpdateAutoDeleteBranchParams{Organization: e.org, Database: drDB, Number: 1, Enable: true}); err != nil {
		t.Fatal(err)
	}
	dr, err := e.c.DeployRequests.UpdateAutoDeleteBranch(t.Context(), &platform.UpdateAutoDeleteBranchParams{Organization: e.org, Database: drDB, Number: 2, Enable: false})
	if err != nil {
		t.Fatal(err)
	}
	if dr.Deployment.AutoDeleteBranch {
		t.Error("auto_delete_branch still true after turning it off")
	}
	for n := 1; n <= 2; n++ {
		e.mustDo("deploy", n)
		e.srv.Advance(13 * time.Second)
		if st := e.state(n); st != platform.DeploymentCompletePendingRevert {
			t.Fatalf("#%d: state %s, want complete_pending_revert", n, st)
		}
		// The branch stays through the revert window.
		if e.get(n).BranchDeleted {
			t.Fatalf("#%d: branch deleted before the deployment completed", n)
		}
		e.mustDo("skip-revert", n)
	}
	dev := e.get(1)
	if !dev.BranchDeleted || dev.BranchDeletedAt == nil {
		t.Errorf("#1: branch_deleted %t, branch_deleted_at %v; want true and a time", dev.BranchDeleted, dev.BranchDeletedAt)
	}
	_, err = e.c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: e.org, Database: drDB, Branch: "dev"})
	apiError(t, err, http.StatusNotFound)
	if keep := e.get(2); keep.BranchDeleted {
		t.Error("#2: branch deleted with auto_delete_branch off")
	}
}

// TestAutoDeleteBranchOnlyWhenDeployed checks that auto_delete_branch
// deletes the head branch only when the deployment succeeded: it leaves
// its revert window, or an instant deployment applied its schema. Completing
// a failed deployment (complete-deploy) keeps the branch, as does a
// deletion protection that a delete request would be refused for.
func TestAutoDeleteBranchOnlyWhenDeployed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		steps     []drStep
		protected bool
		deleted   bool
	}{
		{"skip-revert", then(toPendingRevert, act("skip-revert")), false, true},
		{"end of the revert window", then(toPendingRevert, adv(30*time.Minute)), false, true},
		{"instant deployment", then(toReady, act("deploy-instant"), adv(12*time.Second)), false, true},
		{"complete-deploy of complete_error", then(toInProgress, failNext, adv(10*time.Second), act("complete-deploy")), false, false},
		{"complete-deploy of complete_revert_error", then(toRevert, failNext, adv(5*time.Second), act("complete-deploy")), false, false},
		{"deletion protected", then(toPendingRevert, act("skip-revert")), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, false)
			e.branch("dev", drChange...)
			if tc.protected {
				if _, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: drDB, Branch: "dev", DeletionProtected: platform.Ptr(true)}); err != nil {
					t.Fatal(err)
				}
			}
			e.takeSteps(e.open(platform.CreateDeployRequestParams{Branch: "dev", AutoDeleteBranch: platform.Ptr(true)}), tc.steps)
			dr := e.get(1)
			if dr.DeploymentState != platform.DeploymentComplete {
				t.Fatalf("deployment %s, want complete", dr.DeploymentState)
			}
			_, err := e.c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: e.org, Database: drDB, Branch: "dev"})
			got := map[string]bool{"branch_deleted": dr.BranchDeleted, "branch gone": err != nil}
			want := map[string]bool{"branch_deleted": tc.deleted, "branch gone": tc.deleted}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("head branch after the deployment (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProductionBranchWithOpenDeployRequests(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.productionBranch("staging")
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev", IntoBranch: "staging"})
	del := func() error {
		return e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "staging"})
	}
	if apiErr := apiError(t, del(), http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, "open deploy request") {
		t.Errorf("message %q does not name the open deploy requests", apiErr.Message)
	}
	e.mustDo("close", 1)
	if err := del(); err != nil {
		t.Fatalf("deleting after the deploy request closed: %v", err)
	}
}

// TestIntoBranchKeptWhileDeployRequestsOpen checks that a production
// branch that open deploy requests go into can neither be demoted, nor
// have safe migrations turned off, nor be deleted, in any state of their
// deployments: each is a 422 naming the deploy requests, and changes
// nothing. Once they close, it can.
func TestIntoBranchKeptWhileDeployRequestsOpen(t *testing.T) {
	t.Parallel()
	refusals := []struct {
		name string
		do   func(ctx context.Context, c *platform.Client, org string) error
	}{
		{"demote", func(ctx context.Context, c *platform.Client, org string) error {
			_, err := c.Branches.Demote(ctx, &platform.DemoteBranchParams{Organization: org, Database: drDB, Branch: "staging"})
			return err
		}},
		{"disable safe migrations", func(ctx context.Context, c *platform.Client, org string) error {
			_, err := c.Branches.DisableSafeMigrations(ctx, &platform.DisableSafeMigrationsParams{Organization: org, Database: drDB, Branch: "staging"})
			return err
		}},
		{"update safe migrations to false", func(ctx context.Context, c *platform.Client, org string) error {
			_, err := c.Branches.UpdateSafeMigrations(ctx, &platform.UpdateSafeMigrationsParams{Organization: org, Database: drDB, Branch: "staging", SafeMigrations: false})
			return err
		}},
		{"delete", func(ctx context.Context, c *platform.Client, org string) error {
			return c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: org, Database: drDB, Branch: "staging"})
		}},
	}
	for _, tc := range []struct {
		name  string
		steps []drStep
	}{
		{"pending", nil},
		{"ready", toReady},
		{"in_progress", toInProgress},
		{"pending_cutover", toPendingCutover},
		{"complete_pending_revert", toPendingRevert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, false)
			e.productionBranch("staging")
			e.branch("dev", drChange...)
			e.branch("other", "CREATE TABLE `invoices` (id bigint NOT NULL, PRIMARY KEY (id))")
			e.open(platform.CreateDeployRequestParams{Branch: "other", IntoBranch: "staging"})
			e.takeSteps(e.open(platform.CreateDeployRequestParams{Branch: "dev", IntoBranch: "staging"}), tc.steps)
			before := opWorldState(t, e.srv)
			for _, r := range refusals {
				err := r.do(t.Context(), e.c, e.org)
				if err == nil {
					t.Errorf("%s: accepted", r.name)
					continue
				}
				if apiErr := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, "staging") || !strings.Contains(apiErr.Message, "#1, #2") {
					t.Errorf("%s: message %q does not name the branch and its open deploy requests #1, #2", r.name, apiErr.Message)
				}
			}
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("refusals changed the world:\n%s", diff)
			}
		})
	}
	t.Run("once they close", func(t *testing.T) {
		t.Parallel()
		e := newDREnv(t, false)
		e.productionBranch("staging")
		e.branch("dev", drChange...)
		e.open(platform.CreateDeployRequestParams{Branch: "dev", IntoBranch: "staging"})
		e.mustDo("close", 1)
		for _, r := range refusals {
			if err := r.do(t.Context(), e.c, e.org); err != nil {
				t.Errorf("%s after the deploy request closed: %v", r.name, err)
			}
		}
	})
}

// TestHeadBranchDeleted checks deploy requests whose head branch is
// deleted: a check still pending ends in error naming the branch, a ready
// one is no longer deployable and deploying it is a 422 naming the branch
// that changes nothing; a deployment already under way goes on, from the
// changes it took. branch_deleted comes with branch_deleted_at and
// branch_deleted_by: who deleted it, or the deployer whose
// auto_delete_branch did.
func TestHeadBranchDeleted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		steps []drStep // on deploy request #1, from dev, before dev is deleted
		// autoDelete deletes dev by deploying #2 (dev into staging, with
		// auto_delete_branch) as bo, instead of deleting it as the admin.
		autoDelete bool
		after      []drStep // on #1, after dev is deleted
		want       platform.DeploymentState
		deployable bool
		checkError string // in deploy_check_errors
	}{
		{name: "pending check", want: platform.DeploymentError, after: []drStep{adv(time.Second)}, checkError: "branch dev was deleted"},
		{name: "ready", steps: toReady, want: platform.DeploymentReady},
		{name: "ready, deleted by another deploy request's auto_delete_branch", steps: toReady, autoDelete: true, want: platform.DeploymentReady},
		{name: "queued", steps: toQueued, after: []drStep{adv(12 * time.Second)}, want: platform.DeploymentPendingCutover},
		{name: "in_progress", steps: toInProgress, after: []drStep{adv(10 * time.Second), act("apply-deploy"), adv(time.Second)}, want: platform.DeploymentCompletePendingRevert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, false)
			ctx := t.Context()
			bo := e.srv.CreateUser("Bo Builder", "bo@example.com")
			if err := e.srv.AddMember(e.org, bo, platform.RoleMember); err != nil {
				t.Fatal(err)
			}
			e.productionBranch("staging")
			e.branch("dev", drChange...)
			e.takeSteps(e.open(platform.CreateDeployRequestParams{Branch: "dev"}), tc.steps)
			deleter := e.srv.AdminUserID()
			if tc.autoDelete {
				deleter = bo
				boClient := e.token(bo, "create_deploy_request", "read_deploy_request")
				e.open(platform.CreateDeployRequestParams{Branch: "dev", IntoBranch: "staging", AutoCutover: platform.Ptr(true), AutoDeleteBranch: platform.Ptr(true)})
				e.srv.Advance(time.Second)
				if _, err := boClient.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: e.org, Database: drDB, Number: 2}); err != nil {
					t.Fatal(err)
				}
				e.srv.Advance(13 * time.Second)
				e.mustDo("skip-revert", 2)
			} else if err := e.c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}); err != nil {
				t.Fatal(err)
			}
			deletedAt := e.srv.Now()
			e.takeSteps(e.get(1), tc.after)
			dr := e.get(1)
			var checkErrors string
			if dr.Deployment.DeployCheckErrors != nil {
				checkErrors = *dr.Deployment.DeployCheckErrors
			}
			type view struct {
				State         platform.DeploymentState
				Deployable    bool
				BranchDeleted bool
				DeletedAt     *platform.Timestamp
				DeletedBy     string
				CheckError    bool
			}
			got := view{dr.DeploymentState, dr.Deployment.Deployable, dr.BranchDeleted, dr.BranchDeletedAt, "", strings.Contains(checkErrors, tc.checkError)}
			if dr.BranchDeletedBy != nil {
				got.DeletedBy = dr.BranchDeletedBy.ID
			}
			at := platform.NewTimestamp(deletedAt)
			want := view{tc.want, tc.deployable, true, &at, deleter, true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("deploy request #1 after dev was deleted (-want +got):\n%s", diff)
			}
			if tc.checkError != "" && got.State == platform.DeploymentError {
				if evs := e.drEvents(); evs[len(evs)-1] != "errored" {
					t.Errorf("events %v, want the last deploy_request.errored", evs)
				}
			}
			if tc.want == platform.DeploymentCompletePendingRevert && !strings.Contains(strings.Join(e.schema("main"), "\n"), "orders:") {
				t.Errorf("main after the deployment lacks dev's orders:\n%s", strings.Join(e.schema("main"), "\n"))
			}
			if tc.want != platform.DeploymentReady && tc.want != platform.DeploymentError {
				return
			}
			before := opWorldState(t, e.srv)
			if apiErr := apiError(t, e.do("deploy", 1), http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, "branch dev was deleted") {
				t.Errorf("deploy: message %q does not say branch dev was deleted", apiErr.Message)
			}
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("the refused deploy changed the world:\n%s", diff)
			}
		})
	}
}

func TestDeployRequestsNeedPermission(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	reader := e.token("", "read_deploy_request")
	ctx := t.Context()
	p := e.params(1)
	writes := map[string]func() error{
		"create": func() error {
			_, err := reader.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: e.org, Database: drDB, Branch: "dev", IntoBranch: "main"})
			return err
		},
		"review": func() error {
			_, err := reader.DeployRequests.Review(ctx, &platform.ReviewParams{Organization: e.org, Database: drDB, Number: 1, State: platform.ReviewApproved})
			return err
		},
	}
	for _, a := range drActions {
		writes[a.name] = func() error { return a.do(ctx, reader, p) }
	}
	before, events := e.get(1), e.srv.EventNames()
	for name, write := range writes {
		if err := write(); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("%s without permission: %v, want 404", name, err)
		}
	}
	if diff := cmp.Diff(before, e.get(1)); diff != "" {
		t.Errorf("deploy request changed (-before +after):\n%s", diff)
	}
	if got := e.srv.EventNames(); !slices.Equal(got, events) {
		t.Errorf("events %v after refused writes, want %v", got, events)
	}
	if page, err := e.c.DeployRequests.List(ctx, &platform.ListDeployRequestsParams{Organization: e.org, Database: drDB}); err != nil || len(page.Items) != 1 {
		t.Errorf("deploy requests after refused create: %v, %v", page, err)
	}
	// The reader reads.
	if _, err := reader.DeployRequests.GetDeployment(ctx, &p); err != nil {
		t.Errorf("reading with read_deploy_request: %v", err)
	}
}

func TestDeployRequestNotFound(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	for _, n := range []int{1, 99} {
		p := e.params(n)
		if _, err := e.c.DeployRequests.Get(t.Context(), &p); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("#%d: %v, want 404", n, err)
		}
		if err := e.do("deploy", n); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("deploy #%d: %v, want 404", n, err)
		}
	}
}

func TestDeployRequestBodiesChecked(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	// Bodies the SDK cannot send, sent by hand.
	for _, tc := range []struct {
		method, suffix string
		body           any
		want           string
	}{
		{"PATCH", "", map[string]string{"state": "open"}, "state"},
		{"PATCH", "", map[string]string{}, "state"},
		{"PUT", "/auto-apply", map[string]string{}, "enable"},
		{"PUT", "/auto-delete-branch", map[string]string{}, "enable"},
	} {
		req, err := e.c.NewRequest(t.Context(), tc.method, "v1/organizations/acme/databases/app/deploy-requests/1"+tc.suffix, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.c.Do(req, nil)
		if apiErr := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, tc.want) {
			t.Errorf("%s %s %v: message %q does not name %s", tc.method, tc.suffix, tc.body, apiErr.Message, tc.want)
		}
	}
	if st := e.state(1); st != platform.DeploymentReady {
		t.Errorf("state %s after refused bodies, want ready", st)
	}
}

// TestCreateDeployRequestIntoDefaultBranch opens a deploy request without
// into_branch, as the service's own command-line tool does: it goes into
// the database's default branch.
func TestCreateDeployRequestIntoDefaultBranch(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	w := send(t, e.srv, http.MethodPost, "/v1/organizations/"+e.org+"/databases/"+drDB+"/deploy-requests", admin(e.srv), `{"branch":"dev"}`)
	wantStatus(t, w, http.StatusCreated)
	if dr := decode[platform.DeployRequest](t, w); dr.IntoBranch != "main" || dr.Branch != "dev" {
		t.Errorf("deploy request from %s into %s, want from dev into main", dr.Branch, dr.IntoBranch)
	}
}

// TestDeployBringsANewKeyspace: deploying a table of a keyspace only the
// head branch has creates the keyspace on the branch deployed into, with
// the head's shards, ready; a revert takes the table back out and leaves
// the keyspace.
func TestDeployBringsANewKeyspace(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	ctx := t.Context()
	e.branch("dev")
	if err := e.srv.AddKeyspace(e.org, drDB, "dev", "metrics", 2); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PushSchema(e.org, drDB, "dev", "CREATE TABLE metrics.points (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	e.open(platform.CreateDeployRequestParams{Branch: "dev", AutoCutover: platform.Ptr(true)})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 1)
	e.srv.Advance(time.Minute) // the sharded keyspace adds a VSchema step
	if st := e.state(1); st != platform.DeploymentCompletePendingRevert {
		t.Fatalf("state %s, want complete_pending_revert", st)
	}
	ks, err := e.c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "metrics"})
	if err != nil {
		t.Fatalf("the deployed keyspace on main: %v", err)
	}
	dev, err := e.c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: e.org, Database: drDB, Branch: "dev", Keyspace: "metrics"})
	if err != nil {
		t.Fatal(err)
	}
	if ks.Shards != 2 || !ks.Sharded || !ks.Ready || ks.ClusterName != dev.ClusterName || ks.ExtraReplicas != dev.ExtraReplicas {
		t.Errorf("main's metrics: %d shards, sharded %t, ready %t, size %s, %d extra replicas; want dev's: 2, true, true, %s, %d",
			ks.Shards, ks.Sharded, ks.Ready, ks.ClusterName, ks.ExtraReplicas, dev.ClusterName, dev.ExtraReplicas)
	}
	if got := e.schema("main"); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "points: ") }) {
		t.Errorf("main's schema %v lacks points", got)
	}
	e.mustDo("revert", 1)
	e.srv.Advance(time.Minute)
	if got := e.schema("main"); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "points: ") }) {
		t.Errorf("main's schema after the revert %v still has points", got)
	}
	if _, err := e.c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "metrics"}); err != nil {
		t.Errorf("the keyspace after the revert: %v, want it kept", err)
	}
}
