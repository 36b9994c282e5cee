package platform

import (
	"context"
	"iter"
)

// PasswordRole is the database role a branch password connects as.
type PasswordRole string

// The password roles.
const (
	// PasswordReader reads data only; replica passwords always have it.
	PasswordReader PasswordRole = "reader"
	// PasswordWriter writes data.
	PasswordWriter PasswordRole = "writer"
	// PasswordReadWriter reads and writes data.
	PasswordReadWriter PasswordRole = "readwriter"
	// PasswordAdmin reads and writes data and changes the schema.
	PasswordAdmin PasswordRole = "admin"
)

// PasswordRoles returns every password role, in the API's order.
func PasswordRoles() []PasswordRole {
	return []PasswordRole{PasswordReader, PasswordWriter, PasswordAdmin, PasswordReadWriter}
}

// PasswordStatus filters a list of passwords by their expiry.
type PasswordStatus string

// The password statuses.
const (
	// PasswordActive: not expired (with or without a ttl).
	PasswordActive PasswordStatus = "active"
	// PasswordRenewable: has a ttl and has not expired yet, so Renew applies.
	PasswordRenewable PasswordStatus = "renewable"
	// PasswordExpired: the ttl has run out.
	PasswordExpired PasswordStatus = "expired"
)

// Password is a password of a MySQL branch: a database user name, the hosts
// to connect to and, in the response of Create only, the password itself.
type Password struct {
	ID   string       `json:"id"`
	Type string       `json:"type"`
	Name string       `json:"name"`
	Role PasswordRole `json:"role"`
	// CIDRs are the addresses and ranges allowed to connect with the
	// password; nil when any address may.
	CIDRs      []string   `json:"cidrs"`
	CreatedAt  Timestamp  `json:"created_at"`
	DeletedAt  *Timestamp `json:"deleted_at"`
	ExpiresAt  *Timestamp `json:"expires_at"`
	LastUsedAt *Timestamp `json:"last_used_at"`
	// Expired reports whether ExpiresAt has passed.
	Expired      bool `json:"expired"`
	DirectVTGate bool `json:"direct_vtgate"`
	// DirectVTGateAddresses are the hosts, one per availability zone, of a
	// password that connects directly to a VTGate; empty otherwise.
	DirectVTGateAddresses []string `json:"direct_vtgate_addresses"`
	// TTLSeconds is the lifetime; nil when the password does not expire.
	TTLSeconds *int `json:"ttl_seconds"`
	// AccessHostURL is the host to connect to.
	AccessHostURL string `json:"access_host_url"`
	// AccessHostRegionalURL is the host in the branch's region.
	AccessHostRegionalURL string `json:"access_host_regional_url"`
	// AccessHostRegionalURLs are the hosts of the read-only regions.
	AccessHostRegionalURLs []string `json:"access_host_regional_urls"`
	Actor                  *Actor   `json:"actor"`
	Region                 Region   `json:"region"`
	// Username is the database user name to connect as.
	Username string `json:"username"`
	// PlainText is the password. The API shows it once, in the response of
	// Create; everywhere else it is nil.
	PlainText *string `json:"plain_text"`
	// Replica reports whether the password connects to the branch's
	// replicas.
	Replica bool `json:"replica"`
	// Renewable reports whether Renew applies: the password has a ttl and
	// has not expired.
	Renewable bool              `json:"renewable"`
	Branch    PasswordBranchRef `json:"database_branch"`
}

// PasswordBranchRef is the branch of a password, as the password shows it.
type PasswordBranchRef struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Production bool   `json:"production"`
	// MySQLEdgeAddress is the address the branch's connections enter by.
	MySQLEdgeAddress        string `json:"mysql_edge_address"`
	PrivateEdgeConnectivity bool   `json:"private_edge_connectivity"`
}

// PasswordsService manages the passwords of MySQL branches. PostgreSQL
// branches have role credentials instead (see [RolesService]).
type PasswordsService service

// GetPasswordParams names a password of a branch.
type GetPasswordParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the password's ID.
	ID string `json:"-" url:"-"`
}

func (p *GetPasswordParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID)
}

func (p *GetPasswordParams) path(suffix string) string {
	return passwordsPath(p.Organization, p.Database, p.Branch) + pathf("/%s", p.ID) + suffix
}

// passwordsPath is the collection path of a branch's passwords.
func passwordsPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/passwords", org, db, branch)
}

