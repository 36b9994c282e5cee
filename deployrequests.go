package platform

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
)

// DeploymentState is the state of a deploy request's deployment.
type DeploymentState string

// The deployment states.
const (
	DeploymentPending                 DeploymentState = "pending"
	DeploymentReady                   DeploymentState = "ready"
	DeploymentNoChanges               DeploymentState = "no_changes"
	DeploymentQueued                  DeploymentState = "queued"
	DeploymentSubmitting              DeploymentState = "submitting"
	DeploymentInProgress              DeploymentState = "in_progress"
	DeploymentPendingCutover          DeploymentState = "pending_cutover"
	DeploymentInProgressVSchema       DeploymentState = "in_progress_vschema"
	DeploymentInProgressCancel        DeploymentState = "in_progress_cancel"
	DeploymentInProgressCutover       DeploymentState = "in_progress_cutover"
	DeploymentComplete                DeploymentState = "complete"
	DeploymentCompleteCancel          DeploymentState = "complete_cancel"
	DeploymentCompleteError           DeploymentState = "complete_error"
	DeploymentCompletePendingRevert   DeploymentState = "complete_pending_revert"
	DeploymentInProgressRevert        DeploymentState = "in_progress_revert"
	DeploymentInProgressRevertVSchema DeploymentState = "in_progress_revert_vschema"
	DeploymentCompleteRevert          DeploymentState = "complete_revert"
	DeploymentCompleteRevertError     DeploymentState = "complete_revert_error"
	DeploymentCancelled               DeploymentState = "cancelled"
	DeploymentError                   DeploymentState = "error"
)

// IsTerminal reports whether a deployment in state s has ended: it never
// moves on by itself from there, only through an action (complete-deploy
// for complete_error and complete_revert_error; closing the deploy request
// for no_changes and error).
func (s DeploymentState) IsTerminal() bool {
	switch s {
	case DeploymentNoChanges, DeploymentComplete, DeploymentCompleteCancel, DeploymentCompleteError,
		DeploymentCompleteRevert, DeploymentCompleteRevertError, DeploymentCancelled, DeploymentError:
		return true
	}
	return false
}

// IsFailure reports whether state s means the deployment failed.
func (s DeploymentState) IsFailure() bool {
	return s == DeploymentError || s == DeploymentCompleteError || s == DeploymentCompleteRevertError
}

// DeployRequestState is whether a deploy request is open or closed.
type DeployRequestState string

// The deploy request states.
const (
	DeployRequestOpen   DeployRequestState = "open"
	DeployRequestClosed DeployRequestState = "closed"
	// DeployRequestDeployed is a filter of [DeployRequestsService.List]
	// only: the deploy requests whose schema was deployed (deployed_at set).
	// A deploy request's own state is open or closed.
	DeployRequestDeployed DeployRequestState = "deployed"
)

// DeployRequest asks to bring a development branch's schema changes into a
// production branch.
type DeployRequest struct {
	ID                      string             `json:"id"`
	Type                    string             `json:"type"`
	Number                  int                `json:"number"`
	Actor                   *Actor             `json:"actor"`
	ClosedBy                *Actor             `json:"closed_by"`
	Branch                  string             `json:"branch"`
	BranchID                string             `json:"branch_id"`
	BranchDeleted           bool               `json:"branch_deleted"`
	BranchDeletedBy         *Actor             `json:"branch_deleted_by"`
	BranchDeletedAt         *Timestamp         `json:"branch_deleted_at"`
	IntoBranch              string             `json:"into_branch"`
	IntoBranchSharded       bool               `json:"into_branch_sharded"`
	IntoBranchShardCount    int                `json:"into_branch_shard_count"`
	IntoBranchKeyspaceCount int                `json:"into_branch_keyspace_count"`
	Approved                bool               `json:"approved"`
	State                   DeployRequestState `json:"state"`
	DeploymentState         DeploymentState    `json:"deployment_state"`
	Deployment              *Deployment        `json:"deployment"`
	NumComments             int                `json:"num_comments"`
	HTMLURL                 string             `json:"html_url"`
	Notes                   string             `json:"notes"`
	HTMLBody                string             `json:"html_body"`
	CreatedAt               Timestamp          `json:"created_at"`
	UpdatedAt               Timestamp          `json:"updated_at"`
	ClosedAt                *Timestamp         `json:"closed_at"`
	DeployedAt              *Timestamp         `json:"deployed_at"`
}

