package fake

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// schemaSnapshot is the schema a backup holds: every keyspace of the
// branch, with its tables, as they were when the backup was asked for.
type schemaSnapshot struct {
	id        string
	taken     time.Time
	keyspaces []snapshotKeyspace
}

// snapshotKeyspace is one keyspace of a schema snapshot.
type snapshotKeyspace struct {
	name          string
	shards        int
	extraReplicas int
	isDefault     bool
	tables        map[string]string // table name -> CREATE TABLE statement
}

// takeSnapshot records b's schema as it is now.
func (w *world) takeSnapshot(b *branchRec) *schemaSnapshot {
	snap := &schemaSnapshot{id: w.newID(), taken: w.clock.Now()}
	for _, ks := range b.keyspaces.All() {
		snap.keyspaces = append(snap.keyspaces, snapshotKeyspace{
			name:          ks.name,
			shards:        ks.shards,
			extraReplicas: ks.extraReplicas,
			isDefault:     ks.isDefault,
			tables:        cloneMap(ks.tables),
		})
	}
	return snap
}

// tableCount is the number of tables in the snapshot.
func (snap *schemaSnapshot) tableCount() int {
	n := 0
	for _, ks := range snap.keyspaces {
		n += len(ks.tables)
	}
	return n
}

// renderSchemaSnapshot renders the schema snapshot of a backup.
func (w *world) renderSchemaSnapshot(bk *backupRec) *platform.SchemaSnapshot {
	snap := bk.snapshot
	db := bk.branch.db
	return &platform.SchemaSnapshot{
		ID:        snap.id,
		Name:      bk.name,
		URL:       w.base + db.org.name + "/" + db.name + "/schema-snapshots/" + snap.id,
		CreatedAt: platform.NewTimestamp(snap.taken),
		UpdatedAt: platform.NewTimestamp(snap.taken),
		LintedAt:  ptrTime(snap.taken),
	}
}

// backupRestore is a backup being restored into a new branch.
type backupRestore struct {
	backup *backupRec
	// clusterSize is the size of the restored keyspaces; "" for those
	// keyspaceSizes names, and on a seeded branch the parent's sizes.
	clusterSize   string
	keyspaceSizes map[string]string // by keyspace name
	// seededFrom is the parent of a branch seeded with its last
	// successful backup (seed_data); nil for a restore by backup_id.
	seededFrom *branchRec
}

// The restore permissions, and the OAuth scopes (held on the database,
// its organization or the backup's branch).
const (
	restoreDevPerm, restoreProdPerm   = "restore_backup", "restore_production_branch_backup"
	restoreDevScope, restoreProdScope = "restore_backups", "restore_production_branch_backups"
)

// backupToRestore checks the backup_id or seed_data of a create_branch
// request, before anything changes: the caller must hold the restore
// permission for the backup's kind of branch (404 otherwise, as for any
// missing permission), the backup must be a successful backup of the same
// database (with seed_data, the parent branch's last one, the database
// allowing data branching), and a size is required for a backup_id
// (cluster_size, or cluster_name on PostgreSQL, unless
// keyspace_cluster_sizes sizes every keyspace). It returns nil when
// neither was given, once it has checked that the caller may create a
// branch from a parent.
func backupToRestore(c *call, p *platform.CreateBranchParams) (*backupRestore, error) {
	if p.BackupID == "" && p.SeedData == "" {
		// A branch from a parent takes create_branch (write_branches for
		// OAuth), as the spec says: the restore permissions and scopes,
		// which the row also lists, cover restoring a backup only, as
		// create_branch does not cover restoring one.
		if !c.holds([]string{"create_branch"}, []string{"write_branches"}, nil) {
			return nil, notFound()
		}
		if len(p.KeyspaceClusterSizes) > 0 {
			return nil, unprocessable("keyspace_cluster_sizes applies to backup restores (backup_id or seed_data)")
		}
		return nil, nil
	}
	if !c.holds([]string{restoreDevPerm, restoreProdPerm}, []string{restoreDevScope, restoreProdScope}, restoredBranch(c)) {
		return nil, notFound()
	}
	r := &backupRestore{}
	if p.SeedData != "" {
		seed, err := seedBackup(c, p)
		if err != nil {
			return nil, err
		}
		r.backup, r.seededFrom = seed.backup, seed.seededFrom
	} else {
		r.backup = c.db.backups.byID[p.BackupID]
		if r.backup == nil || !r.backup.findable() {
			return nil, unprocessable("backup_id %q is not a backup of %s", p.BackupID, c.db.name)
		}
	}
	bk := r.backup
	perm, scope := restoreDevPerm, restoreDevScope
	if bk.production {
		perm, scope = restoreProdPerm, restoreProdScope
	}
	if !c.holds([]string{perm}, []string{scope}, bk.branch) {
		return nil, notFound()
	}
	if bk.expired {
		return nil, unprocessable("backup %s expired at %s, the end of its retention (%d %s), and was deleted; it can no longer be restored",
			bk.id, bk.expiresAt().Format(time.RFC3339), bk.retention.value, bk.retention.unit)
	}
	if bk.state != platform.BackupSuccess {
		return nil, unprocessable("backup %s is %s; only a backup in state success can be restored", bk.id, bk.state)
	}
	size, err := requestedSize(c.db, p) // a new branch is a development branch
	if err != nil {
		return nil, err
	}
	r.clusterSize = size
	if r.keyspaceSizes, err = keyspaceSizesFor(c.db, bk, p.KeyspaceClusterSizes); err != nil {
		return nil, err
	}
	if size == "" && r.seededFrom == nil {
		for _, ks := range bk.snapshot.keyspaces {
			if r.keyspaceSizes[ks.name] == "" {
				if len(r.keyspaceSizes) == 0 {
					return nil, unprocessable("cluster_size is required when restoring a backup (backup_id)")
				}
				return nil, unprocessable("cluster_size is required when restoring a backup (backup_id): keyspace_cluster_sizes gives keyspace %s no size", ks.name)
			}
		}
	}
	return r, nil
}

