package fake

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// The Vitess control plane of a MySQL branch: one model of its topology,
// which the tablets, the vtctld documents and the branch's infrastructure
// all read.
//
// Most of the topology derives from the branch's keyspaces: each keyspace
// has its shards (shardNames), each shard its tablets: tablet 0 and the
// keyspace's replicas (tablets 1..replicas) in the branch region's cell,
// then the replicas of each read-only region in that region's cell. What
// the API changes is kept per shard in branchVitess: which tablet is the
// primary (tablet 0 until a planned reparent moves it) and since when, and
// the tablet controls; and per branch its operations.
//
// The model's API, for the operations built on it (routing rules, the
// throttler, workflows):
//
//   - (*branchRec).vitess() / b.more.read().vitess: the branch's state.
//   - shardTablets(ks, shard) (topology.go): the tablets of a shard, with their aliases
//     and types; allTablets(b): all of them; branchCells(b): its cells.
//   - (*world).vitessShard(b, keyspace, shard): a keyspace and shard named
//     by a request, or a 422 naming the field.
//   - (*world).newPlannedReparent and newMoveTablesOp (vitess_movetables.go)
//     start an operation on the clock (see vitess_jobs.go);
//     settleVitessOperation ends one.
//   - (*branchVitess).workflows: the branch's VReplication workflows, whose
//     own API is in vreplication.go; an operation of another action than
//     a planned reparent is a MoveTables action (vitess_movetables.go),
//     which advanceVitessOperation hands to runMoveTablesOp.
//
// Aliases are "<cell>-<uid>" with a ten-digit uid: uid = base*10^6 +
// shard index*10^3 + tablet index, where the keyspace's base (1..4293)
// follows from its name (FNV-1a), probing past the bases of the branch's
// older keyspaces on a collision. They are stable while the keyspace
// lives, across calls, snapshots and restores, and distinct within a
// branch.

// branchVitess is the state of a MySQL branch's topology that the API
// changes. Maps are made on the first write; reads of the zero value find
// nothing.
type branchVitess struct {
	shards map[shardKey]*shardState
	// ops are the branch's operations, in creation order and by ID.
	ops ordered.Store[*vitessOpRec]
	// ksRules are the keyspace routing rules, in the order applied (see
	// vtctldApplyKeyspaceRoutingRules).
	ksRules []ksRoutingRule
	// throttlers are the keyspaces' throttler configurations, by
	// keyspace ID, and metrics the tablets' metrics that tests set (see
	// throttlerConfig).
	throttlers map[string]*throttlerConfig
	metrics    map[tabletMetric]float64
	// vdiff holds the VDiffs of the branch's workflows and the
	// differences tests arranged (see vitess_vdiff.go).
	vdiff vdiffState
	// workflows are its VReplication workflows (see vreplication.go).
	workflows []*vrWorkflow
}

// shardKey names a shard of a keyspace by the keyspace's ID, so that a
// keyspace deleted and made again under its name starts afresh.
type shardKey struct{ keyspace, shard string }

// shardState is what the API changed of one shard.
type shardState struct {
	// primary is the index of the primary tablet; termStart when it
	// became the primary (zero: since the keyspace was made).
	primary   int
	termStart time.Time
	// controls are its tablet controls, at most one per tablet type, in
	// the order of tabletTypes.
	controls []*tabletControl
	// reparent is the planned reparent running on the shard, nil when
	// none is.
	reparent *vitessOpRec
}

// tabletControl is a shard's tablet control of one tablet type.
type tabletControl struct {
	tabletType          platform.TabletType
	cells               []string // sorted; empty for all cells
	deniedTables        []string // sorted
	disableQueryService bool
}

// vitessOpRec is an operation of a branch's control plane.
type vitessOpRec struct {
	stamps
	branch *branchRec
	action string
	state  platform.VitessOperationState
	// keyspace is the ID of the keyspace it acts on, ksName its name;
	// the keyspace may have been deleted since.
	keyspace  string
	ksName    string
	shard     string
	target    int                  // the tablet to promote
	alias     platform.TabletAlias // its alias when asked for
	err       string
	completed time.Time
	// A MoveTables action's (see vitess_movetables.go): the workflow's
	// name (keyspace is its target), the request's body as JSON, who
	// asked, and the Vitess response once completed, as JSON.
	workflow string
	body     string
	actor    *userRec
	result   string
}

// vitessOperationTimeout is the timeout, in seconds, every operation
// shows.
const vitessOperationTimeout = 300

// reparentFailure is the error of a planned reparent whose failure a test
// injected with FailNext.
const reparentFailure = "PlannedReparentShard: the new primary did not catch up with the old one in time"

// vitess returns b's topology state, making it on first use.
func (b *branchRec) vitess() *branchVitess { return &b.x().vitess }

// shard returns the state of a shard, made on first use; state reads the
// same without making it.
func (v *branchVitess) shard(k shardKey) *shardState {
	if v.shards == nil {
		v.shards = map[shardKey]*shardState{}
	}
	st := v.shards[k]
	if st == nil {
		st = &shardState{}
		v.shards[k] = st
	}
	return st
}

// state returns a shard's state, or the state of a shard never changed.
func (v *branchVitess) state(ks *keyspaceRec, shard string) *shardState {
	if st := v.shards[shardKey{ks.id, shard}]; st != nil {
		return st
	}
	return &shardState{}
}

// vtTablet is one tablet of a shard.
type vtTablet struct {
	alias      platform.TabletAlias
	ks         *keyspaceRec
	shard      string
	index      int
	tabletType platform.TabletType
	// readOnly marks a tablet in a read-only region's cell, which serves
	// reads only and is never the primary.
	readOnly bool
}

// readOnlyTabletBase is the index of the first tablet of a read-only
// region: 100 + the region's place in publicRegions * maxReadOnlyReplicas.
const readOnlyTabletBase = 100

// vitessShard finds the keyspace and shard a request names: a 422 naming
// the field when either is missing or unknown.
func (w *world) vitessShard(b *branchRec, keyspace, shard string) (*keyspaceRec, error) {
	if keyspace == "" {
		return nil, unprocessable("keyspace is required")
	}
	ks := b.keyspace(keyspace)
	if ks == nil {
		return nil, unprocessable("keyspace %q is not a keyspace of branch %s", keyspace, b.name)
	}
	if shard == "" {
		return nil, unprocessable("shard is required: one of %s", strings.Join(shardNames(ks.shards), ", "))
	}
	if !slices.Contains(shardNames(ks.shards), shard) {
		return nil, unprocessable("shard %q is not a shard of keyspace %s: its shards are %s", shard, ks.name, strings.Join(shardNames(ks.shards), ", "))
	}
	return ks, nil
}

// tabletControlChange is a set_shard_tablet_control request, checked.
type tabletControlChange struct {
	tabletType          platform.TabletType
	cells, tables       []string
	remove              bool
	disableQueryService *bool
}

// checkTabletControl checks a tablet control change of a shard of b.
func checkTabletControl(b *branchRec, p *platform.SetShardTabletControlParams) (tabletControlChange, error) {
	var ch tabletControlChange
	if p.TabletType == "" {
		return ch, unprocessable("tablet_type is required: primary, replica or rdonly")
	}
	t, ok := parseTabletType(string(p.TabletType))
	if !ok {
		return ch, unprocessable("tablet_type %q is not primary, replica or rdonly", p.TabletType)
	}
	if err := checkCells(b, "cells", p.Cells); err != nil {
		return ch, err
	}
	for i, tbl := range p.DeniedTables {
		if strings.TrimSpace(tbl) == "" {
			return ch, unprocessable("denied_tables[%d] is empty", i)
		}
	}
	if p.Remove == nil && len(p.DeniedTables) == 0 && p.DisableQueryService == nil {
		return ch, unprocessable("one of denied_tables, remove or disable_query_service is required")
	}
	ch = tabletControlChange{tabletType: t, cells: p.Cells, tables: p.DeniedTables, remove: p.Remove != nil && *p.Remove, disableQueryService: p.DisableQueryService}
	return ch, nil
}

