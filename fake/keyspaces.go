package fake

import "time"

// keyspaceRec is a keyspace of a branch, with the tables of its schema.
type keyspaceRec struct {
	stamps
	branch        *branchRec
	name          string
	shards        int
	extraReplicas int
	clusterSize   string
	ready         bool
	isDefault     bool
	tables        map[string]string // table name -> CREATE TABLE statement
}

// newKeyspace adds a keyspace to a branch.
func (w *world) newKeyspace(b *branchRec, name string, now time.Time) *keyspaceRec {
	ks := &keyspaceRec{
		stamps:      stamps{id: w.newID(), created: now, updated: now},
		branch:      b,
		name:        name,
		shards:      1,
		clusterSize: b.db.clusterSize,
		tables:      map[string]string{},
	}
	b.keyspaces.add(ks)
	b.keyspaceByName[name] = ks
	return ks
}

// copyKeyspaces gives b a copy of every keyspace of src, with its tables and
// settings, as branching copies a schema.
func (w *world) copyKeyspaces(b, src *branchRec, now time.Time) {
	for _, from := range src.keyspaces.all() {
		ks := w.newKeyspace(b, from.name, now)
		ks.shards, ks.extraReplicas, ks.clusterSize = from.shards, from.extraReplicas, from.clusterSize
		ks.isDefault = from.isDefault
		ks.tables = cloneMap(from.tables)
	}
}