// Deployment is the deployment of a deploy request: its state machine, its
// timeline and the operations it applies.
type Deployment struct {
	ID                         string                    `json:"id"`
	Type                       string                    `json:"type"`
	State                      DeploymentState           `json:"state"`
	AutoCutover                bool                      `json:"auto_cutover"`
	AutoDeleteBranch           bool                      `json:"auto_delete_branch"`
	IntoBranch                 string                    `json:"into_branch"`
	DeployRequestNumber        int                       `json:"deploy_request_number"`
	Deployable                 bool                      `json:"deployable"`
	InstantDDL                 bool                      `json:"instant_ddl"`
	InstantDDLEligible         bool                      `json:"instant_ddl_eligible"`
	CutoverExpiring            bool                      `json:"cutover_expiring"`
	TableLocked                bool                      `json:"table_locked"`
	LockedTableName            *string                   `json:"locked_table_name"`
	QueuePaused                bool                      `json:"queue_paused"`
	QueuePauseReason           *string                   `json:"queue_pause_reason"`
	DeployCheckErrors          *string                   `json:"deploy_check_errors"`
	PrecedingDeployments       []*Deployment             `json:"preceding_deployments"`
	DeployOperations           []*DeployOperation        `json:"deploy_operations"`
	DeployOperationSummaries   []*DeployOperationSummary `json:"deploy_operation_summaries"`
	LintErrors                 []*LintError              `json:"lint_errors"`
	SequentialDiffDependencies []map[string]any          `json:"sequential_diff_dependencies"`
	LookupVindexOperations     []map[string]any          `json:"lookup_vindex_operations"`
	ThrottlerConfigurations    map[string]any            `json:"throttler_configurations"`
	DeploymentRevertRequest    map[string]any            `json:"deployment_revert_request"`
	Actor                      *Actor                    `json:"actor"`
	CutoverActor               *Actor                    `json:"cutover_actor"`
	CancelledActor             *Actor                    `json:"cancelled_actor"`
	CreatedAt                  Timestamp                 `json:"created_at"`
	UpdatedAt                  Timestamp                 `json:"updated_at"`
	QueuedAt                   *Timestamp                `json:"queued_at"`
	SubmittedAt                *Timestamp                `json:"submitted_at"`
	StartedAt                  *Timestamp                `json:"started_at"`
	ReadyToCutoverAt           *Timestamp                `json:"ready_to_cutover_at"`
	ForceCutoverRequestedAt    *Timestamp                `json:"force_cutover_requested_at"`
	CutoverAt                  *Timestamp                `json:"cutover_at"`
	FinishedAt                 *Timestamp                `json:"finished_at"`
	SchemaLastUpdatedAt        *Timestamp                `json:"schema_last_updated_at"`
}

// DeployOperationName is what a deploy operation does to its table.
type DeployOperationName string

// The deploy operation names.
const (
	OperationCreate DeployOperationName = "create"
	OperationAlter  DeployOperationName = "alter"
	OperationDrop   DeployOperationName = "drop"
)

// DeployOperationState is the progress of one deploy operation.
type DeployOperationState string

// The deploy operation states.
const (
	OperationPending    DeployOperationState = "pending"
	OperationQueued     DeployOperationState = "queued"
	OperationInProgress DeployOperationState = "in_progress"
	OperationComplete   DeployOperationState = "complete"
	OperationCancelled  DeployOperationState = "cancelled"
	OperationError      DeployOperationState = "error"
)

