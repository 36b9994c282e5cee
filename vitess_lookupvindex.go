package platform

import (
	"context"
	"encoding/json"
)

// Lookup vindexes: a vindex of a sharded keyspace that finds rows by a
// column other than the sharding key, through a lookup table mapping each
// value to its row's keyspace ID. Creating one adds the vindex to the
// keyspace's VSchema, write-only (kept up to date but not used to route),
// makes the lookup table in the table keyspace, and starts a VReplication
// workflow of the vindex's name there that fills the table from the owner
// table. Once it has copied, externalizing makes the vindex route queries
// (and stops or deletes the workflow); internalizing makes it write-only
// again; completing deletes the stopped workflow; cancelling deletes the
// workflow and leaves the vindex as it is.

// CreateLookupVindexParams creates a lookup vindex.
type CreateLookupVindexParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name is the vindex's name, and its workflow's.
	Name string `json:"name"`
	// TableKeyspace is the keyspace the lookup table is made in, where
	// the workflow runs.
	TableKeyspace string `json:"table_keyspace"`
	// Keyspace is the keyspace of the vindex and its owner table;
	// TableKeyspace when empty.
	Keyspace string `json:"keyspace,omitempty"`
	// TableOwner is the table whose rows the vindex maps, and
	// TableOwnerColumns the columns it maps.
	TableOwner        string   `json:"table_owner,omitempty"`
	TableOwnerColumns []string `json:"table_owner_columns,omitempty"`
	// TableName is the lookup table's name; Name when empty.
	TableName string `json:"table_name,omitempty"`
	// Type is the vindex type: consistent_lookup_unique (the default),
	// consistent_lookup, lookup_unique or lookup.
	Type string `json:"type,omitempty"`
	// TableVindexType is the primary vindex of the lookup table when
	// TableKeyspace is sharded; by the first column's type when empty.
	TableVindexType string `json:"table_vindex_type,omitempty"`
	// Cells and TabletTypes are where the workflow's streams read from.
	Cells                        []string     `json:"cells,omitempty"`
	TabletTypes                  []TabletType `json:"tablet_types,omitempty"`
	TabletTypesInPreferenceOrder *bool        `json:"tablet_types_in_preference_order,omitempty"`
	// IgnoreNulls leaves rows whose columns are NULL out of the lookup
	// table.
	IgnoreNulls *bool `json:"ignore_nulls,omitempty"`
	// ContinueAfterCopyWithOwner keeps the workflow replicating after
	// its copy (the default); false stops it once copied.
	ContinueAfterCopyWithOwner *bool `json:"continue_after_copy_with_owner,omitempty"`
}

// CreateLookupVindex creates a lookup vindex, write-only, with its lookup
// table, and starts the workflow that fills the table.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes
func (s *VitessService) CreateLookupVindex(ctx context.Context, p *CreateLookupVindexParams) (*VReplicationSummary, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "name", p.Name, "table_keyspace", p.TableKeyspace); err != nil {
		return nil, err
	}
	out := new(VReplicationSummary)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/lookup-vindex/vindexes"), p, out))
}

// GetLookupVindexParams names a lookup vindex by its workflow.
type GetLookupVindexParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Name         string `json:"-" url:"-"`
	// TableKeyspace is the keyspace of the lookup table and the workflow.
	TableKeyspace string `json:"-" url:"table_keyspace"`
}

func (p *GetLookupVindexParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "name", p.Name, "table_keyspace", p.TableKeyspace)
}

func (p *GetLookupVindexParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/lookup-vindex/vindexes/%s", p.Organization, p.Database, p.Branch, p.Name) + suffix
}

// GetLookupVindex returns the workflow of a lookup vindex with its
// streams; [ErrNotFound] when the answer holds none.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes/{name}
func (s *VitessService) GetLookupVindex(ctx context.Context, p *GetLookupVindexParams) (*WorkflowShow, error) {
	ws, err := callOn[WorkflowShow](ctx, s.client, "GET", p, "", p, nil)
	if err != nil {
		return nil, err
	}
	return ws.found("lookup vindex", p.Name)
}

// WaitLookupVindex polls a lookup vindex's workflow until its copy is
// done (every stream runs, or stopped after its copy when
// continue_after_copy_with_owner is false), when the vindex can be
// externalized, and returns it. A stream stopped otherwise, or in error,
// gives a [*StateError] naming that state.
func (s *VitessService) WaitLookupVindex(ctx context.Context, p *GetLookupVindexParams) (*WorkflowShow, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*WorkflowShow, error) {
		return s.GetLookupVindex(ctx, p)
	}, copyDone)
}

// LookupVindexParams names a lookup vindex to act on.
type LookupVindexParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Name         string `json:"-" url:"-"`
	// TableKeyspace is the keyspace of the lookup table and the workflow.
	TableKeyspace string `json:"table_keyspace"`
	// Keyspace is the keyspace of the vindex; TableKeyspace when empty.
	Keyspace string `json:"keyspace,omitempty"`
}

