package fake_test

import (
	"encoding/json"
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

// newVRepEnv is newVitessEnv with tables: customer and corder in the
// unsharded app, orders in sharded (sharded by order_id, as its default
// VSchema says).
func newVRepEnv(t *testing.T) *vitessEnv {
	t.Helper()
	e := newVitessEnv(t)
	if err := e.srv.PushSchema(e.srv.Org(), "app", "main",
		"CREATE TABLE customer (id bigint NOT NULL AUTO_INCREMENT, email varchar(128) DEFAULT NULL, PRIMARY KEY (id))",
		"CREATE TABLE corder (id bigint NOT NULL, customer_id bigint NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE sharded.orders (order_id bigint NOT NULL, customer_id bigint NOT NULL, sku varchar(64) DEFAULT NULL, PRIMARY KEY (order_id))",
	); err != nil {
		t.Fatal(err)
	}
	return e
}

// tables are the names of a keyspace's tables on main.
func (e *vitessEnv) tables(keyspace string) []string {
	e.t.Helper()
	s, err := e.c.Branches.GetSchema(e.t.Context(), &platform.GetBranchSchemaParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: keyspace})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, t := range s.Tables {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// vschema is a keyspace's VSchema on main, decoded.
func (e *vitessEnv) vschema(keyspace string) map[string]any {
	e.t.Helper()
	v, err := e.c.Keyspaces.GetVSchema(e.t.Context(), &platform.GetVSchemaParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: keyspace})
	if err != nil {
		e.t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(v.Raw), &doc); err != nil {
		e.t.Fatal(err)
	}
	return doc
}

// wantRefused checks that err is an API error of status naming says.
func wantRefused(t *testing.T, err error, status int, says string) {
	t.Helper()
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != status || !strings.Contains(apiErr.Message, says) {
		t.Fatalf("err = %v, want %d saying %q", err, status, says)
	}
}

// streamStates are a workflow's streams' states and messages, by shard.
func streamStates(wf *platform.VReplicationWorkflow) []string {
	var out []string
	for _, s := range wf.Streams {
		out = append(out, s.Shard+" "+s.State+" "+s.Message)
	}
	return out
}

func (e *vitessEnv) mz(name, target string) *platform.MaterializeActionParams {
	return &platform.MaterializeActionParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: name, TargetKeyspace: target}
}

func (e *vitessEnv) showMZ(name, target string) (*platform.VReplicationWorkflow, error) {
	return workflowOf(e.c.Vitess.GetMaterialize(e.t.Context(), &platform.GetMaterializeParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: name, TargetKeyspace: target}))
}

