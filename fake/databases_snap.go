package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// The snapshot of databases. Their branches, backups, deploy requests,
// webhooks, IP restrictions, maintenance windows, workflows and schema
// recommendations are in branches_snap.go, backups_snap.go,
// deployrequests_snap.go, webhooks_snap.go, iprestrictions_snap.go,
// maintenance_snap.go, workflows_snap.go and schemarecommendations_snap.go.

type dbSnap struct {
	stampsSnap
	Organization string                `json:"organization"`
	Name         string                `json:"name"`
	Region       string                `json:"region"` // slug
	Kind         platform.DatabaseKind `json:"kind"`
	ClusterSize  string                `json:"cluster_size"`
	NonHA        bool                  `json:"non_ha,omitempty"`
	// Replicas is read from the snapshots of earlier fakes, which kept
	// what create_database was given and modelled the database with the
	// replicas a production branch includes whatever it was: it is
	// checked and ignored, and never written.
	Replicas int                    `json:"replicas,omitempty"`
	State    platform.DatabaseState `json:"state"`
	Deleted  bool                   `json:"deleted,omitempty"`
	Notes    string                 `json:"notes"`

	RequireApproval      bool    `json:"require_approval"`
	RestrictBranchRegion bool    `json:"restrict_branch_region"`
	AllowDataBranching   bool    `json:"allow_data_branching"`
	ForeignKeys          bool    `json:"foreign_keys"`
	InsightsRawQueries   bool    `json:"insights_raw_queries"`
	DeletionProtected    bool    `json:"deletion_protected"`
	ProdWebConsole       bool    `json:"production_web_console"`
	AutomaticMigrations  *bool   `json:"automatic_migrations"`
	MigrationFramework   *string `json:"migration_framework"`
	MigrationTable       *string `json:"migration_table"`
	DefaultBranch        string  `json:"default_branch"`

	Backups        []backupSnap  `json:"backups"`
	BackupPolicies []policySnap  `json:"backup_policies"`
	DeployRequests []drSnap      `json:"deploy_requests"`
	LastDR         int           `json:"last_deploy_request"`
	DeployQueue    []int         `json:"deploy_queue"` // deploy request numbers
	Webhooks       []webhookSnap `json:"webhooks"`

	IPRestrictions     []ipRestrictionSnap `json:"ip_restrictions"`
	MaintenanceWindows []windowSnap        `json:"maintenance_windows"`
	Workflows          []workflowSnap      `json:"workflows"`

	Recommendations []recSnap                         `json:"schema_recommendations,omitempty"`
	Throttle        []platform.ThrottlerConfiguration `json:"throttle,omitempty"`
}

func (sv *saver) databases() []dbSnap {
	var out []dbSnap
	for _, db := range listOrder(sv.dbSet) {
		ds := dbSnap{
			stampsSnap: saveStamps(db.stamps), Organization: db.org.name, Name: db.name,
			Region: db.region.slug, Kind: db.kind, ClusterSize: db.clusterSize, NonHA: db.nonHA,
			State: db.state, Deleted: db.deleted, Notes: db.notes,
			RequireApproval: db.requireApproval, RestrictBranchRegion: db.restrictBranchRegion,
			AllowDataBranching: db.allowDataBranching, ForeignKeys: db.foreignKeys,
			InsightsRawQueries: db.insightsRawQueries, DeletionProtected: db.deletionProtected,
			ProdWebConsole: db.prodWebConsole, AutomaticMigrations: db.automaticMigrations,
			MigrationFramework: db.migrationFramework, MigrationTable: db.migrationTable,
			DefaultBranch: db.defaultBranch, LastDR: db.lastDR,
			Backups: saveBackups(db), BackupPolicies: savePolicies(db),
			DeployRequests: saveDeployRequests(db),
			IPRestrictions: saveIPRestrictions(db), MaintenanceWindows: saveWindows(db),
			Workflows:       saveWorkflows(db),
			Recommendations: saveRecommendations(db), Throttle: db.ratiosSet(),
		}
		for _, dr := range db.deployQueue {
			ds.DeployQueue = append(ds.DeployQueue, dr.number)
		}
		ds.Webhooks = saveWebhooks(db)
		out = append(out, ds)
	}
	return out
}