// setTabletControl applies a checked change to a shard's tablet control
// of one type: tables added to its denied tables (or, with remove, taken
// from them; remove without tables drops the control), cells added, the
// query service disabled or enabled. A control left with nothing to do is
// dropped.
func (w *world) setTabletControl(b *branchRec, ks *keyspaceRec, shard string, ch tabletControlChange) {
	st := b.vitess().shard(shardKey{ks.id, shard})
	i := slices.IndexFunc(st.controls, func(tc *tabletControl) bool { return tc.tabletType == ch.tabletType })
	tc := &tabletControl{tabletType: ch.tabletType}
	if i >= 0 {
		cp := *st.controls[i]
		tc = &cp
	}
	switch {
	case ch.remove && len(ch.tables) == 0:
		tc = &tabletControl{tabletType: ch.tabletType}
	case ch.remove:
		tc.deniedTables = slices.DeleteFunc(slices.Clone(tc.deniedTables), func(t string) bool { return slices.Contains(ch.tables, t) })
	default:
		tc.deniedTables = sortedUnion(tc.deniedTables, ch.tables)
		tc.cells = sortedUnion(tc.cells, ch.cells)
	}
	if ch.disableQueryService != nil {
		tc.disableQueryService = *ch.disableQueryService
		if len(ch.tables) == 0 {
			tc.cells = sortedUnion(tc.cells, ch.cells)
		}
	}
	keep := len(tc.deniedTables) > 0 || tc.disableQueryService
	if !keep {
		tc.cells = nil
	}
	switch {
	case i >= 0 && keep:
		st.controls[i] = tc
	case i >= 0:
		st.controls = slices.Delete(st.controls, i, i+1)
	case keep:
		st.controls = append(st.controls, tc)
		slices.SortFunc(st.controls, func(a, b *tabletControl) int {
			return slices.Index(tabletTypes, a.tabletType) - slices.Index(tabletTypes, b.tabletType)
		})
	}
	b.updated = w.clock.Now()
}

// sortedUnion returns the sorted union of a and b without repeats.
func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// checkReparent checks a planned reparent of a shard of b to the tablet
// aliased newPrimary, and returns that tablet.
func (w *world) checkReparent(b *branchRec, ks *keyspaceRec, shard, newPrimary string) (vtTablet, error) {
	switch {
	case !b.ready:
		return vtTablet{}, unprocessable("branch %s is not ready yet", b.name)
	case !ks.ready:
		return vtTablet{}, unprocessable("keyspace %s is not ready yet", ks.name)
	}
	if op := b.more.read().vitess.state(ks, shard).reparent; op != nil {
		return vtTablet{}, unprocessable("shard %s/%s has planned reparent %s %s; wait until it finishes", ks.name, shard, op.id, op.state)
	}
	if newPrimary == "" {
		return vtTablet{}, unprocessable("new_primary is required: the alias of a replica of shard %s/%s", ks.name, shard)
	}
	a, err := platform.ParseTabletAlias(newPrimary)
	if err != nil {
		return vtTablet{}, unprocessable("new_primary: %v", err)
	}
	for _, t := range shardTablets(ks, shard) {
		if t.alias != a {
			continue
		}
		switch {
		case t.tabletType == platform.TabletPrimary:
			return vtTablet{}, unprocessable("new_primary %s is the primary of shard %s/%s already; name a replica", a, ks.name, shard)
		case t.readOnly:
			return vtTablet{}, unprocessable("new_primary %s is in read-only region %s; the primary stays in cell %s", a, t.alias.Cell, b.region.slug)
		}
		return t, nil
	}
	return vtTablet{}, unprocessable("new_primary %s is not a tablet of shard %s/%s; see its tablets", newPrimary, ks.name, shard)
}

// newPlannedReparent starts a planned reparent of shard of ks to tablet t:
// pending now, running after Timings.VitessOperationStart, completed
// Timings.PlannedReparent later, when t becomes the shard's primary.
func (w *world) newPlannedReparent(ks *keyspaceRec, shard string, t vtTablet) *vitessOpRec {
	b := ks.branch
	now := w.clock.Now()
	op := &vitessOpRec{
		stamps: stamps{id: w.newID(), created: now, updated: now},
		branch: b, action: platform.VitessActionPlannedReparent, state: platform.VitessOperationPending,
		keyspace: ks.id, ksName: ks.name, shard: shard, target: t.index, alias: t.alias,
	}
	b.vitess().ops.Add(op)
	b.vitess().shard(shardKey{ks.id, shard}).reparent = op
	w.startFlight(op.id)
	w.clock.After(w.timing.VitessOperationStart, vitessOpJob{op, platform.VitessOperationPending})
	return op
}

// advanceVitessOperation moves op on from pending or running: pending
// starts running; a running reparent ends with its tablet the primary.
func (w *world) advanceVitessOperation(op *vitessOpRec, now time.Time) {
	if op.state == platform.VitessOperationPending {
		op.state, op.updated = platform.VitessOperationRunning, now
		d := w.timing.PlannedReparent
		if op.action != platform.VitessActionPlannedReparent {
			d = w.timing.MoveTablesAction
		}
		w.clock.After(d, vitessOpJob{op, platform.VitessOperationRunning})
		return
	}
	switch {
	case slices.Contains(mtActions, op.action):
		w.runMoveTablesOp(op, now)
		return
	case op.action != platform.VitessActionPlannedReparent:
		// An action of a later family lists its runner here.
		w.settleVitessOperation(op, platform.VitessOperationFailed, "no runner for action "+op.action, now)
		return
	}
	st := op.branch.vitess().shard(shardKey{op.keyspace, op.shard})
	st.primary, st.termStart = op.target, now
	op.branch.updated = now
	w.settleVitessOperation(op, platform.VitessOperationCompleted, "", now)
}

// settleVitessOperation puts an operation in a final state.
func (w *world) settleVitessOperation(op *vitessOpRec, state platform.VitessOperationState, err string, now time.Time) {
	op.state, op.err = state, err
	op.completed, op.updated = now, now
	if st := op.branch.more.read().vitess.shards[shardKey{op.keyspace, op.shard}]; st != nil && st.reparent == op {
		st.reparent = nil
	}
	w.endFlight(op.id)
}

// cancelVitessOperations cancels the operations of b in progress, as
// deleting b does.
func (w *world) cancelVitessOperations(b *branchRec) {
	for _, op := range b.more.read().vitess.ops.All() {
		if !op.state.Done() {
			w.settleVitessOperation(op, platform.VitessOperationCancelled, "branch "+b.name+" was deleted", w.clock.Now())
		}
	}
}

// Handlers.

