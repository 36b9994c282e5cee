package platform

import (
	"context"
	"encoding/json"
	"fmt"
)

// MoveTables moves tables from one keyspace of a branch to another, step
// by step: create (copy the tables, then keep them in step), switch read
// and then write traffic to the target, and complete (the tables leave
// the source); reverse traffic and cancel undo. Each action runs as an
// operation of the control plane: it answers a [VitessOperationRef], and
// [VitessService.WaitOperation] waits for its result, which
// [VitessOperation.MoveTables] decodes. The workflow is also a documented
// workflow of [WorkflowsService], numbered there, and both views show one
// state.

// The actions of MoveTables operations (VitessOperation.Action).
const (
	VitessActionMoveTablesCreate         = "move_tables_create"
	VitessActionMoveTablesSwitchTraffic  = "move_tables_switch_traffic"
	VitessActionMoveTablesReverseTraffic = "move_tables_reverse_traffic"
	VitessActionMoveTablesCancel         = "move_tables_cancel"
	VitessActionMoveTablesComplete       = "move_tables_complete"
)

// VitessOperationRef names an operation a MoveTables action started;
// [VitessService.WaitOperation] follows it.
type VitessOperationRef struct {
	ID string `json:"id"`
}

// CreateMoveTablesParams asks for a MoveTables workflow.
type CreateMoveTablesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Workflow names the workflow, unique within the target keyspace.
	Workflow       string `json:"workflow"`
	TargetKeyspace string `json:"target_keyspace"`
	SourceKeyspace string `json:"source_keyspace"`
	// Tables are the tables to move; AllTables moves every table of the
	// source but ExcludeTables. One of the two is required.
	Tables        []string `json:"tables,omitempty"`
	AllTables     *bool    `json:"all_tables,omitempty"`
	ExcludeTables []string `json:"exclude_tables,omitempty"`
	// AutoStart starts copying at once (the default); false leaves the
	// streams stopped until [VitessService.StartWorkflow].
	AutoStart *bool `json:"auto_start,omitempty"`
	// StopAfterCopy stops the streams once the copy is done.
	StopAfterCopy      *bool `json:"stop_after_copy,omitempty"`
	DeferSecondaryKeys *bool `json:"defer_secondary_keys,omitempty"`
	// OnDDL is what the streams do with DDL on the source: IGNORE (the
	// default), STOP, EXEC or EXEC_IGNORE.
	OnDDL string `json:"on_ddl,omitempty"`
	// ShardedAutoIncrementHandling is LEAVE, REMOVE or REPLACE (the
	// sequence tables then go to GlobalKeyspace).
	ShardedAutoIncrementHandling string `json:"sharded_auto_increment_handling,omitempty"`
	GlobalKeyspace               string `json:"global_keyspace,omitempty"`
	// SourceTimeZone is the IANA time zone of the source's DATETIMEs.
	SourceTimeZone string `json:"source_time_zone,omitempty"`
	TenantID       string `json:"tenant_id,omitempty"`
	// Cells and TabletTypes choose the source tablets to stream from.
	Cells       []string `json:"cells,omitempty"`
	TabletTypes []string `json:"tablet_types,omitempty"`
	AtomicCopy  *bool    `json:"atomic_copy,omitempty"`
}

// CreateMoveTables starts creating a MoveTables workflow: its tables are
// created in the target keyspace (schema and VSchema) before its streams
// start copying.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows
func (s *VitessService) CreateMoveTables(ctx context.Context, p *CreateMoveTablesParams) (*VitessOperationRef, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	out := new(VitessOperationRef)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/move-tables/workflows"), p, out))
}

// GetMoveTablesParams names a MoveTables workflow by its target keyspace
// and name.
type GetMoveTablesParams struct {
	Organization   string `json:"-" url:"-"`
	Database       string `json:"-" url:"-"`
	Branch         string `json:"-" url:"-"`
	Workflow       string `json:"-" url:"-"`
	TargetKeyspace string `json:"-" url:"target_keyspace"`
}

// MoveTablesStatusParams names the workflow whose status to read.
type MoveTablesStatusParams = GetMoveTablesParams

