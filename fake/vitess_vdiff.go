package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// VDiffs: comparisons of a workflow's source and target keyspaces (see
// docs/fake-behaviour.md, Vitess).
//
// A VDiff belongs to a live workflow of a branch, named by the workflow's
// name and target keyspace, and runs on each of the target keyspace's
// shards on the clock: pending, then started (Timings.VDiffStart), then
// completed once the shard has compared its rows (Timings.VDiffRun for
// all of them, at an even pace, so that rows compared and progress
// follow from the clock). A shard compares the workflow's tables one
// after another in name order. A stop freezes a shard where it is; a
// resume goes on from there. What a VDiff finds is what the test
// arranged with SetVDiffDifferences for the target keyspace's tables,
// read when a shard starts comparing.
//
// The answers are Vitess's: VDiffCreateResponse, VDiffShowResponse (each
// target shard's primary answering the query result of its summary, or
// for "all" its rows of _vt.vdiff), and the empty stop, resume and
// delete responses.

// vdiffState is a branch's VDiffs and the differences tests arranged.
type vdiffState struct {
	// list holds the VDiffs by UUID, in creation order; seq numbers them
	// (the id column of _vt.vdiff).
	list ordered.Store[*vdiffRec]
	seq  int64
	// diffs are the differences arranged per table of a keyspace.
	diffs map[vdiffTableKey]*VDiffDifferences
}

// vdiffTableKey names a table of a keyspace by the keyspace's ID.
type vdiffTableKey struct{ keyspace, table string }

// vdiffRec is a VDiff of a workflow.
type vdiffRec struct {
	stamps // id: the UUID
	seq    int64
	branch *branchRec
	wf     *vrWorkflow
	opts   vdiffOptions
	shards []*vdiffShard
}

// vdiffOptions are what a VDiff was created with.
type vdiffOptions struct {
	tables                    []string // empty: all the workflow's
	tabletTypes               []string
	tabletSelectionPreference string
	limit                     int64 // 0: no limit
	maxSampleRows             int64
	maxExtraRowsToCompare     int64
	truncateAt                int64
	waitSeconds               int64
	autoRetry, autoStart      bool
	debugQuery, onlyPKs       bool
	updateTableStats, verbose bool
}

// The defaults of Vitess's VDiff options.
const (
	vdiffDefaultSampleRows  = 10
	vdiffDefaultExtraRows   = 1000
	vdiffDefaultWaitSeconds = 30
)

// vdiffShard is a VDiff on one target shard.
type vdiffShard struct {
	name  string
	state platform.VDiffState
	// gen counts the shard's starts and stops, so that a transition
	// scheduled before one finds it moved on.
	gen uint64
	// begun is true once the shard listed its tables (its first start).
	begun bool
	// tables are the tables it compares, in name order, with what the
	// last start read of them.
	tables []vdiffTable
	// compared is how many rows it had compared when it last started or
	// stopped; since when it last started comparing.
	compared int64
	since    time.Time
	started  time.Time // zero until started, and again after a resume
	done     time.Time // when it completed; zero before
	lastErr  string
}

// vdiffTable is a table a shard compares: its rows on the shard (capped
// by the VDiff's limit) and the differences found among them.
type vdiffTable struct {
	name  string
	rows  int64
	diffs VDiffDifferences // this shard's share of them
}

// vdiffs returns b's VDiff state without making it.
func (b *branchRec) vdiffs() *vdiffState { return &b.more.read().vitess.vdiff }

