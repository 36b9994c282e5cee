package fake

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
