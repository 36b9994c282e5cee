package platform

import (
	"context"
	"fmt"
	"iter"
)

// BranchState is the provisioning state of a branch.
type BranchState string

// The branch states.
const (
	BranchPending         BranchState = "pending"
	BranchSleepInProgress BranchState = "sleep_in_progress"
	BranchSleeping        BranchState = "sleeping"
	BranchAwakening       BranchState = "awakening"
	BranchReady           BranchState = "ready"
)

// BranchRef is the short form of a branch inside other objects.
type BranchRef struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
	DeletedAt *Timestamp `json:"deleted_at"`
}

// Branch is a branch of a database: an isolated copy of its schema with its
// own servers. Production branches serve the application; development
// branches carry schema changes that deploy requests bring into production.
type Branch struct {
	ID                                string         `json:"id"`
	Type                              string         `json:"type"`
	Name                              string         `json:"name"`
	Kind                              DatabaseKind   `json:"kind"`
	State                             BranchState    `json:"state"`
	Ready                             bool           `json:"ready"`
	SchemaReady                       bool           `json:"schema_ready"`
	Production                        bool           `json:"production"`
	SafeMigrations                    bool           `json:"safe_migrations"`
	DeletionProtected                 bool           `json:"deletion_protected"`
	Sharded                           bool           `json:"sharded"`
	ShardCount                        int            `json:"shard_count"`
	KeyspaceCount                     int            `json:"keyspace_count"`
	StaleSchema                       bool           `json:"stale_schema"`
	Metal                             bool           `json:"metal"`
	ParentBranch                      *string        `json:"parent_branch"`
	RestoredFromBranch                *BranchRef     `json:"restored_from_branch"`
	InitialRestoreID                  *string        `json:"initial_restore_id"`
	Actor                             *Actor         `json:"actor"`
	Region                            Region         `json:"region"`
	ClusterName                       string         `json:"cluster_name"`
	ClusterIOPS                       *int           `json:"cluster_iops"`
	AccessHostURL                     string         `json:"access_host_url"`
	MySQLAddress                      string         `json:"mysql_address"`
	MySQLEdgeAddress                  string         `json:"mysql_edge_address"`
	MySQLProviderAddress              string         `json:"mysql_provider_address"`
	PrivateEdgeConnectivity           bool           `json:"private_edge_connectivity"`
	HasReplicas                       bool           `json:"has_replicas"`
	HasReadOnlyReplicas               bool           `json:"has_read_only_replicas"`
	DirectVTGate                      bool           `json:"direct_vtgate"`
	VTGateSize                        string         `json:"vtgate_size"`
	VTGateName                        *string        `json:"vtgate_name"`
	VTGateCount                       int            `json:"vtgate_count"`
	VTGateAutoscaling                 bool           `json:"vtgate_autoscaling"`
	VTGateMaxCount                    *int           `json:"vtgate_max_count"`
	VTGateTargetCPUUtilization        *int           `json:"vtgate_target_cpu_utilization"`
	VTGateOptions                     map[string]any `json:"vtgate_options"`
	MultipleAdminsRequiredForDemotion bool           `json:"multiple_admins_required_for_demotion"`
	HTMLURL                           string         `json:"html_url"`
	URL                               string         `json:"url"`
	CreatedAt                         Timestamp      `json:"created_at"`
	UpdatedAt                         Timestamp      `json:"updated_at"`
	DeletedAt                         *Timestamp     `json:"deleted_at"`
	SchemaLastUpdatedAt               *Timestamp     `json:"schema_last_updated_at"`
	RestoreChecklistCompletedAt       *Timestamp     `json:"restore_checklist_completed_at"`

	// ClusterDisplayName is the cluster size's display name ("PS-10", a
	// PostgreSQL size's without its provider and architecture),
	// ClusterArchitecture its processor architecture (nil when the size
	// names none), and Replicas the branch's replica count.
	ClusterDisplayName  string  `json:"cluster_display_name"`
	ClusterArchitecture *string `json:"cluster_architecture"`
	Replicas            int     `json:"replicas"`
}

// BranchSchema is a branch's schema: its tables, ordered by keyspace and
// name.
type BranchSchema struct {
	// Tables are the schema's tables.
	Tables []*TableSchema `json:"data"`
}

// TableSchema is one table of a branch's schema.
type TableSchema struct {
	// Name is the table's name.
	Name string `json:"name"`
	// Raw is the table's CREATE TABLE statement.
	Raw string `json:"raw"`
	// HTML is Raw marked up for display.
	HTML string `json:"html"`
}

// LintSubjectType is what a lint error is about.
type LintSubjectType string

// The subjects of lint errors.
const (
	LintSubjectTable        LintSubjectType = "table"
	LintSubjectVSchema      LintSubjectType = "vschema"
	LintSubjectRoutingRules LintSubjectType = "routing_rules"
)

