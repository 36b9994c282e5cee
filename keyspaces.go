package platform

import (
	"context"
	"encoding/json"
	"iter"
)

// NodeTTLStrategy controls when the nodes of a keyspace may be drained for
// their time-to-live replacement.
type NodeTTLStrategy string

// The node TTL strategies.
const (
	// NodeTTLFollowMaintenance drains nodes during the maintenance window.
	NodeTTLFollowMaintenance NodeTTLStrategy = "node_ttl_follow_maintenance"
	// NodeTTLAlways drains nodes whenever they reach their TTL.
	NodeTTLAlways NodeTTLStrategy = "node_ttl_always"
	// NodeTTLOff never drains nodes for their TTL.
	NodeTTLOff NodeTTLStrategy = "node_ttl_off"
)

// DurabilityStrategy is the replication durability strategy of a keyspace:
// what a write waits for before it is acknowledged.
type DurabilityStrategy string

// The replication durability strategies.
const (
	DurabilityAvailable DurabilityStrategy = "available"
	DurabilityLag       DurabilityStrategy = "lag"
	DurabilityAlways    DurabilityStrategy = "always"
)

// ReplicationDurabilityConstraints are the replication durability settings
// of a keyspace.
type ReplicationDurabilityConstraints struct {
	// Strategy is the durability strategy; nil when none is configured.
	Strategy *DurabilityStrategy `json:"strategy"`
}

// VReplicationFlags are the replication stream settings of a keyspace.
type VReplicationFlags struct {
	OptimizeInserts           bool `json:"optimize_inserts"`
	AllowNoBlobBinlogRowImage bool `json:"allow_no_blob_binlog_row_image"`
	VPlayerBatching           bool `json:"vplayer_batching"`
}

// Keyspace is a keyspace of a branch: a logical database with its own
// cluster, shards and replicas. Every branch has a default keyspace named
// after the database.
type Keyspace struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	// Shards is the number of shards; the keyspace is Sharded when it has
	// more than one.
	Shards  int  `json:"shards"`
	Sharded bool `json:"sharded"`
	// Replicas is the total number of replicas: those a production branch
	// includes plus ExtraReplicas.
	Replicas      int `json:"replicas"`
	ExtraReplicas int `json:"extra_replicas"`
	// ClusterName is the cluster size SKU ("PS_10").
	ClusterName        string `json:"cluster_name"`
	ClusterDisplayName string `json:"cluster_display_name"`
	Resizing           bool   `json:"resizing"`
	ResizeInProgress   bool   `json:"resize_in_progress"`
	ResizePending      bool   `json:"resize_pending"`
	// ConfigChangeInProgress is true while a settings change is being
	// applied.
	ConfigChangeInProgress bool `json:"config_change_in_progress"`
	// Ready is true once the keyspace is provisioned and serving traffic.
	Ready bool `json:"ready"`
	Metal bool `json:"metal"`
	// Default is true for the branch's default keyspace.
	Default  bool `json:"default"`
	Imported bool `json:"imported"`
	// VectorPoolAllocation is the percentage of buffer pool memory given to
	// vector indexes; nil when unset.
	VectorPoolAllocation             *float64                         `json:"vector_pool_allocation"`
	NodeTTLStrategy                  NodeTTLStrategy                  `json:"node_ttl_strategy"`
	ReplicationDurabilityConstraints ReplicationDurabilityConstraints `json:"replication_durability_constraints"`
	VReplicationFlags                VReplicationFlags                `json:"vreplication_flags"`
	// MysqldOptions are the database server's configuration options.
	MysqldOptions map[string]string `json:"mysqld_options"`
	// VTTabletOptions are the tablet servers' configuration options.
	VTTabletOptions map[string]string `json:"vttablet_options"`
	// ReadOnlyRegions are the regions the keyspace replicates to for
	// reads, in the order given; empty when none.
	ReadOnlyRegions []KeyspaceReadOnlyRegion `json:"read_only_regions"`
	CreatedAt       Timestamp                `json:"created_at"`
	UpdatedAt       Timestamp                `json:"updated_at"`
}

// KeyspacesService manages the keyspaces of branches.
type KeyspacesService service

// KeyspaceParams names a keyspace of a branch.
type KeyspaceParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
}

func (p *KeyspaceParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace)
}

