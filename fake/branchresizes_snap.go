package fake

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a branch's cluster configuration and its resize and
// change requests, with the branch; none before its first request.

type branchClusterSnap struct {
	VTGate  vtgateSnap                `json:"vtgate"`
	Storage storageSnap               `json:"storage"`
	Params  map[string]paramValueSnap `json:"parameters,omitempty"`
	Resized bool                      `json:"resized"`
	Resizes []branchChangeSnap        `json:"resizes"`
	Changes []branchChangeSnap        `json:"changes"`
}

type vtgateSnap struct {
	Size        string `json:"size"`
	Count       int    `json:"count"`
	MaxCount    int    `json:"max_count"`
	Autoscaling bool   `json:"autoscaling"`
	TargetCPU   int    `json:"target_cpu"`
}

type storageSnap struct {
	Min         int64 `json:"min"`
	Max         int64 `json:"max"`
	Autoscaling bool  `json:"autoscaling"`
	IOPS        int   `json:"iops"`
	Throughput  int   `json:"throughput"`
}

type paramValueSnap struct {
	Value   string    `json:"value"`
	Updated time.Time `json:"updated"`
	Actor   string    `json:"actor"`
}

type clusterStateSnap struct {
	ClusterSize string            `json:"cluster_size"`
	Replicas    int               `json:"replicas"`
	VTGate      vtgateSnap        `json:"vtgate"`
	Storage     storageSnap       `json:"storage"`
	Params      map[string]string `json:"parameters,omitempty"`
}

type branchChangeSnap struct {
	stampsSnap
	Actor     string                     `json:"actor"`
	State     platform.BranchChangeState `json:"state"`
	Started   time.Time                  `json:"started"`
	Completed time.Time                  `json:"completed"`
	Before    clusterStateSnap           `json:"before"`
	After     clusterStateSnap           `json:"after"`
}

func saveVTGate(v vtgateConfig) vtgateSnap {
	return vtgateSnap{v.size, v.count, v.maxCount, v.autoscaling, v.targetCPU}
}

func (v vtgateSnap) load() vtgateConfig {
	return vtgateConfig{v.Size, v.Count, v.MaxCount, v.Autoscaling, v.TargetCPU}
}

func saveStorage(st storageConfig) storageSnap {
	return storageSnap{st.min, st.max, st.autoscaling, st.iops, st.throughput}
}

func (st storageSnap) load() storageConfig {
	return storageConfig{st.Min, st.Max, st.Autoscaling, st.IOPS, st.Throughput}
}

func saveClusterState(c clusterState) clusterStateSnap {
	return clusterStateSnap{c.clusterSize, c.replicas, saveVTGate(c.vtgate), saveStorage(c.storage), c.params}
}

// validate checks a query router configuration as update_branch_resize
// checks the one it makes: a size of the list, a count of 1 to maxVTGates,
// a maximum (0 until one is set) not below the count when it autoscales, a
// target CPU of at most 100.
func (v vtgateSnap) validate() error {
	switch {
	case !slices.Contains(vtgateSizes, v.Size):
		return at(fmt.Errorf("%q is not a query router size", v.Size), "size")
	case v.Count < 1 || v.Count > maxVTGates:
		return at(snapRange(v.Count, 1, maxVTGates), "count")
	case v.MaxCount < 0 || v.MaxCount > maxVTGates:
		return at(snapRange(v.MaxCount, 0, maxVTGates), "max_count")
	case v.Autoscaling && v.MaxCount < v.Count:
		return at(fmt.Errorf("%d is below count %d: autoscaling needs room to grow", v.MaxCount, v.Count), "max_count")
	case v.TargetCPU < 0 || v.TargetCPU > 100:
		return at(snapRange(v.TargetCPU, 0, 100), "target_cpu")
	}
	return nil
}

// validate checks a storage configuration with checkStorage, as
// update_branch_change_request checks the one it makes.
func (st storageSnap) validate() error {
	_, err := checkStorage(st.load(), &platform.BranchStorage{})
	return snapCheck(err)
}

// validateCluster checks a query router and storage configuration.
func validateCluster(v vtgateSnap, st storageSnap) error {
	return firstErr(at(v.validate(), "vtgate"), at(st.validate(), "storage"))
}

