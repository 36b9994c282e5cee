package platform

import (
	"context"
	"iter"
)

// IPRestriction is an entry of a PostgreSQL database's IP allowlist: the
// IPv4 ranges allowed to connect, optionally only to one schema or as one
// role. It applies to every branch of the database.
type IPRestriction struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Schema is the schema the entry restricts; "" for every schema.
	Schema string `json:"schema"`
	// Role is the PostgreSQL role the entry restricts (a role's
	// BaseUsername, not its Name); "" for every role.
	Role  string   `json:"role"`
	CIDRs []string `json:"cidrs"`
	// Description is nil when the entry has none.
	Description *string    `json:"description"`
	CreatedAt   Timestamp  `json:"created_at"`
	UpdatedAt   Timestamp  `json:"updated_at"`
	DeletedAt   *Timestamp `json:"deleted_at"`
	Actor       Actor      `json:"actor"`
}

// IPRestrictionsService manages the IP allowlists of PostgreSQL databases.
type IPRestrictionsService service

// GetIPRestrictionParams names an IP restriction entry of a database.
type GetIPRestrictionParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// ID is the entry's ID.
	ID string `json:"-" url:"-"`
}

func (p *GetIPRestrictionParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "id", p.ID)
}

func (p *GetIPRestrictionParams) path(suffix string) string {
	return ipRestrictionsPath(p.Organization, p.Database) + pathf("/%s", p.ID) + suffix
}

// ipRestrictionsPath is the collection path of a database's IP
// restriction entries.
func ipRestrictionsPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/cidrs", org, db)
}

// ListIPRestrictionsParams selects a page of a database's IP restriction
// entries.
type ListIPRestrictionsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ListParams
}

// List returns a page of a database's IP restriction entries.
//
// API: GET /v1/organizations/{organization}/databases/{database}/cidrs
func (s *IPRestrictionsService) List(ctx context.Context, p *ListIPRestrictionsParams) (*Page[IPRestriction], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[IPRestriction](ctx, s.client, ipRestrictionsPath(p.Organization, p.Database), p)
}

// All ranges over every IP restriction entry of a database.
func (s *IPRestrictionsService) All(ctx context.Context, p *ListIPRestrictionsParams) iter.Seq2[*IPRestriction, error] {
	return allOf(ctx, p, s.List)
}

// CreateIPRestrictionParams describes a new IP restriction entry.
type CreateIPRestrictionParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// CIDRs are IPv4 addresses or ranges ("10.0.0.0/8", "192.0.2.1"); at
	// least one.
	CIDRs []string `json:"cidrs"`
	// Schema limits the entry to one schema; every schema when nil.
	Schema *string `json:"schema,omitempty"`
	// Role limits the entry to one PostgreSQL role (a role's
	// BaseUsername); every role when nil.
	Role        *string `json:"role,omitempty"`
	Description *string `json:"description,omitempty"`
}

// Create adds an entry to a database's IP allowlist.
//
// API: POST /v1/organizations/{organization}/databases/{database}/cidrs
func (s *IPRestrictionsService) Create(ctx context.Context, p *CreateIPRestrictionParams) (*IPRestriction, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	r := new(IPRestriction)
	return orNil(r, s.client.post(ctx, ipRestrictionsPath(p.Organization, p.Database), p, r))
}

// Get returns an IP restriction entry.
//
// API: GET /v1/organizations/{organization}/databases/{database}/cidrs/{id}
func (s *IPRestrictionsService) Get(ctx context.Context, p *GetIPRestrictionParams) (*IPRestriction, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	r := new(IPRestriction)
	return orNil(r, s.client.get(ctx, p.path(""), nil, r))
}

// UpdateIPRestrictionParams changes an IP restriction entry; nil fields
// are left as they are, and "" clears Schema, Role or Description.
type UpdateIPRestrictionParams struct {
	Organization string    `json:"-" url:"-"`
	Database     string    `json:"-" url:"-"`
	ID           string    `json:"-" url:"-"`
	CIDRs        *[]string `json:"cidrs,omitempty"`
	Schema       *string   `json:"schema,omitempty"`
	Role         *string   `json:"role,omitempty"`
	Description  *string   `json:"description,omitempty"`
}

// Update changes an IP restriction entry.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/cidrs/{id}
func (s *IPRestrictionsService) Update(ctx context.Context, p *UpdateIPRestrictionParams) (*IPRestriction, error) {
	p = orZero(p)
	gp := &GetIPRestrictionParams{p.Organization, p.Database, p.ID}
	if err := gp.check(); err != nil {
		return nil, err
	}
	r := new(IPRestriction)
	return orNil(r, s.client.patch(ctx, gp.path(""), p, r))
}

// DeleteIPRestrictionParams names the entry to delete.
type DeleteIPRestrictionParams = GetIPRestrictionParams

// Delete removes an entry from a database's IP allowlist, and so from
// every branch of the database.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/cidrs/{id}
func (s *IPRestrictionsService) Delete(ctx context.Context, p *DeleteIPRestrictionParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path(""), nil)
}
