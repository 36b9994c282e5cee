package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a MySQL branch's topology state (see vitess.go): the
// shards the API changed and the operations.

type vitessSnap struct {
	Shards     []shardSnap    `json:"shards"`
	Operations []vitessOpSnap `json:"operations"`
}

type shardSnap struct {
	Keyspace  string              `json:"keyspace"` // ID
	Shard     string              `json:"shard"`
	Primary   int                 `json:"primary"`
	TermStart time.Time           `json:"term_start"`
	Controls  []tabletControlSnap `json:"tablet_controls"`
}

type tabletControlSnap struct {
	TabletType          platform.TabletType `json:"tablet_type"`
	Cells               []string            `json:"cells"`
	DeniedTables        []string            `json:"denied_tables"`
	DisableQueryService bool                `json:"disable_query_service"`
}

type vitessOpSnap struct {
	stampsSnap
	Action       string                        `json:"action"`
	State        platform.VitessOperationState `json:"state"`
	Keyspace     string                        `json:"keyspace"` // ID
	KeyspaceName string                        `json:"keyspace_name"`
	Shard        string                        `json:"shard"`
	Target       int                           `json:"target"`
	Alias        platform.TabletAlias          `json:"alias"`
	Error        string                        `json:"error"`
	Completed    time.Time                     `json:"completed"`
}

// saveVitess saves b's topology state; nil when the API never changed
// it. Shards of keyspaces since deleted are left out.
func saveVitess(b *branchRec) *vitessSnap {
	v := b.more.read().vitess
	if len(v.shards) == 0 && v.ops.Len() == 0 {
		return nil
	}
	out := &vitessSnap{Shards: []shardSnap{}, Operations: []vitessOpSnap{}}
	for _, ks := range b.keyspaces.All() {
		for _, shard := range shardNames(ks.shards) {
			st := v.shards[shardKey{ks.id, shard}]
			if st == nil {
				continue
			}
			ss := shardSnap{Keyspace: ks.id, Shard: shard, Primary: st.primary, TermStart: st.termStart, Controls: []tabletControlSnap{}}
			for _, tc := range st.controls {
				ss.Controls = append(ss.Controls, tabletControlSnap{TabletType: tc.tabletType, Cells: tc.cells, DeniedTables: tc.deniedTables, DisableQueryService: tc.disableQueryService})
			}
			out.Shards = append(out.Shards, ss)
		}
	}
	for _, op := range v.ops.All() {
		out.Operations = append(out.Operations, vitessOpSnap{
			stampsSnap: saveStamps(op.stamps), Action: op.action, State: op.state, Keyspace: op.keyspace, KeyspaceName: op.ksName,
			Shard: op.shard, Target: op.target, Alias: op.alias, Error: op.err, Completed: op.completed,
		})
	}
	return out
}

// loadVitess loads b's topology state, after its keyspaces: each shard of
// a live keyspace of b, its primary one of its tablets in the branch's
// region, its controls of distinct tablet types; each operation of a
// known action and state, at most one in progress per shard.
func (ld *loader) loadVitess(b *branchRec, vs *vitessSnap) error {
	if vs == nil {
		return nil
	}
	if b.db.kind != platform.KindMySQL {
		return fmt.Errorf("vitess: branch %s is of a %s database", b.id, b.db.kind)
	}
	v := b.vitess()
	for i, ss := range vs.Shards {
		if err := loadShardState(b, v, ss); err != nil {
			return at(err, "vitess.shards[%d]", i)
		}
	}
	for i, os := range vs.Operations {
		if err := ld.loadVitessOp(b, v, os); err != nil {
			return at(err, "vitess.operations[%d]", i)
		}
	}
	return nil
}

