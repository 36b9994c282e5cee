package fake

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The streams and the data verification of a documented workflow, as its
// body shows them (docs/fake-behaviour.md, Workflows).
//
// A workflow's streams are those of its VReplication workflow
// (vreplication.go): one per target shard of its target keyspace and
// source shard of its source keyspace, as the keyspaces were when it was
// made, numbered and ordered as vrWorkflow.streams has them. The workflow
// keeps them, with their IDs, after it ends, when its VReplication
// workflow goes. They change state together, as the workflow's lifecycle
// moves them (workflowRec.streamPhase); each change is an entry of the
// workflow's stream log (noteStreams), which every stream's logs show,
// and whose last entry is the streams' state and info.
//
// Its data verification is a VDiff of the workflow's own: verify-data
// makes one (a new ID each time), which stays pending for
// Timings.VDiffStart (at most half the verification), then compares every
// table on every target shard at an even pace until the verification
// step ends (Timings.WorkflowVerify), when it completes; a retry of a
// failed verification runs the same VDiff again. What it finds is what a
// test arranged with SetVDiffDifferences for the target keyspace's
// tables, read when it begins, as a vtctld VDiff's shard reads them.

// workflowStream is a stream of a workflow: into a target shard from a
// source shard.
type workflowStream struct {
	id                       string
	targetShard, sourceShard string
}

// streamEvent is a change of a workflow's streams: an entry of each
// stream's log.
type streamEvent struct {
	at             time.Time
	kind           string // platform.StreamLogCreated, ...
	state, message string
}

// The info of streams a stop or the workflow's end left stopped.
const (
	streamInfoStopped   = "Stopped"
	streamInfoCompleted = "workflow completed"
	streamInfoCancelled = "workflow cancelled"
)

// streamLogKinds are the kinds of a stream log's entries.
var streamLogKinds = []string{platform.StreamLogCreated, platform.StreamLogCopyStarted, platform.StreamLogCopyEnded, platform.StreamLogStateChange, platform.StreamLogError}

// streamStates are the states a stream shows.
var streamStates = []string{vrCopying, vrRunning, vrStopped, vrError}

// newWorkflowStreams makes the streams of a new workflow wf with its
// VReplication workflow vw, and their log's first entry: created,
// stopped, as Vitess creates streams before it starts them.
func (w *world) newWorkflowStreams(wf *workflowRec, vw *vrWorkflow) {
	for _, s := range vw.streams() {
		wf.streams = append(wf.streams, workflowStream{id: w.newID(), targetShard: s.targetShard, sourceShard: s.source})
	}
	wf.streamLog = []streamEvent{{at: wf.created, kind: platform.StreamLogCreated, state: vrStopped, message: streamCreatedMessage(wf)}}
}

// streamCreatedMessage is the message of a stream log's first entry.
func streamCreatedMessage(wf *workflowRec) string {
	return vrMoveTables + " workflow " + wf.name + " created"
}

// streamsNow is the state and info wf's lifecycle gives its streams at
// now; ok false while the workflow is being cancelled, when they stay as
// they were until it ends.
func (wf *workflowRec) streamsNow(now time.Time, t *Timings) (state, info string, ok bool) {
	switch wf.state {
	case platform.WorkflowCompleted:
		return vrStopped, streamInfoCompleted, true
	case platform.WorkflowCancelled:
		return vrStopped, streamInfoCancelled, true
	case platform.WorkflowCancelling, platform.WorkflowReversingTrafficForCancel:
		return "", "", false
	}
	state, _ = wf.streamPhase(now, t)
	switch state {
	case vrError:
		info = wf.errors
	case vrStopped:
		info = streamInfoStopped
	}
	return state, info, true
}