func vitessRoutes() []route {
	const branch = "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	return []route{
		{pattern: "GET " + branch + "/tablets", op: "list_tablets", handler: read(listTablets)},
		{pattern: "GET " + branch + "/vtctld/keyspaces", op: "vtctld_list_keyspaces", handler: read(vtctldListKeyspaces)},
		{pattern: "GET " + branch + "/vtctld/shard", op: "vtctld_get_shard", handler: read(vtctldGetShard)},
		{pattern: "PUT " + branch + "/vtctld/shard/tablet-control", op: "vtctld_set_shard_tablet_control", handler: withBody(vtctldSetShardTabletControl)},
		{pattern: "POST " + branch + "/vtctld/shard/refresh-state", op: "vtctld_refresh_state_by_shard", handler: withBody(vtctldRefreshStateByShard)},
		{pattern: "GET " + branch + "/vtctld/operations/{id}", op: "vtctld_get_operation", handler: read(vtctldGetOperation)},
		{pattern: "POST " + branch + "/planned-reparent", op: "create_planned_reparent", handler: withBody(createPlannedReparent)},
		{pattern: "GET " + branch + "/planned-reparent/{id}", op: "get_planned_reparent", handler: read(getPlannedReparent)},
		{pattern: "GET " + branch + "/vtctld/workflows", op: "vtctld_list_workflows", handler: read(vtctldListWorkflows)},
		{pattern: "POST " + branch + "/vtctld/workflows/{workflow}/start", op: "vtctld_start_workflow", handler: withBody(vtctldStartWorkflow)},
		{pattern: "POST " + branch + "/vtctld/workflows/{workflow}/stop", op: "vtctld_stop_workflow", handler: withBody(vtctldStopWorkflow)},
	}
}

// vitessBranch returns the path's branch (which the pipeline resolved),
// refusing a PostgreSQL one.
func (c *call) vitessBranch() (*branchRec, error) {
	return c.branch, vitessKind(c.branch)
}

// vtctldData is the envelope of a vtctld answer.
type vtctldData struct {
	Data any `json:"data"`
}

func listTablets(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	keyspace, shard := q.Get("keyspace"), q.Get("shard")
	if shard != "" && keyspace == "" {
		return nil, unprocessable("shard needs keyspace")
	}
	var typ platform.TabletType
	if v := q.Get("tablet_type"); v != "" {
		t, ok := parseTabletType(v)
		if !ok {
			return nil, unprocessable("tablet_type %q is not primary, replica or rdonly", v)
		}
		typ = t
	}
	var aliases []platform.TabletAlias
	if v := q.Get("tablet_alias"); v != "" {
		for s := range strings.SplitSeq(v, ",") {
			a, err := platform.ParseTabletAlias(strings.TrimSpace(s))
			if err != nil {
				return nil, unprocessable("tablet_alias: %v", err)
			}
			aliases = append(aliases, a)
		}
	}
	keep := func(t vtTablet) bool {
		if aliases != nil {
			return slices.Contains(aliases, t.alias)
		}
		return (keyspace == "" || t.ks.name == keyspace) && (shard == "" || t.shard == shard) && (typ == "" || t.tabletType == typ)
	}
	return renderTabletGroups(allTablets(b), keep), nil
}

// renderTabletGroups groups the tablets kept by keyspace and shard, in
// their order, and within a shard by type: the primary, then the
// replicas.
func renderTabletGroups(tablets []vtTablet, keep func(vtTablet) bool) []*platform.TabletGroup {
	out := []*platform.TabletGroup{}
	for lo := 0; lo < len(tablets); {
		hi := lo + 1
		for hi < len(tablets) && tablets[hi].ks == tablets[lo].ks && tablets[hi].shard == tablets[lo].shard {
			hi++
		}
		for _, typ := range tabletTypes {
			var g *platform.TabletGroup
			for _, t := range tablets[lo:hi] {
				if t.tabletType != typ || !keep(t) {
					continue
				}
				if g == nil {
					g = &platform.TabletGroup{Type: typ, Keyspace: t.ks.name, Shard: t.shard}
					out = append(out, g)
				}
				g.Tablets = append(g.Tablets, platform.Tablet{Alias: t.alias.String(), Role: typ, Cell: t.alias.Cell})
			}
		}
		lo = hi
	}
	return out
}

func vtctldListKeyspaces(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	name := c.r.URL.Query().Get("name")
	list := []*protoKeyspace{}
	for _, ks := range b.keyspaces.All() {
		if name == "" || ks.name == name {
			list = append(list, renderProtoKeyspace(ks))
		}
	}
	return vtctldData{map[string]any{"keyspaces": list}}, nil
}

func vtctldGetShard(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	ks, err := c.w.vitessShard(b, q.Get("keyspace"), q.Get("shard"))
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"keyspace": ks.name, "name": q.Get("shard"), "shard": renderProtoShard(ks, q.Get("shard"))}}, nil
}

func vtctldSetShardTabletControl(c *call, p *platform.SetShardTabletControlParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	ks, err := c.w.vitessShard(b, p.Keyspace, p.Shard)
	if err != nil {
		return nil, err
	}
	ch, err := checkTabletControl(b, p)
	if err != nil {
		return nil, err
	}
	c.w.setTabletControl(b, ks, p.Shard, ch)
	return vtctldData{map[string]any{"shard": renderProtoShard(ks, p.Shard)}}, nil
}

func vtctldRefreshStateByShard(c *call, p *platform.RefreshStateByShardParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	if _, err := c.w.vitessShard(b, p.Keyspace, p.Shard); err != nil {
		return nil, err
	}
	if err := checkCells(b, "cells", p.Cells); err != nil {
		return nil, err
	}
	// Every tablet reloads the shard record the model holds, and all
	// succeed: a full refresh, whose document has no field set.
	return vtctldData{map[string]any{}}, nil
}

func vtctldGetOperation(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	op := b.more.read().vitess.ops.Get(c.r.PathValue("id"))
	if op == nil {
		return nil, notFound()
	}
	return renderVitessOperation(op), nil
}

func createPlannedReparent(c *call, p *platform.CreatePlannedReparentParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	ks, err := c.w.vitessShard(b, p.Keyspace, p.Shard)
	if err != nil {
		return nil, err
	}
	t, err := c.w.checkReparent(b, ks, p.Shard, p.NewPrimary)
	if err != nil {
		return nil, err
	}
	return renderVitessOperation(c.w.newPlannedReparent(ks, p.Shard, t)), nil
}

func getPlannedReparent(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	op := b.more.read().vitess.ops.Get(c.r.PathValue("id"))
	if op == nil || op.action != platform.VitessActionPlannedReparent {
		return nil, notFound()
	}
	return renderVitessOperation(op), nil
}

func vtctldListWorkflows(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	keyspace := q.Get("keyspace")
	if keyspace == "" {
		return nil, unprocessable("keyspace is required: the target keyspace of the workflows")
	}
	ks := b.keyspace(keyspace)
	if ks == nil {
		return nil, unprocessable("keyspace %q is not a keyspace of branch %s: its keyspaces are %s", keyspace, b.name, strings.Join(vitessKeyspaceNames(b), ", "))
	}
	flags := map[string]bool{}
	for _, name := range []string{"active_only", "include_logs", "name_only"} {
		if v := q.Get(name); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, badRequest("%s must be true or false, got %q", name, v)
			}
			flags[name] = on
		}
	}
	name := q.Get("workflow")
	list := []*protoWorkflow{}
	for _, vw := range b.more.read().vitess.vrWorkflowsOf(b) {
		if vw.target != ks || name != "" && vw.name != name {
			continue
		}
		if state, _ := vw.phase(c.now, &c.w.timing); flags["active_only"] && state == vrStopped {
			continue
		}
		doc := renderVRWorkflow(vw, c.now, &c.w.timing)
		if flags["name_only"] {
			doc = &protoWorkflow{Name: vw.name}
		} else if flags["include_logs"] {
			addStreamLogs(doc, vw)
		}
		list = append(list, doc)
	}
	return vtctldData{map[string]any{"workflows": list}}, nil
}