// ListPasswordsParams selects a page of a branch's passwords.
type ListPasswordsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ReadOnlyRegionID keeps only the passwords of that region.
	ReadOnlyRegionID string `json:"-" url:"read_only_region_id,omitempty"`
	// Status keeps only passwords in that status; all when empty.
	Status PasswordStatus `json:"-" url:"status,omitempty"`
	// Query searches passwords by name.
	Query string `json:"-" url:"q,omitempty"`
	ListParams
}

// List returns a page of a branch's passwords, without their plain text.
// Deleted passwords are not listed; expired ones are.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords
func (s *PasswordsService) List(ctx context.Context, p *ListPasswordsParams) (*Page[Password], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listPage[Password](ctx, s.client, passwordsPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every password of a branch that matches p.
func (s *PasswordsService) All(ctx context.Context, p *ListPasswordsParams) iter.Seq2[*Password, error] {
	return allOf(ctx, p, s.List)
}

// CreatePasswordParams describes a new password; nil fields take the API's
// defaults.
type CreatePasswordParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name is unique among the branch's passwords; generated when nil.
	Name *string `json:"name,omitempty"`
	// Role is the database role; admin when nil, reader for a replica.
	Role *PasswordRole `json:"role,omitempty"`
	// Replica makes a password that connects to the branch's replicas.
	Replica *bool `json:"replica,omitempty"`
	// TTL is the lifetime in seconds; the password never expires when nil.
	TTL *int `json:"ttl,omitempty"`
	// CIDRs are the IP addresses and CIDR ranges allowed to connect; any
	// address may when empty.
	CIDRs []string `json:"cidrs,omitempty"`
	// DirectVTGate makes a password that connects directly to a VTGate.
	DirectVTGate *bool `json:"direct_vtgate,omitempty"`
	// ReadOnlyRegionID binds the password to one of the branch's
	// read-only regions (its ID, from [DatabasesService.ListReadOnlyRegions]),
	// which must be ready: a replica password that reads that region's
	// replicas, whose Region is that region. Removing the region deletes
	// the password.
	ReadOnlyRegionID *string `json:"read_only_region_id,omitempty"`
}

// Create creates a password. Its response carries the plain text
// (PlainText), which no later Get or List shows.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords
func (s *PasswordsService) Create(ctx context.Context, p *CreatePasswordParams) (*Password, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	pw := new(Password)
	return orNil(pw, s.client.post(ctx, passwordsPath(p.Organization, p.Database, p.Branch), p, pw))
}

// Get returns a password, without its plain text.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}
func (s *PasswordsService) Get(ctx context.Context, p *GetPasswordParams) (*Password, error) {
	return callOn[Password](ctx, s.client, "GET", p, "", nil, nil)
}

// UpdatePasswordParams renames a password or changes the addresses allowed
// to use it; nil fields are left as they are.
type UpdatePasswordParams struct {
	Organization string  `json:"-" url:"-"`
	Database     string  `json:"-" url:"-"`
	Branch       string  `json:"-" url:"-"`
	ID           string  `json:"-" url:"-"`
	Name         *string `json:"name,omitempty"`
	// CIDRs replace the allowed addresses; an empty, non-nil list allows
	// any address again.
	CIDRs *[]string `json:"cidrs,omitempty"`
}

// Update renames a password or changes the addresses allowed to use it.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}
func (s *PasswordsService) Update(ctx context.Context, p *UpdatePasswordParams) (*Password, error) {
	p = orZero(p)
	gp := &GetPasswordParams{p.Organization, p.Database, p.Branch, p.ID}
	return callOn[Password](ctx, s.client, "PATCH", gp, "", nil, p)
}

// DeletePasswordParams names the password to delete.
type DeletePasswordParams = GetPasswordParams

// Delete deletes a password: connections can no longer use it.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}
func (s *PasswordsService) Delete(ctx context.Context, p *DeletePasswordParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path(""), nil)
}

// RenewPasswordParams names the password to renew.
type RenewPasswordParams = GetPasswordParams

// Renew moves a password's expiry to now plus its ttl. Passwords without a
// ttl, and expired ones, are refused with [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}/renew
func (s *PasswordsService) Renew(ctx context.Context, p *RenewPasswordParams) (*Password, error) {
	return callOn[Password](ctx, s.client, "POST", p, "/renew", nil, nil)
}
