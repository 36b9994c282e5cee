package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strconv"
)

// WorkflowState is the state of a workflow.
type WorkflowState string

// The workflow states. A workflow starts pending, copies its tables'
// rows (copying) and keeps them in step (running); a data verification
// runs in verifying_data and ends in verified_data. Traffic moves to the
// target keyspace in two switches, replicas then primaries
// (switching_replicas, switched_replicas, switching_primaries,
// switched_primaries), which reverse traffic undoes one at a time
// (reversing_traffic); cutover (cutting_over, cutover) makes the target
// keyspace the tables' home, reverse cutover (reversed_cutover) undoes it,
// and complete ends the workflow (completed). Cancel ends it before that
// (reversing_traffic_for_cancel, cancelling, cancelled). A failure puts it
// in error, from which retry resumes it; stopped is a workflow the service
// stopped for a schema change of its tables.
const (
	WorkflowPending                   WorkflowState = "pending"
	WorkflowCopying                   WorkflowState = "copying"
	WorkflowRunning                   WorkflowState = "running"
	WorkflowStopped                   WorkflowState = "stopped"
	WorkflowVerifyingData             WorkflowState = "verifying_data"
	WorkflowVerifiedData              WorkflowState = "verified_data"
	WorkflowSwitchingReplicas         WorkflowState = "switching_replicas"
	WorkflowSwitchedReplicas          WorkflowState = "switched_replicas"
	WorkflowSwitchingPrimaries        WorkflowState = "switching_primaries"
	WorkflowSwitchedPrimaries         WorkflowState = "switched_primaries"
	WorkflowReversingTraffic          WorkflowState = "reversing_traffic"
	WorkflowReversingTrafficForCancel WorkflowState = "reversing_traffic_for_cancel"
	WorkflowCuttingOver               WorkflowState = "cutting_over"
	WorkflowCutover                   WorkflowState = "cutover"
	WorkflowReversedCutover           WorkflowState = "reversed_cutover"
	WorkflowCompleted                 WorkflowState = "completed"
	WorkflowCancelling                WorkflowState = "cancelling"
	WorkflowCancelled                 WorkflowState = "cancelled"
	WorkflowError                     WorkflowState = "error"
)

// IsTerminal reports whether a workflow in state s has ended: completed or
// cancelled.
func (s WorkflowState) IsTerminal() bool {
	return s == WorkflowCompleted || s == WorkflowCancelled
}

// WorkflowOnDDL is what a workflow does when the schema of a table it
// moves changes while it runs.
type WorkflowOnDDL string

// The on_ddl values.
const (
	OnDDLIgnore     WorkflowOnDDL = "IGNORE"
	OnDDLStop       WorkflowOnDDL = "STOP"
	OnDDLExec       WorkflowOnDDL = "EXEC"
	OnDDLExecIgnore WorkflowOnDDL = "EXEC_IGNORE"
)

// WorkflowTypeMoveTables is the type of a workflow that moves tables
// between keyspaces, the only type there is.
const WorkflowTypeMoveTables = "move_tables"

// KeyspaceRef is the short form of a keyspace inside other objects.
type KeyspaceRef struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
	DeletedAt *Timestamp `json:"deleted_at"`
}