func vtctldStartWorkflow(c *call, p *platform.StartVReplicationWorkflowParams) (any, error) {
	return c.updateVRWorkflow(p, true)
}

func vtctldStopWorkflow(c *call, p *platform.StartVReplicationWorkflowParams) (any, error) {
	return c.updateVRWorkflow(p, false)
}

// updateVRWorkflow starts or stops the path's workflow of keyspace, and
// answers vtctldata.WorkflowUpdateResponse: each target primary, and
// whether its streams changed.
func (c *call) updateVRWorkflow(p *platform.StartVReplicationWorkflowParams, start bool) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	vw, err := c.w.findVRWorkflow(b, "keyspace", p.Keyspace, c.r.PathValue("workflow"))
	if err != nil {
		return nil, err
	}
	var changed bool
	if start {
		changed, err = c.w.startVRWorkflow(c.who, vw)
	} else {
		changed, err = c.w.stopVRWorkflow(vw)
	}
	if err != nil {
		return nil, err
	}
	out := &protoTabletsResponse{Summary: fmt.Sprintf("Successfully updated the %s workflow on (%d) target primary tablets in the %s keyspace", vw.name, len(vw.targetShards), vw.target.name)}
	for _, a := range targetPrimaries(vw.target, vw.targetShards) {
		out.Details = append(out.Details, protoTabletInfo{Tablet: a, Changed: changed})
	}
	return vtctldData{out}, nil
}

// Rendering: Vitess documents in protobuf JSON (proto field names, enum
// names as strings, 64-bit integers as strings, bytes in base64, fields
// at their zero value left out).

type protoAlias struct {
	Cell string `json:"cell,omitempty"`
	UID  uint32 `json:"uid,omitempty"`
}

type protoTime struct {
	Seconds     string `json:"seconds,omitempty"`
	Nanoseconds int32  `json:"nanoseconds,omitempty"`
}

func newProtoTime(t time.Time) *protoTime {
	return &protoTime{Seconds: fmt.Sprint(t.Unix()), Nanoseconds: int32(t.Nanosecond())}
}

type protoKeyRange struct {
	Start []byte `json:"start,omitempty"`
	End   []byte `json:"end,omitempty"`
}

type protoTabletControl struct {
	TabletType   string   `json:"tablet_type"`
	Cells        []string `json:"cells,omitempty"`
	DeniedTables []string `json:"denied_tables,omitempty"`
	Frozen       bool     `json:"frozen,omitempty"`
}

// protoShard is topodata.Shard.
type protoShard struct {
	PrimaryAlias         *protoAlias          `json:"primary_alias,omitempty"`
	PrimaryTermStartTime *protoTime           `json:"primary_term_start_time,omitempty"`
	KeyRange             *protoKeyRange       `json:"key_range,omitempty"`
	TabletControls       []protoTabletControl `json:"tablet_controls,omitempty"`
	IsPrimaryServing     bool                 `json:"is_primary_serving,omitempty"`
}

// protoKeyspace is vtctldata.Keyspace.
type protoKeyspace struct {
	Name     string `json:"name"`
	Keyspace struct {
		DurabilityPolicy string `json:"durability_policy,omitempty"`
		SidecarDBName    string `json:"sidecar_db_name,omitempty"`
	} `json:"keyspace"`
}

// keyRange is a shard's key range: nil for "-".
func keyRange(shard string) *protoKeyRange {
	lo, hi, _ := strings.Cut(shard, "-")
	if lo == "" && hi == "" {
		return nil
	}
	kr := &protoKeyRange{}
	if lo != "" {
		kr.Start = []byte{hexByte(lo)}
	}
	if hi != "" {
		kr.End = []byte{hexByte(hi)}
	}
	return kr
}

// hexByte reads the two hex digits of a shard bound (shardNames writes
// them).
func hexByte(s string) byte {
	var v byte
	for _, c := range s {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= byte(c - '0')
		case c >= 'a' && c <= 'f':
			v |= byte(c-'a') + 10
		}
	}
	return v
}

func renderProtoShard(ks *keyspaceRec, shard string) *protoShard {
	st := ks.branch.more.read().vitess.state(ks, shard)
	out := &protoShard{KeyRange: keyRange(shard), IsPrimaryServing: true}
	for _, t := range shardTablets(ks, shard) {
		if t.tabletType == platform.TabletPrimary {
			out.PrimaryAlias = &protoAlias{Cell: t.alias.Cell, UID: t.alias.UID}
		}
	}
	start := st.termStart
	if start.IsZero() || primaryIndex(ks, shard) != st.primary {
		start = ks.created
	}
	out.PrimaryTermStartTime = newProtoTime(start)
	for _, tc := range st.controls {
		if len(tc.deniedTables) > 0 {
			out.TabletControls = append(out.TabletControls, protoTabletControl{TabletType: protoTabletType(tc.tabletType), Cells: tc.cells, DeniedTables: tc.deniedTables})
		}
		if tc.tabletType == platform.TabletPrimary && tc.disableQueryService {
			out.IsPrimaryServing = false
		}
	}
	return out
}

func renderProtoKeyspace(ks *keyspaceRec) *protoKeyspace {
	out := &protoKeyspace{Name: ks.name}
	out.Keyspace.DurabilityPolicy = "none"
	if ks.replicas() > 0 {
		out.Keyspace.DurabilityPolicy = "semi_sync"
	}
	out.Keyspace.SidecarDBName = "_vt"
	return out
}

// vitessOperation is an operation as the API renders it.
type vitessOperation struct {
	ID          string              `json:"id"`
	Type        string              `json:"type"`
	Action      string              `json:"action"`
	Timeout     int                 `json:"timeout"`
	CreatedAt   platform.Timestamp  `json:"created_at"`
	CompletedAt *platform.Timestamp `json:"completed_at"`
	State       string              `json:"state"`
	Completed   bool                `json:"completed"`
	Metadata    map[string]string   `json:"metadata"`
	Result      any                 `json:"result"`
	Error       *string             `json:"error"`
}

// plannedReparentResult is vtctldata.PlannedReparentShardResponse.
type plannedReparentResult struct {
	Keyspace        string     `json:"keyspace"`
	Shard           string     `json:"shard"`
	PromotedPrimary protoAlias `json:"promoted_primary"`
}

func renderVitessOperation(op *vitessOpRec) *vitessOperation {
	out := &vitessOperation{
		ID: op.id, Type: "VtctldOperation", Action: op.action, Timeout: vitessOperationTimeout,
		CreatedAt: platform.NewTimestamp(op.created), CompletedAt: ptrTime(op.completed),
		State: string(op.state), Completed: op.state.Done(),
		Metadata: map[string]string{"keyspace": op.ksName, "shard": op.shard, "new_primary": op.alias.String()},
	}
	if op.action != platform.VitessActionPlannedReparent {
		out.Metadata = map[string]string{"workflow": op.workflow, "target_keyspace": op.ksName}
		if op.result != "" {
			out.Result = json.RawMessage(op.result)
		}
	} else if op.state == platform.VitessOperationCompleted {
		out.Result = plannedReparentResult{Keyspace: op.ksName, Shard: op.shard, PromotedPrimary: protoAlias{Cell: op.alias.Cell, UID: op.alias.UID}}
	}
	if op.err != "" {
		out.Error = platform.Ptr(op.err)
	}
	return out
}