// DeployOperation is one table change of a deployment.
type DeployOperation struct {
	ID                     string               `json:"id"`
	Type                   string               `json:"type"`
	State                  DeployOperationState `json:"state"`
	KeyspaceName           string               `json:"keyspace_name"`
	TableName              string               `json:"table_name"`
	OperationName          DeployOperationName  `json:"operation_name"`
	ETASeconds             *float64             `json:"eta_seconds"`
	ProgressPercentage     *float64             `json:"progress_percentage"`
	DeployErrorDocsURL     *string              `json:"deploy_error_docs_url"`
	DDLStatement           string               `json:"ddl_statement"`
	SyntaxHighlightedDDL   string               `json:"syntax_highlighted_ddl"`
	CreatedAt              Timestamp            `json:"created_at"`
	UpdatedAt              Timestamp            `json:"updated_at"`
	ThrottledAt            *Timestamp           `json:"throttled_at"`
	CanDropData            bool                 `json:"can_drop_data"`
	TableLocked            bool                 `json:"table_locked"`
	TableRecentlyUsed      bool                 `json:"table_recently_used"`
	TableRecentlyUsedAt    *Timestamp           `json:"table_recently_used_at"`
	RemovedForeignKeyNames []string             `json:"removed_foreign_key_names"`
	DeployErrors           *string              `json:"deploy_errors"`
}

// DeployOperationSummary sums up a deploy operation across shards. Its
// state is never queued: an operation queued on its shards is pending here.
type DeployOperationSummary struct {
	ID                     string                   `json:"id"`
	Type                   string                   `json:"type"`
	State                  DeployOperationState     `json:"state"`
	KeyspaceName           string                   `json:"keyspace_name"`
	TableName              string                   `json:"table_name"`
	OperationName          DeployOperationName      `json:"operation_name"`
	ETASeconds             float64                  `json:"eta_seconds"`
	ProgressPercentage     float64                  `json:"progress_percentage"`
	DDLStatement           string                   `json:"ddl_statement"`
	SyntaxHighlightedDDL   string                   `json:"syntax_highlighted_ddl"`
	CreatedAt              Timestamp                `json:"created_at"`
	ThrottledAt            *Timestamp               `json:"throttled_at"`
	CanDropData            bool                     `json:"can_drop_data"`
	TableRecentlyUsed      bool                     `json:"table_recently_used"`
	TableRecentlyUsedAt    *Timestamp               `json:"table_recently_used_at"`
	RemovedForeignKeyNames []string                 `json:"removed_foreign_key_names"`
	DeployErrors           string                   `json:"deploy_errors"`
	ShardCount             int                      `json:"shard_count"`
	ShardNames             []string                 `json:"shard_names"`
	Sharded                bool                     `json:"sharded"`
	Operations             []*ShardOperationSummary `json:"operations"`
}

// ShardOperationSummary is a deploy operation's progress on one shard.
type ShardOperationSummary struct {
	ID                 string               `json:"id"`
	Type               string               `json:"type"`
	Shard              string               `json:"shard"`
	State              DeployOperationState `json:"state"`
	ProgressPercentage float64              `json:"progress_percentage"`
	ETASeconds         float64              `json:"eta_seconds"`
}

// ReviewState is the kind of a deploy request review.
type ReviewState string

// The review states.
const (
	ReviewCommented ReviewState = "commented"
	ReviewApproved  ReviewState = "approved"
)

// DeployRequestReview is a comment on or an approval of a deploy request.
type DeployRequestReview struct {
	ID        string      `json:"id"`
	Type      string      `json:"type"`
	Body      string      `json:"body"`
	HTMLBody  string      `json:"html_body"`
	State     ReviewState `json:"state"`
	Actor     *Actor      `json:"actor"`
	CreatedAt Timestamp   `json:"created_at"`
	UpdatedAt Timestamp   `json:"updated_at"`
}

// DeployRequestsService manages deploy requests, their deployments, reviews
// and the deploy queue.
type DeployRequestsService service

// DeployRequestParams names a deploy request by its number.
type DeployRequestParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
}

func (p *DeployRequestParams) check() error {
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return err
	}
	if p.Number < 1 {
		return &ArgError{Arg: "number", Reason: fmt.Sprintf("%d is not a deploy request number (they start at 1)", p.Number)}
	}
	return nil
}