// seedBackup finds the backup a create_branch request's seed_data
// restores: the last successful backup of its parent branch.
func seedBackup(c *call, p *platform.CreateBranchParams) (*backupRestore, error) {
	switch {
	case p.SeedData != platform.SeedLastSuccessfulBackup:
		return nil, unprocessable("seed_data %q is not a seed: the one seed is %q", p.SeedData, platform.SeedLastSuccessfulBackup)
	case p.BackupID != "":
		return nil, unprocessable("backup_id and seed_data both name a backup to restore; give one")
	case !c.db.allowDataBranching:
		return nil, unprocessable("seed_data needs data branching, which %s does not allow; turn allow_data_branching on first", c.db.name)
	}
	parent, err := parentFor(c, p)
	if err != nil {
		return nil, err
	}
	bk := c.db.backups.lastSuccessful(parent)
	if bk == nil {
		return nil, unprocessable("seed_data %q: branch %s has no successful backup", p.SeedData, parent.name)
	}
	return &backupRestore{backup: bk, seededFrom: parent}, nil
}

// lastSuccessful is b's live successful backup that completed last; nil
// when it has none.
func (st *backupStore) lastSuccessful(b *branchRec) *backupRec {
	var last *backupRec
	for _, bk := range st.of(b).live.All() {
		if bk.state == platform.BackupSuccess && !bk.deleted && (last == nil || !bk.completed.Before(last.completed)) {
			last = bk
		}
	}
	return last
}

// keyspaceSizesFor checks a restore's keyspace_cluster_sizes against the
// backup bk: MySQL only, each entry naming one of its keyspaces once and a
// size of the catalogue. It returns the sizes by keyspace name.
func keyspaceSizesFor(db *dbRec, bk *backupRec, list []platform.KeyspaceClusterSize) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if db.kind != platform.KindMySQL {
		return nil, unprocessable("keyspace_cluster_sizes applies to mysql backup restores; %s is a %s database", db.name, db.kind)
	}
	sizes := make(map[string]string, len(list))
	for i, k := range list {
		switch {
		case k.KeyspaceName == "":
			return nil, unprocessable("keyspace_cluster_sizes[%d].keyspace_name is required", i)
		case !slices.ContainsFunc(bk.snapshot.keyspaces, func(ks snapshotKeyspace) bool { return ks.name == k.KeyspaceName }):
			return nil, unprocessable("keyspace_cluster_sizes[%d].keyspace_name %q is not a keyspace of backup %s", i, k.KeyspaceName, bk.id)
		case sizes[k.KeyspaceName] != "":
			return nil, unprocessable("keyspace_cluster_sizes[%d].keyspace_name %q is given twice", i, k.KeyspaceName)
		}
		size, err := clusterSizeFor(fmt.Sprintf("keyspace_cluster_sizes[%d].cluster_size", i), k.ClusterSize, newClusterScope(db.kind, db.region), false)
		if err != nil {
			return nil, err
		}
		sizes[k.KeyspaceName] = size
	}
	return sizes, nil
}

// sizeOf is the size the restore gives the keyspace named name:
// keyspace_cluster_sizes', else cluster_size, else (a seeded branch) the
// parent's keyspace of that name's, or its default keyspace's.
func (r *backupRestore) sizeOf(name string) string {
	if size := cmp.Or(r.keyspaceSizes[name], r.clusterSize); size != "" {
		return size
	}
	if ks := r.seededFrom.keyspace(name); ks != nil {
		return ks.clusterSize
	}
	return r.seededFrom.defaultKeyspace().clusterSize
}

