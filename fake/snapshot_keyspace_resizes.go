package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of keyspace resize requests, with their keyspace.

type keyspaceResizeSnap struct {
	stampsSnap
	Actor        string                       `json:"actor"`
	State        platform.KeyspaceResizeState `json:"state"`
	Started      time.Time                    `json:"started"`
	Completed    time.Time                    `json:"completed"`
	ShardTime    time.Duration                `json:"shard_time"`
	From         keyspaceSizeSnap             `json:"from"`
	To           keyspaceSizeSnap             `json:"to"`
	Replicas     int                          `json:"replicas"`
	PrevReplicas int                          `json:"previous_replicas"`
}

type keyspaceSizeSnap struct {
	ClusterSize   string   `json:"cluster_size"`
	ExtraReplicas int      `json:"extra_replicas"`
	VectorPool    *float64 `json:"vector_pool,omitempty"`
}

func saveKeyspaceSize(z keyspaceSize) keyspaceSizeSnap {
	return keyspaceSizeSnap{z.clusterSize, z.extraReplicas, z.vectorPool}
}

func (z keyspaceSizeSnap) load() keyspaceSize {
	return keyspaceSize{z.ClusterSize, z.ExtraReplicas, z.VectorPool}
}

// saveKeyspaceResizes saves the resize requests of ks, and its latest
// completed one by ID.
func saveKeyspaceResizes(ks *keyspaceRec) (list []keyspaceResizeSnap, last string) {
	m := ks.more.read()
	for _, r := range m.resizes.All() {
		list = append(list, keyspaceResizeSnap{
			stampsSnap: saveStamps(r.stamps), Actor: idOf(r.actor), State: r.state,
			Started: r.started, Completed: r.completed, ShardTime: r.shardTime,
			From: saveKeyspaceSize(r.from), To: saveKeyspaceSize(r.to),
			Replicas: r.replicas, PrevReplicas: r.prevReplicas,
		})
	}
	return list, idOf(m.lastResize)
}

// loadKeyspaceResizes loads the resize requests of ks: the one queued or
// resizing is its resize in progress, and last its latest completed one.
func (ld *loader) loadKeyspaceResizes(ks *keyspaceRec, list []keyspaceResizeSnap, last string) error {
	for i, rs := range list {
		if err := unique(ld.keyspaceResizes, rs.ID, "keyspace resize"); err != nil {
			return err
		}
		if err := firstErr(
			at(snapRange(rs.From.ExtraReplicas, 0, maxKeyspaceReplicas), "from.extra_replicas"),
			at(snapRange(rs.To.ExtraReplicas, 0, maxKeyspaceReplicas), "to.extra_replicas"),
			at(snapRange(rs.Replicas, 0, maxKeyspaceReplicas), "replicas"),
			at(snapRange(rs.PrevReplicas, 0, maxKeyspaceReplicas), "previous_replicas"),
		); err != nil {
			return at(err, "resizes[%d]", i)
		}
		actor, err := ref(ld.users, rs.Actor, "keyspace resize actor")
		if err != nil {
			return err
		}
		r := &keyspaceResizeRec{
			stamps: rs.load(), ks: ks, actor: actor, state: rs.State, started: rs.Started, completed: rs.Completed,
			shardTime: rs.ShardTime, from: rs.From.load(), to: rs.To.load(), replicas: rs.Replicas, prevReplicas: rs.PrevReplicas,
		}
		m := ks.x()
		switch r.state {
		case platform.KeyspaceResizeQueued, platform.KeyspaceResizeResizing:
			if m.resize != nil {
				return fmt.Errorf("keyspace resizes %s and %s both in progress", m.resize.id, r.id)
			}
			m.resize = r
		case platform.KeyspaceResizeCompleted, platform.KeyspaceResizeCanceled:
		default:
			return fmt.Errorf("keyspace resize %s: unknown state %q", r.id, r.state)
		}
		if r.state != platform.KeyspaceResizeQueued && r.shardTime < 0 {
			return fmt.Errorf("keyspace resize %s: negative shard time %v", r.id, r.shardTime)
		}
		ld.keyspaceResizes[r.id] = r
		m.resizes.Add(r)
	}
	if last == "" {
		return nil
	}
	r := ks.more.read().resizes.Get(last)
	switch {
	case r == nil:
		return fmt.Errorf("latest resize %q is not a resize of keyspace %s", last, ks.id)
	case r.state != platform.KeyspaceResizeCompleted:
		return fmt.Errorf("latest resize %s is %s, not completed", r.id, r.state)
	}
	ks.x().lastResize = r
	return nil
}
