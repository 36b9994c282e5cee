package fake

import (
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
	backup      *backupRec
	clusterSize string
}

// backupToRestore checks the backup_id of a create_branch request, before
// anything changes: the caller must hold the restore permission for the
// backup's kind of branch (404 otherwise, as for any missing permission),
// the backup must be a successful backup of the same database, and a
// cluster_size is required. It returns nil when no backup_id was given,
// once it has checked that the caller may create a branch from a parent.
func backupToRestore(c *call, p *platform.CreateBranchParams) (*backupRestore, error) {
	if p.BackupID == "" {
		// A branch from a parent takes create_branch (write_branches for
		// OAuth), as the spec says: the restore permissions and scopes,
		// which the row also lists, cover restoring a backup only, as
		// create_branch does not cover restoring one.
		if !c.holds([]string{"create_branch"}, []string{"write_branches"}, nil) {
			return nil, notFound()
		}
		return nil, nil
	}
	// The permissions, and the OAuth scopes (held on the database, its
	// organization or the backup's branch).
	const devPerm, prodPerm = "restore_backup", "restore_production_branch_backup"
	const devScope, prodScope = "restore_backups", "restore_production_branch_backups"
	if !c.holds([]string{devPerm, prodPerm}, []string{devScope, prodScope}, restoredBranch(c)) {
		return nil, notFound()
	}
	bk := c.db.backups.byID[p.BackupID]
	if bk == nil || !bk.findable() {
		return nil, unprocessable("backup_id %q is not a backup of %s", p.BackupID, c.db.name)
	}
	perm, scope := devPerm, devScope
	if bk.production {
		perm, scope = prodPerm, prodScope
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
	if p.ClusterSize == "" {
		return nil, unprocessable("cluster_size is required when restoring a backup (backup_id)")
	}
	size, err := clusterSizeFor("cluster_size", p.ClusterSize, c.db.kind, false) // a new branch is a development branch
	if err != nil {
		return nil, err
	}
	return &backupRestore{backup: bk, clusterSize: size}, nil
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
		ks.clusterSize = r.clusterSize
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
