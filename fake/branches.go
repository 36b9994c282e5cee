package fake

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// branchRec is a branch of a database, with its keyspaces and schema.
type branchRec struct {
	stamps
	db                *dbRec
	name              string
	parent            string // the parent branch's name; "" for the first branch
	production        bool
	ready             bool
	safeMigrations    bool
	deletionProtected bool
	deleted           bool
	deletedAt         time.Time
	actor             *userRec
	region            *regionRec
	restoredFrom      *branchRec // the branch of the backup it was restored from
	initialRestoreID  string     // the backup it was restored from
	schemaUpdated     time.Time

	keyspaces index[*keyspaceRec] // the live keyspaces; see keyspace
	// readOnlyRegions are the regions its keyspaces replicate to, in the
	// order they were added; see keyspaces.go.
	readOnlyRegions index[*readOnlyRegionRec]

	roles *branchRoles
	// more holds the records few branches have; see x.
	more lazy[branchMore]

	cluster *branchCluster // resize and change requests; nil before the first; see branchresizes.go
	primary int            // which of a PostgreSQL branch's instances is the primary; see switchovers.go

	traffic *branchTraffic // the queries recorded; nil before the first; see traffic.go
}

// branchMore holds the records few branches have, and routing rules of
// their own, apart from the record so that a branch without them (most of
// a large world's) does not carry their empty tables.
type branchMore struct {
	passwords branchPasswords // MySQL branches only; see passwords.go
	budgets   branchBudgets   // traffic budgets; see trafficbudgets.go
	bouncers  branchBouncers  // connection poolers; see bouncers.go
	// A PostgreSQL branch's switchovers; see switchovers.go.
	switchovers branchSwitchovers
	// The branch's query-patterns reports; see querypatterns.go.
	qpReports branchQPReports
	// Its routing rules as last updated; "" for the default (see
	// vschemas.go).
	routingRules string
	// Its Vitess topology state (MySQL branches); see vitess.go.
	vitess branchVitess
	// Its live connections; see connections.go.
	sessions branchSessions
	// deletedBy is who deleted it: the user who asked, or the deployer of
	// the deploy request whose auto_delete_branch deleted it.
	deletedBy *userRec
	// base is the schema it started from, which its deploy requests diff
	// against (see planDeploy); nil for none.
	base schemaBase
	// majorVersion is a PostgreSQL branch's major version; "" for the
	// default (see postgresbranch.go).
	majorVersion string
	// restorePoint is the time of its parent (restoredFrom) that a
	// PostgreSQL branch restores (restore_point); nil for none (see
	// backups_restore.go). A pointer, which keeps branchMore in its size
	// class.
	restorePoint *time.Time
}

// x returns b's less common records, making them on first use (see
// lazy).
func (b *branchRec) x() *branchMore { return b.more.get() }

// newBranch adds a branch to db, pending until the clock has moved by
// delay. Its keyspaces are copies of parent's, whose tables are its base,
// or one empty default keyspace named after the database when there is no
// parent.
func (w *world) newBranch(db *dbRec, name string, parent *branchRec, actor *userRec, delay time.Duration) *branchRec {
	now := w.clock.Now()
	b := &branchRec{
		stamps:        stamps{id: w.newID(), created: now, updated: now},
		db:            db,
		name:          name,
		actor:         actor,
		region:        db.region,
		schemaUpdated: now,
	}
	if parent != nil {
		b.parent = parent.name
		if r := parent.more.read().routingRules; r != "" {
			b.x().routingRules = r
		}
		w.copyKeyspaces(b, parent, now)
		b.x().base = schemaOf(parent)
		if v := parent.more.read().majorVersion; v != "" {
			b.x().majorVersion = v
		}
	} else {
		w.newKeyspace(b, db.name, now).isDefault = true
	}
	w.meterBranch(b, now)
	w.newDefaultRole(b)
	db.org.branchByName[branchKey{db, name}] = b
	db.branchIdx.Add(b)
	w.clock.After(delay, branchReadyJob{b})
	return b
}

// branchReady is the pending -> ready transition of a branch.
func (w *world) branchReady(b *branchRec) {
	if b.deleted || b.ready {
		return
	}
	b.ready = true
	b.updated = w.clock.Now()
	for _, ks := range b.keyspaces.All() {
		ks.ready, ks.updated = true, b.updated
	}
	w.emit("branch.ready", b.db, w.renderBranch(b))
}

