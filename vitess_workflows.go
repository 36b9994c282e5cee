package platform

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
)

// The VReplication workflows of a branch's Vitess control plane: the
// replication streams that copy tables from a source keyspace into a
// target keyspace (MoveTables, Materialize, lookup vindexes) and keep
// them in step. A MoveTables workflow is also a documented workflow of
// [WorkflowsService]: both views show one state.

// The states of a VReplication stream.
const (
	VReplicationCopying = "Copying"
	VReplicationRunning = "Running"
	VReplicationStopped = "Stopped"
	VReplicationError   = "Error"
)

// The kinds of VReplication workflow (VReplicationWorkflow.Type).
const (
	VReplicationMoveTables        = "MoveTables"
	VReplicationMaterialize       = "Materialize"
	VReplicationCreateLookupIndex = "CreateLookupIndex"
)

// VReplicationWorkflow is a VReplication workflow: vtctldata.Workflow.
type VReplicationWorkflow struct {
	// Name is the workflow's name, unique within its target keyspace.
	Name string `json:"name"`
	// Type is its kind: VReplicationMoveTables, VReplicationMaterialize
	// or VReplicationCreateLookupIndex.
	Type string `json:"workflow_type"`
	// SubType is "None", "Partial" or "AtomicCopy".
	SubType string `json:"workflow_sub_type"`
	// SourceKeyspace and TargetKeyspace are the keyspaces it copies
	// from and into.
	SourceKeyspace string `json:"-"`
	TargetKeyspace string `json:"-"`
	// Streams are its streams, by target shard: each target shard has one
	// per source shard.
	Streams []VReplicationStream `json:"-"`
	// Raw is the whole document: vtctldata.Workflow in protobuf JSON.
	Raw json.RawMessage `json:"-"`
}

// VReplicationStream is one stream of a workflow: the rows of a source
// shard that a target shard copies.
type VReplicationStream struct {
	// ID numbers the stream within its target shard, from 1.
	ID int64
	// Shard is the target shard ("-", "-80"); SourceShard the source
	// shard it copies from.
	Shard, SourceShard string
	// Tablet is the alias of the target shard's primary, which runs the
	// stream, in its text form.
	Tablet string
	// State is VReplicationCopying, VReplicationRunning,
	// VReplicationStopped or VReplicationError.
	State string
	// RowsCopied is how many rows it has copied.
	RowsCopied int64
	// Position is the source's replication position it has reached.
	Position string
	// Message says why it stopped or failed.
	Message string
	// Tables are the tables it copies into (its filter's rules).
	Tables []string
}

// protoWorkflowDoc is the part of vtctldata.Workflow the typed fields
// read.
type protoWorkflowDoc struct {
	Name    string `json:"name"`
	Type    string `json:"workflow_type"`
	SubType string `json:"workflow_sub_type"`
	Source  struct {
		Keyspace string `json:"keyspace"`
	} `json:"source"`
	Target struct {
		Keyspace string `json:"keyspace"`
	} `json:"target"`
	ShardStreams map[string]struct {
		Streams []struct {
			ID           json.Number `json:"id"`
			Shard        string      `json:"shard"`
			Tablet       TabletAlias `json:"tablet"`
			State        string      `json:"state"`
			RowsCopied   json.Number `json:"rows_copied"`
			Position     string      `json:"position"`
			Message      string      `json:"message"`
			BinlogSource struct {
				Shard  string `json:"shard"`
				Filter struct {
					Rules []struct {
						Match string `json:"match"`
					} `json:"rules"`
				} `json:"filter"`
			} `json:"binlog_source"`
		} `json:"streams"`
	} `json:"shard_streams"`
}

// UnmarshalJSON reads a vtctldata.Workflow document.
func (w *VReplicationWorkflow) UnmarshalJSON(b []byte) error {
	if err := nilTarget(w); err != nil {
		return err
	}
	var doc protoWorkflowDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	*w = VReplicationWorkflow{Name: doc.Name, Type: doc.Type, SubType: doc.SubType, SourceKeyspace: doc.Source.Keyspace, TargetKeyspace: doc.Target.Keyspace, Raw: slices.Clone(b)}
	for _, key := range sortedKeys(doc.ShardStreams) {
		for _, s := range doc.ShardStreams[key].Streams {
			st := VReplicationStream{
				ID: int64Of(s.ID), Shard: s.Shard, SourceShard: s.BinlogSource.Shard, Tablet: s.Tablet.String(),
				State: s.State, RowsCopied: int64Of(s.RowsCopied), Position: s.Position, Message: s.Message,
			}
			for _, r := range s.BinlogSource.Filter.Rules {
				st.Tables = append(st.Tables, r.Match)
			}
			w.Streams = append(w.Streams, st)
		}
	}
	return nil
}

