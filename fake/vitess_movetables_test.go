package fake_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
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

// wfParams names mtWorkflow.
func (e *mtEnv) wfParams() *platform.StartVReplicationWorkflowParams {
	return &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, Keyspace: "sharded"}
}

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
	pending := before
	pending.Streams, pending.Doc, pending.Traffic = platform.VReplicationCopying, "pending", platform.TrafficNotSwitched
	pending.Rules = rulesTo("app", "app")
	if diff := cmp.Diff(pending, e.view()); diff != "" {
		t.Fatalf("pending (-want +got):\n%s", diff)
	}
	e.srv.Advance(5 * time.Second)
	copying := before
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
