package fake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This file holds the operation table's machinery, for the tests that run
// every operation of operations.tsv under some credentials (the service
// token permission table of permtable_test.go, the OAuth scope table of
// scopes_test.go, the credential table of auth_test.go): a world every
// operation can act in, a fixture per operation that sets up what it needs
// and builds a request that succeeds, and a snapshot of the world to check
// that a refused request changed nothing.

// opWorld is a fake set up for one request of the operation table: acme
// with the admin and the member Bob; the database app, whose production
// branch main (safe migrations on) holds drBase and whose ready development
// branch dev holds drChange, so that a deploy request from dev into main
// has changes; and a second ready database, other.
type opWorld struct {
	*drEnv
	bob string
}

// newOpWorld returns a fake holding the operation table's world, for t. The
// world is built through the API once per test binary and restored from its
// snapshot into a new fake for each caller: the same world, IDs and
// secrets included (Restore's guarantee, which snapshot_test.go checks),
// for the cost of a decode. With opts, it is built afresh on a fake with
// those options.
func newOpWorld(t *testing.T, opts ...fake.Option) *opWorld {
	t.Helper()
	if len(opts) > 0 {
		return buildOpWorld(t, opts...)
	}
	return opPlainTemplate(t).world(t)
}

// newOpWorldInProcess is newOpWorld's world, its client calling the
// server's handler in process (opInProcess): for the tests that run every
// operation on a world of their own and send it many requests.
func newOpWorldInProcess(t *testing.T) *opWorld {
	t.Helper()
	tp := opPlainTemplate(t)
	return tp.restore(t, fake.NewServer(t, tp.opts...))
}

// opPlain is the template of newOpWorld's world, made by the first test that
// asks for it.
var opPlain struct {
	sync.Mutex
	tp *opTemplate
}

// opPlainTemplate returns the template of newOpWorld's world.
func opPlainTemplate(t *testing.T) *opTemplate {
	t.Helper()
	opPlain.Lock()
	defer opPlain.Unlock()
	if opPlain.tp == nil {
		opPlain.tp = opTemplateOf(t, buildOpWorld(t, opReceiverTimeout), opReceiverTimeout)
	}
	return opPlain.tp
}

// opReceiverTimeout gives the webhook receivers of the operation table's
// worlds, all in this process, far longer than the 2 s the API allows to
// answer: on a loaded machine a test's receiver may take longer, and a
// delivery timing out on one server of a pair and not on the other would
// fail a comparison of the two for a reason the test does not check.
var opReceiverTimeout = fake.WithWebhookTimeout(time.Minute)

// buildOpWorld builds the operation table's world through the API on a new
// fake with opts.
func buildOpWorld(t *testing.T, opts ...fake.Option) *opWorld {
	t.Helper()
	e := newDREnv(t, false, opts...)
	e.branch("dev", drChange...)
	mustDB(t, e.srv, "other")
	e.srv.Advance(5 * time.Second)
	return &opWorld{drEnv: e, bob: mustMember(t, e.srv, e.org, "Bob Builder", platform.RoleMember)}
}

// opTemplate is a world made once, as a snapshot, and restored wherever a
// test needs it: into a new fake started with the options the world was
// made with, or into a fake a test reuses for one request after another.
type opTemplate struct {
	snap *fake.Template
	bob  string
	opts []fake.Option
}

// opTemplateOf takes the snapshot of w, whose fake was started with opts,
// and decodes it once for the restores to come.
func opTemplateOf(t *testing.T, w *opWorld, opts ...fake.Option) *opTemplate {
	t.Helper()
	data, err := w.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fake.NewTemplate(data)
	if err != nil {
		t.Fatal(err)
	}
	return &opTemplate{snap: snap, bob: w.bob, opts: opts}
}

// world starts a fake for t and restores the template into it.
func (tp *opTemplate) world(t *testing.T) *opWorld {
	t.Helper()
	srv := fake.NewServer(t, tp.opts...)
	return tp.load(t, srv, srv.Client())
}

// restore replaces srv's state with the template's and returns the world,
// for t, whose client calls srv's handler in process (opClientInProcess):
// the operation tables' worlds, which make many requests. srv keeps its
// logs (requests, events, deliveries).
func (tp *opTemplate) restore(t *testing.T, srv *fake.Server) *opWorld {
	t.Helper()
	return tp.load(t, srv, opClientInProcess(t, srv, srv.AdminToken()))
}

// load replaces srv's state with the template's and returns the world, for
// t, with c its client. The world is the one Restore of the snapshot gives
// (TestRestoreTemplate), without decoding the JSON each time.
func (tp *opTemplate) load(t *testing.T, srv *fake.Server, c *platform.Client) *opWorld {
	t.Helper()
	if err := srv.RestoreTemplate(tp.snap); err != nil {
		t.Fatal(err)
	}
	return &opWorld{drEnv: &drEnv{t: t, srv: srv, c: c, org: srv.Org()}, bob: tp.bob}
}

// opCall is the request of an operation: the values of its path's
// placeholders ({organization} and {database} are acme and app unless
// given), its query ("" for none), its JSON body ("" for none), and the
// branch of app it acts on, which a grant on a branch must name (the
// path's {branch} unless given).
type opCall struct {
	vals   map[string]string
	query  string
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

// opRoles is a fixture of an operation on the role credentials of dev,
// app made a PostgreSQL database (roles are PostgreSQL's), with body.
func opRoles(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.postgresBranches()
		return opCall{vals: map[string]string{"branch": "dev"}, body: body}
	}
}

// opRole is a fixture of an operation on role credentials of dev (with a
// ttl, so that they can be renewed), app made a PostgreSQL database.
func opRole(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.postgresBranches()
		return opCall{vals: map[string]string{"branch": "dev", "id": w.role("dev")}, body: body}
	}
}

// opBouncer is a fixture of an operation on the ready bouncer pool of main,
// app made a PostgreSQL database; with resizing, pool has a resize request
// pending.
func opBouncer(body string, resizing bool) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.bouncer("pool")
		if resizing {
			if _, err := w.c.Bouncers.Resize(w.t.Context(), &platform.ResizeBouncerParams{
				Organization: w.org, Database: drDB, Branch: "main", Bouncer: "pool", BouncerSize: platform.Ptr("PGB_10"),
			}); err != nil {
				w.t.Fatal(err)
			}
		}
		return opCall{vals: map[string]string{"branch": "main", "bouncer": "pool"}, body: body, branch: "main"}
	}
}

// opSwitchover is a fixture of an operation on a switchover of main, in
// app made a PostgreSQL database; the switchover has succeeded. App also
// has a branch dev, which the scope table grants on to show that a grant
// on another branch does not reach main's switchovers.
func opSwitchover(w *opWorld, _ string) opCall {
	w.postgresApp()
	if _, err := w.c.Branches.Create(w.t.Context(), &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: "dev", ParentBranch: "main"}); err != nil {
		w.t.Fatal(err)
	}
	return opCall{vals: map[string]string{"branch": "main", "id": w.switchover()}}
}

// opVRep is a fixture of an operation of the VReplication families on
// main of app, with a keyspace shop (two shards) beside app. Up to stage
// it makes: "materialize", the Materialize workflow mz filling shop's
// buyers from app's users ("stopped": one that stops after its copy,
// copied); "lookup", mz copied
// and the lookup vindex buyers_by_customer of shop, copying
// ("copied": done; "externalized": then externalized).
func opVRep(stage string, vals map[string]string, query, body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		ctx := w.t.Context()
		if err := w.srv.AddKeyspace(w.org, drDB, "main", "shop", 2); err != nil {
			w.t.Fatal(err)
		}
		if stage != "" {
			if _, err := w.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
				Organization: w.org, Database: drDB, Branch: "main", Workflow: "mz", SourceKeyspace: "app", TargetKeyspace: "shop",
				StopAfterCopy: platform.Ptr(stage == "stopped"),
				TableSettings: []platform.MaterializeTableSettings{{TargetTable: "buyers", SourceExpression: "select id, id as customer_id from users",
					CreateDDL: "CREATE TABLE buyers (id bigint NOT NULL, customer_id bigint NOT NULL, PRIMARY KEY (id))"}},
			}); err != nil {
				w.t.Fatal(err)
			}
		}
		if stage == "stopped" { // stopped after its copy
			w.srv.Advance(fake.DefaultTimings().VReplicationCopy)
		}
		if stage == "lookup" || stage == "copied" || stage == "externalized" {
			w.srv.Advance(fake.DefaultTimings().VReplicationCopy)
			if _, err := w.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
				Organization: w.org, Database: drDB, Branch: "main", Name: "buyers_by_customer", TableKeyspace: "shop",
				TableOwner: "buyers", TableOwnerColumns: []string{"customer_id"}, Type: "consistent_lookup",
			}); err != nil {
				w.t.Fatal(err)
			}
		}
		if stage == "copied" || stage == "externalized" {
			w.srv.Advance(fake.DefaultTimings().VReplicationCopy)
		}
		if stage == "externalized" {
			if _, err := w.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: w.org, Database: drDB, Branch: "main", Name: "buyers_by_customer", TableKeyspace: "shop"}); err != nil {
				w.t.Fatal(err)
			}
		}
		v := map[string]string{"branch": "main"}
		maps.Copy(v, vals)
		return opCall{vals: v, query: query, body: body}
	}
}

// opReparent is a fixture of an operation on a planned reparent of app's
// main, which has completed after an earlier one failed.
func opReparent(w *opWorld, _ string) opCall {
	ctx := w.t.Context()
	failed, err := w.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: w.org, Database: drDB, Branch: "main", Keyspace: "app", Shard: "-", NewPrimary: w.replicaOf("main")})
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.srv.FailNext(failed.ID); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.c.Vitess.WaitPlannedReparent(ctx, &platform.GetPlannedReparentParams{Organization: w.org, Database: drDB, Branch: "main", ID: failed.ID}); err == nil {
		w.t.Fatal("a reparent set to fail completed")
	}
	op, err := w.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: w.org, Database: drDB, Branch: "main", Keyspace: "app", Shard: "-", NewPrimary: w.replicaOf("main")})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.c.Vitess.WaitPlannedReparent(ctx, &platform.GetPlannedReparentParams{Organization: w.org, Database: drDB, Branch: "main", ID: op.ID}); err != nil {
		w.t.Fatal(err)
	}
	return opCall{vals: map[string]string{"branch": "main", "id": op.ID}}
}

// opMoveTables is a fixture of an operation on the MoveTables workflow
// mtWorkflow of main of app, which moves every table of app to the
// keyspace archive with every option, at stage: "copying", "stopped"
// (while copying), "running", "reads" (switched), "all" (switched); ""
// for no workflow, only archive; with body.
func opMoveTables(stage, body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		ctx := w.t.Context()
		wfSetup(w.t, w.srv, "main")
		call := opCall{vals: map[string]string{"branch": "main", "workflow": mtWorkflow}, body: body}
		if stage == "" {
			return call
		}
		tm := fake.DefaultTimings()
		settle := func(ref *platform.VitessOperationRef, err error) {
			w.t.Helper()
			if err != nil {
				w.t.Fatal(err)
			}
			op, err := w.c.Vitess.WaitOperation(ctx, &platform.GetVitessOperationParams{Organization: w.org, Database: drDB, Branch: "main", ID: ref.ID})
			if err != nil {
				w.t.Fatal(err, op)
			}
		}
		settle(w.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{
			Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, SourceKeyspace: drDB, TargetKeyspace: "archive",
			AllTables: platform.Ptr(true), AtomicCopy: platform.Ptr(true), DeferSecondaryKeys: platform.Ptr(false), OnDDL: "exec",
			ShardedAutoIncrementHandling: "REPLACE", GlobalKeyspace: drDB, SourceTimeZone: "Europe/Paris", TenantID: "tenant-1",
			Cells: []string{"us-east"}, TabletTypes: []string{"replica", "rdonly"}, StopAfterCopy: platform.Ptr(stage == "stopped"),
		}))
		w.srv.Advance(tm.WorkflowStart + tm.WorkflowCopy/2)
		if stage == "copying" {
			return call
		}
		wf := &platform.StartVReplicationWorkflowParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: "archive"}
		if stage == "stopped" {
			if _, err := w.c.Vitess.StopWorkflow(ctx, wf); err != nil {
				w.t.Fatal(err)
			}
			return call
		}
		w.srv.Advance(tm.WorkflowCopy)
		sw := func(types ...string) {
			settle(w.c.Vitess.SwitchTraffic(ctx, &platform.SwitchTrafficParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "archive", TabletTypes: types}))
		}
		switch stage {
		case "reads":
			sw("replica", "rdonly")
		case "all":
			sw("replica", "rdonly")
			sw("primary")
		}
		return call
	}
}