// LintError is a problem the schema linter found.
type LintError struct {
	// Type is always "SchemaLintError".
	Type string `json:"type"`
	// LintError is the error's code, such as [LintNoUniqueKey].
	LintError                string          `json:"lint_error"`
	SubjectType              LintSubjectType `json:"subject_type"`
	KeyspaceName             string          `json:"keyspace_name"`
	TableName                string          `json:"table_name"`
	ErrorDescription         string          `json:"error_description"`
	DocsURL                  string          `json:"docs_url"`
	ColumnName               string          `json:"column_name"`
	ForeignKeyColumnNames    []string        `json:"foreign_key_column_names"`
	AutoIncrementColumnNames []string        `json:"auto_increment_column_names"`
	CharsetName              string          `json:"charset_name"`
	EngineName               string          `json:"engine_name"`
	VindexName               string          `json:"vindex_name"`
	JSONPath                 string          `json:"json_path"`
	CheckConstraintName      string          `json:"check_constraint_name"`
	EnumValue                string          `json:"enum_value"`
	PartitioningType         string          `json:"partitioning_type"`
	PartitionName            string          `json:"partition_name"`
	// URLHash identifies the error (its code and subject) in links to it;
	// the same error has the same hash on every lint.
	URLHash string `json:"url_hash"`
}

// The lint error codes.
const (
	// LintNoUniqueKey: a table has neither a primary key nor a unique key.
	LintNoUniqueKey = "NO_UNIQUE_KEY"
)

// BranchesService manages the branches of databases, their schemas and
// their safe-migrations setting.
type BranchesService service

// BranchParams names a branch.
type BranchParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
}

func (p *BranchParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch)
}

func (p *BranchParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s", p.Organization, p.Database, p.Branch) + suffix
}

// branchesPath is the collection path of a database's branches.
func branchesPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/branches", org, db)
}

// Order is the order of a list by creation time.
type Order string

// The list orders.
const (
	OrderAsc  Order = "asc"
	OrderDesc Order = "desc"
)

// check refuses an order the API does not know, before any request is sent.
func (o Order) check() error {
	switch o {
	case "", OrderAsc, OrderDesc:
		return nil
	}
	return &ArgError{Arg: "order", Reason: fmt.Sprintf("%q is not asc or desc", string(o))}
}

// ListBranchesParams selects a page of a database's branches.
type ListBranchesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// Query filters branches by name.
	Query string `json:"-" url:"q,omitempty"`
	// Production, when set, keeps only production (true) or development
	// (false) branches.
	Production *bool `json:"-" url:"production,omitempty"`
	// SafeMigrations, when set, keeps only branches with safe migrations on
	// (true) or off (false).
	SafeMigrations *bool `json:"-" url:"safe_migrations,omitempty"`
	// Order is by creation time; ascending when empty.
	Order Order `json:"-" url:"order,omitempty"`
	ListParams
}

// List returns a page of a database's branches, oldest first unless
// p.Order is [OrderDesc], with the total count.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches
func (s *BranchesService) List(ctx context.Context, p *ListBranchesParams) (*Page[Branch], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	if err := p.Order.check(); err != nil {
		return nil, err
	}
	return listPage[Branch](ctx, s.client, branchesPath(p.Organization, p.Database), p)
}

// All ranges over every branch of a database that matches p.
func (s *BranchesService) All(ctx context.Context, p *ListBranchesParams) iter.Seq2[*Branch, error] {
	return allOf(ctx, p, s.List)
}

