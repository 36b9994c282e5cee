package fake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a MySQL branch's topology state (see vitess.go): the
// shards the API changed and the operations.

type vitessSnap struct {
	Shards        []shardSnap        `json:"shards"`
	Operations    []vitessOpSnap     `json:"operations"`
	KeyspaceRules []ksRoutingSnap    `json:"keyspace_routing_rules,omitempty"`
	Throttlers    []throttlerSnap    `json:"throttlers,omitempty"`
	Metrics       []tabletMetricSnap `json:"tablet_metrics,omitempty"`
	// VDiffSeq, VDiffs and VDiffDiffs are the VDiffs' (vitess_vdiff_snap.go).
	VDiffSeq   int64            `json:"vdiff_seq,omitempty"`
	VDiffs     []vdiffSnap      `json:"vdiffs,omitempty"`
	VDiffDiffs []vdiffDiffsSnap `json:"vdiff_differences,omitempty"`
	// Workflows are the VReplication workflows without a documented
	// workflow (see vreplication_snap.go).
	Workflows []*vrWorkflowSnap `json:"workflows,omitempty"`
}

type ksRoutingSnap struct {
	From string `json:"from_keyspace"`
	To   string `json:"to_keyspace"`
}

type throttlerSnap struct {
	Keyspace   string              `json:"keyspace"` // ID
	Enabled    bool                `json:"enabled"`
	Threshold  float64             `json:"threshold"`
	Apps       []throttledAppSnap  `json:"apps"`
	AppMetrics map[string][]string `json:"app_checked_metrics,omitempty"`
}

type throttledAppSnap struct {
	Name    string    `json:"name"`
	Ratio   float64   `json:"ratio"`
	Expires time.Time `json:"expires"` // zero: until changed
}

type tabletMetricSnap struct {
	Keyspace string  `json:"keyspace"` // ID
	Shard    string  `json:"shard"`
	Tablet   int     `json:"tablet"` // index in its shard (see shardTablets)
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
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
	// A MoveTables action's: the workflow, the request's body, the
	// actor's user ID and the result (JSON text).
	Workflow string `json:"workflow,omitempty"`
	Body     string `json:"body,omitempty"`
	Actor    string `json:"actor,omitempty"`
	Result   string `json:"result,omitempty"`
}

