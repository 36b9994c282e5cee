package fake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// mtEnv is a server with app (drEnv's, sharded: main has the keyspaces
// app, with users and audit, and sharded, two shards, with events) and
// the unsharded keyspace archive (wfSetup's).
type mtEnv struct {
	*drEnv
}

func newMTEnv(t *testing.T) *mtEnv {
	t.Helper()
	e := &mtEnv{newDREnv(t, true)}
	wfSetup(t, e.srv, "main")
	e.srv.Advance(time.Minute)
	return e
}

// mtWorkflow is the MoveTables workflow the tests make: users from app to
// sharded.
const mtWorkflow = "move-users"

// create asks for the MoveTables workflow of p (its org, database and
// branch filled in) and waits for its operation; it answers the
// operation.
func (e *mtEnv) create(p platform.CreateMoveTablesParams) (*platform.VitessOperation, error) {
	e.t.Helper()
	p.Organization, p.Database, p.Branch = e.org, drDB, "main"
	ref, err := e.c.Vitess.CreateMoveTables(e.t.Context(), &p)
	if err != nil {
		return nil, err
	}
	return e.settle(ref.ID), nil
}

// usersMove is the create of mtWorkflow.
func usersMove() platform.CreateMoveTablesParams {
	return platform.CreateMoveTablesParams{Workflow: mtWorkflow, SourceKeyspace: drDB, TargetKeyspace: "sharded", Tables: []string{"users"}}
}

// settle advances the clock until operation id has finished, and
// returns it.
func (e *mtEnv) settle(id string) *platform.VitessOperation {
	e.t.Helper()
	e.srv.Advance(5 * time.Second)
	op, err := e.c.Vitess.GetOperation(e.t.Context(), &platform.GetVitessOperationParams{Organization: e.org, Database: drDB, Branch: "main", ID: id})
	if err != nil {
		e.t.Fatal(err)
	}
	if !op.State.Done() {
		e.t.Fatalf("operation %s is %s after 5 s", id, op.State)
	}
	return op
}

