package fake

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a branch's VDiffs and the differences tests arranged
// (see vitess_vdiff.go), part of its topology's (vitessSnap).

type vdiffSnap struct {
	stampsSnap
	Seq int64 `json:"seq"`
	// TargetKeyspace (an ID) and Workflow name the VDiff's workflow.
	TargetKeyspace string           `json:"target_keyspace"`
	Workflow       string           `json:"workflow"`
	Options        vdiffOptionsSnap `json:"options"`
	Shards         []vdiffShardSnap `json:"shards"`
}

type vdiffOptionsSnap struct {
	Tables                    []string `json:"tables"`
	TabletTypes               []string `json:"tablet_types"`
	TabletSelectionPreference string   `json:"tablet_selection_preference"`
	Limit                     int64    `json:"limit"`
	MaxSampleRows             int64    `json:"max_report_sample_rows"`
	MaxExtraRowsToCompare     int64    `json:"max_extra_rows_to_compare"`
	TruncateAt                int64    `json:"row_diff_column_truncate_at"`
	WaitSeconds               int64    `json:"filtered_replication_wait_time"`
	AutoRetry                 bool     `json:"auto_retry"`
	AutoStart                 bool     `json:"auto_start"`
	DebugQuery                bool     `json:"debug_query"`
	OnlyPKs                   bool     `json:"only_pks"`
	UpdateTableStats          bool     `json:"update_table_stats"`
	Verbose                   bool     `json:"verbose"`
}

type vdiffShardSnap struct {
	Name      string              `json:"name"`
	State     platform.VDiffState `json:"state"`
	Gen       uint64              `json:"gen"`
	Begun     bool                `json:"begun"`
	Tables    []vdiffTableSnap    `json:"tables"`
	Compared  int64               `json:"compared"`
	Since     time.Time           `json:"since"`
	Started   time.Time           `json:"started"`
	Done      time.Time           `json:"done"`
	LastError string              `json:"last_error"`
}

type vdiffTableSnap struct {
	Name  string           `json:"name"`
	Rows  int64            `json:"rows"`
	Diffs VDiffDifferences `json:"differences"`
}

type vdiffDiffsSnap struct {
	Keyspace string `json:"keyspace"` // ID
	Table    string `json:"table"`
	VDiffDifferences
}

// saveVDiffs saves b's VDiffs and arranged differences into out.
func saveVDiffs(b *branchRec, v *branchVitess, out *vitessSnap) {
	st := &v.vdiff
	out.VDiffSeq = st.seq
	for _, d := range st.list.All() {
		o := d.opts
		ds := vdiffSnap{
			stampsSnap: saveStamps(d.stamps), Seq: d.seq, TargetKeyspace: d.wf.target.id, Workflow: d.wf.name, Shards: []vdiffShardSnap{},
			Options: vdiffOptionsSnap{
				Tables: o.tables, TabletTypes: o.tabletTypes, TabletSelectionPreference: o.tabletSelectionPreference,
				Limit: o.limit, MaxSampleRows: o.maxSampleRows, MaxExtraRowsToCompare: o.maxExtraRowsToCompare,
				TruncateAt: o.truncateAt, WaitSeconds: o.waitSeconds, AutoRetry: o.autoRetry, AutoStart: o.autoStart,
				DebugQuery: o.debugQuery, OnlyPKs: o.onlyPKs, UpdateTableStats: o.updateTableStats, Verbose: o.verbose,
			},
		}
		for _, sh := range d.shards {
			ss := vdiffShardSnap{Name: sh.name, State: sh.state, Gen: sh.gen, Begun: sh.begun, Tables: []vdiffTableSnap{},
				Compared: sh.compared, Since: sh.since, Started: sh.started, Done: sh.done, LastError: sh.lastErr}
			for _, t := range sh.tables {
				ss.Tables = append(ss.Tables, vdiffTableSnap{Name: t.name, Rows: t.rows, Diffs: t.diffs})
			}
			ds.Shards = append(ds.Shards, ss)
		}
		out.VDiffs = append(out.VDiffs, ds)
	}
	for _, k := range slices.SortedFunc(maps.Keys(st.diffs), func(a, b vdiffTableKey) int {
		return cmp.Or(strings.Compare(a.keyspace, b.keyspace), strings.Compare(a.table, b.table))
	}) {
		if liveKeyspace(b, k.keyspace) != nil {
			out.VDiffDiffs = append(out.VDiffDiffs, vdiffDiffsSnap{Keyspace: k.keyspace, Table: k.table, VDiffDifferences: *st.diffs[k]})
		}
	}
}