// opMoveTablesQuery is opMoveTables at stage, naming the workflow's
// target keyspace in the query.
func opMoveTablesQuery(stage string) opFixture {
	return func(w *opWorld, need string) opCall {
		c := opMoveTables(stage, "")(w, need)
		c.query = "target_keyspace=archive"
		return c
	}
}

// opVtctldControl is a fixture of an operation on the routing rules or
// the throttler of main of app, where keyspace routing rules send archive
// (a second keyspace) to app, app's throttler denies online-ddl until an
// hour from now, and a replica of app lags 3 s; with body.
func opVtctldControl(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		ctx := w.t.Context()
		if err := w.srv.AddKeyspace(w.org, drDB, "main", "archive", 1); err != nil {
			w.t.Fatal(err)
		}
		if _, err := w.c.Vitess.ApplyKeyspaceRoutingRules(ctx, &platform.ApplyKeyspaceRoutingRulesParams{
			Organization: w.org, Database: drDB, Branch: "main", Rules: []platform.KeyspaceRoutingRule{{FromKeyspace: "archive", ToKeyspace: "app"}},
		}); err != nil {
			w.t.Fatal(err)
		}
		if _, err := w.c.Vitess.UpdateThrottlerConfig(ctx, &platform.UpdateThrottlerConfigParams{
			Organization: w.org, Database: drDB, Branch: "main", Keyspace: "app",
			Apps: []platform.ThrottledAppConfig{{Name: "online-ddl", ExpireAt: w.srv.Now().Add(time.Hour).Format(time.RFC3339)}},
		}); err != nil {
			w.t.Fatal(err)
		}
		if err := w.srv.SetThrottlerMetric(w.org, drDB, "main", w.tabletOf("main", platform.TabletReplica), "lag", 3); err != nil {
			w.t.Fatal(err)
		}
		return opCall{vals: map[string]string{"branch": "main"}, body: body}
	}
}

// tabletOf returns the alias of the first tablet of type typ of the
// shard "-" of keyspace app on a branch of app.
func (w *opWorld) tabletOf(branch string, typ platform.TabletType) string {
	gs, err := w.c.Vitess.ListTablets(w.t.Context(), &platform.ListTabletsParams{Organization: w.org, Database: drDB, Branch: branch, Keyspace: "app", TabletType: typ})
	if err != nil || len(gs) == 0 {
		w.t.Fatalf("%s tablets of %s: %v, %v", typ, branch, gs, err)
	}
	return gs[0].Tablets[0].Alias
}

// replicaOf returns the alias of a replica of the shard "-" of keyspace
// app on a branch of app.
func (w *opWorld) replicaOf(branch string) string {
	gs, err := w.c.Vitess.ListTablets(w.t.Context(), &platform.ListTabletsParams{Organization: w.org, Database: drDB, Branch: branch, Keyspace: "app", TabletType: platform.TabletReplica})
	if err != nil || len(gs) == 0 {
		w.t.Fatalf("replicas of %s: %v, %v", branch, gs, err)
	}
	return gs[0].Tablets[0].Alias
}

// opConnection is a fixture of an operation on the connections of app's
// main, which has a session running a query (and, when kill is
// "transaction", app is a PostgreSQL database whose session is in a
// transaction): kill names the ID the path's {id} takes (query,
// transaction or connection), or "process" for the process ID that body's
// %s takes.
func opConnection(kill, body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		ctx := w.t.Context()
		if kill == "transaction" {
			w.postgresApp()
		}
		if _, err := w.srv.OpenSession(w.org, drDB, "main", fake.SessionSpec{
			User: "app", Host: "192.0.2.7:50123", Query: "select sleep(60)", InTransaction: kill == "transaction",
		}); err != nil {
			w.t.Fatal(err)
		}
		list, err := w.c.Connections.List(ctx, &platform.ListConnectionsParams{Organization: w.org, Database: drDB, Branch: "main"})
		if err != nil {
			w.t.Fatal(err)
		}
		conn := list.Connections[0]
		call := opCall{vals: map[string]string{"branch": "main"}}
		switch kill {
		case "query":
			call.vals["id"] = *conn.QueryID
		case "transaction":
			call.vals["id"] = *conn.TransactionID
		case "connection":
			call.vals["id"] = *conn.ConnectionID
		case "process":
			call.body = fmt.Sprintf(body, strconv.Itoa(conn.PID))
		}
		return call
	}
}

// opMetrics is a fixture of a metrics operation on app's main, which has
// run some queries (opWorld.traffic), asked with query.
func opMetrics(query string) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.traffic()
		return opCall{vals: map[string]string{"branch": "main"}, query: query}
	}
}

// opQPReport is a fixture of an operation on a query-patterns report of
// app's main, pending or (completed) generated.
func opQPReport(completed bool) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.traffic()
		r, err := w.c.QueryPatternReports.Create(w.t.Context(), &platform.CreateQueryPatternsReportParams{Organization: w.org, Database: drDB, Branch: "main"})
		if err != nil {
			w.t.Fatal(err)
		}
		if completed {
			w.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
		}
		return opCall{vals: map[string]string{"branch": "main", "id": r.ID}}
	}
}

// opAuthExportBody asks for an export of the denied attempts of a year
// around the fake's start, on app's main.
const opAuthExportBody = `{"start_at": "2025-06-01T00:00:00Z", "end_at": "2027-06-01T00:00:00Z", "format": "jsonl",
	"filters": {"outcomes": ["deny"], "branches": ["app/main"]}}`

// opAuthExport is a fixture of an operation on an export of the
// organization's authentication attempts (one allowed, one denied),
// pending or (ready) generated.
func opAuthExport(ready bool) opFixture {
	return func(w *opWorld, _ string) opCall {
		if _, err := w.srv.RecordAuthAttempts(w.org,
			fake.AuthAttempt{Username: "postgres", SourceAddress: "203.0.113.7", Database: drDB, Branch: "main"},
			fake.AuthAttempt{Username: "nobody", SourceAddress: "203.0.113.8", Database: drDB, Branch: "main"},
		); err != nil {
			w.t.Fatal(err)
		}
		p := new(platform.CreateAuthAttemptExportParams)
		if err := json.Unmarshal([]byte(opAuthExportBody), p); err != nil {
			w.t.Fatal(err)
		}
		p.Organization = w.org
		x, err := w.c.AuthAttemptExports.Create(w.t.Context(), p)
		if err != nil {
			w.t.Fatal(err)
		}
		if ready {
			w.srv.Advance(fake.DefaultTimings().AuthAttemptExportStart + fake.DefaultTimings().AuthAttemptExport)
		}
		return opCall{vals: map[string]string{"export": x.ID}}
	}
}

// opMaintenance is a fixture of an operation on app's maintenance
// schedule, app made a PostgreSQL database whose main has had a
// maintenance window.
func opMaintenance(w *opWorld, _ string) opCall {
	w.postgresApp()
	w.maintenance()
	return opCall{vals: map[string]string{"id": w.maintenanceSchedule()}, branch: "main"}
}

// opPasswordTarget is the branch and the role of the password a
// password operation acts on for need: on main when need is about
// production branches, else on dev; a reader when need is about read-only
// passwords, else an admin.
func opPasswordTarget(need string) (branch string, role platform.PasswordRole) {
	branch, role = "dev", platform.PasswordAdmin
	if strings.Contains(need, "production") {
		branch = "main"
	}
	if strings.Contains(need, "read_only") {
		role = platform.PasswordReader
	}
	return branch, role
}

// opPassword is a fixture of an operation on a password (with a ttl, so
// that it can be renewed) of the branch and role need asks for.
func opPassword(body string) opFixture {
	return func(w *opWorld, need string) opCall {
		branch, role := opPasswordTarget(need)
		return opCall{vals: map[string]string{"branch": branch, "id": w.password(branch, role)}, body: body}
	}
}

// opIPRestriction is a fixture of an operation on an IP restriction entry
// of app, made a PostgreSQL database (whose one branch, main, an OAuth
// grant on a branch names).
func opIPRestriction(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.postgresApp()
		r, err := w.c.IPRestrictions.Create(w.t.Context(), &platform.CreateIPRestrictionParams{
			Organization: w.org, Database: drDB, CIDRs: []string{"192.0.2.0/24"},
		})
		if err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(time.Second)
		return opCall{vals: map[string]string{"id": r.ID}, body: body, branch: "main"}
	}
}

// opPolicy is a fixture of an operation on a backup policy of app that is
// not the required one.
func opPolicy(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"id": w.policy()}, body: body}
	}
}

