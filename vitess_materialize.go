package platform

import (
	"context"
	"encoding/json"
	"fmt"
)

// Materialize: a VReplication workflow that keeps tables of a target
// keyspace filled from queries on a source keyspace (a copy of a table, a
// projection, an aggregate), copying what is there and then following
// every change. It runs in the target keyspace, which names it together
// with the workflow's name; [VitessService.GetMaterialize] shows its
// streams, which start copying and then replicate.

// MaterializeTableSettings says how one target table is filled.
type MaterializeTableSettings struct {
	// TargetTable is the table of the target keyspace filled.
	TargetTable string `json:"target_table"`
	// SourceExpression is the SELECT on the source keyspace whose rows
	// fill it; empty for "select * from <target_table>".
	SourceExpression string `json:"source_expression,omitempty"`
	// CreateDDL makes the target table: a CREATE TABLE statement, "copy"
	// for the source table's definition, or empty when the target table
	// exists already.
	CreateDDL string `json:"create_ddl,omitempty"`
}

// CreateMaterializeParams starts a Materialize workflow. TableSettings
// or ReferenceTables (tables copied whole, as reference tables) is set,
// not both.
type CreateMaterializeParams struct {
	Organization   string `json:"-" url:"-"`
	Database       string `json:"-" url:"-"`
	Branch         string `json:"-" url:"-"`
	Workflow       string `json:"workflow"`
	TargetKeyspace string `json:"target_keyspace"`
	SourceKeyspace string `json:"source_keyspace"`
	// TableSettings are the tables to fill, one each.
	TableSettings   []MaterializeTableSettings `json:"table_settings,omitempty"`
	ReferenceTables []string                   `json:"reference_tables,omitempty"`
	// Cells are the cells whose tablets the streams read from; empty for
	// the target's.
	Cells []string `json:"cells,omitempty"`
	// TabletTypes are the types of the tablets the streams read from
	// ("primary", "replica", "rdonly"); empty for the default.
	TabletTypes []TabletType `json:"tablet_types,omitempty"`
	// StopAfterCopy stops the streams once the copy is done, instead of
	// replicating on.
	StopAfterCopy                *bool `json:"stop_after_copy,omitempty"`
	TabletTypesInPreferenceOrder *bool `json:"tablet_types_in_preference_order,omitempty"`
	DeferSecondaryKeys           *bool `json:"defer_secondary_keys,omitempty"`
	AtomicCopy                   *bool `json:"atomic_copy,omitempty"`
	// OnDDL is what the streams do on a schema change of the source:
	// IGNORE (the default), STOP, EXEC or EXEC_IGNORE.
	OnDDL string `json:"on_ddl,omitempty"`
	// SourceTimeZone is the time zone the source's datetimes are in;
	// they are converted to UTC.
	SourceTimeZone string `json:"source_time_zone,omitempty"`
}