// branchKey names a branch within its organization. One map per
// organization holds every database's branches: a map per database would
// cost about 200 bytes for the one branch most have.
type branchKey struct {
	db   *dbRec
	name string
}

// branch finds a live branch of the database by name.
func (db *dbRec) branch(name string) *branchRec { return db.org.branchByName[branchKey{db, name}] }

// keyspace finds a live keyspace of the branch by name: a scan, as a branch
// has few, cheaper than a map per branch.
func (b *branchRec) keyspace(name string) *keyspaceRec {
	for _, ks := range b.keyspaces.All() {
		if ks.name == name {
			return ks
		}
	}
	return nil
}

// shardCount is how many shards b's keyspaces have in all, and whether
// any of them is sharded.
func (b *branchRec) shardCount() (shards int, sharded bool) {
	for _, ks := range b.keyspaces.All() {
		shards += ks.shards
		sharded = sharded || ks.shards > 1
	}
	return shards, sharded
}

// defaultKeyspace is the keyspace unqualified tables belong to.
func (b *branchRec) defaultKeyspace() *keyspaceRec {
	for _, ks := range b.keyspaces.All() {
		if ks.isDefault {
			return ks
		}
	}
	return b.keyspaces.All()[0]
}

func branchRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches", op: "list_branches", handler: read(listBranches)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches", op: "create_branch", handler: withBody(createBranch), scopeBranch: restoredBranch, createsDatabase: createsMissingDatabase},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}", op: "get_branch", handler: read(getBranch)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}", op: "update_branch", handler: withBody(updateBranch)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}", op: "delete_branch", handler: act(deleteBranch)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/promote", op: "promote_branch", handler: act(promoteBranch)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/demote", op: "demote_branch", handler: act(demoteBranch)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/safe-migrations", op: "enable_safe_migrations", handler: act(enableSafeMigrations)},
		{pattern: "PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/safe-migrations", op: "update_safe_migrations", handler: withBody(updateSafeMigrations)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/safe-migrations", op: "disable_safe_migrations", handler: act(disableSafeMigrations)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/schema", op: "get_branch_schema", handler: read(getBranchSchema)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/schema/lint", op: "lint_branch_schema", handler: read(lintBranchSchema)},
	}
}

func listBranches(c *call) (any, error) {
	q := c.r.URL.Query()
	production, err := triQuery(q.Get("production"), "production")
	if err != nil {
		return nil, err
	}
	safe, err := triQuery(q.Get("safe_migrations"), "safe_migrations")
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(q.Get("q"))
	seesAll := c.seesEveryBranch()
	if name == "" && production == nil && safe == nil && seesAll {
		return pageOf(c, &c.db.branchIdx, true, c.w.renderBranch), nil
	}
	keep := func(b *branchRec) bool {
		return strings.Contains(b.name, name) && (seesAll || c.seesBranch(b)) &&
			(production == nil || b.production == *production) &&
			(safe == nil || b.safeMigrations == *safe)
	}
	return filteredPageOf(c, &c.db.branchIdx, true, keep, c.w.renderBranch), nil
}

func createBranch(c *call, p *platform.CreateBranchParams) (any, error) {
	if c.newDatabase {
		return createBranchAndDatabase(c, p)
	}
	db := c.db
	if err := checkBranchKind(p, db); err != nil {
		return nil, err
	}
	pitr, err := restorePointFor(c, p)
	if err != nil {
		return nil, err
	}
	var restore *backupRestore
	if pitr == nil {
		if restore, err = backupToRestore(c, p); err != nil {
			return nil, err
		}
	}
	if err := checkName("name", p.Name); err != nil {
		return nil, err
	}
	// A new branch is a development branch: the development size is
	// welcome (the service's own command-line tool asks for it by default).
	// A restore has its sizes (see backupToRestore).
	size, err := requestedSize(db, p)
	if err != nil {
		return nil, err
	}
	if restore != nil {
		size = ""
	}
	if db.branch(p.Name) != nil {
		return nil, unprocessable("name %q is already taken by another branch of %s", p.Name, db.name)
	}
	parent, err := parentFor(c, p)
	if err != nil {
		return nil, err
	}
	region, err := branchRegion(db, p)
	if err != nil {
		return nil, err
	}
	// A restore runs the version of the branch it restores.
	runs := parent
	if restore != nil {
		runs = restore.backup.branch
	}
	major, storage, err := askPostgres(db.name, db.kind, ignoredOnRestore(p.MajorVersion, db.kind == platform.KindPostgreSQL && (restore != nil || pitr != nil)), p.Storage, runs.postgresMajor())
	if err != nil {
		return nil, err
	}
	b := makeBranch(c, p, db, parent, c.w.timing.BranchReady, branchAsk{region: region, size: size, major: major, storage: storage})
	c.w.restoreInto(b, restore)
	c.w.restoreToPoint(b, pitr)
	c.w.onOwnProvider(b, c.now)
	return c.w.renderBranch(b), nil
}