// opFixtures are the fixtures of the API's operations, by name: every row
// of operations.tsv but the OAuth server's two (opOAuthServer), as
// TestOpFixturesCoverOperations checks.
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
	"list_read_only_regions": func(w *opWorld, _ string) opCall {
		w.readOnlyRegion("eu-west")
		return opCall{}
	},

	// cluster sizes
	"list_cluster_size_skus":        opBody(""),
	"list_branch_cluster_size_skus": opOn("dev"),

	// branch changes
	"list_parameters":           opOn("dev"),
	"list_extensions":           opOn("dev"),
	"get_branch_infrastructure": opOn("main"),

	// branch resizes and changes
	"list_branch_resize_requests":  opOn("dev"),
	"update_branch_resize_request": opOnBody("dev", `{"vtgate_size":"VTG_10"}`),
	"get_branch_resize_request": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "resize": w.resize("dev")}}
	},
	"list_branch_change_requests":  opOn("dev"),
	"update_branch_change_request": opOnBody("dev", `{"cluster_size":"PS_20"}`),
	"get_branch_change_request": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "id": w.change("dev")}}
	},
	"cancel_branch_change_request": func(w *opWorld, _ string) opCall {
		w.change("dev")
		return opCall{vals: map[string]string{"branch": "dev"}}
	},
	"cancel_branch_changes": func(w *opWorld, _ string) opCall {
		w.change("dev")
		return opCall{vals: map[string]string{"branch": "dev"}}
	},
	"update_branch_cluster_config": opOnBody("dev", `{"cluster_size":"PS_20"}`),

	// data imports (the database app made again by an import; see opImport)
	"test_data_import_source": func(w *opWorld, _ string) opCall {
		w.importSource()
		return opCall{body: opImportBody("legacy")}
	},
	"start_data_import": func(w *opWorld, _ string) opCall {
		w.importSource()
		return opCall{body: opImportBody("fresh")}
	},
	"get_data_import":             opImport(0),
	"cancel_data_import":          opImport(0),
	"make_data_import_primary":    opImport(time.Minute + 10*time.Second),
	"make_data_import_replica":    opImport(time.Minute+10*time.Second, (*platform.DataImportsService).MakePrimary),
	"detach_data_import_database": opImport(time.Minute+10*time.Second, (*platform.DataImportsService).MakePrimary),
	"create_import_notification":  opBody(`{"migration_id":"m1","event":"progress","branch_name":"main","export_bytes":1024,"matched":true}`),

	// billing (January's invoice of acme; a card on file)
	"list_invoices":          opInvoice,
	"get_invoice":            opInvoice,
	"get_invoice_line_items": opInvoice,
	"get_organization_billing_payment_method": func(w *opWorld, _ string) opCall {
		w.paymentMethod()
		return opCall{}
	},
	"delete_organization_billing_payment_method": func(w *opWorld, _ string) opCall {
		w.paymentMethod()
		return opCall{}
	},

	// bouncers (on main of app, made a PostgreSQL database)
	"list_bouncers": opBouncer("", false),
	"create_bouncer": func(w *opWorld, _ string) opCall {
		w.postgresBranches()
		return opCall{vals: map[string]string{"branch": "main"}, branch: "main", body: `{"name":"fresh","bouncer_size":"PGB_10","replicas_per_cell":2}`}
	},
	"get_bouncer":                         opBouncer("", false),
	"delete_bouncer":                      opBouncer("", false),
	"list_bouncer_resize_requests":        opBouncer("", true),
	"update_bouncer_resize_request":       opBouncer(`{"bouncer_size":"PGB_20","parameters":{"pgbouncer":{"default_pool_size":"50"}}}`, false),
	"cancel_bouncer_resize_request":       opBouncer("", true),
	"list_branch_bouncer_resize_requests": opBouncer("", true),

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
	"update_keyspace_read_only_regions": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "main", "keyspace": "app"}, body: `{"read_only_regions":[{"region":"eu-west","replicas":1}]}`}
	},
	"list_keyspace_resize_requests": func(w *opWorld, _ string) opCall {
		w.keyspaceResize("dev")
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}}
	},
	"update_keyspace_resize_request": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}, body: `{"cluster_size":"PS_20","extra_replicas":1}`}
	},
	"get_keyspace_resize_request": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app", "id": w.keyspaceResize("dev")}}
	},
	"cancel_keyspace_resize_request": func(w *opWorld, _ string) opCall {
		w.keyspaceResize("dev")
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}}
	},
	"get_keyspace_rollout_status": func(w *opWorld, _ string) opCall {
		w.keyspaceResize("dev")
		w.srv.Advance(fake.DefaultTimings().KeyspaceResizeQueued)
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}}
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
	"skip_revert_period":           opDR("", toPendingRevert...),
	"check_deploy_request_storage": opDR("", toReady...),

	// schema recommendations: app's main has a table without a primary key
	"list_schema_recommendations":   opRecommendation(""),
	"get_schema_recommendation":     opRecommendation(""),
	"dismiss_schema_recommendation": opRecommendation(`{"reason":"a log table"}`),

	// throttlers
	"get_database_throttler":          opBody(""),
	"update_database_throttler":       opBody(`{"ratio":40}`),
	"get_deploy_request_throttler":    opDR("", toReady...),
	"update_deploy_request_throttler": opDR(`{"configurations":[{"keyspace_name":"app","ratio":20}]}`),

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
	"list_roles":         opRoles(""),
	"create_role":        opRoles(`{}`),
	"get_default_role":   opRoles(""),
	"reset_default_role": opRoles(""),
	"get_role":           opRole(""),
	"update_role":        opRole(`{"name":"renamed"}`),
	"delete_role":        opRole(""),
	"renew_role":         opRole(""),
	"reset_role":         opRole(""),
	"reassign_role_objects": func(w *opWorld, _ string) opCall {
		w.postgresBranches()
		from, to := w.role("dev"), w.role("dev")
		if err := w.srv.AddRoleObjects(w.org, drDB, "dev", from, "archive"); err != nil {
			w.t.Fatal(err)
		}
		return opCall{vals: map[string]string{"branch": "dev", "id": from}, body: `{"successor":"` + to + `"}`}
	},

	// connections and the process list
	"list_branch_connections": opConnection("", ""),
	"kill_branch_query":       opConnection("query", ""),
	"kill_branch_transaction": opConnection("transaction", ""),
	"kill_branch_connection":  opConnection("connection", ""),
	"list_processlist":        opConnection("", ""),
	"kill_process":            opConnection("process", `{"kind":"query","id":%s}`),

	// switchovers
	"list_switchovers": opSwitchover,
	"create_switchover": func(w *opWorld, _ string) opCall {
		w.postgresApp()
		return opCall{vals: map[string]string{"branch": "main"}, body: `{}`}
	},
	"get_switchover": opSwitchover,
	// vitess: main of app (MySQL, production: its keyspace app has one
	// shard "-" and two replicas)
	"list_tablets":          opOn("main"),
	"vtctld_list_keyspaces": opOn("main"),
	"vtctld_get_shard": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "main"}, query: "keyspace=app&shard=-"}
	},
	"vtctld_set_shard_tablet_control": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "main"}, body: `{"keyspace":"app","shard":"-","tablet_type":"rdonly","denied_tables":["t"],"cells":["us-east"],"disable_query_service":true}`}
	},
	"vtctld_refresh_state_by_shard": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "main"}, body: `{"keyspace":"app","shard":"-"}`}
	},
	"create_planned_reparent": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "main"}, body: `{"keyspace":"app","shard":"-","new_primary":"` + w.replicaOf("main") + `"}`}
	},
	"vtctld_get_operation": opReparent,
	// VReplication workflows and MoveTables: users moving from app to the
	// keyspace archive of main, with every option
	"vtctld_list_workflows": func(w *opWorld, need string) opCall {
		c := opMoveTables("stopped", "")(w, need)
		c.query = "keyspace=archive&include_logs=true"
		return c
	},
	"vtctld_start_workflow":       opMoveTables("stopped", `{"keyspace":"archive"}`),
	"vtctld_stop_workflow":        opMoveTables("running", `{"keyspace":"archive"}`),
	"move_tables_create":          opMoveTables("", `{"workflow":"`+mtWorkflow+`","source_keyspace":"app","target_keyspace":"archive","tables":["users"],"auto_start":true,"stop_after_copy":false,"defer_secondary_keys":true,"on_ddl":"STOP","cells":["us-east"],"tablet_types":["replica","primary"],"source_time_zone":"UTC","tenant_id":"t1"}`),
	"move_tables_show":            opMoveTablesQuery("running"),
	"move_tables_status":          opMoveTablesQuery("copying"),
	"move_tables_switch_traffic":  opMoveTables("running", `{"target_keyspace":"archive","tablet_types":["replica","rdonly"],"max_replication_lag_allowed":30,"dry_run":false,"initialize_target_sequences":false}`),
	"move_tables_reverse_traffic": opMoveTables("reads", `{"target_keyspace":"archive","tablet_types":["rdonly","replica"],"max_replication_lag_allowed":30,"dry_run":false}`),
	"move_tables_cancel":          opMoveTables("running", `{"target_keyspace":"archive","keep_data":false,"keep_routing_rules":false}`),
	"move_tables_complete":        opMoveTables("all", `{"target_keyspace":"archive","keep_data":false,"keep_routing_rules":false,"rename_tables":false,"dry_run":false}`),
	"get_planned_reparent":        opReparent,
	// vitess routing rules and throttler: main of app, with a keyspace
	// "archive" beside app, a throttled app and a tablet's lag
	"vtctld_get_routing_rules":            opVtctldControl(""),
	"vtctld_get_keyspace_routing_rules":   opVtctldControl(""),
	"vtctld_apply_keyspace_routing_rules": opVtctldControl(`{"rules":[{"from_keyspace":"archive","to_keyspace":"app"}],"skip_rebuild":false,"rebuild_cells":["us-east"]}`),
	"vtctld_get_throttler_status": func(w *opWorld, need string) opCall {
		c := opVtctldControl("")(w, need)
		c.query = "tablet_alias=" + w.tabletOf("main", platform.TabletPrimary)
		return c
	},
	"vtctld_check_throttler": func(w *opWorld, need string) opCall {
		c := opVtctldControl("")(w, need)
		c.body = `{"tablet_alias":"` + w.tabletOf("main", platform.TabletReplica) + `","app_name":"online-ddl","scope":"self","skip_request_heartbeats":true,"ok_if_not_exists":true}`
		return c
	},
	"vtctld_update_throttler_config": opVtctldControl(`{"keyspace":"app","enabled":true,"threshold":2.5,"apps":[{"name":"vreplication","ratio":0.5}],"unthrottle_apps":["online-ddl"],"app_checked_metrics":{"vreplication":["lag","self/loadavg"]}}`),
	// Materialize and lookup vindexes: main of app and its keyspace shop
	"materialize_create": opVRep("", nil, "", `{"workflow":"mz","target_keyspace":"shop","source_keyspace":"app","table_settings":[{"target_table":"audit","create_ddl":"copy"}],`+
		`"cells":["us-east"],"tablet_types":["replica"],"stop_after_copy":false,"tablet_types_in_preference_order":true,"defer_secondary_keys":true,"atomic_copy":false,"on_ddl":"EXEC","source_time_zone":"UTC"}`),
	"materialize_show":   opVRep("materialize", map[string]string{"workflow": "mz"}, "target_keyspace=shop&include_logs=true", ""),
	"materialize_start":  opVRep("stopped", map[string]string{"workflow": "mz"}, "", `{"target_keyspace":"shop"}`),
	"materialize_stop":   opVRep("materialize", map[string]string{"workflow": "mz"}, "", `{"target_keyspace":"shop"}`),
	"materialize_cancel": opVRep("materialize", map[string]string{"workflow": "mz"}, "", `{"target_keyspace":"shop","keep_data":false,"keep_routing_rules":false}`),
	"lookup_vindex_create": opVRep("materialize", nil, "", `{"name":"buyers_by_customer","table_keyspace":"shop","keyspace":"shop","table_owner":"buyers","table_owner_columns":["customer_id"],`+
		`"type":"consistent_lookup","table_name":"buyers_lookup","table_vindex_type":"xxhash","cells":["us-east"],"tablet_types":["primary"],"tablet_types_in_preference_order":true,"ignore_nulls":true,"continue_after_copy_with_owner":true}`),
	"lookup_vindex_show":        opVRep("lookup", map[string]string{"name": "buyers_by_customer"}, "table_keyspace=shop", ""),
	"lookup_vindex_externalize": opVRep("copied", map[string]string{"name": "buyers_by_customer"}, "", `{"table_keyspace":"shop","keyspace":"shop","delete":false}`),
	"lookup_vindex_internalize": opVRep("externalized", map[string]string{"name": "buyers_by_customer"}, "", `{"table_keyspace":"shop","keyspace":"shop"}`),
	"lookup_vindex_complete":    opVRep("externalized", map[string]string{"name": "buyers_by_customer"}, "", `{"table_keyspace":"shop","keyspace":"shop"}`),
	"lookup_vindex_cancel":      opVRep("lookup", map[string]string{"name": "buyers_by_customer"}, "", `{"table_keyspace":"shop"}`),
	// VDiffs of workflow move-audit (app to archive on main, running):
	// one completed with differences, one failed, one created stopped, and
	// the one the operation acts on, in the state it starts from
	"vdiff_create": func(w *opWorld, need string) opCall {
		c := opVDiff(platform.VDiffCompleted, "")(w, need)
		c.body = `{"target_keyspace":"archive","auto_retry":true,"auto_start":true,"debug_query":true,"only_pks":true,"update_table_stats":true,"verbose":true,
			"tables":["audit"],"tablet_types":["replica","primary"],"tablet_selection_preference":"inorder","filtered_replication_wait_time":10,
			"max_report_sample_rows":5,"max_extra_rows_to_compare":100,"row_diff_column_truncate_at":64,"limit":1000}`
		delete(c.vals, "uuid")
		c.query = ""
		return c
	},
	"vdiff_list":   opVDiff(platform.VDiffCompleted, ""),
	"vdiff_show":   opVDiff(platform.VDiffCompleted, ""),
	"vdiff_stop":   opVDiff(platform.VDiffStarted, "stop"),
	"vdiff_resume": opVDiff(platform.VDiffStopped, "resume"),
	"vdiff_delete": opVDiff(platform.VDiffStarted, ""),
	// metrics
	"get_branch_metrics":                opMetrics("metrics=queries&metrics=latency_p99&period=1h&steps=4"),
	"get_instant_branch_metrics":        opMetrics(""),
	"get_branch_keyspace_table_metrics": opMetrics(""),
	"get_branch_query_metrics":          opMetrics("metrics=queries&period=1h&steps=4"),
	"get_branch_table_metrics":          opMetrics(""),
	"get_tablet_metrics":                opMetrics("metrics=pod_queries&period=1h&steps=4"),
	"get_instant_tablet_metrics":        opMetrics(""),
	"get_branch_tag_metrics":            opMetrics("metrics=queries&period=1h&steps=4"),
	// query-pattern reports
	"list_generated_query_patterns_reports": opQPReport(false),
	"create_query_patterns_report":          opMetrics(""),
	"get_query_patterns_report_status":      opQPReport(false),
	"delete_query_patterns_report":          opQPReport(false),
	"get_query_patterns_report":             opQPReport(true),
	"create_auth_attempt_export":            opBody(opAuthExportBody),
	"get_auth_attempt_export":               opAuthExport(false),
	"download_auth_attempt_export":          opAuthExport(true),

	// maintenance
	"run_branch_maintenance": func(w *opWorld, _ string) opCall {
		w.postgresApp()
		return opCall{vals: map[string]string{"branch": "main"}, body: `{"update_postgres_minor_version":true}`}
	},
	"list_maintenance_schedules": opBody(""),
	"get_maintenance_schedule":   opMaintenance,
	"list_maintenance_windows":   opMaintenance,
	// passwords
	"list_passwords": opPassword(""),
	"create_password": func(_ *opWorld, need string) opCall {
		branch, role := opPasswordTarget(need)
		return opCall{vals: map[string]string{"branch": branch}, body: `{"role":"` + string(role) + `","ttl":60}`}
	},
	"get_password":    opPassword(""),
	"update_password": opPassword(`{"name":"renamed","cidrs":["192.0.2.0/24"]}`),
	"delete_password": opPassword(""),
	"renew_password":  opPassword(""),

	// IP restrictions
	"list_database_postgres_cidrs": opIPRestriction(""),
	"create_database_postgres_cidr": func(w *opWorld, _ string) opCall {
		w.postgresApp()
		return opCall{body: `{"cidrs":["10.0.0.0/8"],"role":"reporting"}`, branch: "main"}
	},
	"get_database_postgres_cidr":    opIPRestriction(""),
	"update_database_postgres_cidr": opIPRestriction(`{"description":"office"}`),
	"delete_database_postgres_cidr": opIPRestriction(""),

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

	// teams: the team core, whose member is Bob; the admin is on no team
	"list_organization_teams":        opTeam(""),
	"create_organization_team":       opBody(`{"name":"Fresh"}`),
	"get_organization_team":          opTeam(""),
	"update_organization_team":       opTeam(`{"description":"changed"}`),
	"delete_organization_team":       opTeam(""),
	"list_organization_team_members": opTeam(""),
	"add_organization_team_member": func(w *opWorld, _ string) opCall {
		return opTeam(`{"user_id":"`+w.srv.AdminUserID()+`"}`)(w, "")
	},
	"get_organization_team_member":    opTeamMember,
	"remove_organization_team_member": opTeamMember,

	// webhooks of app, subscribed to no event; the one test_webhook tries
	// has a receiver
	"list_webhooks":  opWebhook(""),
	"create_webhook": opBody(`{"url":"https://hooks.example.com/new"}`),
	"get_webhook":    opWebhook(""),
	"update_webhook": opWebhook(`{"enabled":true}`),
	"delete_webhook": opWebhook(""),
	"test_webhook": func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"id": w.webhook(newWebhookReceiver(w.t, webhookAnswer(http.StatusNoContent)).url())}}
	},

	// traffic budgets of dev: one budget with one rule
	"list_traffic_budgets":  opBudget(""),
	"create_traffic_budget": opOnBody("dev", `{"name":"fresh","rules":["route=a"]}`),
	"get_traffic_budget":    opBudget(""),
	"update_traffic_budget": opBudget(`{"name":"renamed"}`),
	"delete_traffic_budget": opBudget(""),
	"create_traffic_rule": func(w *opWorld, _ string) opCall {
		bg := w.budget("dev")
		return opCall{vals: map[string]string{"branch": "dev", "budget_id": bg.ID}, body: `{"tags":["route=b"]}`}
	},
	"delete_traffic_rule": func(w *opWorld, _ string) opCall {
		bg := w.budget("dev")
		return opCall{vals: map[string]string{"branch": "dev", "budget_id": bg.ID, "id": bg.Rules[0].ID}}
	},

	// service tokens: a token of acme created through the API, holding
	// read_database on app
	"list_service_tokens":           opServiceToken(""),
	"create_service_token":          opBody(`{"name":"fresh","ttl":3600}`),
	"get_service_token":             opServiceToken(""),
	"delete_service_token":          opServiceToken(""),
	"list_service_token_accesses":   opServiceToken(""),
	"list_service_token_grants":     opServiceToken(""),
	"add_service_token_accesses":    opServiceToken(`{"database":"app","access":["write_database"]}`),
	"remove_service_token_accesses": opServiceToken(`{"database":"app","access":["read_database"]}`),

	// query insights of dev: the traffic of opInsights
	"list_branch_queries":             opInsights(func(*insightsFixture) opCall { return opCall{} }),
	"get_branch_query":                opInsights(func(f *insightsFixture) opCall { return opCall{vals: map[string]string{"id": f.runID}} }),
	"get_query_statistics":            opInsights(func(f *insightsFixture) opCall { return f.onQuery("keyspace=app") }),
	"get_query_summary":               opInsights(func(f *insightsFixture) opCall { return f.onQuery("keyspace=app") }),
	"list_branch_query_errors":        opInsights(func(*insightsFixture) opCall { return opCall{} }),
	"get_branch_query_error":          opInsights(func(f *insightsFixture) opCall { return opCall{vals: map[string]string{"fingerprint": f.errorFP}} }),
	"list_branch_query_tags":          opInsights(func(*insightsFixture) opCall { return opCall{} }),
	"list_branch_query_tag_summaries": opInsights(func(*insightsFixture) opCall { return opCall{query: "tags=route"} }),
	"get_branch_query_tag":            opInsights(func(*insightsFixture) opCall { return opCall{vals: map[string]string{"tag": "route"}} }),
	"list_branch_anomalies":           opInsights(func(*insightsFixture) opCall { return opCall{} }),
	"get_branch_anomaly":              opInsights(func(f *insightsFixture) opCall { return opCall{vals: map[string]string{"id": f.anomalyID}} }),
	"list_traffic_budgets_for_query":  opInsights(func(f *insightsFixture) opCall { f.w.budget("dev"); return f.onQuery("") }),

	"list_audit_logs": opBody(""), // the world's making left entries

	// workflows: workflow 1 of app, moving audit from app to archive on
	// main, taken to the state the operation starts from
	"list_workflows": opWorkflow(platform.WorkflowPending),
	"create_workflow": func(w *opWorld, _ string) opCall {
		wfSetup(w.t, w.srv, "main")
		return opCall{body: `{"name":"move-audit","branch_name":"main","source_keyspace":"app","target_keyspace":"archive","tables":["audit"],
			"global_keyspace":"app","defer_secondary_keys":true,"on_ddl":"STOP"}`}
	},
	"get_workflow":              opWorkflow(platform.WorkflowPending),
	"workflow_cancel":           opWorkflow(platform.WorkflowPending),
	"workflow_complete":         opWorkflow(platform.WorkflowCutover),
	"workflow_cutover":          opWorkflow(platform.WorkflowSwitchedPrimaries),
	"workflow_retry":            opWorkflow(platform.WorkflowError),
	"workflow_reverse_cutover":  opWorkflow(platform.WorkflowCutover),
	"workflow_reverse_traffic":  opWorkflow(platform.WorkflowSwitchedReplicas),
	"workflow_switch_primaries": opWorkflow(platform.WorkflowSwitchedReplicas),
	"workflow_switch_replicas":  opWorkflow(platform.WorkflowRunning),
	"verify_workflow":           opWorkflow(platform.WorkflowRunning),

	// schema diffs: dev against main, and deploy request 1 from dev
	"diff_branch":             opOn("dev"),
	"refresh_branch_schema":   opOn("dev"),
	"get_deploy_request_diff": opDR("", toReady...),

	// VSchema and routing rules: of dev, or of main when need is the
	// production permission
	"get_keyspace_vschema": func(*opWorld, string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "keyspace": "app"}}
	},
	"update_keyspace_vschema": func(_ *opWorld, need string) opCall {
		return opCall{vals: map[string]string{"branch": opVSchemaBranch(need), "keyspace": "app"}, body: `{"vschema":"{\"tables\":{\"users\":{}}}"}`}
	},
	"get_branch_routing_rules": opOn("dev"),
	"update_branch_routing_rules": func(_ *opWorld, need string) opCall {
		return opOnBody(opVSchemaBranch(need), `{"routing_rules":"{\"rules\":[{\"from_table\":\"users\",\"to_tables\":[\"app.users\"]}]}"}`)(nil, need)
	},
}