// must fails the test on an operation that did not complete.
func (e *mtEnv) must(op *platform.VitessOperation, err error) *platform.MoveTablesResult {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	if op.State != platform.VitessOperationCompleted {
		e.t.Fatalf("operation %s %s: %s, error %v", op.ID, op.Action, op.State, deref(op.Error))
	}
	r, err := op.MoveTables()
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// act runs a MoveTables action on mtWorkflow and waits for its operation.
func (e *mtEnv) act(action string, body any) (*platform.VitessOperation, error) {
	e.t.Helper()
	ctx := e.t.Context()
	var ref *platform.VitessOperationRef
	var err error
	switch p := body.(type) {
	case *platform.SwitchTrafficParams:
		p.Organization, p.Database, p.Branch, p.Workflow = e.org, drDB, "main", mtWorkflow
		if p.TargetKeyspace == "" {
			p.TargetKeyspace = "sharded"
		}
		if action == "reverse" {
			ref, err = e.c.Vitess.ReverseTraffic(ctx, p)
		} else {
			ref, err = e.c.Vitess.SwitchTraffic(ctx, p)
		}
	case *platform.CancelMoveTablesParams:
		p.Organization, p.Database, p.Branch, p.Workflow = e.org, drDB, "main", mtWorkflow
		if p.TargetKeyspace == "" {
			p.TargetKeyspace = "sharded"
		}
		ref, err = e.c.Vitess.CancelMoveTables(ctx, p)
	case *platform.CompleteMoveTablesParams:
		p.Organization, p.Database, p.Branch, p.Workflow = e.org, drDB, "main", mtWorkflow
		if p.TargetKeyspace == "" {
			p.TargetKeyspace = "sharded"
		}
		ref, err = e.c.Vitess.CompleteMoveTables(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	return e.settle(ref.ID), nil
}

// mtParams names mtWorkflow.
func (e *mtEnv) mtParams() *platform.GetMoveTablesParams {
	return &platform.GetMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "sharded"}
}

// view is what every view shows of the workflow: the streams' state,
// the documented workflow's state, the traffic state, the routing
// rules of both endpoints (which must agree) and the two keyspaces'
// tables and VSchema tables.
type mtView struct {
	Streams, Doc, Traffic string
	Rules                 []string
	AppTables, Tables     []string
	AppVSchema, VSchema   []string
}

func (e *mtEnv) view() mtView {
	e.t.Helper()
	ctx := e.t.Context()
	var v mtView
	list, err := e.c.Vitess.ListWorkflows(ctx, &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded"})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, w := range list.Workflows {
		if w.Name == mtWorkflow {
			v.Streams = w.State()
			st, err := e.c.Vitess.MoveTablesStatus(ctx, e.mtParams())
			if err != nil {
				e.t.Fatal(err)
			}
			v.Traffic = st.TrafficState
		}
	}
	docs, err := e.c.Workflows.List(ctx, &platform.ListWorkflowsParams{Organization: e.org, Database: drDB})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, d := range docs.Items {
		if d.Name == mtWorkflow {
			v.Doc = string(d.State)
		}
	}
	rr, err := e.c.Vitess.GetRoutingRules(ctx, &platform.GetVitessRoutingRulesParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rr.Rules {
		v.Rules = append(v.Rules, r.FromTable+">"+strings.Join(r.ToTables, ","))
	}
	doc, err := e.c.Branches.GetRoutingRules(ctx, &platform.GetRoutingRulesParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	var parsed struct {
		Rules []struct {
			FromTable string   `json:"from_table"`
			ToTables  []string `json:"to_tables"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(doc.Raw), &parsed); err != nil {
		e.t.Fatal(err)
	}
	var docRules []string
	for _, r := range parsed.Rules {
		docRules = append(docRules, r.FromTable+">"+strings.Join(r.ToTables, ","))
	}
	if diff := cmp.Diff(v.Rules, docRules); diff != "" {
		e.t.Errorf("the two routing-rule endpoints differ (-vtctld +document):\n%s", diff)
	}
	v.AppTables, v.AppVSchema = e.keyspaceTables(drDB)
	v.Tables, v.VSchema = e.keyspaceTables("sharded")
	return v
}

// keyspaceTables are a keyspace's tables in its schema and in its
// VSchema.
func (e *mtEnv) keyspaceTables(ks string) (tables, vschema []string) {
	e.t.Helper()
	ctx := e.t.Context()
	schema, err := e.c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: ks})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, t := range schema.Tables {
		tables = append(tables, t.Name)
	}
	vs, err := e.c.Keyspaces.GetVSchema(ctx, &platform.GetVSchemaParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: ks})
	if err != nil {
		e.t.Fatal(err)
	}
	var doc struct {
		Tables map[string]any `json:"tables"`
	}
	if err := json.Unmarshal([]byte(vs.Raw), &doc); err != nil {
		e.t.Fatal(err)
	}
	for t := range doc.Tables {
		vschema = append(vschema, t)
	}
	slices.Sort(tables)
	slices.Sort(vschema)
	return tables, vschema
}

// TestMoveTablesLifecycle walks a MoveTables workflow from create to
// complete and checks, at each step, every view: the vtctld workflows,
// the status, the documented workflow, both routing-rule endpoints, the
// keyspaces' schema and VSchema.
func TestMoveTablesLifecycle(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	rulesTo := func(reads, writes string) []string {
		var out []string
		for _, suffix := range []string{"", "@replica", "@rdonly"} {
			to := writes
			if suffix != "" {
				to = reads
			}
			for _, from := range []string{"users", "app.users", "sharded.users"} {
				if from == to+".users" {
					continue
				}
				out = append(out, from+suffix+">"+to+".users")
			}
		}
		return out
	}
	before := mtView{AppTables: []string{"audit", "users"}, Tables: []string{"events"}, AppVSchema: []string{"audit", "users"}, VSchema: []string{"events"}}
	if diff := cmp.Diff(before, e.view()); diff != "" {
		t.Fatalf("before (-want +got):\n%s", diff)
	}
	r := e.must(e.create(usersMove()))
	if !strings.Contains(r.Summary, "Successfully created the move-users MoveTables workflow on (2) target primary tablets") {
		t.Errorf("create summary %q", r.Summary)
	}
	// The tables are in the target from the create on, in its schema and
	// its VSchema; complete drops them from the source.
	pending := before
	pending.Tables, pending.VSchema = []string{"events", "users"}, []string{"events", "users"}
	pending.Streams, pending.Doc, pending.Traffic = platform.VReplicationCopying, "pending", platform.TrafficNotSwitched
	pending.Rules = rulesTo("app", "app")
	if diff := cmp.Diff(pending, e.view()); diff != "" {
		t.Fatalf("pending (-want +got):\n%s", diff)
	}
	e.srv.Advance(5 * time.Second)
	copying := pending
	copying.Streams, copying.Doc, copying.Traffic = platform.VReplicationCopying, "copying", platform.TrafficNotSwitched
	copying.Rules = rulesTo("app", "app")
	if diff := cmp.Diff(copying, e.view()); diff != "" {
		t.Fatalf("copying (-want +got):\n%s", diff)
	}
	shown, err := e.c.Vitess.GetMoveTables(t.Context(), e.mtParams())
	if err != nil {
		t.Fatal(err)
	}
	w := shown.Workflow
	if len(w.Streams) != 2 || w.Streams[0].Shard != "-80" || w.Streams[1].Shard != "80-" || w.Streams[0].SourceShard != "-" || w.Type != "MoveTables" {
		t.Errorf("show: %+v", w)
	}
	e.srv.Advance(time.Minute)
	running := copying
	running.Streams, running.Doc = platform.VReplicationRunning, "running"
	if diff := cmp.Diff(running, e.view()); diff != "" {
		t.Fatalf("running (-want +got):\n%s", diff)
	}
	r = e.must(e.act("switch", &platform.SwitchTrafficParams{TabletTypes: []string{"replica", "rdonly"}}))
	if r.StartState != platform.TrafficNotSwitched || r.CurrentState != platform.TrafficReadsSwitched {
		t.Errorf("switch reads: %+v", r)
	}
	reads := running
	reads.Doc, reads.Traffic, reads.Rules = "switched_replicas", platform.TrafficReadsSwitched, rulesTo("sharded", "app")
	if diff := cmp.Diff(reads, e.view()); diff != "" {
		t.Fatalf("reads switched (-want +got):\n%s", diff)
	}
	e.must(e.act("switch", &platform.SwitchTrafficParams{TabletTypes: []string{"primary"}}))
	all := reads
	all.Doc, all.Traffic, all.Rules = "switched_primaries", platform.TrafficAllSwitched, rulesTo("sharded", "sharded")
	if diff := cmp.Diff(all, e.view()); diff != "" {
		t.Fatalf("all switched (-want +got):\n%s", diff)
	}
	r = e.must(e.act("complete", &platform.CompleteMoveTablesParams{}))
	if r.Summary != "Successfully completed the move-users workflow in the sharded keyspace" {
		t.Errorf("complete summary %q", r.Summary)
	}
	done := mtView{Doc: "completed", AppTables: []string{"audit"}, Tables: []string{"events", "users"}, AppVSchema: []string{"audit"}, VSchema: []string{"events", "users"}}
	if diff := cmp.Diff(done, e.view()); diff != "" {
		t.Fatalf("completed (-want +got):\n%s", diff)
	}
	if _, err := e.c.Vitess.GetMoveTables(t.Context(), e.mtParams()); !isStatus(err, 404) {
		t.Errorf("show after complete: %v, want 404", err)
	}
}

// isStatus reports whether err is an API error of status code.
func isStatus(err error, code int) bool {
	var e *platform.Error
	return errors.As(err, &e) && e.StatusCode == code
}

// mtRefusal is a request that must be refused, changing nothing.
type mtRefusal struct {
	name, method, path, body string
	status                   int
	want                     string // in the message
}

// refuse sends each case and checks its refusal and that every view is
// as before.
func (e *mtEnv) refuse(t *testing.T, cases []mtRefusal) {
	t.Helper()
	before := e.view()
	const base = "/v1/organizations/acme/databases/app/branches/main"
	for _, tc := range cases {
		r := send(t, e.srv, tc.method, base+tc.path, admin(e.srv), tc.body)
		code := map[int]string{400: "bad_request", 404: "not_found"}[tc.status]
		if code == "" {
			code = "unprocessable"
		}
		got := wantError(t, r, tc.status, code)
		if !strings.Contains(got.Message, tc.want) {
			t.Errorf("%s: message %q, want it to contain %q", tc.name, got.Message, tc.want)
		}
	}
	e.srv.Advance(10 * time.Second)
	if diff := cmp.Diff(before, e.view()); diff != "" {
		t.Errorf("refusals changed the views (-before +after):\n%s", diff)
	}
}

// TestMoveTablesRefusals: each action refused where Vitess (or the
// documented workflow's state) refuses it, with a 422 naming the state
// or the field, a 404, or a 400 for a malformed query value; none changes
// anything.
func TestMoveTablesRefusals(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	const wfs = "/move-tables/workflows"
	const wf = wfs + "/" + mtWorkflow
	create := func(name, body, want string) mtRefusal {
		return mtRefusal{name: "create: " + name, method: "POST", path: wfs, body: body, status: 422, want: want}
	}
	body := func(extra string) string {
		return `{"workflow":"move-users","source_keyspace":"app","target_keyspace":"sharded","tables":["users"]` + extra + `}`
	}
	e.refuse(t, []mtRefusal{
		create("no name", `{"source_keyspace":"app","target_keyspace":"sharded","tables":["users"]}`, "workflow is required"),
		create("no source", `{"workflow":"w","target_keyspace":"sharded","tables":["users"]}`, "source_keyspace is required"),
		create("unknown target", `{"workflow":"w","source_keyspace":"app","target_keyspace":"nope","tables":["users"]}`, `target_keyspace "nope" is not a keyspace`),
		create("same keyspace", `{"workflow":"w","source_keyspace":"app","target_keyspace":"app","tables":["users"]}`, "are both"),
		create("no tables", `{"workflow":"w","source_keyspace":"app","target_keyspace":"sharded"}`, "tables is required"),
		create("tables and all", body(`,"all_tables":true`), "not both"),
		create("exclude without all", body(`,"exclude_tables":["audit"]`), "exclude_tables needs all_tables"),
		create("exclude unknown", `{"workflow":"w","source_keyspace":"app","target_keyspace":"sharded","all_tables":true,"exclude_tables":["nope"]}`, `exclude_tables[0] "nope"`),
		create("unknown table", `{"workflow":"w","source_keyspace":"app","target_keyspace":"sharded","tables":["nope"]}`, `table "nope" is not in keyspace app`),
		create("table twice", `{"workflow":"w","source_keyspace":"app","target_keyspace":"sharded","tables":["users","users"]}`, "named twice"),
		create("on_ddl", body(`,"on_ddl":"DROP"`), "on_ddl"),
		create("tablet type", body(`,"tablet_types":["spare"]`), "tablet_types[0]"),
		create("cell", body(`,"cells":["mars"]`), "cells[0]"),
		create("auto increment", body(`,"sharded_auto_increment_handling":"KEEP"`), "sharded_auto_increment_handling"),
		create("REPLACE without global", body(`,"sharded_auto_increment_handling":"REPLACE"`), "global_keyspace is required"),
		create("sharded global", body(`,"global_keyspace":"sharded"`), "global_keyspace sharded is sharded"),
		create("time zone", body(`,"source_time_zone":"Mars/Olympus"`), `source_time_zone "Mars/Olympus" is not an IANA time zone`),
		create("time zone's shape", body(`,"source_time_zone":"../zoneinfo/UTC"`), `source_time_zone "../zoneinfo/UTC" is not an IANA time zone`),
		create("atomic copy", body(`,"atomic_copy":true`), "atomic_copy needs all_tables"),
		create("long name", `{"workflow":"`+strings.Repeat("w", 64)+`","source_keyspace":"app","target_keyspace":"sharded","tables":["users"]}`, "longer than 63 characters"),
		create("name with a slash", `{"workflow":"a/b","source_keyspace":"app","target_keyspace":"sharded","tables":["users"]}`, `workflow "a/b": a name has no slash or blank`),
		create("name with a blank", `{"workflow":"a b","source_keyspace":"app","target_keyspace":"sharded","tables":["users"]}`, `workflow "a b": a name has no slash or blank`),
		create("all tables excluded", `{"workflow":"w","source_keyspace":"app","target_keyspace":"sharded","all_tables":true,"exclude_tables":["users","audit"]}`, "all_tables: keyspace app has no table to move"),
		create("unknown global", body(`,"global_keyspace":"nope"`), `global_keyspace "nope" is not a keyspace`),
		{"cancel unknown", "POST", wf + "/cancel", `{"target_keyspace":"sharded"}`, 404, ""},
		{"complete unknown", "POST", wf + "/complete", `{"target_keyspace":"sharded"}`, 404, ""},
		{"show unknown", "GET", wf + "?target_keyspace=sharded", "", 404, ""},
		{"show without keyspace", "GET", wf, "", 422, "target_keyspace is required"},
		{"status unknown keyspace", "GET", wf + "/status?target_keyspace=nope", "", 422, `target_keyspace "nope"`},
		{"switch unknown", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded"}`, 404, ""},
		{"list without keyspace", "GET", "/vtctld/workflows", "", 422, "keyspace is required"},
		{"list bad flag", "GET", "/vtctld/workflows?keyspace=sharded&active_only=maybe", "", 400, "active_only"},
		{"start unknown", "POST", "/vtctld/workflows/nope/start", `{"keyspace":"sharded"}`, 404, ""},
		{"stop without keyspace", "POST", "/vtctld/workflows/nope/stop", `{}`, 422, "keyspace is required"},
	})

	// A create in progress holds the name; then the workflow copies.
	ref, err := e.c.Vitess.CreateMoveTables(t.Context(), &platform.CreateMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, SourceKeyspace: drDB, TargetKeyspace: "sharded", Tables: []string{"users"}})
	if err != nil {
		t.Fatal(err)
	}
	r := send(t, e.srv, "POST", "/v1/organizations/acme/databases/app/branches/main"+wfs, admin(e.srv), body(""))
	if got := wantError(t, r, 422, "unprocessable"); !strings.Contains(got.Message, "has operation "+ref.ID) {
		t.Errorf("a second create while the first runs: %q", got.Message)
	}
	e.settle(ref.ID)
	e.srv.Advance(5 * time.Second) // copying
	e.refuse(t, []mtRefusal{
		create("name taken", `{"workflow":"move-users","source_keyspace":"app","target_keyspace":"sharded","tables":["audit"]}`, `workflow "move-users" exists in keyspace sharded already`),
		create("table copied into the target", `{"workflow":"other","source_keyspace":"app","target_keyspace":"sharded","tables":["users"]}`, `table "users" is in keyspace sharded already`),
		create("table moving", `{"workflow":"other","source_keyspace":"app","target_keyspace":"archive","tables":["users"]}`, `table "users" is already moving in workflow #1`),
		create("name of a documented workflow", `{"workflow":"move-users","source_keyspace":"app","target_keyspace":"archive","tables":["audit"]}`, `workflow "move-users" is taken by workflow #1`),
		{"switch while copying", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded"}`, 422, "workflow move-users is copying; switch-traffic needs it running"},
		{"reverse before switch", "POST", wf + "/reverse-traffic", `{"target_keyspace":"sharded"}`, 422, "reverse-traffic needs it switched_replicas or switched_primaries"},
		{"complete before switch", "POST", wf + "/complete", `{"target_keyspace":"sharded"}`, 422, "complete needs its traffic switched"},
		{"switch of another keyspace", "POST", wf + "/switch-traffic", `{"target_keyspace":"archive"}`, 404, ""},
	})

	e.srv.Advance(time.Minute) // running
	e.refuse(t, []mtRefusal{
		{"writes before reads", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded","tablet_types":["primary"]}`, 422, "switch reads (replica and rdonly) before writes (primary)"},
		{"replica alone", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded","tablet_types":["replica"]}`, 422, "name replica and rdonly together"},
		{"unknown tablet type", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded","tablet_types":["replica","spare"]}`, 422, `tablet_types[1] "spare"`},
		{"negative lag", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded","max_replication_lag_allowed":-1}`, 422, "max_replication_lag_allowed"},
		{"reverse with sequences", "POST", wf + "/reverse-traffic", `{"target_keyspace":"sharded","initialize_target_sequences":true}`, 422, "initialize_target_sequences is for switch-traffic only"},
		{"complete while running", "POST", wf + "/complete", `{"target_keyspace":"sharded"}`, 422, "workflow move-users is running"},
	})

	e.must(e.act("switch", &platform.SwitchTrafficParams{TabletTypes: []string{"rdonly", "replica"}}))
	e.refuse(t, []mtRefusal{
		{"reads again", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded","tablet_types":["replica","rdonly"]}`, 422, "changes nothing"},
		{"reverse writes not switched", "POST", wf + "/reverse-traffic", `{"target_keyspace":"sharded","tablet_types":["primary"]}`, 422, "changes nothing"},
		{"cancel with reads switched", "POST", wf + "/cancel", `{"target_keyspace":"sharded"}`, 422, "reverse its traffic before cancelling"},
		{"stop while reads switched is fine, complete is not", "POST", wf + "/complete", `{"target_keyspace":"sharded"}`, 422, "switched_replicas"},
	})

	e.must(e.act("switch", &platform.SwitchTrafficParams{TabletTypes: []string{"primary"}}))
	e.refuse(t, []mtRefusal{
		{"reverse reads before writes", "POST", wf + "/reverse-traffic", `{"target_keyspace":"sharded","tablet_types":["replica","rdonly"]}`, 422, "reverse writes (primary) before reads"},
		{"keep and rename", "POST", wf + "/complete", `{"target_keyspace":"sharded","keep_data":true,"rename_tables":true}`, 422, "keep_data and rename_tables"},
		{"switch again", "POST", wf + "/switch-traffic", `{"target_keyspace":"sharded"}`, 422, "switch-traffic needs it"},
		{"stop after writes switched", "POST", "/vtctld/workflows/" + mtWorkflow + "/stop", `{"keyspace":"sharded"}`, 422, "stop needs it"},
	})
}

// streams lists mtWorkflow's streams as the vtctld list shows them:
// state and rows copied of each.
func (e *mtEnv) streams(q string) []string {
	e.t.Helper()
	p := &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded", Workflow: mtWorkflow}
	if q == "active" {
		p.ActiveOnly = platform.Ptr(true)
	}
	list, err := e.c.Vitess.ListWorkflows(e.t.Context(), p)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, w := range list.Workflows {
		for _, s := range w.Streams {
			out = append(out, fmt.Sprintf("%s %s<%s %s %d", w.Name, s.Shard, s.SourceShard, s.State, s.RowsCopied))
		}
	}
	return out
}

// TestMoveTablesStartStop: stopping streams pauses the copy (and the
// documented workflow shows stopped), starting resumes it for what was
// left; auto_start off starts stopped; stop_after_copy stops once
// copied; start and stop of a workflow already so change nothing.
func TestMoveTablesStartStop(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	p := usersMove()
	p.AutoStart, p.StopAfterCopy = platform.Ptr(false), platform.Ptr(true)
	e.must(e.create(p))
	e.srv.Advance(time.Hour)
	want := func(state, doc string, rows int) {
		t.Helper()
		got := e.streams("")
		exp := []string{fmt.Sprintf("move-users -80<- %s %d", state, rows), fmt.Sprintf("move-users 80-<- %s %d", state, rows)}
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("streams (-want +got):\n%s", diff)
		}
		if v := e.view(); v.Doc != doc {
			t.Errorf("documented workflow %s, want %s", v.Doc, doc)
		}
	}
	want(platform.VReplicationStopped, "stopped", 0)
	wp := &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: "sharded"}
	u, err := e.c.Vitess.StartWorkflow(ctx, wp)
	if err != nil || len(u.Details) != 2 || !u.Details[0].Changed || !strings.Contains(u.Summary, "Successfully updated the move-users workflow") {
		t.Fatalf("start: %+v, %v", u, err)
	}
	want(platform.VReplicationCopying, "pending", 0)
	e.srv.Advance(5*time.Second + 30*time.Second) // half the copy
	want(platform.VReplicationCopying, "copying", 500)
	if _, err := e.c.Vitess.StopWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	want(platform.VReplicationStopped, "stopped", 500)
	if got := e.streams("active"); len(got) != 0 {
		t.Errorf("active_only lists a stopped workflow: %v", got)
	}
	u, err = e.c.Vitess.StopWorkflow(ctx, wp)
	if err != nil || u.Details[0].Changed {
		t.Errorf("stop of a stopped workflow: %+v, %v; want changed false", u, err)
	}
	if _, err := e.c.Vitess.StartWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(29 * time.Second)
	want(platform.VReplicationCopying, "copying", 983)
	e.srv.Advance(time.Second) // the copy is done: stop_after_copy stops the streams
	want(platform.VReplicationStopped, "stopped", 1000)
	if _, err := e.c.Vitess.StartWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}
	want(platform.VReplicationRunning, "running", 1000)
	u, err = e.c.Vitess.StartWorkflow(ctx, wp)
	if err != nil || u.Details[0].Changed {
		t.Errorf("start of a running workflow: %+v, %v; want changed false", u, err)
	}
	m, err := e.c.Vitess.WaitMoveTables(ctx, e.mtParams())
	if err != nil || m.Workflow.State() != platform.VReplicationRunning {
		t.Errorf("WaitMoveTables: %v, %v", m, err)
	}
}

// TestMoveTablesOperations: a failed or dry-run action changes nothing;
// reverse traffic goes back step by step; cancel keeps routing rules when
// asked; complete keeps or renames the source's tables; the documented
// workflow's own actions show in the vtctld views.
func TestMoveTablesOperations(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	e.must(e.create(usersMove()))
	e.srv.Advance(time.Hour)
	running := e.view()

	// FailNext fails the next action; dry runs change nothing.
	ref, err := e.c.Vitess.SwitchTraffic(ctx, &platform.SwitchTrafficParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "sharded"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(ref.ID); err != nil {
		t.Fatal(err)
	}
	if op := e.settle(ref.ID); op.State != platform.VitessOperationFailed || op.Error == nil || op.Result != nil && string(op.Result) != "null" {
		t.Errorf("failed switch: %+v", op)
	}
	r := e.must(e.act("switch", &platform.SwitchTrafficParams{DryRun: platform.Ptr(true)}))
	if r.CurrentState != platform.TrafficNotSwitched || len(r.DryRunResults) == 0 {
		t.Errorf("dry run: %+v", r)
	}
	if diff := cmp.Diff(running, e.view()); diff != "" {
		t.Fatalf("a failed switch and a dry run changed (-before +after):\n%s", diff)
	}

	// All at once, then back: writes, then reads.
	e.must(e.act("switch", &platform.SwitchTrafficParams{}))
	if v := e.view(); v.Doc != "switched_primaries" || v.Traffic != platform.TrafficAllSwitched {
		t.Errorf("after switching all: %+v", v)
	}
	r = e.must(e.act("reverse", &platform.SwitchTrafficParams{TabletTypes: []string{"primary"}}))
	if r.StartState != platform.TrafficAllSwitched || r.CurrentState != platform.TrafficReadsSwitched {
		t.Errorf("reverse writes: %+v", r)
	}
	e.must(e.act("reverse", &platform.SwitchTrafficParams{}))
	if diff := cmp.Diff(running, e.view()); diff != "" {
		t.Errorf("after reversing everything (-running +now):\n%s", diff)
	}

	// The documented workflow's actions are the same state.
	wfp := &platform.WorkflowParams{Organization: e.org, Database: drDB, Number: 1}
	doc, err := e.c.Workflows.SwitchReplicas(ctx, wfp)
	if err != nil || doc.Name != mtWorkflow {
		t.Fatalf("documented switch-replicas: %v, %v", doc, err)
	}
	e.srv.Advance(time.Minute)
	if v := e.view(); v.Doc != "switched_replicas" || v.Traffic != platform.TrafficReadsSwitched || !slices.Contains(v.Rules, "users@replica>sharded.users") {
		t.Errorf("after the documented switch: %+v", v)
	}
	if _, err := e.c.Workflows.ReverseTraffic(ctx, wfp); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)

	// Cancel keeping the routing rules: the workflow goes, its rules stay.
	e.must(e.act("cancel", &platform.CancelMoveTablesParams{KeepRoutingRules: platform.Ptr(true)}))
	v := e.view()
	if v.Doc != "cancelled" || v.Streams != "" || len(v.Rules) != len(running.Rules) {
		t.Errorf("after cancel keeping rules: %+v", v)
	}

	// Again, completed keeping the source's tables renamed.
	p := usersMove()
	p.Workflow = "again"
	p.Tables = []string{"audit"}
	e.must(e.create(p))
	e.srv.Advance(time.Hour)
	sw := &platform.SwitchTrafficParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "again", TargetKeyspace: "sharded"}
	ref, err = e.c.Vitess.SwitchTraffic(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	e.settle(ref.ID)
	cp := &platform.CompleteMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "again", TargetKeyspace: "sharded", RenameTables: platform.Ptr(true), DryRun: platform.Ptr(true)}
	ref, err = e.c.Vitess.CompleteMoveTables(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.must(e.settle(ref.ID), nil); !slices.Contains(r.DryRunResults, "\tKeyspace app Shard - DbName vt_app Table audit") {
		t.Errorf("complete dry run: %q", r.DryRunResults)
	}
	keep := *cp
	keep.RenameTables, keep.KeepData, keep.KeepRoutingRules = nil, platform.Ptr(true), platform.Ptr(true)
	if ref, err = e.c.Vitess.CompleteMoveTables(ctx, &keep); err != nil {
		t.Fatal(err)
	}
	r = e.must(e.settle(ref.ID), nil)
	if !slices.Contains(r.DryRunResults, "Keeping these tables in the database and removing them from the vschema for keyspace app:") ||
		slices.ContainsFunc(r.DryRunResults, func(s string) bool { return strings.HasPrefix(s, "Delete routing rules") }) {
		t.Errorf("complete dry run keeping the data and the routing rules: %q", r.DryRunResults)
	}
	cp.DryRun = nil
	ref, err = e.c.Vitess.CompleteMoveTables(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	e.must(e.settle(ref.ID), nil)
	v = e.view()
	if diff := cmp.Diff([]string{"_audit_old", "users"}, v.AppTables); diff != "" {
		t.Errorf("app's tables after a complete with rename_tables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"audit", "events"}, v.Tables); diff != "" {
		t.Errorf("sharded's tables (-want +got):\n%s", diff)
	}
	if slices.ContainsFunc(v.Rules, func(r string) bool { return strings.Contains(r, "audit") }) {
		t.Errorf("the completed workflow's rules stay: %v", v.Rules)
	}
}

// TestDocumentedWorkflowInVtctld: a workflow made through the documented
// API is a MoveTables workflow of the vtctld views, with its streams, and
// disappears from them once cancelled.
func TestDocumentedWorkflowInVtctld(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	p := wfCreate(e.srv)
	p.Name = mtWorkflow
	if _, err := e.c.Workflows.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	list, err := e.c.Vitess.ListWorkflows(ctx, &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: wfTarget, IncludeLogs: platform.Ptr(true)})
	if err != nil || len(list.Workflows) != 1 {
		t.Fatalf("list: %v, %v", list, err)
	}
	w := list.Workflows[0]
	if w.Type != platform.VReplicationMoveTables || w.SourceKeyspace != drDB || w.TargetKeyspace != wfTarget || len(w.Streams) != 1 || w.Streams[0].State != platform.VReplicationCopying || !slices.Equal(w.Streams[0].Tables, []string{"audit"}) {
		t.Errorf("the documented workflow in vtctld: %+v", w)
	}
	if !strings.Contains(string(w.Raw), `"logs":[`) {
		t.Errorf("include_logs: no logs in %s", w.Raw)
	}
	// The list's name filter and name_only.
	for q, want := range map[string]string{
		"&workflow=nope": `{"data":{"workflows":[]}}`,
		"&workflow=" + mtWorkflow + "&name_only=true": `{"data":{"workflows":[{"name":"` + mtWorkflow + `"}]}}`,
	} {
		r := send(t, e.srv, "GET", "/v1/organizations/acme/databases/app/branches/main/vtctld/workflows?keyspace="+wfTarget+q, admin(e.srv), "")
		if r.status != 200 || strings.TrimSpace(string(r.body)) != want {
			t.Errorf("list with %s: %d %s, want %s", q, r.status, r.body, want)
		}
	}
	st, err := e.c.Vitess.MoveTablesStatus(ctx, &platform.MoveTablesStatusParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: wfTarget})
	if err != nil || st.Tables["audit"].RowsTotal != 1000 || st.TrafficState != platform.TrafficNotSwitched || len(st.Streams) != 1 {
		t.Errorf("status: %+v, %v", st, err)
	}
	if _, err := e.c.Vitess.StopWorkflow(ctx, &platform.StopVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: wfTarget}); err != nil {
		t.Fatal(err)
	}
	if doc, err := e.c.Workflows.Get(ctx, wfRef(e.srv, 1)); err != nil || doc.State != platform.WorkflowStopped {
		t.Fatalf("the documented workflow once stopped: %v, %v", doc, err)
	}
	if _, err := e.c.Workflows.Cancel(ctx, wfRef(e.srv, 1)); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)
	list, err = e.c.Vitess.ListWorkflows(ctx, &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: wfTarget})
	if err != nil || len(list.Workflows) != 0 {
		t.Errorf("after cancel: %v, %v", list, err)
	}
}

// TestMoveTablesShardStreamsShowControls: a workflow's shard streams
// show what vtctld's shard shows of each target shard: its tablet
// controls denying tables, and whether its primary serves.
func TestMoveTablesShardStreamsShowControls(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	e.must(e.create(usersMove()))
	for _, p := range []platform.SetShardTabletControlParams{
		{Shard: "-80", TabletType: platform.TabletRDOnly, DeniedTables: []string{"users"}},
		{Shard: "-80", TabletType: platform.TabletReplica, DisableQueryService: platform.Ptr(true)},
		{Shard: "80-", TabletType: platform.TabletPrimary, DisableQueryService: platform.Ptr(true)},
	} {
		p.Organization, p.Database, p.Branch, p.Keyspace = e.org, drDB, "main", "sharded"
		if _, err := e.c.Vitess.SetShardTabletControl(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	type control struct {
		TabletType   string   `json:"tablet_type"`
		DeniedTables []string `json:"denied_tables"`
	}
	type shardView struct {
		Controls []control
		Serving  bool
	}
	list, err := e.c.Vitess.ListWorkflows(ctx, &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded", Workflow: mtWorkflow})
	if err != nil || len(list.Workflows) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	var doc struct {
		ShardStreams map[string]struct {
			TabletControls   []control `json:"tablet_controls"`
			IsPrimaryServing bool      `json:"is_primary_serving"`
		} `json:"shard_streams"`
	}
	if err := json.Unmarshal(list.Workflows[0].Raw, &doc); err != nil {
		t.Fatal(err)
	}
	got, want := map[string]shardView{}, map[string]shardView{}
	for key, ss := range doc.ShardStreams {
		got[key] = shardView{ss.TabletControls, ss.IsPrimaryServing}
	}
	for _, shard := range []string{"-80", "80-"} {
		sh, err := e.c.Vitess.GetShard(ctx, &platform.GetShardParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded", Shard: shard})
		if err != nil {
			t.Fatal(err)
		}
		v := shardView{Serving: sh.IsPrimaryServing}
		for _, tc := range sh.TabletControls {
			if len(tc.DeniedTables) > 0 {
				v.Controls = append(v.Controls, control{"TABLET_TYPE_" + strings.ToUpper(string(tc.TabletType)), tc.DeniedTables}) // as decided: the enum with its prefix
			}
		}
		want["sharded/"+shard] = v
	}
	if want["sharded/80-"].Serving || len(want["sharded/-80"].Controls) != 1 {
		t.Fatalf("the shards' controls are not set: %+v", want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shard streams against the shards (-shard +workflow):\n%s", diff)
	}
}

// TestRestoreMoveTables: a MoveTables workflow stopped mid-copy, with its
// operation, restores and resumes; a snapshot whose VReplication state
// cannot be is refused, saying why.
func TestRestoreMoveTables(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	e.must(e.create(usersMove()))
	e.srv.Advance(35 * time.Second)
	wp := &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: "sharded"}
	if _, err := e.c.Vitess.StopWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}
	good, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	again := &mtEnv{&drEnv{t: t, srv: fake.NewServer(t), org: e.org}}
	if err := again.srv.Restore(good); err != nil {
		t.Fatal(err)
	}
	again.c = again.srv.Client()
	if diff := cmp.Diff(e.view(), again.view()); diff != "" {
		t.Fatalf("restored (-original +restored):\n%s", diff)
	}
	if _, err := again.c.Vitess.StartWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}
	again.srv.Advance(time.Minute)
	if v := again.view(); v.Doc != "running" || v.Streams != platform.VReplicationRunning {
		t.Errorf("restored workflow once started: %+v", v)
	}

	workflows := func(fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, "databases", "workflows")
	}
	vr := func(key string, v any) []byte {
		return workflows(func(rec map[string]any, recs []any) []any {
			rec["vreplication"].(map[string]any)[key] = v
			return recs
		})
	}
	ops := func(fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, "branches", "vitess", "operations")
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"a MoveTables workflow of another kind", vr("kind", "Materialize"), "saved with its documented workflow"},
		{"an unknown kind", vr("kind", "Reshuffle"), `kind "Reshuffle"`},
		{"no tables", vr("tables", []any{}), "copies at least one"},
		{"a shard that cannot be", vr("target_shards", []any{"zz"}), `target_shards[0] "zz"`},
		{"a source keyspace not the documented workflow's", vr("source_keyspace", "nokeyspace"), "is not the documented workflow's"},
		{"another workflow's name", vr("name", "other"), "is not the documented workflow's"},
		{"an unknown on_ddl", vr("options", map[string]any{"on_ddl": "DROP"}), "options.on_ddl"},
		{"a negative copy left", vr("copy_left", -1), "copy_left"},
		{"stopped without a state to resume", workflows(setField("resume", "")), "state stopped with resume"},
		{"a state no workflow stops in", workflows(setField("resume", "cutover")), "not a state a workflow stops in"},
		{"a completed workflow with streams", workflows(func(rec map[string]any, recs []any) []any {
			rec["state"], rec["resume"] = "completed", ""
			return recs
		}), "an ended workflow has none"},
		{"an operation's body of another action", ops(setField("body", "[]")), "is not a move_tables_create request"},
		{"an operation without its workflow", ops(setField("workflow", "")), "keyspace and workflow are required"},
		{"a completed operation without result", ops(setField("result", "")), "state completed with result"},
		{"an operation naming a shard", ops(setField("shard", "-")), "names no shard"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tt.data, tt.want)
		})
	}
}