// onOwnProvider gives a new PostgreSQL branch made in a region of another
// provider than the sizes it copies (its parent's, or a seeded branch's
// backup's) the same sizes on its own provider (see onProvider).
func (w *world) onOwnProvider(b *branchRec, now time.Time) {
	for _, ks := range b.keyspaces.All() {
		ks.clusterSize = onProvider(ks.clusterSize, b.region.provider)
	}
	w.meterBranch(b, now)
}

// ignoredOnRestore is a create_branch request's major_version: "" on a
// PostgreSQL restore (of a backup or to a point in time), which runs the
// restored branch's version and ignores the field unchecked, as the
// reference says of a backup's.
func ignoredOnRestore(major string, restore bool) string {
	if restore {
		return ""
	}
	return major
}

// branchAsk is what a create_branch request asks of its new branch beyond
// its name and parent, checked.
type branchAsk struct {
	region  *regionRec
	size    string // "" for the parent's sizes
	major   string // a PostgreSQL branch's major version
	storage *storageConfig
}

// makeBranch makes the branch a create_branch request asks for in db,
// from parent, ready after delay, once everything is checked.
func makeBranch(c *call, p *platform.CreateBranchParams, db *dbRec, parent *branchRec, delay time.Duration, ask branchAsk) *branchRec {
	w := c.w
	b := w.newBranch(db, p.Name, parent, c.who.user, delay)
	b.region = ask.region
	setIf(&b.deletionProtected, p.DeletionProtected)
	if ask.size != "" {
		for _, ks := range b.keyspaces.All() {
			ks.clusterSize = ask.size
		}
		w.meterBranch(b, c.now)
	}
	if db.kind == platform.KindPostgreSQL {
		b.setPostgresMajor(ask.major)
	}
	if ask.storage != nil {
		b.clusterRec().storage = *ask.storage
	}
	return b
}

// checkBranchKind checks a create_branch request's kind: required with
// create_database_if_missing, one of the engines, and the engine of db
// when the database exists (db not nil).
func checkBranchKind(p *platform.CreateBranchParams, db *dbRec) error {
	kind, err := checkKind(p.Kind)
	switch {
	case err != nil:
		return err
	case kind == "" && p.CreateDatabaseIfMissing != nil && *p.CreateDatabaseIfMissing:
		return unprocessable("kind is required with create_database_if_missing: mysql or postgresql")
	case kind != "" && db != nil && kind != db.kind:
		return unprocessable("kind %q disagrees with database %s, a %s database", kind, db.name, db.kind)
	}
	return nil
}

// createsMissingDatabase reports whether a create_branch request asks to
// create its database when it does not exist (see route.createsDatabase).
func createsMissingDatabase(c *call) bool {
	p, _ := c.body.(*platform.CreateBranchParams)
	return p != nil && p.CreateDatabaseIfMissing != nil && *p.CreateDatabaseIfMissing
}

