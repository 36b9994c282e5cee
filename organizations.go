package platform

import (
	"context"
	"iter"
)

// Organization is an organization: the owner of databases, members, teams
// and tokens.
type Organization struct {
	ID                  string         `json:"id"`
	Type                string         `json:"type"`
	Name                string         `json:"name"`
	BillingEmail        string         `json:"billing_email"`
	CreatedAt           Timestamp      `json:"created_at"`
	UpdatedAt           Timestamp      `json:"updated_at"`
	Plan                string         `json:"plan"`
	ValidBillingInfo    bool           `json:"valid_billing_info"`
	SSO                 bool           `json:"sso"`
	SSODirectory        bool           `json:"sso_directory"`
	SingleTenancy       bool           `json:"single_tenancy"`
	ManagedTenancy      bool           `json:"managed_tenancy"`
	HasPastDueInvoices  *bool          `json:"has_past_due_invoices"`
	DatabaseCount       int            `json:"database_count"`
	SSOPortalURL        *string        `json:"sso_portal_url"`
	Features            map[string]any `json:"features"`
	IDPManagedRoles     bool           `json:"idp_managed_roles"`
	InvoiceBudgetAmount string         `json:"invoice_budget_amount"`
	KeyspaceShardLimit  int            `json:"keyspace_shard_limit"`
	HasCard             bool           `json:"has_card"`
	PaymentInfoRequired bool           `json:"payment_info_required"`
	// FreeDatabasesRemaining is how many more databases the plan includes
	// at no charge.
	FreeDatabasesRemaining int `json:"free_databases_remaining"`
}

// OrganizationRef is the short form of an organization inside other objects.
type OrganizationRef struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
	DeletedAt *Timestamp `json:"deleted_at"`
}

// User is a person with an account.
type User struct {
	ID                      string           `json:"id"`
	Type                    string           `json:"type"`
	DisplayName             string           `json:"display_name"`
	Name                    string           `json:"name"`
	Email                   string           `json:"email"`
	AvatarURL               string           `json:"avatar_url"`
	CreatedAt               Timestamp        `json:"created_at"`
	UpdatedAt               Timestamp        `json:"updated_at"`
	TwoFactorAuthConfigured bool             `json:"two_factor_auth_configured"`
	DefaultOrganization     *OrganizationRef `json:"default_organization"`
	SSO                     bool             `json:"sso"`
	Managed                 bool             `json:"managed"`
	DirectoryManaged        bool             `json:"directory_managed"`
	EmailVerified           bool             `json:"email_verified"`
}

// MemberRole is a member's role in an organization.
type MemberRole string

// The member roles.
const (
	RoleMember MemberRole = "member"
	RoleAdmin  MemberRole = "admin"
)