func (p *DeployRequestParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/deploy-requests/%s", p.Organization, p.Database, strconv.Itoa(p.Number)) + suffix
}

// deployRequestsPath is the collection path of a database's deploy requests.
func deployRequestsPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/deploy-requests", org, db)
}

// ListDeployRequestsParams selects a page of a database's deploy requests.
type ListDeployRequestsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// State keeps deploy requests that are open, closed or deployed.
	State DeployRequestState `json:"-" url:"state,omitempty"`
	// Branch keeps deploy requests from this branch.
	Branch string `json:"-" url:"branch,omitempty"`
	// IntoBranch keeps deploy requests into this branch.
	IntoBranch string `json:"-" url:"into_branch,omitempty"`
	// DeployedAt keeps deploy requests deployed in the range (both ends
	// included).
	DeployedAt *TimeRange `json:"-" url:"deployed_at,omitempty"`
	// RunningAt keeps deploy requests whose deployment was running (from
	// its start to its end, or now) at some time in the range.
	RunningAt *TimeRange `json:"-" url:"running_at,omitempty"`
	ListParams
}

// List returns a page of a database's deploy requests.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests
func (s *DeployRequestsService) List(ctx context.Context, p *ListDeployRequestsParams) (*Page[DeployRequest], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[DeployRequest](ctx, s.client, deployRequestsPath(p.Organization, p.Database), p)
}

// All ranges over every deploy request of a database that matches p.
func (s *DeployRequestsService) All(ctx context.Context, p *ListDeployRequestsParams) iter.Seq2[*DeployRequest, error] {
	return allOf(ctx, p, s.List)
}

// CreateDeployRequestParams describes a new deploy request.
type CreateDeployRequestParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// Branch is the development branch whose schema is deployed.
	Branch string `json:"branch"`
	// IntoBranch is the production branch, with safe migrations on, that
	// receives the changes; the database's default branch when empty.
	IntoBranch string `json:"into_branch,omitempty"`
	// Notes describe the change.
	Notes string `json:"notes,omitempty"`
	// AutoCutover cuts over as soon as the deployment is ready, instead of
	// waiting in pending_cutover for ApplyDeploy.
	AutoCutover *bool `json:"auto_cutover,omitempty"`
	// AutoDeleteBranch deletes Branch once the deployment completes.
	AutoDeleteBranch *bool `json:"auto_delete_branch,omitempty"`
}

// Create opens a deploy request. Its deployment starts pending and becomes
// ready, no_changes or error once the branches are compared.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests
func (s *DeployRequestsService) Create(ctx context.Context, p *CreateDeployRequestParams) (*DeployRequest, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	dr := new(DeployRequest)
	return orNil(dr, s.client.post(ctx, deployRequestsPath(p.Organization, p.Database), p, dr))
}

// GetDeployRequestParams names a deploy request.
type GetDeployRequestParams = DeployRequestParams

// Get returns a deploy request.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}
func (s *DeployRequestsService) Get(ctx context.Context, p *GetDeployRequestParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "GET", p, "", nil, nil)
}

// CloseDeployRequestParams names the deploy request to close.
type CloseDeployRequestParams = DeployRequestParams

// Close closes a deploy request that has not been deployed.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}
func (s *DeployRequestsService) Close(ctx context.Context, p *CloseDeployRequestParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "PATCH", p, "", nil, map[string]string{"state": string(DeployRequestClosed)})
}

// DeployParams queues a deploy request for deployment.
type DeployParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
	// InstantDDL deploys with instant DDL: no cutover gate and no revert
	// window. Only for deployments that are instant_ddl_eligible.
	InstantDDL *bool `json:"instant_ddl,omitempty"`
}

// Deploy queues a ready deploy request for deployment into its branch.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/deploy
func (s *DeployRequestsService) Deploy(ctx context.Context, p *DeployParams) (*DeployRequest, error) {
	p = orZero(p)
	return callOn[DeployRequest](ctx, s.client, "POST", &DeployRequestParams{p.Organization, p.Database, p.Number}, "/deploy", nil, p)
}

// ApplyDeployParams names the deploy request whose cutover to apply.
type ApplyDeployParams = DeployRequestParams