// hasVDiffs reports whether v holds VDiffs or arranged differences.
func (v *branchVitess) hasVDiffs() bool {
	return v.vdiff.list.Len() > 0 || len(v.vdiff.diffs) > 0 || v.vdiff.seq > 0
}

// loadVDiffs loads b's VDiffs (each of a workflow of b's database on b,
// resolved once the workflows are loaded, with its target keyspace's
// shards, known states, and tables of the workflow) and arranged
// differences (of live keyspaces of b).
func (ld *loader) loadVDiffs(b *branchRec, v *branchVitess, vs *vitessSnap) error {
	st := &v.vdiff
	if err := snapNonNegative(vs.VDiffSeq); err != nil {
		return at(err, "vitess.vdiff_seq")
	}
	st.seq = vs.VDiffSeq
	for i, ds := range vs.VDiffs {
		d, err := ld.loadVDiff(b, st, ds)
		if err != nil {
			return at(err, "vitess.vdiffs[%d]", i)
		}
		ld.vdiffs[d.id] = d
		st.list.Add(d)
		ld.later(func() error { return at(ld.resolveVDiff(d, ds), "vitess.vdiffs[%d]", i) })
	}
	for i, ds := range vs.VDiffDiffs {
		k := vdiffTableKey{ds.Keyspace, ds.Table}
		switch {
		case liveKeyspace(b, ds.Keyspace) == nil:
			return fmt.Errorf("vitess.vdiff_differences[%d]: keyspace %q is not a keyspace of branch %s", i, ds.Keyspace, b.id)
		case st.diffs[k] != nil:
			return fmt.Errorf("vitess.vdiff_differences[%d]: table %s appears twice", i, ds.Table)
		case ds.empty():
			return fmt.Errorf("vitess.vdiff_differences[%d]: no rows (none are left out)", i)
		}
		if err := checkVDiffDifferences(ds.Table, &ds.VDiffDifferences); err != nil {
			return fmt.Errorf("vitess.vdiff_differences[%d]: %w", i, err)
		}
		if st.diffs == nil {
			st.diffs = map[vdiffTableKey]*VDiffDifferences{}
		}
		d := ds.VDiffDifferences
		st.diffs[k] = &d
	}
	return nil
}

// loadVDiff loads a VDiff's own fields; resolveVDiff checks it against
// its workflow.
func (ld *loader) loadVDiff(b *branchRec, st *vdiffState, ds vdiffSnap) (*vdiffRec, error) {
	if err := unique(ld.vdiffs, ds.ID, "VDiff"); err != nil {
		return nil, err
	}
	o := ds.Options
	switch {
	case ds.Seq < 1 || ds.Seq > st.seq:
		return nil, fmt.Errorf("seq %d is not from 1 to vdiff_seq %d", ds.Seq, st.seq)
	case slices.ContainsFunc(st.list.All(), func(d *vdiffRec) bool { return d.seq == ds.Seq }):
		return nil, fmt.Errorf("seq %d appears twice", ds.Seq)
	case o.Limit < 0 || o.MaxSampleRows < 0 || o.MaxExtraRowsToCompare < 0 || o.TruncateAt < 0 || o.WaitSeconds < 0:
		return nil, fmt.Errorf("options: a negative count")
	case o.TabletSelectionPreference != "" && o.TabletSelectionPreference != "any" && o.TabletSelectionPreference != "inorder":
		return nil, fmt.Errorf("options: tablet_selection_preference %q is not any or inorder", o.TabletSelectionPreference)
	case len(ds.Shards) == 0:
		return nil, fmt.Errorf("no shards")
	}
	for i, t := range o.TabletTypes {
		if _, ok := parseTabletType(t); !ok {
			return nil, fmt.Errorf("options: tablet_types[%d] %q is not a tablet type", i, t)
		}
	}
	d := &vdiffRec{stamps: ds.load(), seq: ds.Seq, branch: b, opts: vdiffOptions{
		tables: o.Tables, tabletTypes: o.TabletTypes, tabletSelectionPreference: o.TabletSelectionPreference,
		limit: o.Limit, maxSampleRows: o.MaxSampleRows, maxExtraRowsToCompare: o.MaxExtraRowsToCompare,
		truncateAt: o.TruncateAt, waitSeconds: o.WaitSeconds, autoRetry: o.AutoRetry, autoStart: o.AutoStart,
		debugQuery: o.DebugQuery, onlyPKs: o.OnlyPKs, updateTableStats: o.UpdateTableStats, verbose: o.Verbose,
	}}
	for j, ss := range ds.Shards {
		sh, err := loadVDiffShard(ss)
		if err != nil {
			return nil, at(err, "shards[%d]", j)
		}
		if d.shard(sh.name) != nil {
			return nil, fmt.Errorf("shards[%d]: shard %s appears twice", j, sh.name)
		}
		d.shards = append(d.shards, sh)
	}
	return d, nil
}