func (p *KeyspaceParams) path() string {
	return keyspacesPath(p.Organization, p.Database, p.Branch) + pathf("/%s", p.Keyspace)
}

// keyspacesPath is the collection path of a branch's keyspaces.
func keyspacesPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/keyspaces", org, db, branch)
}

// ListKeyspacesParams selects a page of a branch's keyspaces.
type ListKeyspacesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ListParams
}

// List returns a page of a branch's keyspaces, oldest (the default
// keyspace) first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces
func (s *KeyspacesService) List(ctx context.Context, p *ListKeyspacesParams) (*Page[Keyspace], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listPage[Keyspace](ctx, s.client, keyspacesPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every keyspace of a branch.
func (s *KeyspacesService) All(ctx context.Context, p *ListKeyspacesParams) iter.Seq2[*Keyspace, error] {
	return allOf(ctx, p, s.List)
}

// CreateKeyspaceParams describes a new keyspace.
type CreateKeyspaceParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name is lowercase letters, digits and dashes, unique in the branch.
	Name string `json:"name"`
	// ClusterSize is the cluster size SKU ("PS_10").
	ClusterSize string `json:"cluster_size"`
	// Shards is the number of shards, 1 to 256; 1 when nil.
	Shards *int `json:"shards,omitempty"`
	// ExtraReplicas is the number of replicas beyond those included; 0
	// when nil.
	ExtraReplicas *int `json:"extra_replicas,omitempty"`
}

// Create adds a keyspace to a ready branch. It starts not ready;
// [KeyspacesService.WaitReady] waits until it is.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces
func (s *KeyspacesService) Create(ctx context.Context, p *CreateKeyspaceParams) (*Keyspace, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	ks := new(Keyspace)
	return ks, s.client.post(ctx, keyspacesPath(p.Organization, p.Database, p.Branch), p, ks)
}

// GetKeyspaceParams names a keyspace.
type GetKeyspaceParams = KeyspaceParams

// Get returns a keyspace.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}
func (s *KeyspacesService) Get(ctx context.Context, p *GetKeyspaceParams) (*Keyspace, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	ks := new(Keyspace)
	return ks, s.client.get(ctx, p.path(), nil, ks)
}

// VReplicationFlagsParams changes some of a keyspace's replication stream
// flags; nil fields are left as they are.
type VReplicationFlagsParams struct {
	OptimizeInserts           *bool `json:"optimize_inserts,omitempty"`
	AllowNoBlobBinlogRowImage *bool `json:"allow_no_blob_binlog_row_image,omitempty"`
	VPlayerBatching           *bool `json:"vplayer_batching,omitempty"`
}

// UpdateKeyspaceParams changes a keyspace's settings; nil fields are left as
// they are.
type UpdateKeyspaceParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
	// ReplicationDurabilityConstraints sets the durability strategy, which
	// must then be given.
	ReplicationDurabilityConstraints *ReplicationDurabilityConstraints `json:"replication_durability_constraints,omitempty"`
	VReplicationFlags                *VReplicationFlagsParams          `json:"vreplication_flags,omitempty"`
	// MysqldOptions replaces the database server's options as a whole; a
	// pointer to an empty map removes them all.
	MysqldOptions *map[string]string `json:"mysqld_options,omitempty"`
	// VTTabletOptions replaces the tablet servers' options as a whole; a
	// pointer to an empty map removes them all.
	VTTabletOptions *map[string]string `json:"vttablet_options,omitempty"`
	NodeTTLStrategy *NodeTTLStrategy   `json:"node_ttl_strategy,omitempty"`
	// VectorPoolAllocation sets the percentage (0 to 100) of buffer pool
	// memory given to vector indexes.
	VectorPoolAllocation *float64 `json:"vector_pool_allocation,omitempty"`
	// ClearVectorPoolAllocation unsets the vector pool allocation (sends
	// null). It cannot be combined with VectorPoolAllocation.
	ClearVectorPoolAllocation bool `json:"-" url:"-"`
}

// MarshalJSON encodes the body, with vector_pool_allocation null when
// ClearVectorPoolAllocation is set.
func (p UpdateKeyspaceParams) MarshalJSON() ([]byte, error) {
	type plain UpdateKeyspaceParams
	if !p.ClearVectorPoolAllocation {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		plain
		VectorPoolAllocation *float64 `json:"vector_pool_allocation"`
	}{plain: plain(p)})
}