// saveVitess saves b's topology state; nil when the API never changed
// it. Shards of keyspaces since deleted are left out.
func saveVitess(b *branchRec) *vitessSnap {
	v := b.more.read().vitess
	wfs := saveVRWorkflows(b)
	if len(v.shards) == 0 && v.ops.Len() == 0 && len(v.ksRules) == 0 && len(v.throttlers) == 0 && len(v.metrics) == 0 && len(wfs) == 0 && !v.hasVDiffs() {
		return nil
	}
	out := &vitessSnap{Shards: []shardSnap{}, Operations: []vitessOpSnap{}, Workflows: wfs}
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
	saveVitessControl(b, &v, out)
	saveVDiffs(b, &v, out)
	for _, op := range v.ops.All() {
		out.Operations = append(out.Operations, vitessOpSnap{
			stampsSnap: saveStamps(op.stamps), Action: op.action, State: op.state, Keyspace: op.keyspace, KeyspaceName: op.ksName,
			Shard: op.shard, Target: op.target, Alias: op.alias, Error: op.err, Completed: op.completed,
			Workflow: op.workflow, Body: op.body, Actor: idOf(op.actor), Result: op.result,
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
	for i, ws := range vs.Workflows {
		if ws == nil {
			return fmt.Errorf("vitess.workflows[%d] is null", i)
		}
		if err := loadVRWorkflow(b, ws, nil); err != nil {
			return at(err, "vitess.workflows[%d]", i)
		}
	}
	if err := loadVitessControl(b, v, vs); err != nil {
		return err
	}
	return ld.loadVDiffs(b, v, vs)
}

// saveVitessControl saves b's keyspace routing rules, and the throttlers
// and tablet metrics of its live keyspaces.
func saveVitessControl(b *branchRec, v *branchVitess, out *vitessSnap) {
	for _, r := range v.ksRules {
		out.KeyspaceRules = append(out.KeyspaceRules, ksRoutingSnap{From: r.from, To: r.to})
	}
	for _, ks := range b.keyspaces.All() {
		if c := v.throttlers[ks.id]; c != nil {
			ts := throttlerSnap{Keyspace: ks.id, Enabled: c.enabled, Threshold: c.threshold, Apps: []throttledAppSnap{}, AppMetrics: c.appMetrics}
			for _, a := range c.apps {
				ts.Apps = append(ts.Apps, throttledAppSnap{Name: a.name, Ratio: a.ratio, Expires: a.expires})
			}
			out.Throttlers = append(out.Throttlers, ts)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(v.metrics), func(a, b tabletMetric) int {
		return cmp.Or(strings.Compare(a.keyspace, b.keyspace), strings.Compare(a.shard, b.shard), a.index-b.index, strings.Compare(a.metric, b.metric))
	}) {
		if ks := liveKeyspace(b, k.keyspace); ks != nil && slices.Contains(shardNames(ks.shards), k.shard) {
			out.Metrics = append(out.Metrics, tabletMetricSnap{Keyspace: k.keyspace, Shard: k.shard, Tablet: k.index, Metric: k.metric, Value: v.metrics[k]})
		}
	}
}

// liveKeyspace is the keyspace of b with ID id, or nil.
func liveKeyspace(b *branchRec, id string) *keyspaceRec {
	for _, ks := range b.keyspaces.All() {
		if ks.id == id {
			return ks
		}
	}
	return nil
}

// loadVitessControl loads b's keyspace routing rules (keyspace names,
// each routed once), throttlers (of live keyspaces of b, once each: a
// threshold of at least 0, apps named once with ratios from 0 to 1,
// known metrics) and tablet metrics (of tablets of live shards of b,
// known metrics, values of at least 0).
func loadVitessControl(b *branchRec, v *branchVitess, vs *vitessSnap) error {
	for i, rs := range vs.KeyspaceRules {
		if err := snapName(rs.From); err != nil {
			return at(err, "vitess.keyspace_routing_rules[%d].from_keyspace", i)
		}
		if err := snapName(rs.To); err != nil {
			return at(err, "vitess.keyspace_routing_rules[%d].to_keyspace", i)
		}
		if slices.ContainsFunc(v.ksRules, func(r ksRoutingRule) bool { return r.from == rs.From }) {
			return fmt.Errorf("vitess.keyspace_routing_rules[%d]: keyspace %s is routed twice", i, rs.From)
		}
		v.ksRules = append(v.ksRules, ksRoutingRule{from: rs.From, to: rs.To})
	}
	for i, ts := range vs.Throttlers {
		c, err := loadThrottler(b, v, ts)
		if err != nil {
			return at(err, "vitess.throttlers[%d]", i)
		}
		if v.throttlers == nil {
			v.throttlers = map[string]*throttlerConfig{}
		}
		v.throttlers[ts.Keyspace] = c
	}
	for i, ms := range vs.Metrics {
		ks := liveKeyspace(b, ms.Keyspace)
		k := tabletMetric{ms.Keyspace, ms.Shard, ms.Tablet, ms.Metric}
		switch {
		case ks == nil:
			return fmt.Errorf("vitess.tablet_metrics[%d]: keyspace %q is not a keyspace of branch %s", i, ms.Keyspace, b.id)
		case !slices.Contains(shardNames(ks.shards), ms.Shard):
			return fmt.Errorf("vitess.tablet_metrics[%d]: shard %q is not a shard of keyspace %s", i, ms.Shard, ks.name)
		case ms.Tablet < 0:
			return fmt.Errorf("vitess.tablet_metrics[%d]: tablet %d is negative", i, ms.Tablet)
		case metricIndex(ms.Metric) < 0:
			return fmt.Errorf("vitess.tablet_metrics[%d]: metric %q is not %s", i, ms.Metric, throttlerMetricNames)
		case !(ms.Value > 0) || math.IsInf(ms.Value, 0):
			return fmt.Errorf("vitess.tablet_metrics[%d]: value %v must be above 0 (0 is left out)", i, ms.Value)
		case v.metrics[k] != 0:
			return fmt.Errorf("vitess.tablet_metrics[%d]: metric %s of tablet %d of %s/%s appears twice", i, ms.Metric, ms.Tablet, ks.name, ms.Shard)
		}
		if v.metrics == nil {
			v.metrics = map[tabletMetric]float64{}
		}
		v.metrics[k] = ms.Value
	}
	return nil
}

func loadThrottler(b *branchRec, v *branchVitess, ts throttlerSnap) (*throttlerConfig, error) {
	switch {
	case liveKeyspace(b, ts.Keyspace) == nil:
		return nil, fmt.Errorf("keyspace %q is not a keyspace of branch %s", ts.Keyspace, b.id)
	case v.throttlers[ts.Keyspace] != nil:
		return nil, fmt.Errorf("keyspace %s appears twice", ts.Keyspace)
	case !(ts.Threshold >= 0) || math.IsInf(ts.Threshold, 0):
		return nil, fmt.Errorf("threshold %v must be at least 0", ts.Threshold)
	}
	c := &throttlerConfig{enabled: ts.Enabled, threshold: ts.Threshold}
	for j, as := range ts.Apps {
		switch {
		case as.Name == "":
			return nil, fmt.Errorf("apps[%d]: name must not be empty", j)
		case slices.ContainsFunc(c.apps, func(a throttledApp) bool { return a.name == as.Name }):
			return nil, fmt.Errorf("apps[%d]: app %s appears twice", j, as.Name)
		case !(as.Ratio >= 0 && as.Ratio <= 1):
			return nil, fmt.Errorf("apps[%d]: ratio %v must be from 0 to 1", j, as.Ratio)
		}
		c.apps = append(c.apps, throttledApp{name: as.Name, ratio: as.Ratio, expires: as.Expires})
	}
	slices.SortFunc(c.apps, func(a, b throttledApp) int { return strings.Compare(a.name, b.name) })
	for _, app := range slices.Sorted(maps.Keys(ts.AppMetrics)) {
		ms := ts.AppMetrics[app]
		if app == "" || len(ms) == 0 {
			return nil, fmt.Errorf("app_checked_metrics: app %q needs a name and metrics", app)
		}
		for j, m := range ms {
			if _, _, ok := parseScopedMetric(m); !ok {
				return nil, fmt.Errorf("app_checked_metrics.%s[%d]: %q is not a metric", app, j, m)
			}
		}
		if c.appMetrics == nil {
			c.appMetrics = map[string][]string{}
		}
		c.appMetrics[app] = slices.Clone(ms)
	}
	return c, nil
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
	if err := snapOneOf(os.Action, "action", append([]string{platform.VitessActionPlannedReparent}, mtActions...)...); err != nil {
		return err
	}
	if err := snapOneOf(os.State, "state", platform.VitessOperationPending, platform.VitessOperationRunning,
		platform.VitessOperationCompleted, platform.VitessOperationFailed, platform.VitessOperationCancelled); err != nil {
		return err
	}
	if err := snapName(os.KeyspaceName); err != nil {
		return fmt.Errorf("keyspace_name: %w", err)
	}
	op := &vitessOpRec{
		stamps: os.load(), branch: b, action: os.Action, state: os.State, keyspace: os.Keyspace, ksName: os.KeyspaceName,
		shard: os.Shard, target: os.Target, alias: os.Alias, err: os.Error, completed: os.Completed,
		workflow: os.Workflow, body: os.Body, result: os.Result,
	}
	if op.action != platform.VitessActionPlannedReparent {
		if err := ld.loadMoveTablesOp(op, os); err != nil {
			return fmt.Errorf("operation %s: %w", op.id, err)
		}
		ld.vitessOps[op.id] = op
		v.ops.Add(op)
		return nil
	}
	if os.Keyspace == "" || os.Shard == "" || os.Alias.Cell == "" {
		return fmt.Errorf("operation %s: keyspace, shard and alias are required", os.ID)
	}
	if err := snapNonNegative(os.Target); err != nil {
		return fmt.Errorf("target: %w", err)
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

// loadMoveTablesOp checks a MoveTables operation read back: a workflow
// name and a target keyspace, a body its action reads, a known actor, a
// result (a JSON object) exactly when it completed, an error when it
// failed or was cancelled.
func (ld *loader) loadMoveTablesOp(op *vitessOpRec, os vitessOpSnap) error {
	var body any
	switch op.action {
	case platform.VitessActionMoveTablesCreate:
		body = new(platform.CreateMoveTablesParams)
	case platform.VitessActionMoveTablesCancel:
		body = new(platform.CancelMoveTablesParams)
	case platform.VitessActionMoveTablesComplete:
		body = new(platform.CompleteMoveTablesParams)
	default:
		body = new(platform.SwitchTrafficParams)
	}
	var result map[string]any
	switch {
	case op.keyspace == "" || op.workflow == "":
		return fmt.Errorf("keyspace and workflow are required")
	case op.shard != "" || op.alias != (platform.TabletAlias{}) || op.target != 0:
		return fmt.Errorf("a MoveTables operation names no shard, tablet or alias")
	case json.Unmarshal([]byte(op.body), body) != nil:
		return fmt.Errorf("body %q is not a %s request", op.body, op.action)
	case (op.state == platform.VitessOperationCompleted) != (op.result != ""):
		return fmt.Errorf("state %s with result %q", op.state, op.result)
	case op.result != "" && json.Unmarshal([]byte(op.result), &result) != nil:
		return fmt.Errorf("result %q is not a JSON object", op.result)
	case (op.state == platform.VitessOperationFailed || op.state == platform.VitessOperationCancelled) != (op.err != ""):
		return fmt.Errorf("state %s with error %q", op.state, op.err)
	}
	var err error
	op.actor, err = ref(ld.users, os.Actor, "operation actor")
	return err
}
