package platform

import (
	"context"
	"iter"
)

// BouncerTarget is the kind of server a bouncer sends its connections to.
type BouncerTarget string

// The bouncer targets.
const (
	// BouncerTargetPrimary pools connections to the primary.
	BouncerTargetPrimary BouncerTarget = "primary"
	// BouncerTargetReplica pools connections to the replicas.
	BouncerTargetReplica BouncerTarget = "replica"
	// BouncerTargetReplicaAZAffinity pools connections to the replicas of
	// the client's availability zone.
	BouncerTargetReplicaAZAffinity BouncerTarget = "replica_az_affinity"
)

// BouncerSKU is a bouncer size.
type BouncerSKU struct {
	// Name is the size's SKU ("PGB_5").
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	// CPU is the CPU allocation ("1/16" of a core, "2" cores).
	CPU string `json:"cpu"`
	// RAM is the memory in bytes.
	RAM       int64 `json:"ram"`
	SortOrder int   `json:"sort_order"`
}

// Bouncer is a connection pooler of a PostgreSQL branch.
type Bouncer struct {
	ID     string        `json:"id"`
	Name   string        `json:"name"`
	SKU    BouncerSKU    `json:"sku"`
	Target BouncerTarget `json:"target"`
	// ReplicasPerCell is the number of bouncer servers in each
	// availability zone.
	ReplicasPerCell int        `json:"replicas_per_cell"`
	CreatedAt       Timestamp  `json:"created_at"`
	UpdatedAt       Timestamp  `json:"updated_at"`
	DeletedAt       *Timestamp `json:"deleted_at"`
	Actor           *Actor     `json:"actor"`
	Branch          BranchRef  `json:"branch"`
	// Parameters are the bouncer's configuration parameters (namespace
	// pgbouncer) with their current values.
	Parameters []*BouncerParameter `json:"parameters"`
}

// BouncerParameter is a configuration parameter of a bouncer: a
// [ClusterParameter] of namespace pgbouncer, without the extension flag.
type BouncerParameter struct {
	ID            string             `json:"id"`
	Namespace     ParameterNamespace `json:"namespace"`
	Name          string             `json:"name"`
	DisplayName   string             `json:"display_name"`
	Category      string             `json:"category"`
	Description   string             `json:"description"`
	Immutable     bool               `json:"immutable"`
	ParameterType ParameterType      `json:"parameter_type"`
	DefaultValue  string             `json:"default_value"`
	// Value is the bouncer's current value.
	Value    string    `json:"value"`
	Required bool      `json:"required"`
	Created  Timestamp `json:"created_at"`
	Updated  Timestamp `json:"updated_at"`
	// Restart is true when a change restarts the bouncer's servers.
	Restart bool `json:"restart"`
	// Max and Min bound a numeric parameter's value (0 when unbounded).
	Max     float64  `json:"max"`
	Min     float64  `json:"min"`
	URL     string   `json:"url"`
	Options []string `json:"options"`
	Actor   *Actor   `json:"actor"`
}

// BouncerRef is the short form of a bouncer inside other objects.
type BouncerRef = BranchRef

// BouncerParameters are bouncer configuration values by namespace, then by
// name: {"pgbouncer": {"default_pool_size": "100"}}.
type BouncerParameters map[string]map[string]string

// BouncerResizeState is the state of a bouncer resize request.
type BouncerResizeState string

// The bouncer resize states: a request is pending, then resizing, then
// completed, unless canceled before it completes.
const (
	BouncerResizePending   BouncerResizeState = "pending"
	BouncerResizeResizing  BouncerResizeState = "resizing"
	BouncerResizeCanceled  BouncerResizeState = "canceled"
	BouncerResizeCompleted BouncerResizeState = "completed"
)

// BouncerResizeRequest is a change of a bouncer's size, servers, target or
// parameters, with the values before it.
type BouncerResizeRequest struct {
	ID                      string             `json:"id"`
	State                   BouncerResizeState `json:"state"`
	ReplicasPerCell         int                `json:"replicas_per_cell"`
	Target                  BouncerTarget      `json:"target"`
	Parameters              BouncerParameters  `json:"parameters"`
	PreviousReplicasPerCell int                `json:"previous_replicas_per_cell"`
	PreviousTarget          BouncerTarget      `json:"previous_target"`
	PreviousParameters      BouncerParameters  `json:"previous_parameters"`
	StartedAt               *Timestamp         `json:"started_at"`
	CompletedAt             *Timestamp         `json:"completed_at"`
	CreatedAt               Timestamp          `json:"created_at"`
	UpdatedAt               Timestamp          `json:"updated_at"`
	Actor                   *Actor             `json:"actor"`
	Bouncer                 BouncerRef         `json:"bouncer"`
	SKU                     BouncerSKU         `json:"sku"`
	PreviousSKU             BouncerSKU         `json:"previous_sku"`
}

// Active reports whether the request has yet to complete or be canceled.
func (r *BouncerResizeRequest) Active() bool {
	return r.State == BouncerResizePending || r.State == BouncerResizeResizing
}

