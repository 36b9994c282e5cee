package platform

import "context"

// ThrottlerConfigurations are the throttler ratios of a database, or of
// one deploy request's deployment: how much the schema migrations of each
// keyspace hold back to spare the production load.
type ThrottlerConfigurations struct {
	// Keyspaces are the keyspaces a ratio may be set for.
	Keyspaces []string `json:"keyspaces"`
	// Configurable is the database or the deploy request.
	Configurable ThrottlerConfigurable `json:"configurable"`
	// Configurations hold each eligible keyspace's ratio.
	Configurations []ThrottlerConfiguration `json:"configurations"`
}

// ThrottlerConfigurable is the resource throttler ratios belong to.
type ThrottlerConfigurable struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
	DeletedAt *Timestamp `json:"deleted_at"`
}

// ThrottlerConfiguration is the throttler ratio of one keyspace: 0 (no
// throttling) to [MaxThrottlerRatio] (migrations slowed down the most).
type ThrottlerConfiguration struct {
	KeyspaceName string `json:"keyspace_name"`
	Ratio        int    `json:"ratio"`
}

// MaxThrottlerRatio is the largest throttler ratio.
const MaxThrottlerRatio = 95

// ThrottlersService reads and sets the throttler ratios of databases and
// deploy requests.
type ThrottlersService service

// GetDatabaseThrottlerParams names a database.
type GetDatabaseThrottlerParams = GetDatabaseParams

// UpdateThrottlerFields are the fields of a throttler update: Ratio sets
// every eligible keyspace's ratio, then Configurations set the keyspaces
// they name. A keyspace neither names keeps its ratio.
type UpdateThrottlerFields struct {
	Ratio          *int                     `json:"ratio,omitempty"`
	Configurations []ThrottlerConfiguration `json:"configurations,omitempty"`
}

// UpdateDatabaseThrottlerParams sets a database's throttler ratios.
type UpdateDatabaseThrottlerParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	UpdateThrottlerFields
}

func databaseThrottlerPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/throttler", org, db)
}

// GetDatabase returns a database's throttler ratios, which the deployments
// of its deploy requests start from.
//
// API: GET /v1/organizations/{organization}/databases/{database}/throttler
func (s *ThrottlersService) GetDatabase(ctx context.Context, p *GetDatabaseThrottlerParams) (*ThrottlerConfigurations, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	tc := new(ThrottlerConfigurations)
	return orNil(tc, s.client.get(ctx, databaseThrottlerPath(p.Organization, p.Database), nil, tc))
}

// UpdateDatabase sets a database's throttler ratios.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/throttler
func (s *ThrottlersService) UpdateDatabase(ctx context.Context, p *UpdateDatabaseThrottlerParams) (*ThrottlerConfigurations, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	tc := new(ThrottlerConfigurations)
	return orNil(tc, s.client.patch(ctx, databaseThrottlerPath(p.Organization, p.Database), p, tc))
}

// GetDeployRequestThrottlerParams names a deploy request.
type GetDeployRequestThrottlerParams = DeployRequestParams

// UpdateDeployRequestThrottlerParams sets a deploy request's throttler
// ratios.
type UpdateDeployRequestThrottlerParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
	UpdateThrottlerFields
}

// GetDeployRequest returns the throttler ratios of a deploy request's
// deployment: its own where set, else its database's.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/throttler
func (s *ThrottlersService) GetDeployRequest(ctx context.Context, p *GetDeployRequestThrottlerParams) (*ThrottlerConfigurations, error) {
	return callOn[ThrottlerConfigurations](ctx, s.client, "GET", p, "/throttler", nil, nil)
}

// UpdateDeployRequest sets the throttler ratios of a deploy request's
// deployment, until it finishes.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/throttler
func (s *ThrottlersService) UpdateDeployRequest(ctx context.Context, p *UpdateDeployRequestThrottlerParams) (*ThrottlerConfigurations, error) {
	p = orZero(p)
	dp := &DeployRequestParams{Organization: p.Organization, Database: p.Database, Number: p.Number}
	return callOn[ThrottlerConfigurations](ctx, s.client, "PATCH", dp, "/throttler", nil, p)
}