// createBranchAndDatabase serves a create_branch request whose database
// does not exist and that asks to create it (create_database_if_missing;
// the pipeline has checked the permission to create a database). Every
// field is checked first, so that a refusal creates nothing; then the
// database is created as create_database creates one with the request's
// kind and region and the defaults otherwise, and the branch in it, from
// its default branch. The branch is pending until its parent is ready
// (Timings.DatabaseReady) and a branch's own time after that
// (Timings.BranchReady).
func createBranchAndDatabase(c *call, p *platform.CreateBranchParams) (any, error) {
	name := c.r.PathValue("database")
	if err := checkBranchKind(p, nil); err != nil {
		return nil, err
	}
	if err := checkName("database", name); err != nil {
		return nil, err
	}
	nothing := "; create_database_if_missing creates database " + name + ", which has none"
	switch {
	case p.BackupID != "":
		return nil, unprocessable("backup_id names a backup to restore%s", nothing)
	case p.SeedData != "":
		return nil, unprocessable("seed_data restores the parent branch's last successful backup%s", nothing)
	case p.RestorePoint != nil:
		return nil, unprocessable("restore_point restores the parent branch as it was at a time before now%s", nothing)
	case len(p.KeyspaceClusterSizes) > 0:
		return nil, unprocessable("keyspace_cluster_sizes applies to backup restores (backup_id or seed_data)")
	}
	if err := checkName("name", p.Name); err != nil {
		return nil, err
	}
	switch {
	case p.Name == defaultBranchName:
		return nil, unprocessable("name %q is taken by the default branch create_database_if_missing makes in %s", p.Name, name)
	case p.ParentBranch != "" && p.ParentBranch != defaultBranchName:
		return nil, unprocessable("parent_branch %q is not a branch of %s: create_database_if_missing makes it with its default branch %s only", p.ParentBranch, name, defaultBranchName)
	}
	region := c.org.defaultRegion
	if p.Region != "" {
		if region = regionBySlug(p.Region); region == nil {
			return nil, unprocessable("region %q is not a known region slug", p.Region)
		}
	}
	size, err := requestedSize(&dbRec{name: name, kind: p.Kind, region: region}, p)
	if err != nil {
		return nil, err
	}
	major, storage, err := askPostgres(name, p.Kind, p.MajorVersion, p.Storage, defaultPostgresMajor)
	if err != nil {
		return nil, err
	}
	dbSize, err := clusterSizeFor("cluster_size", defaultClusterSize, newClusterScope(p.Kind, region), true)
	if err != nil {
		return nil, err
	}
	db := c.w.newDatabaseRec(c.org, name, region, p.Kind, dbSize, platform.DatabasePending)
	c.w.addDatabase(db, c.who.token, c.who.user)
	c.w.clock.After(c.w.timing.DatabaseReady, databaseReadyJob{db})
	c.db = db // the audit log's entry names it
	b := makeBranch(c, p, db, db.branch(db.defaultBranch), c.w.timing.DatabaseReady+c.w.timing.BranchReady,
		branchAsk{region: region, size: size, major: major, storage: storage})
	return c.w.renderBranch(b), nil
}

// branchRegion is the region of the branch a create_branch request
// makes: its region, else the database's.
func branchRegion(db *dbRec, p *platform.CreateBranchParams) (*regionRec, error) {
	if p.Region == "" {
		return db.region, nil
	}
	region := regionBySlug(p.Region)
	switch {
	case region == nil:
		return nil, unprocessable("region %q is not a known region slug", p.Region)
	case db.restrictBranchRegion && region != db.region:
		return nil, unprocessable("region %q is not allowed: %s restricts branches to %s", p.Region, db.name, db.region.slug)
	}
	return region, nil
}

// requestedSize reads the size a create_branch request asks for:
// cluster_size, or on a PostgreSQL database cluster_name too (the
// service's own clients send a PostgreSQL branch's size there), both given
// naming the same size; "" when neither is given. A PostgreSQL size is the
// new branch's region's provider's (a plain name its X86 size).
func requestedSize(db *dbRec, p *platform.CreateBranchParams) (string, error) {
	if p.ClusterName != "" && db.kind != platform.KindPostgreSQL {
		return "", unprocessable("cluster_name is the size of a postgresql branch; %s is a %s database: give cluster_size", db.name, db.kind)
	}
	if p.ClusterSize == "" && p.ClusterName == "" {
		return "", nil
	}
	region, err := branchRegion(db, p)
	if err != nil {
		return "", err
	}
	at := newClusterScope(db.kind, region)
	var bySize, byName string
	if p.ClusterSize != "" {
		if bySize, err = clusterSizeFor("cluster_size", p.ClusterSize, at, false); err != nil {
			return "", err
		}
	}
	if p.ClusterName != "" {
		if byName, err = clusterSizeFor("cluster_name", p.ClusterName, at, false); err != nil {
			return "", err
		}
	}
	switch {
	case bySize != "" && byName != "" && bySize != byName:
		return "", unprocessable("cluster_size %q and cluster_name %q name different sizes; give one", p.ClusterSize, p.ClusterName)
	case byName != "":
		return byName, nil
	case bySize != "":
		return bySize, nil
	}
	return "", nil
}

