package platform

import (
	"context"
	"iter"
)

// InheritedRole is a database role that role credentials can inherit.
type InheritedRole string

// The inherited roles.
const (
	// InheritedManaged is the platform's managed role, which the default
	// role of every branch inherits.
	InheritedManaged                InheritedRole = "svc_managed"
	InheritedCheckpoint             InheritedRole = "pg_checkpoint"
	InheritedCreateSubscription     InheritedRole = "pg_create_subscription"
	InheritedMaintain               InheritedRole = "pg_maintain"
	InheritedMonitor                InheritedRole = "pg_monitor"
	InheritedReadAllData            InheritedRole = "pg_read_all_data"
	InheritedReadAllSettings        InheritedRole = "pg_read_all_settings"
	InheritedReadAllStats           InheritedRole = "pg_read_all_stats"
	InheritedSignalBackend          InheritedRole = "pg_signal_backend"
	InheritedStatScanTables         InheritedRole = "pg_stat_scan_tables"
	InheritedUseReservedConnections InheritedRole = "pg_use_reserved_connections"
	InheritedWriteAllData           InheritedRole = "pg_write_all_data"
	InheritedPostgres               InheritedRole = "postgres"
)

// InheritedRoles returns every inherited role value, in the API's order.
func InheritedRoles() []InheritedRole {
	return []InheritedRole{
		InheritedManaged, InheritedCheckpoint, InheritedCreateSubscription, InheritedMaintain,
		InheritedMonitor, InheritedReadAllData, InheritedReadAllSettings, InheritedReadAllStats,
		InheritedSignalBackend, InheritedStatScanTables, InheritedUseReservedConnections,
		InheritedWriteAllData, InheritedPostgres,
	}
}

// RoleStatus filters a list of role credentials by their expiry.
type RoleStatus string

// The role statuses.
const (
	// RoleActive: not expired (with or without a ttl).
	RoleActive RoleStatus = "active"
	// RoleRenewable: has a ttl and has not expired yet, so Renew applies.
	RoleRenewable RoleStatus = "renewable"
	// RoleExpired: the ttl has run out.
	RoleExpired RoleStatus = "expired"
	// RoleDisabled: disabled (DisabledAt set).
	RoleDisabled RoleStatus = "disabled"
)

// QuerySafety is how a role's queries are held to a safety rule.
type QuerySafety string

// The query safety modes.
const (
	QuerySafetyOff  QuerySafety = "off"
	QuerySafetyWarn QuerySafety = "warn"
	QuerySafetyOn   QuerySafety = "on"
)

// QuerySafetySettings are the safety rules applied to a role's queries.
type QuerySafetySettings struct {
	// RequireWhereOnDelete requires a WHERE clause on DELETE statements.
	RequireWhereOnDelete QuerySafety `json:"require_where_on_delete"`
	// RequireWhereOnUpdate requires a WHERE clause on UPDATE statements.
	RequireWhereOnUpdate QuerySafety `json:"require_where_on_update"`
}

// Role is a set of role credentials of a branch: a database user, its
// connection host and, in the responses of Create, Reset and ResetDefault
// only, its password.
type Role struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	// AccessHostURL is the host to connect to.
	AccessHostURL                string `json:"access_host_url"`
	PrivateAccessHostURL         string `json:"private_access_host_url"`
	PrivateConnectionServiceName string `json:"private_connection_service_name"`
	// Username is the database user name, with the branch routing suffix.
	Username string `json:"username"`
	// BaseUsername is Username without the branch routing suffix.
	BaseUsername string `json:"base_username"`
	// Password is the plain text password. The API shows it once: in the
	// response that created or reset it; elsewhere it is empty.
	Password     string     `json:"password,omitempty"`
	DatabaseName string     `json:"database_name"`
	CreatedAt    Timestamp  `json:"created_at"`
	UpdatedAt    Timestamp  `json:"updated_at"`
	DeletedAt    *Timestamp `json:"deleted_at"`
	// ExpiresAt is when the credentials expire; nil when they have no ttl.
	ExpiresAt  *Timestamp `json:"expires_at"`
	DroppedAt  *Timestamp `json:"dropped_at"`
	DisabledAt *Timestamp `json:"disabled_at"`
	// DropFailed is the error of a failed drop, or empty.
	DropFailed string `json:"drop_failed"`
	// Ready reports whether the role accepts connections.
	Ready bool `json:"ready"`
	// Expired reports whether ExpiresAt has passed.
	Expired bool `json:"expired"`
	// Default marks the branch's default role, postgres.
	Default bool `json:"default"`
	// TTL is the lifetime in seconds; 0 when the credentials do not expire.
	TTL                 int                 `json:"ttl"`
	InheritedRoles      []InheritedRole     `json:"inherited_roles"`
	WithReplication     bool                `json:"with_replication"`
	Branch              BranchRef           `json:"branch"`
	Actor               *Actor              `json:"actor"`
	QuerySafetySettings QuerySafetySettings `json:"query_safety_settings"`
}

