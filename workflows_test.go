package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireWorkflowJSON is a workflow as the API sends it, written from the
// reference's schema rather than from the SDK's types.
const wireWorkflowJSON = `{"id": "wf1", "name": "move-audit", "number": 3, "state": "switched_replicas",
	"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:02:00Z",
	"started_at": "2026-01-01T00:00:05Z", "completed_at": null, "cancelled_at": null,
	"reversed_at": null, "retried_at": "2026-01-01T00:00:30Z", "data_copy_completed_at": "2026-01-01T00:01:05Z",
	"cutover_at": null, "replicas_switched": true, "primaries_switched": false,
	"switch_replicas_at": "2026-01-01T00:02:00Z", "switch_primaries_at": null, "verify_data_at": null,
	"workflow_type": "move_tables", "workflow_subtype": "", "defer_secondary_keys": true, "on_ddl": "STOP",
	"workflow_errors": "", "may_retry": false, "may_restart": false, "verified_data_stale": false,
	"sequence_tables_applied": true,
	"actor": {"id": "usr1", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"},
	"verify_data_by": null, "reversed_by": null,
	"switch_replicas_by": {"id": "usr1", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"},
	"switch_primaries_by": null, "cancelled_by": null, "completed_by": null,
	"retried_by": {"id": "usr2", "display_name": "Bob", "avatar_url": "https://avatars.example.com/b"},
	"cutover_by": null, "reversed_cutover_by": null,
	"branch": {"id": "br1", "name": "main", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "deleted_at": null},
	"source_keyspace": {"id": "ks1", "name": "app", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "deleted_at": null},
	"target_keyspace": {"id": "ks2", "name": "archive", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "deleted_at": null},
	"global_keyspace": {"id": "ks1", "name": "app", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "deleted_at": null},
	"tables": [{"id": "wt1", "name": "audit", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:35Z",
		"rows_copied": 1000, "rows_total": 1000, "rows_percentage": 100},
		{"id": "wt2", "name": "logs", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:01:05Z",
		"rows_copied": 1000, "rows_total": 1000, "rows_percentage": 100}],
	"streams": [{"id": "st1", "state": "Running", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:02:00Z",
		"target_shard": "-80", "source_shard": "-", "position": "MySQL56/0a1b:1-120", "stop_position": "", "rows_copied": 2000,
		"component_throttled": "vplayer", "component_throttled_at": "2026-01-01T00:01:30Z", "primary_serving": false, "info": "",
		"logs": [{"id": "sl1", "state": "Stopped", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
			"message": "created", "log_type": "Stream Created"}]}],
	"vdiff": {"id": "vd1", "state": "completed", "created_at": "2026-01-01T00:01:10Z", "updated_at": "2026-01-01T00:01:40Z",
		"started_at": "2026-01-01T00:01:11Z", "completed_at": "2026-01-01T00:01:40Z", "has_mismatch": true,
		"progress_percentage": 100, "eta_seconds": 0,
		"table_reports": [{"id": "tr1", "table_name": "audit", "shard": "-80", "mismatched_rows_count": 1,
			"extra_source_rows_count": 0, "extra_target_rows_count": 2, "extra_source_rows": [],
			"extra_target_rows": [{"id": "8"}, [9, "x"]], "mismatched_rows": [{"id": "1"}],
			"sample_extra_source_rows_query": "", "sample_extra_target_rows_query": "select 8",
			"sample_mismatched_rows_query": "select 1", "created_at": "2026-01-01T00:01:11Z", "updated_at": "2026-01-01T00:01:40Z"}]}}`

