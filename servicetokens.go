package platform

import (
	"context"
	"iter"
	"net/http"
)

// Permission is the name of a service token permission. Organization
// permissions are granted on the whole organization; database permissions
// on one database, or on the organization, where they cover every
// database.
type Permission string

// The organization permissions.
const (
	// PermissionReadOrganization: get information about an organization.
	PermissionReadOrganization Permission = "read_organization"
	// PermissionWriteOrganization: update an organization's settings.
	PermissionWriteOrganization Permission = "write_organization"
	// PermissionReadInvoices: get invoices.
	PermissionReadInvoices Permission = "read_invoices"
	// PermissionReadAuditLogs: get audit logs.
	PermissionReadAuditLogs Permission = "read_audit_logs"
	// PermissionReadDatabases: get information about the organization's
	// databases.
	PermissionReadDatabases Permission = "read_databases"
	// PermissionCreateDatabases: create organization databases. A token
	// holding it is granted every database permission on each database it
	// creates.
	PermissionCreateDatabases Permission = "create_databases"
	// PermissionDeleteDatabases: delete organization databases.
	PermissionDeleteDatabases Permission = "delete_databases"
	// PermissionReadOAuthApplications: get information about OAuth
	// applications and their tokens.
	PermissionReadOAuthApplications Permission = "read_oauth_applications"
	// PermissionReadOAuthTokens: get OAuth tokens for an OAuth application.
	PermissionReadOAuthTokens Permission = "read_oauth_tokens"
	// PermissionWriteOAuthTokens: create and refresh OAuth grants and tokens.
	PermissionWriteOAuthTokens Permission = "write_oauth_tokens"
	// PermissionDeleteOAuthTokens: delete OAuth tokens.
	PermissionDeleteOAuthTokens Permission = "delete_oauth_tokens"
	// PermissionReadServiceTokens: get information about service tokens.
	PermissionReadServiceTokens Permission = "read_service_tokens"
	// PermissionWriteServiceTokens: create and update service tokens.
	PermissionWriteServiceTokens Permission = "write_service_tokens"
	// PermissionDeleteServiceTokens: delete service tokens.
	PermissionDeleteServiceTokens Permission = "delete_service_tokens"
	// PermissionWriteTeams: create and update teams.
	PermissionWriteTeams Permission = "write_teams"
	// PermissionReadMetricsEndpoints: get information about branch metrics
	// endpoints.
	PermissionReadMetricsEndpoints Permission = "read_metrics_endpoints"
	// PermissionReadPaymentMethod: get the organization's billing payment
	// method.
	PermissionReadPaymentMethod Permission = "read_payment_method"
	// PermissionWritePaymentMethod: remove the organization's billing
	// payment method.
	PermissionWritePaymentMethod Permission = "write_payment_method"
)