// BouncersService manages the connection poolers (bouncers) of PostgreSQL
// branches and their resizes.
type BouncersService service

// bouncersPath is the collection path of a branch's bouncers.
func bouncersPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/bouncers", org, db, branch)
}

// ListBouncersParams selects a page of a branch's bouncers.
type ListBouncersParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ListParams
}

func (p *ListBouncersParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch)
}

// List returns a page of a branch's bouncers, oldest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers
func (s *BouncersService) List(ctx context.Context, p *ListBouncersParams) (*Page[Bouncer], error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	return listPage[Bouncer](ctx, s.client, bouncersPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every bouncer of a branch.
func (s *BouncersService) All(ctx context.Context, p *ListBouncersParams) iter.Seq2[*Bouncer, error] {
	return allOf(ctx, p, s.List)
}

// CreateBouncerParams describes a new bouncer.
type CreateBouncerParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name is lowercase letters, digits and dashes, unique in the branch.
	Name string `json:"name"`
	// Target is the kind of server the bouncer pools connections to;
	// primary when nil.
	Target *BouncerTarget `json:"target,omitempty"`
	// BouncerSize is the bouncer size SKU ("PGB_5", the default).
	BouncerSize *string `json:"bouncer_size,omitempty"`
	// ReplicasPerCell is the number of bouncer servers per availability
	// zone, 1 to 10; 1 when nil.
	ReplicasPerCell *int `json:"replicas_per_cell,omitempty"`
}

// Create adds a bouncer to a ready PostgreSQL branch. Its servers start
// pending; [BouncersService.Wait] waits until they run.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers
func (s *BouncersService) Create(ctx context.Context, p *CreateBouncerParams) (*Bouncer, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	b := new(Bouncer)
	return orNil(b, s.client.post(ctx, bouncersPath(p.Organization, p.Database, p.Branch), p, b))
}

// BouncerParams names a bouncer of a branch.
type BouncerParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Bouncer      string `json:"-" url:"-"`
}

func (p *BouncerParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "bouncer", p.Bouncer)
}

func (p *BouncerParams) path(suffix string) string {
	return bouncersPath(p.Organization, p.Database, p.Branch) + pathf("/%s", p.Bouncer) + suffix
}

// GetBouncerParams names a bouncer.
type GetBouncerParams = BouncerParams

// Get returns a bouncer.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}
func (s *BouncersService) Get(ctx context.Context, p *GetBouncerParams) (*Bouncer, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	b := new(Bouncer)
	return orNil(b, s.client.get(ctx, p.path(""), nil, b))
}

// DeleteBouncerParams names the bouncer to delete.
type DeleteBouncerParams = BouncerParams

// Delete deletes a bouncer, canceling its resize in progress.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}
func (s *BouncersService) Delete(ctx context.Context, p *DeleteBouncerParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path(""), nil)
}

// ListBouncerResizesParams selects a page of a bouncer's resize requests.
type ListBouncerResizesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Bouncer      string `json:"-" url:"-"`
	ListParams
}

// ListResizes returns a page of a bouncer's resize requests, oldest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}/resizes
func (s *BouncersService) ListResizes(ctx context.Context, p *ListBouncerResizesParams) (*Page[BouncerResizeRequest], error) {
	p = orZero(p)
	bp := &BouncerParams{p.Organization, p.Database, p.Branch, p.Bouncer}
	if err := bp.check(); err != nil {
		return nil, err
	}
	return listPage[BouncerResizeRequest](ctx, s.client, bp.path("/resizes"), p)
}

// AllResizes ranges over every resize request of a bouncer.
func (s *BouncersService) AllResizes(ctx context.Context, p *ListBouncerResizesParams) iter.Seq2[*BouncerResizeRequest, error] {
	return allOf(ctx, p, s.ListResizes)
}

// ResizeBouncerParams asks for a bouncer's new size, servers, target or
// parameters; nil fields keep the bouncer's values.
type ResizeBouncerParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Bouncer      string `json:"-" url:"-"`
	// BouncerSize is the bouncer size SKU ("PGB_10").
	BouncerSize *string `json:"bouncer_size,omitempty"`
	// ReplicasPerCell is the number of bouncer servers per availability
	// zone, 1 to 10.
	ReplicasPerCell *int           `json:"replicas_per_cell,omitempty"`
	Target          *BouncerTarget `json:"target,omitempty"`
	// Parameters sets configuration values; only the pgbouncer namespace
	// can be changed (see [BranchChangesService.ListParameters]).
	Parameters BouncerParameters `json:"parameters,omitempty"`
}