// parentFor finds the ready parent a create_branch request names: its
// parent_branch, else the database's default branch.
func parentFor(c *call, p *platform.CreateBranchParams) (*branchRec, error) {
	name := cmp.Or(p.ParentBranch, c.db.defaultBranch)
	parent := c.db.branch(name)
	if parent == nil {
		return nil, unprocessable("parent_branch %q is not a branch of %s", name, c.db.name)
	}
	if !parent.ready {
		return nil, unprocessable("parent_branch %q is not ready yet", name)
	}
	return parent, nil
}

// onBranch adapts a handler of one branch: it runs fn on the path's
// branch and renders the branch fn leaves.
func onBranch(fn func(c *call, b *branchRec) error) func(c *call) (any, error) {
	return func(c *call) (any, error) {
		if err := fn(c, c.branch); err != nil {
			return nil, err
		}
		return c.w.renderBranch(c.branch), nil
	}
}

var getBranch = onBranch(func(*call, *branchRec) error { return nil })

func updateBranch(c *call, p *platform.UpdateBranchParams) (any, error) {
	return onBranch(func(c *call, b *branchRec) error {
		db := b.db
		if p.NewName != nil && *p.NewName != b.name {
			if err := checkName("new_name", *p.NewName); err != nil {
				return err
			}
			if db.branch(*p.NewName) != nil {
				return unprocessable("new_name %q is already taken by another branch of %s", *p.NewName, db.name)
			}
			delete(db.org.branchByName, branchKey{db, b.name})
			for _, other := range db.branchIdx.All() {
				if other.parent == b.name {
					other.parent = *p.NewName
				}
			}
			if db.defaultBranch == b.name {
				db.defaultBranch = *p.NewName
			}
			b.name = *p.NewName
			db.org.branchByName[branchKey{db, b.name}] = b
		}
		setIf(&b.deletionProtected, p.DeletionProtected)
		b.updated = c.now
		return nil
	})(c)
}

func deleteBranch(c *call) (any, error) {
	b := c.branch
	withDescendants, err := boolQuery(c.r.URL.Query().Get("delete_descendants"), "delete_descendants")
	if err != nil {
		return nil, err
	}
	doomed := []*branchRec{b}
	if withDescendants {
		doomed = append(doomed, b.descendants()...)
	}
	for _, d := range doomed {
		if err := c.w.checkBranchDeletable(d); err != nil {
			return nil, err
		}
	}
	for _, d := range doomed {
		c.w.removeBranch(d, c.who.user)
	}
	return nil, nil
}

// descendants returns the branches created from b, and theirs, nearest
// first. Parents are known by name, so a name reused after a deletion can
// make a loop; each branch is visited once.
func (b *branchRec) descendants() []*branchRec {
	children := map[string][]*branchRec{}
	for _, other := range b.db.branchIdx.All() {
		children[other.parent] = append(children[other.parent], other)
	}
	seen := map[*branchRec]bool{b: true}
	var out []*branchRec
	for queue := []*branchRec{b}; len(queue) > 0; queue = queue[1:] {
		for _, child := range children[queue[0].name] {
			if !seen[child] {
				seen[child] = true
				out = append(out, child)
				queue = append(queue, child)
			}
		}
	}
	return out
}

// checkBranchDeletable says why a branch cannot be deleted, if it cannot.
func (w *world) checkBranchDeletable(b *branchRec) error {
	switch {
	case b.name == b.db.defaultBranch:
		return unprocessable("branch %s is the default branch of %s and cannot be deleted", b.name, b.db.name)
	case b.deletionProtected:
		return unprocessable("branch %s is deletion protected; turn deletion_protected off first", b.name)
	case b.production:
		return b.checkNoOpenDeployRequestsInto("is a production branch and cannot be deleted")
	}
	return nil
}

