package platform

import (
	"context"
	"iter"
)

// BranchChangeState is the state of a branch's resize or change request.
type BranchChangeState string

// The states of resize and change requests: queued, then resizing, then
// completed; canceled when canceled before it completed.
const (
	ChangeQueued    BranchChangeState = "queued"
	ChangePending   BranchChangeState = "pending"
	ChangeResizing  BranchChangeState = "resizing"
	ChangeCanceled  BranchChangeState = "canceled"
	ChangeCompleted BranchChangeState = "completed"
)

// Done reports whether a request in state s has ended: completed or
// canceled.
func (s BranchChangeState) Done() bool { return s == ChangeCompleted || s == ChangeCanceled }

// BranchResizeRequest is a change of a MySQL branch's query routers
// (vtgates): their size, count and autoscaling. Each field has its value
// before the request as its Previous twin.
type BranchResizeRequest struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	State       BranchChangeState `json:"state"`
	StartedAt   *Timestamp        `json:"started_at"`
	CompletedAt *Timestamp        `json:"completed_at"`
	CreatedAt   Timestamp         `json:"created_at"`
	UpdatedAt   Timestamp         `json:"updated_at"`
	Actor       *Actor            `json:"actor"`

	VTGateSize                         string  `json:"vtgate_size"`
	PreviousVTGateSize                 string  `json:"previous_vtgate_size"`
	VTGateName                         string  `json:"vtgate_name"`
	PreviousVTGateName                 string  `json:"previous_vtgate_name"`
	VTGateDisplayName                  string  `json:"vtgate_display_name"`
	PreviousVTGateDisplayName          string  `json:"previous_vtgate_display_name"`
	VTGateCount                        int     `json:"vtgate_count"`
	PreviousVTGateCount                int     `json:"previous_vtgate_count"`
	VTGateMaxCount                     int     `json:"vtgate_max_count"`
	PreviousVTGateMaxCount             int     `json:"previous_vtgate_max_count"`
	VTGateAutoscaling                  bool    `json:"vtgate_autoscaling"`
	PreviousVTGateAutoscaling          bool    `json:"previous_vtgate_autoscaling"`
	VTGateTargetCPUUtilization         float64 `json:"vtgate_target_cpu_utilization"`
	PreviousVTGateTargetCPUUtilization float64 `json:"previous_vtgate_target_cpu_utilization"`
}

// BranchChangeRequest is a change of a branch's cluster: its size,
// replicas, storage and parameters. Each field has its value before the
// request as its Previous twin.
type BranchChangeRequest struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	State       BranchChangeState `json:"state"`
	StartedAt   *Timestamp        `json:"started_at"`
	CompletedAt *Timestamp        `json:"completed_at"`
	CreatedAt   Timestamp         `json:"created_at"`
	UpdatedAt   Timestamp         `json:"updated_at"`
	Actor       *Actor            `json:"actor"`

	ClusterName                string `json:"cluster_name"`
	PreviousClusterName        string `json:"previous_cluster_name"`
	ClusterDisplayName         string `json:"cluster_display_name"`
	PreviousClusterDisplayName string `json:"previous_cluster_display_name"`
	ClusterMetal               bool   `json:"cluster_metal"`
	PreviousClusterMetal       bool   `json:"previous_cluster_metal"`
	Replicas                   int    `json:"replicas"`
	PreviousReplicas           int    `json:"previous_replicas"`
	Version                    string `json:"version"`
	PreviousVersion            string `json:"previous_version"`
	// Parameters are the values the request sets, by namespace and name;
	// PreviousParameters the values they had.
	Parameters         map[ParameterNamespace]map[string]string `json:"parameters"`
	PreviousParameters map[ParameterNamespace]map[string]string `json:"previous_parameters"`

	MinimumStorageBytes           int64  `json:"minimum_storage_bytes"`
	PreviousMinimumStorageBytes   int64  `json:"previous_minimum_storage_bytes"`
	MaximumStorageBytes           int64  `json:"maximum_storage_bytes"`
	PreviousMaximumStorageBytes   int64  `json:"previous_maximum_storage_bytes"`
	StorageAutoscaling            bool   `json:"storage_autoscaling"`
	PreviousStorageAutoscaling    bool   `json:"previous_storage_autoscaling"`
	StorageShrinking              bool   `json:"storage_shrinking"`
	PreviousStorageShrinking      bool   `json:"previous_storage_shrinking"`
	StorageType                   string `json:"storage_type"`
	PreviousStorageType           string `json:"previous_storage_type"`
	StorageIOPS                   int    `json:"storage_iops"`
	PreviousStorageIOPS           int    `json:"previous_storage_iops"`
	StorageThroughputMiBs         int    `json:"storage_throughput_mibs"`
	PreviousStorageThroughputMiBs int    `json:"previous_storage_throughput_mibs"`
}