// ApplyDeploy cuts over a deployment waiting in pending_cutover.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/apply-deploy
func (s *DeployRequestsService) ApplyDeploy(ctx context.Context, p *ApplyDeployParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "POST", p, "/apply-deploy", nil, nil)
}

// UpdateAutoApplyParams turns automatic cutover on or off.
type UpdateAutoApplyParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
	Enable       bool   `json:"enable"`
}

// UpdateAutoApply turns automatic cutover on or off. Turning it on while
// the deployment waits in pending_cutover cuts over at once.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/auto-apply
func (s *DeployRequestsService) UpdateAutoApply(ctx context.Context, p *UpdateAutoApplyParams) (*DeployRequest, error) {
	p = orZero(p)
	return callOn[DeployRequest](ctx, s.client, "PUT", &DeployRequestParams{p.Organization, p.Database, p.Number}, "/auto-apply", nil, p)
}

// UpdateAutoDeleteBranchParams turns the deletion of the branch after the
// deployment on or off.
type UpdateAutoDeleteBranchParams = UpdateAutoApplyParams

// UpdateAutoDeleteBranch turns the deletion of the deploy request's branch
// after a complete deployment on or off.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/auto-delete-branch
func (s *DeployRequestsService) UpdateAutoDeleteBranch(ctx context.Context, p *UpdateAutoDeleteBranchParams) (*DeployRequest, error) {
	p = orZero(p)
	return callOn[DeployRequest](ctx, s.client, "PUT", &DeployRequestParams{p.Organization, p.Database, p.Number}, "/auto-delete-branch", nil, p)
}

// CancelDeployRequestParams names the deployment to cancel.
type CancelDeployRequestParams = DeployRequestParams

// Cancel stops a deployment that has not cut over yet.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/cancel
func (s *DeployRequestsService) Cancel(ctx context.Context, p *CancelDeployRequestParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "POST", p, "/cancel", nil, nil)
}

// CompleteErroredDeployParams names the errored deployment to complete.
type CompleteErroredDeployParams = DeployRequestParams

// CompleteErroredDeploy marks a failed deployment complete, releasing the
// deploy queue behind it.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/complete-deploy
func (s *DeployRequestsService) CompleteErroredDeploy(ctx context.Context, p *CompleteErroredDeployParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "POST", p, "/complete-deploy", nil, nil)
}

// GetDeploymentParams names the deploy request whose deployment to get.
type GetDeploymentParams = DeployRequestParams

// GetDeployment returns the deployment of a deploy request.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/deployment
func (s *DeployRequestsService) GetDeployment(ctx context.Context, p *GetDeploymentParams) (*Deployment, error) {
	return callOn[Deployment](ctx, s.client, "GET", p, "/deployment", nil, nil)
}

// ForceCutoverParams names the deployment to cut over.
type ForceCutoverParams = DeployRequestParams

// ForceCutover cuts over as soon as the deployment is ready, or at once
// when it waits in pending_cutover.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/force-cutover
func (s *DeployRequestsService) ForceCutover(ctx context.Context, p *ForceCutoverParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "POST", p, "/force-cutover", nil, nil)
}

// ListDeployOperationsParams selects a page of a deployment's operations.
type ListDeployOperationsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
	ListParams
}

// ListOperations returns a page of the table operations of a deployment.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/operations
func (s *DeployRequestsService) ListOperations(ctx context.Context, p *ListDeployOperationsParams) (*Page[DeployOperation], error) {
	p = orZero(p)
	return listOn[DeployOperation](ctx, s.client, &DeployRequestParams{p.Organization, p.Database, p.Number}, "/operations", p)
}

// AllOperations ranges over every table operation of a deployment.
func (s *DeployRequestsService) AllOperations(ctx context.Context, p *ListDeployOperationsParams) iter.Seq2[*DeployOperation, error] {
	return allOf(ctx, p, s.ListOperations)
}

// RevertParams names the deployment to revert.
type RevertParams = DeployRequestParams

