package fake

import "github.com/dbplatform/platform-go"

// The replicas a branch includes: keyspaces, branch change requests and
// databases count from them.

// includedReplicas is how many replicas each keyspace of a production
// branch has before extra_replicas; development branches include none.
const includedReplicas = 2

// included is how many replicas each keyspace of branch b has before
// extra_replicas: none on a development branch, or on any branch of a
// database created without high availability (replicas 0).
func included(b *branchRec) int {
	if b.production && !b.db.nonHA {
		return includedReplicas
	}
	return 0
}

// replicasChanged fits b to the PostgreSQL instances it runs after its
// replicas changed (a change request completed, a demotion): the instances
// above the new count are gone, so a primary among them passes its role to
// the first instance, and the sessions on them end. The primary otherwise
// stays where it is: only a switchover moves it.
func (w *world) replicasChanged(b *branchRec) {
	n := b.postgresInstances()
	if b.primary >= n {
		b.primary = 0
	}
	w.endStrandedSessions(b)
}

// checkReplicaRemoval refuses a change that leaves PostgreSQL branch b
// with replicas replicas, fewer than it runs, while something depends on
// those it removes: a switchover in progress, whose candidate may go, or,
// when none would be left, a bouncer that targets replicas (a bouncer
// needs replicas to target them, as at its creation). what names the
// change. Any other change, or any change of a MySQL branch, passes.
func (b *branchRec) checkReplicaRemoval(replicas int, what string) error {
	if b.db.kind != platform.KindPostgreSQL || replicas >= b.postgresInstances()-1 {
		return nil
	}
	if sw := b.more.read().switchovers.running; sw != nil {
		return unprocessable("%s removes replicas of branch %s, which has switchover %s %s; wait until it finishes", what, b.name, sw.id, sw.state)
	}
	if bn := b.replicaBouncer(); bn != nil && replicas == 0 {
		return unprocessable("%s removes every replica of branch %s, and bouncer %s targets replicas; retarget it to primary or delete it first", what, b.name, bn.name)
	}
	return nil
}

// replicaRemoval is b's queued or resizing change request that removes
// replicas of PostgreSQL branch b; nil when none does.
func (b *branchRec) replicaRemoval() *branchChangeRec {
	r := b.pendingChange()
	if b.db.kind != platform.KindPostgreSQL || r == nil || r.resize || r.after.replicas >= b.postgresInstances()-1 {
		return nil
	}
	return r
}
