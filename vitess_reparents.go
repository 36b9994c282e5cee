package platform

import (
	"context"
	"encoding/json"
	"fmt"
)

// VitessOperationState is the state of an operation of a branch's Vitess
// control plane.
type VitessOperationState string

// The operation states. An operation starts pending, runs, and ends
// completed, failed (Error says why) or cancelled (its branch or keyspace
// went away before it finished).
const (
	VitessOperationPending   VitessOperationState = "pending"
	VitessOperationRunning   VitessOperationState = "running"
	VitessOperationCompleted VitessOperationState = "completed"
	VitessOperationFailed    VitessOperationState = "failed"
	VitessOperationCancelled VitessOperationState = "cancelled"
)

// Done reports whether the operation has reached a state it will not
// leave.
func (s VitessOperationState) Done() bool {
	switch s {
	case VitessOperationCompleted, VitessOperationFailed, VitessOperationCancelled:
		return true
	}
	return false
}

// VitessActionPlannedReparent is the Action of a planned reparent's
// operation.
const VitessActionPlannedReparent = "planned_reparent_shard"

// VitessOperation is an operation that runs on a branch's Vitess control
// plane, such as a planned reparent.
type VitessOperation struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Action string `json:"action"`
	// Timeout is how long, in seconds, the operation may run.
	Timeout     int                  `json:"timeout"`
	CreatedAt   Timestamp            `json:"created_at"`
	CompletedAt *Timestamp           `json:"completed_at"`
	State       VitessOperationState `json:"state"`
	Completed   bool                 `json:"completed"`
	// Metadata is what the operation was asked to do (for a planned
	// reparent: keyspace, shard and new_primary).
	Metadata json.RawMessage `json:"metadata"`
	// Result is the Vitess answer of a completed operation in protobuf
	// JSON (vtctldata.PlannedReparentShardResponse for a planned
	// reparent); null before.
	Result json.RawMessage `json:"result"`
	// Error says why a failed or cancelled operation did not complete.
	Error *string `json:"error"`
}

// PlannedReparentResult is the result of a completed planned reparent.
type PlannedReparentResult struct {
	Keyspace        string      `json:"keyspace"`
	Shard           string      `json:"shard"`
	PromotedPrimary TabletAlias `json:"promoted_primary"`
}

// PlannedReparent decodes the result of a completed planned reparent; it
// is nil (and no error) while the operation has no result.
func (o *VitessOperation) PlannedReparent() (*PlannedReparentResult, error) {
	if len(o.Result) == 0 || string(o.Result) == "null" {
		return nil, nil
	}
	out := new(PlannedReparentResult)
	if err := json.Unmarshal(o.Result, out); err != nil {
		return nil, fmt.Errorf("platform: decoding the result of operation %s: %w", o.ID, err)
	}
	return out, nil
}

// GetVitessOperationParams names an operation of a branch.
type GetVitessOperationParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// GetOperation returns an operation of a branch's control plane, of any
// action.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/operations/{id}
func (s *VitessService) GetOperation(ctx context.Context, p *GetVitessOperationParams) (*VitessOperation, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID); err != nil {
		return nil, err
	}
	op := new(VitessOperation)
	return orNil(op, s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/vtctld/operations/%s", p.ID)), nil, op))
}

// WaitOperation polls an operation until it has finished, and returns it.
// One that ends other than completed (failed or cancelled) gives a
// [*StateError] naming that state.
func (s *VitessService) WaitOperation(ctx context.Context, p *GetVitessOperationParams) (*VitessOperation, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*VitessOperation, error) {
		return s.GetOperation(ctx, p)
	}, vitessOperationDone)
}

// vitessOperationDone is the condition of the operation waiters.
func vitessOperationDone(op *VitessOperation) (bool, error) {
	if !op.State.Done() {
		return false, nil
	}
	if op.State != VitessOperationCompleted {
		return true, &StateError{Resource: "operation " + op.ID, State: string(op.State), Want: []string{string(VitessOperationCompleted)}}
	}
	return true, nil
}

// CreatePlannedReparentParams asks for a shard's primary to move to
// another of its tablets.
type CreatePlannedReparentParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"keyspace"`
	Shard        string `json:"shard"`
	// NewPrimary is the alias of the replica to promote, in its text form
	// ("us-east-0000000102"), as ListTablets gives it.
	NewPrimary string `json:"new_primary"`
}

// CreatePlannedReparent starts a planned reparent of a shard: its
// operation starts pending; [VitessService.WaitPlannedReparent] waits
// until it has finished, when the new primary is the shard's primary.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/planned-reparent
func (s *VitessService) CreatePlannedReparent(ctx context.Context, p *CreatePlannedReparentParams) (*VitessOperation, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace, "shard", p.Shard, "new_primary", p.NewPrimary); err != nil {
		return nil, err
	}
	op := new(VitessOperation)
	return orNil(op, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/planned-reparent"), p, op))
}

// GetPlannedReparentParams names a planned reparent's operation.
type GetPlannedReparentParams = GetVitessOperationParams

// GetPlannedReparent returns a planned reparent's operation.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/planned-reparent/{id}
func (s *VitessService) GetPlannedReparent(ctx context.Context, p *GetPlannedReparentParams) (*VitessOperation, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID); err != nil {
		return nil, err
	}
	op := new(VitessOperation)
	return orNil(op, s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, pathf("/planned-reparent/%s", p.ID)), nil, op))
}

// WaitPlannedReparent polls a planned reparent until it has finished, and
// returns its operation. One that ends other than completed (failed or
// cancelled) gives a [*StateError] naming that state.
func (s *VitessService) WaitPlannedReparent(ctx context.Context, p *GetPlannedReparentParams) (*VitessOperation, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*VitessOperation, error) {
		return s.GetPlannedReparent(ctx, p)
	}, vitessOperationDone)
}