func (p *LookupVindexParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "name", p.Name, "table_keyspace", p.TableKeyspace)
}

func (p *LookupVindexParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/lookup-vindex/vindexes/%s", p.Organization, p.Database, p.Branch, p.Name) + suffix
}

// ExternalizeLookupVindexParams names a lookup vindex to externalize.
type ExternalizeLookupVindexParams struct {
	Organization  string `json:"-" url:"-"`
	Database      string `json:"-" url:"-"`
	Branch        string `json:"-" url:"-"`
	Name          string `json:"-" url:"-"`
	TableKeyspace string `json:"table_keyspace"`
	Keyspace      string `json:"keyspace,omitempty"`
	// Delete deletes the workflow instead of stopping it.
	Delete *bool `json:"delete,omitempty"`
}

func (p *ExternalizeLookupVindexParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "name", p.Name, "table_keyspace", p.TableKeyspace)
}

func (p *ExternalizeLookupVindexParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/lookup-vindex/vindexes/%s", p.Organization, p.Database, p.Branch, p.Name) + suffix
}

// LookupVindexChange is what an action on a lookup vindex did to its
// workflow.
type LookupVindexChange struct {
	// WorkflowStopped is true when the workflow was stopped (frozen),
	// WorkflowDeleted when it was deleted.
	WorkflowStopped bool `json:"-"`
	WorkflowDeleted bool `json:"-"`
	// Raw is the whole document in protobuf JSON:
	// vtctldata.LookupVindexExternalizeResponse, ...InternalizeResponse
	// or ...CompleteResponse.
	Raw json.RawMessage `json:"data"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the change in it.
func (c *LookupVindexChange) UnmarshalJSON(b []byte) error {
	if err := nilTarget(c); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		WorkflowStopped bool `json:"workflow_stopped"`
		WorkflowDeleted bool `json:"workflow_deleted"`
	}
	if err := decodeVtctld(data, &doc, "lookup vindex change"); err != nil {
		return err
	}
	*c = LookupVindexChange{WorkflowStopped: doc.WorkflowStopped, WorkflowDeleted: doc.WorkflowDeleted, Raw: data}
	return nil
}

// ExternalizeLookupVindex makes a lookup vindex whose workflow has copied
// route queries (it is no longer write-only), and stops its workflow
// (frozen), or deletes it with Delete.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes/{name}/externalize
func (s *VitessService) ExternalizeLookupVindex(ctx context.Context, p *ExternalizeLookupVindexParams) (*LookupVindexChange, error) {
	return callOn[LookupVindexChange](ctx, s.client, "POST", p, "/externalize", nil, p)
}

// InternalizeLookupVindexParams names an externalized lookup vindex.
type InternalizeLookupVindexParams = LookupVindexParams

// InternalizeLookupVindex makes an externalized lookup vindex write-only
// again and restarts its stopped workflow.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes/{name}/internalize
func (s *VitessService) InternalizeLookupVindex(ctx context.Context, p *InternalizeLookupVindexParams) (*LookupVindexChange, error) {
	return callOn[LookupVindexChange](ctx, s.client, "POST", p, "/internalize", nil, p)
}

// CompleteLookupVindexParams names an externalized lookup vindex.
type CompleteLookupVindexParams = LookupVindexParams

// CompleteLookupVindex deletes the stopped workflow of an externalized
// lookup vindex; the vindex and its table stay.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes/{name}/complete
func (s *VitessService) CompleteLookupVindex(ctx context.Context, p *CompleteLookupVindexParams) (*LookupVindexChange, error) {
	return callOn[LookupVindexChange](ctx, s.client, "POST", p, "/complete", nil, p)
}

// CancelLookupVindexParams names a lookup vindex whose workflow to
// cancel.
type CancelLookupVindexParams struct {
	Organization  string `json:"-" url:"-"`
	Database      string `json:"-" url:"-"`
	Branch        string `json:"-" url:"-"`
	Name          string `json:"-" url:"-"`
	TableKeyspace string `json:"table_keyspace"`
}

func (p *CancelLookupVindexParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "name", p.Name, "table_keyspace", p.TableKeyspace)
}

func (p *CancelLookupVindexParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/lookup-vindex/vindexes/%s", p.Organization, p.Database, p.Branch, p.Name) + suffix
}

// CancelLookupVindex deletes a lookup vindex's workflow; the vindex, in
// the VSchema as it was, and the lookup table stay.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes/{name}/cancel
func (s *VitessService) CancelLookupVindex(ctx context.Context, p *CancelLookupVindexParams) (*WorkflowDelete, error) {
	return callOn[WorkflowDelete](ctx, s.client, "POST", p, "/cancel", nil, p)
}
