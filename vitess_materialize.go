package platform

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Materialize: a VReplication workflow that keeps tables of a target
// keyspace filled from queries on a source keyspace (a copy of a table, a
// projection, an aggregate), copying what is there and then following
// every change. It runs in the target keyspace, which names it together
// with the workflow's name; [VitessService.ShowMaterialize] shows its
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
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	var doc struct {
		Summary string `json:"summary"`
	}
	if err := decodeVtctld(env.Data, &doc, "summary"); err != nil {
		return err
	}
	s.Summary, s.Raw = doc.Summary, env.Data
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
	return out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/materialize/workflows"), p, out)
}

// ShowMaterializeParams names a Materialize workflow.
type ShowMaterializeParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// TargetKeyspace is the keyspace the workflow runs in.
	TargetKeyspace string `json:"-" url:"target_keyspace"`
	// IncludeLogs adds each stream's log.
	IncludeLogs *bool `json:"-" url:"include_logs,omitempty"`
}

func (p *ShowMaterializeParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace)
}

func (p *ShowMaterializeParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/materialize/workflows/%s", p.Organization, p.Database, p.Branch, p.Workflow) + suffix
}

// ShowMaterialize returns a Materialize workflow with its streams.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}
func (s *VitessService) ShowMaterialize(ctx context.Context, p *ShowMaterializeParams) (*VReplicationWorkflow, error) {
	return callOn[VReplicationWorkflow](ctx, s.client, "GET", p, "", p, nil)
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

// VReplicationChange is what an action on a VReplication workflow did on
// each primary tablet of its target keyspace, which runs the workflow's
// streams: an update (start, stop) says whether it changed the streams, a
// delete (cancel) whether it deleted them.
type VReplicationChange struct {
	Summary string `json:"-"`
	// Tablets are the target's primary tablets, by shard.
	Tablets []VReplicationTabletChange `json:"-"`
	// Raw is the whole document: vtctldata.WorkflowUpdateResponse or
	// vtctldata.WorkflowDeleteResponse in protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// VReplicationTabletChange is what an action did on one primary tablet.
type VReplicationTabletChange struct {
	// Tablet is the primary tablet of a target shard.
	Tablet TabletAlias
	// Changed is true if the tablet's streams were changed (an update) or
	// deleted (a delete).
	Changed bool
}

// UnmarshalJSON reads the envelope {"data": ...} and the change in it.
func (c *VReplicationChange) UnmarshalJSON(b []byte) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	var doc struct {
		Summary string `json:"summary"`
		Details []struct {
			Tablet  TabletAlias `json:"tablet"`
			Changed bool        `json:"changed"`
			Deleted bool        `json:"deleted"`
		} `json:"details"`
	}
	if err := decodeVtctld(env.Data, &doc, "workflow change"); err != nil {
		return err
	}
	*c = VReplicationChange{Summary: doc.Summary, Raw: env.Data}
	for _, d := range doc.Details {
		c.Tablets = append(c.Tablets, VReplicationTabletChange{Tablet: d.Tablet, Changed: d.Changed || d.Deleted})
	}
	return nil
}

// StartMaterialize starts a stopped Materialize workflow: its streams
// resume where they stopped (copying, or replicating once copied).
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}/start
func (s *VitessService) StartMaterialize(ctx context.Context, p *StartMaterializeParams) (*VReplicationChange, error) {
	return callOn[VReplicationChange](ctx, s.client, "POST", p, "/start", nil, p)
}

// StopMaterialize stops a Materialize workflow's streams; StartMaterialize
// resumes them.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows/{workflow}/stop
func (s *VitessService) StopMaterialize(ctx context.Context, p *StopMaterializeParams) (*VReplicationChange, error) {
	return callOn[VReplicationChange](ctx, s.client, "POST", p, "/stop", nil, p)
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
func (s *VitessService) CancelMaterialize(ctx context.Context, p *CancelMaterializeParams) (*VReplicationChange, error) {
	return callOn[VReplicationChange](ctx, s.client, "POST", p, "/cancel", nil, p)
}

// VReplicationWorkflow is a VReplication workflow as a branch's
// cluster shows it: where it copies from and to, and its streams, one per
// target shard and source shard.
type VReplicationWorkflow struct {
	Name string `json:"-"`
	// Type is the workflow's type (Materialize, MoveTables,
	// CreateLookupIndex, ...).
	Type           string `json:"-"`
	SourceKeyspace string `json:"-"`
	TargetKeyspace string `json:"-"`
	// Streams are its streams, by target shard.
	Streams []VReplicationStream `json:"-"`
	// Raw is the whole document: vtctldata.GetWorkflowsResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// VReplicationStream is one stream of a workflow: it copies from one
// source shard to one target shard.
type VReplicationStream struct {
	// ID is the stream's number on its tablet.
	ID int64
	// Shard is its target shard.
	Shard string
	// Tablet is the primary tablet of Shard, which runs the stream.
	Tablet TabletAlias
	// State is Copying, Running, Stopped, Error or Lagging.
	State string
	// Message says more of State ("Stopped after copy", "FROZEN").
	Message string
}

// UnmarshalJSON reads the envelope {"data": ...} and the first workflow in
// it.
func (wf *VReplicationWorkflow) UnmarshalJSON(b []byte) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	var doc struct {
		Workflows []struct {
			Name   string `json:"name"`
			Source struct {
				Keyspace string `json:"keyspace"`
			} `json:"source"`
			Target struct {
				Keyspace string `json:"keyspace"`
			} `json:"target"`
			WorkflowType string `json:"workflow_type"`
			ShardStreams map[string]struct {
				Streams []struct {
					ID      json.Number `json:"id"`
					Shard   string      `json:"shard"`
					Tablet  TabletAlias `json:"tablet"`
					State   string      `json:"state"`
					Message string      `json:"message"`
				} `json:"streams"`
			} `json:"shard_streams"`
		} `json:"workflows"`
	}
	if err := decodeVtctld(env.Data, &doc, "workflow"); err != nil {
		return err
	}
	*wf = VReplicationWorkflow{Raw: env.Data}
	if len(doc.Workflows) == 0 {
		return nil
	}
	w := doc.Workflows[0]
	wf.Name, wf.Type, wf.SourceKeyspace, wf.TargetKeyspace = w.Name, w.WorkflowType, w.Source.Keyspace, w.Target.Keyspace
	for _, key := range slices.Sorted(maps.Keys(w.ShardStreams)) {
		for _, st := range w.ShardStreams[key].Streams {
			id, err := strconv.ParseInt(cmp.Or(st.ID.String(), "0"), 10, 64)
			if err != nil {
				return fmt.Errorf("platform: decoding workflow: stream id: %w", err)
			}
			wf.Streams = append(wf.Streams, VReplicationStream{ID: id, Shard: st.Shard, Tablet: st.Tablet, State: st.State, Message: st.Message})
		}
	}
	return nil
}
