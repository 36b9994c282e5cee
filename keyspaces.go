package platform

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
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

func (p *KeyspaceParams) path(suffix string) string {
	return keyspacesPath(p.Organization, p.Database, p.Branch) + pathf("/%s", p.Keyspace) + suffix
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
// [KeyspacesService.Wait] waits until it is.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces
func (s *KeyspacesService) Create(ctx context.Context, p *CreateKeyspaceParams) (*Keyspace, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	ks := new(Keyspace)
	return orNil(ks, s.client.post(ctx, keyspacesPath(p.Organization, p.Database, p.Branch), p, ks))
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
	return orNil(ks, s.client.get(ctx, p.path(""), nil, ks))
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
// [KeyspacesService.Wait] waits for that. A keyspace that is not ready
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
	return orNil(ks, s.client.patch(ctx, kp.path(""), p, ks))
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
	return s.client.del(ctx, p.path(""), nil)
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
	err := s.client.put(ctx, kp.path("/read-only-regions"), p, &out)
	return orNil(out, err)
}

// Wait polls a keyspace until it is ready and no settings change is in
// progress, and returns it. It returns early with ctx's error and the
// keyspace as last polled, or with the error of a failed poll
// (ErrNotFound when the keyspace is gone) and no keyspace.
func (s *KeyspacesService) Wait(ctx context.Context, p *GetKeyspaceParams) (*Keyspace, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Keyspace, error) {
		return s.Get(ctx, p)
	}, func(ks *Keyspace) (bool, error) {
		return ks.Ready && !ks.ConfigChangeInProgress, nil
	})
}

// KeyspaceResizeState is the state of a keyspace resize request.
type KeyspaceResizeState string

// The keyspace resize states. A request is queued, then resizing while its
// shards roll out one after another, then completed; until it completes it
// can be canceled.
const (
	KeyspaceResizePending   KeyspaceResizeState = "pending"
	KeyspaceResizeQueued    KeyspaceResizeState = "queued"
	KeyspaceResizeResizing  KeyspaceResizeState = "resizing"
	KeyspaceResizeCompleted KeyspaceResizeState = "completed"
	KeyspaceResizeCanceled  KeyspaceResizeState = "canceled"
)

// IsTerminal reports whether a request in state s has ended: completed or
// canceled.
func (s KeyspaceResizeState) IsTerminal() bool {
	return s == KeyspaceResizeCompleted || s == KeyspaceResizeCanceled
}

// KeyspaceResizeRequest is a change of a keyspace's cluster size, replicas
// or vector pool allocation, with the values before it.
type KeyspaceResizeRequest struct {
	ID    string              `json:"id"`
	Type  string              `json:"type"`
	State KeyspaceResizeState `json:"state"`
	// StartedAt is when its rollout started; nil while queued.
	StartedAt *Timestamp `json:"started_at"`
	// CompletedAt is when it completed; nil until then.
	CompletedAt                  *Timestamp `json:"completed_at"`
	ExtraReplicas                int        `json:"extra_replicas"`
	VectorPoolAllocation         float64    `json:"vector_pool_allocation"`
	PreviousVectorPoolAllocation float64    `json:"previous_vector_pool_allocation"`
	ClusterName                  string     `json:"cluster_name"`
	ClusterDisplayName           string     `json:"cluster_display_name"`
	PreviousClusterName          string     `json:"previous_cluster_name"`
	PreviousClusterDisplayName   string     `json:"previous_cluster_display_name"`
	// Replicas is the keyspace's total number of replicas after the
	// resize; PreviousReplicas before it.
	Replicas         int       `json:"replicas"`
	PreviousReplicas int       `json:"previous_replicas"`
	Actor            *Actor    `json:"actor"`
	CreatedAt        Timestamp `json:"created_at"`
	UpdatedAt        Timestamp `json:"updated_at"`
}

// ListKeyspaceResizesParams selects a page of a keyspace's resize
// requests.
type ListKeyspaceResizesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
	// CompletedAt keeps the requests completed in a range of times,
	// "FROM..TO" in RFC 3339 ("2026-01-01T00:00:00Z..2026-01-31T23:59:59Z");
	// either end may be left out.
	CompletedAt string `json:"-" url:"completed_at,omitempty"`
	ListParams
}

// ListResizes returns a page of a keyspace's resize requests, oldest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes
func (s *KeyspacesService) ListResizes(ctx context.Context, p *ListKeyspaceResizesParams) (*Page[KeyspaceResizeRequest], error) {
	p = orZero(p)
	kp := &KeyspaceParams{p.Organization, p.Database, p.Branch, p.Keyspace}
	if err := kp.check(); err != nil {
		return nil, err
	}
	return listPage[KeyspaceResizeRequest](ctx, s.client, kp.path("/resizes"), p)
}

// AllResizes ranges over every resize request of a keyspace.
func (s *KeyspacesService) AllResizes(ctx context.Context, p *ListKeyspaceResizesParams) iter.Seq2[*KeyspaceResizeRequest, error] {
	return allOf(ctx, p, s.ListResizes)
}

// ResizeKeyspaceParams asks for a keyspace's new size; nil fields keep
// the keyspace's current value.
type ResizeKeyspaceParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
	// ClusterSize is the cluster size SKU to move to ("PS_20").
	ClusterSize *string `json:"cluster_size,omitempty"`
	// ExtraReplicas is the number of replicas beyond those included.
	ExtraReplicas *int `json:"extra_replicas,omitempty"`
	// VectorPoolAllocation is the percentage (0 to 100) of buffer pool
	// memory given to vector indexes.
	VectorPoolAllocation *int `json:"vector_pool_allocation,omitempty"`
}