// ListBranchResizeRequestsParams selects a page of a branch's resize
// requests, oldest first.
type ListBranchResizeRequestsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ListParams
}

// ListResizes returns a page of a MySQL branch's resize requests.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes
func (s *BranchChangesService) ListResizes(ctx context.Context, p *ListBranchResizeRequestsParams) (*Page[BranchResizeRequest], error) {
	p = orZero(p)
	b := BranchParams{p.Organization, p.Database, p.Branch}
	if err := b.check(); err != nil {
		return nil, err
	}
	return listPage[BranchResizeRequest](ctx, s.client, b.path("/resizes"), p)
}

// AllResizes iterates over every resize request of a branch, fetching
// pages as needed.
func (s *BranchChangesService) AllResizes(ctx context.Context, p *ListBranchResizeRequestsParams) iter.Seq2[*BranchResizeRequest, error] {
	return allOf(ctx, p, s.ListResizes)
}

// UpdateBranchResizeRequestParams is the resize of a MySQL branch's query
// routers; fields left nil keep their value.
type UpdateBranchResizeRequestParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// VTGateSize is a query router size (VTG_5, VTG_10, ...).
	VTGateSize *string `json:"vtgate_size,omitempty"`
	// VTGateCount is the number of query routers per availability zone.
	VTGateCount *int `json:"vtgate_count,omitempty"`
	// VTGateMaxCount bounds the count when autoscaling.
	VTGateMaxCount             *int  `json:"vtgate_max_count,omitempty"`
	VTGateAutoscaling          *bool `json:"vtgate_autoscaling,omitempty"`
	VTGateTargetCPUUtilization *int  `json:"vtgate_target_cpu_utilization,omitempty"`
}

// UpdateResize requests a resize of a MySQL branch's query routers, or
// changes the queued one. It returns nil and no error when the request
// changes nothing (the API answers 204). A resize runs on its own: wait
// for it with WaitResize.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes
func (s *BranchChangesService) UpdateResize(ctx context.Context, p *UpdateBranchResizeRequestParams) (*BranchResizeRequest, error) {
	p = orZero(p)
	b := BranchParams{p.Organization, p.Database, p.Branch}
	if err := b.check(); err != nil {
		return nil, err
	}
	out := new(BranchResizeRequest)
	if err := s.client.put(ctx, b.path("/resizes"), p, mayAnswerNoContent{out}); err != nil || out.ID == "" {
		return nil, err
	}
	return out, nil
}

// GetBranchResizeRequestParams names a resize request.
type GetBranchResizeRequestParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Resize is the request's ID.
	Resize string `json:"-" url:"-"`
}

func (p *GetBranchResizeRequestParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "resize", p.Resize)
}

func (p *GetBranchResizeRequestParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/resizes/%s", p.Organization, p.Database, p.Branch, p.Resize) + suffix
}

// GetResize returns a resize request.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes/{resize}
func (s *BranchChangesService) GetResize(ctx context.Context, p *GetBranchResizeRequestParams) (*BranchResizeRequest, error) {
	return callOn[BranchResizeRequest](ctx, s.client, "GET", p, "", nil, nil)
}

// WaitResize polls a resize request until it has completed. A request
// canceled meanwhile ends the wait with a *StateError.
func (s *BranchChangesService) WaitResize(ctx context.Context, p *GetBranchResizeRequestParams) (*BranchResizeRequest, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*BranchResizeRequest, error) {
		return s.GetResize(ctx, p)
	}, func(r *BranchResizeRequest) (bool, error) {
		return changeDone("resize request "+r.ID, r.State)
	})
}

// changeDone is the end test of the resize and change waiters.
func changeDone(resource string, state BranchChangeState) (bool, error) {
	switch state {
	case ChangeCompleted:
		return true, nil
	case ChangeCanceled:
		return true, &StateError{Resource: resource, State: string(state), Want: []string{string(ChangeCompleted)}}
	}
	return false, nil
}

// ListBranchChangeRequestsParams selects a page of a branch's change
// requests, oldest first.
type ListBranchChangeRequestsParams = ListBranchResizeRequestsParams

// ListChanges returns a page of a branch's change requests.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes
func (s *BranchChangesService) ListChanges(ctx context.Context, p *ListBranchChangeRequestsParams) (*Page[BranchChangeRequest], error) {
	p = orZero(p)
	b := BranchParams{p.Organization, p.Database, p.Branch}
	if err := b.check(); err != nil {
		return nil, err
	}
	return listPage[BranchChangeRequest](ctx, s.client, b.path("/changes"), p)
}

// AllChanges iterates over every change request of a branch, fetching
// pages as needed.
func (s *BranchChangesService) AllChanges(ctx context.Context, p *ListBranchChangeRequestsParams) iter.Seq2[*BranchChangeRequest, error] {
	return allOf(ctx, p, s.ListChanges)
}