// The database permissions.
const (
	// PermissionReadDatabase: get information about a database.
	PermissionReadDatabase Permission = "read_database"
	// PermissionWriteDatabase: update information about a database.
	PermissionWriteDatabase Permission = "write_database"
	// PermissionDeleteDatabase: delete a database.
	PermissionDeleteDatabase Permission = "delete_database"
	// PermissionCreateBranch: create a database branch.
	PermissionCreateBranch Permission = "create_branch"
	// PermissionReadBranch: read a database branch.
	PermissionReadBranch Permission = "read_branch"
	// PermissionDeleteBranch: delete a database branch.
	PermissionDeleteBranch Permission = "delete_branch"
	// PermissionDeleteProductionBranch: delete a production branch.
	PermissionDeleteProductionBranch Permission = "delete_production_branch"
	// PermissionPromoteBranches: promote a development branch to production.
	PermissionPromoteBranches Permission = "promote_branches"
	// PermissionDemoteBranches: demote a production branch to development.
	PermissionDemoteBranches Permission = "demote_branches"
	// PermissionConnectBranch: connect to a branch, and create its
	// passwords (MySQL).
	PermissionConnectBranch Permission = "connect_branch"
	// PermissionConnectProductionBranch: connect to a production branch,
	// and create its passwords (MySQL).
	PermissionConnectProductionBranch Permission = "connect_production_branch"
	// PermissionConnectProductionReadOnlyBranch: connect to a read-only
	// replica of a production branch, and create its reader passwords
	// (MySQL).
	PermissionConnectProductionReadOnlyBranch Permission = "connect_production_read_only_branch"
	// PermissionCreateBranchPassword: create role credentials for a
	// non-production branch (PostgreSQL; a MySQL branch's passwords take
	// PermissionConnectBranch).
	PermissionCreateBranchPassword Permission = "create_branch_password"
	// PermissionCreateProductionBranchPassword: create role credentials
	// for a production branch (PostgreSQL; a MySQL branch's passwords take
	// PermissionConnectProductionBranch).
	PermissionCreateProductionBranchPassword Permission = "create_production_branch_password"
	// PermissionCreateProductionReadOnlyBranchPassword: create read-only
	// role credentials for a production branch (PostgreSQL).
	PermissionCreateProductionReadOnlyBranchPassword Permission = "create_production_read_only_branch_password"
	// PermissionDeleteBranchPassword: delete a password for a non-production
	// branch.
	PermissionDeleteBranchPassword Permission = "delete_branch_password"
	// PermissionDeleteProductionBranchPassword: delete a password for a
	// production branch.
	PermissionDeleteProductionBranchPassword Permission = "delete_production_branch_password"
	// PermissionDeleteProductionReadOnlyBranchPassword: delete read-only
	// credentials of a production branch.
	PermissionDeleteProductionReadOnlyBranchPassword Permission = "delete_production_read_only_branch_password"
	// PermissionCreateDeployRequest: create a deploy request.
	PermissionCreateDeployRequest Permission = "create_deploy_request"
	// PermissionReadDeployRequest: read a deploy request.
	PermissionReadDeployRequest Permission = "read_deploy_request"
	// PermissionReviewDeployRequest: review a deploy request.
	PermissionReviewDeployRequest Permission = "review_deploy_request"
	// PermissionApproveDeployRequest: approve a deploy request.
	PermissionApproveDeployRequest Permission = "approve_deploy_request"
	// PermissionCreateComment: create a deploy request comment.
	PermissionCreateComment Permission = "create_comment"
	// PermissionReadComment: read a deploy request comment.
	PermissionReadComment Permission = "read_comment"
	// PermissionReadBackups: list backups.
	PermissionReadBackups Permission = "read_backups"
	// PermissionWriteBackups: create and update backups.
	PermissionWriteBackups Permission = "write_backups"
	// PermissionDeleteBackups: delete development branch backups.
	PermissionDeleteBackups Permission = "delete_backups"
	// PermissionDeleteProductionBranchBackups: delete production branch
	// backups.
	PermissionDeleteProductionBranchBackups Permission = "delete_production_branch_backups"
	// PermissionRestoreBackup: restore a development branch backup.
	PermissionRestoreBackup Permission = "restore_backup"
	// PermissionRestoreProductionBranchBackup: restore a production branch
	// backup.
	PermissionRestoreProductionBranchBackup Permission = "restore_production_branch_backup"
	// PermissionWriteBranchVSchema: update the VSchema of a branch.
	PermissionWriteBranchVSchema Permission = "write_branch_vschema"
	// PermissionWriteProductionBranchVSchema: update the VSchema of a
	// production branch.
	PermissionWriteProductionBranchVSchema Permission = "write_production_branch_vschema"
)

// OrganizationPermissions returns the permissions that are granted on a
// whole organization only.
func OrganizationPermissions() []Permission {
	return []Permission{
		PermissionReadOrganization, PermissionWriteOrganization, PermissionReadInvoices,
		PermissionReadAuditLogs, PermissionReadDatabases, PermissionCreateDatabases,
		PermissionDeleteDatabases, PermissionReadOAuthApplications, PermissionReadOAuthTokens,
		PermissionWriteOAuthTokens, PermissionDeleteOAuthTokens, PermissionReadServiceTokens,
		PermissionWriteServiceTokens, PermissionDeleteServiceTokens, PermissionWriteTeams,
		PermissionReadMetricsEndpoints, PermissionReadPaymentMethod, PermissionWritePaymentMethod,
	}
}

