package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// opRec is one table change of a deployment.
type opRec struct {
	stamps
	keyspace string
	table    string
	name     platform.DeployOperationName
	ddl      string // the statement of the change
	create   string // the table's definition after the change; "" for a drop
	prev     string // the table's definition before the change; "" for a create
	state    platform.DeployOperationState
	shards   []shardRec // the shards of its keyspace the change runs on
}

// shardRec is one shard a deploy operation runs on.
type shardRec struct {
	id, name string
}

// diffSchemas lists the table changes that bring into's schema to head's,
// keyspace by keyspace (in head's keyspace order) and table by table (in
// name order): a table only in head is created, one only in into (in a
// keyspace head has) is dropped, one in both with different definitions is
// altered. The fake reports an alter's statement as the table's new
// definition.
func diffSchemas(head, into *branchRec) []*opRec {
	var ops []*opRec
	for _, hks := range head.keyspaces.All() {
		var base map[string]string
		if iks := into.keyspace(hks.name); iks != nil {
			base = iks.tables
		}
		names := map[string]bool{}
		for n := range hks.tables {
			names[n] = true
		}
		for n := range base {
			names[n] = true
		}
		for _, table := range sortedKeys(names) {
			after, before := hks.tables[table], base[table]
			op := &opRec{keyspace: hks.name, table: table, create: after, prev: before, state: platform.OperationPending}
			switch {
			case before == "":
				op.name, op.ddl = platform.OperationCreate, after
			case after == "":
				op.name, op.ddl = platform.OperationDrop, fmt.Sprintf("DROP TABLE `%s`", table)
			case !sqltext.SameDDL(before, after):
				op.name, op.ddl = platform.OperationAlter, after
			default:
				continue
			}
			ops = append(ops, op)
		}
	}
	return ops
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](set map[string]V) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// shardsOf is the shard count of the operation's keyspace: into's, or
// head's for a keyspace the deployment brings to into.
func shardsOf(op *opRec, head, into *branchRec) int {
	for _, b := range []*branchRec{into, head} {
		if ks := b.keyspace(op.keyspace); ks != nil {
			return max(ks.shards, 1)
		}
	}
	return 1
}

// touchesSharded reports whether any operation changes a sharded keyspace
// of head or into, which adds a VSchema step to the deployment.
func touchesSharded(ops []*opRec, head, into *branchRec) bool {
	for _, op := range ops {
		for _, b := range []*branchRec{head, into} {
			if ks := b.keyspace(op.keyspace); ks != nil && ks.shards > 1 {
				return true
			}
		}
	}
	return false
}

// tableState is a table's definition before a deployment changed it, for
// a revert; "" when the table did not exist.
type tableState struct {
	keyspace, table, create string
}

// applyOps applies a deployment's operations to into and returns what they
// replaced. A keyspace that into lacks is created like head's.
func (w *world) applyOps(into, head *branchRec, ops []*opRec, now time.Time) []tableState {
	var before []tableState
	for _, op := range ops {
		ks := into.keyspace(op.keyspace)
		if ks == nil {
			ks = w.newKeyspace(into, op.keyspace, now)
			ks.ready = true
			if hks := head.keyspace(op.keyspace); hks != nil {
				ks.shards, ks.extraReplicas, ks.clusterSize = hks.shards, hks.extraReplicas, hks.clusterSize
				w.meterKeyspace(ks, now)
			}
		}
		before = append(before, tableState{keyspace: op.keyspace, table: op.table, create: ks.tables[op.table]})
		if op.create == "" {
			delete(ks.tables, op.table)
		} else {
			ks.tables[op.table] = op.create
		}
	}
	return before
}

// restoreTables puts back the definitions applyOps replaced, last first.
func restoreTables(into *branchRec, before []tableState) {
	for i := len(before) - 1; i >= 0; i-- {
		t := before[i]
		ks := into.keyspace(t.keyspace)
		if ks == nil {
			continue
		}
		if t.create == "" {
			delete(ks.tables, t.table)
		} else {
			ks.tables[t.table] = t.create
		}
	}
}