// GetMoveTables returns a MoveTables workflow (the show operation).
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows/{workflow}
func (s *VitessService) GetMoveTables(ctx context.Context, p *GetMoveTablesParams) (*MoveTablesWorkflow, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(MoveTablesWorkflow)
	return orNil(out, s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/move-tables/workflows/%s", p.Workflow)), p, out))
}

// WaitMoveTables polls a MoveTables workflow until its copy is done (every
// stream runs), and returns it. A stream stopped or in error gives a
// [*StateError] naming that state.
func (s *VitessService) WaitMoveTables(ctx context.Context, p *GetMoveTablesParams) (*MoveTablesWorkflow, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*MoveTablesWorkflow, error) {
		return s.GetMoveTables(ctx, p)
	}, func(m *MoveTablesWorkflow) (bool, error) {
		if m.Workflow == nil {
			return false, nil
		}
		switch st := m.Workflow.State(); st {
		case VReplicationRunning:
			return true, nil
		case VReplicationError, VReplicationStopped:
			return true, &StateError{Resource: "workflow " + m.Workflow.Name, State: st, Want: []string{VReplicationRunning}}
		}
		return false, nil
	})
}

// MoveTablesWorkflow is a MoveTables workflow as GetMoveTables answers
// it.
type MoveTablesWorkflow struct {
	// Workflow is the workflow; nil if the answer has none.
	Workflow *VReplicationWorkflow `json:"-"`
	// Raw is the whole document: vtctldata.GetWorkflowsResponse in
	// protobuf JSON, with the one workflow.
	Raw json.RawMessage `json:"data"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the workflow in it;
// a document that is not an object has no workflow.
func (m *MoveTablesWorkflow) UnmarshalJSON(b []byte) error {
	if err := nilTarget(m); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	*m = MoveTablesWorkflow{Raw: data}
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	var doc struct {
		Workflows []*VReplicationWorkflow `json:"workflows"`
	}
	if err := decodeVtctld(data, &doc, "workflows"); err != nil {
		return err
	}
	if len(doc.Workflows) > 0 {
		m.Workflow = doc.Workflows[0]
	}
	return nil
}

// The traffic states of a MoveTables workflow (MoveTablesStatus.TrafficState).
const (
	TrafficNotSwitched   = "Reads Not Switched. Writes Not Switched"
	TrafficReadsSwitched = "All Reads Switched. Writes Not Switched"
	TrafficAllSwitched   = "All Reads Switched. Writes Switched"
)

// MoveTablesStatus is the progress of a MoveTables workflow: its copy,
// its streams and the traffic switched.
type MoveTablesStatus struct {
	// TrafficState says which traffic the target serves:
	// TrafficNotSwitched, TrafficReadsSwitched or TrafficAllSwitched.
	TrafficState string `json:"-"`
	// ReadsSwitched and WritesSwitched read TrafficState.
	ReadsSwitched, WritesSwitched bool `json:"-"`
	// Tables are the tables still copying, by name.
	Tables map[string]TableCopyState `json:"-"`
	// Streams are the streams, by target shard.
	Streams []MoveTablesStreamState `json:"-"`
	// Raw is the whole document: vtctldata.WorkflowStatusResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// TableCopyState is the copy of one table.
type TableCopyState struct {
	RowsCopied     int64   `json:"-"`
	RowsTotal      int64   `json:"-"`
	RowsPercentage float64 `json:"rows_percentage"`
}

// MoveTablesStreamState is one stream of a [MoveTablesStatus].
type MoveTablesStreamState struct {
	// ID numbers the stream within its target shard.
	ID int64
	// Shard is "<keyspace>/<shard>" of the target; SourceShard the source
	// shard.
	Shard, SourceShard string
	// Tablet is the alias of the target primary that runs it.
	Tablet string
	// Status is the stream's state (VReplicationRunning...).
	Status string
	// Position is the source's replication position it has reached.
	Position string
	// Info says how far it is (its copy, or its lag).
	Info string
}

// UnmarshalJSON reads the envelope {"data": ...} and the status in it.
func (st *MoveTablesStatus) UnmarshalJSON(b []byte) error {
	if err := nilTarget(st); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		TableCopyState map[string]struct {
			RowsCopied     json.Number `json:"rows_copied"`
			RowsTotal      json.Number `json:"rows_total"`
			RowsPercentage float64     `json:"rows_percentage"`
		} `json:"table_copy_state"`
		ShardStreams map[string]struct {
			Streams []struct {
				ID          int64       `json:"id"`
				Tablet      TabletAlias `json:"tablet"`
				SourceShard string      `json:"source_shard"`
				Position    string      `json:"position"`
				Status      string      `json:"status"`
				Info        string      `json:"info"`
			} `json:"streams"`
		} `json:"shard_streams"`
		TrafficState string `json:"traffic_state"`
	}
	if err := decodeVtctld(data, &doc, "MoveTables status"); err != nil {
		return err
	}
	*st = MoveTablesStatus{TrafficState: doc.TrafficState, Raw: data}
	st.ReadsSwitched = doc.TrafficState == TrafficReadsSwitched || doc.TrafficState == TrafficAllSwitched
	st.WritesSwitched = doc.TrafficState == TrafficAllSwitched
	for name, t := range doc.TableCopyState {
		if st.Tables == nil {
			st.Tables = map[string]TableCopyState{}
		}
		st.Tables[name] = TableCopyState{RowsCopied: int64Of(t.RowsCopied), RowsTotal: int64Of(t.RowsTotal), RowsPercentage: t.RowsPercentage}
	}
	for _, key := range sortedKeys(doc.ShardStreams) {
		for _, s := range doc.ShardStreams[key].Streams {
			st.Streams = append(st.Streams, MoveTablesStreamState{ID: s.ID, Shard: key, SourceShard: s.SourceShard, Tablet: s.Tablet.String(), Status: s.Status, Position: s.Position, Info: s.Info})
		}
	}
	return nil
}

// MoveTablesStatus returns the progress of a MoveTables workflow.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows/{workflow}/status
func (s *VitessService) MoveTablesStatus(ctx context.Context, p *MoveTablesStatusParams) (*MoveTablesStatus, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(MoveTablesStatus)
	return orNil(out, s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/move-tables/workflows/%s/status", p.Workflow)), p, out))
}

// SwitchTrafficParams asks for a MoveTables workflow's traffic to go to
// its target keyspace (or, for ReverseTraffic, back to the source).
type SwitchTrafficParams struct {
	Organization   string `json:"-" url:"-"`
	Database       string `json:"-" url:"-"`
	Branch         string `json:"-" url:"-"`
	Workflow       string `json:"-" url:"-"`
	TargetKeyspace string `json:"target_keyspace"`
	// TabletTypes are the traffic to switch: "replica" and "rdonly"
	// (reads, together), "primary" (writes, once reads are), or all
	// three (the default).
	TabletTypes []string `json:"tablet_types,omitempty"`
	// MaxReplicationLagAllowed is the lag, in seconds, above which the
	// switch is refused.
	MaxReplicationLagAllowed *int64 `json:"max_replication_lag_allowed,omitempty"`
	// DryRun answers what the switch would do, changing nothing.
	DryRun *bool `json:"dry_run,omitempty"`
	// InitializeTargetSequences sets the target's sequences past the
	// moved tables' rows (SwitchTraffic only).
	InitializeTargetSequences *bool `json:"initialize_target_sequences,omitempty"`
}

// ReverseTrafficParams asks for a MoveTables workflow's traffic to go
// back to its source keyspace (InitializeTargetSequences is refused).
type ReverseTrafficParams = SwitchTrafficParams

// SwitchTraffic starts switching a MoveTables workflow's traffic to its
// target keyspace.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows/{workflow}/switch-traffic
func (s *VitessService) SwitchTraffic(ctx context.Context, p *SwitchTrafficParams) (*VitessOperationRef, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow); err != nil {
		return nil, err
	}
	out := new(VitessOperationRef)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/move-tables/workflows/%s/switch-traffic", p.Workflow)), p, out))
}

// ReverseTraffic starts switching a MoveTables workflow's traffic back
// to its source keyspace: writes first (TabletTypes "primary"), then
// reads.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows/{workflow}/reverse-traffic
func (s *VitessService) ReverseTraffic(ctx context.Context, p *ReverseTrafficParams) (*VitessOperationRef, error) {
	p = orZero(p)
	if p.InitializeTargetSequences != nil {
		return nil, &ArgError{Arg: "initialize_target_sequences", Reason: "is for SwitchTraffic only"}
	}
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow); err != nil {
		return nil, err
	}
	out := new(VitessOperationRef)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/move-tables/workflows/%s/reverse-traffic", p.Workflow)), p, out))
}

// CancelMoveTablesParams asks for a MoveTables workflow to be cancelled.
type CancelMoveTablesParams struct {
	Organization   string `json:"-" url:"-"`
	Database       string `json:"-" url:"-"`
	Branch         string `json:"-" url:"-"`
	Workflow       string `json:"-" url:"-"`
	TargetKeyspace string `json:"target_keyspace"`
	// KeepData keeps the tables copied into the target; KeepRoutingRules
	// keeps the workflow's routing rules.
	KeepData         *bool `json:"keep_data,omitempty"`
	KeepRoutingRules *bool `json:"keep_routing_rules,omitempty"`
}

// CancelMoveTables starts cancelling a MoveTables workflow that has no
// traffic switched: its streams and routing rules go, the tables stay in
// the source, and the copies create made in the target go unless
// KeepData.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows/{workflow}/cancel
func (s *VitessService) CancelMoveTables(ctx context.Context, p *CancelMoveTablesParams) (*VitessOperationRef, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow); err != nil {
		return nil, err
	}
	out := new(VitessOperationRef)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/move-tables/workflows/%s/cancel", p.Workflow)), p, out))
}

// CompleteMoveTablesParams asks for a MoveTables workflow to be
// completed.
type CompleteMoveTablesParams struct {
	Organization   string `json:"-" url:"-"`
	Database       string `json:"-" url:"-"`
	Branch         string `json:"-" url:"-"`
	Workflow       string `json:"-" url:"-"`
	TargetKeyspace string `json:"target_keyspace"`
	// KeepData keeps the tables in the source; RenameTables keeps them
	// renamed _<table>_old; KeepRoutingRules keeps the routing rules.
	KeepData         *bool `json:"keep_data,omitempty"`
	KeepRoutingRules *bool `json:"keep_routing_rules,omitempty"`
	RenameTables     *bool `json:"rename_tables,omitempty"`
	// DryRun answers what completing would do, changing nothing.
	DryRun *bool `json:"dry_run,omitempty"`
}

// CompleteMoveTables starts completing a MoveTables workflow whose
// traffic is all switched: the tables, in the target keyspace since the
// workflow was created, leave the source keyspace's schema and VSchema,
// and the workflow ends.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows/{workflow}/complete
func (s *VitessService) CompleteMoveTables(ctx context.Context, p *CompleteMoveTablesParams) (*VitessOperationRef, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow); err != nil {
		return nil, err
	}
	out := new(VitessOperationRef)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/move-tables/workflows/%s/complete", p.Workflow)), p, out))
}

// MoveTablesResult is the result of a completed MoveTables operation:
// vtctldata.MoveTablesCreateResponse, WorkflowSwitchTrafficResponse,
// WorkflowDeleteResponse or MoveTablesCompleteResponse.
type MoveTablesResult struct {
	// Summary says what was done.
	Summary string `json:"summary"`
	// StartState and CurrentState are the traffic states before and
	// after a switch or reverse (TrafficNotSwitched...).
	StartState   string `json:"start_state"`
	CurrentState string `json:"current_state"`
	// DryRunResults list what a dry run would do.
	DryRunResults []string `json:"dry_run_results"`
}

// MoveTables decodes the result of a completed MoveTables operation; it
// is nil (and no error) while the operation has no result.
func (o *VitessOperation) MoveTables() (*MoveTablesResult, error) {
	if len(o.Result) == 0 || string(o.Result) == "null" {
		return nil, nil
	}
	out := new(MoveTablesResult)
	if err := json.Unmarshal(o.Result, out); err != nil {
		return nil, fmt.Errorf("platform: decoding the result of operation %s: %w", o.ID, err)
	}
	return out, nil
}