// DatabasePermissions returns the permissions that can be granted on one
// database (or on the organization, covering all of its databases).
func DatabasePermissions() []Permission {
	return []Permission{
		PermissionReadDatabase, PermissionWriteDatabase, PermissionDeleteDatabase,
		PermissionCreateBranch, PermissionReadBranch, PermissionDeleteBranch,
		PermissionDeleteProductionBranch, PermissionPromoteBranches, PermissionDemoteBranches,
		PermissionConnectBranch, PermissionConnectProductionBranch,
		PermissionConnectProductionReadOnlyBranch, PermissionCreateBranchPassword,
		PermissionCreateProductionBranchPassword, PermissionCreateProductionReadOnlyBranchPassword,
		PermissionDeleteBranchPassword, PermissionDeleteProductionBranchPassword,
		PermissionDeleteProductionReadOnlyBranchPassword, PermissionCreateDeployRequest,
		PermissionReadDeployRequest, PermissionReviewDeployRequest, PermissionApproveDeployRequest,
		PermissionCreateComment, PermissionReadComment, PermissionReadBackups, PermissionWriteBackups,
		PermissionDeleteBackups, PermissionDeleteProductionBranchBackups, PermissionRestoreBackup,
		PermissionRestoreProductionBranchBackup, PermissionWriteBranchVSchema,
		PermissionWriteProductionBranchVSchema,
	}
}

// Permissions returns every permission name: the organization permissions,
// then the database permissions.
func Permissions() []Permission {
	return append(OrganizationPermissions(), DatabasePermissions()...)
}

// AccessResourceType is the kind of resource a service token's access or
// grant applies to.
type AccessResourceType string

// The resource types of accesses and grants.
const (
	// AccessResourceOrganization: the whole organization.
	AccessResourceOrganization AccessResourceType = "Organization"
	// AccessResourceDatabase: one database.
	AccessResourceDatabase AccessResourceType = "Database"
)

// ServiceToken is a credential for the API that is not tied to a person's
// session: an ID and a secret, sent as "Authorization: ID:TOKEN", and the
// permissions granted to it.
type ServiceToken struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Name is the descriptive name given at creation; nil when none was.
	Name *string `json:"name"`
	// DisplayName is the name, or the ID for a token without one.
	DisplayName string `json:"display_name"`
	// Token is the secret. The API shows it once, in the response of
	// Create; everywhere else it is nil.
	Token *string `json:"token"`
	// PlainTextRefreshToken is a refresh token, shown only at creation of
	// the tokens that have one; nil for service tokens.
	PlainTextRefreshToken *string   `json:"plain_text_refresh_token"`
	AvatarURL             string    `json:"avatar_url"`
	CreatedAt             Timestamp `json:"created_at"`
	UpdatedAt             Timestamp `json:"updated_at"`
	// ExpiresAt is when the token stops working (created + ttl); nil when
	// it does not expire.
	ExpiresAt *Timestamp `json:"expires_at"`
	// LastUsedAt is the time of the last request made with the token; nil
	// before the first.
	LastUsedAt *Timestamp `json:"last_used_at"`
	// ActorID, ActorDisplayName and ActorType name the user on whose
	// behalf the token was created.
	ActorID          *string `json:"actor_id"`
	ActorDisplayName *string `json:"actor_display_name"`
	ActorType        *string `json:"actor_type"`
	// ServiceTokenAccesses are permissions the token holds, one per
	// permission and resource, but not necessarily all of them (those on
	// databases may be left out): ListAccesses and ListGrants list every
	// one, a page at a time.
	ServiceTokenAccesses []*ServiceTokenAccess `json:"service_token_accesses"`
	// OAuthAccessesByResource is the grant of an OAuth token, which the API
	// renders in the same shape; always nil for a service token, whose
	// permissions are ServiceTokenAccesses.
	OAuthAccessesByResource *OAuthAccesses `json:"oauth_accesses_by_resource"`
}

// ServiceTokenAccess is one permission a service token holds on one
// resource: the organization, or one database.
type ServiceTokenAccess struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Access is the permission.
	Access Permission `json:"access"`
	// Description says what the permission allows.
	Description  string               `json:"description"`
	ResourceName string               `json:"resource_name"`
	ResourceID   string               `json:"resource_id"`
	ResourceType AccessResourceType   `json:"resource_type"`
	Resource     ServiceTokenResource `json:"resource"`
}