func TestMaterializeLifecycle(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	created, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: "custcopy", SourceKeyspace: "app", TargetKeyspace: "sharded",
		TableSettings: []platform.MaterializeTableSettings{
			{TargetTable: "customer", CreateDDL: "copy"},
			{TargetTable: "order_counts", SourceExpression: "select customer_id, count(*) as n from corder group by customer_id",
				CreateDDL: "CREATE TABLE order_counts (customer_id bigint NOT NULL, n bigint, PRIMARY KEY (customer_id))"},
		},
		Cells: []string{"us-east"}, TabletTypes: []platform.TabletType{"REPLICA"}, OnDDL: "stop",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(created.Summary, "custcopy") || !strings.Contains(created.Summary, "sharded") {
		t.Errorf("summary = %q", created.Summary)
	}
	// The target tables are in the target's schema, and in its (default)
	// VSchema with a vindex each.
	if diff := cmp.Diff([]string{"customer", "order_counts", "orders"}, e.tables("sharded")); diff != "" {
		t.Errorf("target tables (-want +got):\n%s", diff)
	}
	if tables, _ := e.vschema("sharded")["tables"].(map[string]any); tables["order_counts"] == nil {
		t.Errorf("order_counts is not in the target's VSchema: %v", tables)
	}
	show := func() *platform.VReplicationWorkflow {
		t.Helper()
		wf, err := e.showMZ("custcopy", "sharded")
		if err != nil {
			t.Fatal(err)
		}
		return wf
	}
	wf := show()
	if wf.Name != "custcopy" || wf.Type != "Materialize" || wf.SourceKeyspace != "app" || wf.TargetKeyspace != "sharded" {
		t.Errorf("workflow = %+v", wf)
	}
	if diff := cmp.Diff([]string{"-80 Copying ", "80- Copying "}, streamStates(wf)); diff != "" {
		t.Errorf("streams while copying (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(wf.Raw), `"on_ddl":"STOP"`) || !strings.Contains(string(wf.Raw), "select customer_id, count(*)") || !strings.Contains(string(wf.Raw), `"TABLET_TYPE_REPLICA"`) {
		t.Errorf("document lacks the workflow's settings: %s", wf.Raw)
	}
	// Stopped halfway, the copy waits; started again, it copies what was
	// left.
	copyTime := fake.DefaultTimings().VReplicationCopy
	e.srv.Advance(copyTime / 2)
	if _, err := e.c.Vitess.StopMaterialize(ctx, e.mz("custcopy", "sharded")); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	if diff := cmp.Diff([]string{"-80 Stopped Stopped", "80- Stopped Stopped"}, streamStates(show())); diff != "" {
		t.Errorf("streams stopped mid-copy (-want +got):\n%s", diff)
	}
	if _, err := e.c.Vitess.StartMaterialize(ctx, e.mz("custcopy", "sharded")); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(copyTime/2 - time.Second)
	if diff := cmp.Diff([]string{"-80 Copying ", "80- Copying "}, streamStates(show())); diff != "" {
		t.Errorf("streams started again, before the rest is copied (-want +got):\n%s", diff)
	}
	e.srv.Advance(time.Second)
	if diff := cmp.Diff([]string{"-80 Running ", "80- Running "}, streamStates(show())); diff != "" {
		t.Errorf("streams once copied (-want +got):\n%s", diff)
	}

	start := func() (*platform.WorkflowUpdate, error) {
		return e.c.Vitess.StartMaterialize(ctx, e.mz("custcopy", "sharded"))
	}
	stop := func() (*platform.WorkflowUpdate, error) {
		return e.c.Vitess.StopMaterialize(ctx, e.mz("custcopy", "sharded"))
	}
	// As Vitess's workflow update: a start or stop of streams in that
	// state already changes nothing, and says so.
	steps := []struct {
		name    string
		do      func() (*platform.WorkflowUpdate, error)
		changed bool
		want    []string
	}{
		{"start while running", start, false, []string{"-80 Running ", "80- Running "}},
		{"stop", stop, true, []string{"-80 Stopped Stopped", "80- Stopped Stopped"}},
		{"stop while stopped", stop, false, []string{"-80 Stopped Stopped", "80- Stopped Stopped"}},
		{"start", start, true, []string{"-80 Running ", "80- Running "}},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if len(got.Details) != 2 || got.Details[0].Changed != st.changed || got.Details[1].Changed != st.changed || !strings.Contains(got.Summary, "(2) target primary tablets") {
			t.Errorf("%s: update = %+v", st.name, got)
		}
		if diff := cmp.Diff(st.want, streamStates(show())); diff != "" {
			t.Errorf("%s: streams (-want +got):\n%s", st.name, diff)
		}
	}
	// The details name each target shard's primary.
	primaries := e.tablets(&platform.ListTabletsParams{Keyspace: "sharded", TabletType: platform.TabletPrimary})
	got, err := e.c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: "custcopy", TargetKeyspace: "sharded"})
	if err != nil {
		t.Fatal(err)
	}
	var aliases []string
	for _, d := range got.Details {
		if !d.Deleted {
			t.Errorf("cancel: %s did not delete", d.Tablet)
		}
		aliases = append(aliases, d.Tablet)
	}
	if diff := cmp.Diff([]string{primaries[0].Tablets[0].Alias, primaries[1].Tablets[0].Alias}, aliases); diff != "" {
		t.Errorf("cancel's tablets (-want +got):\n%s", diff)
	}
	// Cancel drops the target tables; the workflow is gone.
	if diff := cmp.Diff([]string{"orders"}, e.tables("sharded")); diff != "" {
		t.Errorf("target tables after cancel (-want +got):\n%s", diff)
	}
	_, err = e.showMZ("custcopy", "sharded")
	wantRefused(t, err, http.StatusNotFound, "Not Found")
}

