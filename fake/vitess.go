package fake

import (
	"fmt"
	"hash/fnv"
	"slices"
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
//   - shardTablets(ks, shard): the tablets of a shard, with their aliases
//     and types; allTablets(b): all of them; branchCells(b): its cells.
//   - (*world).vitessShard(b, keyspace, shard): a keyspace and shard named
//     by a request, or a 422 naming the field.
//   - (*world).newVitessOperation / settleVitessOperation: an operation on
//     the clock (see vitess_jobs.go).
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
	// vitess_routing.go).
	ksRules []ksRoutingRule
	// throttlers are the keyspaces' throttler configurations, by
	// keyspace ID, and metrics the tablets' metrics that tests set (see
	// vitess_throttler.go).
	throttlers map[string]*throttlerConfig
	metrics    map[tabletMetric]float64
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

// vitessKind refuses the Vitess control plane of a PostgreSQL branch.
func vitessKind(b *branchRec) error {
	if b.db.kind != platform.KindMySQL {
		return unprocessable("the Vitess control plane is MySQL's; %s is a %s database", b.db.name, b.db.kind)
	}
	return nil
}

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
		w.clock.After(w.timing.PlannedReparent, vitessOpJob{op, platform.VitessOperationRunning})
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
	}
}

// vitessBranch finds the path's branch and refuses a PostgreSQL one.
func (c *call) vitessBranch() (*branchRec, error) {
	b, err := c.branch()
	if err != nil {
		return nil, err
	}
	return b, vitessKind(b)
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
	if op.state == platform.VitessOperationCompleted {
		out.Result = plannedReparentResult{Keyspace: op.ksName, Shard: op.shard, PromotedPrimary: protoAlias{Cell: op.alias.Cell, UID: op.alias.UID}}
	}
	if op.err != "" {
		out.Error = platform.Ptr(op.err)
	}
	return out
}