// Routing rules.

// The routing rules of a branch's Vitess control plane (see vitess.go).
//
// Table routing rules are one state with the branch's routing-rules
// document (vschemas.go): vtctld_get_routing_rules renders the document
// that get_branch_routing_rules shows and update_branch_routing_rules
// sets, as vschema.RoutingRules, so a change through one shows in the
// other.
//
// Keyspace routing rules (vschema.KeyspaceRoutingRules) live in the
// topology only: a new branch starts without any, and an apply replaces
// the whole set. Both keyspaces of each rule must be keyspaces of the
// branch when the rules are applied; a rule names its keyspaces, and
// keeps them after a keyspace is deleted, as the topology does.

// ksRoutingRule is a keyspace routing rule: queries for from go to to.
type ksRoutingRule struct{ from, to string }

func vitessRoutingRoutes() []route {
	const branch = "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	return []route{
		{pattern: "GET " + branch + "/vtctld/routing-rules", op: "vtctld_get_routing_rules", handler: read(vtctldGetRoutingRules)},
		{pattern: "GET " + branch + "/vtctld/keyspace-routing-rules", op: "vtctld_get_keyspace_routing_rules", handler: read(vtctldGetKeyspaceRoutingRules)},
		{pattern: "PUT " + branch + "/vtctld/keyspace-routing-rules", op: "vtctld_apply_keyspace_routing_rules", handler: withBody(vtctldApplyKeyspaceRoutingRules)},
	}
}

func vtctldGetRoutingRules(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	rules, err := renderProtoRoutingRules(b)
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"routing_rules": rules}}, nil
}

func vtctldGetKeyspaceRoutingRules(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"keyspace_routing_rules": renderProtoKeyspaceRules(b)}}, nil
}

func vtctldApplyKeyspaceRoutingRules(c *call, p *platform.ApplyKeyspaceRoutingRulesParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	rules, err := checkKeyspaceRules(b, p)
	if err != nil {
		return nil, err
	}
	c.w.applyKeyspaceRules(b, rules)
	return vtctldData{map[string]any{"keyspace_routing_rules": renderProtoKeyspaceRules(b)}}, nil
}

