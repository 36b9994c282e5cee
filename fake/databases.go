package fake

import (
	"cmp"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// dbRec is a database.
type dbRec struct {
	stamps
	org         *orgRec
	name        string
	region      *regionRec
	kind        platform.DatabaseKind
	clusterSize string
	notes       string
	nonHA       bool // created with replicas 0: its production branches include none
	state       platform.DatabaseState
	deleted     bool

	requireApproval      bool
	restrictBranchRegion bool
	allowDataBranching   bool
	foreignKeys          bool
	insightsRawQueries   bool
	deletionProtected    bool
	prodWebConsole       bool
	automaticMigrations  *bool
	migrationFramework   *string
	migrationTable       *string

	defaultBranch string
	branchIdx     index[*branchRec] // the live branches; by name: see branch

	backups backupStore // backups and backup policies

	drs         index[*drRec]
	drByNumber  map[int]*drRec // nil until the first deploy request
	lastDR      int            // the number of the newest deploy request
	deployQueue []*drRec       // deployments holding a branch's queue, in order

	// more holds the records few databases have; see x.
	more      lazy[dbMore]
	workflows lazy[workflowStore] // made with the first workflow; see workflows.go

	extra lazy[dbExtra] // what few databases have; see extras
}

// dbMore holds the records few databases have (webhooks, maintenance
// windows, IP restrictions), apart from the record so that a database
// without them does not carry their empty tables.
type dbMore struct {
	webhooks       webhookStore
	maintenance    maintenanceStore     // see maintenance.go
	ipRestrictions ipRestrictions       // PostgreSQL databases only; see iprestrictions.go
	dataImport     *importRec           // the import that created the database; see dataimports.go
	importNotes    []ImportNotification // see dataimports.go
}

// x returns db's less common records, making them on first use (see
// lazy). Paths that every database takes (emitting an event) read
// db.more.peek() instead, which is nil when none were made.
func (db *dbRec) x() *dbMore { return db.more.get() }

// dbExtra holds what few databases have, apart from the record so that
// the others do not pay for it.
type dbExtra struct {
	recs     recStore                          // schema recommendations
	throttle []platform.ThrottlerConfiguration // throttler ratios set, by keyspace
	sizes    map[tableRef]int64                // table sizes SetTableSize set, on any branch
}

// tableRef names a table of a keyspace.
type tableRef struct {
	ks    *keyspaceRec
	table string
}

// extras returns db's extra records, making them on first use.
func (db *dbRec) extras() *dbExtra { return db.extra.get() }

// ratiosSet are the throttler ratios set on db.
func (db *dbRec) ratiosSet() []platform.ThrottlerConfiguration {
	if db.extra.peek() == nil {
		return nil
	}
	return db.extra.peek().throttle
}

// maxNameLen bounds organization, database, branch and team names.
const maxNameLen = 63

// defaultClusterSize is the size of a database created without one.
const defaultClusterSize = "PS_10"

func databaseRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases", op: "list_databases", handler: read(listDatabases)},
		{pattern: "POST /v1/organizations/{organization}/databases", op: "create_database", handler: withBody(createDatabase)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}", op: "get_database", handler: read(getDatabase)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}", op: "update_database_settings", handler: withBody(updateDatabase)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}", op: "delete_database", handler: act(deleteDatabase)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/regions", op: "list_database_regions", handler: read(listDatabaseRegions)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/read-only-regions", op: "list_read_only_regions", handler: read(listReadOnlyRegions)},
	}
}

