package fake

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// This file holds a branch's infrastructure, which several resource groups
// show or name: its pods (get_branch_infrastructure, the metrics), and the
// names of its shards, PostgreSQL instances and bouncer servers.

// renderInfrastructure renders what a branch's cluster runs: a MySQL
// branch's pods (infraPods), a PostgreSQL branch's instances and bouncers
// (renderPostgresInfrastructure).
func renderInfrastructure(b *branchRec) *platform.BranchInfrastructure {
	if b.db.kind == platform.KindPostgreSQL {
		return &platform.BranchInfrastructure{Type: platform.InfrastructurePostgres, Postgres: renderPostgresInfrastructure(b)}
	}
	return infraPods(b)
}

// renderPostgresInfrastructure renders a PostgreSQL branch's instances and
// bouncers from its model: instance i of infraPods (numbered from 0, as
// many as its default keyspace has replicas plus one) in zone i%3+1 of
// its region, the one a switchover last promoted (0 before any) its
// primary, promoted when that switchover completed; each instance's volume
// holds the branch's tables (tableBytes), and is as large as its storage's
// minimum, or grown to hold them up to its maximum. The bouncers are
// those whose servers run. It is "pending" until the branch and its
// default keyspace are ready. The fake schedules no disk replacement and
// blocks no volume change, and its volumes do not shrink: those fields are
// null. A restart switchover makes it "pending" while the instance
// restarts.
func renderPostgresInfrastructure(b *branchRec) *platform.PostgresInfrastructure {
	n, primary := b.postgresInstances(), b.primaryInstance()
	out := &platform.PostgresInfrastructure{
		State:       "pending",
		PrimaryName: postgresInstanceName(b, primary),
		Nodes:       make([]*platform.PostgresNode, 0, n),
		Bouncers:    []*platform.InfrastructureBouncer{},
	}
	def := b.defaultKeyspace()
	restarting := false
	for i := range n {
		restarting = restarting || b.restarting(i)
	}
	if b.ready && def.ready && !restarting {
		out.State = "ready"
	}
	for _, sw := range slices.Backward(b.more.read().switchovers.All()) {
		if sw.state == platform.SwitchoverSucceeded {
			out.PrimaryPromotedAt = ptrTime(sw.completed)
			break
		}
	}
	size := def.clusterSize
	used := b.tableBytes()
	storage := b.clusterView().storage
	capacity := storage.min
	if used > capacity {
		capacity = min((used+gib-1)/gib*gib, storage.max)
	}
	for i := range n {
		role := "replica"
		if i == primary {
			role = "primary"
		}
		name := postgresInstanceName(b, i)
		out.Nodes = append(out.Nodes, &platform.PostgresNode{
			Name:                name,
			NormalizedName:      strings.TrimPrefix(name, b.id+"-"),
			Role:                role,
			AvailabilityZone:    fmt.Sprintf("%s-az%d", b.region.slug, i%3+1),
			ClusterName:         size,
			ClusterDisplayName:  clusterDisplayName(size),
			PeersCount:          n - 1,
			VolumeUsageBytes:    platform.Ptr(used),
			VolumeCapacityBytes: platform.Ptr(capacity),
			Region:              *renderPublicRegion(b.region),
		})
	}
	for _, bn := range b.more.read().bouncers.idx.All() {
		if !bn.ready || bn.deleted {
			continue
		}
		out.Bouncers = append(out.Bouncers, &platform.InfrastructureBouncer{
			ID: bn.id, Name: bn.name, Target: bn.config.target, ReplicasPerCell: bn.config.replicas,
			Region: *renderPublicRegion(b.region), SKU: platform.Ptr(bn.config.size.render()),
		})
	}
	return out
}