// CreateBranchParams describes a new branch.
type CreateBranchParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// Name is lowercase letters, digits and dashes, unique in the database.
	Name string `json:"name"`
	// ParentBranch is the branch whose schema the new one copies; the
	// database's default branch when empty.
	ParentBranch string `json:"parent_branch,omitempty"`
	// BackupID restores a successful backup's schema into the new branch
	// instead of copying the parent's.
	BackupID string `json:"backup_id,omitempty"`
	// Region is a region slug; the database's region when empty.
	Region string `json:"region,omitempty"`
	// ClusterSize is the cluster size SKU of the new branch's keyspaces
	// (DevClusterSize, or another size for development branches); the
	// parent's sizes when empty. Required with BackupID.
	ClusterSize string `json:"cluster_size,omitempty"`
	// ClusterName is a PostgreSQL branch's cluster size under the name the
	// service's own clients send it ("PS_20_AWS_X86", or a plain "PS_20":
	// x86 on the provider of the branch's region): the same as
	// ClusterSize, which a PostgreSQL branch also takes (both given must
	// agree). A MySQL database refuses it.
	ClusterName string `json:"cluster_name,omitempty"`
	// DeletionProtected, when true, makes Delete refuse the branch until
	// it is turned off.
	DeletionProtected *bool `json:"deletion_protected,omitempty"`
	// SeedData, set to SeedLastSuccessfulBackup, restores the parent
	// branch's last successful backup into the new branch, as BackupID
	// does with a backup named by ID (with the same permissions); the
	// database must allow data branching. ClusterSize is optional then:
	// the parent's sizes when empty.
	SeedData BranchSeedData `json:"seed_data,omitempty"`
	// KeyspaceClusterSizes sizes the keyspaces of a MySQL backup restore
	// (BackupID or SeedData) one by one; a keyspace it does not name runs
	// at ClusterSize. With BackupID, ClusterSize may be left empty when
	// it names every keyspace of the backup.
	KeyspaceClusterSizes []KeyspaceClusterSize `json:"keyspace_cluster_sizes,omitempty"`
	// MajorVersion is a PostgreSQL branch's major version ("17"); the
	// parent's when empty. A branch restored from a backup runs the
	// backed-up branch's version and ignores it. A MySQL database
	// refuses it.
	MajorVersion string `json:"major_version,omitempty"`
	// Storage bounds a PostgreSQL branch's storage (the minimum it
	// starts with, the maximum autoscaling may reach); the defaults when
	// nil. A MySQL database refuses it.
	Storage *StorageParams `json:"storage,omitempty"`
	// RestorePoint restores the parent branch as it was at this time
	// (point-in-time recovery) into the new branch, instead of copying it
	// as it is now: PostgreSQL databases only, not with BackupID or
	// SeedData, with the same permissions as restoring a backup of the
	// parent. The time must be within the parent's recovery window (from
	// its creation, and at most a retention period back, to now); the
	// branch's RestoredFromBranch names the parent.
	RestorePoint *Timestamp `json:"restore_point,omitempty"`
	// CreateDatabaseIfMissing, when true, creates the database (of Kind,
	// which it requires, with its default branch main) before the branch
	// if none of that name exists; the caller then needs the permission
	// to create databases. When the database exists it changes nothing.
	CreateDatabaseIfMissing *bool `json:"create_database_if_missing,omitempty"`
	// Kind is the engine of the branch: required with
	// CreateDatabaseIfMissing, as the engine of the database it may
	// create; when the database exists, it must be that database's.
	Kind DatabaseKind `json:"kind,omitempty"`
}

// BranchSeedData is what a new branch is seeded with.
type BranchSeedData string

// SeedLastSuccessfulBackup seeds a new branch with its parent's last
// successful backup.
const SeedLastSuccessfulBackup BranchSeedData = "last_successful_backup"

// KeyspaceClusterSize is the cluster size of one keyspace of a backup
// restore.
type KeyspaceClusterSize struct {
	KeyspaceName string `json:"keyspace_name"`
	ClusterSize  string `json:"cluster_size"`
}

// Create creates a branch. It starts not ready; [BranchesService.Wait]
// waits until it is.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches
func (s *BranchesService) Create(ctx context.Context, p *CreateBranchParams) (*Branch, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	b := new(Branch)
	return orNil(b, s.client.post(ctx, branchesPath(p.Organization, p.Database), p, b))
}

// GetBranchParams names a branch.
type GetBranchParams = BranchParams

// Get returns a branch.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}
func (s *BranchesService) Get(ctx context.Context, p *GetBranchParams) (*Branch, error) {
	return callOn[Branch](ctx, s.client, "GET", p, "", nil, nil)
}

// UpdateBranchParams renames a branch or changes its deletion protection.
type UpdateBranchParams struct {
	Organization      string  `json:"-" url:"-"`
	Database          string  `json:"-" url:"-"`
	Branch            string  `json:"-" url:"-"`
	NewName           *string `json:"new_name,omitempty"`
	DeletionProtected *bool   `json:"deletion_protected,omitempty"`
}

// Update renames a branch or changes its deletion protection.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}
func (s *BranchesService) Update(ctx context.Context, p *UpdateBranchParams) (*Branch, error) {
	p = orZero(p)
	bp := &BranchParams{p.Organization, p.Database, p.Branch}
	return callOn[Branch](ctx, s.client, "PATCH", bp, "", nil, p)
}

// DeleteBranchParams names the branch to delete.
type DeleteBranchParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// DeleteDescendants deletes the branches created from this one, and
	// theirs, along with it.
	DeleteDescendants bool `json:"-" url:"delete_descendants,omitempty"`
}

// Delete deletes a branch. The database's default branch, a
// deletion-protected branch and a production branch with open deploy
// requests are refused with [ErrUnprocessable]; with DeleteDescendants, so
// is the whole deletion when any descendant is such a branch.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}
func (s *BranchesService) Delete(ctx context.Context, p *DeleteBranchParams) error {
	p = orZero(p)
	bp := &BranchParams{p.Organization, p.Database, p.Branch}
	if err := bp.check(); err != nil {
		return err
	}
	return s.client.del(ctx, bp.path(""), p)
}

