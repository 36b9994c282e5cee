package platform_test

import (
	"testing"

	"github.com/dbplatform/platform-go"
)

// TestLookupVindexDecode checks the requests the lookup-vindex methods
// send and the typed results they read from the golden documents.
func TestLookupVindexDecode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const base = "/v1/organizations/o/databases/d/branches/b/lookup-vindex/vindexes"
	var v vrepServer
	c := v.client(t, "lookup_vindex_change.json")
	got, err := c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "by_customer", TableKeyspace: "customers", Delete: platform.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if v.last.method != "POST" || v.last.path != base+"/by_customer/externalize" || v.last.body != `{"table_keyspace":"customers","delete":false}` {
		t.Errorf("request = %+v", v.last)
	}
	if !got.WorkflowStopped || got.WorkflowDeleted || string(got.Raw) == "" {
		t.Errorf("change = %+v", got)
	}
	if _, err := c.Vitess.InternalizeLookupVindex(ctx, &platform.InternalizeLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "by_customer", TableKeyspace: "customers", Keyspace: "orders"}); err != nil {
		t.Fatal(err)
	}
	if v.last.path != base+"/by_customer/internalize" || v.last.body != `{"table_keyspace":"customers","keyspace":"orders"}` {
		t.Errorf("request = %+v", v.last)
	}
	c = v.client(t, "vreplication_workflow_show.json")
	show, err := c.Vitess.GetLookupVindex(ctx, &platform.GetLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "by_customer", TableKeyspace: "customers"})
	if err != nil {
		t.Fatal(err)
	}
	if v.last.method != "GET" || v.last.path != base+"/by_customer" || v.last.query != "table_keyspace=customers" || len(show.Workflow.Streams) != 2 {
		t.Errorf("request = %+v, workflow %+v", v.last, show.Workflow)
	}
	c = v.client(t, "vreplication_summary.json")
	if _, err := c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "by_customer", TableKeyspace: "customers",
		TableOwner: "corder", TableOwnerColumns: []string{"customer_id"}, IgnoreNulls: platform.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"by_customer","table_keyspace":"customers","table_owner":"corder","table_owner_columns":["customer_id"],"ignore_nulls":false}`
	if v.last.path != base || v.last.body != want {
		t.Errorf("request = %+v, want body %s", v.last, want)
	}
}