// Update changes a keyspace's settings. A change sets
// config_change_in_progress until it has been applied;
// [KeyspacesService.WaitReady] waits for that. A keyspace that is not ready
// yet is refused with [ErrUnprocessable], as are values out of range.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}
func (s *KeyspacesService) Update(ctx context.Context, p *UpdateKeyspaceParams) (*Keyspace, error) {
	p = orZero(p)
	kp := &KeyspaceParams{p.Organization, p.Database, p.Branch, p.Keyspace}
	if err := kp.check(); err != nil {
		return nil, err
	}
	if p.ClearVectorPoolAllocation && p.VectorPoolAllocation != nil {
		return nil, &ArgError{Arg: "vector_pool_allocation", Reason: "cannot be both set and cleared"}
	}
	ks := new(Keyspace)
	return ks, s.client.patch(ctx, kp.path(), p, ks)
}

// DeleteKeyspaceParams names the keyspace to delete.
type DeleteKeyspaceParams = KeyspaceParams

// Delete deletes a keyspace and the tables of its schema. The branch's
// default keyspace is refused with [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}
func (s *KeyspacesService) Delete(ctx context.Context, p *DeleteKeyspaceParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path(), nil)
}

// KeyspaceReadOnlyRegion is a region a keyspace replicates to for reads,
// with the cluster serving there.
type KeyspaceReadOnlyRegion struct {
	// Region is the region's slug.
	Region             string `json:"region"`
	ClusterName        string `json:"cluster_name"`
	ClusterDisplayName string `json:"cluster_display_name"`
	Replicas           int    `json:"replicas"`
}

// ReadOnlyRegionConfig is a read-only region to give a keyspace.
type ReadOnlyRegionConfig struct {
	// Region is a region slug (see [RegionsService.List]), other than the
	// branch's own region.
	Region string `json:"region"`
	// ClusterSize is the cluster size SKU serving there; the keyspace's
	// when nil.
	ClusterSize *string `json:"cluster_size,omitempty"`
	// Replicas is the number of replicas there, at least 1; 2 when nil.
	Replicas *int `json:"replicas,omitempty"`
}

// UpdateReadOnlyRegionsParams sets the read-only regions of a keyspace.
type UpdateReadOnlyRegionsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
	// ReadOnlyRegions replaces the keyspace's read-only regions as a
	// whole: a region left out is removed, and an empty list removes them
	// all. It is sent as a list even when nil.
	ReadOnlyRegions []ReadOnlyRegionConfig `json:"read_only_regions"`
}

// MarshalJSON encodes the body, with a nil ReadOnlyRegions as an empty
// list.
func (p UpdateReadOnlyRegionsParams) MarshalJSON() ([]byte, error) {
	type plain UpdateReadOnlyRegionsParams
	if p.ReadOnlyRegions == nil {
		p.ReadOnlyRegions = []ReadOnlyRegionConfig{}
	}
	return json.Marshal(plain(p))
}

// UpdateReadOnlyRegions sets the regions a keyspace of a production MySQL
// branch replicates to for reads, and returns them. A region new to the
// branch serves reads once it is ready (see
// [DatabasesService.ListReadOnlyRegions]). An unknown region or cluster
// size, the branch's own region, or a region given twice is refused with
// [ErrUnprocessable].
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/read-only-regions
func (s *KeyspacesService) UpdateReadOnlyRegions(ctx context.Context, p *UpdateReadOnlyRegionsParams) ([]*KeyspaceReadOnlyRegion, error) {
	p = orZero(p)
	kp := &KeyspaceParams{p.Organization, p.Database, p.Branch, p.Keyspace}
	if err := kp.check(); err != nil {
		return nil, err
	}
	var out []*KeyspaceReadOnlyRegion
	return out, s.client.put(ctx, kp.path()+"/read-only-regions", p, &out)
}

// WaitReady polls a keyspace until it is ready and no settings change is in
// progress, and returns it. It returns early with ctx's error, or with the
// error of a failed poll (ErrNotFound when the keyspace is gone).
func (s *KeyspacesService) WaitReady(ctx context.Context, p *GetKeyspaceParams) (*Keyspace, error) {
	return waitFor(ctx, s.client, func(ctx context.Context) (*Keyspace, error) {
		return s.Get(ctx, p)
	}, func(ks *Keyspace) (bool, error) {
		return ks.Ready && !ks.ConfigChangeInProgress, nil
	})
}