// opWorkflow is a fixture of an operation on workflow 1 of app, moving
// audit to the keyspace archive of main (its sequence tables in app, its
// secondary keys deferred), in state.
func opWorkflow(state platform.WorkflowState) opFixture {
	return func(w *opWorld, _ string) opCall {
		wfSetup(w.t, w.srv, "main")
		p := wfCreate(w.srv)
		p.GlobalKeyspace, p.DeferSecondaryKeys, p.OnDDL = platform.Ptr(drDB), platform.Ptr(true), platform.Ptr(platform.OnDDLStop)
		wfDrive(w.t, w.srv, w.c, p, state)
		return opCall{vals: map[string]string{"number": "1"}}
	}
}

// opVDiff is a fixture of an operation on a VDiff of workflow
// move-audit, running on main, whose VDiffs are one completed with the
// differences arranged for audit, one failed, one created stopped (with
// options), and last the one the operation names, left in state (started,
// stopped or completed). A stop or delete goes in the body or query with
// the target keyspace.
func opVDiff(state platform.VDiffState, action string) opFixture {
	return func(w *opWorld, need string) opCall {
		opWorkflow(platform.WorkflowRunning)(w, need)
		t, srv, c := w.t, w.srv, w.c
		if err := srv.SetVDiffDifferences(w.org, drDB, "main", wfTarget, "audit", fake.VDiffDifferences{
			Mismatched: []string{"1", "2"}, ExtraSource: []string{"3"}, ExtraTarget: []string{"4"},
		}); err != nil {
			t.Fatal(err)
		}
		create := func(p *platform.CreateVDiffParams) string {
			t.Helper()
			p.Organization, p.Database, p.Branch, p.Workflow, p.TargetKeyspace = w.org, drDB, "main", "move-audit", wfTarget
			v, err := c.Vitess.CreateVDiff(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			return v.UUID
		}
		wait := func(uuid string) {
			t.Helper()
			if _, err := c.Vitess.WaitVDiff(t.Context(), &platform.GetVDiffParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: "move-audit", TargetKeyspace: wfTarget, UUID: uuid}); err != nil {
				t.Fatal(err)
			}
		}
		wait(create(&platform.CreateVDiffParams{}))
		failed := create(&platform.CreateVDiffParams{})
		if err := srv.FailNext(failed); err != nil {
			t.Fatal(err)
		}
		create(&platform.CreateVDiffParams{AutoStart: platform.Ptr(false), Tables: []string{"audit"}, Limit: platform.Ptr(10), DebugQuery: platform.Ptr(true), TabletTypes: []string{"rdonly"}})
		srv.Advance(5 * time.Second) // the failed one fails
		uuid := create(&platform.CreateVDiffParams{OnlyPKs: platform.Ptr(true), MaxReportSampleRows: platform.Ptr(1)})
		switch state {
		case platform.VDiffStarted:
			srv.Advance(3 * time.Second)
		case platform.VDiffStopped:
			srv.Advance(3 * time.Second)
			if _, err := c.Vitess.StopVDiff(t.Context(), &platform.StopVDiffParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: "move-audit", TargetKeyspace: wfTarget, UUID: uuid}); err != nil {
				t.Fatal(err)
			}
		case platform.VDiffCompleted:
			wait(uuid)
		}
		call := opCall{vals: map[string]string{"branch": "main", "workflow": "move-audit", "uuid": uuid}, query: "target_keyspace=" + wfTarget}
		if action == "stop" || action == "resume" {
			call.query, call.body = "", `{"target_keyspace":"`+wfTarget+`","target_shards":["-"]}`
		}
		return call
	}
}