func wireWorkflow() *platform.Workflow {
	ada := &platform.Actor{ID: "usr1", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"}
	ref := func(id, name string) *platform.KeyspaceRef {
		return &platform.KeyspaceRef{ID: id, Name: name, CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:00Z")}
	}
	return &platform.Workflow{
		ID: "wf1", Name: "move-audit", Number: 3, State: platform.WorkflowSwitchedReplicas,
		CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:02:00Z"),
		StartedAt: backupTSP("2026-01-01T00:00:05Z"), RetriedAt: backupTSP("2026-01-01T00:00:30Z"),
		DataCopyCompletedAt: backupTSP("2026-01-01T00:01:05Z"), ReplicasSwitched: true,
		SwitchReplicasAt: backupTSP("2026-01-01T00:02:00Z"),
		WorkflowType:     platform.WorkflowTypeMoveTables, DeferSecondaryKeys: true, OnDDL: platform.OnDDLStop,
		SequenceTablesApplied: true,
		Actor:                 ada, SwitchReplicasBy: ada,
		RetriedBy:      &platform.Actor{ID: "usr2", DisplayName: "Bob", AvatarURL: "https://avatars.example.com/b"},
		Branch:         &platform.BranchRef{ID: "br1", Name: "main", CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:00Z")},
		SourceKeyspace: ref("ks1", "app"), TargetKeyspace: ref("ks2", "archive"), GlobalKeyspace: ref("ks1", "app"),
		Tables: []platform.WorkflowTable{
			{ID: "wt1", Name: "audit", CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:35Z"),
				RowsCopied: 1000, RowsTotal: 1000, RowsPercentage: 100},
			{ID: "wt2", Name: "logs", CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:01:05Z"),
				RowsCopied: 1000, RowsTotal: 1000, RowsPercentage: 100},
		},
		Streams: []platform.WorkflowStream{{
			ID: "st1", State: platform.VReplicationRunning, CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:02:00Z"),
			TargetShard: "-80", SourceShard: "-", Position: "MySQL56/0a1b:1-120", RowsCopied: 2000,
			ComponentThrottled: platform.Ptr("vplayer"), ComponentThrottledAt: backupTSP("2026-01-01T00:01:30Z"),
			Logs: []platform.WorkflowStreamLog{{ID: "sl1", State: platform.VReplicationStopped, CreatedAt: backupTS("2026-01-01T00:00:00Z"),
				UpdatedAt: backupTS("2026-01-01T00:00:00Z"), Message: "created", LogType: platform.StreamLogCreated}},
		}},
		VDiff: &platform.WorkflowVDiff{
			ID: "vd1", State: platform.VDiffCompleted, CreatedAt: backupTS("2026-01-01T00:01:10Z"), UpdatedAt: backupTS("2026-01-01T00:01:40Z"),
			StartedAt: backupTSP("2026-01-01T00:01:11Z"), CompletedAt: backupTSP("2026-01-01T00:01:40Z"), HasMismatch: true, ProgressPercentage: 100,
			TableReports: []platform.WorkflowVDiffTableReport{{
				ID: "tr1", TableName: "audit", Shard: "-80", MismatchedRowsCount: 1, ExtraTargetRowsCount: 2,
				ExtraSourceRows: []json.RawMessage{}, ExtraTargetRows: []json.RawMessage{json.RawMessage(`{"id": "8"}`), json.RawMessage(`[9, "x"]`)},
				MismatchedRows:             []json.RawMessage{json.RawMessage(`{"id": "1"}`)},
				SampleExtraTargetRowsQuery: "select 8", SampleMismatchedRowsQuery: "select 1",
				CreatedAt: backupTS("2026-01-01T00:01:11Z"), UpdatedAt: backupTS("2026-01-01T00:01:40Z"),
			}},
		},
	}
}

func TestWorkflowsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/workflows"
	org, db := "acme", "app db"
	ref := &platform.WorkflowParams{Organization: org, Database: db, Number: 3}
	cases := []methodCase{
		{
			name: "List", status: 200, response: backupListJSON(wireWorkflowJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Workflows.List(ctx, &platform.ListWorkflowsParams{Organization: org, Database: db,
					Between: "2026-01-01T00:00:00Z..2026-01-02T00:00:00Z", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			method: "GET", path: base, query: url.Values{"page": {"2"}, "per_page": {"1"}, "between": {"2026-01-01T00:00:00Z..2026-01-02T00:00:00Z"}},
			want: wirePage(wireWorkflow()),
		},
		{
			name: "Create with every field", status: 201, response: wireWorkflowJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Workflows.Create(ctx, &platform.CreateWorkflowParams{Organization: org, Database: db, Name: "move-audit",
					SourceKeyspace: "app", TargetKeyspace: "archive", Tables: []string{"audit", "logs"}, Branch: platform.Ptr("main"),
					GlobalKeyspace: platform.Ptr("app"), DeferSecondaryKeys: platform.Ptr(true), OnDDL: platform.Ptr(platform.OnDDLStop)})
			},
			method: "POST", path: base, query: url.Values{},
			body: `{"name": "move-audit", "source_keyspace": "app", "target_keyspace": "archive", "tables": ["audit", "logs"],
				"branch_name": "main", "global_keyspace": "app", "defer_secondary_keys": true, "on_ddl": "STOP"}`,
			want: wireWorkflow(),
		},
		{
			name: "Create", status: 201, response: wireWorkflowJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Workflows.Create(ctx, &platform.CreateWorkflowParams{Organization: org, Database: db, Name: "m",
					SourceKeyspace: "app", TargetKeyspace: "archive", Tables: []string{"audit"}})
			},
			method: "POST", path: base, query: url.Values{},
			body: `{"name": "m", "source_keyspace": "app", "target_keyspace": "archive", "tables": ["audit"]}`, want: wireWorkflow(),
		},
		{
			name: "Get", status: 200, response: wireWorkflowJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.Workflows.Get(ctx, ref) },
			method: "GET", path: base + "/3", query: url.Values{}, want: wireWorkflow(),
		},
		{
			name: "Cancel", status: 200, response: wireWorkflowJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.Workflows.Cancel(ctx, ref) },
			method: "DELETE", path: base + "/3", query: url.Values{}, want: wireWorkflow(),
		},
	}
	for suffix, call := range map[string]func(*platform.WorkflowsService, context.Context, *platform.WorkflowParams) (*platform.Workflow, error){
		"complete":         (*platform.WorkflowsService).Complete,
		"cutover":          (*platform.WorkflowsService).Cutover,
		"retry":            (*platform.WorkflowsService).Retry,
		"reverse-cutover":  (*platform.WorkflowsService).ReverseCutover,
		"reverse-traffic":  (*platform.WorkflowsService).ReverseTraffic,
		"switch-primaries": (*platform.WorkflowsService).SwitchPrimaries,
		"switch-replicas":  (*platform.WorkflowsService).SwitchReplicas,
		"verify-data":      (*platform.WorkflowsService).VerifyData,
	} {
		cases = append(cases, methodCase{
			name: suffix, status: 200, response: wireWorkflowJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return call(c.Workflows, ctx, ref) },
			method: "PATCH", path: base + "/3/" + suffix, query: url.Values{}, want: wireWorkflow(),
		})
	}
	runMethodCases(t, cases)
}