// checkKeyspaceRules checks an apply of keyspace routing rules to b and
// returns the rules: each names two keyspaces of b, and no keyspace is
// routed twice. Without skip_rebuild, the cells to rebuild must be cells
// of b (with it, Vitess ignores them).
func checkKeyspaceRules(b *branchRec, p *platform.ApplyKeyspaceRoutingRulesParams) ([]ksRoutingRule, error) {
	names := vitessKeyspaceNames(b)
	known := func(field, name string) error {
		switch {
		case name == "":
			return unprocessable("%s is required: a keyspace of branch %s (%s)", field, b.name, strings.Join(names, ", "))
		case !slices.Contains(names, name):
			return unprocessable("%s %q is not a keyspace of branch %s: its keyspaces are %s", field, name, b.name, strings.Join(names, ", "))
		}
		return nil
	}
	out := make([]ksRoutingRule, 0, len(p.Rules))
	for i, r := range p.Rules {
		field := "rules[" + itoa(i) + "]"
		if err := known(field+".from_keyspace", r.FromKeyspace); err != nil {
			return nil, err
		}
		if err := known(field+".to_keyspace", r.ToKeyspace); err != nil {
			return nil, err
		}
		if j := slices.IndexFunc(out, func(o ksRoutingRule) bool { return o.from == r.FromKeyspace }); j >= 0 {
			return nil, unprocessable("%s.from_keyspace %q is routed by rules[%d] already; a keyspace has one rule", field, r.FromKeyspace, j)
		}
		out = append(out, ksRoutingRule{from: r.FromKeyspace, to: r.ToKeyspace})
	}
	if p.SkipRebuild == nil || !*p.SkipRebuild {
		if err := checkCells(b, "rebuild_cells", p.RebuildCells); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// applyKeyspaceRules replaces b's keyspace routing rules.
func (w *world) applyKeyspaceRules(b *branchRec, rules []ksRoutingRule) {
	if len(rules) == 0 && b.more.read().vitess.ksRules == nil {
		return // nothing to keep, nothing to make
	}
	b.vitess().ksRules = rules
	b.updated = w.clock.Now()
}

// protoRoutingRule is vschema.RoutingRule.
type protoRoutingRule struct {
	FromTable string   `json:"from_table,omitempty"`
	ToTables  []string `json:"to_tables,omitempty"`
}

// protoRoutingRules is vschema.RoutingRules.
type protoRoutingRules struct {
	Rules []protoRoutingRule `json:"rules,omitempty"`
}

// renderProtoRoutingRules renders b's routing-rules document as Vitess
// holds it: each rule's from_table and to_tables, in the document's
// order.
// The document was checked when it was set and when it was restored
// (checkRoutingRules), so an error here names a defect of the fake.
func renderProtoRoutingRules(b *branchRec) (*protoRoutingRules, error) {
	var doc protoRoutingRules
	if err := json.Unmarshal([]byte(b.routingRulesText()), &doc); err != nil {
		return nil, fmt.Errorf("routing rules of branch %s: %w", b.name, err)
	}
	return &doc, nil
}

// protoKeyspaceRule is vschema.KeyspaceRoutingRule.
type protoKeyspaceRule struct {
	FromKeyspace string `json:"from_keyspace,omitempty"`
	ToKeyspace   string `json:"to_keyspace,omitempty"`
}

// protoKeyspaceRules is vschema.KeyspaceRoutingRules.
type protoKeyspaceRules struct {
	Rules []protoKeyspaceRule `json:"rules,omitempty"`
}

func renderProtoKeyspaceRules(b *branchRec) *protoKeyspaceRules {
	out := &protoKeyspaceRules{}
	for _, r := range b.more.read().vitess.ksRules {
		out.Rules = append(out.Rules, protoKeyspaceRule{FromKeyspace: r.from, ToKeyspace: r.to})
	}
	return out
}

// The tablet throttler.

// The tablet throttler of a branch's Vitess control plane (see
// vitess.go): one configuration per keyspace, which its tablets share,
// and the metrics each tablet measures.
//
// A keyspace's throttler starts enabled, with a threshold of 5 s of
// replication lag (Vitess's default), no throttled apps and no metrics
// assigned to apps; update_throttler_config changes it, and status and
// check read it. A throttled app's rule has a ratio (0 to 1, in steps of
// 0.01) and may expire, on the fake's clock: an expired rule no longer
// shows or acts, and the next update drops it.
//
// The fake has no replication, so every metric of every tablet reads 0
// until a test sets it (Server.SetThrottlerMetric, or the control
// surface). The metrics are Vitess's lag (seconds; its threshold is the
// configuration's), threads_running (threshold 100) and loadavg
// (threshold 1). A metric's self scope is the tablet's own value, its
// shard scope the highest of the shard's tablets; lag is checked in the
// shard scope unless asked otherwise, the others in the self scope.
//
// A check answers from the configuration: a disabled throttler grants
// every app; an app whose rule (or the rule of the app "all") has ratio 1
// and has not expired is denied; otherwise each metric checked (the app's
// assigned metrics, else lag) is compared with its threshold, and a value
// above it denies. Vitess denies an app of a smaller ratio at random, that
// share of its checks; the fake's checks must answer the same each time,
// so they grant it (an answer Vitess may give too). A check changes
// nothing: the fake keeps no heartbeats and no record of recent apps, so
// skip_request_heartbeats and ok_if_not_exists (every metric exists) have
// nothing to change.
//
// These are the tablets' own throttler. The database's and deploy
// requests' throttler ratios (throttlers.go) are the platform's pace for
// its deployments, a separate setting: neither changes the other.

// throttlerConfig is a keyspace's throttler configuration.
type throttlerConfig struct {
	enabled bool
	// threshold is the lag threshold, in seconds.
	threshold float64
	// apps are the throttled apps' rules, by name.
	apps []throttledApp
	// appMetrics are the metrics assigned to apps, by app; nil for none.
	appMetrics map[string][]string
}

// throttledApp is the rule of a throttled app.
type throttledApp struct {
	name  string
	ratio float64
	// expires is when the rule stops acting; zero: until changed.
	expires time.Time
}

// active reports whether the rule acts at now.
func (a throttledApp) active(now time.Time) bool { return a.expires.IsZero() || a.expires.After(now) }

// tabletMetric names a metric of a tablet: the tablet by its keyspace's
// ID, shard and index (see shardTablets).
type tabletMetric struct {
	keyspace, shard string
	index           int
	metric          string
}

// defaultThrottler is a keyspace's throttler until its first update.
var defaultThrottler = throttlerConfig{enabled: true, threshold: 5}

// throttlerMetrics are the metrics the fake's tablets measure, their
// default scope and threshold (lag's is the configuration's).
var throttlerMetrics = []struct {
	name, scope string
	threshold   float64
}{
	{"lag", "shard", 0},
	{"threads_running", "self", 100},
	{"loadavg", "self", 1},
}

// throttlerMetricNames are the metrics' names, as an error lists them.
const throttlerMetricNames = "lag, threads_running or loadavg"

// lagMetricQuery is the query Vitess reads a tablet's lag with.
const lagMetricQuery = "select unix_timestamp(now(6))-max(ts/1000000000) as replication_lag from _vt.heartbeat"

// defaultThrottlerApp is the app a check without app_name is made for.
const defaultThrottlerApp = "vitess"

// metricIndex is the index of a metric in throttlerMetrics, or -1.
func metricIndex(name string) int {
	return slices.IndexFunc(throttlerMetrics, func(m struct {
		name, scope string
		threshold   float64
	}) bool {
		return m.name == name
	})
}

// parseScopedMetric reads a metric name, optionally scoped
// ("shard/loadavg"): its name and scope ("" for the metric's default).
func parseScopedMetric(s string) (name, scope string, ok bool) {
	name = s
	if sc, n, found := strings.Cut(s, "/"); found {
		if sc != "self" && sc != "shard" {
			return "", "", false
		}
		scope, name = sc, n
	}
	return name, scope, metricIndex(name) >= 0
}

// throttler returns ks's throttler configuration.
func (v *branchVitess) throttler(ks *keyspaceRec) throttlerConfig {
	if c := v.throttlers[ks.id]; c != nil {
		return *c
	}
	return defaultThrottler
}

// thresholdOf is a metric's threshold under c.
func (c throttlerConfig) thresholdOf(metric string) float64 {
	if metric == "lag" {
		return c.threshold
	}
	return throttlerMetrics[metricIndex(metric)].threshold
}

// rule is the active rule that applies to app at now: its own, else the
// rule of "all".
func (c throttlerConfig) rule(app string, now time.Time) (throttledApp, bool) {
	for _, name := range []string{app, "all"} {
		for _, a := range c.apps {
			if a.name == name && a.active(now) {
				return a, true
			}
		}
	}
	return throttledApp{}, false
}

// metricValue is a metric of tablet t in scope: its own, or in the shard
// scope the highest of its shard's tablets.
func metricValue(t vtTablet, metric, scope string) float64 {
	v := t.ks.branch.more.read().vitess
	if scope == "self" {
		return v.metrics[tabletMetric{t.ks.id, t.shard, t.index, metric}]
	}
	var hi float64
	for _, o := range shardTablets(t.ks, t.shard) {
		hi = max(hi, v.metrics[tabletMetric{o.ks.id, o.shard, o.index, metric}])
	}
	return hi
}

// vitessTablet finds the tablet of b that field names by its alias: a
// 422 naming the field when it is missing, malformed or names no tablet.
func vitessTablet(b *branchRec, field, alias string) (vtTablet, error) {
	if alias == "" {
		return vtTablet{}, unprocessable("%s is required: the alias of a tablet of branch %s (see its tablets)", field, b.name)
	}
	a, err := platform.ParseTabletAlias(alias)
	if err != nil {
		return vtTablet{}, unprocessable("%s: %v", field, err)
	}
	for _, t := range allTablets(b) {
		if t.alias == a {
			return t, nil
		}
	}
	return vtTablet{}, unprocessable("%s %s is not a tablet of branch %s; see its tablets", field, alias, b.name)
}

// throttlerChange is an update_throttler_config request, checked.
type throttlerChange struct {
	ks         *keyspaceRec
	enabled    *bool
	threshold  *float64
	apps       []throttledApp
	unthrottle []string
	metrics    map[string][]string
}

// checkThrottlerUpdate checks an update of a keyspace's throttler of b at
// now.
func checkThrottlerUpdate(b *branchRec, p *platform.UpdateThrottlerConfigParams, now time.Time) (throttlerChange, error) {
	var ch throttlerChange
	names := vitessKeyspaceNames(b)
	switch {
	case p.Keyspace == "":
		return ch, unprocessable("keyspace is required: one of %s", strings.Join(names, ", "))
	case b.keyspace(p.Keyspace) == nil:
		return ch, unprocessable("keyspace %q is not a keyspace of branch %s: its keyspaces are %s", p.Keyspace, b.name, strings.Join(names, ", "))
	case p.Enabled == nil && p.Threshold == nil && len(p.Apps) == 0 && len(p.UnthrottleApps) == 0 && len(p.AppCheckedMetrics) == 0:
		return ch, unprocessable("one of enabled, threshold, apps, unthrottle_apps or app_checked_metrics is required")
	case p.Threshold != nil && (*p.Threshold < 0 || math.IsNaN(*p.Threshold) || math.IsInf(*p.Threshold, 0)):
		return ch, unprocessable("threshold must be at least 0 (seconds of replication lag), got %v", *p.Threshold)
	}
	ch = throttlerChange{ks: b.keyspace(p.Keyspace), enabled: p.Enabled, threshold: p.Threshold}
	for i, a := range p.Apps {
		field := "apps[" + itoa(i) + "]"
		switch {
		case strings.TrimSpace(a.Name) == "":
			return ch, unprocessable("%s.name is required: the app to throttle", field)
		case slices.ContainsFunc(ch.apps, func(o throttledApp) bool { return o.name == a.Name }):
			return ch, unprocessable("%s.name %q is named twice in apps", field, a.Name)
		case slices.Contains(p.UnthrottleApps, a.Name):
			return ch, unprocessable("%s.name %q is in unthrottle_apps too; throttle or unthrottle it", field, a.Name)
		}
		rule := throttledApp{name: a.Name, ratio: 1}
		if a.Ratio != nil {
			r := *a.Ratio
			if r < 0 || r > 1 || math.Abs(r*100-math.Round(r*100)) > 1e-9 {
				return ch, unprocessable("%s.ratio must be from 0 to 1 in steps of 0.01, got %v", field, r)
			}
			rule.ratio = math.Round(r*100) / 100
		}
		if a.ExpireAt != "" {
			at, err := time.Parse(time.RFC3339, a.ExpireAt)
			if err != nil {
				return ch, unprocessable("%s.expire_at %q is not an RFC 3339 time", field, a.ExpireAt)
			}
			if !at.After(now) {
				return ch, unprocessable("%s.expire_at %s is not in the future (it is %s)", field, a.ExpireAt, now.UTC().Format(time.RFC3339))
			}
			rule.expires = at.UTC()
		}
		ch.apps = append(ch.apps, rule)
	}
	for i, name := range p.UnthrottleApps {
		if strings.TrimSpace(name) == "" {
			return ch, unprocessable("unthrottle_apps[%d] is empty", i)
		}
	}
	for _, app := range slices.Sorted(maps.Keys(p.AppCheckedMetrics)) {
		if strings.TrimSpace(app) == "" {
			return ch, unprocessable("app_checked_metrics: an app's name must not be empty")
		}
		for i, m := range p.AppCheckedMetrics[app] {
			if _, _, ok := parseScopedMetric(m); !ok {
				return ch, unprocessable("app_checked_metrics.%s[%d] %q is not a metric: %s, optionally scoped self/ or shard/", app, i, m, throttlerMetricNames)
			}
		}
	}
	ch.unthrottle, ch.metrics = p.UnthrottleApps, p.AppCheckedMetrics
	return ch, nil
}

// updateThrottler applies a checked change to its keyspace's throttler:
// enabled and a threshold above 0 are set (Vitess leaves the threshold
// as it is for 0), expired rules dropped, apps' rules set, unthrottled
// apps' dropped, and each app's metrics set (an empty list drops the
// app's).
func (w *world) updateThrottler(b *branchRec, ch throttlerChange, now time.Time) {
	v := b.vitess()
	c := v.throttler(ch.ks)
	if ch.enabled != nil {
		c.enabled = *ch.enabled
	}
	if ch.threshold != nil && *ch.threshold > 0 {
		c.threshold = *ch.threshold
	}
	apps := slices.DeleteFunc(slices.Clone(c.apps), func(a throttledApp) bool {
		return !a.active(now) || slices.Contains(ch.unthrottle, a.name)
	})
	for _, a := range ch.apps {
		if i := slices.IndexFunc(apps, func(o throttledApp) bool { return o.name == a.name }); i >= 0 {
			apps[i] = a
		} else {
			apps = append(apps, a)
		}
	}
	slices.SortFunc(apps, func(a, b throttledApp) int { return strings.Compare(a.name, b.name) })
	c.apps = apps
	if len(ch.metrics) > 0 {
		c.appMetrics = maps.Clone(c.appMetrics)
		if c.appMetrics == nil {
			c.appMetrics = map[string][]string{}
		}
		for app, ms := range ch.metrics {
			if len(ms) == 0 {
				delete(c.appMetrics, app)
				continue
			}
			c.appMetrics[app] = slices.Compact(slices.Clone(ms))
		}
		if len(c.appMetrics) == 0 {
			c.appMetrics = nil
		}
	}
	if v.throttlers == nil {
		v.throttlers = map[string]*throttlerConfig{}
	}
	v.throttlers[ch.ks.id] = &c
	b.updated = now
}

// SetThrottlerMetric sets what a metric of a tablet of a MySQL branch
// reads (lag in seconds, threads_running, loadavg), which the tablet
// throttler's status and checks then show; every metric reads 0 until
// set. The tablet is named by its alias, as list_tablets gives it.
func (s *Server) SetThrottlerMetric(org, database, branch, tabletAlias, metric string, value float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return methodErr("SetThrottlerMetric", err)
	}
	if err := vitessKind(b); err != nil {
		return fmt.Errorf("fake: SetThrottlerMetric: %s", err.(*apiError).message)
	}
	t, err := vitessTablet(b, "tablet alias", tabletAlias)
	if err != nil {
		return fmt.Errorf("fake: SetThrottlerMetric: %s", err.(*apiError).message)
	}
	switch {
	case metricIndex(metric) < 0:
		return fmt.Errorf("fake: SetThrottlerMetric: metric %q is not %s", metric, throttlerMetricNames)
	case value < 0 || math.IsNaN(value) || math.IsInf(value, 0):
		return fmt.Errorf("fake: SetThrottlerMetric: value %v of %s must be a number of at least 0", value, metric)
	}
	s.world.setTabletMetric(b, tabletMetric{t.ks.id, t.shard, t.index, metric}, value)
	return nil
}

// setTabletMetric sets a metric of a tablet of b; 0, what every metric
// reads unset, is kept as unset.
func (w *world) setTabletMetric(b *branchRec, k tabletMetric, value float64) {
	v := b.vitess()
	if value == 0 {
		delete(v.metrics, k)
		return
	}
	if v.metrics == nil {
		v.metrics = map[tabletMetric]float64{}
	}
	v.metrics[k] = value
}

// Handlers.

func vitessThrottlerRoutes() []route {
	const branch = "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	return []route{
		{pattern: "GET " + branch + "/vtctld/throttler/status", op: "vtctld_get_throttler_status", handler: read(vtctldGetThrottlerStatus)},
		{pattern: "POST " + branch + "/vtctld/throttler/check", op: "vtctld_check_throttler", handler: readBody(vtctldCheckThrottler)},
		{pattern: "PUT " + branch + "/vtctld/throttler/config", op: "vtctld_update_throttler_config", handler: withBody(vtctldUpdateThrottlerConfig)},
	}
}

