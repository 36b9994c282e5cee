package platform

import (
	"context"
	"iter"
)

// SwitchoverState is the state of a switchover.
type SwitchoverState string

// The switchover states. A switchover starts pending, runs, and ends
// succeeded, failed (its outcome unconfirmed) or canceled (its branch was
// deleted before it finished).
const (
	SwitchoverPending   SwitchoverState = "pending"
	SwitchoverRunning   SwitchoverState = "running"
	SwitchoverSucceeded SwitchoverState = "succeeded"
	SwitchoverFailed    SwitchoverState = "failed"
	SwitchoverCanceled  SwitchoverState = "canceled"
)

// Done reports whether the switchover has reached a state it will not
// leave.
func (s SwitchoverState) Done() bool {
	switch s {
	case SwitchoverSucceeded, SwitchoverFailed, SwitchoverCanceled:
		return true
	}
	return false
}

// SwitchoverMethod is how a switchover moves a branch's primary.
type SwitchoverMethod string

// The switchover methods.
const (
	// SwitchoverPromote promotes a replica of a highly available branch.
	SwitchoverPromote SwitchoverMethod = "switchover"
	// SwitchoverRestart restarts the single instance of a branch without
	// replicas.
	SwitchoverRestart SwitchoverMethod = "restart"
)

// Switchover moves the primary of a PostgreSQL branch to another instance.
type Switchover struct {
	ID    string          `json:"id"`
	State SwitchoverState `json:"state"`
	// Method is nil until the switchover runs.
	Method *SwitchoverMethod `json:"method"`
	// Error says why a failed switchover failed; nil otherwise.
	Error *string `json:"error"`
	// StartedAt is when the switchover was asked for.
	StartedAt   *Timestamp `json:"started_at"`
	CompletedAt *Timestamp `json:"completed_at"`
	CreatedAt   Timestamp  `json:"created_at"`
	UpdatedAt   Timestamp  `json:"updated_at"`
	Actor       *Actor     `json:"actor"`
}

// SwitchoversService moves the primaries of PostgreSQL branches.
type SwitchoversService service

func switchoversPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/switchovers", org, db, branch)
}

// ListSwitchoversParams selects a page of a branch's switchovers.
type ListSwitchoversParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ListParams
}

// List returns a page of a branch's switchovers, oldest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/switchovers
func (s *SwitchoversService) List(ctx context.Context, p *ListSwitchoversParams) (*Page[Switchover], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listPage[Switchover](ctx, s.client, switchoversPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every switchover of a branch.
func (s *SwitchoversService) All(ctx context.Context, p *ListSwitchoversParams) iter.Seq2[*Switchover, error] {
	return allOf(ctx, p, s.List)
}

// CreateSwitchoverParams asks for a switchover of a branch.
type CreateSwitchoverParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Candidate is the name of the replica to promote, as the branch's
	// infrastructure lists it; nil lets the service choose one. Only for
	// branches with replicas.
	Candidate *string `json:"candidate,omitempty"`
}

// Create starts a switchover of a branch's primary. It starts pending;
// [SwitchoversService.Wait] waits until it has finished.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/switchovers
func (s *SwitchoversService) Create(ctx context.Context, p *CreateSwitchoverParams) (*Switchover, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	sw := new(Switchover)
	return orNil(sw, s.client.post(ctx, switchoversPath(p.Organization, p.Database, p.Branch), p, sw))
}

// GetSwitchoverParams names a switchover.
type GetSwitchoverParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// Get returns a switchover.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/switchovers/{id}
func (s *SwitchoversService) Get(ctx context.Context, p *GetSwitchoverParams) (*Switchover, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID); err != nil {
		return nil, err
	}
	sw := new(Switchover)
	return orNil(sw, s.client.get(ctx, switchoversPath(p.Organization, p.Database, p.Branch)+pathf("/%s", p.ID), nil, sw))
}

// Wait polls a switchover until it has finished, and returns it. A
// switchover that ends other than succeeded (failed or canceled) gives a
// [*StateError] naming that state, with the switchover.
func (s *SwitchoversService) Wait(ctx context.Context, p *GetSwitchoverParams) (*Switchover, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Switchover, error) {
		return s.Get(ctx, p)
	}, func(sw *Switchover) (bool, error) {
		if !sw.State.Done() {
			return false, nil
		}
		if sw.State != SwitchoverSucceeded {
			return true, &StateError{Resource: "switchover " + sw.ID, State: string(sw.State), Want: []string{string(SwitchoverSucceeded)}}
		}
		return true, nil
	})
}