// noteStreams logs a change of wf's streams, when its lifecycle has
// changed their state or info since the last entry.
func (w *world) noteStreams(wf *workflowRec) {
	if len(wf.streamLog) == 0 {
		return
	}
	state, info, ok := wf.streamsNow(w.clock.Now(), &w.timing)
	last := wf.streamLog[len(wf.streamLog)-1]
	if !ok || state == last.state && info == last.message {
		return
	}
	wf.streamLog = append(wf.streamLog, streamEvent{at: w.clock.Now(), kind: streamLogKind(wf, last.state, state), state: state, message: info})
}

// streamLogKind is the kind of the entry of wf's streams going from state
// from to state to.
func streamLogKind(wf *workflowRec, from, to string) string {
	switch {
	case to == vrError:
		return platform.StreamLogError
	case to == vrCopying:
		return platform.StreamLogCopyStarted
	case from == vrCopying && !wf.copied.IsZero():
		return platform.StreamLogCopyEnded
	}
	return platform.StreamLogStateChange
}

// streamShards lists the distinct target (or, with source, source) shards of
// streams, in their order.
func streamShards(streams []workflowStream, source bool) []string {
	var out []string
	for _, s := range streams {
		name := s.targetShard
		if source {
			name = s.sourceShard
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// renderWorkflowStreams renders wf's streams at now: each has copied its
// share of the rows the tables show copied (the rows split evenly, the
// first streams taking what does not divide), has read the source's
// position up to now while it copies or runs (else up to its last
// change), and serves primary traffic once the workflow's primaries are
// switched.
func (w *world) renderWorkflowStreams(wf *workflowRec, now time.Time) []platform.WorkflowStream {
	out := make([]platform.WorkflowStream, len(wf.streams))
	if len(wf.streams) == 0 || len(wf.streamLog) == 0 {
		return out
	}
	last := wf.streamLog[len(wf.streamLog)-1]
	updated := last.at
	if last.state == vrCopying || last.state == vrRunning {
		updated = now
	}
	var total int64
	for i := range wf.rows {
		copied, _ := wf.tableCopy(i, now, w.timing.WorkflowCopy)
		total += copied
	}
	n := int64(len(wf.streams))
	for i, s := range wf.streams {
		rows := total / n
		if int64(i) < total%n {
			rows++
		}
		logs := make([]platform.WorkflowStreamLog, len(wf.streamLog))
		for j, e := range wf.streamLog {
			at := platform.NewTimestamp(e.at)
			logs[j] = platform.WorkflowStreamLog{ID: derivedID(s.id, "log", itoa(j)), CreatedAt: at, UpdatedAt: at, State: e.state, Message: e.message, LogType: e.kind}
		}
		out[i] = platform.WorkflowStream{
			ID: s.id, CreatedAt: platform.NewTimestamp(wf.created), UpdatedAt: platform.NewTimestamp(updated),
			State: last.state, TargetShard: s.targetShard, SourceShard: s.sourceShard,
			Position:   vrPosition(wf.source, s.sourceShard, wf.created, updated),
			RowsCopied: rows, PrimaryServing: wf.primariesSwitched, Info: last.message, Logs: logs,
		}
	}
	return out
}

// workflowVDiff is a workflow's latest data verification.
type workflowVDiff struct {
	id string
	// created is when verify-data asked for it; begun when its latest run
	// began (the verify-data, or the retry of its failed verification),
	// start when that run starts comparing and due when it is to
	// complete, the end of the verification step; ended when it
	// completed, failed or was stopped, zero while it runs.
	created, begun, start, due, ended time.Time
	// state is how it ended (completed, error or stopped); "" while it
	// runs.
	state platform.VDiffState
	// reports are what it compares, by table (in name order) then target
	// shard, as read when its run began.
	reports []vdiffTableShard
}

// vdiffTableShard is a table a workflow's verification compares on one
// target shard: the rows there and the differences arranged among them.
type vdiffTableShard struct {
	shard string
	vdiffTable
}

// workflowVDiffEnds are the states a workflow's verification ends in.
var workflowVDiffEnds = []platform.VDiffState{platform.VDiffCompleted, platform.VDiffError, platform.VDiffStopped}

// newWorkflowVDiff starts a new verification of wf, which verify-data has
// just put in verifying_data.
func (w *world) newWorkflowVDiff(wf *workflowRec) {
	now := w.clock.Now()
	wf.vdiff = &workflowVDiff{id: w.newID(), created: now}
	w.runWorkflowVDiff(wf)
}

// runWorkflowVDiff runs wf's verification from the start: it reads what
// each table holds on each target shard, and the differences arranged.
func (w *world) runWorkflowVDiff(wf *workflowRec) {
	vd, now := wf.vdiff, w.clock.Now()
	vd.begun, vd.ended, vd.state = now, time.Time{}, ""
	vd.start, vd.due = now.Add(min(w.timing.VDiffStart, w.timing.WorkflowVerify/2)), wf.stepDue
	vd.reports = workflowVDiffTables(wf)
}

// workflowVDiffTables reads what a verification of wf compares: each
// table (in name order) on each target shard, with the rows the streams
// into that shard copied of it (vrRowsPerTable from each source shard)
// and its share of the differences arranged for the table in the target
// keyspace (spread over the shards in turn, as for a vtctld VDiff).
func workflowVDiffTables(wf *workflowRec) []vdiffTableShard {
	targets, sources := streamShards(wf.streams, false), streamShards(wf.streams, true)
	var diffs map[vdiffTableKey]*VDiffDifferences
	if st := wf.branch.more.peek(); st != nil {
		diffs = st.vitess.vdiff.diffs
	}
	tables := slices.Sorted(slices.Values(wf.tables))
	var out []vdiffTableShard
	for _, t := range tables {
		dd := diffs[vdiffTableKey{wf.target.id, t}]
		for si, shard := range targets {
			vt := vdiffTableShard{shard: shard, vdiffTable: vdiffTable{name: t, rows: int64(vrRowsPerTable * len(sources))}}
			if dd != nil {
				share := func(all []string) []string {
					var mine []string
					for i, r := range all {
						if i%len(targets) == si {
							mine = append(mine, r)
						}
					}
					return mine
				}
				vt.diffs = VDiffDifferences{Mismatched: share(dd.Mismatched), ExtraSource: share(dd.ExtraSource), ExtraTarget: share(dd.ExtraTarget)}
			}
			out = append(out, vt)
		}
	}
	return out
}

// endWorkflowVDiff ends wf's running verification in state.
func (w *world) endWorkflowVDiff(wf *workflowRec, state platform.VDiffState) {
	if vd := wf.vdiff; vd != nil && vd.state == "" {
		vd.ended, vd.state = w.clock.Now(), state
	}
}

// share is the share of the rows vd has compared at now (0 to 1).
func (vd *workflowVDiff) share(now time.Time) float64 {
	if vd.state == platform.VDiffCompleted {
		return 1
	}
	if !vd.ended.IsZero() && vd.ended.Before(now) {
		now = vd.ended
	}
	if now.Before(vd.start) {
		return 0
	}
	return copyShare(vd.due.Sub(now), vd.due.Sub(vd.start))
}

// renderWorkflowVDiff renders wf's verification at now; nil before the
// first.
func (w *world) renderWorkflowVDiff(wf *workflowRec, now time.Time) *platform.WorkflowVDiff {
	vd := wf.vdiff
	if vd == nil {
		return nil
	}
	start, due := vd.start, vd.due
	share := vd.share(now)
	out := &platform.WorkflowVDiff{ID: vd.id, State: vd.state, CreatedAt: platform.NewTimestamp(vd.created), TableReports: []platform.WorkflowVDiffTableReport{}}
	updated := vd.ended
	switch {
	case vd.state != "":
	case now.Before(start):
		out.State, updated = platform.VDiffPending, vd.begun
	default:
		out.State, updated = platform.VDiffStarted, now
	}
	if vd.state == "" {
		out.EtaSeconds = int64(math.Ceil(due.Sub(now).Seconds()))
	}
	out.UpdatedAt = platform.NewTimestamp(updated)
	out.ProgressPercentage = int(share * 100)
	if out.State != platform.VDiffCompleted {
		out.ProgressPercentage = min(out.ProgressPercentage, 99)
	} else {
		out.CompletedAt = ptrTime(vd.ended)
	}
	began := vd.ended.IsZero() && !now.Before(start) || !vd.ended.IsZero() && !vd.ended.Before(start)
	if !began {
		return out
	}
	out.StartedAt = ptrTime(start)
	compared := map[string]int64{} // rows compared so far on each shard
	work := map[string]int64{}
	for _, r := range vd.reports {
		work[r.shard] += r.rows
	}
	for shard, n := range work {
		compared[shard] = int64(share * float64(n))
	}
	d := &vdiffRec{wf: &vrWorkflow{source: wf.source, target: wf.target}, opts: vdiffOptions{maxSampleRows: vdiffDefaultSampleRows}}
	for _, r := range vd.reports {
		done := min(r.rows, compared[r.shard])
		compared[r.shard] -= done
		rep := vdiffReport(d, r.vdiffTable, done)
		out.HasMismatch = out.HasMismatch || rep.MismatchedRows+rep.ExtraRowsSource+rep.ExtraRowsTarget > 0
		cols := vdiffKeyColumns(d.wf, r.name)
		var mismatched []*platform.VDiffRow
		for _, m := range rep.MismatchedRowsSample {
			mismatched = append(mismatched, m.Source)
		}
		out.TableReports = append(out.TableReports, platform.WorkflowVDiffTableReport{
			ID: derivedID(vd.id, r.name, r.shard), TableName: r.name, Shard: r.shard,
			CreatedAt: platform.NewTimestamp(start), UpdatedAt: platform.NewTimestamp(updated),
			MismatchedRowsCount: rep.MismatchedRows, ExtraSourceRowsCount: rep.ExtraRowsSource, ExtraTargetRowsCount: rep.ExtraRowsTarget,
			MismatchedRows: vdiffSampleRows(mismatched), ExtraSourceRows: vdiffSampleRows(rep.ExtraRowsSourceSample),
			ExtraTargetRows:            vdiffSampleRows(rep.ExtraRowsTargetSample),
			SampleMismatchedRowsQuery:  vdiffSampleQuery(wf.source, r.name, cols, mismatched),
			SampleExtraSourceRowsQuery: vdiffSampleQuery(wf.source, r.name, cols, rep.ExtraRowsSourceSample),
			SampleExtraTargetRowsQuery: vdiffSampleQuery(wf.target, r.name, cols, rep.ExtraRowsTargetSample),
		})
	}
	return out
}

// vdiffSampleRows renders sample rows: each an object of its primary-key
// columns.
func vdiffSampleRows(rows []*platform.VDiffRow) []json.RawMessage {
	out := make([]json.RawMessage, len(rows))
	for i, r := range rows {
		out[i], _ = json.Marshal(r.Row) // a map of strings: cannot fail
	}
	return out
}

// vdiffSampleQuery is the query that reads sample rows of table in ks by
// their primary key; "" for none.
func vdiffSampleQuery(ks *keyspaceRec, table string, cols []string, rows []*platform.VDiffRow) string {
	if len(rows) == 0 {
		return ""
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(cols))
		for j, c := range cols {
			vals[j] = sqlQuote(r.Row[c])
		}
		keys[i] = strings.Join(vals, ", ")
		if len(cols) > 1 {
			keys[i] = "(" + keys[i] + ")"
		}
	}
	key := strings.Join(cols, ", ")
	if len(cols) > 1 {
		key = "(" + key + ")"
	}
	return "select * from " + ks.name + "." + table + " where " + key + " in (" + strings.Join(keys, ", ") + ")"
}