// load checks that the state of a request of b names a size of the
// catalogue as the server stores it for b (see snapClusterSize; an older
// snapshot's PostgreSQL size is named as now, see snapPostgresSize) and
// only known parameters. Its parameters are never nil, as the server's are
// (a request adds to them), though a snapshot leaves them out when there
// are none.
func (c clusterStateSnap) load(b *branchRec) (clusterState, error) {
	for name := range c.Params {
		if paramByName[name] == nil {
			return clusterState{}, fmt.Errorf("unknown parameter %q", name)
		}
	}
	if err := validateCluster(c.VTGate, c.Storage); err != nil {
		return clusterState{}, err
	}
	size := snapPostgresSize(c.ClusterSize, b.db.kind, b.region)
	if err := snapClusterSize(size, newClusterScope(b.db.kind, b.region), false); err != nil {
		return clusterState{}, at(err, "cluster_size")
	}
	params := c.Params
	if params == nil {
		params = map[string]string{}
	}
	return clusterState{size, c.Replicas, c.VTGate.load(), c.Storage.load(), params}, nil
}

// saveBranchCluster saves b's cluster configuration and requests; nil when
// it has had none.
func saveBranchCluster(b *branchRec) *branchClusterSnap {
	cl := b.cluster
	if cl == nil {
		return nil
	}
	out := &branchClusterSnap{VTGate: saveVTGate(cl.vtgate), Storage: saveStorage(cl.storage), Resized: cl.resized}
	for name, v := range cl.params {
		if out.Params == nil {
			out.Params = map[string]paramValueSnap{}
		}
		out.Params[name] = paramValueSnap{v.value, v.updated, idOf(v.actor)}
	}
	for _, list := range []struct {
		from *index[*branchChangeRec]
		to   *[]branchChangeSnap
	}{{&cl.resizes, &out.Resizes}, {&cl.changes, &out.Changes}} {
		for _, r := range list.from.All() {
			*list.to = append(*list.to, branchChangeSnap{
				stampsSnap: saveStamps(r.stamps), Actor: idOf(r.actor), State: r.state,
				Started: r.started, Completed: r.completed,
				Before: saveClusterState(r.before), After: saveClusterState(r.after),
			})
		}
	}
	return out
}

// loadBranchCluster loads b's cluster configuration and requests; the one
// queued or resizing is b's pending request.
func (ld *loader) loadBranchCluster(b *branchRec, cs *branchClusterSnap) error {
	if cs == nil {
		return nil
	}
	if err := validateCluster(cs.VTGate, cs.Storage); err != nil {
		return at(err, "cluster")
	}
	cl := &branchCluster{vtgate: cs.VTGate.load(), storage: cs.Storage.load(), resized: cs.Resized}
	for _, name := range sortedKeys(cs.Params) { // the first refused, of a map, is the same at every load
		ps := cs.Params[name]
		if paramByName[name] == nil {
			return at(errors.New("unknown parameter"), "cluster.parameters.%s", name)
		}
		actor, err := ref(ld.users, ps.Actor, "parameter actor")
		if err != nil {
			return at(err, "cluster.parameters.%s.actor", name)
		}
		if cl.params == nil {
			cl.params = map[string]paramValue{}
		}
		cl.params[name] = paramValue{ps.Value, ps.Updated, actor}
	}
	for _, list := range []struct {
		resize bool
		field  string
		from   []branchChangeSnap
		to     *index[*branchChangeRec]
	}{{true, "resizes", cs.Resizes, &cl.resizes}, {false, "changes", cs.Changes, &cl.changes}} {
		for i, rs := range list.from {
			r, err := ld.loadBranchChange(b, list.resize, rs)
			if err != nil {
				return at(named(err, "branch request %s", rs.ID), "cluster.%s[%d]", list.field, i)
			}
			if r.state == platform.ChangeQueued || r.state == platform.ChangeResizing {
				if cl.pending != nil {
					return fmt.Errorf("requests %s and %s both in progress", cl.pending.id, r.id)
				}
				cl.pending = r
			}
			list.to.Add(r)
		}
	}
	b.cluster = cl
	return nil
}

func (ld *loader) loadBranchChange(b *branchRec, resize bool, rs branchChangeSnap) (*branchChangeRec, error) {
	if err := unique(ld.branchChanges, rs.ID, "branch request"); err != nil {
		return nil, err
	}
	actor, err := ref(ld.users, rs.Actor, "request actor")
	if err != nil {
		return nil, err
	}
	switch rs.State {
	case platform.ChangeQueued, platform.ChangeResizing, platform.ChangeCompleted, platform.ChangeCanceled:
	default:
		return nil, fmt.Errorf("unknown state %q", rs.State)
	}
	r := &branchChangeRec{
		stamps: rs.load(), branch: b, resize: resize, actor: actor, state: rs.State,
		started: rs.Started, completed: rs.Completed,
	}
	if r.before, err = rs.Before.load(b); err != nil {
		return nil, at(err, "before")
	}
	if r.after, err = rs.After.load(b); err != nil {
		return nil, at(err, "after")
	}
	ld.branchChanges[r.id] = r
	return r, nil
}
