package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

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

// moveTablesDoc is a MoveTables workflow document (GetMoveTables's
// answer) whose streams are in states.
func moveTablesDoc(states ...string) string {
	var streams []string
	for i, st := range states {
		streams = append(streams, fmt.Sprintf(`{"id":"%d","shard":"-","state":%q,"message":"m%d"}`, i+1, st, i+1))
	}
	return `{"data":{"workflows":[{"name":"w1","workflow_type":"MoveTables","shard_streams":{"ks/-":{"streams":[` + strings.Join(streams, ",") + `]}}}]}}`
}

// TestVReplicationWorkflowState: a workflow's state is its streams' when
// they agree; otherwise Error, then Stopped, then Copying, in that order;
// and none for streams that disagree in other states.
func TestVReplicationWorkflowState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		streams []string
		want    string
	}{
		{[]string{"Running", "Running"}, platform.VReplicationRunning},
		{[]string{"Running", "Error", "Stopped"}, platform.VReplicationError},
		{[]string{"Copying", "Stopped"}, platform.VReplicationStopped},
		{[]string{"Running", "Copying"}, platform.VReplicationCopying},
		{[]string{"Running", "Lagging"}, ""},
		{nil, ""},
	} {
		var m platform.MoveTablesWorkflow
		if err := json.Unmarshal([]byte(moveTablesDoc(tc.streams...)), &m); err != nil {
			t.Fatal(err)
		}
		if got := m.Workflow.State(); got != tc.want {
			t.Errorf("streams %v: State() = %q, want %q", tc.streams, got, tc.want)
		}
	}
}

// TestWaitMoveTablesEnds: WaitMoveTables returns the workflow once every
// stream runs, and with a *StateError naming the state when the streams
// failed or stopped, without polling on; a document without a workflow
// keeps it polling.
func TestWaitMoveTablesEnds(t *testing.T) {
	t.Parallel()
	p := &platform.GetMoveTablesParams{Organization: "acme", Database: "shop", Branch: "main", Workflow: "w1", TargetKeyspace: "ks"}
	for _, tc := range []struct {
		name    string
		answers []string // the polls' answers; the last repeats
		polls   int
		wantErr *platform.StateError
	}{
		{"running", []string{`{"data":{"workflows":[]}}`, moveTablesDoc("Copying"), moveTablesDoc("Running", "Running")}, 3, nil},
		{"error", []string{moveTablesDoc("Copying"), moveTablesDoc("Running", "Error")}, 2,
			&platform.StateError{Resource: "workflow w1", State: platform.VReplicationError, Want: []string{platform.VReplicationRunning}}},
		{"stopped", []string{moveTablesDoc("Stopped")}, 1,
			&platform.StateError{Resource: "workflow w1", State: platform.VReplicationStopped, Want: []string{platform.VReplicationRunning}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			n := 0
			w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
				mu.Lock()
				body := tc.answers[min(n, len(tc.answers)-1)]
				n++
				mu.Unlock()
				writeBody(rw, http.StatusOK, body)
			})
			c := w.newClient(t, platform.WithSleep(func(context.Context, time.Duration) error { return nil }))
			got, err := c.Vitess.WaitMoveTables(t.Context(), p)
			if tc.wantErr == nil {
				if err != nil || got == nil || got.Workflow.State() != platform.VReplicationRunning {
					t.Fatalf("WaitMoveTables = %+v, %v; want the running workflow", got, err)
				}
			} else {
				var se *platform.StateError
				if !errors.As(err, &se) {
					t.Fatalf("WaitMoveTables = %v, want a *StateError", err)
				}
				if diff := cmp.Diff(tc.wantErr, se); diff != "" {
					t.Errorf("the StateError (-want +got):\n%s", diff)
				}
				if got == nil || got.Workflow == nil || got.Workflow.State() != se.State {
					t.Errorf("the workflow returned with the error: %+v, want the one last polled", got)
				}
			}
			if c := w.count(); c != tc.polls {
				t.Errorf("%d polls, want %d", c, tc.polls)
			}
		})
	}
}

// TestVitessOperationResults: an operation's MoveTables and
// PlannedReparent results are nil without a result, decoded with one, and
// an error naming the operation for one that does not decode.
func TestVitessOperationResults(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"", "null"} {
		op := &platform.VitessOperation{ID: "op1", Result: json.RawMessage(raw)}
		mt, err1 := op.MoveTables()
		pr, err2 := op.PlannedReparent()
		if mt != nil || pr != nil || err1 != nil || err2 != nil {
			t.Errorf("result %q: %+v, %v, %+v, %v; want nothing", raw, mt, err1, pr, err2)
		}
	}
	op := &platform.VitessOperation{ID: "op1", Result: json.RawMessage(`{"summary":"moved","start_state":"Reads Not Switched. Writes Not Switched","keyspace":"ks","shard":"-","promoted_primary":{"cell":"us-east","uid":2}}`)}
	mt, err := op.MoveTables()
	if err != nil || mt == nil || mt.Summary != "moved" || mt.StartState != "Reads Not Switched. Writes Not Switched" {
		t.Errorf("MoveTables = %+v, %v", mt, err)
	}
	pr, err := op.PlannedReparent()
	if err != nil || pr == nil || pr.Keyspace != "ks" || pr.PromotedPrimary != (platform.TabletAlias{Cell: "us-east", UID: 2}) {
		t.Errorf("PlannedReparent = %+v, %v", pr, err)
	}
	bad := &platform.VitessOperation{ID: "op1", Result: json.RawMessage(`[1]`)}
	if got, err := bad.MoveTables(); got != nil || err == nil || !strings.Contains(err.Error(), "result of operation op1") {
		t.Errorf("MoveTables of [1] = %+v, %v; want an error naming op1", got, err)
	}
	if got, err := bad.PlannedReparent(); got != nil || err == nil || !strings.Contains(err.Error(), "result of operation op1") {
		t.Errorf("PlannedReparent of [1] = %+v, %v; want an error naming op1", got, err)
	}
}
