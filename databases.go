package platform

import (
	"context"
	"iter"
)

// DatabaseState is the provisioning state of a database.
type DatabaseState string

// The database states.
const (
	DatabasePending         DatabaseState = "pending"
	DatabaseImporting       DatabaseState = "importing"
	DatabaseSleepInProgress DatabaseState = "sleep_in_progress"
	DatabaseSleeping        DatabaseState = "sleeping"
	DatabaseAwakening       DatabaseState = "awakening"
	DatabaseImportReady     DatabaseState = "import_ready"
	DatabaseReady           DatabaseState = "ready"
)

// DatabaseKind is the engine of a database.
type DatabaseKind string

// The database kinds.
const (
	KindMySQL      DatabaseKind = "mysql"
	KindPostgreSQL DatabaseKind = "postgresql"
)

// Database is a database of an organization.
type Database struct {
	ID                                string        `json:"id"`
	Type                              string        `json:"type"`
	Name                              string        `json:"name"`
	URL                               string        `json:"url"`
	BranchesURL                       string        `json:"branches_url"`
	HTMLURL                           string        `json:"html_url"`
	State                             DatabaseState `json:"state"`
	Ready                             bool          `json:"ready"`
	Kind                              DatabaseKind  `json:"kind"`
	Plan                              string        `json:"plan"`
	Region                            Region        `json:"region"`
	BranchesCount                     int           `json:"branches_count"`
	DevelopmentBranchesCount          int           `json:"development_branches_count"`
	ProductionBranchesCount           int           `json:"production_branches_count"`
	OpenSchemaRecommendationsCount    int           `json:"open_schema_recommendations_count"`
	IssuesCount                       *int          `json:"issues_count"`
	MultipleAdminsRequiredForDeletion bool          `json:"multiple_admins_required_for_deletion"`
	AtBackupRestoreBranchesLimit      bool          `json:"at_backup_restore_branches_limit"`
	AtDevelopmentBranchUsageLimit     bool          `json:"at_development_branch_usage_limit"`
	Sharded                           bool          `json:"sharded"`
	DefaultBranch                     string        `json:"default_branch"`
	DefaultBranchShardCount           int           `json:"default_branch_shard_count"`
	DefaultBranchReadOnlyRegionsCount int           `json:"default_branch_read_only_regions_count"`
	DefaultBranchTableCount           int           `json:"default_branch_table_count"`
	RequireApprovalForDeploy          bool          `json:"require_approval_for_deploy"`
	DeletionProtected                 bool          `json:"deletion_protected"`
	Resizing                          bool          `json:"resizing"`
	ResizeQueued                      bool          `json:"resize_queued"`
	ConfigChanging                    bool          `json:"config_changing"`
	ConfigChangeQueued                bool          `json:"config_change_queued"`
	AllowDataBranching                bool          `json:"allow_data_branching"`
	ForeignKeysEnabled                bool          `json:"foreign_keys_enabled"`
	AutomaticMigrations               *bool         `json:"automatic_migrations"`
	RestrictBranchRegion              bool          `json:"restrict_branch_region"`
	PreferInstant                     bool          `json:"prefer_instant"`
	InsightsRawQueries                bool          `json:"insights_raw_queries"`
	InsightsEnabled                   bool          `json:"insights_enabled"`
	ProductionBranchWebConsole        bool          `json:"production_branch_web_console"`
	MigrationTableName                *string       `json:"migration_table_name"`
	MigrationFramework                *string       `json:"migration_framework"`
	DataImport                        *DataImport   `json:"data_import"`
	CreatedAt                         Timestamp     `json:"created_at"`
	UpdatedAt                         Timestamp     `json:"updated_at"`
	SchemaLastUpdatedAt               *Timestamp    `json:"schema_last_updated_at"`
	// Notes are the notes given at creation; "" for none.
	Notes string `json:"notes"`
}

// DatabasesService manages databases.
type DatabasesService service