// Member is a user's membership of an organization.
type Member struct {
	// ID is the membership's ID; User.ID is the user's, which the member
	// operations take.
	ID        string     `json:"id"`
	Type      string     `json:"type"`
	User      User       `json:"user"`
	Role      MemberRole `json:"role"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
}

// Region is a location where databases run. CurrentDefault, MySQLSupported
// and PostgreSQLSupported are reported for an organization's or a
// database's regions, and are nil in the public list.
type Region struct {
	ID                  string   `json:"id"`
	Type                string   `json:"type"`
	Provider            string   `json:"provider"`
	Enabled             bool     `json:"enabled"`
	PublicIPAddresses   []string `json:"public_ip_addresses"`
	DisplayName         string   `json:"display_name"`
	Location            string   `json:"location"`
	Slug                string   `json:"slug"`
	CurrentDefault      *bool    `json:"current_default,omitempty"`
	MySQLSupported      *bool    `json:"mysql_supported,omitempty"`
	PostgreSQLSupported *bool    `json:"postgresql_supported,omitempty"`
}

// OrganizationsService manages organizations, their members and their regions.
type OrganizationsService service

// ListOrganizationsParams selects a page of organizations.
type ListOrganizationsParams struct {
	ListParams
}

// List returns a page of the organizations the credentials can see.
//
// API: GET /v1/organizations
func (s *OrganizationsService) List(ctx context.Context, p *ListOrganizationsParams) (*Page[Organization], error) {
	p = orZero(p)
	return listPage[Organization](ctx, s.client, "v1/organizations", p)
}

// All ranges over every organization the credentials can see.
func (s *OrganizationsService) All(ctx context.Context, p *ListOrganizationsParams) iter.Seq2[*Organization, error] {
	return allOf(ctx, p, s.List)
}

// GetOrganizationParams names an organization.
type GetOrganizationParams struct {
	Organization string `json:"-" url:"-"`
}

// Get returns an organization.
//
// API: GET /v1/organizations/{organization}
func (s *OrganizationsService) Get(ctx context.Context, p *GetOrganizationParams) (*Organization, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	org := new(Organization)
	return orNil(org, s.client.get(ctx, pathf("v1/organizations/%s", p.Organization), nil, org))
}

// UpdateOrganizationParams changes an organization's settings; nil fields
// are left as they are.
type UpdateOrganizationParams struct {
	Organization        string  `json:"-" url:"-"`
	BillingEmail        *string `json:"billing_email,omitempty"`
	IDPManagedRoles     *bool   `json:"idp_managed_roles,omitempty"`
	InvoiceBudgetAmount *int    `json:"invoice_budget_amount,omitempty"`
}

// Update changes an organization's settings.
//
// API: PATCH /v1/organizations/{organization}
func (s *OrganizationsService) Update(ctx context.Context, p *UpdateOrganizationParams) (*Organization, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	org := new(Organization)
	return orNil(org, s.client.patch(ctx, pathf("v1/organizations/%s", p.Organization), p, org))
}

// ListOrganizationRegionsParams selects a page of an organization's regions.
type ListOrganizationRegionsParams struct {
	Organization string `json:"-" url:"-"`
	ListParams
}

// ListRegions returns a page of the regions an organization may use.
//
// API: GET /v1/organizations/{organization}/regions
func (s *OrganizationsService) ListRegions(ctx context.Context, p *ListOrganizationRegionsParams) (*Page[Region], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[Region](ctx, s.client, pathf("v1/organizations/%s/regions", p.Organization), p)
}

// AllRegions ranges over every region an organization may use.
func (s *OrganizationsService) AllRegions(ctx context.Context, p *ListOrganizationRegionsParams) iter.Seq2[*Region, error] {
	return allOf(ctx, p, s.ListRegions)
}

// ListMembersParams selects a page of an organization's members.
type ListMembersParams struct {
	Organization string `json:"-" url:"-"`
	// Query filters members by name or email.
	Query string `json:"-" url:"q,omitempty"`
	ListParams
}

// ListMembers returns a page of an organization's members.
//
// API: GET /v1/organizations/{organization}/members
func (s *OrganizationsService) ListMembers(ctx context.Context, p *ListMembersParams) (*Page[Member], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[Member](ctx, s.client, pathf("v1/organizations/%s/members", p.Organization), p)
}

// AllMembers ranges over every member of an organization.
func (s *OrganizationsService) AllMembers(ctx context.Context, p *ListMembersParams) iter.Seq2[*Member, error] {
	return allOf(ctx, p, s.ListMembers)
}

// GetMemberParams names a member by the user's ID.
type GetMemberParams struct {
	Organization string `json:"-" url:"-"`
	UserID       string `json:"-" url:"-"`
}

// GetMember returns a user's membership of an organization.
//
// API: GET /v1/organizations/{organization}/members/{id}
func (s *OrganizationsService) GetMember(ctx context.Context, p *GetMemberParams) (*Member, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.UserID); err != nil {
		return nil, err
	}
	m := new(Member)
	return orNil(m, s.client.get(ctx, pathf("v1/organizations/%s/members/%s", p.Organization, p.UserID), nil, m))
}

// UpdateMemberParams changes a member's role.
type UpdateMemberParams struct {
	Organization string     `json:"-" url:"-"`
	UserID       string     `json:"-" url:"-"`
	Role         MemberRole `json:"role"`
}

// UpdateMember changes a member's role. The last admin cannot be demoted.
//
// API: PATCH /v1/organizations/{organization}/members/{id}
func (s *OrganizationsService) UpdateMember(ctx context.Context, p *UpdateMemberParams) (*Member, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.UserID, "role", string(p.Role)); err != nil {
		return nil, err
	}
	m := new(Member)
	return orNil(m, s.client.patch(ctx, pathf("v1/organizations/%s/members/%s", p.Organization, p.UserID), p, m))
}

// RemoveMemberParams names the member to remove and what of theirs goes too.
type RemoveMemberParams struct {
	Organization string `json:"-" url:"-"`
	UserID       string `json:"-" url:"-"`
	// DeletePasswords deletes the role credentials and branch passwords the
	// member created.
	DeletePasswords bool `json:"-" url:"delete_passwords,omitempty"`
	// DeleteServiceTokens deletes the service tokens the member created.
	DeleteServiceTokens bool `json:"-" url:"delete_service_tokens,omitempty"`
}

// RemoveMember removes a user from an organization. The last admin cannot
// be removed.
//
// API: DELETE /v1/organizations/{organization}/members/{id}
func (s *OrganizationsService) RemoveMember(ctx context.Context, p *RemoveMemberParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.UserID); err != nil {
		return err
	}
	return s.client.del(ctx, pathf("v1/organizations/%s/members/%s", p.Organization, p.UserID), p)
}

// UsersService reads the user behind the credentials.
type UsersService service

// GetCurrent returns the user the credentials act for: the OAuth token's
// user, or the user who created the service token.
//
// API: GET /v1/user
func (s *UsersService) GetCurrent(ctx context.Context) (*User, error) {
	u := new(User)
	return orNil(u, s.client.get(ctx, "v1/user", nil, u))
}

// RegionsService lists the public regions.
type RegionsService service

// ListRegionsParams selects a page of the public regions.
type ListRegionsParams struct {
	ListParams
}

// List returns a page of the public regions. It needs no credentials.
//
// API: GET /v1/regions
func (s *RegionsService) List(ctx context.Context, p *ListRegionsParams) (*Page[Region], error) {
	p = orZero(p)
	return listPage[Region](ctx, s.client, "v1/regions", p)
}

// All ranges over every public region.
func (s *RegionsService) All(ctx context.Context, p *ListRegionsParams) iter.Seq2[*Region, error] {
	return allOf(ctx, p, s.List)
}