// TestVReplicationOfPostgres: the workflow and MoveTables operations of a
// PostgreSQL branch are a 422 naming its kind.
func TestVReplicationOfPostgres(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	const base = "/v1/organizations/acme/databases/pg/branches/main"
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/vtctld/workflows?keyspace=pg", ""},
		{"POST", "/vtctld/workflows/w/start", `{"keyspace":"pg"}`},
		{"POST", "/move-tables/workflows", `{"workflow":"w","source_keyspace":"a","target_keyspace":"b","tables":["t"]}`},
		{"GET", "/move-tables/workflows/w/status?target_keyspace=pg", ""},
		{"POST", "/move-tables/workflows/w/complete", `{"target_keyspace":"pg"}`},
	} {
		got := wantError(t, send(t, e.srv, r.method, base+r.path, admin(e.srv), r.body), 422, "unprocessable")
		if !strings.Contains(got.Message, "postgresql") {
			t.Errorf("%s %s: %q, want it to name the kind", r.method, r.path, got.Message)
		}
	}
}

// TestMoveTablesRecheckedWhenRun: an action is checked when asked and
// again when its operation runs; what changed in between fails the
// operation with the check's message, changing nothing. A second action
// on a workflow waits for the first's operation.
func TestMoveTablesRecheckedWhenRun(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	failed := func(id, want string) {
		t.Helper()
		op := e.settle(id)
		if op.State != platform.VitessOperationFailed || !strings.Contains(deref(op.Error), want) || op.Result != nil && string(op.Result) != "null" {
			t.Errorf("operation %s %s: %s, error %q, result %s; want failed saying %q", op.ID, op.Action, op.State, deref(op.Error), op.Result, want)
		}
	}
	archive := func() [2][]string {
		tables, vschema := e.keyspaceTables("archive")
		return [2][]string{tables, vschema}
	}

	// Two creates moving users, asked together: the second runs after the
	// first and fails, leaving archive as it was.
	archiveBefore := archive()
	first, err := e.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, SourceKeyspace: drDB, TargetKeyspace: "sharded", Tables: []string{"users"}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "to-archive", SourceKeyspace: drDB, TargetKeyspace: "archive", Tables: []string{"users"}})
	if err != nil {
		t.Fatalf("a second create, asked before the first runs: %v", err)
	}
	e.must(e.settle(first.ID), nil)
	failed(second.ID, `table "users" is already moving in workflow #1`)
	if diff := cmp.Diff(archiveBefore, archive()); diff != "" {
		t.Errorf("the failed create changed archive (-before +after):\n%s", diff)
	}
	list, err := e.c.Vitess.ListWorkflows(ctx, &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "archive"})
	if err != nil || len(list.Workflows) != 0 {
		t.Errorf("archive's workflows after the failed create: %+v, %v", list, err)
	}
	e.srv.Advance(time.Hour) // running

	sw := &platform.SwitchTrafficParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "sharded", TabletTypes: []string{"replica", "rdonly"}}
	ref, err := e.c.Vitess.SwitchTraffic(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	// Another action while it is pending is refused, naming it.
	r := send(t, e.srv, "POST", "/v1/organizations/acme/databases/app/branches/main/move-tables/workflows/"+mtWorkflow+"/cancel", admin(e.srv), `{"target_keyspace":"sharded"}`)
	if got := wantError(t, r, 422, "unprocessable"); !strings.Contains(got.Message, "has operation "+ref.ID) {
		t.Errorf("cancel while a switch is pending: %q", got.Message)
	}
	// The workflow stopped before the switch runs: the switch fails.
	wp := &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: "sharded"}
	if _, err := e.c.Vitess.StopWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}
	stopped := e.view()
	failed(ref.ID, "workflow move-users is stopped; switch-traffic needs it")
	if diff := cmp.Diff(stopped, e.view()); diff != "" {
		t.Errorf("the failed switch changed (-before +after):\n%s", diff)
	}
	if _, err := e.c.Vitess.StartWorkflow(ctx, wp); err != nil {
		t.Fatal(err)
	}

	// Switched, then reversed through the documented workflow before the
	// complete runs: the complete fails.
	sw.TabletTypes = nil
	ref, err = e.c.Vitess.SwitchTraffic(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	e.must(e.settle(ref.ID), nil)
	ref, err = e.c.Vitess.CompleteMoveTables(ctx, &platform.CompleteMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "sharded"})
	if err != nil {
		t.Fatal(err)
	}
	wfp := &platform.WorkflowParams{Organization: e.org, Database: drDB, Number: 1}
	if _, err := e.c.Workflows.ReverseTraffic(ctx, wfp); err != nil {
		t.Fatal(err)
	}
	reversed := e.view()
	failed(ref.ID, "complete needs its traffic switched")
	if diff := cmp.Diff(reversed, e.view()); diff != "" {
		t.Errorf("the failed complete changed (-before +after):\n%s", diff)
	}
	e.srv.Advance(time.Minute)
	if _, err := e.c.Workflows.ReverseTraffic(ctx, wfp); err != nil { // the reads too
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)

	// Cancelled through the documented workflow before the cancel runs:
	// the cancel fails, naming the documented cancel's step.
	if v := e.view(); v.Doc != "running" {
		t.Fatalf("before the cancel: %+v", v)
	}
	ref, err = e.c.Vitess.CancelMoveTables(ctx, &platform.CancelMoveTablesParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "sharded"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Workflows.Cancel(ctx, wfp); err != nil {
		t.Fatal(err)
	}
	cancelled := e.view()
	failed(ref.ID, "workflow move-users is cancelling; cancel needs it pending")
	if diff := cmp.Diff(cancelled, e.view()); diff != "" {
		t.Errorf("the failed cancel changed (-before +after):\n%s", diff)
	}
}