// removeBranch deletes a branch and what belongs to it; by is who deleted
// it (nil when its database goes with it).
func (w *world) removeBranch(b *branchRec, by *userRec) {
	b.deleted = true
	b.deletedAt = w.clock.Now()
	if by != nil {
		b.x().deletedBy = by
	}
	delete(b.db.org.branchByName, branchKey{b.db, b.name})
	b.db.branchIdx.Remove(b)
	w.cancelBackups(b)
	w.cancelSwitchover(b)
	w.cancelVitessOperations(b)
	w.endMaintenance(b)
	w.dropBranchRoles(b)
	w.dropBranchBouncers(b)
	w.cancelWorkflows(b)
	w.meterBranch(b, b.deletedAt)
}

var promoteBranch = onBranch(func(c *call, b *branchRec) error {
	switch {
	case !b.ready:
		return unprocessable("branch %s is not ready yet", b.name)
	case b.production:
		return unprocessable("branch %s is already a production branch", b.name)
	case b.runsDevSize():
		return unprocessable("branch %s runs on the development-only size %s; change its cluster_size first", b.name, devClusterSize)
	}
	b.production = true
	b.updated = c.now
	return nil
})

// runsDevSize reports whether a keyspace of b runs on the development
// size, which no production branch may.
func (b *branchRec) runsDevSize() bool {
	return slices.ContainsFunc(b.keyspaces.All(), func(ks *keyspaceRec) bool { return ks.clusterSize == devClusterSize })
}

var demoteBranch = onBranch(func(c *call, b *branchRec) error {
	switch {
	case !b.production:
		return unprocessable("branch %s is not a production branch", b.name)
	case b.name == b.db.defaultBranch:
		return unprocessable("branch %s is the default branch of %s and must stay a production branch", b.name, b.db.name)
	case b.readOnlyRegions.Len() > 0:
		return unprocessable("branch %s has read-only regions (%s), which need a production branch; remove them first", b.name, b.readOnlyRegionSlugs())
	}
	if err := b.checkNoOpenDeployRequestsInto("cannot be demoted"); err != nil {
		return err
	}
	// A development branch includes no replicas (replicas.go).
	if err := b.checkReplicaRemoval(b.postgresInstances()-1-included(b), "demoting it"); err != nil {
		return err
	}
	b.production = false
	b.safeMigrations = false
	b.updated = c.now
	c.w.replicasChanged(b)
	return nil
})

// setSafeMigrations turns safe migrations on or off, with the rules of each.
func setSafeMigrations(c *call, b *branchRec, on bool) error {
	if on && !b.safeMigrations {
		if !b.ready {
			return unprocessable("branch %s is not ready yet", b.name)
		}
		if !b.production {
			return unprocessable("branch %s is not a production branch; safe migrations need one", b.name)
		}
		if errs := b.lint(); len(errs) > 0 {
			tables := make([]string, len(errs))
			for i, e := range errs {
				tables[i] = e.KeyspaceName + "." + e.TableName + " (" + e.LintError + ")"
			}
			return unprocessable("branch %s has %d schema lint error(s): %s", b.name, len(errs), strings.Join(tables, ", "))
		}
	}
	if b.safeMigrations && !on {
		if err := b.checkNoOpenDeployRequestsInto("cannot have safe migrations disabled"); err != nil {
			return err
		}
	}
	if b.safeMigrations != on {
		b.safeMigrations = on
		b.updated = c.now
	}
	return nil
}

var enableSafeMigrations = onBranch(func(c *call, b *branchRec) error { return setSafeMigrations(c, b, true) })

var disableSafeMigrations = onBranch(func(c *call, b *branchRec) error { return setSafeMigrations(c, b, false) })

// safeMigrationsBody is the body of update_safe_migrations, whose one field
// is required.
type safeMigrationsBody struct {
	SafeMigrations *bool `json:"safe_migrations"`
}

// check refuses a body without safe_migrations.
func (p *safeMigrationsBody) check() *apiError {
	if p.SafeMigrations == nil {
		return unprocessable("safe_migrations is required: true or false")
	}
	return nil
}

func updateSafeMigrations(c *call, p *safeMigrationsBody) (any, error) {
	return onBranch(func(c *call, b *branchRec) error { return setSafeMigrations(c, b, *p.SafeMigrations) })(c)
}

func getBranchSchema(c *call) (any, error) {
	keyspaces, err := schemaPart(c, c.branch)
	if err != nil {
		return nil, err
	}
	out := &platform.BranchSchema{Tables: []*platform.TableSchema{}}
	for _, ks := range keyspaces {
		for _, name := range ks.tableNames() {
			out.Tables = append(out.Tables, renderTable(name, ks.tables[name]))
		}
	}
	return out, nil
}