func vtctldGetThrottlerStatus(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	t, err := vitessTablet(b, "tablet_alias", c.r.URL.Query().Get("tablet_alias"))
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"status": renderThrottlerStatus(t, c.now)}}, nil
}

func vtctldCheckThrottler(c *call, p *platform.CheckThrottlerParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	t, err := vitessTablet(b, "tablet_alias", p.TabletAlias)
	if err != nil {
		return nil, err
	}
	app, scope := defaultThrottlerApp, ""
	if p.AppName != nil && *p.AppName != "" {
		app = *p.AppName
	}
	if p.Scope != nil && *p.Scope != "" {
		if scope = *p.Scope; scope != "self" && scope != "shard" {
			return nil, unprocessable("scope %q is not self or shard", scope)
		}
	}
	return vtctldData{map[string]any{
		"tablet_alias": protoAlias{Cell: t.alias.Cell, UID: t.alias.UID},
		"Check":        checkThrottler(t, app, scope, c.now),
	}}, nil
}

func vtctldUpdateThrottlerConfig(c *call, p *platform.UpdateThrottlerConfigParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	ch, err := checkThrottlerUpdate(b, p, c.now)
	if err != nil {
		return nil, err
	}
	c.w.updateThrottler(b, ch, c.now)
	return vtctldData{map[string]any{}}, nil
}

// Rendering.

// The response codes of a check (tabletmanagerdata.CheckThrottlerResponseCode).
const (
	checkOK                = "OK"
	checkThresholdExceeded = "THRESHOLD_EXCEEDED"
	checkAppDenied         = "APP_DENIED"
)

// protoCheckMetric is tabletmanagerdata.CheckThrottlerResponse.Metric.
type protoCheckMetric struct {
	Name         string  `json:"name,omitempty"`
	StatusCode   int32   `json:"status_code,omitempty"`
	Value        float64 `json:"value,omitempty"`
	Threshold    float64 `json:"threshold,omitempty"`
	Error        string  `json:"error,omitempty"`
	Message      string  `json:"message,omitempty"`
	Scope        string  `json:"scope,omitempty"`
	ResponseCode string  `json:"response_code,omitempty"`
}