// Workflow moves tables from one keyspace of a branch to another while
// the application keeps using them.
type Workflow struct {
	ID     string        `json:"id"`
	Name   string        `json:"name"`
	Number int           `json:"number"`
	State  WorkflowState `json:"state"`

	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// StartedAt is when the copy started.
	StartedAt   *Timestamp `json:"started_at"`
	CompletedAt *Timestamp `json:"completed_at"`
	CancelledAt *Timestamp `json:"cancelled_at"`
	// ReversedAt is when traffic or the cutover was last reversed.
	ReversedAt          *Timestamp `json:"reversed_at"`
	RetriedAt           *Timestamp `json:"retried_at"`
	DataCopyCompletedAt *Timestamp `json:"data_copy_completed_at"`
	CutoverAt           *Timestamp `json:"cutover_at"`
	ReplicasSwitched    bool       `json:"replicas_switched"`
	PrimariesSwitched   bool       `json:"primaries_switched"`
	SwitchReplicasAt    *Timestamp `json:"switch_replicas_at"`
	SwitchPrimariesAt   *Timestamp `json:"switch_primaries_at"`
	// VerifyDataAt is when the latest data verification finished.
	VerifyDataAt *Timestamp `json:"verify_data_at"`

	WorkflowType       string        `json:"workflow_type"`
	WorkflowSubtype    string        `json:"workflow_subtype"`
	DeferSecondaryKeys bool          `json:"defer_secondary_keys"`
	OnDDL              WorkflowOnDDL `json:"on_ddl"`
	// WorkflowErrors says what went wrong; "" when nothing has.
	WorkflowErrors string `json:"workflow_errors"`
	// MayRetry is true in the error state, which Retry leaves.
	MayRetry   bool `json:"may_retry"`
	MayRestart bool `json:"may_restart"`
	// VerifiedDataStale is true when the workflow resumed after its
	// latest data verification, so that the verification may no longer
	// hold.
	VerifiedDataStale     bool `json:"verified_data_stale"`
	SequenceTablesApplied bool `json:"sequence_tables_applied"`

	// Actor created the workflow; each *By field is who took that action
	// last, nil until someone has.
	Actor             *Actor `json:"actor"`
	VerifyDataBy      *Actor `json:"verify_data_by"`
	ReversedBy        *Actor `json:"reversed_by"`
	SwitchReplicasBy  *Actor `json:"switch_replicas_by"`
	SwitchPrimariesBy *Actor `json:"switch_primaries_by"`
	CancelledBy       *Actor `json:"cancelled_by"`
	CompletedBy       *Actor `json:"completed_by"`
	RetriedBy         *Actor `json:"retried_by"`
	CutoverBy         *Actor `json:"cutover_by"`
	ReversedCutoverBy *Actor `json:"reversed_cutover_by"`

	Branch         *BranchRef   `json:"branch"`
	SourceKeyspace *KeyspaceRef `json:"source_keyspace"`
	TargetKeyspace *KeyspaceRef `json:"target_keyspace"`
	// GlobalKeyspace holds the sequence tables; nil when none was named.
	GlobalKeyspace *KeyspaceRef `json:"global_keyspace"`

	// Tables are the tables the workflow moves, in the order it copies
	// them, with the progress of their copy.
	Tables []WorkflowTable `json:"tables"`
	// Streams are its replication streams: one per target shard of the
	// target keyspace and source shard of the source keyspace, by target
	// shard then source shard.
	Streams []WorkflowStream `json:"streams"`
	// VDiff is its latest data verification; nil until VerifyData was
	// first asked for.
	VDiff *WorkflowVDiff `json:"vdiff"`
}

// WorkflowTable is a table a workflow moves and the progress of its copy.
// A workflow copies its tables one after another while it is copying;
// RowsPercentage reaches 100 once a table is copied. A workflow that
// stops or is cancelled while copying keeps the rows it had copied; one
// whose copy failed shows none, and its retry copies every table again.
type WorkflowTable struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt Timestamp `json:"created_at"`
	// UpdatedAt is when the rows copied last changed.
	UpdatedAt Timestamp `json:"updated_at"`
	// RowsCopied of RowsTotal rows are copied so far: RowsPercentage
	// percent, rounded down.
	RowsCopied     int64 `json:"rows_copied"`
	RowsTotal      int64 `json:"rows_total"`
	RowsPercentage int   `json:"rows_percentage"`
}