// opVSchemaBranch is the branch of a VSchema or routing rules update that
// need covers: main for the production permission, else dev.
func opVSchemaBranch(need string) string {
	if strings.Contains(need, "production") {
		return "main"
	}
	return "dev"
}

// opOAuthServer are the rows of operations.tsv that are the OAuth server's
// rather than the API's: oauth_authorize, oauth_token and
// oauth_authorize_device issue credentials, and oauth_revoke ends them,
// instead of taking them, so they have no permission or scope
// ("-" in both columns) and no API credential to refuse; the permission,
// scope and credential tables leave them out. Each entry sends the row's
// request without an Authorization header, the way an application's user
// and the application itself call them, and returns the response, which
// TestOpOAuthServerRows holds to the row's status (oauth_test.go tests the
// OAuth flow itself).
var opOAuthServer = map[string]func(w *opWorld) oauthResponse{
	"oauth_authorize": func(w *opWorld) oauthResponse {
		app := oauthApp(w.t, w.srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
		w.srv.SetAutoApprove(&fake.Consent{})
		return oauthDo(w.t, http.MethodGet, oauthAuthorizeURL(w.srv, app.ClientID, app.RedirectURI, "xyz"), nil, nil)
	},
	"oauth_token": func(w *opWorld) oauthResponse {
		app := oauthApp(w.t, w.srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
		return oauthDo(w.t, http.MethodPost, w.srv.AuthURL()+"oauth/token", codeParams(app, oauthCode(w.t, w.srv, app, fake.Consent{})), nil)
	},
	"oauth_authorize_device": func(w *opWorld) oauthResponse {
		app := oauthApp(w.t, w.srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
		return oauthDo(w.t, http.MethodPost, w.srv.AuthURL()+"oauth/authorize_device", url.Values{"client_id": {app.ClientID}}, nil)
	},
	"oauth_revoke": func(w *opWorld) oauthResponse {
		app := oauthApp(w.t, w.srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
		tok := oauthIssue(w.t, w.srv, app, fake.Consent{})
		return oauthDo(w.t, http.MethodPost, w.srv.AuthURL()+"oauth/revoke", revokeParams(app, tok.AccessToken), nil)
	},
}

// opTeam is a fixture of an operation on the team core, with body.
func opTeam(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.team()
		return opCall{vals: map[string]string{"team": "core"}, body: body}
	}
}

// opTeamMember is the fixture of an operation on Bob's membership of the
// team core.
func opTeamMember(w *opWorld, _ string) opCall {
	w.team()
	return opCall{vals: map[string]string{"team": "core", "id": w.bob}}
}

// opWebhook is a fixture of an operation on a webhook of app, with body.
func opWebhook(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"id": w.webhook("https://hooks.example.com/app")}, body: body}
	}
}

// opBudget is a fixture of an operation on a traffic budget of dev, with
// body.
func opBudget(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"branch": "dev", "id": w.budget("dev").ID}, body: body}
	}
}

// opServiceToken is a fixture of an operation on a service token of acme,
// with body.
func opServiceToken(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		return opCall{vals: map[string]string{"id": w.serviceToken()}, body: body}
	}
}

// opInvoice is a fixture of an operation on acme's invoice for January,
// issued as the clock reaches February.
func opInvoice(w *opWorld, _ string) opCall {
	return opCall{vals: map[string]string{"id": w.invoice()}}
}

// invoice moves the clock to the next month and returns the ID of the
// invoice issued for the month that ended.
func (w *opWorld) invoice() string {
	w.t.Helper()
	now := w.srv.Now()
	w.srv.Advance(time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC).Sub(now))
	page, err := w.c.Billing.ListInvoices(w.t.Context(), &platform.ListInvoicesParams{Organization: w.org})
	if err != nil || len(page.Items) == 0 {
		w.t.Fatalf("no invoice issued (err %v)", err)
	}
	return page.Items[len(page.Items)-1].ID
}

// paymentMethod puts a card on file for acme.
func (w *opWorld) paymentMethod() {
	w.t.Helper()
	if err := w.srv.SetPaymentMethod(w.org, fake.PaymentMethod{Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030, Name: "Ada Admin"}); err != nil {
		w.t.Fatal(err)
	}
}

// team creates the team core with Bob on it.
func (w *opWorld) team() {
	w.t.Helper()
	teamCreate(w.t, w.srv, "Core")
	teamAdd(w.t, w.srv, "core", w.bob)
}

// webhook creates a webhook of app, subscribed to no event, sending to
// url, and returns its ID.
func (w *opWorld) webhook(url string) string {
	w.t.Helper()
	h, err := w.c.Webhooks.Create(w.t.Context(), &platform.CreateWebhookParams{Organization: w.org, Database: drDB, URL: url})
	if err != nil {
		w.t.Fatal(err)
	}
	return h.ID
}

// budget creates a traffic budget with one rule on a branch of app.
func (w *opWorld) budget(branch string) *platform.TrafficBudget {
	w.t.Helper()
	bg, err := w.c.TrafficBudgets.Create(w.t.Context(), &platform.CreateTrafficBudgetParams{
		Organization: w.org, Database: drDB, Branch: branch, Name: "budget", Rules: []string{"route=a"},
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return bg
}

// serviceToken creates a service token of acme through the API, grants it
// read_database on app, and returns its ID.
func (w *opWorld) serviceToken() string {
	w.t.Helper()
	tok, err := w.c.ServiceTokens.Create(w.t.Context(), &platform.CreateServiceTokenParams{Organization: w.org, Name: platform.Ptr("target")})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.c.ServiceTokens.AddAccesses(w.t.Context(), &platform.AddServiceTokenAccessesParams{
		Organization: w.org, ID: tok.ID, Database: platform.Ptr(drDB), Access: []platform.Permission{platform.PermissionReadDatabase},
	}); err != nil {
		w.t.Fatal(err)
	}
	return tok.ID
}

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

// resize requests a resize of a branch of app's query routers and returns
// its ID; it stays queued.
func (w *opWorld) resize(branch string) string {
	w.t.Helper()
	r, err := w.c.BranchChanges.UpdateResize(w.t.Context(), &platform.UpdateBranchResizeRequestParams{Organization: w.org, Database: drDB, Branch: branch, VTGateCount: platform.Ptr(2)})
	if err != nil {
		w.t.Fatal(err)
	}
	return r.ID
}

// change requests a change of a branch of app's cluster size and returns
// its ID; it stays queued.
func (w *opWorld) change(branch string) string {
	w.t.Helper()
	r, err := w.c.BranchChanges.UpdateChange(w.t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: w.org, Database: drDB, Branch: branch, ClusterSize: platform.Ptr("PS_20")})
	if err != nil {
		w.t.Fatal(err)
	}
	return r.ID
}

// promote makes a branch of app a production branch.
func (w *opWorld) promote(branch string) {
	w.t.Helper()
	if _, err := w.c.Branches.Promote(w.t.Context(), &platform.PromoteBranchParams{Organization: w.org, Database: drDB, Branch: branch}); err != nil {
		w.t.Fatal(err)
	}
}

// readOnlyRegion gives app's default keyspace on main a read-only region.
func (w *opWorld) readOnlyRegion(region string) {
	w.t.Helper()
	_, err := w.c.Keyspaces.UpdateReadOnlyRegions(w.t.Context(), &platform.UpdateReadOnlyRegionsParams{
		Organization: w.org, Database: drDB, Branch: "main", Keyspace: drDB,
		ReadOnlyRegions: []platform.ReadOnlyRegionConfig{{Region: region}},
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// keyspaceResize queues a resize of app's default keyspace on a branch of
// app to PS_20 and returns its ID.
func (w *opWorld) keyspaceResize(branch string) string {
	w.t.Helper()
	r, err := w.c.Keyspaces.Resize(w.t.Context(), &platform.ResizeKeyspaceParams{
		Organization: w.org, Database: drDB, Branch: branch, Keyspace: drDB, ClusterSize: platform.Ptr("PS_20"),
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return r.ID
}

// role creates role credentials with a ttl on a branch of app and returns
// their ID. It then moves the clock by a second, so that renewing or
// resetting them stamps a new updated_at.
func (w *opWorld) role(branch string) string {
	w.t.Helper()
	r, err := w.c.Roles.Create(w.t.Context(), &platform.CreateRoleParams{Organization: w.org, Database: drDB, Branch: branch, TTL: platform.Ptr(3600)})
	if err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(time.Second)
	return r.ID
}

// password creates a password with a ttl and role on a branch of app and
// returns its ID. It then moves the clock by a second, so that renewing it
// moves expires_at.
func (w *opWorld) password(branch string, role platform.PasswordRole) string {
	w.t.Helper()
	pw, err := w.c.Passwords.Create(w.t.Context(), &platform.CreatePasswordParams{
		Organization: w.org, Database: drDB, Branch: branch, Role: platform.Ptr(role), TTL: platform.Ptr(3600),
	})
	if err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(time.Second)
	return pw.ID
}

// postgresApp makes app a ready PostgreSQL database, for the operations
// of PostgreSQL databases only: it deletes app and creates it again, with
// the production branch main only.
func (w *opWorld) postgresApp() {
	w.t.Helper()
	ctx := w.t.Context()
	if err := w.c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: w.org, Database: drDB}); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.c.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: w.org, Name: drDB, ClusterSize: "PS_10", Kind: platform.KindPostgreSQL,
	}); err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(5 * time.Second)
}

// postgresDB creates name, a ready PostgreSQL database beside app, and
// returns its path.
func (w *opWorld) postgresDB(name string) string {
	w.t.Helper()
	if _, err := w.c.Databases.Create(w.t.Context(), &platform.CreateDatabaseParams{
		Organization: w.org, Name: name, ClusterSize: "PS_10", Kind: platform.KindPostgreSQL,
	}); err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(fake.DefaultTimings().DatabaseReady)
	return "/v1/organizations/" + w.org + "/databases/" + name
}

// postgresBranches makes app a PostgreSQL database (see postgresApp) with
// a ready development branch dev too, which the scope table's grants
// elsewhere than main name.
func (w *opWorld) postgresBranches() {
	w.t.Helper()
	w.postgresApp()
	if _, err := w.c.Branches.Create(w.t.Context(), &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: "dev", ParentBranch: "main"}); err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(fake.DefaultTimings().BranchReady)
}

// bouncer makes app a PostgreSQL database with branches main and dev (see
// postgresBranches) and gives main a ready bouncer named name.
func (w *opWorld) bouncer(name string) {
	w.t.Helper()
	w.postgresBranches()
	if _, err := w.c.Bouncers.Create(w.t.Context(), &platform.CreateBouncerParams{Organization: w.org, Database: drDB, Branch: "main", Name: name}); err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(fake.DefaultTimings().BouncerReady)
}

// traffic records queries run on app's main: two reads of users by id
// (tagged route:login), an insert into orders and a failed read of orders.
func (w *opWorld) traffic() {
	w.t.Helper()
	login := map[string]string{"route": "login"}
	if err := w.srv.RecordQueries(w.org, drDB, "main",
		fake.QuerySample{SQL: "select * from users where id = 1", Tags: login, RowsRead: 1, RowsReturned: 1, Duration: 2 * time.Millisecond},
		fake.QuerySample{SQL: "select * from users where id = 2", Tags: login, RowsRead: 1, RowsReturned: 1, Duration: 4 * time.Millisecond},
		fake.QuerySample{SQL: "insert into orders (id) values (7)", RowsAffected: 1, Duration: 3 * time.Millisecond},
		fake.QuerySample{SQL: "select * from orders where id = 'x'", Error: "unknown column", Duration: time.Millisecond},
	); err != nil {
		w.t.Fatal(err)
	}
}

// opRecommendation is a fixture of an operation on schema recommendation
// 1 of app: main, its safe migrations turned off, gets a table without a
// primary key.
func opRecommendation(body string) opFixture {
	return func(w *opWorld, _ string) opCall {
		if _, err := w.c.Branches.DisableSafeMigrations(w.t.Context(), &platform.DisableSafeMigrationsParams{Organization: w.org, Database: drDB, Branch: "main"}); err != nil {
			w.t.Fatal(err)
		}
		if err := w.srv.PushSchema(w.org, drDB, "main", "CREATE TABLE `log` (body text)"); err != nil {
			w.t.Fatal(err)
		}
		return opCall{vals: map[string]string{"number": "1"}, body: body}
	}
}

// switchover runs a switchover of main, app being a PostgreSQL database,
// to its end, and returns its ID.
func (w *opWorld) switchover() string {
	w.t.Helper()
	p := &platform.GetSwitchoverParams{Organization: w.org, Database: drDB, Branch: "main"}
	sw, err := w.c.Switchovers.Create(w.t.Context(), &platform.CreateSwitchoverParams{Organization: w.org, Database: drDB, Branch: "main"})
	if err != nil {
		w.t.Fatal(err)
	}
	p.ID = sw.ID
	if _, err := w.c.Switchovers.Wait(w.t.Context(), p); err != nil {
		w.t.Fatal(err)
	}
	return sw.ID
}

// maintenance runs a maintenance of main, app being a PostgreSQL
// database, to its end.
func (w *opWorld) maintenance() {
	w.t.Helper()
	if err := w.c.Maintenance.Run(w.t.Context(), &platform.RunBranchMaintenanceParams{Organization: w.org, Database: drDB, Branch: "main"}); err != nil {
		w.t.Fatal(err)
	}
	w.srv.Advance(fake.DefaultTimings().Maintenance)
}

// maintenanceSchedule returns the ID of app's maintenance schedule.
func (w *opWorld) maintenanceSchedule() string {
	w.t.Helper()
	page, err := w.c.Maintenance.ListSchedules(w.t.Context(), &platform.ListMaintenanceSchedulesParams{Organization: w.org, Database: drDB})
	if err != nil {
		w.t.Fatal(err)
	}
	if len(page.Items) != 1 {
		w.t.Fatalf("%d maintenance schedules, want 1", len(page.Items))
	}
	return page.Items[0].ID
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
	return oauthOnlyTokenID(w.t, w.srv, app)
}

// oauthOnlyTokenID is the ID of the one live token of app, an application
// of srv's organization.
func oauthOnlyTokenID(t testing.TB, srv *fake.Server, app fake.OAuthApp) string {
	t.Helper()
	toks := opCollect(t, srv.Client().OAuthApplications.AllTokens(t.Context(), &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID}))
	if len(toks) != 1 {
		t.Fatalf("%d tokens, want 1", len(toks))
	}
	return toks[0].ID
}

