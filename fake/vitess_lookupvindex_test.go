package fake_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func (e *vitessEnv) lv(name, tableKeyspace, keyspace string) *platform.LookupVindexParams {
	return &platform.LookupVindexParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: name, TableKeyspace: tableKeyspace, Keyspace: keyspace}
}

func (e *vitessEnv) showLV(name, tableKeyspace string) (*platform.VReplicationWorkflow, error) {
	return workflowOf(e.c.Vitess.GetLookupVindex(e.t.Context(), &platform.GetLookupVindexParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: name, TableKeyspace: tableKeyspace}))
}

// vindexOf is a vindex of a keyspace's VSchema, as JSON text ("" when
// there is none).
func (e *vitessEnv) vindexOf(keyspace, name string) string {
	e.t.Helper()
	vindexes, _ := e.vschema(keyspace)["vindexes"].(map[string]any)
	if vindexes[name] == nil {
		return ""
	}
	out, _ := json.Marshal(vindexes[name])
	return string(out)
}

func TestLookupVindexLifecycle(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	created, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "orders_by_customer", TableKeyspace: "app", Keyspace: "sharded",
		Type: "consistent_lookup", TableOwner: "orders", TableOwnerColumns: []string{"customer_id"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(created.Summary, "orders_by_customer") {
		t.Errorf("summary = %q", created.Summary)
	}
	writeOnly := `{"owner":"orders","params":{"from":"customer_id","ignore_nulls":"false","table":"app.orders_by_customer","to":"keyspace_id","write_only":"true"},"type":"consistent_lookup"}`
	external := `{"owner":"orders","params":{"from":"customer_id","ignore_nulls":"false","table":"app.orders_by_customer","to":"keyspace_id"},"type":"consistent_lookup"}`
	if got := e.vindexOf("sharded", "orders_by_customer"); got != writeOnly {
		t.Errorf("vindex = %s, want %s", got, writeOnly)
	}
	owner, _ := json.Marshal(e.vschema("sharded")["tables"].(map[string]any)["orders"])
	if want := `{"column_vindexes":[{"column":"order_id","name":"hash"},{"columns":["customer_id"],"name":"orders_by_customer"}]}`; string(owner) != want {
		t.Errorf("owner table = %s, want %s", owner, want)
	}
	if tables, _ := e.vschema("app")["tables"].(map[string]any); tables["orders_by_customer"] == nil {
		t.Errorf("the lookup table is not in app's VSchema: %v", tables)
	}
	schema, err := e.c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "app"})
	if err != nil {
		t.Fatal(err)
	}
	wantDDL := "CREATE TABLE `orders_by_customer` (\n  `customer_id` bigint NOT NULL,\n  `keyspace_id` varbinary(128),\n  PRIMARY KEY (`customer_id`)\n)"
	if i := slices.IndexFunc(schema.Tables, func(t *platform.TableSchema) bool { return t.Name == "orders_by_customer" }); i < 0 || schema.Tables[i].Raw != wantDDL {
		t.Errorf("lookup table's DDL: %v", schema.Tables)
	}
	show := func() []string {
		t.Helper()
		wf, err := e.showLV("orders_by_customer", "app")
		if err != nil {
			t.Fatal(err)
		}
		if wf.Type != "CreateLookupIndex" || wf.SourceKeyspace != "sharded" || wf.TargetKeyspace != "app" {
			t.Errorf("workflow = %+v", wf)
		}
		return streamStates(wf)
	}
	copying, running := []string{"- Copying ", "- Copying "}, []string{"- Running ", "- Running "}
	frozen := []string{"- Stopped FROZEN", "- Stopped FROZEN"}
	ext := func() (*platform.LookupVindexChange, error) {
		return e.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "orders_by_customer", TableKeyspace: "app", Keyspace: "sharded"})
	}
	in := func() (*platform.LookupVindexChange, error) {
		return e.c.Vitess.InternalizeLookupVindex(ctx, e.lv("orders_by_customer", "app", "sharded"))
	}
	complete := func() (*platform.LookupVindexChange, error) {
		return e.c.Vitess.CompleteLookupVindex(ctx, e.lv("orders_by_customer", "app", "sharded"))
	}
	steps := []struct {
		name    string
		advance bool
		do      func() (*platform.LookupVindexChange, error)
		says    string // a refusal's
		stopped bool
		vindex  string
		streams []string
	}{
		{"externalize while copying", false, ext, "is Copying", false, writeOnly, copying},
		{"complete before externalize", false, complete, "not been externalized", false, writeOnly, copying},
		{"externalize once copied", true, ext, "", true, external, frozen},
		{"externalize again", false, ext, "externalized already", false, external, frozen},
		{"internalize", false, in, "", false, writeOnly, running},
		{"internalize again", false, in, "not been externalized", false, writeOnly, running},
		{"externalize once more", false, ext, "", true, external, frozen},
		{"complete", false, complete, "", false, external, nil},
		{"complete again", false, complete, "no workflow left", false, external, nil},
		{"internalize without a workflow", false, in, "no workflow left", false, external, nil},
		{"externalize without a workflow", false, ext, "externalized already and its workflow deleted", false, external, nil},
	}
	if got := show(); !cmp.Equal(got, copying) {
		t.Errorf("streams = %v", got)
	}
	for _, st := range steps {
		if st.advance {
			e.srv.Advance(fake.DefaultTimings().VReplicationCopy)
		}
		got, err := st.do()
		switch {
		case st.says != "":
			wantRefused(t, err, 422, st.says)
		case err != nil:
			t.Fatalf("%s: %v", st.name, err)
		case got.WorkflowStopped != st.stopped || got.WorkflowDeleted:
			t.Errorf("%s: change = %+v", st.name, got)
		}
		if v := e.vindexOf("sharded", "orders_by_customer"); v != st.vindex {
			t.Errorf("%s: vindex = %s, want %s", st.name, v, st.vindex)
		}
		if st.streams == nil {
			_, err := e.showLV("orders_by_customer", "app")
			wantRefused(t, err, 404, "Not Found")
			continue
		}
		if got := show(); !cmp.Equal(got, st.streams) {
			t.Errorf("%s: streams = %v, want %v", st.name, got, st.streams)
		}
	}
}

