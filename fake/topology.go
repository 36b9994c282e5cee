package fake

import (
	"hash/fnv"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// A MySQL branch's topology as several groups read it: the tablets of its
// shards, which of them is the primary, and its cells. The Vitess control
// plane (vitess.go) changes what a shard's state holds; the connections
// (connections.go) and the infrastructure (infrastructure.go) read it.

// keyspaceBase returns the uid base of ks among its branch's keyspaces.
func keyspaceBase(ks *keyspaceRec) uint32 {
	const n = 4293 // (2^32 - 1) / 10^6, rounded down, so uids fit 32 bits
	taken := map[uint32]bool{}
	for _, o := range ks.branch.keyspaces.All() {
		h := fnv.New32a()
		h.Write([]byte(o.name))
		base := h.Sum32()%n + 1
		for taken[base] {
			base = base%n + 1
		}
		if o == ks {
			return base
		}
		taken[base] = true
	}
	return 0 // ks is not a live keyspace of its branch
}

// shardTablets returns the tablets of a shard of ks: its primary and
// replicas in the branch region's cell, then the replicas of its read-only
// regions.
func shardTablets(ks *keyspaceRec, shard string) []vtTablet {
	b := ks.branch
	si := slices.Index(shardNames(ks.shards), shard)
	if si < 0 {
		return nil
	}
	base := keyspaceBase(ks)*1_000_000 + uint32(si)*1000
	primary := primaryIndex(ks, shard)
	out := make([]vtTablet, 0, 1+ks.replicas())
	for i := range 1 + ks.replicas() {
		t := vtTablet{alias: platform.TabletAlias{Cell: b.region.slug, UID: base + uint32(i)}, ks: ks, shard: shard, index: i, tabletType: platform.TabletReplica}
		if i == primary {
			t.tabletType = platform.TabletPrimary
		}
		out = append(out, t)
	}
	for _, ro := range ks.more.read().readOnlyRegions {
		first := readOnlyTabletBase + slices.Index(publicRegions, ro.region)*maxReadOnlyReplicas
		for i := range ro.replicas {
			out = append(out, vtTablet{
				alias: platform.TabletAlias{Cell: ro.region.slug, UID: base + uint32(first+i)},
				ks:    ks, shard: shard, index: first + i, tabletType: platform.TabletReplica, readOnly: true,
			})
		}
	}
	return out
}

// primaryIndex is the index of a shard's primary: the one a reparent
// made, while the keyspace still has that many replicas, else tablet 0.
func primaryIndex(ks *keyspaceRec, shard string) int {
	p := ks.branch.more.read().vitess.state(ks, shard).primary
	if p > ks.replicas() {
		return 0
	}
	return p
}

// allTablets returns every tablet of b, by keyspace and shard.
func allTablets(b *branchRec) []vtTablet {
	var out []vtTablet
	for _, ks := range b.keyspaces.All() {
		for _, shard := range shardNames(ks.shards) {
			out = append(out, shardTablets(ks, shard)...)
		}
	}
	return out
}

// branchCells are the cells of b: its region's and its read-only
// regions'.
func branchCells(b *branchRec) []string {
	out := []string{b.region.slug}
	for _, rr := range b.readOnlyRegions.All() {
		if !slices.Contains(out, rr.region.slug) {
			out = append(out, rr.region.slug)
		}
	}
	return out
}

// tabletTypes are the tablet types a tablet control names, in order.
var tabletTypes = []platform.TabletType{platform.TabletPrimary, platform.TabletReplica, platform.TabletRDOnly}

// parseTabletType reads a tablet type as the API takes it: "rdonly",
// "RDONLY" or "TABLET_TYPE_RDONLY".
func parseTabletType(s string) (platform.TabletType, bool) {
	t := platform.TabletType(strings.ToLower(strings.TrimPrefix(strings.ToUpper(s), "TABLET_TYPE_")))
	return t, slices.Contains(tabletTypes, t)
}

// protoTabletType is a tablet type's enum name in a Vitess document.
func protoTabletType(t platform.TabletType) string {
	return "TABLET_TYPE_" + strings.ToUpper(string(t))
}

// checkCells refuses cells that are not cells of b, naming field[i].
func checkCells(b *branchRec, field string, cells []string) error {
	known := branchCells(b)
	for i, c := range cells {
		if !slices.Contains(known, c) {
			return unprocessable("%s[%d] %q is not a cell of branch %s: its cells are %s", field, i, c, b.name, strings.Join(known, ", "))
		}
	}
	return nil
}

// vitessKind refuses the Vitess control plane of a PostgreSQL branch.
func vitessKind(b *branchRec) error {
	if b.db.kind != platform.KindMySQL {
		return unprocessable("the Vitess control plane is MySQL's; %s is a %s database", b.db.name, b.db.kind)
	}
	return nil
}