// State is the workflow's state: that of its streams when they agree;
// otherwise VReplicationError if one failed, else VReplicationStopped if
// one is stopped, else VReplicationCopying.
func (w *VReplicationWorkflow) State() string {
	states := map[string]bool{}
	for _, s := range w.Streams {
		states[s.State] = true
	}
	if len(states) == 1 {
		return w.Streams[0].State
	}
	for _, st := range []string{VReplicationError, VReplicationStopped, VReplicationCopying} {
		if states[st] {
			return st
		}
	}
	return ""
}

// int64Of reads a protobuf JSON int64 (a string, or a number); 0 when
// absent or unreadable.
func int64Of(n json.Number) int64 {
	v, _ := strconv.ParseInt(string(n), 10, 64)
	return v
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// VReplicationWorkflows are the workflows of a keyspace.
type VReplicationWorkflows struct {
	// Workflows are the workflows, by name.
	Workflows []*VReplicationWorkflow `json:"-"`
	// Raw is the whole document: vtctldata.GetWorkflowsResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the workflows in it.
func (r *VReplicationWorkflows) UnmarshalJSON(b []byte) error {
	if err := nilTarget(r); err != nil {
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
	r.Raw, r.Workflows = data, doc.Workflows
	return nil
}

// ListVReplicationWorkflowsParams names a keyspace of a branch whose
// workflows to list.
type ListVReplicationWorkflowsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Keyspace is the target keyspace of the workflows; required.
	Keyspace string `json:"-" url:"keyspace"`
	// Workflow keeps the workflow of this name.
	Workflow string `json:"-" url:"workflow,omitempty"`
	// IncludeLogs adds each stream's log.
	IncludeLogs *bool `json:"-" url:"include_logs,omitempty"`
	// ActiveOnly leaves out workflows whose streams are all stopped.
	ActiveOnly *bool `json:"-" url:"active_only,omitempty"`
}

// ListWorkflows returns the VReplication workflows whose target is a
// keyspace of a branch.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/workflows
func (s *VitessService) ListWorkflows(ctx context.Context, p *ListVReplicationWorkflowsParams) (*VReplicationWorkflows, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace); err != nil {
		return nil, err
	}
	out := new(VReplicationWorkflows)
	return orNil(out, s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/workflows"), p, out))
}

// StartVReplicationWorkflowParams names a VReplication workflow by its
// target keyspace and name.
type StartVReplicationWorkflowParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// Keyspace is the workflow's target keyspace.
	Keyspace string `json:"keyspace"`
}

// StopVReplicationWorkflowParams names the workflow to stop.
type StopVReplicationWorkflowParams = StartVReplicationWorkflowParams

// WorkflowUpdate is the answer of a start or stop: which target primaries
// changed the streams' state.
type WorkflowUpdate struct {
	// Summary says what was done.
	Summary string `json:"-"`
	// Details lists each target primary, and whether its streams changed
	// (false when they were in that state already).
	Details []WorkflowUpdateDetail `json:"-"`
	// Raw is the whole document: vtctldata.WorkflowUpdateResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// WorkflowUpdateDetail is one target primary of a [WorkflowUpdate].
type WorkflowUpdateDetail struct {
	// Tablet is the target primary's alias in its text form.
	Tablet string
	// Changed is true when its streams changed state.
	Changed bool
}

// UnmarshalJSON reads the envelope {"data": ...} and the answer in it.
func (u *WorkflowUpdate) UnmarshalJSON(b []byte) error {
	if err := nilTarget(u); err != nil {
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
			Changed bool        `json:"changed"`
		} `json:"details"`
	}
	if err := decodeVtctld(data, &doc, "workflow update"); err != nil {
		return err
	}
	*u = WorkflowUpdate{Summary: doc.Summary, Raw: data}
	for _, d := range doc.Details {
		u.Details = append(u.Details, WorkflowUpdateDetail{Tablet: d.Tablet.String(), Changed: d.Changed})
	}
	return nil
}

// StartWorkflow starts the streams of a VReplication workflow (stopped,
// or in error): they copy what is left, then run.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/workflows/{workflow}/start
func (s *VitessService) StartWorkflow(ctx context.Context, p *StartVReplicationWorkflowParams) (*WorkflowUpdate, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "keyspace", p.Keyspace); err != nil {
		return nil, err
	}
	out := new(WorkflowUpdate)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/vtctld/workflows/%s/start", p.Workflow)), p, out))
}

// StopWorkflow stops the streams of a VReplication workflow.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/workflows/{workflow}/stop
func (s *VitessService) StopWorkflow(ctx context.Context, p *StopVReplicationWorkflowParams) (*WorkflowUpdate, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "keyspace", p.Keyspace); err != nil {
		return nil, err
	}
	out := new(WorkflowUpdate)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/vtctld/workflows/%s/stop", p.Workflow)), p, out))
}