func TestLookupVindexStopAfterCopyDelete(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	if _, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "orders_sku", TableKeyspace: "sharded",
		TableOwner: "orders", TableOwnerColumns: []string{"sku"}, ContinueAfterCopyWithOwner: platform.Ptr(false), IgnoreNulls: platform.Ptr(true),
	}); err != nil {
		t.Fatal(err)
	}
	doc := e.vschema("sharded")
	table, _ := json.Marshal(doc["tables"].(map[string]any)["orders_sku"])
	if want := `{"column_vindexes":[{"column":"sku","name":"unicode_loose_md5"}]}`; string(table) != want {
		t.Errorf("lookup table's VSchema = %s, want %s", table, want)
	}
	if v := e.vindexOf("sharded", "unicode_loose_md5"); v != `{"type":"unicode_loose_md5"}` {
		t.Errorf("the lookup table's vindex = %s", v)
	}
	wf, err := e.showLV("orders_sku", "sharded")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wf.Raw), "select sku as sku, keyspace_id() as keyspace_id from orders where sku is not null group by sku, keyspace_id") {
		t.Errorf("filter: %s", wf.Raw)
	}
	ext := func(del bool) (*platform.LookupVindexChange, error) {
		return e.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "orders_sku", TableKeyspace: "sharded", Delete: platform.Ptr(del)})
	}
	_, err = ext(true)
	wantRefused(t, err, 422, "stopped after its copy")
	e.srv.Advance(fake.DefaultTimings().VReplicationCopy)
	if wf, _ = e.showLV("orders_sku", "sharded"); len(wf.Streams) != 4 || wf.Streams[0].State != "Stopped" || wf.Streams[0].Message != "Stopped after copy" {
		t.Errorf("streams = %v", streamStates(wf))
	}
	got, err := ext(true)
	if err != nil || !got.WorkflowDeleted || got.WorkflowStopped {
		t.Fatalf("externalize = %+v, %v", got, err)
	}
	_, err = e.showLV("orders_sku", "sharded")
	wantRefused(t, err, 404, "Not Found")
	if v := e.vindexOf("sharded", "orders_sku"); strings.Contains(v, "write_only") || !strings.Contains(v, `"ignore_nulls":"true"`) {
		t.Errorf("vindex = %s", v)
	}
}

