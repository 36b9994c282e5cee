package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of bouncers and their resize requests, with their branch.
// A deleted bouncer is saved while a resize request of its branch refers
// to it.

type bouncerSnap struct {
	stampsSnap
	Name      string            `json:"name"`
	Config    bouncerConfigSnap `json:"config"`
	Actor     string            `json:"actor"`
	Ready     bool              `json:"ready"`
	Deleted   bool              `json:"deleted,omitempty"`
	DeletedAt time.Time         `json:"deleted_at"`
}

type bouncerConfigSnap struct {
	Size     string                 `json:"size"`
	Replicas int                    `json:"replicas_per_cell"`
	Target   platform.BouncerTarget `json:"target"`
	Params   map[string]string      `json:"parameters,omitempty"`
}

// bouncerResizeSnap is a resize request; the branch's list holds them in
// order, each bouncer's list is the part of it that is the bouncer's.
type bouncerResizeSnap struct {
	stampsSnap
	Bouncer   string                      `json:"bouncer"`
	State     platform.BouncerResizeState `json:"state"`
	Next      bouncerConfigSnap           `json:"next"`
	Prev      bouncerConfigSnap           `json:"previous"`
	Started   time.Time                   `json:"started"`
	Completed time.Time                   `json:"completed"`
	Actor     string                      `json:"actor"`
}

func saveBouncerConfig(c bouncerConfig) bouncerConfigSnap {
	return bouncerConfigSnap{Size: c.size.name, Replicas: c.replicas, Target: c.target, Params: c.params}
}

// load checks a configuration as a request would.
func (cs bouncerConfigSnap) load() (bouncerConfig, error) {
	c := bouncerConfig{size: bouncerSKUByName[cs.Size], replicas: cs.Replicas, target: cs.Target, params: cs.Params}
	switch {
	case c.size == nil:
		return c, fmt.Errorf("unknown bouncer size %q", cs.Size)
	case c.replicas < 1 || c.replicas > maxBouncerReplicas:
		return c, fmt.Errorf("replicas_per_cell %d is not from 1 to %d", c.replicas, maxBouncerReplicas)
	}
	switch c.target {
	case platform.BouncerTargetPrimary, platform.BouncerTargetReplica, platform.BouncerTargetReplicaAZAffinity:
	default:
		return c, fmt.Errorf("unknown bouncer target %q", c.target)
	}
	for name := range c.params {
		if spec := paramByName[name]; spec == nil || spec.namespace != platform.NamespacePgbouncer {
			return c, fmt.Errorf("%q is not a %s parameter", name, platform.NamespacePgbouncer)
		}
	}
	return c, nil
}

func saveBouncers(b *branchRec) ([]bouncerSnap, []bouncerResizeSnap) {
	var bouncers []bouncerSnap
	var resizes []bouncerResizeSnap
	seen := map[*bouncerRec]bool{}
	add := func(bn *bouncerRec) {
		if seen[bn] {
			return
		}
		seen[bn] = true
		bouncers = append(bouncers, bouncerSnap{
			stampsSnap: saveStamps(bn.stamps), Name: bn.name, Config: saveBouncerConfig(bn.config),
			Actor: idOf(bn.actor), Ready: bn.ready, Deleted: bn.deleted, DeletedAt: bn.deletedAt,
		})
	}
	for _, bn := range b.more.read().bouncers.idx.All() {
		add(bn)
	}
	for _, r := range b.more.read().bouncers.resizes.All() {
		add(r.bouncer)
		resizes = append(resizes, bouncerResizeSnap{
			stampsSnap: saveStamps(r.stamps), Bouncer: r.bouncer.id, State: r.state,
			Next: saveBouncerConfig(r.next), Prev: saveBouncerConfig(r.prev),
			Started: r.started, Completed: r.completed, Actor: idOf(r.actor),
		})
	}
	return bouncers, resizes
}

// loadBouncers loads the bouncers of b and their resize requests; the one
// pending or resizing is its bouncer's active one.
func (ld *loader) loadBouncers(b *branchRec, bouncers []bouncerSnap, resizes []bouncerResizeSnap) error {
	for i, bs := range bouncers {
		if err := ld.loadBouncer(b, bs); err != nil {
			return at(named(err, "bouncer %s", bs.ID), "bouncers[%d]", i)
		}
	}
	for i, rs := range resizes {
		if err := ld.loadBouncerResize(b, rs); err != nil {
			return at(named(err, "bouncer resize %s", rs.ID), "bouncer_resizes[%d]", i)
		}
	}
	return nil
}

func (ld *loader) loadBouncer(b *branchRec, bs bouncerSnap) error {
	if err := unique(ld.bouncers, bs.ID, "bouncer"); err != nil {
		return err
	}
	if err := snapName(bs.Name); err != nil {
		return at(err, "name")
	}
	actor, err := ref(ld.users, bs.Actor, "bouncer actor")
	if err != nil {
		return err
	}
	cfg, err := bs.Config.load()
	if err != nil {
		return err
	}
	bn := &bouncerRec{
		stamps: bs.load(), branch: b, name: bs.Name, config: cfg, actor: actor,
		ready: bs.Ready, deleted: bs.Deleted, deletedAt: bs.DeletedAt,
	}
	ld.bouncers[bn.id] = bn
	if bn.deleted {
		return nil
	}
	if b.x().bouncers.byName[bn.name] != nil {
		return fmt.Errorf("name %q appears twice in branch %s", bn.name, b.id)
	}
	if b.x().bouncers.byName == nil {
		b.x().bouncers.byName = map[string]*bouncerRec{}
	}
	b.x().bouncers.idx.Add(bn)
	b.x().bouncers.byName[bn.name] = bn
	return nil
}

func (ld *loader) loadBouncerResize(b *branchRec, rs bouncerResizeSnap) error {
	if err := unique(ld.bouncerResizes, rs.ID, "bouncer resize"); err != nil {
		return err
	}
	bn, err := refNonNil(ld.bouncers, rs.Bouncer, "bouncer")
	if err != nil {
		return err
	}
	if bn.branch != b {
		return fmt.Errorf("bouncer %s is of another branch", bn.id)
	}
	actor, err := ref(ld.users, rs.Actor, "resize actor")
	if err != nil {
		return err
	}
	r := &bouncerResizeRec{stamps: rs.load(), bouncer: bn, state: rs.State, started: rs.Started, completed: rs.Completed, actor: actor}
	if r.next, err = rs.Next.load(); err != nil {
		return named(err, "next")
	}
	if r.prev, err = rs.Prev.load(); err != nil {
		return named(err, "previous")
	}
	switch r.state {
	case platform.BouncerResizePending, platform.BouncerResizeResizing:
		switch {
		case bn.deleted:
			return fmt.Errorf("in progress on deleted bouncer %s", bn.id)
		case bn.active != nil:
			return fmt.Errorf("resizes %s and %s of bouncer %s both in progress", bn.active.id, r.id, bn.id)
		}
		bn.active = r
	case platform.BouncerResizeCompleted, platform.BouncerResizeCanceled:
	default:
		return fmt.Errorf("unknown state %q", r.state)
	}
	ld.bouncerResizes[r.id] = r
	bn.resizes.Add(r)
	b.x().bouncers.resizes.Add(r)
	return nil
}