func loadShardState(b *branchRec, v *branchVitess, ss shardSnap) error {
	var ks *keyspaceRec
	for _, k := range b.keyspaces.All() {
		if k.id == ss.Keyspace {
			ks = k
		}
	}
	switch {
	case ks == nil:
		return fmt.Errorf("keyspace %q is not a keyspace of branch %s", ss.Keyspace, b.id)
	case !slices.Contains(shardNames(ks.shards), ss.Shard):
		return fmt.Errorf("shard %q is not a shard of keyspace %s", ss.Shard, ks.name)
	case ss.Primary < 0 || ss.Primary > ks.replicas():
		return fmt.Errorf("primary %d: keyspace %s has tablets 0 to %d in cell %s", ss.Primary, ks.name, ks.replicas(), b.region.slug)
	case v.shards[shardKey{ks.id, ss.Shard}] != nil:
		return fmt.Errorf("shard %s/%s appears twice", ks.name, ss.Shard)
	}
	st := v.shard(shardKey{ks.id, ss.Shard})
	st.primary, st.termStart = ss.Primary, ss.TermStart
	for j, cs := range ss.Controls {
		if err := snapOneOf(cs.TabletType, "tablet_type", tabletTypes...); err != nil {
			return at(err, "tablet_controls[%d]", j)
		}
		if slices.ContainsFunc(st.controls, func(tc *tabletControl) bool { return tc.tabletType == cs.TabletType }) {
			return fmt.Errorf("tablet_controls[%d]: a second control of tablet type %s", j, cs.TabletType)
		}
		if err := checkCells(b, "cells", cs.Cells); err != nil {
			return at(snapCheck(err), "tablet_controls[%d]", j)
		}
		if len(cs.DeniedTables) == 0 && !cs.DisableQueryService {
			return fmt.Errorf("tablet_controls[%d]: a control with nothing to do", j)
		}
		st.controls = append(st.controls, &tabletControl{
			tabletType: cs.TabletType, cells: sortedUnion(nil, cs.Cells), deniedTables: sortedUnion(nil, cs.DeniedTables), disableQueryService: cs.DisableQueryService,
		})
	}
	slices.SortFunc(st.controls, func(a, b *tabletControl) int {
		return slices.Index(tabletTypes, a.tabletType) - slices.Index(tabletTypes, b.tabletType)
	})
	return nil
}

func (ld *loader) loadVitessOp(b *branchRec, v *branchVitess, os vitessOpSnap) error {
	if err := unique(ld.vitessOps, os.ID, "Vitess operation"); err != nil {
		return err
	}
	if err := snapOneOf(os.Action, "action", platform.VitessActionPlannedReparent); err != nil {
		return err
	}
	if err := snapOneOf(os.State, "state", platform.VitessOperationPending, platform.VitessOperationRunning,
		platform.VitessOperationCompleted, platform.VitessOperationFailed, platform.VitessOperationCancelled); err != nil {
		return err
	}
	if err := snapName(os.KeyspaceName); err != nil {
		return fmt.Errorf("keyspace_name: %w", err)
	}
	if os.Keyspace == "" || os.Shard == "" || os.Alias.Cell == "" {
		return fmt.Errorf("operation %s: keyspace, shard and alias are required", os.ID)
	}
	if err := snapNonNegative(os.Target); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	op := &vitessOpRec{
		stamps: os.load(), branch: b, action: os.Action, state: os.State, keyspace: os.Keyspace, ksName: os.KeyspaceName,
		shard: os.Shard, target: os.Target, alias: os.Alias, err: os.Error, completed: os.Completed,
	}
	if !op.state.Done() {
		k := shardKey{op.keyspace, op.shard}
		if ks := b.keyspace(op.ksName); ks != nil && ks.id == op.keyspace {
			if !slices.Contains(shardNames(ks.shards), op.shard) {
				return fmt.Errorf("operation %s: shard %q is not a shard of keyspace %s", op.id, op.shard, ks.name)
			}
			if op.target < 1 || op.target > ks.replicas() {
				return fmt.Errorf("operation %s: target %d is not a replica of keyspace %s in cell %s", op.id, op.target, ks.name, b.region.slug)
			}
		}
		st := v.shard(k)
		if st.reparent != nil {
			return fmt.Errorf("operations %s and %s both in progress on shard %s/%s", st.reparent.id, op.id, op.ksName, op.shard)
		}
		st.reparent = op
	}
	ld.vitessOps[op.id] = op
	v.ops.Add(op)
	return nil
}