func TestLookupVindexCancel(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	if _, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "by_customer", TableKeyspace: "sharded",
		TableOwner: "orders", TableOwnerColumns: []string{"customer_id"}, Type: "lookup",
	}); err != nil {
		t.Fatal(err)
	}
	cancel := func() (*platform.WorkflowDelete, error) {
		return e.c.Vitess.CancelLookupVindex(ctx, &platform.CancelLookupVindexParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "by_customer", TableKeyspace: "sharded"})
	}
	got, err := cancel()
	if err != nil || len(got.Details) != 2 || !got.Details[1].Deleted || !strings.Contains(got.Summary, "cancelled the by_customer workflow") {
		t.Fatalf("cancel = %+v, %v", got, err)
	}
	_, err = cancel()
	wantRefused(t, err, 404, "Not Found")
	// The vindex stays, write-only, and the lookup table too.
	if v := e.vindexOf("sharded", "by_customer"); !strings.Contains(v, `"write_only":"true"`) {
		t.Errorf("vindex = %s", v)
	}
	if !slices.Contains(e.tables("sharded"), "by_customer") {
		t.Errorf("the lookup table went: %v", e.tables("sharded"))
	}
	_, err = e.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "by_customer", TableKeyspace: "sharded"})
	wantRefused(t, err, 422, "it was cancelled")
}