func TestMaterializeStopAfterCopyAndKeepData(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	if _, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: "ref", SourceKeyspace: "app", TargetKeyspace: "sharded",
		ReferenceTables: []string{"customer"}, StopAfterCopy: platform.Ptr(true),
	}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(fake.DefaultTimings().VReplicationCopy)
	wf, err := e.showMZ("ref", "sharded")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"-80 Stopped Stopped after copy", "80- Stopped Stopped after copy"}, streamStates(wf)); diff != "" {
		t.Errorf("streams (-want +got):\n%s", diff)
	}
	if _, err := e.c.Vitess.StartMaterialize(ctx, e.mz("ref", "sharded")); err != nil {
		t.Fatal(err)
	}
	if wf, _ = e.showMZ("ref", "sharded"); wf.Streams[0].State != "Running" {
		t.Errorf("after start: %v", streamStates(wf))
	}
	if _, err := e.c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: "ref", TargetKeyspace: "sharded", KeepData: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"customer", "orders"}, e.tables("sharded")); diff != "" {
		t.Errorf("keep_data keeps the tables (-want +got):\n%s", diff)
	}
}

func TestMaterializeRefusals(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	if _, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
		Organization: org, Database: "app", Branch: "main", Workflow: "taken", SourceKeyspace: "app", TargetKeyspace: "sharded",
		TableSettings: []platform.MaterializeTableSettings{{TargetTable: "customer", CreateDDL: "copy"}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: org, Database: "app", Branch: "main", Name: "fresh", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	before := e.tables("sharded")
	ts := func(s ...platform.MaterializeTableSettings) []platform.MaterializeTableSettings { return s }
	create := []struct {
		name string
		p    platform.CreateMaterializeParams
		says string
	}{
		{"bad name", platform.CreateMaterializeParams{Workflow: "a b", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}}, `workflow "a b"`},
		{"unknown source", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "nope", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}}, `source_keyspace "nope"`},
		{"unknown target", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "nope", ReferenceTables: []string{"corder"}}, `target_keyspace "nope"`},
		{"target not ready", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "fresh", ReferenceTables: []string{"corder"}}, "target_keyspace fresh is not ready yet"},
		{"name taken", platform.CreateMaterializeParams{Workflow: "taken", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}}, "Materialize workflow of that name already"},
		{"both lists", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "corder", CreateDDL: "copy"})}, "exclude each other"},
		{"no target table", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{CreateDDL: "copy"})}, "table_settings[0].target_table is required"},
		{"unknown source table", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"ghost"}}, "reference_tables[0].target_table ghost is not a table of source keyspace app"},
		{"not a select", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "x", SourceExpression: "delete from corder", CreateDDL: "copy"})}, "table_settings[0].source_expression must be a SELECT"},
		{"select of an unknown table", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "x", SourceExpression: "select * from ghost", CreateDDL: "copy"})}, "reads table ghost"},
		{"no DDL for a new table", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "corder"})}, "give create_ddl"},
		{"DDL of another table", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "corder", CreateDDL: "CREATE TABLE other (id bigint, PRIMARY KEY (id))"})}, "creates table other, not target_table corder"},
		{"DDL not a create", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "corder", CreateDDL: "DROP TABLE corder"})}, "create_ddl must be a CREATE TABLE"},
		{"copy of a table the source lacks", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "agg", SourceExpression: "select id from corder", CreateDDL: "copy"})}, "copy needs table agg"},
		{"its own source", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "app", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "corder", SourceExpression: "select * from corder"})}, "reads target table corder itself"},
		{"a table twice", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder", "corder"}}, "target table corder is named twice"},
		{"unknown cell", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, Cells: []string{"mars"}}, `cells[0] "mars"`},
		{"unknown tablet type", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, TabletTypes: []platform.TabletType{"spare"}}, `tablet_types[0] "spare"`},
		{"unknown on_ddl", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, OnDDL: "panic"}, `on_ddl "panic"`},
		{"bad time zone", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, SourceTimeZone: "not a zone"}, "source_time_zone"},
		{"unknown time zone", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, SourceTimeZone: "Mars/Olympus_Mons"}, `source_time_zone "Mars/Olympus_Mons" is not an IANA time zone`},
		{"the host's zone", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}, SourceTimeZone: "Local"}, `source_time_zone "Local" is not an IANA time zone`},
		{"target table not a name", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "a-b", SourceExpression: "select id from corder", CreateDDL: "copy"})}, `table_settings[0].target_table "a-b" is not a table name`},
		{"its own source, unfiltered", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "app", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "corder"})}, "table_settings[0].target_table corder is its own source in keyspace app; give a source_expression"},
		{"DDL in another keyspace", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", TableSettings: ts(platform.MaterializeTableSettings{TargetTable: "agg", SourceExpression: "select id from corder", CreateDDL: "CREATE TABLE app.agg (id bigint, PRIMARY KEY (id))"})}, "table_settings[0].create_ddl creates its table in keyspace app, not target keyspace sharded"},
		{"a PostgreSQL branch", platform.CreateMaterializeParams{Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"corder"}}, "MySQL"},
	}
	for _, tc := range create {
		tc.p.Organization, tc.p.Database, tc.p.Branch = org, "app", "main"
		if tc.name == "a PostgreSQL branch" {
			tc.p.Database = "pg"
		}
		_, err := e.c.Vitess.CreateMaterialize(ctx, &tc.p)
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || !strings.Contains(apiErr.Message, tc.says) {
			t.Errorf("%s: err = %v, want 422 saying %q", tc.name, err, tc.says)
		}
	}
	// What the SDK refuses itself, sent raw.
	for body, says := range map[string]string{
		`{"source_keyspace":"app","target_keyspace":"sharded","reference_tables":["corder"]}`: "workflow is required",
		`{"workflow":"w","source_keyspace":"app","target_keyspace":"sharded"}`:                "table_settings or reference_tables is required",
	} {
		r := send(t, e.srv, "POST", "/v1/organizations/"+org+"/databases/app/branches/main/materialize/workflows", admin(e.srv), body)
		if got := wantError(t, r, 422, "unprocessable"); !strings.Contains(got.Message, says) {
			t.Errorf("create %s: %q, want it to say %q", body, got.Message, says)
		}
	}
	if diff := cmp.Diff(before, e.tables("sharded")); diff != "" {
		t.Errorf("refusals changed the target's tables (-want +got):\n%s", diff)
	}
	actions := []struct {
		name   string
		err    error
		status int
		says   string
	}{
		{"show of an unknown workflow", func() error { _, err := e.showMZ("ghost", "sharded"); return err }(), 404, "Not Found"},
		{"show in an unknown keyspace", func() error { _, err := e.showMZ("taken", "nope"); return err }(), 422, `target_keyspace "nope"`},
		{"start of an unknown workflow", func() error { _, err := e.c.Vitess.StartMaterialize(ctx, e.mz("ghost", "sharded")); return err }(), 404, "Not Found"},
		{"stop in the wrong keyspace", func() error { _, err := e.c.Vitess.StopMaterialize(ctx, e.mz("taken", "app")); return err }(), 404, "Not Found"},
		{"cancel of an unknown workflow", func() error {
			_, err := e.c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: org, Database: "app", Branch: "main", Workflow: "ghost", TargetKeyspace: "sharded"})
			return err
		}(), 404, "Not Found"},
		{"shown as a MoveTables workflow", func() error {
			_, err := e.c.Vitess.GetMoveTables(ctx, &platform.GetMoveTablesParams{Organization: org, Database: "app", Branch: "main", Workflow: "taken", TargetKeyspace: "sharded"})
			return err
		}(), 422, "workflow taken of keyspace sharded is a Materialize workflow, not a MoveTables one"},
		{"show on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.GetMaterialize(ctx, &platform.GetMaterializeParams{Organization: org, Database: "pg", Branch: "main", Workflow: "taken", TargetKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
		{"cancel on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: org, Database: "pg", Branch: "main", Workflow: "taken", TargetKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
		{"a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.StartMaterialize(ctx, &platform.MaterializeActionParams{Organization: org, Database: "pg", Branch: "main", Workflow: "taken", TargetKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
	}
	for _, tc := range actions {
		var apiErr *platform.Error
		if !errors.As(tc.err, &apiErr) || apiErr.StatusCode != tc.status || !strings.Contains(apiErr.Message, tc.says) {
			t.Errorf("%s: err = %v, want %d saying %q", tc.name, tc.err, tc.status, tc.says)
		}
	}
	if wf, err := e.showMZ("taken", "sharded"); err != nil || wf.Streams[0].State != "Copying" {
		t.Errorf("refusals changed the workflow: %v %v", err, wf)
	}
}

// workflowOf is the workflow of a show, and its raw document in place of
// the workflow's own.
func workflowOf(ws *platform.WorkflowShow, err error) (*platform.VReplicationWorkflow, error) {
	if err != nil {
		return nil, err
	}
	wf := *ws.Workflow
	wf.Raw = ws.Raw
	return &wf, nil
}

// TestMaterializeReferenceTables: a table the sharded target's VSchema
// declares of type reference is copied whole to every target shard (its
// streams' filters have no key range), as Vitess copies reference tables;
// a table with a vindex is split by key range.
func TestMaterializeReferenceTables(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	if _, err := e.c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "sharded",
		VSchema: `{"sharded": true, "vindexes": {"hash": {"type": "hash"}}, "tables": {
			"orders": {"column_vindexes": [{"column": "order_id", "name": "hash"}]},
			"customer": {"type": "reference"},
			"corder": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}`,
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		workflow, table string
		keyRange        bool
	}{
		{"refcopy", "customer", false},
		{"splitcopy", "corder", true},
	} {
		if _, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
			Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: tc.workflow,
			SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{tc.table},
		}); err != nil {
			t.Fatal(err)
		}
		wf, err := e.showMZ(tc.workflow, "sharded")
		if err != nil {
			t.Fatal(err)
		}
		raw := string(wf.Raw)
		if want := "select * from `" + tc.table + "`"; !strings.Contains(raw, want) {
			t.Errorf("%s: no filter %q in %s", tc.workflow, want, raw)
		}
		for _, shard := range []string{"-80", "80-"} {
			if got := strings.Contains(raw, "in_keyrange('"+shard+"')"); got != tc.keyRange {
				t.Errorf("%s: the filter of shard %s keeps its key range: %v, want %v", tc.workflow, shard, got, tc.keyRange)
			}
		}
	}
	vschemaTables := func() []string {
		var out []string
		for name := range e.vschema("sharded")["tables"].(map[string]any) {
			out = append(out, name)
		}
		slices.Sort(out)
		return out
	}
	// The VSchema set, a new table must be in it first.
	beforeTables, beforeVS := e.tables("sharded"), vschemaTables()
	_, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: "agg", SourceKeyspace: "app", TargetKeyspace: "sharded",
		TableSettings: []platform.MaterializeTableSettings{{TargetTable: "agg", SourceExpression: "select id from corder", CreateDDL: "CREATE TABLE agg (id bigint NOT NULL, PRIMARY KEY (id))"}},
	})
	wantRefused(t, err, 422, "table_settings[0].target_table agg is not in the VSchema of sharded keyspace sharded: add it, with its vindex, first")
	if diff := cmp.Diff(beforeTables, e.tables("sharded")); diff != "" {
		t.Errorf("the refused create changed the tables (-before +after):\n%s", diff)
	}
	// Cancel drops the copied table from the schema and the VSchema set.
	if _, err := e.c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Workflow: "splitcopy", TargetKeyspace: "sharded"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"customer", "orders"}, e.tables("sharded")); diff != "" {
		t.Errorf("tables after cancel (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"customer", "orders"}, vschemaTables()); diff != "" {
		t.Errorf("VSchema tables after cancel (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"corder", "customer", "orders"}, beforeVS); diff != "" {
		t.Errorf("VSchema tables before cancel (-want +got):\n%s", diff)
	}
}