// opPlaceholder is a {placeholder} of a path.
var opPlaceholder = regexp.MustCompile(`\{[a-z_]+\}`)

// path fills op's path with the call's values, and adds its query.
func (c opCall) path(t testing.TB, w *opWorld, op tsvOperation) string {
	t.Helper()
	vals := map[string]string{"organization": w.org, "database": drDB}
	maps.Copy(vals, c.vals)
	path := opPlaceholder.ReplaceAllStringFunc(op.path, func(ph string) string {
		v, ok := vals[strings.Trim(ph, "{}")]
		if !ok {
			t.Fatalf("%s: no value for %s", op.path, ph)
		}
		return v
	})
	if c.query != "" {
		path += "?" + c.query
	}
	return path
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

// opState is what the admin token sees of acme, with what only the Go API
// shows (the objects roles own, the webhook deliveries): the state a
// refused request must leave unchanged.
type opState struct {
	Org              *platform.Organization
	Members          []*platform.Member
	Databases        []*platform.Database
	Branches         map[string][]*platform.Branch                // by database
	Schemas          map[string]*platform.BranchSchema            // by database/branch
	Keyspaces        map[string][]*platform.Keyspace              // by database/branch
	Resizes          map[string][]*platform.KeyspaceResizeRequest // by database/branch/keyspace
	Backups          map[string][]*platform.Backup                // by database/branch, deleted ones too
	Roles            map[string][]*platform.Role                  // by database/branch
	Passwords        map[string][]*platform.Password              // by database/branch, of MySQL databases
	IPRestrictions   map[string][]*platform.IPRestriction         // by database, of PostgreSQL databases
	Switchovers      map[string][]*platform.Switchover            // by database/branch, of PostgreSQL databases
	Tablets          map[string][]*platform.TabletGroup           // by database/branch, of MySQL databases
	Shards           map[string]*platform.VitessShard             // by database/branch/keyspace/shard, of MySQL databases
	KeyspaceRules    map[string][]platform.KeyspaceRoutingRule    // by database/branch, of MySQL databases
	TabletThrottlers map[string]*platform.ThrottlerStatus         // by database/branch/keyspace/shard: its primary's, of MySQL databases
	Maintenance      map[string][]*platform.MaintenanceWindow     // by database
	RoleObjects      map[string][]string                          // by role ID
	Policies         map[string][]*platform.BackupPolicy          // by database
	DeployRequests   map[string][]*platform.DeployRequest
	Reviews          map[string][]*platform.DeployRequestReview // by database#number
	OAuthApps        []*platform.OAuthApplication
	OAuthTokens      map[string][]*platform.OAuthToken // by application ID
	Teams            []*platform.Team
	TeamMembers      map[string][]*platform.TeamMember           // by team slug
	ServiceTokens    []*platform.ServiceToken                    // with their organization accesses
	TokenAccesses    map[string][]*platform.ServiceTokenAccess   // every access, by token ID
	Webhooks         map[string][]*platform.Webhook              // by database
	ReadOnly         map[string][]*platform.ReadOnlyRegion       // by database
	Budgets          map[string][]*platform.TrafficBudget        // by database/branch
	Bouncers         map[string][]*platform.Bouncer              // by database/branch, PostgreSQL only
	BouncerResizes   map[string][]*platform.BouncerResizeRequest // by database/branch, PostgreSQL only
	BranchResizes    map[string][]*platform.BranchResizeRequest  // by database/branch
	Changes          map[string][]*platform.BranchChangeRequest  // by database/branch
	Parameters       map[string][]*platform.ClusterParameter     // by database/branch
	QPReports        map[string][]*platform.QueryPatternsReport  // by database/branch
	// Recommendations and Throttlers are by database; a deploy request's
	// throttler ratios show in its deployment.
	Recommendations map[string][]*platform.SchemaRecommendation
	Throttlers      map[string]*platform.ThrottlerConfigurations
	Workflows       map[string][]*platform.Workflow   // by database
	VSchemas        map[string]*platform.VSchema      // by database/branch/keyspace, of MySQL databases
	RoutingRules    map[string]*platform.RoutingRules // by database/branch, of MySQL databases
	Events          []string
	// Deliveries are the webhook deliveries attempted, as "webhook event
	// #attempt"; their outcome, which comes later, is left out.
	Deliveries []string
	Invoices   []*platform.Invoice
	// PaymentMethod is nil when acme has none.
	PaymentMethod *platform.PaymentMethod
	// AuthExports are acme's authentication-attempt exports, as "id state"
	// (the API lists none).
	AuthExports []string
}

// opSnapshot reads acme's state through the admin token and the Go API. It
// also serves in a Cleanup, after the test's context is canceled.
func opSnapshot(t testing.TB, srv *fake.Server) opState {
	t.Helper()
	return opSnapshotThrough(t, srv, opAdminInProcess(t, srv))
}

// opSnapshotThrough is opSnapshot, with c, a client of srv's admin token,
// sending the requests.
func opSnapshotThrough(t testing.TB, srv *fake.Server, c *platform.Client) opState {
	t.Helper()
	ctx, org := context.WithoutCancel(t.Context()), srv.Org()
	page := platform.ListParams{PerPage: 100}
	s := opState{
		Branches: map[string][]*platform.Branch{}, Schemas: map[string]*platform.BranchSchema{},
		Keyspaces: map[string][]*platform.Keyspace{}, Resizes: map[string][]*platform.KeyspaceResizeRequest{}, Backups: map[string][]*platform.Backup{},
		Roles: map[string][]*platform.Role{}, Switchovers: map[string][]*platform.Switchover{},
		Tablets: map[string][]*platform.TabletGroup{}, Shards: map[string]*platform.VitessShard{},
		KeyspaceRules: map[string][]platform.KeyspaceRoutingRule{}, TabletThrottlers: map[string]*platform.ThrottlerStatus{},
		Passwords: map[string][]*platform.Password{}, IPRestrictions: map[string][]*platform.IPRestriction{},
		Maintenance: map[string][]*platform.MaintenanceWindow{}, RoleObjects: map[string][]string{}, Policies: map[string][]*platform.BackupPolicy{},
		DeployRequests: map[string][]*platform.DeployRequest{}, Reviews: map[string][]*platform.DeployRequestReview{},
		OAuthTokens: map[string][]*platform.OAuthToken{}, TeamMembers: map[string][]*platform.TeamMember{},
		Webhooks: map[string][]*platform.Webhook{}, ReadOnly: map[string][]*platform.ReadOnlyRegion{},
		TokenAccesses: map[string][]*platform.ServiceTokenAccess{},
		Budgets:       map[string][]*platform.TrafficBudget{}, Events: srv.EventNames(),
		BranchResizes: map[string][]*platform.BranchResizeRequest{}, Changes: map[string][]*platform.BranchChangeRequest{},
		Parameters: map[string][]*platform.ClusterParameter{}, Workflows: map[string][]*platform.Workflow{},
		VSchemas: map[string]*platform.VSchema{}, RoutingRules: map[string]*platform.RoutingRules{},
		Bouncers: map[string][]*platform.Bouncer{}, BouncerResizes: map[string][]*platform.BouncerResizeRequest{},
		QPReports:       map[string][]*platform.QueryPatternsReport{},
		Recommendations: map[string][]*platform.SchemaRecommendation{}, Throttlers: map[string]*platform.ThrottlerConfigurations{},
	}
	s.AuthExports = fake.AuthExportStates(srv, org)
	// The deliveries in flight, of a test_webhook, settle first.
	if err := srv.FlushDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range srv.Deliveries() {
		s.Deliveries = append(s.Deliveries, fmt.Sprintf("%s %s #%d", d.WebhookID, d.Event, d.Attempt))
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
			for _, ks := range s.Keyspaces[key] {
				s.Resizes[key+"/"+ks.Name] = opCollect(t, c.Keyspaces.AllResizes(ctx, &platform.ListKeyspaceResizesParams{Organization: org, Database: db.Name, Branch: b.Name, Keyspace: ks.Name, ListParams: page}))
			}
			s.Backups[key] = opCollect(t, c.Backups.All(ctx, &platform.ListBackupsParams{Organization: org, Database: db.Name, Branch: b.Name, IncludeDeleted: true, ListParams: page}))
			if db.Kind == platform.KindPostgreSQL {
				s.Roles[key] = opCollect(t, c.Roles.All(ctx, &platform.ListRolesParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}))
				for _, r := range s.Roles[key] {
					if s.RoleObjects[r.ID], err = srv.RoleObjects(org, db.Name, b.Name, r.ID); err != nil {
						t.Fatal(err)
					}
				}
				s.Switchovers[key] = opCollect(t, c.Switchovers.All(ctx, &platform.ListSwitchoversParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}))
			}
			if db.Kind == platform.KindMySQL {
				s.Passwords[key] = opCollect(t, c.Passwords.All(ctx, &platform.ListPasswordsParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}))
				opVSchemas(t, c, &s, org, db.Name, b.Name)
				opTopology(t, c, &s, org, db.Name, b.Name)
			}
			s.Budgets[key] = opCollect(t, c.TrafficBudgets.All(ctx, &platform.ListTrafficBudgetsParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}))
			s.QPReports[key] = opCollect(t, c.QueryPatternReports.All(ctx, &platform.ListQueryPatternsReportsParams{Organization: org, Database: db.Name, Branch: b.Name, CursorParams: platform.CursorParams{Limit: 100}}))
			changes := platform.ListBranchChangeRequestsParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}
			s.BranchResizes[key] = opCollect(t, c.BranchChanges.AllResizes(ctx, &changes))
			s.Changes[key] = opCollect(t, c.BranchChanges.AllChanges(ctx, &changes))
			if s.Parameters[key], err = c.BranchChanges.ListParameters(ctx, &platform.ListParametersParams{Organization: org, Database: db.Name, Branch: b.Name}); err != nil {
				t.Fatal(err)
			}
			if db.Kind == platform.KindPostgreSQL {
				bp := &platform.ListBouncersParams{Organization: org, Database: db.Name, Branch: b.Name, ListParams: page}
				s.Bouncers[key] = opCollect(t, c.Bouncers.All(ctx, bp))
				s.BouncerResizes[key] = opCollect(t, c.Bouncers.AllBranchResizes(ctx, bp))
			}
		}
		if db.Kind == platform.KindPostgreSQL {
			s.IPRestrictions[db.Name] = opCollect(t, c.IPRestrictions.All(ctx, &platform.ListIPRestrictionsParams{Organization: org, Database: db.Name, ListParams: page}))
		}
		s.ReadOnly[db.Name] = opCollect(t, c.Databases.AllReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: org, Database: db.Name, ListParams: page}))
		for _, sc := range opCollect(t, c.Maintenance.AllSchedules(ctx, &platform.ListMaintenanceSchedulesParams{Organization: org, Database: db.Name, ListParams: page})) {
			s.Maintenance[db.Name] = append(s.Maintenance[db.Name], opCollect(t, c.Maintenance.AllWindows(ctx, &platform.ListMaintenanceWindowsParams{Organization: org, Database: db.Name, ID: sc.ID, ListParams: page}))...)
		}
		s.Webhooks[db.Name] = opCollect(t, c.Webhooks.All(ctx, &platform.ListWebhooksParams{Organization: org, Database: db.Name, ListParams: page}))
		s.Policies[db.Name] = opCollect(t, c.BackupPolicies.All(ctx, &platform.ListBackupPoliciesParams{Organization: org, Database: db.Name, ListParams: page}))
		s.Workflows[db.Name] = opCollect(t, c.Workflows.All(ctx, &platform.ListWorkflowsParams{Organization: org, Database: db.Name, ListParams: page}))
		s.DeployRequests[db.Name] = opCollect(t, c.DeployRequests.All(ctx, &platform.ListDeployRequestsParams{Organization: org, Database: db.Name, ListParams: page}))
		for _, dr := range s.DeployRequests[db.Name] {
			s.Reviews[db.Name+"#"+strconv.Itoa(dr.Number)] = opCollect(t, c.DeployRequests.AllReviews(ctx, &platform.ListReviewsParams{Organization: org, Database: db.Name, Number: dr.Number, ListParams: page}))
		}
		s.Recommendations[db.Name] = opCollect(t, c.SchemaRecommendations.All(ctx, &platform.ListSchemaRecommendationsParams{Organization: org, Database: db.Name, ListParams: page}))
		if s.Throttlers[db.Name], err = c.Throttlers.GetDatabase(ctx, &platform.GetDatabaseThrottlerParams{Organization: org, Database: db.Name}); err != nil {
			t.Fatal(err)
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
	s.Teams = opCollect(t, c.Teams.All(ctx, &platform.ListTeamsParams{Organization: org, ListParams: page}))
	for _, team := range s.Teams {
		s.TeamMembers[team.Slug] = opCollect(t, c.Teams.AllMembers(ctx, &platform.ListTeamMembersParams{Organization: org, Team: team.Slug, ListParams: page}))
	}
	s.ServiceTokens = opCollect(t, c.ServiceTokens.All(ctx, &platform.ListServiceTokensParams{Organization: org, ListParams: page}))
	for _, tok := range s.ServiceTokens {
		tok.LastUsedAt = nil // bookkeeping of every authenticated request, refused or not
		s.TokenAccesses[tok.ID] = opCollect(t, c.ServiceTokens.AllAccesses(ctx, &platform.ListServiceTokenAccessesParams{Organization: org, ID: tok.ID, ListParams: page}))
	}
	s.Invoices = opCollect(t, c.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: org, ListParams: page}))
	if s.PaymentMethod, err = c.Billing.GetPaymentMethod(ctx, &platform.GetPaymentMethodParams{Organization: org}); errors.Is(err, platform.ErrNotFound) {
		s.PaymentMethod = nil
	} else if err != nil {
		t.Fatal(err)
	}
	return s
}