// VReplicationSummary is the answer of an action that starts a
// VReplication workflow: what was done, in words.
type VReplicationSummary struct {
	Summary string `json:"-"`
	// Raw is the whole document.
	Raw json.RawMessage `json:"data"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the summary in it.
func (s *VReplicationSummary) UnmarshalJSON(b []byte) error {
	if err := nilTarget(s); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		Summary string `json:"summary"`
	}
	if err := decodeVtctld(data, &doc, "summary"); err != nil {
		return err
	}
	s.Summary, s.Raw = doc.Summary, data
	return nil
}

// CreateMaterialize creates a Materialize workflow in the target
// keyspace, making the target tables that do not exist yet, and starts
// it: its streams copy, then replicate (or stop, with StopAfterCopy).
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows
func (s *VitessService) CreateMaterialize(ctx context.Context, p *CreateMaterializeParams) (*VReplicationSummary, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch,
		"workflow", p.Workflow, "target_keyspace", p.TargetKeyspace, "source_keyspace", p.SourceKeyspace); err != nil {
		return nil, err
	}
	if len(p.TableSettings) == 0 && len(p.ReferenceTables) == 0 {
		return nil, &ArgError{Arg: "table_settings", Reason: "one of table_settings and reference_tables is required"}
	}
	out := new(VReplicationSummary)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/materialize/workflows"), p, out))
}

// GetMaterializeParams names a Materialize workflow.
type GetMaterializeParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// TargetKeyspace is the keyspace the workflow runs in.
	TargetKeyspace string `json:"-" url:"target_keyspace"`
	// IncludeLogs adds each stream's log.
	IncludeLogs *bool `json:"-" url:"include_logs,omitempty"`
}

func (p *GetMaterializeParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace)
}

func (p *GetMaterializeParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/materialize/workflows/%s", p.Organization, p.Database, p.Branch, p.Workflow) + suffix
}

// GetMaterialize returns a Materialize workflow with its streams;
// [ErrNotFound] when the answer holds none.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}
func (s *VitessService) GetMaterialize(ctx context.Context, p *GetMaterializeParams) (*WorkflowShow, error) {
	ws, err := callOn[WorkflowShow](ctx, s.client, "GET", p, "", p, nil)
	if err != nil {
		return nil, err
	}
	return ws.found("Materialize workflow", p.Workflow)
}

// WaitMaterialize polls a Materialize workflow until its copy is done
// (every stream runs, or stopped after its copy as stop_after_copy asks),
// and returns it. A stream stopped otherwise, or in error, gives a
// [*StateError] naming that state.
func (s *VitessService) WaitMaterialize(ctx context.Context, p *GetMaterializeParams) (*WorkflowShow, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*WorkflowShow, error) {
		return s.GetMaterialize(ctx, p)
	}, copyDone)
}

// copyDone is the condition of the waiters of a workflow's copy: true
// once no stream copies any more; an error when one stopped before its
// copy was done, or failed.
func copyDone(ws *WorkflowShow) (bool, error) {
	wf := ws.Workflow
	if wf == nil {
		return false, nil
	}
	for _, st := range wf.Streams {
		switch {
		case st.State == VReplicationError,
			st.State == VReplicationStopped && st.Message != "Stopped after copy" && st.Message != "FROZEN":
			return true, &StateError{Resource: "workflow " + wf.Name, State: st.State, Want: []string{VReplicationRunning}}
		case st.State == VReplicationCopying:
			return false, nil
		}
	}
	return true, nil
}

// MaterializeActionParams names a Materialize workflow to start or stop.
type MaterializeActionParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// TargetKeyspace is the keyspace the workflow runs in.
	TargetKeyspace string `json:"target_keyspace"`
}

func (p *MaterializeActionParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace)
}

func (p *MaterializeActionParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/materialize/workflows/%s", p.Organization, p.Database, p.Branch, p.Workflow) + suffix
}

// StartMaterializeParams names a Materialize workflow to start.
type StartMaterializeParams = MaterializeActionParams

// StopMaterializeParams names a Materialize workflow to stop.
type StopMaterializeParams = MaterializeActionParams

// WorkflowDelete is the answer of a cancel: which target primaries
// deleted the workflow's streams.
type WorkflowDelete struct {
	// Summary says what was done.
	Summary string `json:"-"`
	// Details lists each target primary, and whether it deleted streams.
	Details []WorkflowDeleteDetail `json:"-"`
	// Raw is the whole document: vtctldata.WorkflowDeleteResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// WorkflowDeleteDetail is one target primary of a [WorkflowDelete].
type WorkflowDeleteDetail struct {
	// Tablet is the primary's alias in its text form.
	Tablet string
	// Deleted is true when the primary deleted the workflow's streams.
	Deleted bool
}

// UnmarshalJSON reads the envelope {"data": ...} and the answer in it.
func (d *WorkflowDelete) UnmarshalJSON(b []byte) error {
	if err := nilTarget(d); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		Summary string `json:"summary"`
		Details []struct {
			Tablet  TabletAlias `json:"tablet"`
			Deleted bool        `json:"deleted"`
		} `json:"details"`
	}
	if err := decodeVtctld(data, &doc, "workflow delete"); err != nil {
		return err
	}
	*d = WorkflowDelete{Summary: doc.Summary, Raw: data}
	for _, x := range doc.Details {
		d.Details = append(d.Details, WorkflowDeleteDetail{Tablet: x.Tablet.String(), Deleted: x.Deleted})
	}
	return nil
}

// WorkflowShow is the answer of a show of a Materialize or lookup-vindex
// workflow: the workflow, and the whole document.
type WorkflowShow struct {
	// Workflow is the workflow shown.
	Workflow *VReplicationWorkflow `json:"-"`
	// Raw is the whole document: vtctldata.GetWorkflowsResponse in
	// protobuf JSON, whose one workflow Workflow is.
	Raw json.RawMessage `json:"data"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the workflow in it.
func (ws *WorkflowShow) UnmarshalJSON(b []byte) error {
	if err := nilTarget(ws); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		Workflows []*VReplicationWorkflow `json:"workflows"`
	}
	if err := decodeVtctld(data, &doc, "workflows"); err != nil {
		return err
	}
	*ws = WorkflowShow{Raw: data}
	if len(doc.Workflows) > 0 {
		ws.Workflow = doc.Workflows[0]
	}
	return nil
}

// found returns ws, or ErrNotFound when the document holds no workflow.
func (ws *WorkflowShow) found(what, name string) (*WorkflowShow, error) {
	if ws.Workflow == nil {
		return nil, fmt.Errorf("platform: %s %s: %w", what, name, ErrNotFound)
	}
	return ws, nil
}

// StartMaterialize starts a stopped Materialize workflow: its streams
// resume where they stopped (copying, or replicating once copied).
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}/start
func (s *VitessService) StartMaterialize(ctx context.Context, p *StartMaterializeParams) (*WorkflowUpdate, error) {
	return callOn[WorkflowUpdate](ctx, s.client, "POST", p, "/start", nil, p)
}

// StopMaterialize stops a Materialize workflow's streams; StartMaterialize
// resumes them.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}/stop
func (s *VitessService) StopMaterialize(ctx context.Context, p *StopMaterializeParams) (*WorkflowUpdate, error) {
	return callOn[WorkflowUpdate](ctx, s.client, "POST", p, "/stop", nil, p)
}

// CancelMaterializeParams names a Materialize workflow to cancel.
type CancelMaterializeParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// TargetKeyspace is the keyspace the workflow runs in.
	TargetKeyspace string `json:"target_keyspace"`
	// KeepData keeps the target tables the workflow made (they are
	// dropped by default).
	KeepData *bool `json:"keep_data,omitempty"`
	// KeepRoutingRules keeps the routing rules of the workflow's tables.
	KeepRoutingRules *bool `json:"keep_routing_rules,omitempty"`
}

func (p *CancelMaterializeParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace)
}

func (p *CancelMaterializeParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/materialize/workflows/%s", p.Organization, p.Database, p.Branch, p.Workflow) + suffix
}

// CancelMaterialize deletes a Materialize workflow and its streams and,
// unless KeepData, drops the target tables it made.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}/cancel
func (s *VitessService) CancelMaterialize(ctx context.Context, p *CancelMaterializeParams) (*WorkflowDelete, error) {
	return callOn[WorkflowDelete](ctx, s.client, "POST", p, "/cancel", nil, p)
}
