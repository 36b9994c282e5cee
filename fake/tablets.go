package fake

import (
	"fmt"
	"hash/fnv"
)

// tabletAlias names a MySQL branch's tablet as Vitess does,
// "<cell>-<10-digit uid>": the cell is the branch's region, and the uid
// follows from the branch, the keyspace, the shard and the tablet's place
// among the shard's tablets (0 for the primary), so that the same tablet
// keeps its alias across reads and snapshots.
func tabletAlias(b *branchRec, keyspace, shard string, n int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", b.id, keyspace, shard)
	uid := 1_000_000_000 + uint64(h.Sum32())%8_000_000_000 + uint64(n)
	return fmt.Sprintf("%s-%010d", b.region.slug, uid)
}