// listDatabases cuts the page from the organization's databases for a
// caller who sees them all, and from a service token's own grants for one
// who sees only the databases it holds a grant on: either way, the work is
// O(page size) without q, and O(grants) at most for a token with grants on
// some databases, never a check of every database of the organization. A
// q filters by substring: a scan of every database the caller sees.
func listDatabases(c *call) (any, error) {
	q := c.r.URL.Query().Get("q")
	seesAll := c.seesEveryDatabase()
	if q == "" && seesAll {
		return pageOf(c, &c.org.dbs, true, c.w.renderDatabase), nil
	}
	if t := c.who.token; t != nil && !seesAll {
		need := c.rt.spec.need
		keep := func(g *dbGrant) bool { return g.perms&need != 0 && strings.Contains(g.db.name, q) }
		render := func(g *dbGrant) *platform.Database { return c.w.renderDatabase(g.db) }
		return filteredPageOf(c, &t.grantIdx, true, keep, render), nil
	}
	keep := func(db *dbRec) bool {
		return strings.Contains(db.name, q) && (seesAll || c.seesDatabase(db))
	}
	return filteredPageOf(c, &c.org.dbs, true, keep, c.w.renderDatabase), nil
}

func createDatabase(c *call, p *platform.CreateDatabaseParams) (any, error) {
	if err := checkName("name", p.Name); err != nil {
		return nil, err
	}
	if c.org.dbByName[p.Name] != nil {
		return nil, unprocessable("name %q is already taken by another database in %s", p.Name, c.org.name)
	}
	region := c.org.defaultRegion
	if p.Region != "" {
		if region = regionBySlug(p.Region); region == nil {
			return nil, unprocessable("region %q is not a known region slug", p.Region)
		}
	}
	kind, err := checkKind(p.Kind)
	if err != nil {
		return nil, err
	}
	kind = cmp.Or(kind, platform.KindMySQL)
	// The default branch is a production branch: no development-only size.
	size, err := clusterSizeFor("cluster_size", cmp.Or(p.ClusterSize, defaultClusterSize), newClusterScope(kind, region), true)
	if err != nil {
		return nil, err
	}
	if err := checkDatabaseReplicas(p.Replicas, kind); err != nil {
		return nil, err
	}
	major, storage, err := askPostgres(p.Name, kind, p.MajorVersion, p.Storage, defaultPostgresMajor)
	if err != nil {
		return nil, err
	}
	db := c.w.newDatabaseRec(c.org, p.Name, region, kind, size, platform.DatabasePending)
	db.notes = p.Notes
	db.nonHA = p.Replicas != nil && *p.Replicas == 0
	c.w.addDatabase(db, c.who.token, c.who.user)
	main := db.branch(db.defaultBranch)
	if p.Replicas != nil && !db.nonHA {
		main.defaultKeyspace().extraReplicas = *p.Replicas - includedReplicas
	}
	if kind == platform.KindPostgreSQL {
		main.setPostgresMajor(major)
	}
	if storage != nil {
		main.clusterRec().storage = *storage
	}
	c.w.clock.After(c.w.timing.DatabaseReady, databaseReadyJob{db})
	return c.w.renderDatabase(db), nil
}

// defaultBranchName is the name of a new database's default branch.
const defaultBranchName = "main"

// newDatabaseRec makes a database of org, in state, with its default
// branch named but not made: addDatabase adds it and makes the branch.
func (w *world) newDatabaseRec(org *orgRec, name string, region *regionRec, kind platform.DatabaseKind, size string, state platform.DatabaseState) *dbRec {
	now := w.clock.Now()
	return &dbRec{
		stamps:        stamps{id: w.newID(), created: now, updated: now},
		org:           org,
		name:          name,
		region:        region,
		kind:          kind,
		clusterSize:   size,
		state:         state,
		foreignKeys:   true,
		defaultBranch: defaultBranchName,
	}
}

// checkDatabaseReplicas checks create_database's replicas: 0 for a
// database without high availability, whose production branches include
// no replicas, or a total from the two a production branch includes to the
// most its kind takes (a MySQL keyspace's, a PostgreSQL change request's).
func checkDatabaseReplicas(n *int, kind platform.DatabaseKind) error {
	if n == nil || *n == 0 {
		return nil
	}
	hi := maxKeyspaceReplicas
	if kind == platform.KindPostgreSQL {
		hi = maxReplicas
	}
	if *n < includedReplicas || *n > hi {
		return unprocessable("replicas must be 0 (no high availability) or from %d to %d for a %s database, got %d", includedReplicas, hi, kind, *n)
	}
	return nil
}

