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
	errors   string     // its deploy_errors: why it failed; "" while it has not
}

// shardRec is one shard a deploy operation runs on.
type shardRec struct {
	id, name string
}

// A deploy request merges three schemas: the head branch's, the schema
// the head branch started from (its base: its parent's tables when it was
// created, or a backup's when it was restored from one), and the into
// branch's as it is now. The head's own changes are the tables it changed
// since its base; a deployment applies them to the into branch's schema
// and leaves every other table as the into branch has it. A table that
// the into branch also changed since the base, to a definition other than
// the head's, is a conflict, which the deployment cannot apply; the same
// change on both sides is nothing to do. A branch that records no base (the
// first branch of a database, or a branch of a snapshot taken before bases
// were kept) diffs against the into branch as it is now: the two-way
// comparison such snapshots were made with.

// schemaBase is what a branch's schema started from: tables by keyspace,
// each a map of table names to definitions.
type schemaBase map[string]map[string]string

// schemaOf copies b's tables, by keyspace, as a base for a branch made
// from it.
func schemaOf(b *branchRec) schemaBase {
	out := schemaBase{}
	for _, ks := range b.keyspaces.All() {
		out[ks.name] = cloneMap(ks.tables)
	}
	return out
}

// deployPlan is what a deployment from a head branch into another would
// do now: its operations, and the tables it cannot change (conflicts, as
// "keyspace.table", in the operations' order).
type deployPlan struct {
	ops       []*opRec
	conflicts []string
}

// planDeploy lists the table changes that bring head's own changes to
// into's schema, keyspace by keyspace (in head's keyspace order) and table
// by table (in name order): a table head created is created, one it
// dropped is dropped, one it changed is altered, each where into still has
// the table as head's base had it; tables head did not change are left
// alone. The fake reports an alter's statement as the table's new
// definition. The deployment's check, the branch and deploy request
// diffs and the storage check all read it.
func planDeploy(head, into *branchRec) deployPlan {
	base := head.more.read().base
	var plan deployPlan
	for _, hks := range head.keyspaces.All() {
		var now map[string]string
		if iks := into.keyspace(hks.name); iks != nil {
			now = iks.tables
		}
		was := now // no base: the two-way comparison
		if base != nil {
			was = base[hks.name]
		}
		names := map[string]bool{}
		for n := range hks.tables {
			names[n] = true
		}
		for n := range was {
			names[n] = true
		}
		for _, table := range sortedKeys(names) {
			after, from, before := hks.tables[table], was[table], now[table]
			switch {
			case sqltext.SameDDL(after, from): // head left it as it was
				continue
			case !sqltext.SameDDL(before, from): // into changed it too
				if !sqltext.SameDDL(before, after) {
					plan.conflicts = append(plan.conflicts, hks.name+"."+table)
				}
				continue
			}
			op := &opRec{keyspace: hks.name, table: table, create: after, prev: before, state: platform.OperationPending}
			switch {
			case before == "":
				op.name, op.ddl = platform.OperationCreate, after
			case after == "":
				op.name, op.ddl = platform.OperationDrop, fmt.Sprintf("DROP TABLE `%s`", table)
			default:
				op.name, op.ddl = platform.OperationAlter, after
			}
			plan.ops = append(plan.ops, op)
		}
	}
	return plan
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