// ListDatabasesParams selects a page of an organization's databases.
type ListDatabasesParams struct {
	Organization string `json:"-" url:"-"`
	// Query filters databases by name.
	Query string `json:"-" url:"q,omitempty"`
	ListParams
}

// List returns a page of an organization's databases, oldest first.
//
// API: GET /v1/organizations/{organization}/databases
func (s *DatabasesService) List(ctx context.Context, p *ListDatabasesParams) (*Page[Database], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[Database](ctx, s.client, pathf("v1/organizations/%s/databases", p.Organization), p)
}

// All ranges over every database of an organization that matches p.
func (s *DatabasesService) All(ctx context.Context, p *ListDatabasesParams) iter.Seq2[*Database, error] {
	return allOf(ctx, p, s.List)
}

// StorageParams bounds a PostgreSQL database's storage.
type StorageParams struct {
	MinimumStorageBytes *int64 `json:"minimum_storage_bytes,omitempty"`
	MaximumStorageBytes *int64 `json:"maximum_storage_bytes,omitempty"`
}

// CreateDatabaseParams describes a new database.
type CreateDatabaseParams struct {
	Organization string `json:"-" url:"-"`
	// Name is lowercase letters, digits and dashes, unique in the organization.
	Name string `json:"name"`
	// ClusterSize is the cluster size SKU ("PS_10"; a PostgreSQL one
	// "PS_10_AWS_X86", of the region's provider, or a plain "PS_10", x86
	// there); the service's default size when empty.
	ClusterSize string `json:"cluster_size,omitempty"`
	// Notes describe the database.
	Notes string `json:"notes,omitempty"`
	// Region is a region slug; the organization's default when empty.
	Region string `json:"region,omitempty"`
	// Replicas is the number of replicas (0 for no high availability).
	Replicas *int `json:"replicas,omitempty"`
	// Kind is the engine; mysql when empty.
	Kind DatabaseKind `json:"kind,omitempty"`
	// MajorVersion is the PostgreSQL major version.
	MajorVersion string         `json:"major_version,omitempty"`
	Storage      *StorageParams `json:"storage,omitempty"`
}

// Create creates a database. It starts in state pending; [DatabasesService.Wait]
// waits until it can be used.
//
// API: POST /v1/organizations/{organization}/databases
func (s *DatabasesService) Create(ctx context.Context, p *CreateDatabaseParams) (*Database, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	db := new(Database)
	return orNil(db, s.client.post(ctx, pathf("v1/organizations/%s/databases", p.Organization), p, db))
}

// GetDatabaseParams names a database.
type GetDatabaseParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
}

// Get returns a database.
//
// API: GET /v1/organizations/{organization}/databases/{database}
func (s *DatabasesService) Get(ctx context.Context, p *GetDatabaseParams) (*Database, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	db := new(Database)
	return orNil(db, s.client.get(ctx, pathf("v1/organizations/%s/databases/%s", p.Organization, p.Database), nil, db))
}

// UpdateDatabaseParams changes a database's settings; nil fields are left
// as they are.
type UpdateDatabaseParams struct {
	Organization               string  `json:"-" url:"-"`
	Database                   string  `json:"-" url:"-"`
	NewName                    *string `json:"new_name,omitempty"`
	AutomaticMigrations        *bool   `json:"automatic_migrations,omitempty"`
	MigrationFramework         *string `json:"migration_framework,omitempty"`
	MigrationTableName         *string `json:"migration_table_name,omitempty"`
	RequireApprovalForDeploy   *bool   `json:"require_approval_for_deploy,omitempty"`
	RestrictBranchRegion       *bool   `json:"restrict_branch_region,omitempty"`
	AllowDataBranching         *bool   `json:"allow_data_branching,omitempty"`
	AllowForeignKeyConstraints *bool   `json:"allow_foreign_key_constraints,omitempty"`
	InsightsRawQueries         *bool   `json:"insights_raw_queries,omitempty"`
	DeletionProtected          *bool   `json:"deletion_protected,omitempty"`
	ProductionBranchWebConsole *bool   `json:"production_branch_web_console,omitempty"`
	DefaultBranch              *string `json:"default_branch,omitempty"`
}