func TestWorkflowsArgErrors(t *testing.T) {
	t.Parallel()
	create := func(edit func(p *platform.CreateWorkflowParams)) func(ctx context.Context, c *platform.Client) error {
		return func(ctx context.Context, c *platform.Client) error {
			p := &platform.CreateWorkflowParams{Organization: "acme", Database: "db", Name: "m", SourceKeyspace: "a", TargetKeyspace: "b", Tables: []string{"t"}}
			edit(p)
			_, err := c.Workflows.Create(ctx, p)
			return err
		}
	}
	runArgCases(t, []argCase{
		{"List with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Workflows.List(ctx, nil)
			return err
		}},
		{"Get with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Workflows.Get(ctx, nil)
			return err
		}},
		{"Get without number", "number", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Workflows.Get(ctx, &platform.WorkflowParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"Cancel without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Workflows.Cancel(ctx, &platform.WorkflowParams{Organization: "acme", Number: 1})
			return err
		}},
		{"Create without name", "name", create(func(p *platform.CreateWorkflowParams) { p.Name = "" })},
		{"Create without source keyspace", "source_keyspace", create(func(p *platform.CreateWorkflowParams) { p.SourceKeyspace = "" })},
		{"Create without target keyspace", "target_keyspace", create(func(p *platform.CreateWorkflowParams) { p.TargetKeyspace = "" })},
		{"Create without tables", "tables", create(func(p *platform.CreateWorkflowParams) { p.Tables = nil })},
		{"Wait without states", "states", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Workflows.Wait(ctx, &platform.WorkflowParams{Organization: "acme", Database: "db", Number: 1})
			return err
		}},
	})
}

func TestWorkflowStates(t *testing.T) {
	t.Parallel()
	for s, terminal := range map[platform.WorkflowState]bool{
		platform.WorkflowPending: false, platform.WorkflowRunning: false, platform.WorkflowError: false,
		platform.WorkflowCutover: false, platform.WorkflowCompleted: true, platform.WorkflowCancelled: true, "new_state": false,
	} {
		if s.IsTerminal() != terminal {
			t.Errorf("%s.IsTerminal() = %v, want %v", s, !terminal, terminal)
		}
	}
}

// TestWorkflowsWaitThroughAFailure waits for a workflow whose copy fails
// on the fake: the wait ends with a StateError naming the error state.
// (ExampleWorkflowsService_Wait walks a workflow to completion.)
func TestWorkflowsWaitThroughAFailure(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "shop"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: "shop"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.PushSchema(org, "shop", "main", "CREATE TABLE orders (id bigint, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddKeyspace(org, "shop", "main", "history", 1); err != nil {
		t.Fatal(err)
	}
	wf, err := c.Workflows.Create(ctx, &platform.CreateWorkflowParams{Organization: org, Database: "shop", Name: "move-orders",
		SourceKeyspace: "shop", TargetKeyspace: "history", Tables: []string{"orders"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.FailNext(wf.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Workflows.Wait(ctx, &platform.WorkflowParams{Organization: org, Database: "shop", Number: wf.Number}, platform.WorkflowRunning)
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != string(platform.WorkflowError) || se.Resource != "workflow #1" {
		t.Errorf("waiting through a failure: %v, want a StateError in error for workflow #1", err)
	}
}