// Resize asks for a change of a ready bouncer and returns the request,
// pending: it starts, then completes on its own, when the bouncer takes
// the new values. A bouncer has one resize in progress at a time: asking
// again while it is pending changes that request (the values given apply
// on top of it, and it keeps its ID); once it is resizing, asking again
// is refused with [ErrUnprocessable]. [BouncersService.WaitResize] waits
// for it.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}/resizes
func (s *BouncersService) Resize(ctx context.Context, p *ResizeBouncerParams) (*BouncerResizeRequest, error) {
	p = orZero(p)
	bp := &BouncerParams{p.Organization, p.Database, p.Branch, p.Bouncer}
	if err := bp.check(); err != nil {
		return nil, err
	}
	r := new(BouncerResizeRequest)
	return orNil(r, s.client.patch(ctx, bp.path("/resizes"), p, r))
}

// CancelBouncerResizeParams names the bouncer whose resize to cancel.
type CancelBouncerResizeParams = BouncerParams

// CancelResize cancels a bouncer's resize before it completes; the bouncer
// keeps its values. A bouncer with no resize in progress is refused with
// [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}/resizes
func (s *BouncersService) CancelResize(ctx context.Context, p *CancelBouncerResizeParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path("/resizes"), nil)
}

// ListBranchBouncerResizesParams selects a page of the resize requests of
// a branch's bouncers.
type ListBranchBouncerResizesParams = ListBouncersParams

// ListBranchResizes returns a page of the resize requests of every bouncer
// of a branch, deleted bouncers' included, oldest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncer-resizes
func (s *BouncersService) ListBranchResizes(ctx context.Context, p *ListBranchBouncerResizesParams) (*Page[BouncerResizeRequest], error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	return listPage[BouncerResizeRequest](ctx, s.client, pathf("v1/organizations/%s/databases/%s/branches/%s/bouncer-resizes", p.Organization, p.Database, p.Branch), p)
}

// AllBranchResizes ranges over every resize request of a branch's
// bouncers.
func (s *BouncersService) AllBranchResizes(ctx context.Context, p *ListBranchBouncerResizesParams) iter.Seq2[*BouncerResizeRequest, error] {
	return allOf(ctx, p, s.ListBranchResizes)
}

// Wait polls a bouncer until its servers run, and returns it. The
// bouncer's body has no state: its branch's infrastructure
// ([BranchChangesService.GetInfrastructure]) lists it among its
// [PostgresInfrastructure.Bouncers] once its servers run. It returns early
// with ctx's error and the bouncer as last polled, or with the error of a
// failed poll (ErrNotFound when the bouncer is gone) and no bouncer.
func (s *BouncersService) Wait(ctx context.Context, p *GetBouncerParams) (*Bouncer, error) {
	var running bool
	return waitFor(ctx, s.client, func(ctx context.Context) (*Bouncer, error) {
		b, err := s.Get(ctx, p)
		if err != nil {
			return nil, err
		}
		infra, err := s.client.BranchChanges.GetInfrastructure(ctx, &GetInfrastructureParams{Organization: p.Organization, Database: p.Database, Branch: p.Branch})
		if err != nil {
			return nil, err
		}
		running = bouncerRunning(infra, b.ID)
		return b, nil
	}, func(*Bouncer) (bool, error) {
		return running, nil
	})
}

// bouncerRunning reports whether infra lists the bouncer with ID id, that
// is, whether its servers run.
func bouncerRunning(infra *BranchInfrastructure, id string) bool {
	if infra.Postgres == nil {
		return false
	}
	for _, bn := range infra.Postgres.Bouncers {
		if bn.ID == id {
			return true
		}
	}
	return false
}

// WaitBouncerResizeParams names a resize request of a bouncer.
type WaitBouncerResizeParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Bouncer      string `json:"-" url:"-"`
	// ID is the resize request's ID, from [BouncersService.Resize].
	ID string `json:"-" url:"-"`
}

// WaitResize polls a bouncer's resize request until it completes, and
// returns it. A request canceled meanwhile ends the wait with a
// [*StateError]; a request the bouncer's list lacks (the bouncer is gone,
// or the ID is not one of its requests) with [ErrNotFound].
func (s *BouncersService) WaitResize(ctx context.Context, p *WaitBouncerResizeParams) (*BouncerResizeRequest, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "bouncer", p.Bouncer, "id", p.ID); err != nil {
		return nil, err
	}
	list := &ListBouncerResizesParams{Organization: p.Organization, Database: p.Database, Branch: p.Branch, Bouncer: p.Bouncer}
	return waitFor(ctx, s.client, func(ctx context.Context) (*BouncerResizeRequest, error) {
		for r, err := range s.AllResizes(ctx, list) {
			if err != nil {
				return nil, err
			}
			if r.ID == p.ID {
				return r, nil
			}
		}
		return nil, &Error{StatusCode: 404, Code: "not_found", Message: "bouncer " + p.Bouncer + " has no resize request " + p.ID}
	}, func(r *BouncerResizeRequest) (bool, error) {
		switch r.State {
		case BouncerResizeCompleted:
			return true, nil
		case BouncerResizeCanceled:
			return false, &StateError{Resource: "bouncer resize " + r.ID, State: string(r.State), Want: []string{string(BouncerResizeCompleted)}}
		}
		return false, nil
	})
}
