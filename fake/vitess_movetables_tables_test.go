package fake_test

import (
	"encoding/json"

	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// mtTables is what the keyspaces of mtEnv hold: app's and sharded's
// tables in their schema and in their VSchema.
type mtTables struct {
	AppTables, Tables   []string
	AppVSchema, VSchema []string
}

func (e *mtEnv) tables() mtTables {
	e.t.Helper()
	v := e.view()
	return mtTables{v.AppTables, v.Tables, v.AppVSchema, v.VSchema}
}

// schemaUpdated is main's schema_last_updated_at.
func (e *mtEnv) schemaUpdated() time.Time {
	e.t.Helper()
	b, err := e.c.Branches.Get(e.t.Context(), &platform.GetBranchParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	if b.SchemaLastUpdatedAt == nil {
		return time.Time{}
	}
	return b.SchemaLastUpdatedAt.Time
}

// createUsersMove creates mtWorkflow through the vtctld MoveTables or the
// platform's create_workflow, and answers when it applied.
func (e *mtEnv) createUsersMove(api string) time.Time {
	e.t.Helper()
	if api == "vtctld" {
		op, err := e.create(usersMove())
		e.must(op, err)
		if op.CompletedAt == nil {
			e.t.Fatalf("the create's operation: %+v", op)
		}
		return op.CompletedAt.Time
	}
	at := e.srv.Now()
	if _, err := e.c.Workflows.Create(e.t.Context(), &platform.CreateWorkflowParams{Organization: e.org, Database: drDB, Name: mtWorkflow,
		SourceKeyspace: drDB, TargetKeyspace: "sharded", Tables: []string{"users"}}); err != nil {
		e.t.Fatal(err)
	}
	return at
}

// doc runs an action of the documented workflow and lets its steps run.
func (e *mtEnv) doc(action string) {
	e.t.Helper()
	if _, err := wfActions[action](e.c, e.t, &platform.WorkflowParams{Organization: e.org, Database: drDB, Number: 1}); err != nil {
		e.t.Fatalf("%s: %v", action, err)
	}
	e.srv.Advance(time.Minute)
}

// vt runs a vtctld MoveTables action that must complete.
func (e *mtEnv) vt(action string, body any) {
	e.t.Helper()
	e.must(e.act(action, body))
}

// finish lets mtWorkflow copy, ends it with end and checks the tables.
func (e *mtEnv) finish(end func(e *mtEnv), want mtTables) {
	e.t.Helper()
	e.srv.Advance(time.Hour)
	end(e)
	if diff := cmp.Diff(want, e.tables()); diff != "" {
		e.t.Errorf("at the end (-want +got):\n%s", diff)
	}
}

// TestMoveTablesTargetTables: a MoveTables workflow, made through either
// API, has its tables in the target keyspace's schema and VSchema from
// create on; complete drops them from the source (keep_data keeps them
// there), cancel from the target (keep_data keeps them), whichever API
// ends it and after traffic was reversed; a dry run changes nothing.
func TestMoveTablesTargetTables(t *testing.T) {
	t.Parallel()
	before := mtTables{AppTables: []string{"audit", "users"}, Tables: []string{"events"}, AppVSchema: []string{"audit", "users"}, VSchema: []string{"events"}}
	during := mtTables{AppTables: []string{"audit", "users"}, Tables: []string{"events", "users"}, AppVSchema: []string{"audit", "users"}, VSchema: []string{"events", "users"}}
	moved := mtTables{AppTables: []string{"audit"}, Tables: []string{"events", "users"}, AppVSchema: []string{"audit"}, VSchema: []string{"events", "users"}}
	switchAll := func(e *mtEnv) { e.vt("switch", &platform.SwitchTrafficParams{}) }
	for _, tc := range []struct {
		name, api string
		end       func(e *mtEnv)
		want      mtTables
	}{
		{"vtctld cancel", "vtctld", func(e *mtEnv) { e.vt("cancel", &platform.CancelMoveTablesParams{}) }, before},
		{"vtctld cancel keeping data", "vtctld", func(e *mtEnv) { e.vt("cancel", &platform.CancelMoveTablesParams{KeepData: platform.Ptr(true)}) }, during},
		{"vtctld cancel after reversing", "vtctld", func(e *mtEnv) {
			switchAll(e)
			e.vt("reverse", &platform.SwitchTrafficParams{TabletTypes: []string{"primary"}})
			e.vt("reverse", &platform.SwitchTrafficParams{})
			e.vt("cancel", &platform.CancelMoveTablesParams{})
		}, before},
		{"vtctld complete", "vtctld", func(e *mtEnv) { switchAll(e); e.vt("complete", &platform.CompleteMoveTablesParams{}) }, moved},
		{"vtctld complete dry run", "vtctld", func(e *mtEnv) {
			switchAll(e)
			e.vt("complete", &platform.CompleteMoveTablesParams{DryRun: platform.Ptr(true)})
		}, during},
		{"vtctld complete keeping data", "vtctld", func(e *mtEnv) {
			switchAll(e)
			e.vt("complete", &platform.CompleteMoveTablesParams{KeepData: platform.Ptr(true)})
		}, mtTables{AppTables: []string{"audit", "users"}, Tables: []string{"events", "users"}, AppVSchema: []string{"audit", "users"}, VSchema: []string{"events", "users"}}},
		{"platform cancel", "platform", func(e *mtEnv) { e.doc("cancel") }, before},
		{"platform cancel with traffic switched", "platform", func(e *mtEnv) { e.doc("switch-replicas"); e.doc("switch-primaries"); e.doc("cancel") }, before},
		{"platform complete", "platform", func(e *mtEnv) {
			e.doc("switch-replicas")
			e.doc("switch-primaries")
			e.doc("cutover")
			e.doc("complete")
		}, moved},
		{"platform create, vtctld cancel", "platform", func(e *mtEnv) { e.vt("cancel", &platform.CancelMoveTablesParams{}) }, before},
		{"vtctld create, platform complete after a reversed cutover", "vtctld", func(e *mtEnv) {
			e.doc("switch-replicas")
			e.doc("switch-primaries")
			e.doc("cutover")
			e.doc("reverse-cutover")
			e.doc("switch-replicas")
			e.doc("switch-primaries")
			e.doc("cutover")
			e.doc("complete")
		}, moved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newMTEnv(t)
			if diff := cmp.Diff(before, e.tables()); diff != "" {
				t.Fatalf("before (-want +got):\n%s", diff)
			}
			at := e.createUsersMove(tc.api)
			if got := e.schemaUpdated(); !got.Equal(at) {
				t.Errorf("schema_last_updated_at %v, want %v, when create applied", got, at)
			}
			if diff := cmp.Diff(during, e.tables()); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
			e.srv.Advance(5 * time.Second)
			if v := e.view(); v.Doc != "copying" {
				t.Fatalf("the workflow is %s, want copying", v.Doc)
			}
			if diff := cmp.Diff(during, e.tables()); diff != "" {
				t.Errorf("copying (-want +got):\n%s", diff)
			}
			e.finish(tc.end, tc.want)
		})
	}
}

// TestMoveTablesTargetTablesFailed: a create that fails changes nothing;
// a cancel whose step fails leaves the tables in the target until a
// cancel ends the workflow.
func TestMoveTablesTargetTablesFailed(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	before := e.tables()
	updated := e.schemaUpdated()
	p := usersMove()
	p.Organization, p.Database, p.Branch = e.org, drDB, "main"
	ref, err := e.c.Vitess.CreateMoveTables(t.Context(), &p)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(ref.ID); err != nil {
		t.Fatal(err)
	}
	if op := e.settle(ref.ID); op.State != platform.VitessOperationFailed {
		t.Fatalf("create: %s, want failed", op.State)
	}
	if diff := cmp.Diff(before, e.tables()); diff != "" {
		t.Errorf("a failed create changed (-before +after):\n%s", diff)
	}
	if got := e.schemaUpdated(); !got.Equal(updated) {
		t.Errorf("schema_last_updated_at %v after a failed create, want %v", got, updated)
	}
	e.createUsersMove("platform")
	e.srv.Advance(time.Hour)
	wf, err := e.c.Workflows.Get(t.Context(), &platform.WorkflowParams{Organization: e.org, Database: drDB, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(wf.ID); err != nil {
		t.Fatal(err)
	}
	during := e.tables()
	e.doc("cancel")
	if v := e.view(); v.Doc != "error" {
		t.Fatalf("a failed cancel: %s, want error", v.Doc)
	}
	if diff := cmp.Diff(during, e.tables()); diff != "" {
		t.Errorf("a failed cancel changed (-before +after):\n%s", diff)
	}
	e.doc("cancel")
	if diff := cmp.Diff(before, e.tables()); diff != "" {
		t.Errorf("after the cancel (-want +got):\n%s", diff)
	}
}

// TestMoveTablesTargetTablesOldSnapshot: a snapshot of a fake that
// created a MoveTables workflow's tables in the target only at
// completion (a workflow mid-copy, the target without them) restores as
// it was; complete then adds the tables to the target, and cancel has
// none to drop.
func TestMoveTablesTargetTablesOldSnapshot(t *testing.T) {
	t.Parallel()
	e := newMTEnv(t)
	e.createUsersMove("vtctld")
	e.srv.Advance(5 * time.Second)
	now, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	old := editSnapshot(t, now, func(_ map[string]any, recs []any) []any {
		for _, r := range recs {
			ks := r.(map[string]any)
			if ks["name"] != "sharded" {
				continue
			}
			delete(ks["tables"].(map[string]any), "users")
			if text, _ := ks["vschema"].(string); text != "" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(text), &doc); err != nil {
					t.Fatal(err)
				}
				delete(doc["tables"].(map[string]any), "users")
				out, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				ks["vschema"] = string(out)
			}
		}
		return recs
	}, "branches", "keyspaces")
	restore := func(t *testing.T, data []byte) *mtEnv {
		t.Helper()
		again := &mtEnv{&drEnv{t: t, srv: fake.NewServer(t), org: e.org}}
		if err := again.srv.Restore(data); err != nil {
			t.Fatal(err)
		}
		again.c = again.srv.Client()
		return again
	}
	if diff := cmp.Diff(e.view(), restore(t, now).view()); diff != "" {
		t.Errorf("restored (-original +restored):\n%s", diff)
	}
	oldView := e.view()
	oldView.Tables, oldView.VSchema = []string{"events"}, []string{"events"}
	for _, tc := range []struct {
		name string
		end  func(e *mtEnv)
		want mtTables
	}{
		{"complete", func(e *mtEnv) {
			e.vt("switch", &platform.SwitchTrafficParams{})
			e.vt("complete", &platform.CompleteMoveTablesParams{})
		}, mtTables{AppTables: []string{"audit"}, Tables: []string{"events", "users"}, AppVSchema: []string{"audit"}, VSchema: []string{"events", "users"}}},
		{"cancel", func(e *mtEnv) { e.vt("cancel", &platform.CancelMoveTablesParams{}) },
			mtTables{AppTables: []string{"audit", "users"}, Tables: []string{"events"}, AppVSchema: []string{"audit", "users"}, VSchema: []string{"events"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			again := restore(t, old)
			again.t = t
			if diff := cmp.Diff(oldView, again.view()); diff != "" {
				t.Fatalf("restored from the old snapshot (-want +got):\n%s", diff)
			}
			again.finish(tc.end, tc.want)
		})
	}
}

// TestMoveTablesTargetOwnVSchema: a target keyspace with a VSchema of its
// own gains each table's entry at create (on the hash vindex, defined
// with it, over the first primary-key column, as the sharded default
// has) and loses it at cancel, the hash vindex staying; a snapshot taken
// mid-copy restores.
func TestMoveTablesTargetOwnVSchema(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"vtctld", "platform"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			e := newMTEnv(t)
			ctx := t.Context()
			own := `{"sharded": true, "vindexes": {"xx": {"type": "xxhash"}}, "tables": {"events": {"column_vindexes": [{"column": "id", "name": "xx"}]}}}`
			if _, err := e.c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded", VSchema: own}); err != nil {
				t.Fatal(err)
			}
			vschema := func() map[string]any {
				t.Helper()
				vs, err := e.c.Keyspaces.GetVSchema(ctx, &platform.GetVSchemaParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded"})
				if err != nil {
					t.Fatal(err)
				}
				var doc map[string]any
				if err := json.Unmarshal([]byte(vs.Raw), &doc); err != nil {
					t.Fatal(err)
				}
				return doc
			}
			e.createUsersMove(api)
			e.srv.Advance(5 * time.Second)
			want := map[string]any{
				"sharded":  true,
				"vindexes": map[string]any{"xx": map[string]any{"type": "xxhash"}, "hash": map[string]any{"type": "hash"}},
				"tables": map[string]any{
					"events": map[string]any{"column_vindexes": []any{map[string]any{"column": "id", "name": "xx"}}},
					"users":  map[string]any{"column_vindexes": []any{map[string]any{"column": "id", "name": "hash"}}},
				},
			}
			if diff := cmp.Diff(want, vschema()); diff != "" {
				t.Errorf("while copying (-want +got):\n%s", diff)
			}
			data, err := e.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if err := fake.NewServer(t).Restore(data); err != nil {
				t.Errorf("Restore mid-copy: %v", err)
			}
			e.srv.Advance(time.Hour)
			if api == "vtctld" {
				e.vt("cancel", &platform.CancelMoveTablesParams{})
			} else {
				e.doc("cancel")
			}
			delete(want["tables"].(map[string]any), "users")
			if diff := cmp.Diff(want, vschema()); diff != "" {
				t.Errorf("after cancel (-want +got):\n%s", diff)
			}
		})
	}
}