// worldState is what a request may change of a server: its whole state as
// a snapshot holds it (fake.StateOf: every resource, the clock, the
// transitions waiting on it, the IDs to come, the credentials), with the
// event stream and the webhook deliveries attempted, which a snapshot
// leaves out. What every authenticated request records, refused or not
// (the tokens' last use), is left out.
type worldState struct {
	// State is compared as its JSON (fake.StateJSON) is: compare two
	// worldStates with cmp.Equal or worldStateDiff, which shows a
	// difference line by line.
	State  fake.State
	Events []string
	// Deliveries are the webhook deliveries attempted, as "webhook event
	// #attempt"; their outcome, which comes later, is left out.
	Deliveries []string
}

// worldStateDiff returns "" when a and b are the same worldState, else
// their difference (-a +b), the states as JSON indented so that it shows
// line by line.
func worldStateDiff(t testing.TB, a, b worldState) string {
	t.Helper()
	if cmp.Equal(a, b) {
		return ""
	}
	type shown struct {
		State              string
		Events, Deliveries []string
	}
	var out [2]shown
	for i, st := range []worldState{a, b} {
		state, err := st.State.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(state), "", " "); err != nil {
			t.Fatal(err)
		}
		out[i] = shown{buf.String(), st.Events, st.Deliveries}
	}
	return cmp.Diff(out[0], out[1])
}

// opWorldState returns srv's worldState, the deliveries in flight settled
// first. It is the check that a refused request changed nothing: cheaper
// than reading the world through the API (opSnapshot), and complete. It
// also serves in a Cleanup, after the test's context is canceled.
func opWorldState(t testing.TB, srv *fake.Server) worldState {
	t.Helper()
	if err := srv.FlushDeliveries(context.WithoutCancel(t.Context())); err != nil {
		t.Fatal(err)
	}
	st := worldState{Events: srv.EventNames()}
	for _, d := range srv.Deliveries() {
		st.Deliveries = append(st.Deliveries, fmt.Sprintf("%s %s #%d", d.WebhookID, d.Event, d.Attempt))
	}
	var err error
	if st.State, err = fake.StateOf(srv); err != nil {
		t.Fatal(err)
	}
	return st
}

// opAdminInProcess is an SDK client with srv's admin token that calls
// srv's handler in process rather than through its listener: the same
// requests, without the network's cost, for the many snapshots of the
// operation tables.
func opAdminInProcess(t testing.TB, srv *fake.Server) *platform.Client {
	t.Helper()
	return opClientInProcess(t, srv, srv.AdminToken())
}

