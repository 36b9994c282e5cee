package fake

import (
	"fmt"
	"math"
	"slices"

	"github.com/dbplatform/platform-go"
)

// Storage checks. A table's size is what SetTableSize last set on its
// branch, else defaultTableSize. A keyspace's data is spread evenly over
// its shards. A deployment needs, per shard, room for a copy of each table
// it alters there (an online schema change builds the new table beside the
// old one); creating or dropping a table needs none. A shard's capacity is
// its cluster size's storage where the catalogue fixes one (Metal sizes);
// other sizes grow their volume with the data in steps of storageStep, so
// they always have room. The report holds the keyspaces of the branch
// deployed into that the deployment changes.

// defaultTableSize is the size of a table no test has sized: an empty
// table's first page.
const defaultTableSize = 16 << 10

// storageStep is the step a volume that grows with its data grows by.
const storageStep = 10 * gib

// SetTableSize sets the size in bytes of a table of a branch, which
// storage checks of deploy requests count; keyspace "" is the branch's
// default keyspace. The size stays with the table until it is set again
// or the table is dropped.
func (s *Server) SetTableSize(org, database, branch, keyspace, table string, bytes int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return methodErr("SetTableSize", err)
	}
	ks := b.defaultKeyspace()
	if keyspace != "" {
		if ks = b.keyspace(keyspace); ks == nil {
			return fmt.Errorf("fake: SetTableSize: keyspace %q does not exist on branch %s", keyspace, b.name)
		}
	}
	switch {
	case ks.tables[table] == "":
		return fmt.Errorf("fake: SetTableSize: table %q does not exist in keyspace %s", table, ks.name)
	case bytes < 0:
		return fmt.Errorf("fake: SetTableSize: size %d is negative", bytes)
	}
	ks.setTableSize(table, bytes)
	return nil
}

// setTableSize records the size of a table of ks.
func (ks *keyspaceRec) setTableSize(table string, bytes int64) {
	x := ks.branch.db.extras()
	if x.sizes == nil {
		x.sizes = map[tableRef]int64{}
	}
	x.sizes[tableRef{ks, table}] = bytes
}

// tableSize is the size of a table of ks.
func (ks *keyspaceRec) tableSize(table string) int64 {
	if x := ks.branch.db.extra.peek(); x != nil {
		if n, ok := x.sizes[tableRef{ks, table}]; ok {
			return n
		}
	}
	return defaultTableSize
}

// savedSizes are the sizes set on tables of ks, by table; nil for none.
func (ks *keyspaceRec) savedSizes() map[string]int64 {
	var out map[string]int64
	if x := ks.branch.db.extra.peek(); x != nil {
		for ref, n := range x.sizes {
			if ref.ks == ks {
				if out == nil {
					out = map[string]int64{}
				}
				out[ref.table] = n
			}
		}
	}
	return out
}

// pruneTableSizes forgets the sizes of tables db's branches no longer
// have.
func (db *dbRec) pruneTableSizes() {
	if db.extra.peek() == nil {
		return
	}
	for ref := range db.extra.peek().sizes {
		if ref.ks.deleted || ref.ks.branch.deleted || ref.ks.tables[ref.table] == "" {
			delete(db.extra.peek().sizes, ref)
		}
	}
}

func storageCheckRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/storage-check", op: "check_deploy_request_storage", handler: read(checkDeployRequestStorage)},
	}
}

func checkDeployRequestStorage(c *call) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	return storageCheck(dr), nil
}

// storageCheck checks the storage of the branch dr deploys into for the
// operations of its deployment (those its check found, or, before the
// check, the difference of the two branches now).
func storageCheck(dr *drRec) *platform.StorageCheck {
	ops := dr.dep.ops
	if dr.dep.state == platform.DeploymentPending {
		ops = planDeploy(dr.head, dr.into).ops
	}
	out := &platform.StorageCheck{EnoughStorage: true, Upgradeable: true, StorageReport: map[string]map[string]*platform.ShardStorage{}}
	var changed []*keyspaceRec
	for _, op := range ops {
		if ks := dr.into.keyspace(op.keyspace); ks != nil && !slices.Contains(changed, ks) {
			changed = append(changed, ks)
		}
	}
	for _, ks := range changed {
		shards := int64(max(ks.shards, 1))
		var used, needed int64
		for table := range ks.tables {
			used += ks.tableSize(table)
		}
		for _, op := range ops {
			if op.keyspace == ks.name && op.name == platform.OperationAlter {
				needed += ks.tableSize(op.table)
			}
		}
		used, needed = used/shards, needed/shards
		capacity := int64(0)
		sku := skuByName[ks.clusterSize]
		if sku != nil && sku.storage > 0 {
			capacity = sku.storage
			out.Upgradeable = out.Upgradeable && largerStorage(sku, dr.db.kind)
		} else {
			capacity = max(storageStep, (used+needed+storageStep-1)/storageStep*storageStep)
		}
		report := map[string]*platform.ShardStorage{}
		for _, name := range shardNames(int(shards)) {
			sh := &platform.ShardStorage{
				Used: used, Capacity: capacity, Remaining: max(capacity-used, 0),
				PercentageUsed: math.Round(float64(used)*10000/float64(capacity)) / 100,
				StorageNeeded:  needed,
			}
			sh.HasEnough = sh.Remaining >= needed
			out.EnoughStorage = out.EnoughStorage && sh.HasEnough
			out.StorageBytesNeeded += needed
			report[name] = sh
		}
		out.StorageReport[ks.name] = report
	}
	return out
}

// largerStorage reports whether the catalogue offers databases of kind a
// size with more storage than sku.
func largerStorage(sku *clusterSKU, kind platform.DatabaseKind) bool {
	for _, other := range clusterSKUs {
		if other.storage > sku.storage && other.offers(kind) {
			return true
		}
	}
	return false
}