// Revert undoes a deployment during its revert window
// (complete_pending_revert), restoring the previous schema.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/revert
func (s *DeployRequestsService) Revert(ctx context.Context, p *RevertParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "POST", p, "/revert", nil, nil)
}

// SkipRevertParams names the deployment whose revert window to end.
type SkipRevertParams = DeployRequestParams

// SkipRevert ends a deployment's revert window at once, completing it.
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/skip-revert
func (s *DeployRequestsService) SkipRevert(ctx context.Context, p *SkipRevertParams) (*DeployRequest, error) {
	return callOn[DeployRequest](ctx, s.client, "POST", p, "/skip-revert", nil, nil)
}

// ListReviewsParams selects a page of a deploy request's reviews.
type ListReviewsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
	ListParams
}

// ListReviews returns a page of a deploy request's reviews.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/reviews
func (s *DeployRequestsService) ListReviews(ctx context.Context, p *ListReviewsParams) (*Page[DeployRequestReview], error) {
	p = orZero(p)
	return listOn[DeployRequestReview](ctx, s.client, &DeployRequestParams{p.Organization, p.Database, p.Number}, "/reviews", p)
}

// AllReviews ranges over every review of a deploy request.
func (s *DeployRequestsService) AllReviews(ctx context.Context, p *ListReviewsParams) iter.Seq2[*DeployRequestReview, error] {
	return allOf(ctx, p, s.ListReviews)
}

// ReviewParams comments on or approves a deploy request.
type ReviewParams struct {
	Organization string      `json:"-" url:"-"`
	Database     string      `json:"-" url:"-"`
	Number       int         `json:"-" url:"-"`
	State        ReviewState `json:"state"`
	Body         string      `json:"body,omitempty"`
}

// Review comments on or approves a deploy request. An approval must come
// from someone other than the request's creator ([ErrForbidden] otherwise).
//
// API: POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/reviews
func (s *DeployRequestsService) Review(ctx context.Context, p *ReviewParams) (*DeployRequestReview, error) {
	p = orZero(p)
	return callOn[DeployRequestReview](ctx, s.client, "POST", &DeployRequestParams{p.Organization, p.Database, p.Number}, "/reviews", nil, p)
}

// GetDeployQueueParams selects a page of a database's deploy queue.
type GetDeployQueueParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ListParams
}

// GetDeployQueue returns a page of the deployments queued or running in a
// database, in queue order.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-queue
func (s *DeployRequestsService) GetDeployQueue(ctx context.Context, p *GetDeployQueueParams) (*Page[Deployment], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[Deployment](ctx, s.client, pathf("v1/organizations/%s/databases/%s/deploy-queue", p.Organization, p.Database), p)
}

// AllDeployQueue ranges over the whole deploy queue of a database.
func (s *DeployRequestsService) AllDeployQueue(ctx context.Context, p *GetDeployQueueParams) iter.Seq2[*Deployment, error] {
	return allOf(ctx, p, s.GetDeployQueue)
}

// WaitDeployment polls a deploy request's deployment until it reaches
// one of states, and returns it. A terminal state that is not among them
// ends the wait with a *StateError naming it. A deployment that can be
// reverted is in [DeploymentCompletePendingRevert] once the change is live,
// and reaches [DeploymentComplete] only when its revert window closes or
// the revert is skipped: a caller that waits for the change to be live
// waits for either.
func (s *DeployRequestsService) WaitDeployment(ctx context.Context, p *GetDeploymentParams, states ...DeploymentState) (*Deployment, error) {
	p = orZero(p)
	if len(states) == 0 {
		return nil, &ArgError{Arg: "states", Reason: "name at least one deployment state to wait for"}
	}
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Deployment, error) {
		return s.GetDeployment(ctx, p)
	}, func(d *Deployment) (bool, error) {
		if slices.Contains(states, d.State) {
			return true, nil
		}
		if d.State.IsTerminal() {
			want := make([]string, len(states))
			for i, st := range states {
				want[i] = string(st)
			}
			return false, &StateError{Resource: fmt.Sprintf("deployment of deploy request #%d", p.Number), State: string(d.State), Want: want}
		}
		return false, nil
	})
}