// Update changes a database's settings.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}
func (s *DatabasesService) Update(ctx context.Context, p *UpdateDatabaseParams) (*Database, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	db := new(Database)
	return orNil(db, s.client.patch(ctx, pathf("v1/organizations/%s/databases/%s", p.Organization, p.Database), p, db))
}

// DeleteDatabaseParams names the database to delete.
type DeleteDatabaseParams = GetDatabaseParams

// Delete deletes a database. A deletion-protected database is refused with
// [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/databases/{database}
func (s *DatabasesService) Delete(ctx context.Context, p *DeleteDatabaseParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return err
	}
	return s.client.del(ctx, pathf("v1/organizations/%s/databases/%s", p.Organization, p.Database), nil)
}

// ListDatabaseRegionsParams selects a page of the regions a database may use.
type ListDatabaseRegionsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ListParams
}

// ListRegions returns a page of the regions available to a database.
//
// API: GET /v1/organizations/{organization}/databases/{database}/regions
func (s *DatabasesService) ListRegions(ctx context.Context, p *ListDatabaseRegionsParams) (*Page[Region], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[Region](ctx, s.client, pathf("v1/organizations/%s/databases/%s/regions", p.Organization, p.Database), p)
}

// AllRegions ranges over every region available to a database.
func (s *DatabasesService) AllRegions(ctx context.Context, p *ListDatabaseRegionsParams) iter.Seq2[*Region, error] {
	return allOf(ctx, p, s.ListRegions)
}

// ReadOnlyRegion is a region serving reads of a database's default branch:
// one of its keyspaces replicates there (see
// [KeyspacesService.UpdateReadOnlyRegions]).
type ReadOnlyRegion struct {
	ID          string    `json:"id"`
	DisplayName string    `json:"display_name"`
	CreatedAt   Timestamp `json:"created_at"`
	UpdatedAt   Timestamp `json:"updated_at"`
	// ReadyAt is when the region started serving queries; nil before.
	ReadyAt *Timestamp `json:"ready_at"`
	Ready   bool       `json:"ready"`
	// Actor is who added the region.
	Actor  *Actor `json:"actor"`
	Region Region `json:"region"`
}

// ListReadOnlyRegionsParams selects a page of a database's read-only
// regions.
type ListReadOnlyRegionsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ListParams
}

// ListReadOnlyRegions returns a page of the read-only regions of a
// database's default branch: every region some keyspace of the branch
// replicates to, in the order they were added.
//
// API: GET /v1/organizations/{organization}/databases/{database}/read-only-regions
func (s *DatabasesService) ListReadOnlyRegions(ctx context.Context, p *ListReadOnlyRegionsParams) (*Page[ReadOnlyRegion], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[ReadOnlyRegion](ctx, s.client, pathf("v1/organizations/%s/databases/%s/read-only-regions", p.Organization, p.Database), p)
}

// AllReadOnlyRegions ranges over every read-only region of a database's
// default branch.
func (s *DatabasesService) AllReadOnlyRegions(ctx context.Context, p *ListReadOnlyRegionsParams) iter.Seq2[*ReadOnlyRegion, error] {
	return allOf(ctx, p, s.ListReadOnlyRegions)
}

// Wait polls a database until it is ready, and returns it. It returns
// early with ctx's error and the database as last polled, or with the
// error of a failed poll and no database.
func (s *DatabasesService) Wait(ctx context.Context, p *GetDatabaseParams) (*Database, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Database, error) {
		return s.Get(ctx, p)
	}, func(db *Database) (bool, error) {
		return db.Ready, nil
	})
}