// protoCheck is tabletmanagerdata.CheckThrottlerResponse.
type protoCheck struct {
	StatusCode   int32                       `json:"status_code,omitempty"`
	Value        float64                     `json:"value,omitempty"`
	Threshold    float64                     `json:"threshold,omitempty"`
	Error        string                      `json:"error,omitempty"`
	Message      string                      `json:"message,omitempty"`
	Metrics      map[string]protoCheckMetric `json:"metrics,omitempty"`
	AppName      string                      `json:"app_name,omitempty"`
	Summary      string                      `json:"summary,omitempty"`
	ResponseCode string                      `json:"response_code,omitempty"`
}

// checkThrottler answers a check of app on tablet t at now, in scope ("":
// each metric's own).
func checkThrottler(t vtTablet, app, scope string, now time.Time) *protoCheck {
	c := t.ks.branch.more.read().vitess.throttler(t.ks)
	granted := &protoCheck{StatusCode: 200, ResponseCode: checkOK, AppName: app, Summary: app + " is granted access"}
	if !c.enabled {
		return granted
	}
	metrics := c.appMetrics[app]
	if len(metrics) == 0 {
		metrics = []string{"lag"}
	}
	out := &protoCheck{Metrics: map[string]protoCheckMetric{}}
	if rule, ok := c.rule(app, now); ok && rule.ratio >= 1 {
		for _, m := range metrics {
			name, sc, _ := parseScopedMetric(m)
			out.Metrics[name] = protoCheckMetric{Name: name, StatusCode: 417, Error: "App denied", Message: "App denied", Scope: metricScope(name, sc, scope), ResponseCode: checkAppDenied}
		}
		out.StatusCode, out.ResponseCode, out.Error, out.Message = 417, checkAppDenied, "App denied", "App denied"
		out.AppName, out.Summary = rule.name, app+" is explicitly denied access"
		return out
	}
	var first, lag *protoCheckMetric
	var failed bool
	for _, m := range metrics {
		name, sc, _ := parseScopedMetric(m)
		sc = metricScope(name, sc, scope)
		r := protoCheckMetric{Name: name, StatusCode: 200, Value: metricValue(t, name, sc), Threshold: c.thresholdOf(name), Scope: sc, ResponseCode: checkOK}
		if r.Value > r.Threshold {
			r.StatusCode, r.ResponseCode, r.Error, r.Message = 429, checkThresholdExceeded, "threshold exceeded", "threshold exceeded"
		}
		out.Metrics[name] = r
		switch {
		case r.ResponseCode != checkOK && !failed:
			failed, first = true, &r
		case first == nil:
			first = &r
		}
		if name == "lag" {
			lag = &r
		}
	}
	pick := first
	if !failed && lag != nil {
		pick = lag
	}
	out.StatusCode, out.Value, out.Threshold, out.Error, out.Message, out.ResponseCode = pick.StatusCode, pick.Value, pick.Threshold, pick.Error, pick.Message, pick.ResponseCode
	out.AppName = app
	out.Summary = app + " is granted access"
	if failed {
		out.Summary = fmt.Sprintf("%s is denied access due to %s/%s metric value %v exceeding threshold %v", app, pick.Scope, pick.Name, pick.Value, pick.Threshold)
	}
	return out
}

// metricScope is the scope a metric is checked in: the request's, else
// the metric name's own ("shard/loadavg"), else the metric's default.
func metricScope(metric, named, asked string) string {
	switch {
	case asked != "":
		return asked
	case named != "":
		return named
	}
	return throttlerMetrics[metricIndex(metric)].scope
}

// protoAppRule is topodata.ThrottledAppRule.
type protoAppRule struct {
	Name      string     `json:"name,omitempty"`
	Ratio     float64    `json:"ratio,omitempty"`
	ExpiresAt *protoTime `json:"expires_at,omitempty"`
	Exempt    bool       `json:"exempt,omitempty"`
}

// protoMetricResult is tabletmanagerdata.GetThrottlerStatusResponse.MetricResult.
type protoMetricResult struct {
	Value float64 `json:"value,omitempty"`
	Error string  `json:"error,omitempty"`
}

// protoThrottlerStatus is tabletmanagerdata.GetThrottlerStatusResponse.
type protoThrottlerStatus struct {
	TabletAlias             string                       `json:"tablet_alias,omitempty"`
	Keyspace                string                       `json:"keyspace,omitempty"`
	Shard                   string                       `json:"shard,omitempty"`
	IsLeader                bool                         `json:"is_leader,omitempty"`
	IsOpen                  bool                         `json:"is_open,omitempty"`
	IsEnabled               bool                         `json:"is_enabled,omitempty"`
	IsDormant               bool                         `json:"is_dormant,omitempty"`
	LagMetricQuery          string                       `json:"lag_metric_query,omitempty"`
	DefaultThreshold        float64                      `json:"default_threshold,omitempty"`
	MetricNameUsedAsDefault string                       `json:"metric_name_used_as_default,omitempty"`
	AggregatedMetrics       map[string]protoMetricResult `json:"aggregated_metrics,omitempty"`
	MetricThresholds        map[string]float64           `json:"metric_thresholds,omitempty"`
	ThrottledApps           map[string]protoAppRule      `json:"throttled_apps,omitempty"`
	AppCheckedMetrics       map[string]string            `json:"app_checked_metrics,omitempty"`
	RecentlyChecked         bool                         `json:"recently_checked,omitempty"`
}

// renderThrottlerStatus renders the throttler of tablet t at now: its
// keyspace's configuration, and its metrics in the self scope (and, for
// the shard's primary, which leads the shard's throttler, in the shard
// scope).
func renderThrottlerStatus(t vtTablet, now time.Time) *protoThrottlerStatus {
	c := t.ks.branch.more.read().vitess.throttler(t.ks)
	leader := t.tabletType == platform.TabletPrimary
	out := &protoThrottlerStatus{
		TabletAlias: t.alias.String(), Keyspace: t.ks.name, Shard: t.shard,
		IsLeader: leader, IsOpen: true, IsEnabled: c.enabled,
		LagMetricQuery: lagMetricQuery, DefaultThreshold: c.threshold, MetricNameUsedAsDefault: "lag",
		AggregatedMetrics: map[string]protoMetricResult{}, MetricThresholds: map[string]float64{},
	}
	for _, m := range throttlerMetrics {
		out.MetricThresholds[m.name] = c.thresholdOf(m.name)
		out.AggregatedMetrics["self/"+m.name] = protoMetricResult{Value: metricValue(t, m.name, "self")}
		if leader {
			out.AggregatedMetrics["shard/"+m.name] = protoMetricResult{Value: metricValue(t, m.name, "shard")}
		}
	}
	for _, a := range c.apps {
		if !a.active(now) {
			continue
		}
		if out.ThrottledApps == nil {
			out.ThrottledApps = map[string]protoAppRule{}
		}
		r := protoAppRule{Name: a.name, Ratio: a.ratio}
		if !a.expires.IsZero() {
			r.ExpiresAt = newProtoTime(a.expires)
		}
		out.ThrottledApps[a.name] = r
	}
	for app, ms := range c.appMetrics {
		if out.AppCheckedMetrics == nil {
			out.AppCheckedMetrics = map[string]string{}
		}
		out.AppCheckedMetrics[app] = strings.Join(ms, ",")
	}
	return out
}

// vitessKeyspaceNames names b's keyspaces, in its order.
func vitessKeyspaceNames(b *branchRec) []string {
	names := []string{}
	for _, ks := range b.keyspaces.All() {
		names = append(names, ks.name)
	}
	return names
}