// opClientInProcess is srv.ClientFor(tok) calling srv's handler in process
// (opInProcess), its waits moving srv's clock as the fake's clients' do.
func opClientInProcess(t testing.TB, srv *fake.Server, tok fake.Token) *platform.Client {
	t.Helper()
	hc := &http.Client{Transport: fake.PollAhead(srv, opInProcess{srv})}
	c, err := platform.NewClient(append(srv.ClientOptions(tok), platform.WithHTTPClient(hc))...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// opInProcess is an http.RoundTripper that serves each request with srv's
// handler in process, handing it the request as srv's listener would (the
// target as sent, the Host, a loopback remote address, a body), for the
// operation tables' many requests: the handler, its answers and its
// request log are those of the network, without its cost.
type opInProcess struct{ srv *fake.Server }

func (tr opInProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	in := r.Clone(r.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	target, err := url.ParseRequestURI(r.URL.RequestURI())
	if err != nil {
		return nil, err
	}
	in.URL, in.RequestURI, in.RemoteAddr = target, r.URL.RequestURI(), "127.0.0.1:40000"
	if in.Host == "" {
		in.Host = r.URL.Host
	}
	rec := httptest.NewRecorder()
	tr.srv.ServeHTTP(rec, in)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// opInProcessHosts maps the host of each server the operation tables run
// cases on (opRunCases) to the server, whose OAuth requests (the grants of
// the scope table: oauthSend) are then served in process too.
var opInProcessHosts sync.Map

// opServeInProcess serves srv's OAuth requests in process until t ends
// (opInProcessHosts).
func opServeInProcess(t *testing.T, srv *fake.Server) {
	base, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	opInProcessHosts.Store(base.Host, srv)
	t.Cleanup(func() { opInProcessHosts.Delete(base.Host) })
}

// opSend is send (server_test.go) served by srv's handler in process
// (opInProcess), for the operation tables' many requests.
func opSend(t testing.TB, srv *fake.Server, method, path, auth, body string) wire {
	t.Helper()
	return sendThrough(t, &http.Client{Transport: opInProcess{srv}, CheckRedirect: noFollow}, srv, method, path, auth, body)
}

// opCase is one request of an operation table: credentials, made in the
// world of the request, send the request the operation's fixture builds
// for need, and are allowed (the row's status) or refused (the plain 404 of
// a missing resource, and nothing changed).
type opCase struct {
	name  string
	need  string
	allow bool
	// auth makes the credentials in w, for call, and returns their
	// Authorization header.
	auth func(w *opWorld, call opCall) string
}

// opReads are the operations other than GETs that change nothing: a
// throttler check, a question sent with a body.
var opReads = map[string]bool{"vtctld_check_throttler": true}

// opRunCases runs an operation's cases, each as a subtest of t, on one fake
// for the operation, which base's world is restored into. An allowed read
// leaves the world as it was; with changes, an allowed change must change
// it (a check of the fixture's request, which one table making it is
// enough for).
//
// The cases whose request changes nothing when the test passes share one
// world: a read's, and a change's refused ones that send the fixture's
// request of no particular need (a read's fixture builds the same request
// for every need: need picks among the requests of a change). Their
// credentials are made first, then the cases run in parallel, after which
// the world must be as it was.
//
// Every other case runs in a world of its own, one after another: base's
// world restored, and the fixture's request for the case's need made in
// it (the world is the same for every case of a need: the fake is
// deterministic, and restoring base resets its IDs and random numbers).
func opRunCases(t *testing.T, name string, op tsvOperation, base *opTemplate, cases []opCase, changes bool) {
	var shared, own []opCase
	for _, oc := range cases {
		if op.method == http.MethodGet || opReads[name] || (!oc.allow && oc.need == "") {
			shared = append(shared, oc)
		} else {
			own = append(own, oc)
		}
	}
	srv := fake.NewServer(t, base.opts...)
	opServeInProcess(t, srv)
	for _, oc := range own {
		t.Run(oc.name, func(t *testing.T) {
			w := base.restore(t, srv)
			call := opFixtures[name](w, oc.need)
			auth := oc.auth(w, call)
			if oc.allow && !changes {
				opOutcome(t, op, opSend(t, w.srv, op.method, call.path(t, w, op), auth, call.body), oc.allow)
				return
			}
			before := opWorldState(t, w.srv)
			opOutcome(t, op, opSend(t, w.srv, op.method, call.path(t, w, op), auth, call.body), oc.allow)
			after := opWorldState(t, w.srv)
			switch changed := !cmp.Equal(before, after); {
			case !oc.allow && changed:
				t.Errorf("a refused request changed the world (-before +after):\n%s", worldStateDiff(t, before, after))
			case oc.allow && !changed:
				t.Error("the request succeeded but changed nothing the snapshot shows")
			}
		})
	}
	if len(shared) == 0 {
		return
	}
	w := base.restore(t, srv)
	call := opFixtures[name](w, "")
	auths := make([]string, len(shared))
	for i, oc := range shared {
		auths[i] = oc.auth(w, call)
	}
	before := opWorldState(t, w.srv)
	t.Cleanup(func() { // after the parallel cases
		if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
			t.Errorf("requests that change nothing changed the world (-before +after):\n%s", diff)
		}
	})
	for i, oc := range shared {
		t.Run(oc.name, func(t *testing.T) {
			t.Parallel()
			opOutcome(t, op, opSend(t, w.srv, op.method, call.path(t, w, op), auths[i], call.body), oc.allow)
		})
	}
}

// opOutcome checks a response: the operation's status when allowed, the
// plain 404 of a missing resource when refused.
func opOutcome(t *testing.T, op tsvOperation, r wire, allow bool) {
	t.Helper()
	if allow {
		wantStatus(t, r, op.status)
		return
	}
	if e := wantError(t, r, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
		t.Errorf("message %q, want the plain Not Found of a missing resource", e.Message)
	}
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
// status, served by its operation's route. With
// TestOpFixturesCoverOperations, this checks that every row of
// operations.tsv but the OAuth server's two has a route.
func TestOpFixturesSucceed(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for _, name := range opOperations(t, func(tsvOperation) bool { return true }) {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newOpWorld(t)
			call := opFixtures[name](w, "")
			path := call.path(t, w, op)
			r := send(t, w.srv, op.method, path, admin(w.srv), call.body)
			reqs := w.srv.Requests()
			if got := reqs[len(reqs)-1].Operation; got != name {
				served := "matched no route"
				if got != "" {
					served = "was served by the route of " + got
				}
				t.Errorf("%s %s %s, want %s's: add route{pattern: %q, op: %q, ...} to its group's routes in fake/",
					op.method, path, served, name, op.method+" "+op.path, name)
			}
			wantStatus(t, r, op.status)
		})
	}
}

// TestOpFixturesCoverOperations checks that every row of operations.tsv
// has a fixture, so that the operation tables run it: an operation added to
// operations.tsv without one fails here. The OAuth server's two rows have
// theirs in opOAuthServer. A fixture of an operation operations.tsv does
// not have fails too.
func TestOpFixturesCoverOperations(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	var missing []string
	for name := range ops {
		_, api := opFixtures[name]
		_, oauth := opOAuthServer[name]
		if api == oauth {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("operations of operations.tsv with no fixture, or with both an API and an OAuth server fixture: %s", strings.Join(missing, " "))
	}
	for name := range opFixtures {
		if _, ok := ops[name]; !ok {
			t.Errorf("opFixtures has %s, which operations.tsv does not", name)
		}
	}
	for name := range opOAuthServer {
		if op, ok := ops[name]; !ok || op.perms != nil || op.scopes != nil {
			t.Errorf("opOAuthServer has %s, which is not a row of operations.tsv without permissions and scopes", name)
		}
	}
}

// TestOpOAuthServerRows checks the OAuth server's rows of operations.tsv:
// without any API credential, each answers its row's status (a redirect
// with a code and the state, a token).
func TestOpOAuthServerRows(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for name, do := range opOAuthServer {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := do(newOpWorld(t))
			if r.status != ops[name].status {
				t.Fatalf("status %d, want %d; body %s", r.status, ops[name].status, r.body)
			}
			switch name {
			case "oauth_authorize":
				loc, err := url.Parse(r.header.Get("Location"))
				if err != nil || loc.Query().Get("code") == "" || loc.Query().Get("state") != "xyz" {
					t.Errorf("redirect to %q, want a code and the state", r.header.Get("Location"))
				}
			case "oauth_token":
				tok := decode[oauthTokenResponse](t, wire{body: []byte(r.body)})
				if tok.AccessToken == "" || tok.TokenType == "" || tok.RefreshToken == "" {
					t.Errorf("token response %+v lacks a token", tok)
				}
			case "oauth_authorize_device":
				da := decode[deviceAuthAnswer](t, wire{body: []byte(r.body)})
				if da.DeviceCode == "" || da.UserCode == "" || da.VerificationURI == "" {
					t.Errorf("device authorization %+v lacks a code or where to enter it", da)
				}
			case "oauth_revoke":
				if r.body != "" {
					t.Errorf("revocation body %q, want none", r.body)
				}
			}
		})
	}
}

// opVSchemas reads a MySQL branch's routing rules and its keyspaces'
// VSchemas into s.
func opVSchemas(t testing.TB, c *platform.Client, s *opState, org, db, branch string) {
	t.Helper()
	ctx, key := context.WithoutCancel(t.Context()), db+"/"+branch
	var err error
	if s.RoutingRules[key], err = c.Branches.GetRoutingRules(ctx, &platform.GetRoutingRulesParams{Organization: org, Database: db, Branch: branch}); err != nil {
		t.Fatal(err)
	}
	for _, ks := range s.Keyspaces[key] {
		if s.VSchemas[key+"/"+ks.Name], err = c.Keyspaces.GetVSchema(ctx, &platform.GetVSchemaParams{Organization: org, Database: db, Branch: branch, Keyspace: ks.Name}); err != nil {
			t.Fatal(err)
		}
	}
}

// opTopology adds a MySQL branch's tablets and shards to s.
func opTopology(t testing.TB, c *platform.Client, s *opState, org, db, branch string) {
	t.Helper()
	ctx, key := context.WithoutCancel(t.Context()), db+"/"+branch
	gs, err := c.Vitess.ListTablets(ctx, &platform.ListTabletsParams{Organization: org, Database: db, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	s.Tablets[key] = gs
	seen := map[string]bool{}
	for _, g := range gs {
		if seen[g.Keyspace+"/"+g.Shard] {
			continue
		}
		seen[g.Keyspace+"/"+g.Shard] = true
		sh, err := c.Vitess.GetShard(ctx, &platform.GetShardParams{Organization: org, Database: db, Branch: branch, Keyspace: g.Keyspace, Shard: g.Shard})
		if err != nil {
			t.Fatal(err)
		}
		s.Shards[key+"/"+g.Keyspace+"/"+g.Shard] = sh
		if g.Type == platform.TabletPrimary {
			st, err := c.Vitess.GetThrottlerStatus(ctx, &platform.GetThrottlerStatusParams{Organization: org, Database: db, Branch: branch, TabletAlias: g.Tablets[0].Alias})
			if err != nil {
				t.Fatal(err)
			}
			st.Raw = nil // the same as the fields, but for the order of its maps
			s.TabletThrottlers[key+"/"+g.Keyspace+"/"+g.Shard] = st
		}
	}
	kr, err := c.Vitess.GetKeyspaceRoutingRules(ctx, &platform.GetKeyspaceRoutingRulesParams{Organization: org, Database: db, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	s.KeyspaceRules[key] = kr.Rules
}

// opImportHost is the external database of the data import fixtures.
const opImportHost = "legacy.example.com"

// importSource sets up the external database of the data import fixtures.
func (w *opWorld) importSource() {
	w.t.Helper()
	if err := w.srv.SetImportSource(w.org, opImportHost, fake.ImportSource{Reachable: true}); err != nil {
		w.t.Fatal(err)
	}
}

// opImportBody is the body of a test or start of an import into database.
func opImportBody(database string) string {
	return `{"database_name":"` + database + `","connection":{"hostname":"` + opImportHost + `","schema_name":"legacy","port":3306,"username":"u","password":"p","ssl_mode":"required"}}`
}

// opImport is a fixture of an operation on the import of app: app is
// deleted and made again by an import, which then runs for d (the data is
// copied after a minute and ten seconds; app has a development branch dev
// after five) and is moved on by each of then and another d.
func opImport(d time.Duration, then ...func(*platform.DataImportsService, context.Context, *platform.DataImportParams) (*platform.DataImport, error)) opFixture {
	return func(w *opWorld, _ string) opCall {
		w.t.Helper()
		ctx := w.t.Context()
		if err := w.c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: w.org, Database: drDB}); err != nil {
			w.t.Fatal(err)
		}
		w.importSource()
		_, err := w.c.DataImports.Start(ctx, &platform.StartDataImportParams{
			Organization: w.org, DatabaseName: drDB,
			Connection: platform.DataImportConnection{Hostname: opImportHost, Database: "legacy", Username: "u", Password: "p"},
		})
		if err != nil {
			w.t.Fatal(err)
		}
		// A development branch dev, as in app before, for the grants on a
		// branch that name it.
		w.srv.Advance(5 * time.Second)
		if _, err := w.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: "dev", ParentBranch: "main"}); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(max(d-5*time.Second, 0))
		for _, fn := range then {
			if _, err := fn(w.c.DataImports, ctx, &platform.DataImportParams{Organization: w.org, Database: drDB}); err != nil {
				w.t.Fatal(err)
			}
			w.srv.Advance(d)
		}
		return opCall{}
	}
}