// TestMoveTablesBranchDeleted: deleting a branch ends its operations in
// progress: nothing is left to fail, and their due transitions change
// nothing of the other branches.
func TestMoveTablesBranchDeleted(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	ref, err := e.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{Organization: e.org, Database: drDB, Branch: "dev", Workflow: mtWorkflow, SourceKeyspace: drDB, TargetKeyspace: "sharded", Tables: []string{"users"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(ref.ID); err == nil {
		t.Errorf("FailNext of the deleted branch's operation was accepted")
	}
	before := e.view()
	e.srv.Advance(time.Hour)
	if diff := cmp.Diff(before, e.view()); diff != "" {
		t.Errorf("the deleted branch's operation changed main (-before +after):\n%s", diff)
	}
	page, err := e.c.Workflows.List(ctx, &platform.ListWorkflowsParams{Organization: e.org, Database: drDB})
	if err != nil || len(page.Items) != 0 {
		t.Errorf("workflows after the deleted branch's create was due: %+v, %v", page, err)
	}
}

// TestMoveTablesStartOfErrorAndStep: vtctld's start of a MoveTables
// workflow in error retries its documented workflow; during a step of it
// (verifying data) the start is refused naming the state, changing
// nothing.
func TestMoveTablesStartOfErrorAndStep(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	ctx := t.Context()
	e.must(e.create(usersMove()))
	wfp := &platform.WorkflowParams{Organization: e.org, Database: drDB, Number: 1}
	doc, err := e.c.Workflows.Get(ctx, wfp)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(doc.ID); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	if v := e.view(); v.Doc != "error" {
		t.Fatalf("after a failed step: %+v", v)
	}
	wp := &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: "sharded"}
	u, err := e.c.Vitess.StartWorkflow(ctx, wp)
	if err != nil || len(u.Details) == 0 || !u.Details[0].Changed {
		t.Fatalf("start of a workflow in error: %+v, %v", u, err)
	}
	e.srv.Advance(time.Hour)
	if v := e.view(); v.Doc != "running" || v.Streams != platform.VReplicationRunning {
		t.Fatalf("the workflow in error, started: %+v", v)
	}
	if _, err := e.c.Workflows.VerifyData(ctx, wfp); err != nil {
		t.Fatal(err)
	}
	before := e.view()
	r := send(t, e.srv, "POST", "/v1/organizations/acme/databases/app/branches/main/vtctld/workflows/"+mtWorkflow+"/start", admin(e.srv), `{"keyspace":"sharded"}`)
	if got := wantError(t, r, 422, "unprocessable"); !strings.Contains(got.Message, "workflow move-users is verifying_data; start needs it stopped or error") {
		t.Errorf("start while verifying data: %q", got.Message)
	}
	if diff := cmp.Diff(before, e.view()); diff != "" {
		t.Errorf("the refused start changed (-before +after):\n%s", diff)
	}
}