// schemaPart reads the keyspace (MySQL) or namespace (PostgreSQL) a schema
// request asks for, and returns the keyspaces to show: the fake keeps a
// PostgreSQL branch's namespaces in the same records as keyspaces, its
// default one named after the database, which the namespace public (every
// PostgreSQL database's, which the service's command-line tool asks for)
// names too. A name the branch lacks is not found.
func schemaPart(c *call, b *branchRec) ([]*keyspaceRec, error) {
	q := c.r.URL.Query()
	param, name := "keyspace", q.Get("keyspace")
	want := platform.KindMySQL
	if ns := q.Get("namespace"); ns != "" {
		if name != "" {
			return nil, badRequest("give keyspace or namespace, not both")
		}
		param, name, want = "namespace", ns, platform.KindPostgreSQL
	}
	if name == "" {
		return b.keyspaces.All(), nil
	}
	if b.db.kind != want {
		return nil, badRequest("%s applies to %s databases; %s is %s", param, want, b.db.name, b.db.kind)
	}
	ks := b.keyspace(name)
	if ks == nil && param == "namespace" && name == "public" {
		ks = b.defaultKeyspace()
	}
	if ks == nil {
		return nil, notFound()
	}
	return []*keyspaceRec{ks}, nil
}

func lintBranchSchema(c *call) (any, error) {
	return slicePageOf(c, c.branch.lint(), false, func(e *platform.LintError) *platform.LintError { return e }), nil
}

// renderBranch renders a branch as the API shows it.
func (w *world) renderBranch(b *branchRec) *platform.Branch {
	base := w.base
	state := platform.BranchPending
	if b.ready {
		state = platform.BranchReady
	}
	shards, sharded := b.shardCount()
	def, cl := b.defaultKeyspace(), b.clusterView()
	host := b.region.slug + ".connect.dbplatform.dev"
	out := &platform.Branch{
		ID:                   b.id,
		Type:                 "Branch",
		Name:                 b.name,
		Kind:                 b.db.kind,
		State:                state,
		Ready:                b.ready,
		SchemaReady:          b.ready,
		Production:           b.production,
		SafeMigrations:       b.safeMigrations,
		DeletionProtected:    b.deletionProtected,
		Sharded:              sharded,
		ShardCount:           shards,
		KeyspaceCount:        b.keyspaces.Len(),
		Actor:                renderActor(b.actor),
		Region:               *renderRegionFor(b.db.region)(b.region),
		ClusterName:          def.clusterSize,
		AccessHostURL:        host,
		MySQLAddress:         host,
		MySQLEdgeAddress:     "edge." + host,
		MySQLProviderAddress: "provider." + host,
		VTGateOptions:        map[string]any{},
		HTMLURL:              base + b.db.org.name + "/" + b.db.name + "/" + b.name,
		URL:                  base + "v1/organizations/" + b.db.org.name + "/databases/" + b.db.name + "/branches/" + b.name,
		CreatedAt:            platform.NewTimestamp(b.created),
		UpdatedAt:            platform.NewTimestamp(b.updated),
		SchemaLastUpdatedAt:  ptrTime(b.schemaUpdated),
	}
	renderVTGate(out, cl)
	if sku := skuByName[out.ClusterName]; sku != nil {
		out.ClusterDisplayName, out.Metal = clusterDisplayName(sku.name), sku.metal
		if sku.architecture != "" {
			out.ClusterArchitecture = platform.Ptr(sku.architecture)
		}
	}
	if b.db.kind == platform.KindPostgreSQL {
		out.ClusterIOPS = platform.Ptr(cl.storage.iops)
	}
	out.Replicas = def.replicas()
	out.HasReplicas = out.Replicas > 0
	if b.parent != "" {
		out.ParentBranch = platform.Ptr(b.parent)
	}
	if b.restoredFrom != nil {
		out.RestoredFromBranch = renderBranchRef(b.restoredFrom)
	}
	if b.initialRestoreID != "" {
		out.InitialRestoreID = platform.Ptr(b.initialRestoreID)
	}
	if b.deleted {
		out.DeletedAt = ptrTime(b.deletedAt)
	}
	return out
}