// RolesService manages the role credentials of PostgreSQL branches. MySQL
// branches have passwords instead (see [PasswordsService]).
type RolesService service

// RoleParams names a role of a branch.
type RoleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the role's ID.
	ID string `json:"-" url:"-"`
}

func (p *RoleParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID)
}

func (p *RoleParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/roles/%s", p.Organization, p.Database, p.Branch, p.ID) + suffix
}

// rolesPath is the collection path of a branch's roles.
func rolesPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/roles", org, db, branch)
}

// ListRolesParams selects a page of a branch's role credentials.
type ListRolesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Status keeps only roles in that status; all when empty.
	Status RoleStatus `json:"-" url:"status,omitempty"`
	// Query searches roles by name or username.
	Query string `json:"-" url:"q,omitempty"`
	ListParams
}

// List returns a page of a branch's role credentials. Deleted roles are not
// listed, and no password is shown.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles
func (s *RolesService) List(ctx context.Context, p *ListRolesParams) (*Page[Role], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listPage[Role](ctx, s.client, rolesPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every role of a branch that matches p.
func (s *RolesService) All(ctx context.Context, p *ListRolesParams) iter.Seq2[*Role, error] {
	return allOf(ctx, p, s.List)
}

// CreateRoleParams describes new role credentials; nil fields take the
// API's defaults.
type CreateRoleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name is unique among the branch's roles; generated when nil.
	Name *string `json:"name,omitempty"`
	// TTL is the lifetime in seconds; the credentials never expire when nil.
	TTL *int `json:"ttl,omitempty"`
	// InheritedRoles are the database roles the credentials inherit.
	InheritedRoles []InheritedRole `json:"inherited_roles,omitempty"`
	// WithReplication gives the role the REPLICATION attribute.
	WithReplication      *bool        `json:"with_replication,omitempty"`
	RequireWhereOnDelete *QuerySafety `json:"require_where_on_delete,omitempty"`
	RequireWhereOnUpdate *QuerySafety `json:"require_where_on_update,omitempty"`
}

// Create creates role credentials. Its response carries the password,
// which no later Get or List shows; Reset gives the role a new one.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles
func (s *RolesService) Create(ctx context.Context, p *CreateRoleParams) (*Role, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	r := new(Role)
	return orNil(r, s.client.post(ctx, rolesPath(p.Organization, p.Database, p.Branch), p, r))
}

// GetDefaultRoleParams names the branch whose default role to get.
type GetDefaultRoleParams = BranchParams

// GetDefault returns the default role of a branch, postgres, without its
// password.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/default
func (s *RolesService) GetDefault(ctx context.Context, p *GetDefaultRoleParams) (*Role, error) {
	return callOn[Role](ctx, s.client, "GET", p, "/roles/default", nil, nil)
}

// ResetDefaultRoleParams names the branch whose default role to reset.
type ResetDefaultRoleParams = BranchParams

// ResetDefault gives the default role of a branch a new password, and
// returns the role with it.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/reset-default
func (s *RolesService) ResetDefault(ctx context.Context, p *ResetDefaultRoleParams) (*Role, error) {
	return callOn[Role](ctx, s.client, "POST", p, "/roles/reset-default", nil, nil)
}

// GetRoleParams names a role, and optionally the replica or bouncer whose
// connection details to show.
type GetRoleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
	// Replica shows the connection details of a replica.
	Replica *bool `json:"-" url:"replica,omitempty"`
	// ReadOnlyReplica shows the connection details of the read-only replica
	// in the region with this slug.
	ReadOnlyReplica string `json:"-" url:"read_only_replica,omitempty"`
	// Bouncer shows the connection details of the named bouncer.
	Bouncer string `json:"-" url:"bouncer,omitempty"`
}