func loadVDiffShard(ss vdiffShardSnap) (*vdiffShard, error) {
	if err := snapOneOf(ss.State, "state", platform.VDiffPending, platform.VDiffStarted, platform.VDiffStopped, platform.VDiffError, platform.VDiffCompleted); err != nil {
		return nil, err
	}
	sh := &vdiffShard{name: ss.Name, state: ss.State, gen: ss.Gen, begun: ss.Begun, compared: ss.Compared,
		since: ss.Since, started: ss.Started, done: ss.Done, lastErr: ss.LastError}
	for k, ts := range ss.Tables {
		if err := snapName(ts.Name); err != nil {
			return nil, at(err, "tables[%d].name", k)
		}
		if err := snapNonNegative(ts.Rows); err != nil {
			return nil, at(err, "tables[%d].rows", k)
		}
		if err := checkVDiffDifferences(ts.Name, &ts.Diffs); err != nil {
			return nil, fmt.Errorf("tables[%d]: %w", k, err)
		}
		if k > 0 && ss.Tables[k-1].Name >= ts.Name {
			return nil, fmt.Errorf("tables[%d]: %s is out of name order", k, ts.Name)
		}
		sh.tables = append(sh.tables, vdiffTable{name: ts.Name, rows: ts.Rows, diffs: ts.Diffs})
	}
	switch {
	case !sh.begun && len(sh.tables) > 0:
		return nil, fmt.Errorf("tables of a shard that has not begun")
	case sh.state == platform.VDiffStarted && !sh.begun:
		return nil, fmt.Errorf("a started shard that has not begun")
	case sh.compared < 0 || sh.compared > sh.work():
		return nil, fmt.Errorf("compared %d is not from 0 to its %d rows", sh.compared, sh.work())
	case (sh.state == platform.VDiffError) != (sh.lastErr != ""):
		return nil, fmt.Errorf("state %s with last_error %q", sh.state, sh.lastErr)
	case (sh.state == platform.VDiffCompleted) != !sh.done.IsZero():
		return nil, fmt.Errorf("state %s with done %v", sh.state, sh.done)
	case sh.state == platform.VDiffCompleted && sh.compared != sh.work():
		return nil, fmt.Errorf("completed with %d of %d rows compared", sh.compared, sh.work())
	}
	return sh, nil
}

// resolveVDiff finds a loaded VDiff's workflow, once every workflow is
// loaded (a MoveTables one comes with its documented workflow): one of
// its branch, whose target shards are the VDiff's shards and whose tables
// hold the VDiff's.
func (ld *loader) resolveVDiff(d *vdiffRec, ds vdiffSnap) error {
	ks := liveKeyspace(d.branch, ds.TargetKeyspace)
	if ks == nil {
		return fmt.Errorf("target_keyspace %q is not a keyspace of branch %s", ds.TargetKeyspace, d.branch.id)
	}
	wf := d.branch.more.read().vitess.vrWorkflow(ks, ds.Workflow)
	if wf == nil {
		return fmt.Errorf("keyspace %s has no workflow %q", ks.name, ds.Workflow)
	}
	d.wf = wf
	if len(wf.targetShards) != len(d.shards) {
		return fmt.Errorf("%d shards; workflow %s has %d target shards", len(d.shards), wf.name, len(wf.targetShards))
	}
	for i, sh := range d.shards {
		if !slices.Contains(wf.targetShards, sh.name) {
			return fmt.Errorf("shards[%d]: %q is not a target shard of workflow %s", i, sh.name, wf.name)
		}
		for _, t := range sh.tables {
			if !slices.Contains(wf.tableNames(), t.name) {
				return fmt.Errorf("shards[%d]: table %s is not a table of workflow %s", i, t.name, wf.name)
			}
		}
	}
	for i, t := range d.opts.tables {
		if !slices.Contains(wf.tableNames(), t) {
			return fmt.Errorf("options.tables[%d]: %s is not a table of workflow %s", i, t, wf.name)
		}
	}
	return nil
}