// Resize asks for a keyspace to be resized, and returns the request. The
// request is queued, then its shards roll out, then it completes and the
// keyspace takes its values; [KeyspacesService.WaitResize] waits for
// that. Asked again while the request is queued, it updates that request.
// A request that is already resizing, an unknown cluster size, replicas out
// of the keyspace's bounds and a request that changes nothing are refused
// with [ErrUnprocessable].
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes
func (s *KeyspacesService) Resize(ctx context.Context, p *ResizeKeyspaceParams) (*KeyspaceResizeRequest, error) {
	p = orZero(p)
	kp := &KeyspaceParams{p.Organization, p.Database, p.Branch, p.Keyspace}
	if err := kp.check(); err != nil {
		return nil, err
	}
	r := new(KeyspaceResizeRequest)
	return orNil(r, s.client.put(ctx, kp.path("/resizes"), p, r))
}

// GetKeyspaceResizeParams names a resize request of a keyspace.
type GetKeyspaceResizeParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// GetResize returns a resize request of a keyspace.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes/{id}
func (s *KeyspacesService) GetResize(ctx context.Context, p *GetKeyspaceResizeParams) (*KeyspaceResizeRequest, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace, "id", p.ID); err != nil {
		return nil, err
	}
	kp := &KeyspaceParams{p.Organization, p.Database, p.Branch, p.Keyspace}
	r := new(KeyspaceResizeRequest)
	return orNil(r, s.client.get(ctx, kp.path(pathf("/resizes/%s", p.ID)), nil, r))
}

// CancelKeyspaceResizeParams names the keyspace whose resize to cancel.
type CancelKeyspaceResizeParams = KeyspaceParams

// CancelResize cancels the keyspace's resize request that has not
// completed yet (queued or resizing): the keyspace keeps its size. A
// keyspace with no such request is refused with [ErrUnprocessable], whose
// message names the state of its latest one.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes
func (s *KeyspacesService) CancelResize(ctx context.Context, p *CancelKeyspaceResizeParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path("/resizes"), nil)
}

// The rollout states of a keyspace and of its shards.
const (
	// RolloutIdle: no resize is running; each shard is RolloutCompleted.
	RolloutIdle = "idle"
	// RolloutPending: a resize is queued (keyspace), or the shard waits its
	// turn (shard).
	RolloutPending = "pending"
	// RolloutInProgress: a resize is rolling out (keyspace), or the shard is
	// being rolled out (shard).
	RolloutInProgress = "in_progress"
	// RolloutCompleted: the shard's last rollout finished.
	RolloutCompleted = "completed"
)

// KeyspaceRollout is the progress of a keyspace's rollout, shard by shard.
type KeyspaceRollout struct {
	// Name is the keyspace's name.
	Name string `json:"name"`
	// State is RolloutIdle, RolloutPending or RolloutInProgress.
	State  string          `json:"state"`
	Shards []*ShardRollout `json:"shards"`
}

// ShardRollout is the rollout of one shard of a keyspace.
type ShardRollout struct {
	// Name is the shard's key range ("-", "-80", "80-").
	Name string `json:"name"`
	// State is RolloutPending, RolloutInProgress or RolloutCompleted.
	State string `json:"state"`
	// LastRolloutStartedAt and LastRolloutFinishedAt are the times of the
	// shard's latest rollout: the current one once it starts (the finish
	// still the previous one's until it finishes), else the last completed
	// one, or the keyspace's creation.
	LastRolloutStartedAt  Timestamp `json:"last_rollout_started_at"`
	LastRolloutFinishedAt Timestamp `json:"last_rollout_finished_at"`
}

// GetKeyspaceRolloutStatusParams names the keyspace whose rollout to show.
type GetKeyspaceRolloutStatusParams = KeyspaceParams

// GetRolloutStatus returns the progress of a keyspace's running resize,
// shard by shard, or its idle state when none runs.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/rollout-status
func (s *KeyspacesService) GetRolloutStatus(ctx context.Context, p *GetKeyspaceRolloutStatusParams) (*KeyspaceRollout, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	r := new(KeyspaceRollout)
	return orNil(r, s.client.get(ctx, p.path("/rollout-status"), nil, r))
}

// WaitResize polls a keyspace resize request until it reaches one of
// states (completed when none is given), and returns it. A terminal state
// that is not among them ends the wait with a [*StateError] naming it.
func (s *KeyspacesService) WaitResize(ctx context.Context, p *GetKeyspaceResizeParams, states ...KeyspaceResizeState) (*KeyspaceResizeRequest, error) {
	p = orZero(p)
	if len(states) == 0 {
		states = []KeyspaceResizeState{KeyspaceResizeCompleted}
	}
	return waitForGet(ctx, s.client, func(ctx context.Context) (*KeyspaceResizeRequest, error) {
		return s.GetResize(ctx, p)
	}, func(r *KeyspaceResizeRequest) (bool, error) {
		if slices.Contains(states, r.State) {
			return true, nil
		}
		if r.State.IsTerminal() {
			want := make([]string, len(states))
			for i, st := range states {
				want[i] = string(st)
			}
			return true, &StateError{Resource: "resize request " + r.ID + " of keyspace " + p.Keyspace, State: string(r.State), Want: want}
		}
		return false, nil
	})
}