// addDatabase adds a new database to the call's organization, with its
// production branch (ready after Timings.DatabaseReady) and its backup
// policy: create_database and start_data_import create databases so.
func (w *world) addDatabase(db *dbRec, t *tokenRec, actor *userRec) {
	db.org.dbs.Add(db)
	db.org.dbByName[db.name] = db
	// The spec grants the creating token every database permission on the
	// database: one grant, of those it does not already hold on the whole
	// organization (an admin token holds them all and gets none).
	if t != nil && t.orgPerms&permBits["create_databases"] != 0 {
		t.grantSet(db, databasePermSet&^t.orgPerms)
	}
	// The production branch is ready when the database is.
	main := w.newBranch(db, db.defaultBranch, nil, actor, w.timing.DatabaseReady)
	main.production = true
	w.initBackups(db)
}

func getDatabase(c *call) (any, error) {
	return c.w.renderDatabase(c.db), nil
}

func updateDatabase(c *call, p *platform.UpdateDatabaseParams) (any, error) {
	db := c.db
	if p.NewName != nil && *p.NewName != db.name {
		if err := checkName("new_name", *p.NewName); err != nil {
			return nil, err
		}
		if c.org.dbByName[*p.NewName] != nil {
			return nil, unprocessable("new_name %q is already taken by another database in %s", *p.NewName, c.org.name)
		}
	}
	if p.DefaultBranch != nil && db.branch(*p.DefaultBranch) == nil {
		return nil, unprocessable("default_branch %q is not a branch of %s", *p.DefaultBranch, db.name)
	}
	if p.NewName != nil && *p.NewName != db.name {
		delete(c.org.dbByName, db.name)
		db.name = *p.NewName
		c.org.dbByName[db.name] = db
	}
	setIf(&db.defaultBranch, p.DefaultBranch)
	setIf(&db.requireApproval, p.RequireApprovalForDeploy)
	setIf(&db.restrictBranchRegion, p.RestrictBranchRegion)
	setIf(&db.allowDataBranching, p.AllowDataBranching)
	setIf(&db.foreignKeys, p.AllowForeignKeyConstraints)
	setIf(&db.insightsRawQueries, p.InsightsRawQueries)
	setIf(&db.deletionProtected, p.DeletionProtected)
	setIf(&db.prodWebConsole, p.ProductionBranchWebConsole)
	if p.AutomaticMigrations != nil {
		db.automaticMigrations = platform.Ptr(*p.AutomaticMigrations)
	}
	if p.MigrationFramework != nil {
		db.migrationFramework = platform.Ptr(*p.MigrationFramework)
	}
	if p.MigrationTableName != nil {
		db.migrationTable = platform.Ptr(*p.MigrationTableName)
	}
	db.updated = c.now
	return c.w.renderDatabase(db), nil
}

func deleteDatabase(c *call) (any, error) {
	db := c.db
	if db.deletionProtected {
		return nil, unprocessable("database %s is deletion protected; turn deletion_protected off first", db.name)
	}
	c.w.removeDatabase(db)
	return nil, nil
}

// removeDatabase deletes a database and what belongs to it:
// delete_database and cancel_data_import delete databases so.
func (w *world) removeDatabase(db *dbRec) {
	db.org.dbs.Remove(db)
	delete(db.org.dbByName, db.name)
	db.deleted = true
	for _, b := range slices.Clone(db.branchIdx.All()) { // removeBranch changes the index
		w.removeBranch(b, nil)
	}
	for _, t := range w.tokens {
		t.dropGrant(db)
	}
	w.endDataImport(db)
}

func listDatabaseRegions(c *call) (any, error) {
	return regionPage(c, renderRegionFor(c.db.region)), nil
}