// ServiceTokenResource is the organization or database an access applies
// to.
type ServiceTokenResource struct {
	ID string `json:"id"`
	// Type is the kind of resource, the access's ResourceType.
	Type      AccessResourceType `json:"type"`
	Name      string             `json:"name"`
	CreatedAt Timestamp          `json:"created_at"`
	UpdatedAt Timestamp          `json:"updated_at"`
	DeletedAt *Timestamp         `json:"deleted_at"`
}

// ServiceTokenAccesses are the accesses an AddAccesses call names, as the
// token holds them after the call.
type ServiceTokenAccesses struct {
	Accesses []*ServiceTokenAccess `json:"data"`
}

// ServiceTokenGrant is what a service token holds on one resource: the
// organization, or one database, with the permissions granted there.
type ServiceTokenGrant struct {
	ID           string                     `json:"id"`
	Type         string                     `json:"type"`
	ResourceName string                     `json:"resource_name"`
	ResourceID   string                     `json:"resource_id"`
	ResourceType AccessResourceType         `json:"resource_type"`
	Accesses     []*ServiceTokenGrantAccess `json:"accesses"`
}

// ServiceTokenGrantAccess is one permission of a grant.
type ServiceTokenGrantAccess struct {
	Access      Permission `json:"access"`
	Description string     `json:"description"`
}

// ServiceTokensService manages an organization's service tokens and the
// permissions granted to them. A service token needs the permission each
// method names; an OAuth token is admitted when its user is an admin of
// the organization, whatever scopes it was granted (organization:admin in
// the operations' table, not a scope an application asks for), and
// refused otherwise.
type ServiceTokensService service

// serviceTokensPath is the collection path of an organization's tokens.
func serviceTokensPath(org string) string {
	return pathf("v1/organizations/%s/service-tokens", org)
}

// serviceTokenPath is the path of one token, with suffix appended.
func serviceTokenPath(org, id, suffix string) string {
	return pathf("v1/organizations/%s/service-tokens/%s", org, id) + suffix
}

// ListServiceTokensParams selects a page of an organization's service
// tokens.
type ListServiceTokensParams struct {
	Organization string `json:"-" url:"-"`
	ListParams
}

// List returns a page of an organization's service tokens, oldest first,
// with the total count. No secret is shown.
//
// API: GET /v1/organizations/{organization}/service-tokens
func (s *ServiceTokensService) List(ctx context.Context, p *ListServiceTokensParams) (*Page[ServiceToken], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[ServiceToken](ctx, s.client, serviceTokensPath(p.Organization), p)
}

// All ranges over every service token of an organization.
func (s *ServiceTokensService) All(ctx context.Context, p *ListServiceTokensParams) iter.Seq2[*ServiceToken, error] {
	return allOf(ctx, p, s.List)
}

// CreateServiceTokenParams describes a new service token; nil fields take
// the API's defaults.
type CreateServiceTokenParams struct {
	Organization string `json:"-" url:"-"`
	// Name is a descriptive name, for reference only.
	Name *string `json:"name,omitempty"`
	// TTL is the lifetime in seconds, after which the token is refused as
	// unauthorized; the token does not expire when nil.
	TTL *int `json:"ttl,omitempty"`
}

// Create creates a service token on behalf of the caller, with no
// permissions: grant them with AddAccesses. The response carries the
// secret in Token, the only time the API shows it.
//
// API: POST /v1/organizations/{organization}/service-tokens
func (s *ServiceTokensService) Create(ctx context.Context, p *CreateServiceTokenParams) (*ServiceToken, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	t := new(ServiceToken)
	return orNil(t, s.client.post(ctx, serviceTokensPath(p.Organization), p, t))
}

// GetServiceTokenParams names a service token.
type GetServiceTokenParams struct {
	Organization string `json:"-" url:"-"`
	// ID is the token's ID.
	ID string `json:"-" url:"-"`
}

func (p *GetServiceTokenParams) check() error {
	return required("organization", p.Organization, "id", p.ID)
}

// Get returns a service token with its accesses, without its secret.
//
// API: GET /v1/organizations/{organization}/service-tokens/{id}
func (s *ServiceTokensService) Get(ctx context.Context, p *GetServiceTokenParams) (*ServiceToken, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	t := new(ServiceToken)
	return orNil(t, s.client.get(ctx, serviceTokenPath(p.Organization, p.ID, ""), nil, t))
}

// DeleteServiceTokenParams names the service token to delete.
type DeleteServiceTokenParams = GetServiceTokenParams