// WorkflowStream is a replication stream of a workflow: the rows of its
// tables that a shard of the target keyspace copies from a shard of the
// source keyspace, then keeps in step.
type WorkflowStream struct {
	ID        string    `json:"id"`
	CreatedAt Timestamp `json:"created_at"`
	// UpdatedAt is when the stream last reported: now while it copies or
	// runs, else when its state last changed.
	UpdatedAt Timestamp `json:"updated_at"`
	// State is VReplicationCopying, VReplicationRunning,
	// VReplicationStopped or VReplicationError, as the Vitess streams of
	// the workflow (Vitess.ListWorkflows) show it.
	State       string `json:"state"`
	TargetShard string `json:"target_shard"`
	SourceShard string `json:"source_shard"`
	// Position is the source shard's replication position the stream
	// has reached (a GTID set); StopPosition the position it is to stop
	// at, "" for none.
	Position     string `json:"position"`
	StopPosition string `json:"stop_position"`
	// RowsCopied is how many rows of the workflow's tables the stream has
	// copied.
	RowsCopied int64 `json:"rows_copied"`
	// ComponentThrottled names the component that throttles the stream,
	// and ComponentThrottledAt since when; nil when it is not throttled.
	ComponentThrottled   *string    `json:"component_throttled"`
	ComponentThrottledAt *Timestamp `json:"component_throttled_at"`
	// PrimaryServing is true once the target keyspace serves the
	// tables' primary traffic (writes).
	PrimaryServing bool `json:"primary_serving"`
	// Info says why the stream stopped or failed; "" while it copies or
	// runs.
	Info string `json:"info"`
	// Logs record the stream's creation and its changes of state, oldest
	// first.
	Logs []WorkflowStreamLog `json:"logs"`
}

// The log types of a workflow stream's logs (WorkflowStreamLog.LogType).
const (
	StreamLogCreated     = "Stream Created"
	StreamLogCopyStarted = "Started Copy Phase"
	StreamLogCopyEnded   = "Ended Copy Phase"
	StreamLogStateChange = "State Changed"
	StreamLogError       = "Error"
)

// WorkflowStreamLog is an entry of a workflow stream's log: a change of
// the stream, the state it left the stream in, and when.
type WorkflowStreamLog struct {
	ID        string    `json:"id"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// State is the stream's state after the change.
	State   string `json:"state"`
	Message string `json:"message"`
	// LogType is what happened: StreamLogCreated, StreamLogCopyStarted,
	// StreamLogCopyEnded, StreamLogStateChange or StreamLogError.
	LogType string `json:"log_type"`
}

// WorkflowVDiff is a workflow's data verification: a VDiff comparing the
// rows of its tables in the source keyspace with those in the target, on
// each target shard. It is pending, then started, and completed (error
// when the verification failed, stopped when the workflow was cancelled
// while it ran).
type WorkflowVDiff struct {
	ID        string     `json:"id"`
	State     VDiffState `json:"state"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
	// StartedAt is when the comparison started, nil while pending;
	// CompletedAt when it completed, nil before.
	StartedAt   *Timestamp `json:"started_at"`
	CompletedAt *Timestamp `json:"completed_at"`
	// HasMismatch is true when a table report found a difference.
	HasMismatch bool `json:"has_mismatch"`
	// ProgressPercentage is the share of the rows compared, in whole
	// percent; EtaSeconds how long the rest is expected to take.
	ProgressPercentage int   `json:"progress_percentage"`
	EtaSeconds         int64 `json:"eta_seconds"`
	// TableReports are what the comparison found, per table and target
	// shard, by table then shard.
	TableReports []WorkflowVDiffTableReport `json:"table_reports"`
}