// BranchStorage is the storage a change request sets; fields left nil keep
// their value.
type BranchStorage struct {
	MinimumStorageBytes   *int64 `json:"minimum_storage_bytes,omitempty"`
	MaximumStorageBytes   *int64 `json:"maximum_storage_bytes,omitempty"`
	StorageAutoscaling    *bool  `json:"storage_autoscaling,omitempty"`
	StorageIOPS           *int   `json:"storage_iops,omitempty"`
	StorageThroughputMiBs *int   `json:"storage_throughput_mibs,omitempty"`
}

// UpdateBranchChangeRequestParams is a change of a branch's cluster;
// fields left nil keep their value.
type UpdateBranchChangeRequestParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ClusterSize is a size from ClusterSizes.ListForBranch: a PostgreSQL
	// branch's fully qualified ("PS_20_AWS_X86"), of its provider and
	// architecture, or plain ("PS_20": the same provider and architecture).
	ClusterSize *string `json:"cluster_size,omitempty"`
	// Replicas is the total number of replicas.
	Replicas *int `json:"replicas,omitempty"`
	// Parameters are values by namespace and name, as ListParameters
	// shows them ({"pgconf": {"max_connections": "200"}}).
	Parameters map[ParameterNamespace]map[string]string `json:"parameters,omitempty"`
	Storage    *BranchStorage                           `json:"storage,omitempty"`
}

// UpdateChange requests a change of a branch's cluster, or changes the
// queued one. It returns nil and no error when the request changes nothing
// (the API answers 204). A change runs on its own: wait for it with
// WaitChange.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes
func (s *BranchChangesService) UpdateChange(ctx context.Context, p *UpdateBranchChangeRequestParams) (*BranchChangeRequest, error) {
	p = orZero(p)
	b := BranchParams{p.Organization, p.Database, p.Branch}
	if err := b.check(); err != nil {
		return nil, err
	}
	out := new(BranchChangeRequest)
	if err := s.client.patch(ctx, b.path("/changes"), p, mayAnswerNoContent{out}); err != nil || out.ID == "" {
		return nil, err
	}
	return out, nil
}

// GetBranchChangeRequestParams names a change request.
type GetBranchChangeRequestParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the request's ID.
	ID string `json:"-" url:"-"`
}

// GetChange returns a change request.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes/{id}
func (s *BranchChangesService) GetChange(ctx context.Context, p *GetBranchChangeRequestParams) (*BranchChangeRequest, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID); err != nil {
		return nil, err
	}
	out := new(BranchChangeRequest)
	return orNil(out, s.client.get(ctx, pathf("v1/organizations/%s/databases/%s/branches/%s/changes/%s", p.Organization, p.Database, p.Branch, p.ID), nil, out))
}

// WaitChange polls a change request until it has completed. A request
// canceled meanwhile ends the wait with a *StateError.
func (s *BranchChangesService) WaitChange(ctx context.Context, p *GetBranchChangeRequestParams) (*BranchChangeRequest, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*BranchChangeRequest, error) {
		return s.GetChange(ctx, p)
	}, func(r *BranchChangeRequest) (bool, error) {
		return changeDone("change request "+r.ID, r.State)
	})
}

// CancelBranchChangeRequestParams names the branch whose request to
// cancel.
type CancelBranchChangeRequestParams = BranchParams

// CancelChange cancels the branch's resize or change request that has not
// completed yet; the API answers 422 when there is none.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes
func (s *BranchChangesService) CancelChange(ctx context.Context, p *CancelBranchChangeRequestParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path("/resizes"), nil)
}

// CancelBranchChangesParams names the branch whose queued change request
// to cancel.
type CancelBranchChangesParams = BranchParams

// CancelChanges cancels the branch's queued change request (a PostgreSQL
// branch's resize, for one). The API answers 422 naming the state when
// the branch has none queued: none at all, one already resizing (too late
// to cancel), or a resize request of a MySQL branch's query routers, which
// CancelChange cancels.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes
func (s *BranchChangesService) CancelChanges(ctx context.Context, p *CancelBranchChangesParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path("/changes"), nil)
}

// UpdateClusterConfigParams is the new cluster size of a branch.
type UpdateClusterConfigParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ClusterSize is a size from ClusterSizes.ListForBranch (see
	// UpdateBranchChangeRequestParams.ClusterSize).
	ClusterSize string `json:"cluster_size"`
}

// UpdateClusterConfig changes the cluster size of a branch. The change
// runs as a change request: ListChanges shows it, WaitChange waits for it.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/cluster
func (s *BranchChangesService) UpdateClusterConfig(ctx context.Context, p *UpdateClusterConfigParams) error {
	p = orZero(p)
	b := BranchParams{p.Organization, p.Database, p.Branch}
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "cluster_size", p.ClusterSize); err != nil {
		return err
	}
	return s.client.patch(ctx, b.path("/cluster"), p, nil)
}