// Get returns a role, without its password.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}
func (s *RolesService) Get(ctx context.Context, p *GetRoleParams) (*Role, error) {
	p = orZero(p)
	rp := &RoleParams{p.Organization, p.Database, p.Branch, p.ID}
	if err := rp.check(); err != nil {
		return nil, err
	}
	r := new(Role)
	return orNil(r, s.client.get(ctx, rp.path(""), p, r))
}

// UpdateRoleParams renames a role or changes its query safety settings;
// nil fields are left as they are.
type UpdateRoleParams struct {
	Organization         string       `json:"-" url:"-"`
	Database             string       `json:"-" url:"-"`
	Branch               string       `json:"-" url:"-"`
	ID                   string       `json:"-" url:"-"`
	Name                 *string      `json:"name,omitempty"`
	RequireWhereOnDelete *QuerySafety `json:"require_where_on_delete,omitempty"`
	RequireWhereOnUpdate *QuerySafety `json:"require_where_on_update,omitempty"`
}

// Update renames a role or changes its query safety settings.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}
func (s *RolesService) Update(ctx context.Context, p *UpdateRoleParams) (*Role, error) {
	p = orZero(p)
	rp := &RoleParams{p.Organization, p.Database, p.Branch, p.ID}
	return callOn[Role](ctx, s.client, "PATCH", rp, "", nil, p)
}

// DeleteRoleParams names the role to delete, and the role that takes over
// the objects it owns.
type DeleteRoleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
	// Successor is the role (ID, or username with or without the branch
	// suffix) that the deleted role's objects are reassigned to before the
	// drop.
	Successor string `json:"-" url:"successor,omitempty"`
}

// Delete drops a role. A role that owns objects needs a Successor; the
// branch's default role cannot be deleted.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}
func (s *RolesService) Delete(ctx context.Context, p *DeleteRoleParams) error {
	p = orZero(p)
	rp := &RoleParams{p.Organization, p.Database, p.Branch, p.ID}
	if err := rp.check(); err != nil {
		return err
	}
	return s.client.del(ctx, rp.path(""), p)
}

// ReassignRoleParams names the role whose objects move, and the role that
// takes them.
type ReassignRoleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
	// Successor is the role (ID, or username with or without the branch
	// suffix) that takes ownership.
	Successor string `json:"successor"`
}

// Reassign gives every object a role owns to another role of the branch.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}/reassign
func (s *RolesService) Reassign(ctx context.Context, p *ReassignRoleParams) error {
	p = orZero(p)
	rp := &RoleParams{p.Organization, p.Database, p.Branch, p.ID}
	if err := rp.check(); err != nil {
		return err
	}
	return s.client.post(ctx, rp.path("/reassign"), p, nil)
}

// RenewRoleParams names the role to renew.
type RenewRoleParams = RoleParams

// Renew moves a role's expiry to now plus its ttl. Roles without a ttl, and
// expired ones, are refused with [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}/renew
func (s *RolesService) Renew(ctx context.Context, p *RenewRoleParams) (*Role, error) {
	return callOn[Role](ctx, s.client, "POST", p, "/renew", nil, nil)
}

// ResetRoleParams names the role whose password to reset.
type ResetRoleParams = RoleParams

// Reset gives a role a new password, and returns the role with it.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}/reset
func (s *RolesService) Reset(ctx context.Context, p *ResetRoleParams) (*Role, error) {
	return callOn[Role](ctx, s.client, "POST", p, "/reset", nil, nil)
}