// WorkflowVDiffTableReport is what a workflow's data verification found
// in one table on one target shard: the rows that differ between source
// and target, those only the source has and those only the target has,
// with samples of each and the queries that read the samples.
type WorkflowVDiffTableReport struct {
	ID        string    `json:"id"`
	TableName string    `json:"table_name"`
	Shard     string    `json:"shard"`
	CreatedAt Timestamp `json:"created_at"`
	// UpdatedAt is when the counts last changed.
	UpdatedAt            Timestamp `json:"updated_at"`
	MismatchedRowsCount  int64     `json:"mismatched_rows_count"`
	ExtraSourceRowsCount int64     `json:"extra_source_rows_count"`
	ExtraTargetRowsCount int64     `json:"extra_target_rows_count"`
	// MismatchedRows, ExtraSourceRows and ExtraTargetRows are samples of
	// the rows found, each as the API sends it (the fake: an object of
	// the row's primary-key columns and their values).
	MismatchedRows  []json.RawMessage `json:"mismatched_rows"`
	ExtraSourceRows []json.RawMessage `json:"extra_source_rows"`
	ExtraTargetRows []json.RawMessage `json:"extra_target_rows"`
	// The Sample*Query fields are queries that read each sample's rows;
	// "" for a sample without rows.
	SampleMismatchedRowsQuery  string `json:"sample_mismatched_rows_query"`
	SampleExtraSourceRowsQuery string `json:"sample_extra_source_rows_query"`
	SampleExtraTargetRowsQuery string `json:"sample_extra_target_rows_query"`
}

// WorkflowsService moves tables between the keyspaces of a branch.
type WorkflowsService service

// WorkflowParams names a workflow by its number.
type WorkflowParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
}

func (p *WorkflowParams) check() error {
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return err
	}
	if p.Number < 1 {
		return &ArgError{Arg: "number", Reason: fmt.Sprintf("%d is not a workflow number (they start at 1)", p.Number)}
	}
	return nil
}

func (p *WorkflowParams) path(suffix string) string {
	return workflowsPath(p.Organization, p.Database) + pathf("/%s", strconv.Itoa(p.Number)) + suffix
}

// workflowsPath is the collection path of a database's workflows.
func workflowsPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/workflows", org, db)
}

// ListWorkflowsParams selects a page of a database's workflows.
type ListWorkflowsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// Between keeps the workflows active during a time range, written
	// "from..to" in RFC 3339 ("2026-01-01T00:00:00Z..2026-01-01T23:59:59Z").
	Between string `json:"-" url:"between,omitempty"`
	ListParams
}

// List returns a page of a database's workflows, oldest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/workflows
func (s *WorkflowsService) List(ctx context.Context, p *ListWorkflowsParams) (*Page[Workflow], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[Workflow](ctx, s.client, workflowsPath(p.Organization, p.Database), p)
}

// All ranges over every workflow of a database.
func (s *WorkflowsService) All(ctx context.Context, p *ListWorkflowsParams) iter.Seq2[*Workflow, error] {
	return allOf(ctx, p, s.List)
}

// CreateWorkflowParams starts a workflow that moves tables from one
// keyspace to another.
type CreateWorkflowParams struct {
	Organization   string   `json:"-" url:"-"`
	Database       string   `json:"-" url:"-"`
	Name           string   `json:"name"`
	SourceKeyspace string   `json:"source_keyspace"`
	TargetKeyspace string   `json:"target_keyspace"`
	Tables         []string `json:"tables"`
	// Branch is the branch whose keyspaces the tables move between; nil
	// for the database's default branch. It is sent as branch_name
	// (versions of this package before it sent branch, which the API
	// still accepts).
	Branch *string `json:"branch_name,omitempty"`
	// GlobalKeyspace is the keyspace of the sequence tables the moved
	// tables use.
	GlobalKeyspace     *string        `json:"global_keyspace,omitempty"`
	DeferSecondaryKeys *bool          `json:"defer_secondary_keys,omitempty"`
	OnDDL              *WorkflowOnDDL `json:"on_ddl,omitempty"`
}