// infraPods derives a branch's pods from its keyspaces: a
// MySQL branch runs its query routers, and for each shard of each keyspace
// its tablets (vitess.go): a primary and the keyspace's replicas (the pod
// named primary is tablet 0, which a planned reparent may have made a
// replica of another's), plus the replicas of its
// read-only regions; a PostgreSQL branch runs instances numbered from 0,
// as many as its default keyspace has replicas plus one, of which one is
// the primary (0 until a switchover promotes another). A pod is running
// once the branch and its keyspace (or read-only region) are ready; a
// PostgreSQL instance that a switchover restarts is pending while it runs.
// The metrics place
// their tablets on these pods; get_branch_infrastructure shows them for a
// MySQL branch.
func infraPods(b *branchRec) *platform.BranchInfrastructure {
	out := &platform.BranchInfrastructure{Type: platform.InfrastructureVitess, Ready: true, Pods: []*platform.InfrastructurePod{}}
	add := func(name, component, cell, size string, ready bool, ks *keyspaceRec, shard, tabletType string) {
		pod := &platform.InfrastructurePod{
			Name: name, Component: component, Cell: cell, Size: size,
			Status: "Pending", Ready: "0/1", CreatedAt: ptrTime(b.created),
		}
		if ready {
			pod.Status, pod.Ready = "Running", "1/1"
		} else {
			out.Ready = false
		}
		if ks != nil {
			pod.CreatedAt = ptrTime(ks.created)
			pod.TabletType = platform.Ptr(tabletType)
			if b.db.kind == platform.KindMySQL {
				pod.Keyspace, pod.Shard = platform.Ptr(ks.name), platform.Ptr(shard)
			}
		}
		out.Pods = append(out.Pods, pod)
	}
	// tablets adds a shard's tablets: with primary, the pod "-primary"
	// (tablet 0) and the pods "-replica-<i>" (tablet i+1), the one whose
	// tablet is the shard's primary (see vitess.go) of type primary;
	// without, n replicas.
	tablets := func(prefix, component, cell, size string, ready bool, ks *keyspaceRec, shard string, primary bool, n int) {
		typ := func(i int) string {
			if primary && i == primaryIndex(ks, shard) {
				return "primary"
			}
			return "replica"
		}
		if primary {
			add(prefix+"-primary", component, cell, size, ready, ks, shard, typ(0))
		}
		for i := range n {
			idx := i
			if primary {
				idx = i + 1
			}
			add(fmt.Sprintf("%s-replica-%d", prefix, i), component, cell, size, ready, ks, shard, typ(idx))
		}
	}
	keyspaces := b.keyspaces.All()
	if b.db.kind == platform.KindPostgreSQL {
		for _, ks := range keyspaces {
			if !ks.isDefault {
				continue
			}
			primary := b.primaryInstance()
			for i := range b.postgresInstances() {
				tabletType := "replica"
				if i == primary {
					tabletType = "primary"
				}
				add(postgresInstanceName(b, i), "postgres", b.region.slug, ks.clusterSize, b.ready && ks.ready && !b.restarting(i), ks, "", tabletType)
			}
		}
		return out
	}
	vtgate := b.clusterView().vtgate
	for i := range vtgate.count * vtgateZones(b) {
		add(fmt.Sprintf("%s-vtgate-%d", b.id, i), "vtgate", b.region.slug, vtgate.size, b.ready, nil, "", "")
	}
	for _, ks := range keyspaces {
		for _, shard := range shardNames(ks.shards) {
			prefix := b.id + "-" + ks.name + "-" + strings.ReplaceAll(shard, "-", "x")
			tablets(prefix, "vttablet", b.region.slug, ks.clusterSize, b.ready && ks.ready, ks, shard, true, ks.replicas())
			for _, ro := range ks.more.read().readOnlyRegions {
				tablets(prefix+"-"+ro.region.slug, "vttablet", ro.region.slug, ro.clusterSize, b.ready && ks.ready && ro.branchRegion.ready(), ks, shard, false, ro.replicas)
			}
		}
	}
	return out
}

// postgresInstanceName names instance i of a PostgreSQL branch, as its
// infrastructure lists it.
func postgresInstanceName(b *branchRec, i int) string {
	return fmt.Sprintf("%s-postgres-%d", b.id, i)
}

// shardNames names n shards the way key ranges are written ("-", or
// "-80", "80-" for two).
func shardNames(n int) []string {
	if n <= 1 {
		return []string{"-"}
	}
	out := make([]string, n)
	step := 256 / n
	for i := range n {
		lo, hi := "", ""
		if i > 0 {
			lo = hex2(i * step)
		}
		if i < n-1 {
			hi = hex2((i + 1) * step)
		}
		out[i] = lo + "-" + hi
	}
	return out
}

func hex2(v int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[(v>>4)&15], digits[v&15]})
}