// vdiffTables are the tables a VDiff of wf compares, in name order.
func vdiffTables(wf *vrWorkflow, asked []string) []string {
	out := slices.Clone(asked)
	if len(out) == 0 {
		out = wf.tableNames()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkVDiffCreate checks a VDiff create of wf at now and returns its
// options: Vitess compares a workflow whose streams all run (their copy
// done) and whose writes have not been switched to the target.
func checkVDiffCreate(wf *vrWorkflow, p *platform.CreateVDiffParams, now time.Time, t *Timings) (vdiffOptions, error) {
	o := vdiffOptions{autoStart: true, maxSampleRows: vdiffDefaultSampleRows, maxExtraRowsToCompare: vdiffDefaultExtraRows, waitSeconds: vdiffDefaultWaitSeconds}
	if wf.doc != nil && wf.doc.primariesSwitched {
		return o, unprocessable("invalid VDiff run: writes have already been switched for workflow %s.%s (it is %s)", wf.target.name, wf.name, wf.doc.state)
	}
	if state, _ := wf.phase(now, t); state != vrRunning {
		return o, unprocessable("not all streams are running in workflow %s.%s: they are %s", wf.target.name, wf.name, state)
	}
	for i, t := range p.Tables {
		if !slices.Contains(wf.tableNames(), t) {
			return o, unprocessable("tables[%d] %q is not a table of workflow %s: its tables are %s", i, t, wf.name, strings.Join(wf.tableNames(), ", "))
		}
	}
	for i, t := range p.TabletTypes {
		if _, ok := parseTabletType(t); !ok {
			return o, unprocessable("tablet_types[%d] %q is not primary, replica or rdonly", i, t)
		}
		o.tabletTypes = append(o.tabletTypes, strings.ToLower(strings.TrimPrefix(strings.ToUpper(t), "TABLET_TYPE_")))
	}
	if v := p.TabletSelectionPreference; v != nil && *v != "" {
		switch strings.ToLower(*v) {
		case "any", "inorder":
			o.tabletSelectionPreference = strings.ToLower(*v)
		default:
			return o, unprocessable("tablet_selection_preference %q is not any or inorder", *v)
		}
	}
	for _, n := range []struct {
		field string
		v     *int
		to    *int64
	}{
		{"filtered_replication_wait_time", p.FilteredReplicationWaitTime, &o.waitSeconds},
		{"max_report_sample_rows", p.MaxReportSampleRows, &o.maxSampleRows},
		{"max_extra_rows_to_compare", p.MaxExtraRowsToCompare, &o.maxExtraRowsToCompare},
		{"row_diff_column_truncate_at", p.RowDiffColumnTruncateAt, &o.truncateAt},
		{"limit", p.Limit, &o.limit},
	} {
		if n.v == nil {
			continue
		}
		if *n.v < 0 {
			return o, unprocessable("%s must be at least 0, got %d", n.field, *n.v)
		}
		*n.to = int64(*n.v)
	}
	o.tables = vdiffTables(wf, p.Tables)
	if len(p.Tables) == 0 {
		o.tables = nil
	}
	flag := func(b *bool) bool { return b != nil && *b }
	o.autoRetry, o.debugQuery, o.onlyPKs = flag(p.AutoRetry), flag(p.DebugQuery), flag(p.OnlyPKs)
	o.updateTableStats, o.verbose = flag(p.UpdateTableStats), flag(p.Verbose)
	if p.AutoStart != nil {
		o.autoStart = *p.AutoStart
	}
	return o, nil
}

// newVDiff creates a VDiff of wf on each of its target shards: pending,
// or stopped when it does not start by itself.
func (w *world) newVDiff(wf *vrWorkflow, o vdiffOptions) *vdiffRec {
	b := wf.target.branch
	now := w.clock.Now()
	st := &b.vitess().vdiff
	st.seq++
	d := &vdiffRec{stamps: stamps{id: w.newUUID(), created: now, updated: now}, seq: st.seq, branch: b, wf: wf, opts: o}
	for _, name := range wf.targetShards {
		sh := &vdiffShard{name: name, state: platform.VDiffStopped}
		d.shards = append(d.shards, sh)
		if o.autoStart {
			sh.state = platform.VDiffPending
			w.clock.After(w.timing.VDiffStart, vdiffJob{d, name, sh.gen})
		}
	}
	st.list.Add(d)
	if o.autoStart {
		w.startFlight(d.id)
	}
	return d
}

// shard returns the VDiff's shard named name; nil when it has none.
func (d *vdiffRec) shard(name string) *vdiffShard {
	for _, sh := range d.shards {
		if sh.name == name {
			return sh
		}
	}
	return nil
}

// running reports whether any shard has a transition ahead.
func (d *vdiffRec) running() bool {
	return slices.ContainsFunc(d.shards, func(sh *vdiffShard) bool {
		return sh.state == platform.VDiffPending || sh.state == platform.VDiffStarted
	})
}

// work is how many rows the shard compares in all.
func (sh *vdiffShard) work() int64 {
	var n int64
	for _, t := range sh.tables {
		n += t.rows
	}
	return n
}

// comparedAt is how many rows the shard has compared at now.
func (sh *vdiffShard) comparedAt(now time.Time, run time.Duration) int64 {
	total := sh.work()
	if sh.state != platform.VDiffStarted || total == 0 {
		return min(sh.compared, total)
	}
	if run <= 0 || !now.Before(sh.since.Add(remaining(total, sh.compared, run))) {
		return total
	}
	elapsed := now.Sub(sh.since)
	return min(total, sh.compared+int64(float64(total)*float64(elapsed)/float64(run)))
}

// remaining is how long a shard takes to compare the rows it has not
// compared, at total rows per run.
func remaining(total, compared int64, run time.Duration) time.Duration {
	if total <= 0 || compared >= total {
		return 0
	}
	return time.Duration(float64(run) * float64(total-compared) / float64(total))
}

// startVDiffShard starts a pending shard comparing: it reads its tables'
// rows and differences, and completes after the time its rows left take.
func (w *world) startVDiffShard(d *vdiffRec, sh *vdiffShard, now time.Time) {
	sh.tables = vdiffShardTables(d, sh.name)
	sh.begun, sh.state, sh.since, sh.started, sh.done, sh.lastErr = true, platform.VDiffStarted, now, now, time.Time{}, ""
	sh.compared = min(sh.compared, sh.work())
	sh.gen++
	w.clock.After(remaining(sh.work(), sh.compared, w.timing.VDiffRun), vdiffJob{d, sh.name, sh.gen})
	d.updated = now
}

// vdiffShardTables reads what a shard of d compares: each table's rows on
// the shard (what the workflow's streams into it copied:
// vrRowsPerTable from each source shard), capped by the limit, and its
// share of the differences arranged.
func vdiffShardTables(d *vdiffRec, shard string) []vdiffTable {
	wf := d.wf
	si, n := slices.Index(wf.targetShards, shard), int64(len(wf.targetShards))
	diffs := d.branch.vdiffs().diffs
	var out []vdiffTable
	for _, t := range vdiffTables(wf, d.opts.tables) {
		rows := int64(vrRowsPerTable * len(wf.sourceShards))
		if d.opts.limit > 0 {
			rows = min(rows, d.opts.limit)
		}
		vt := vdiffTable{name: t, rows: rows}
		if dd := diffs[vdiffTableKey{wf.target.id, t}]; dd != nil {
			share := func(all []string) []string {
				var mine []string
				for i, r := range all {
					if int64(i)%n == int64(si) {
						mine = append(mine, r)
					}
				}
				return mine
			}
			vt.diffs = VDiffDifferences{Mismatched: share(dd.Mismatched), ExtraSource: share(dd.ExtraSource), ExtraTarget: share(dd.ExtraTarget)}
		}
		out = append(out, vt)
	}
	return out
}

// completeVDiffShard ends a started shard: every row compared.
func (w *world) completeVDiffShard(d *vdiffRec, sh *vdiffShard, now time.Time) {
	sh.compared, sh.state, sh.done = sh.work(), platform.VDiffCompleted, now
	sh.gen++
	d.updated = now
	w.settleVDiff(d)
}

// failVDiffShard puts a shard in the error state, as a failure a test
// injected with FailNext.
func (w *world) failVDiffShard(d *vdiffRec, sh *vdiffShard, now time.Time) {
	if !sh.begun {
		sh.tables, sh.begun = vdiffShardTables(d, sh.name), true
	}
	sh.state, sh.lastErr = platform.VDiffError, fmt.Sprintf("vdiff %s on shard %s/%s: the source tablet's stream ended before the comparison did", d.id, d.wf.target.name, sh.name)
	sh.gen++
	d.updated = now
	w.settleVDiff(d)
}

// settleVDiff ends d's flight once no shard has a transition ahead.
func (w *world) settleVDiff(d *vdiffRec) {
	if !d.running() {
		w.endFlight(d.id)
	}
}

// vdiffTargetShards checks the target shards a stop or resume names and
// returns the VDiff's shards it acts on: all of them for none named.
func vdiffTargetShards(d *vdiffRec, names []string) ([]*vdiffShard, error) {
	if len(names) == 0 {
		return d.shards, nil
	}
	var out []*vdiffShard
	for i, n := range names {
		sh := d.shard(n)
		if sh == nil {
			return nil, unprocessable("target_shards[%d] %q is not a target shard of workflow %s: its target shards are %s", i, n, d.wf.name, strings.Join(d.wf.targetShards, ", "))
		}
		if !slices.Contains(out, sh) {
			out = append(out, sh)
		}
	}
	return out, nil
}

// stopVDiff stops the shards of d named: a pending, started or failed
// shard stops where it is; a stopped or completed one stays as it is,
// as Vitess leaves it.
func (w *world) stopVDiff(d *vdiffRec, shards []*vdiffShard, now time.Time) {
	for _, sh := range shards {
		switch sh.state {
		case platform.VDiffPending, platform.VDiffStarted, platform.VDiffError:
			sh.compared = sh.comparedAt(now, w.timing.VDiffRun)
			sh.state, sh.lastErr = platform.VDiffStopped, ""
			sh.gen++
			d.updated = now
		}
	}
	w.settleVDiff(d)
}

// checkVDiffResume refuses a resume of shards that are not stopped or
// completed, naming the state of the first.
func checkVDiffResume(d *vdiffRec, shards []*vdiffShard) error {
	for _, sh := range shards {
		if sh.state != platform.VDiffStopped && sh.state != platform.VDiffCompleted {
			return unprocessable("VDiff %s is %s on shard %s; only a stopped or completed VDiff can be resumed", d.id, sh.state, sh.name)
		}
	}
	return nil
}

// resumeVDiff makes the shards named pending again: each starts after
// Timings.VDiffStart and goes on from the rows it had compared.
func (w *world) resumeVDiff(d *vdiffRec, shards []*vdiffShard, now time.Time) {
	for _, sh := range shards {
		sh.state, sh.started, sh.done, sh.lastErr = platform.VDiffPending, time.Time{}, time.Time{}, ""
		sh.gen++
		w.clock.After(w.timing.VDiffStart, vdiffJob{d, sh.name, sh.gen})
	}
	d.updated = now
	w.startFlight(d.id)
}

// deleteVDiffs deletes VDiffs of b, stopping those that run.
func (w *world) deleteVDiffs(b *branchRec, list []*vdiffRec) {
	st := &b.vitess().vdiff
	for _, d := range list {
		for _, sh := range d.shards {
			sh.gen++
		}
		w.endFlight(d.id)
		delete(w.failNext, d.id)
		st.list.Remove(d)
	}
}

// dropWorkflowVDiffs deletes the VDiffs of wf, which has ended, as
// Vitess deletes a workflow's VDiffs with it.
func (w *world) dropWorkflowVDiffs(wf *vrWorkflow) {
	if wf.target.branch.more.peek() == nil {
		return
	}
	w.deleteVDiffs(wf.target.branch, workflowVDiffs(wf))
}

// workflowVDiffs are the VDiffs of wf, in creation order.
func workflowVDiffs(wf *vrWorkflow) []*vdiffRec {
	var out []*vdiffRec
	for _, d := range wf.target.branch.vdiffs().list.All() {
		if d.wf == wf {
			out = append(out, d)
		}
	}
	return out
}

// Handlers.

func vitessVDiffRoutes() []route {
	const vdiffs = "/v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs"
	return []route{
		{pattern: "POST " + vdiffs, op: "vdiff_create", handler: withBody(vdiffCreate)},
		{pattern: "GET " + vdiffs, op: "vdiff_list", handler: read(vdiffList)},
		{pattern: "GET " + vdiffs + "/{uuid}", op: "vdiff_show", handler: read(vdiffShow)},
		{pattern: "POST " + vdiffs + "/{uuid}/stop", op: "vdiff_stop", handler: withBody(vdiffStop)},
		{pattern: "POST " + vdiffs + "/{uuid}/resume", op: "vdiff_resume", handler: withBody(vdiffResume)},
		{pattern: "DELETE " + vdiffs + "/{uuid}", op: "vdiff_delete", handler: act(vdiffDelete)},
	}
}

// vdiffWorkflow finds the request's workflow: the path's {workflow} and
// the target keyspace the request names.
func (c *call) vdiffWorkflow(targetKeyspace string) (*vrWorkflow, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	return c.w.findVRWorkflow(b, "target_keyspace", targetKeyspace, c.r.PathValue("workflow"))
}

// vdiffOf finds the path's VDiff of wf: a 404 naming what is missing.
func (c *call) vdiffOf(wf *vrWorkflow) (*vdiffRec, error) {
	uuid := c.r.PathValue("uuid")
	d := wf.target.branch.vdiffs().list.Get(uuid)
	if d == nil || d.wf != wf {
		return nil, notFound().because("workflow %s has no VDiff %q", wf.name, uuid)
	}
	return d, nil
}

func vdiffCreate(c *call, p *platform.CreateVDiffParams) (any, error) {
	wf, err := c.vdiffWorkflow(p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	o, err := checkVDiffCreate(wf, p, c.now, &c.w.timing)
	if err != nil {
		return nil, err
	}
	d := c.w.newVDiff(wf, o)
	out := &vdiffCreated{ID: d.id}
	out.Data.UUID = d.id
	return out, nil
}

// vdiffCreated is the answer to a VDiff create: vtctldata.VDiffCreateResponse
// in its envelope. ID names the VDiff created for the audit log.
type vdiffCreated struct {
	Data struct {
		UUID string `json:"UUID"`
	} `json:"data"`
	ID string `json:"-"`
}

func vdiffList(c *call) (any, error) {
	wf, err := c.vdiffWorkflow(c.r.URL.Query().Get("target_keyspace"))
	if err != nil {
		return nil, err
	}
	return vtctldData{renderVDiffList(wf)}, nil
}

func vdiffShow(c *call) (any, error) {
	wf, err := c.vdiffWorkflow(c.r.URL.Query().Get("target_keyspace"))
	if err != nil {
		return nil, err
	}
	var d *vdiffRec
	switch c.r.PathValue("uuid") {
	case "all":
		return vtctldData{renderVDiffList(wf)}, nil
	case "last":
		if all := workflowVDiffs(wf); len(all) > 0 {
			d = all[len(all)-1]
		} else {
			return nil, notFound().because("workflow %s has no VDiff", wf.name)
		}
	default:
		if d, err = c.vdiffOf(wf); err != nil {
			return nil, err
		}
	}
	return vtctldData{renderVDiffShow(d, c.now, c.w.timing.VDiffRun)}, nil
}

func vdiffStop(c *call, p *platform.StopVDiffParams) (any, error) {
	wf, err := c.vdiffWorkflow(p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	d, err := c.vdiffOf(wf)
	if err != nil {
		return nil, err
	}
	shards, err := vdiffTargetShards(d, p.TargetShards)
	if err != nil {
		return nil, err
	}
	c.w.stopVDiff(d, shards, c.now)
	return vtctldData{map[string]any{}}, nil
}

func vdiffResume(c *call, p *platform.ResumeVDiffParams) (any, error) {
	wf, err := c.vdiffWorkflow(p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	d, err := c.vdiffOf(wf)
	if err != nil {
		return nil, err
	}
	shards, err := vdiffTargetShards(d, p.TargetShards)
	if err != nil {
		return nil, err
	}
	if err := checkVDiffResume(d, shards); err != nil {
		return nil, err
	}
	c.w.resumeVDiff(d, shards, c.now)
	return vtctldData{map[string]any{}}, nil
}

func vdiffDelete(c *call) (any, error) {
	wf, err := c.vdiffWorkflow(c.r.URL.Query().Get("target_keyspace"))
	if err != nil {
		return nil, err
	}
	list := workflowVDiffs(wf)
	if c.r.PathValue("uuid") != "all" {
		d, err := c.vdiffOf(wf)
		if err != nil {
			return nil, err
		}
		list = []*vdiffRec{d}
	}
	c.w.deleteVDiffs(wf.target.branch, list)
	return vtctldData{map[string]any{}}, nil
}

// Rendering: query.QueryResult in protobuf JSON, as the target shards'
// primaries answer the queries of Vitess's VDiff engine.

// protoField is query.Field (the name and type the engine's queries
// give).
type protoField struct {
	Name string `json:"name,omitempty"`
	Type string `json:"type,omitempty"`
}

// protoRow is query.Row: each value's length (-1 for NULL; 64-bit
// integers as strings) and the values concatenated, in base64.
type protoRow struct {
	Lengths []string `json:"lengths,omitempty"`
	Values  string   `json:"values,omitempty"`
}

// protoQueryResult is query.QueryResult.
type protoQueryResult struct {
	Fields []protoField `json:"fields,omitempty"`
	Rows   []protoRow   `json:"rows,omitempty"`
}

// protoVDiffResponse is tabletmanagerdata.VDiffResponse.
type protoVDiffResponse struct {
	ID        string            `json:"id,omitempty"`
	Output    *protoQueryResult `json:"output,omitempty"`
	VDiffUUID string            `json:"vdiff_uuid,omitempty"`
}

// protoVDiffShow is vtctldata.VDiffShowResponse: the target shards'
// answers, by shard.
type protoVDiffShow struct {
	TabletResponses map[string]*protoVDiffResponse `json:"tablet_responses,omitempty"`
}

// sqlValue is a column's value; null marks NULL.
type sqlValue struct {
	s    string
	null bool
}

func sqlText(s string) sqlValue { return sqlValue{s: s} }
func sqlInt(n int64) sqlValue   { return sqlValue{s: strconv.FormatInt(n, 10)} }
func sqlNull() sqlValue         { return sqlValue{null: true} }
func sqlTime(t time.Time) sqlValue {
	if t.IsZero() {
		return sqlNull()
	}
	return sqlText(t.UTC().Format(time.DateTime))
}

// newQueryResult builds a query result of fields (name, type pairs) and
// rows.
func newQueryResult(fields []protoField, rows [][]sqlValue) *protoQueryResult {
	out := &protoQueryResult{Fields: fields}
	for _, r := range rows {
		var row protoRow
		var buf []byte
		for _, v := range r {
			if v.null {
				row.Lengths = append(row.Lengths, "-1")
				continue
			}
			row.Lengths = append(row.Lengths, strconv.Itoa(len(v.s)))
			buf = append(buf, v.s...)
		}
		row.Values = base64.StdEncoding.EncodeToString(buf)
		out.Rows = append(out.Rows, row)
	}
	return out
}

// vdiffSummaryFields are the columns of the engine's summary of a VDiff
// on a shard, one row per table.
var vdiffSummaryFields = []protoField{
	{"vdiff_state", "VARBINARY"}, {"last_error", "VARBINARY"}, {"table_name", "VARBINARY"}, {"uuid", "VARCHAR"},
	{"table_state", "VARBINARY"}, {"table_rows", "INT64"}, {"started_at", "TIMESTAMP"}, {"rows_compared", "INT64"},
	{"completed_at", "TIMESTAMP"}, {"has_mismatch", "INT64"}, {"report", "JSON"},
}

// vdiffListFields are the columns of _vt.vdiff.
var vdiffListFields = []protoField{
	{"id", "INT64"}, {"vdiff_uuid", "VARCHAR"}, {"workflow", "VARBINARY"}, {"keyspace", "VARBINARY"},
	{"shard", "VARCHAR"}, {"db_name", "VARBINARY"}, {"state", "VARBINARY"}, {"options", "JSON"},
	{"created_at", "TIMESTAMP"}, {"started_at", "TIMESTAMP"}, {"liveness_timestamp", "TIMESTAMP"},
	{"completed_at", "TIMESTAMP"}, {"last_error", "VARBINARY"},
}

// vdiffMaxListed is how many of a workflow's VDiffs a list shows, the
// newest (Vitess's maxVDiffsToReport).
const vdiffMaxListed = 100

// renderVDiffList renders the workflow's VDiffs as each target shard
// lists them: its rows of _vt.vdiff, newest first.
func renderVDiffList(wf *vrWorkflow) *protoVDiffShow {
	out := &protoVDiffShow{TabletResponses: map[string]*protoVDiffResponse{}}
	all := workflowVDiffs(wf)
	slices.Reverse(all)
	all = all[:min(len(all), vdiffMaxListed)]
	for _, shard := range wf.targetShards {
		var rows [][]sqlValue
		for _, d := range all {
			sh := d.shard(shard)
			if sh == nil {
				continue
			}
			lastErr := sqlNull()
			if sh.lastErr != "" {
				lastErr = sqlText(sh.lastErr)
			}
			rows = append(rows, []sqlValue{
				sqlInt(d.seq), sqlText(d.id), sqlText(wf.name), sqlText(wf.target.name), sqlText(shard), sqlText("vt_" + wf.target.name),
				sqlText(string(sh.state)), sqlText(renderVDiffOptions(d)), sqlTime(d.created), sqlTime(sh.started), sqlTime(sh.since),
				sqlTime(sh.done), lastErr,
			})
		}
		out.TabletResponses[shard] = &protoVDiffResponse{Output: newQueryResult(vdiffListFields, rows)}
	}
	return out
}

// renderVDiffOptions renders the options a VDiff was created with as the
// engine keeps them (tabletmanagerdata.VDiffOptions in JSON).
func renderVDiffOptions(d *vdiffRec) string {
	o := d.opts
	type picker struct {
		TabletTypes string `json:"tablet_types,omitempty"`
	}
	type core struct {
		Tables                string `json:"tables,omitempty"`
		AutoRetry             bool   `json:"auto_retry,omitempty"`
		MaxRows               int64  `json:"max_rows,omitempty"`
		TimeoutSeconds        int64  `json:"timeout_seconds,omitempty"`
		MaxExtraRowsToCompare int64  `json:"max_extra_rows_to_compare,omitempty"`
		UpdateTableStats      bool   `json:"update_table_stats,omitempty"`
		AutoStart             *bool  `json:"auto_start,omitempty"`
	}
	type report struct {
		OnlyPks                 bool   `json:"only_pks,omitempty"`
		DebugQuery              bool   `json:"debug_query,omitempty"`
		Format                  string `json:"format,omitempty"`
		MaxSampleRows           int64  `json:"max_sample_rows,omitempty"`
		RowDiffColumnTruncateAt int64  `json:"row_diff_column_truncate_at,omitempty"`
	}
	types := strings.Join(o.tabletTypes, ",")
	if types == "" {
		types = "in_order:primary"
		if len(o.tabletTypes) == 0 && d.wf.target.replicas() > 0 {
			types = "in_order:replica,primary"
		}
	} else if o.tabletSelectionPreference == "inorder" {
		types = "in_order:" + types
	}
	doc := struct {
		Picker picker `json:"picker_options"`
		Core   core   `json:"core_options"`
		Report report `json:"report_options"`
	}{
		picker{TabletTypes: types},
		core{Tables: strings.Join(o.tables, ","), AutoRetry: o.autoRetry, MaxRows: o.limit, TimeoutSeconds: o.waitSeconds,
			MaxExtraRowsToCompare: o.maxExtraRowsToCompare, UpdateTableStats: o.updateTableStats, AutoStart: &o.autoStart},
		report{OnlyPks: o.onlyPKs, DebugQuery: o.debugQuery, Format: "json", MaxSampleRows: o.maxSampleRows, RowDiffColumnTruncateAt: o.truncateAt},
	}
	text, _ := json.Marshal(doc) // plain values: cannot fail
	return string(text)
}

// renderVDiffShow renders d as each target shard's primary summarizes it
// at now.
func renderVDiffShow(d *vdiffRec, now time.Time, run time.Duration) *protoVDiffShow {
	out := &protoVDiffShow{TabletResponses: map[string]*protoVDiffResponse{}}
	for _, sh := range d.shards {
		out.TabletResponses[sh.name] = &protoVDiffResponse{Output: newQueryResult(vdiffSummaryFields, vdiffSummaryRows(d, sh, now, run)), VDiffUUID: d.id}
	}
	return out
}

// vdiffSummaryRows are a shard's summary rows at now: one per table once
// the shard has listed them (before, one row without a table).
func vdiffSummaryRows(d *vdiffRec, sh *vdiffShard, now time.Time, run time.Duration) [][]sqlValue {
	lastErr := sqlNull()
	if sh.lastErr != "" {
		lastErr = sqlText(sh.lastErr)
	}
	head := func() []sqlValue { return []sqlValue{sqlText(string(sh.state)), lastErr} }
	if !sh.begun {
		row := append(head(), sqlNull(), sqlText(d.id), sqlNull(), sqlNull(), sqlTime(sh.started), sqlNull(), sqlTime(sh.done), sqlInt(0), sqlNull())
		return [][]sqlValue{row}
	}
	left := sh.comparedAt(now, run)
	var rows [][]sqlValue
	current := false // whether a table before this one is the shard's current
	for _, t := range sh.tables {
		compared := min(t.rows, left)
		left -= compared
		var state platform.VDiffState
		switch {
		case sh.state == platform.VDiffPending || sh.state == platform.VDiffStopped || sh.state == platform.VDiffCompleted:
			state = sh.state
		case compared == t.rows && !current:
			state = platform.VDiffCompleted
		case !current:
			state, current = sh.state, true // started or error
		default:
			state = platform.VDiffPending
		}
		mismatch, report := int64(0), sqlNull()
		if compared > 0 || state == platform.VDiffCompleted {
			rep := vdiffReport(d, t, compared)
			text, _ := json.Marshal(rep) // plain values: cannot fail
			report = sqlText(string(text))
			if rep.MismatchedRows+rep.ExtraRowsSource+rep.ExtraRowsTarget > 0 {
				mismatch = 1
			}
		}
		rows = append(rows, append(head(), sqlText(t.name), sqlText(d.id), sqlText(string(state)), sqlInt(t.rows), sqlTime(sh.started), sqlInt(compared), sqlTime(sh.done), sqlInt(mismatch), report))
	}
	return rows
}

// vdiffReport is a table's report on a shard once compared rows of it
// have been compared: the differences found among them (each list's rows
// found in proportion), and samples of each kind.
func vdiffReport(d *vdiffRec, t vdiffTable, compared int64) *platform.VDiffReport {
	found := func(rows []string) []string {
		if t.rows == 0 {
			return rows
		}
		return rows[:int64(len(rows))*compared/t.rows]
	}
	mm, es, et := found(t.diffs.Mismatched), found(t.diffs.ExtraSource), found(t.diffs.ExtraTarget)
	rep := &platform.VDiffReport{
		TableName: t.name, ProcessedRows: compared,
		MismatchedRows: int64(len(mm)), ExtraRowsSource: int64(len(es)), ExtraRowsTarget: int64(len(et)),
	}
	rep.MatchingRows = max(0, compared-rep.MismatchedRows-rep.ExtraRowsSource)
	cols := vdiffKeyColumns(d.wf, t.name)
	row := func(key string) *platform.VDiffRow {
		r := &platform.VDiffRow{Row: map[string]string{}}
		vals := strings.Split(key, ",")
		if len(cols) < 2 {
			vals = []string{key}
		}
		var where []string
		for i, c := range cols {
			if i < len(vals) {
				r.Row[c] = vals[i]
				where = append(where, c+"="+sqlQuote(vals[i]))
			}
		}
		if d.opts.debugQuery {
			r.Query = "select " + strings.Join(cols, ", ") + " from " + t.name + " where " + strings.Join(where, " and ")
		}
		return r
	}
	n := int(d.opts.maxSampleRows)
	for _, k := range es[:min(len(es), n)] {
		rep.ExtraRowsSourceSample = append(rep.ExtraRowsSourceSample, row(k))
	}
	for _, k := range et[:min(len(et), n)] {
		rep.ExtraRowsTargetSample = append(rep.ExtraRowsTargetSample, row(k))
	}
	for _, k := range mm[:min(len(mm), n)] {
		rep.MismatchedRowsSample = append(rep.MismatchedRowsSample, &platform.VDiffMismatch{Source: row(k), Target: row(k)})
	}
	return rep
}

// vdiffKeyColumns are the primary key columns of a table of wf, as its
// target (else its source) keyspace defines it ("id" when it has none the
// fake can read).
func vdiffKeyColumns(wf *vrWorkflow, table string) []string {
	create := wf.target.tables[table]
	if create == "" {
		create = wf.source.tables[table]
	}
	indexes, _ := tableDefinition(create)
	for _, ix := range indexes {
		if ix.primary && len(ix.cols) > 0 {
			return ix.cols
		}
	}
	return []string{"id"}
}

// sqlQuote quotes a value as a SQL string literal.
func sqlQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