// Create starts a workflow, creating its tables in the target keyspace
// (schema and VSchema). It starts pending; [WorkflowsService.Wait]
// waits until it is running, caught up with its source.
//
// API: POST /v1/organizations/{organization}/databases/{database}/workflows
func (s *WorkflowsService) Create(ctx context.Context, p *CreateWorkflowParams) (*Workflow, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "name", p.Name,
		"source_keyspace", p.SourceKeyspace, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	if len(p.Tables) == 0 {
		return nil, &ArgError{Arg: "tables", Reason: "name at least one table to move"}
	}
	wf := new(Workflow)
	return orNil(wf, s.client.post(ctx, workflowsPath(p.Organization, p.Database), p, wf))
}

// Get returns a workflow.
//
// API: GET /v1/organizations/{organization}/databases/{database}/workflows/{number}
func (s *WorkflowsService) Get(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "GET", p, "", nil, nil)
}

// Cancel cancels a workflow that has not completed, reversing the traffic
// it switched and dropping the tables its creation made in the target
// keyspace, and returns it (cancelling, or first
// reversing_traffic_for_cancel).
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/workflows/{number}
func (s *WorkflowsService) Cancel(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "DELETE", p, "", nil, nil)
}

// Complete completes a workflow that has cut over: its tables leave the
// source keyspace for good.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/complete
func (s *WorkflowsService) Complete(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/complete", nil, nil)
}

// Cutover makes the target keyspace the home of a workflow's tables once
// both replica and primary traffic are switched.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/cutover
func (s *WorkflowsService) Cutover(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/cutover", nil, nil)
}

// Retry resumes a workflow in the error state from the step that failed.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/retry
func (s *WorkflowsService) Retry(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/retry", nil, nil)
}

// ReverseCutover undoes a workflow's cutover: the source keyspace serves
// its tables again.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/reverse-cutover
func (s *WorkflowsService) ReverseCutover(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/reverse-cutover", nil, nil)
}

// ReverseTraffic undoes a workflow's latest traffic switch: primaries if
// they are switched, replicas otherwise.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/reverse-traffic
func (s *WorkflowsService) ReverseTraffic(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/reverse-traffic", nil, nil)
}

// SwitchPrimaries sends a workflow's primary traffic (writes) to the
// target keyspace, once its replica traffic is switched.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/switch-primaries
func (s *WorkflowsService) SwitchPrimaries(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/switch-primaries", nil, nil)
}

// SwitchReplicas sends a workflow's replica traffic (reads from replicas)
// to the target keyspace.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/switch-replicas
func (s *WorkflowsService) SwitchReplicas(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/switch-replicas", nil, nil)
}

// VerifyData starts a verification that the target keyspace holds the
// same rows as the source (verifying_data); it ends in verified_data.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/verify-data
func (s *WorkflowsService) VerifyData(ctx context.Context, p *WorkflowParams) (*Workflow, error) {
	return callOn[Workflow](ctx, s.client, "PATCH", p, "/verify-data", nil, nil)
}

// Wait polls a workflow until it reaches one of states, and returns it.
// A state it can no longer leave for one of them (completed, cancelled,
// error) ends the wait with a *StateError naming it.
func (s *WorkflowsService) Wait(ctx context.Context, p *WorkflowParams, states ...WorkflowState) (*Workflow, error) {
	p = orZero(p)
	if len(states) == 0 {
		return nil, &ArgError{Arg: "states", Reason: "name at least one workflow state to wait for"}
	}
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Workflow, error) {
		return s.Get(ctx, p)
	}, func(wf *Workflow) (bool, error) {
		if slices.Contains(states, wf.State) {
			return true, nil
		}
		if wf.State.IsTerminal() || wf.State == WorkflowError {
			want := make([]string, len(states))
			for i, st := range states {
				want[i] = string(st)
			}
			return false, &StateError{Resource: fmt.Sprintf("workflow #%d", p.Number), State: string(wf.State), Want: want}
		}
		return false, nil
	})
}
