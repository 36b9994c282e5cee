package fake

import (
	"fmt"
	"strings"

	"github.com/dbplatform/platform-go"
)

func branchChangeRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/parameters", op: "list_parameters", handler: read(listParameters)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/extensions", op: "list_extensions", handler: read(listExtensions)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/infrastructure", op: "get_branch_infrastructure", handler: read(getBranchInfrastructure)},
	}
}

func listParameters(c *call) (any, error) {
	b := c.branch
	params, r := clusterParams(b.db.kind), newParamRenderer(b)
	out := make([]*platform.ClusterParameter, len(params))
	for i, p := range params {
		out[i] = r.parameter(p)
	}
	return out, nil
}

func listExtensions(c *call) (any, error) {
	b := c.branch
	exts, r := clusterExtensions(b.db.kind), newParamRenderer(b)
	out := make([]*platform.ClusterExtension, len(exts))
	for i, e := range exts {
		out[i] = r.extension(e)
	}
	return out, nil
}

func getBranchInfrastructure(c *call) (any, error) {
	return renderInfrastructure(c.branch), nil
}

// vtgates is how many query routers a branch runs.
func vtgates(b *branchRec) int {
	if b.production {
		return 2
	}
	return 1
}

// renderInfrastructure derives a branch's pods from its keyspaces: a
// MySQL branch runs its query routers, and for each shard of each keyspace
// a primary and the keyspace's replicas, plus the replicas of its
// read-only regions; a PostgreSQL branch runs instances numbered from 0,
// as many as its default keyspace has replicas plus one, of which one is
// the primary (0 until a switchover promotes another). A pod is running
// once the branch and its keyspace (or read-only region) are ready.
func renderInfrastructure(b *branchRec) *platform.BranchInfrastructure {
	out := &platform.BranchInfrastructure{Type: "BranchInfrastructure", Ready: true, Pods: []*platform.InfrastructurePod{}}
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
	// tablets adds a shard's primary (when primary) and n replicas.
	tablets := func(prefix, component, cell, size string, ready bool, ks *keyspaceRec, shard string, primary bool, n int) {
		if primary {
			add(prefix+"-primary", component, cell, size, ready, ks, shard, "primary")
		}
		for i := range n {
			add(fmt.Sprintf("%s-replica-%d", prefix, i), component, cell, size, ready, ks, shard, "replica")
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
				add(postgresInstanceName(b, i), "postgres", b.region.slug, ks.clusterSize, b.ready && ks.ready, ks, "", tabletType)
			}
		}
		for _, bn := range b.x().bouncers.idx.All() {
			for i := range bn.config.replicas {
				add(bouncerPodName(bn, i), "pgbouncer", b.region.slug, bn.config.size.name, b.ready && bn.ready, nil, "", "")
				out.Pods[len(out.Pods)-1].CreatedAt = ptrTime(bn.created)
			}
		}
		return out
	}
	vtgate := defaultVTGate(b.db.clusterSize)
	for i := range vtgates(b) {
		add(fmt.Sprintf("%s-vtgate-%d", b.id, i), "vtgate", b.region.slug, vtgate, b.ready, nil, "", "")
	}
	for _, ks := range keyspaces {
		for _, shard := range shardNames(ks.shards) {
			prefix := b.id + "-" + ks.name + "-" + strings.ReplaceAll(shard, "-", "x")
			tablets(prefix, "vttablet", b.region.slug, ks.clusterSize, b.ready && ks.ready, ks, shard, true, ks.replicas())
			for _, ro := range peek(&ks.more).readOnlyRegions {
				tablets(prefix+"-"+ro.region.slug, "vttablet", ro.region.slug, ro.clusterSize, b.ready && ks.ready && ro.branchRegion.ready(), ks, shard, false, ro.replicas)
			}
		}
	}
	return out
}