// PromoteBranchParams names the branch to promote.
type PromoteBranchParams = BranchParams

// Promote makes a development branch a production branch.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/promote
func (s *BranchesService) Promote(ctx context.Context, p *PromoteBranchParams) (*Branch, error) {
	return callOn[Branch](ctx, s.client, "POST", p, "/promote", nil, nil)
}

// DemoteBranchParams names the branch to demote.
type DemoteBranchParams = BranchParams

// Demote makes a production branch a development branch.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/demote
func (s *BranchesService) Demote(ctx context.Context, p *DemoteBranchParams) (*Branch, error) {
	return callOn[Branch](ctx, s.client, "POST", p, "/demote", nil, nil)
}

// EnableSafeMigrationsParams names the branch whose safe migrations to
// turn on.
type EnableSafeMigrationsParams = BranchParams

// EnableSafeMigrations turns safe migrations on: the branch then refuses
// direct DDL and takes schema changes through deploy requests only. Only a
// ready production branch can have them; it is refused with
// [ErrUnprocessable] on any other branch, and while the schema has lint
// errors.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/safe-migrations
func (s *BranchesService) EnableSafeMigrations(ctx context.Context, p *EnableSafeMigrationsParams) (*Branch, error) {
	return callOn[Branch](ctx, s.client, "POST", p, "/safe-migrations", nil, nil)
}

// UpdateSafeMigrationsParams sets safe migrations on or off.
type UpdateSafeMigrationsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// SafeMigrations is the new setting; it is always sent.
	SafeMigrations bool `json:"safe_migrations"`
}

// UpdateSafeMigrations sets safe migrations on or off, with the rules of
// EnableSafeMigrations and DisableSafeMigrations.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/safe-migrations
func (s *BranchesService) UpdateSafeMigrations(ctx context.Context, p *UpdateSafeMigrationsParams) (*Branch, error) {
	p = orZero(p)
	bp := &BranchParams{p.Organization, p.Database, p.Branch}
	return callOn[Branch](ctx, s.client, "PUT", bp, "/safe-migrations", nil, p)
}

// DisableSafeMigrationsParams names the branch whose safe migrations to
// turn off.
type DisableSafeMigrationsParams = BranchParams

// DisableSafeMigrations turns safe migrations off; on a branch without
// them it changes nothing.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/safe-migrations
func (s *BranchesService) DisableSafeMigrations(ctx context.Context, p *DisableSafeMigrationsParams) (*Branch, error) {
	return callOn[Branch](ctx, s.client, "DELETE", p, "/safe-migrations", nil, nil)
}

// GetBranchSchemaParams names a branch, and optionally one part of its
// schema.
type GetBranchSchemaParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Keyspace limits the schema to one keyspace (MySQL databases).
	Keyspace string `json:"-" url:"keyspace,omitempty"`
	// Namespace limits the schema to one catalog namespace, as
	// "<database>.<schema>" (PostgreSQL databases).
	Namespace string `json:"-" url:"namespace,omitempty"`
}

// GetSchema returns the tables of a branch's schema, ordered by keyspace and
// name.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/schema
func (s *BranchesService) GetSchema(ctx context.Context, p *GetBranchSchemaParams) (*BranchSchema, error) {
	p = orZero(p)
	bp := &BranchParams{p.Organization, p.Database, p.Branch}
	if err := bp.check(); err != nil {
		return nil, err
	}
	out := new(BranchSchema)
	return orNil(out, s.client.get(ctx, bp.path("/schema"), p, out))
}

// LintBranchSchemaParams selects a page of a branch's lint errors.
type LintBranchSchemaParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ListParams
}

// LintSchema returns a page of the lint errors of a branch's schema.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/schema/lint
func (s *BranchesService) LintSchema(ctx context.Context, p *LintBranchSchemaParams) (*Page[LintError], error) {
	p = orZero(p)
	bp := &BranchParams{p.Organization, p.Database, p.Branch}
	if err := bp.check(); err != nil {
		return nil, err
	}
	return listPage[LintError](ctx, s.client, bp.path("/schema/lint"), p)
}

// AllLintErrors ranges over every lint error of a branch's schema.
func (s *BranchesService) AllLintErrors(ctx context.Context, p *LintBranchSchemaParams) iter.Seq2[*LintError, error] {
	return allOf(ctx, p, s.LintSchema)
}

// Wait polls a branch until it is ready, and returns it.
func (s *BranchesService) Wait(ctx context.Context, p *GetBranchParams) (*Branch, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Branch, error) {
		return s.Get(ctx, p)
	}, func(b *Branch) (bool, error) {
		return b.Ready, nil
	})
}