// restoreInto gives the new branch b the schema of the backup being
// restored, in place of its parent's, and links the two. A nil restore
// does nothing.
func (w *world) restoreInto(b *branchRec, r *backupRestore) {
	if r == nil {
		return
	}
	now := w.clock.Now()
	b.keyspaces = index[*keyspaceRec]{}
	for i, from := range r.backup.snapshot.keyspaces {
		// A nanosecond apart, as copyKeyspaces makes them, so that they
		// list in the backed-up branch's order.
		ks := w.newKeyspace(b, from.name, now.Add(time.Duration(i)))
		ks.shards, ks.extraReplicas, ks.isDefault = from.shards, from.extraReplicas, from.isDefault
		ks.clusterSize = r.sizeOf(from.name)
		ks.tables = cloneMap(from.tables)
	}
	// The branch starts from the backup's schema: its deploy requests
	// bring what changed since.
	b.x().base = schemaOf(b)
	w.meterBranch(b, now)
	b.restoredFrom = r.backup.branch
	b.initialRestoreID = r.backup.id
	r.backup.restored = append(r.backup.restored, b)
	r.backup.updated = now
}

// pitrRetention is how far back a branch's point-in-time recovery
// window reaches: the retention of every database's required backup
// policy as it is created (7 days), which the fake takes for the log
// kept for recovery too.
const pitrRetention = 7 * 24 * time.Hour

// recoveryWindow is the span of times b can be restored to at now: from
// its creation, at most pitrRetention back, to now.
func (b *branchRec) recoveryWindow(now time.Time) (from, to time.Time) {
	from = now.Add(-pitrRetention)
	if b.created.After(from) {
		from = b.created
	}
	return from, now
}

// pointRestore is a branch restored to a point in time: its parent as it
// was then.
type pointRestore struct {
	parent *branchRec
	at     time.Time
}

// restorePointFor checks the restore_point of a create_branch request,
// before anything changes; nil when it has none. Restoring the parent to
// a point in time takes what restoring a backup of it takes: the restore
// permission of its kind of branch (restore_backup for a development
// branch, restore_production_branch_backup for a production one; the
// restore scopes for OAuth, on the parent too). The database must be a
// PostgreSQL one, no backup_id or seed_data may be given, and the time
// must be within the parent's recovery window (see recoveryWindow).
func restorePointFor(c *call, p *platform.CreateBranchParams) (*pointRestore, error) {
	if p.RestorePoint == nil {
		return nil, nil
	}
	if !c.holds([]string{restoreDevPerm, restoreProdPerm}, []string{restoreDevScope, restoreProdScope}, restoredBranch(c)) {
		return nil, notFound()
	}
	switch {
	case c.db.kind != platform.KindPostgreSQL:
		return nil, unprocessable("restore_point (point-in-time recovery) applies to postgresql databases; %s is a %s database", c.db.name, c.db.kind)
	case p.BackupID != "":
		return nil, unprocessable("restore_point and backup_id both say what to restore; give one")
	case p.SeedData != "":
		return nil, unprocessable("restore_point and seed_data both say what to restore; give one")
	case len(p.KeyspaceClusterSizes) > 0:
		return nil, unprocessable("keyspace_cluster_sizes applies to mysql backup restores; %s is a %s database", c.db.name, c.db.kind)
	}
	parent, err := parentFor(c, p)
	if err != nil {
		return nil, err
	}
	perm, scope := restoreDevPerm, restoreDevScope
	if parent.production {
		perm, scope = restoreProdPerm, restoreProdScope
	}
	if !c.holds([]string{perm}, []string{scope}, parent) {
		return nil, notFound()
	}
	at := p.RestorePoint.UTC()
	from, to := parent.recoveryWindow(c.now)
	switch {
	case at.After(to):
		return nil, unprocessable("restore_point %s is in the future: it is %s now", at.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))
	case at.Before(from):
		return nil, unprocessable("restore_point %s is outside the point-in-time window of branch %s, %s to %s (from its creation, %d days back at most)",
			at.Format(time.RFC3339Nano), parent.name, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), pitrRetention/(24*time.Hour))
	}
	return &pointRestore{parent: parent, at: at}, nil
}

// restoreToPoint links the new branch b to the parent it restores as of
// r's time. The fake keeps no history of a branch's schema, so b holds
// its parent's schema as it is now (newBranch copied it), which is its
// schema at r's time when the parent's schema has not changed since. A
// nil restore does nothing.
func (w *world) restoreToPoint(b *branchRec, r *pointRestore) {
	if r == nil {
		return
	}
	b.restoredFrom = r.parent
	b.x().restorePoint = &r.at
}