// listReadOnlyRegions lists the read-only regions of the database's default
// branch (none while it has no default branch).
func listReadOnlyRegions(c *call) (any, error) {
	b := c.db.branch(c.db.defaultBranch)
	if b == nil {
		return slicePageOf(c, []*readOnlyRegionRec{}, false, renderReadOnlyRegion(c.db)), nil
	}
	return pageOf(c, &b.readOnlyRegions, false, renderReadOnlyRegion(c.db)), nil
}

// renderReadOnlyRegion renders the read-only regions of db's branches.
func renderReadOnlyRegion(db *dbRec) func(*readOnlyRegionRec) *platform.ReadOnlyRegion {
	region := renderRegionFor(db.region)
	return func(r *readOnlyRegionRec) *platform.ReadOnlyRegion {
		return &platform.ReadOnlyRegion{
			ID:          r.id,
			DisplayName: r.region.displayName,
			CreatedAt:   platform.NewTimestamp(r.created),
			UpdatedAt:   platform.NewTimestamp(r.updated),
			ReadyAt:     ptrTime(r.readyAt),
			Ready:       r.ready(),
			Actor:       renderActor(r.actor),
			Region:      *region(r.region),
		}
	}
}

// renderDatabase renders a database as the API shows it.
func (w *world) renderDatabase(db *dbRec) *platform.Database {
	base := w.base
	prod := 0
	for _, b := range db.branchIdx.All() {
		if b.production {
			prod++
		}
	}
	// The database's URL is its branches' URL without the last segment:
	// one string holds both.
	branchesURL := base + "v1/organizations/" + db.org.name + "/databases/" + db.name + "/branches"
	out := &platform.Database{
		ID:                             db.id,
		Type:                           "Database",
		Name:                           db.name,
		URL:                            strings.TrimSuffix(branchesURL, "/branches"),
		BranchesURL:                    branchesURL,
		HTMLURL:                        base + db.org.name + "/" + db.name,
		State:                          db.state,
		Ready:                          db.state == platform.DatabaseReady,
		Kind:                           db.kind,
		Plan:                           "scaler_pro",
		Region:                         *renderRegionFor(db.region)(db.region),
		BranchesCount:                  db.branchIdx.Len(),
		DevelopmentBranchesCount:       db.branchIdx.Len() - prod,
		ProductionBranchesCount:        prod,
		IssuesCount:                    platform.Ptr(0),
		OpenSchemaRecommendationsCount: db.openRecommendations(),
		DefaultBranch:                  db.defaultBranch,
		RequireApprovalForDeploy:       db.requireApproval,
		DeletionProtected:              db.deletionProtected,
		AllowDataBranching:             db.allowDataBranching,
		ForeignKeysEnabled:             db.foreignKeys,
		AutomaticMigrations:            db.automaticMigrations,
		RestrictBranchRegion:           db.restrictBranchRegion,
		InsightsRawQueries:             db.insightsRawQueries,
		InsightsEnabled:                true,
		ProductionBranchWebConsole:     db.prodWebConsole,
		MigrationTableName:             db.migrationTable,
		MigrationFramework:             db.migrationFramework,
		CreatedAt:                      platform.NewTimestamp(db.created),
		UpdatedAt:                      platform.NewTimestamp(db.updated),
		Notes:                          db.notes,
	}
	out.DataImport = w.renderDataImportOf(db)
	if b := db.branch(db.defaultBranch); b != nil {
		out.DefaultBranchReadOnlyRegionsCount = b.readOnlyRegions.Len()
		out.ResizeQueued, out.Resizing, out.ConfigChangeQueued, out.ConfigChanging = b.databaseFlags()
		out.DefaultBranchShardCount, out.Sharded = b.shardCount()
		for _, ks := range b.keyspaces.All() {
			out.DefaultBranchTableCount += len(ks.tables)
		}
		out.SchemaLastUpdatedAt = ptrTime(b.schemaUpdated)
	}
	return out
}