// Delete deletes a service token. It is revoked at once: the next request
// made with it is refused with [ErrUnauthorized].
//
// API: DELETE /v1/organizations/{organization}/service-tokens/{id}
func (s *ServiceTokensService) Delete(ctx context.Context, p *DeleteServiceTokenParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, serviceTokenPath(p.Organization, p.ID, ""), nil)
}

// ListServiceTokenAccessesParams selects a page of a service token's
// accesses.
type ListServiceTokenAccessesParams struct {
	Organization string `json:"-" url:"-"`
	// ID is the token's ID.
	ID string `json:"-" url:"-"`
	ListParams
}

// ListAccesses returns a page of the permissions a service token holds,
// one access per permission and resource: the organization's first, then
// each database's, each resource's by permission name.
//
// API: GET /v1/organizations/{organization}/service-tokens/{id}/access
func (s *ServiceTokensService) ListAccesses(ctx context.Context, p *ListServiceTokenAccessesParams) (*Page[ServiceTokenAccess], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.ID); err != nil {
		return nil, err
	}
	return listPage[ServiceTokenAccess](ctx, s.client, serviceTokenPath(p.Organization, p.ID, "/access"), p)
}

// AllAccesses ranges over every access of a service token.
func (s *ServiceTokensService) AllAccesses(ctx context.Context, p *ListServiceTokenAccessesParams) iter.Seq2[*ServiceTokenAccess, error] {
	return allOf(ctx, p, s.ListAccesses)
}

// AddServiceTokenAccessesParams names permissions to grant to a service
// token, on a database or on the whole organization.
type AddServiceTokenAccessesParams struct {
	Organization string `json:"-" url:"-"`
	// ID is the token's ID.
	ID string `json:"-" url:"-"`
	// Database is the name of the database the permissions apply to; nil
	// for the whole organization, where a database permission covers
	// every database.
	Database *string `json:"database,omitempty"`
	// Access are the permission names.
	Access []Permission `json:"access"`
}

// AddAccesses grants permissions to a service token. The caller can grant
// only permissions its own user holds; an organization permission cannot
// be granted on a database. The response lists the named accesses, as the
// token holds them now.
//
// API: POST /v1/organizations/{organization}/service-tokens/{id}/access
func (s *ServiceTokensService) AddAccesses(ctx context.Context, p *AddServiceTokenAccessesParams) (*ServiceTokenAccesses, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.ID); err != nil {
		return nil, err
	}
	a := new(ServiceTokenAccesses)
	return orNil(a, s.client.post(ctx, serviceTokenPath(p.Organization, p.ID, "/access"), p, a))
}

// RemoveServiceTokenAccessesParams names permissions to take from a
// service token, on a database or on the whole organization.
type RemoveServiceTokenAccessesParams = AddServiceTokenAccessesParams

// RemoveAccesses takes permissions from a service token, on the database
// p names or on the organization. It takes effect on the token's next
// request; permissions the token does not hold there are ignored.
//
// API: DELETE /v1/organizations/{organization}/service-tokens/{id}/access
func (s *ServiceTokensService) RemoveAccesses(ctx context.Context, p *RemoveServiceTokenAccessesParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.ID); err != nil {
		return err
	}
	return s.client.call(ctx, http.MethodDelete, serviceTokenPath(p.Organization, p.ID, "/access"), nil, p, nil)
}

// ListServiceTokenGrantsParams selects a page of a service token's grants.
type ListServiceTokenGrantsParams = ListServiceTokenAccessesParams

// ListGrants returns a page of a service token's grants: one per resource
// it holds permissions on, the organization's first, then each
// database's.
//
// API: GET /v1/organizations/{organization}/service-tokens/{id}/grants
func (s *ServiceTokensService) ListGrants(ctx context.Context, p *ListServiceTokenGrantsParams) (*Page[ServiceTokenGrant], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.ID); err != nil {
		return nil, err
	}
	return listPage[ServiceTokenGrant](ctx, s.client, serviceTokenPath(p.Organization, p.ID, "/grants"), p)
}

// AllGrants ranges over every grant of a service token.
func (s *ServiceTokensService) AllGrants(ctx context.Context, p *ListServiceTokenGrantsParams) iter.Seq2[*ServiceTokenGrant, error] {
	return allOf(ctx, p, s.ListGrants)
}