// validate checks what the API checks of a database in region (nil when
// unknown, which the caller reports), and its counters.
func (ds *dbSnap) validate(region *regionRec) error {
	kind := snapOneOf(ds.Kind, "mysql or postgresql", platform.KindMySQL, platform.KindPostgreSQL)
	state := snapOneOf(ds.State, "a database state",
		platform.DatabasePending, platform.DatabaseImporting, platform.DatabaseSleepInProgress, platform.DatabaseSleeping,
		platform.DatabaseAwakening, platform.DatabaseImportReady, platform.DatabaseReady)
	var size error
	if kind == nil && region != nil {
		size = snapClusterSize(ds.ClusterSize, newClusterScope(ds.Kind, region), false)
	}
	errs := []error{
		at(snapName(ds.Name), "name"), at(kind, "kind"), at(state, "state"), at(size, "cluster_size"),
		at(snapNonNegative(ds.Replicas), "replicas"), at(snapName(ds.DefaultBranch), "default_branch"),
		at(snapCounter(ds.LastDR), "last_deploy_request"),
	}
	for i, hs := range ds.Webhooks {
		errs = append(errs, at(snapNonNegative(hs.Failures), "webhooks[%d].failures", i))
	}
	return firstErr(errs...)
}

// loadDatabases creates the databases; loadDatabaseContents fills them
// once their branches exist.
func (ld *loader) loadDatabases(list []dbSnap) error {
	for i, ds := range list {
		if err := ld.loadDatabase(ds); err != nil {
			return at(err, "databases[%d]", i)
		}
	}
	return nil
}

// loadDatabase creates a database.
func (ld *loader) loadDatabase(ds dbSnap) error {
	if err := unique(ld.dbs, ds.ID, "database"); err != nil {
		return at(err, "id")
	}
	region := regionBySlug(ds.Region)
	if region != nil {
		ds.ClusterSize = snapPostgresSize(ds.ClusterSize, ds.Kind, region)
	}
	if err := ds.validate(region); err != nil {
		return err
	}
	org := ld.w.orgs[ds.Organization]
	if org == nil {
		return at(fmt.Errorf("organization %q is not in the snapshot", ds.Organization), "organization")
	}
	if region == nil {
		return at(fmt.Errorf("unknown region %q", ds.Region), "region")
	}
	db := &dbRec{
		stamps: ds.load(), org: org, name: ds.Name, region: region, kind: ds.Kind,
		clusterSize: ds.ClusterSize, nonHA: ds.NonHA, state: ds.State, deleted: ds.Deleted, notes: ds.Notes,
		requireApproval: ds.RequireApproval, restrictBranchRegion: ds.RestrictBranchRegion,
		allowDataBranching: ds.AllowDataBranching, foreignKeys: ds.ForeignKeys,
		insightsRawQueries: ds.InsightsRawQueries, deletionProtected: ds.DeletionProtected,
		prodWebConsole: ds.ProdWebConsole, automaticMigrations: ds.AutomaticMigrations,
		migrationFramework: ds.MigrationFramework, migrationTable: ds.MigrationTable,
		defaultBranch: ds.DefaultBranch, lastDR: ds.LastDR,
	}
	if ds.Throttle != nil {
		db.extras().throttle = ds.Throttle
	}
	ld.dbs[db.id] = db
	if !db.deleted {
		if org.dbByName[db.name] != nil {
			return at(fmt.Errorf("%q appears twice in %s", db.name, org.name), "name")
		}
		org.dbs.Add(db)
		org.dbByName[db.name] = db
	}
	return nil
}

// loadDatabaseContents loads the backups, policies, deploy requests,
// webhooks, IP restrictions, maintenance windows and workflows of each
// database.
func (ld *loader) loadDatabaseContents(list []dbSnap) error {
	for i, ds := range list {
		if err := ld.loadDatabaseContent(ds); err != nil {
			return at(err, "databases[%d]", i)
		}
	}
	return nil
}

// loadDatabaseContent loads what a database holds.
func (ld *loader) loadDatabaseContent(ds dbSnap) error {
	db := ld.dbs[ds.ID]
	if !db.deleted && db.branch(db.defaultBranch) == nil {
		// It names a branch when it is set, and follows the branch's
		// renames; the default branch cannot be deleted.
		return at(fmt.Errorf("%q is not a branch of database %s", db.defaultBranch, db.id), "default_branch")
	}
	policies, err := ld.loadPolicies(db, ds.BackupPolicies)
	if err == nil {
		err = ld.loadBackups(db, ds.Backups, policies)
	}
	if err == nil {
		err = ld.loadDeployRequests(db, ds.DeployRequests, ds.DeployQueue)
	}
	if err == nil {
		err = ld.loadIPRestrictions(db, ds.IPRestrictions)
	}
	if err == nil {
		err = ld.loadWindows(db, ds.MaintenanceWindows)
	}
	if err == nil {
		err = ld.loadWorkflows(db, ds.Workflows)
	}
	if err == nil {
		err = ld.loadRecommendations(db, ds.Recommendations)
	}
	if err == nil {
		err = ld.loadWebhooks(db, ds.Webhooks)
	}
	if err != nil {
		return named(err, "database %s", db.id)
	}
	return nil
}
