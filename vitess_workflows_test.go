package platform_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// readGolden decodes a golden file of testdata/golden into v.
func readGolden(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/golden/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestVReplicationTypedFields: the typed fields of the workflow and
// MoveTables results read their Vitess documents.
func TestVReplicationTypedFields(t *testing.T) {
	t.Parallel()
	var list platform.VReplicationWorkflows
	readGolden(t, "vreplication_workflow_list.json", &list)
	if len(list.Workflows) != 1 {
		t.Fatalf("workflows: %d", len(list.Workflows))
	}
	w := list.Workflows[0]
	type stream struct {
		ID                 int64
		Shard, Source, Tab string
		State              string
		Rows               int64
		Tables             []string
	}
	var got []stream
	for _, s := range w.Streams {
		got = append(got, stream{s.ID, s.Shard, s.SourceShard, s.Tablet, s.State, s.RowsCopied, s.Tables})
	}
	want := []stream{
		{1, "-80", "-", "us-east-3732000000", platform.VReplicationCopying, 1233, []string{"customer", "corder"}},
		{1, "80-", "-", "us-east-3732001000", platform.VReplicationCopying, 1233, []string{"customer", "corder"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("streams (-want +got):\n%s", diff)
	}
	if w.Name != "mt" || w.Type != platform.VReplicationMoveTables || w.SubType != "None" || w.SourceKeyspace != "shop" || w.TargetKeyspace != "customers" || w.State() != platform.VReplicationCopying || len(w.Raw) == 0 {
		t.Errorf("workflow: %+v", w)
	}

	var st platform.MoveTablesStatus
	readGolden(t, "move_tables_status.json", &st)
	if st.ReadsSwitched || st.WritesSwitched || st.TrafficState != platform.TrafficNotSwitched || st.Tables["customer"].RowsCopied != 2000 || st.Tables["corder"].RowsTotal != 2000 || len(st.Streams) != 2 || st.Streams[0].Shard != "customers/-80" || st.Streams[0].SourceShard != "shop/-" {
		t.Errorf("status: %+v", st)
	}

	var op platform.VitessOperation
	readGolden(t, "vitess_operation_move_tables.json", &op)
	r, err := op.MoveTables()
	if err != nil || r == nil || r.Summary != "Successfully created the mt MoveTables workflow on (2) target primary tablets in the customers keyspace" {
		t.Errorf("MoveTables result: %+v, %v", r, err)
	}

	var u platform.WorkflowUpdate
	readGolden(t, "workflow_update.json", &u)
	if len(u.Details) != 2 || !u.Details[0].Changed || u.Details[0].Tablet != "us-east-3732000000" {
		t.Errorf("update: %+v", u)
	}

	// A workflow whose streams disagree is the most pressing state.
	mixed := platform.VReplicationWorkflow{Streams: []platform.VReplicationStream{{State: platform.VReplicationRunning}, {State: platform.VReplicationStopped}}}
	if mixed.State() != platform.VReplicationStopped {
		t.Errorf("mixed streams: %s", mixed.State())
	}
}