func TestLookupVindexRefusals(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	if _, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
		Organization: org, Database: "app", Branch: "main", Workflow: "mz", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"customer"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
		Organization: org, Database: "app", Branch: "main", Name: "taken", TableKeyspace: "sharded", TableOwner: "orders", TableOwnerColumns: []string{"customer_id"}, Type: "lookup",
	}); err != nil {
		t.Fatal(err)
	}
	beforeVS, beforeTables := e.vschema("sharded"), e.tables("sharded")
	beforeApp := e.tables("app")
	base := func(p platform.CreateLookupVindexParams) platform.CreateLookupVindexParams {
		p.Organization, p.Database, p.Branch = org, "app", "main"
		if p.Name == "" {
			p.Name = "v"
		}
		if p.TableKeyspace == "" {
			p.TableKeyspace = "sharded"
		}
		if p.TableOwner == "" {
			p.TableOwner = "orders"
		}
		if p.TableOwnerColumns == nil {
			p.TableOwnerColumns = []string{"sku"}
		}
		return p
	}
	create := []struct {
		name string
		p    platform.CreateLookupVindexParams
		says string
	}{
		{"bad name", base(platform.CreateLookupVindexParams{Name: "a b"}), `name "a b"`},
		{"unknown table keyspace", base(platform.CreateLookupVindexParams{TableKeyspace: "nope"}), `table_keyspace "nope"`},
		{"unknown keyspace", base(platform.CreateLookupVindexParams{Keyspace: "nope"}), `keyspace "nope"`},
		{"unsharded keyspace", base(platform.CreateLookupVindexParams{TableKeyspace: "app", TableOwner: "customer", TableOwnerColumns: []string{"email"}}), "keyspace app has one shard"},
		{"unknown type", base(platform.CreateLookupVindexParams{Type: "hash"}), `type "hash"`},
		{"vindex name taken", base(platform.CreateLookupVindexParams{Name: "hash"}), "has a vindex of that name already"},
		{"workflow name taken", base(platform.CreateLookupVindexParams{Name: "mz"}), "has a Materialize workflow of that name already"},
		{"no columns", base(platform.CreateLookupVindexParams{TableOwnerColumns: []string{}}), "table_owner_columns is required"},
		{"unknown owner", base(platform.CreateLookupVindexParams{TableOwner: "ghost"}), "table_owner ghost is not a table of keyspace sharded"},
		{"unknown column", base(platform.CreateLookupVindexParams{TableOwnerColumns: []string{"nope"}}), `table_owner_columns[0] "nope"`},
		{"two columns of a unique vindex", base(platform.CreateLookupVindexParams{TableOwnerColumns: []string{"sku", "customer_id"}}), "maps one column, got 2"},
		{"a column twice", base(platform.CreateLookupVindexParams{Type: "lookup", TableOwnerColumns: []string{"sku", "sku"}}), `table_owner_columns[1] "sku" is named twice`},
		{"lookup table exists", base(platform.CreateLookupVindexParams{TableName: "orders"}), "table_name orders is a table of keyspace sharded already"},
		{"bad table name", base(platform.CreateLookupVindexParams{TableName: "a b"}), `table_name "a b"`},
		{"unknown table vindex type", base(platform.CreateLookupVindexParams{TableVindexType: "magic"}), `table_vindex_type "magic"`},
		{"unknown cell", base(platform.CreateLookupVindexParams{Cells: []string{"mars"}}), `cells[0] "mars"`},
		{"unknown tablet type", base(platform.CreateLookupVindexParams{TabletTypes: []platform.TabletType{"spare"}}), `tablet_types[0] "spare"`},
	}
	for _, tc := range create {
		_, err := e.c.Vitess.CreateLookupVindex(ctx, &tc.p)
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || !strings.Contains(apiErr.Message, tc.says) {
			t.Errorf("%s: err = %v, want 422 saying %q", tc.name, err, tc.says)
		}
	}
	if diff := cmp.Diff(beforeVS, e.vschema("sharded")); diff != "" {
		t.Errorf("refusals changed the VSchema (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(beforeTables, e.tables("sharded")); diff != "" {
		t.Errorf("refusals changed the tables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(beforeApp, e.tables("app")); diff != "" {
		t.Errorf("refusals changed app's tables (-want +got):\n%s", diff)
	}
	actions := []struct {
		name   string
		err    error
		status int
		says   string
	}{
		{"show of an unknown vindex", func() error { _, err := e.showLV("ghost", "sharded"); return err }(), 404, "Not Found"},
		{"show of a Materialize workflow", func() error { _, err := e.showLV("mz", "sharded"); return err }(), 422, "is a Materialize workflow"},
		{"show without table_keyspace", func() error { _, err := e.showLV("taken", "nope"); return err }(), 422, `table_keyspace "nope"`},
		{"externalize of an unknown vindex", func() error {
			_, err := e.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: org, Database: "app", Branch: "main", Name: "ghost", TableKeyspace: "sharded"})
			return err
		}(), 404, "Not Found"},
		{"internalize of a vindex of another keyspace", func() error {
			_, err := e.c.Vitess.InternalizeLookupVindex(ctx, e.lv("taken", "sharded", "app"))
			return err
		}(), 422, "keyspace app has no vindex taken"},
		{"complete of a functional vindex", func() error {
			_, err := e.c.Vitess.CompleteLookupVindex(ctx, e.lv("hash", "sharded", ""))
			return err
		}(), 422, "has no owner table"},
		{"cancel of a Materialize workflow", func() error {
			_, err := e.c.Vitess.CancelLookupVindex(ctx, &platform.CancelLookupVindexParams{Organization: org, Database: "app", Branch: "main", Name: "mz", TableKeyspace: "sharded"})
			return err
		}(), 422, "is a Materialize workflow"},
		{"a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.CompleteLookupVindex(ctx, &platform.LookupVindexParams{Organization: org, Database: "pg", Branch: "main", Name: "taken", TableKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
		{"complete before externalize", func() error {
			_, err := e.c.Vitess.CompleteLookupVindex(ctx, e.lv("taken", "sharded", ""))
			return err
		}(), 422, "vindex taken has not been externalized yet: it is write-only; complete needs it externalized"},
		{"internalize before externalize", func() error {
			_, err := e.c.Vitess.InternalizeLookupVindex(ctx, e.lv("taken", "sharded", ""))
			return err
		}(), 422, "vindex taken has not been externalized yet: it is write-only; internalize needs it externalized"},
		{"complete in an unknown table keyspace", func() error {
			_, err := e.c.Vitess.CompleteLookupVindex(ctx, e.lv("taken", "nope", ""))
			return err
		}(), 422, `table_keyspace "nope"`},
		{"complete in an unknown keyspace", func() error {
			_, err := e.c.Vitess.CompleteLookupVindex(ctx, e.lv("taken", "sharded", "nope"))
			return err
		}(), 422, `keyspace "nope"`},
		{"create on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{Organization: org, Database: "pg", Branch: "main", Name: "v", TableKeyspace: "pg", TableOwner: "t", TableOwnerColumns: []string{"c"}})
			return err
		}(), 422, "MySQL"},
		{"show on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.GetLookupVindex(ctx, &platform.GetLookupVindexParams{Organization: org, Database: "pg", Branch: "main", Name: "taken", TableKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
		{"externalize on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: org, Database: "pg", Branch: "main", Name: "taken", TableKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
		{"internalize on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.InternalizeLookupVindex(ctx, &platform.LookupVindexParams{Organization: org, Database: "pg", Branch: "main", Name: "taken", TableKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
		{"cancel on a PostgreSQL branch", func() error {
			_, err := e.c.Vitess.CancelLookupVindex(ctx, &platform.CancelLookupVindexParams{Organization: org, Database: "pg", Branch: "main", Name: "taken", TableKeyspace: "sharded"})
			return err
		}(), 422, "MySQL"},
	}
	for _, tc := range actions {
		var apiErr *platform.Error
		if !errors.As(tc.err, &apiErr) || apiErr.StatusCode != tc.status || !strings.Contains(apiErr.Message, tc.says) {
			t.Errorf("%s: err = %v, want %d saying %q", tc.name, tc.err, tc.status, tc.says)
		}
	}
	if wf, err := e.showLV("taken", "sharded"); err != nil || wf.Streams[0].State != "Copying" {
		t.Errorf("refusals changed the workflow: %v %v", err, wf)
	}
}

// TestLookupVindexTableVindexByType: a lookup table in a sharded keyspace
// is sharded by the vindex its column's type suits (binary_md5 for
// bytes) unless table_vindex_type names one; a column of a type no vindex
// suits needs it named. The SDK's own checks aside, a create without a
// name or an owner is refused naming the field.
func TestLookupVindexTableVindexByType(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	if err := e.srv.PushSchema(org, "app", "main", "CREATE TABLE sharded.tokens (id bigint NOT NULL, token varbinary(16) NOT NULL, created datetime NOT NULL, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	tokens := func(name, column, vindexType string) error {
		_, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{Organization: org, Database: "app", Branch: "main", Name: name,
			TableKeyspace: "sharded", TableOwner: "tokens", TableOwnerColumns: []string{column}, TableVindexType: vindexType})
		return err
	}
	beforeVS, beforeTables := e.vschema("sharded"), e.tables("sharded")
	wantRefused(t, tokens("by_created", "created", ""), 422, "table_vindex_type is required: column created of tokens is datetime NOT NULL")
	for body, says := range map[string]string{
		`{"table_keyspace":"sharded","table_owner":"tokens","table_owner_columns":["token"]}`: "name is required",
		`{"name":"v","table_keyspace":"sharded","table_owner_columns":["token"]}`:             "table_owner is required",
	} {
		r := send(t, e.srv, "POST", "/v1/organizations/"+org+"/databases/app/branches/main/lookup-vindex/vindexes", admin(e.srv), body)
		if got := wantError(t, r, 422, "unprocessable"); !strings.Contains(got.Message, says) {
			t.Errorf("create %s: %q, want it to say %q", body, got.Message, says)
		}
	}
	if diff := cmp.Diff(beforeVS, e.vschema("sharded")); diff != "" {
		t.Errorf("refusals changed the VSchema (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(beforeTables, e.tables("sharded")); diff != "" {
		t.Errorf("refusals changed the tables (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ name, column, vindexType, want string }{
		{"by_token", "token", "", "binary_md5"},
		{"by_created", "created", "binary_md5", "binary_md5"},
	} {
		if err := tokens(tc.name, tc.column, tc.vindexType); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		table, _ := json.Marshal(e.vschema("sharded")["tables"].(map[string]any)[tc.name])
		if want := `{"column_vindexes":[{"column":"` + tc.column + `","name":"` + tc.want + `"}]}`; string(table) != want {
			t.Errorf("%s: lookup table in the VSchema = %s, want %s", tc.name, table, want)
		}
	}
}

// TestVReplicationCrossViews checks that a Materialize and a lookup
// vindex show in the vtctld workflow list of their keyspaces, that a
// frozen workflow refuses a start there, and that both come back from a
// snapshot as they were.
func TestVReplicationCrossViews(t *testing.T) {
	t.Parallel()
	e := newVRepEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	if _, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
		Organization: org, Database: "app", Branch: "main", Workflow: "ref", SourceKeyspace: "app", TargetKeyspace: "sharded",
		ReferenceTables: []string{"customer"}, StopAfterCopy: platform.Ptr(true),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
		Organization: org, Database: "app", Branch: "main", Name: "by_customer", TableKeyspace: "sharded",
		TableOwner: "orders", TableOwnerColumns: []string{"customer_id"}, Type: "lookup",
	}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(fake.DefaultTimings().VReplicationCopy)
	if _, err := e.c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: org, Database: "app", Branch: "main", Name: "by_customer", TableKeyspace: "sharded"}); err != nil {
		t.Fatal(err)
	}
	list := func(srv *fake.Server) []string {
		t.Helper()
		l, err := srv.Client().Vitess.ListWorkflows(ctx, &platform.ListVReplicationWorkflowsParams{Organization: org, Database: "app", Branch: "main", Keyspace: "sharded"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range l.Workflows {
			out = append(out, w.Name+" "+w.Type+" "+strings.Join(streamStates(w), ","))
		}
		return out
	}
	want := []string{
		"by_customer CreateLookupIndex -80 Stopped FROZEN,-80 Stopped FROZEN,80- Stopped FROZEN,80- Stopped FROZEN",
		"ref Materialize -80 Stopped Stopped after copy,80- Stopped Stopped after copy",
	}
	if diff := cmp.Diff(want, list(e.srv)); diff != "" {
		t.Errorf("vtctld workflows (-want +got):\n%s", diff)
	}
	_, err := e.c.Vitess.StartWorkflow(ctx, &platform.StartVReplicationWorkflowParams{Organization: org, Database: "app", Branch: "main", Workflow: "by_customer", Keyspace: "sharded"})
	wantRefused(t, err, 422, "frozen")
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	twin := fake.NewServer(t)
	if err := twin.Restore(data); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, list(twin)); diff != "" {
		t.Errorf("restored workflows (-want +got):\n%s", diff)
	}
	// A restore refuses a workflow state the API cannot reach, naming it,
	// and changes nothing.
	workflows := func(m map[string]any) []any {
		for _, b := range m["branches"].([]any) {
			if v, _ := b.(map[string]any)["vitess"].(map[string]any); v != nil && v["workflows"] != nil {
				return v["workflows"].([]any)
			}
		}
		t.Fatal("no workflows in the snapshot")
		return nil
	}
	edits := []struct {
		name string
		edit func(wfs []any)
		says string
	}{
		{"a frozen Materialize", func(wfs []any) { wfs[0].(map[string]any)["frozen"] = true }, "only a stopped lookup vindex's workflow is frozen"},
		{"ran on without stopping after its copy", func(wfs []any) { wfs[1].(map[string]any)["ran_on"] = true }, "ran_on"},
		{"a name with a slash", func(wfs []any) { wfs[0].(map[string]any)["name"] = "a/b" }, "is not a workflow name"},
		{"a source keyspace of no branch", func(wfs []any) { wfs[0].(map[string]any)["source_keyspace"] = "noks" }, `source_keyspace "noks" is not a keyspace`},
		{"a target keyspace of no branch", func(wfs []any) { wfs[0].(map[string]any)["target_keyspace"] = "noks" }, `target_keyspace "noks" is not a keyspace`},
		{"a workflow twice", func(wfs []any) { wfs[1].(map[string]any)["name"] = wfs[0].(map[string]any)["name"] },
			"workflow ref appears twice in keyspace sharded"},
		{"an auto-increment handling the API has not", func(wfs []any) {
			wfs[1].(map[string]any)["options"].(map[string]any)["sharded_auto_increment_handling"] = "IGNORE"
		}, `options.sharded_auto_increment_handling "IGNORE" is not LEAVE, REMOVE or REPLACE`},
		{"no source shard", func(wfs []any) { wfs[1].(map[string]any)["source_shards"] = []any{} }, "source_shards: a keyspace has at least one shard"},
		{"a table twice", func(wfs []any) {
			wf := wfs[1].(map[string]any)
			wf["tables"] = append(wf["tables"].([]any), wf["tables"].([]any)[0])
		}, `is not a new table name`},
		{"a tablet type the API has not", func(wfs []any) {
			wfs[1].(map[string]any)["options"].(map[string]any)["tablet_types"] = []any{"spare"}
		}, "options.tablet_types[0]"},
		{"a cell the branch has not", func(wfs []any) { wfs[1].(map[string]any)["options"].(map[string]any)["cells"] = []any{"mars"} }, `"mars" is not a cell`},
		{"a time zone that is none", func(wfs []any) {
			wfs[1].(map[string]any)["options"].(map[string]any)["source_time_zone"] = "Mars/Olympus"
		}, "Mars/Olympus"},
	}
	for _, tc := range edits {
		bad := snapshotEdit(t, data, func(m map[string]any) { tc.edit(workflows(m)) })
		if err := twin.Restore(bad); err == nil || !strings.Contains(err.Error(), "workflows[") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: restore = %v, want an error naming the workflow saying %q", tc.name, err, tc.says)
		}
		if diff := cmp.Diff(want, list(twin)); diff != "" {
			t.Errorf("%s: a refused restore changed the workflows (-want +got):\n%s", tc.name, diff)
		}
	}
}
