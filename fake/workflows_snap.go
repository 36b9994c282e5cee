package fake

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of workflows, with their database.

type workflowSnap struct {
	stampsSnap
	Number int                   `json:"number"`
	Name   string                `json:"name"`
	Branch string                `json:"branch"`
	Source workflowKeyspaceSnap  `json:"source_keyspace"`
	Target workflowKeyspaceSnap  `json:"target_keyspace"`
	Global *workflowKeyspaceSnap `json:"global_keyspace"`
	Tables []string              `json:"tables"`
	// TableCopies are the copies of Tables, in the same order; a snapshot
	// of a fake older than them has none (see deriveWorkflowTables).
	TableCopies        []workflowTableSnap    `json:"table_copies"`
	DeferSecondaryKeys bool                   `json:"defer_secondary_keys"`
	OnDDL              platform.WorkflowOnDDL `json:"on_ddl"`
	State              platform.WorkflowState `json:"state"`
	FailedFrom         platform.WorkflowState `json:"failed_from"`
	Errors             string                 `json:"errors"`

	ReplicasSwitched      bool `json:"replicas_switched"`
	PrimariesSwitched     bool `json:"primaries_switched"`
	SequenceTablesApplied bool `json:"sequence_tables_applied"`

	Started           time.Time `json:"started"`
	Copied            time.Time `json:"copied"`
	Verified          time.Time `json:"verified"`
	SwitchedReplicas  time.Time `json:"switched_replicas"`
	SwitchedPrimaries time.Time `json:"switched_primaries"`
	CutoverAt         time.Time `json:"cutover_at"`
	Reversed          time.Time `json:"reversed"`
	Retried           time.Time `json:"retried"`
	Completed         time.Time `json:"completed"`
	Cancelled         time.Time `json:"cancelled"`

	// StepDue is when its step on the clock ends; Resume and StepLeft
	// the state a stopped workflow resumes and what was left of its
	// step; VReplication its VReplication workflow while it is active
	// (see vreplication_snap.go).
	StepDue      time.Time              `json:"step_due,omitzero"`
	StepGen      uint64                 `json:"step_gen,omitempty"`
	Resume       platform.WorkflowState `json:"resume,omitempty"`
	StepLeft     time.Duration          `json:"step_left,omitempty"`
	VReplication *vrWorkflowSnap        `json:"vreplication,omitempty"`

	// Streams are its streams, StreamLog their changes and VDiff its
	// latest data verification (null before the first); a snapshot of a
	// fake older than them has none of the three (see
	// deriveWorkflowStreams and deriveWorkflowVDiff).
	Streams   []workflowStreamSnap `json:"streams,omitempty"`
	StreamLog []streamEventSnap    `json:"stream_log,omitempty"`
	VDiff     *workflowVDiffSnap   `json:"vdiff,omitempty"`

	// Actors are user IDs: actor, verify, reversed, switch_replicas,
	// switch_primaries, cancelled, completed, retried, cutover and
	// reversed_cutover, in that order ("" for none).
	Actors []string `json:"actors"`
}

// workflowTableSnap is the copy of a table of a workflow: its ID and
// times (created with the workflow, updated when Copied last changed),
// its rows and how many were copied when the workflow last left its copy
// step.
type workflowTableSnap struct {
	stampsSnap
	Total  int64 `json:"total"`
	Copied int64 `json:"copied"`
}

// workflowStreamSnap is a stream of a workflow.
type workflowStreamSnap struct {
	ID          string `json:"id"`
	TargetShard string `json:"target_shard"`
	SourceShard string `json:"source_shard"`
}

// streamEventSnap is a change of a workflow's streams.
type streamEventSnap struct {
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"`
	State   string    `json:"state"`
	Message string    `json:"message,omitempty"`
}

// workflowVDiffSnap is a workflow's latest data verification: its times
// (see workflowVDiff),
// how it ended ("" while it runs), and what its latest run compares.
type workflowVDiffSnap struct {
	ID      string                `json:"id"`
	Created time.Time             `json:"created"`
	Begun   time.Time             `json:"begun"`
	Start   time.Time             `json:"start"`
	Due     time.Time             `json:"due"`
	Ended   time.Time             `json:"ended,omitzero"`
	State   platform.VDiffState   `json:"state,omitempty"`
	Tables  []vdiffTableShardSnap `json:"tables"`
}

// vdiffTableShardSnap is a table a verification compares on a target
// shard.
type vdiffTableShardSnap struct {
	Table string           `json:"table"`
	Shard string           `json:"shard"`
	Rows  int64            `json:"rows"`
	Diffs VDiffDifferences `json:"diffs"`
}

// workflowKeyspaceSnap is a keyspace a workflow names: a live keyspace of
// its branch by ID, or, once dropped, what its reference still shows.
type workflowKeyspaceSnap struct {
	stampsSnap
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

// actors lists the actor fields of wf in workflowSnap.Actors' order.
func (wf *workflowRec) actors() []**userRec {
	return []**userRec{&wf.actor, &wf.verifyBy, &wf.reversedBy, &wf.switchReplicasBy, &wf.switchPrimariesBy,
		&wf.cancelledBy, &wf.completedBy, &wf.retriedBy, &wf.cutoverBy, &wf.reversedCutoverBy}
}

func saveWorkflowKeyspace(ks *keyspaceRec) workflowKeyspaceSnap {
	return workflowKeyspaceSnap{stampsSnap: saveStamps(ks.stamps), Name: ks.name, Deleted: ks.deleted}
}

func saveWorkflows(db *dbRec) []workflowSnap {
	var out []workflowSnap
	for _, wf := range db.workflows.peek().all() {
		ws := workflowSnap{
			stampsSnap: saveStamps(wf.stamps), Number: wf.number, Name: wf.name, Branch: wf.branch.id,
			Source: saveWorkflowKeyspace(wf.source), Target: saveWorkflowKeyspace(wf.target),
			Tables: wf.tables, DeferSecondaryKeys: wf.deferSecondaryKeys, OnDDL: wf.onDDL,
			State: wf.state, FailedFrom: wf.failedFrom, Errors: wf.errors,
			ReplicasSwitched: wf.replicasSwitched, PrimariesSwitched: wf.primariesSwitched,
			SequenceTablesApplied: wf.sequenceTablesApplied,
			Started:               wf.started, Copied: wf.copied, Verified: wf.verified,
			SwitchedReplicas: wf.switchedReplicas, SwitchedPrimaries: wf.switchedPrimaries,
			CutoverAt: wf.cutoverAt, Reversed: wf.reversed, Retried: wf.retried,
			Completed: wf.completed, Cancelled: wf.cancelled,
			StepDue: wf.stepDue, StepGen: wf.stepGen, Resume: wf.resume, StepLeft: wf.stepLeft,
		}
		ws.TableCopies = make([]workflowTableSnap, len(wf.rows))
		for i, t := range wf.rows {
			ws.TableCopies[i] = workflowTableSnap{stampsSnap: stampsSnap{ID: t.id, Created: wf.created, Updated: t.updated}, Total: t.total, Copied: t.copied}
		}
		if wf.vr != nil {
			ws.VReplication = saveVRWorkflow(wf.vr)
		}
		for _, st := range wf.streams {
			ws.Streams = append(ws.Streams, workflowStreamSnap{ID: st.id, TargetShard: st.targetShard, SourceShard: st.sourceShard})
		}
		for _, e := range wf.streamLog {
			ws.StreamLog = append(ws.StreamLog, streamEventSnap{At: e.at, Kind: e.kind, State: e.state, Message: e.message})
		}
		ws.VDiff = saveWorkflowVDiff(wf.vdiff)
		if wf.global != nil {
			g := saveWorkflowKeyspace(wf.global)
			ws.Global = &g
		}
		for _, a := range wf.actors() {
			ws.Actors = append(ws.Actors, idOf(*a))
		}
		out = append(out, ws)
	}
	return out
}

// loadWorkflows loads the workflows of db.
func (ld *loader) loadWorkflows(db *dbRec, list []workflowSnap) error {
	for i, ws := range list {
		if err := unique(ld.workflows, ws.ID, "workflow"); err != nil {
			return at(err, "workflows[%d].id", i)
		}
		wf, err := ld.loadWorkflow(db, ws)
		if err != nil {
			return at(named(err, "workflow %s", ws.ID), "workflows[%d]", i)
		}
		ld.workflows[wf.id] = wf
		db.addWorkflow(wf)
	}
	return nil
}

func (ld *loader) loadWorkflow(db *dbRec, ws workflowSnap) (*workflowRec, error) {
	b, err := refNonNil(ld.branches, ws.Branch, "branch")
	if err != nil {
		return nil, err
	}
	switch {
	case b.db != db:
		return nil, fmt.Errorf("branch %s is of another database", b.id)
	case ws.Number < 1 || db.workflows.peek().get(ws.Number) != nil:
		return nil, fmt.Errorf("number %d is not a new workflow number", ws.Number)
	case !slices.Contains(workflowStates, ws.State):
		return nil, fmt.Errorf("unknown state %q", ws.State)
	case (ws.State == platform.WorkflowError) != (ws.FailedFrom != ""):
		return nil, fmt.Errorf("state %s with failed_from %q", ws.State, ws.FailedFrom)
	case ws.FailedFrom != "" && !slices.Contains(workflowClockStates, ws.FailedFrom):
		return nil, fmt.Errorf("failed_from %q is not a state left on the clock", ws.FailedFrom)
	case (ws.State == platform.WorkflowStopped) != (ws.Resume != ""):
		return nil, fmt.Errorf("state %s with resume %q", ws.State, ws.Resume)
	case ws.Resume != "" && !slices.Contains(workflowStoppable, ws.Resume):
		return nil, fmt.Errorf("resume %q is not a state a workflow stops in", ws.Resume)
	case ws.StepLeft < 0:
		return nil, fmt.Errorf("step_left %v is negative", ws.StepLeft)
	case len(ws.Actors) != len((&workflowRec{}).actors()):
		return nil, fmt.Errorf("%d actors, want %d", len(ws.Actors), len((&workflowRec{}).actors()))
	}
	wf := &workflowRec{
		stamps: ws.load(), db: db, number: ws.Number, name: ws.Name, branch: b,
		tables: ws.Tables, deferSecondaryKeys: ws.DeferSecondaryKeys, onDDL: ws.OnDDL,
		state: ws.State, failedFrom: ws.FailedFrom, errors: ws.Errors,
		replicasSwitched: ws.ReplicasSwitched, primariesSwitched: ws.PrimariesSwitched,
		sequenceTablesApplied: ws.SequenceTablesApplied,
		started:               ws.Started, copied: ws.Copied, verified: ws.Verified,
		switchedReplicas: ws.SwitchedReplicas, switchedPrimaries: ws.SwitchedPrimaries,
		cutoverAt: ws.CutoverAt, reversed: ws.Reversed, retried: ws.Retried,
		completed: ws.Completed, cancelled: ws.Cancelled,
		stepDue: ws.StepDue, stepGen: ws.StepGen, resume: ws.Resume, stepLeft: ws.StepLeft,
	}
	if wf.rows, err = loadWorkflowTables(ws); err != nil {
		return nil, err
	}
	if wf.source, err = loadWorkflowKeyspace(b, ws.Source); err != nil {
		return nil, err
	}
	if wf.target, err = loadWorkflowKeyspace(b, ws.Target); err != nil {
		return nil, err
	}
	if ws.Global != nil {
		if wf.global, err = loadWorkflowKeyspace(b, *ws.Global); err != nil {
			return nil, err
		}
	}
	for i, a := range wf.actors() {
		if *a, err = ref(ld.users, ws.Actors[i], "workflow actor"); err != nil {
			return nil, err
		}
	}
	if err := loadDocVRWorkflow(wf, ws.VReplication); err != nil {
		return nil, err
	}
	if wf.rows == nil {
		wf.rows = deriveWorkflowTables(wf)
	}
	if err := ld.loadWorkflowStreams(wf, ws); err != nil {
		return nil, err
	}
	if err := ld.loadWorkflowVDiff(wf, ws.VDiff); err != nil {
		return nil, at(err, "vdiff")
	}
	return wf, nil
}

// loadWorkflowStreams loads wf's streams and their log, or derives them
// from a snapshot that has none: its VReplication workflow's streams (for
// an ended workflow, those of its keyspaces' shards now), created and
// then in the state its lifecycle gives them since its latest change.
// The derived IDs come from the workflow's and the shards'.
func (ld *loader) loadWorkflowStreams(wf *workflowRec, ws workflowSnap) error {
	if ws.Streams == nil {
		if ws.StreamLog != nil {
			return fmt.Errorf("stream_log without streams")
		}
		deriveWorkflowStreams(wf, ld.now)
		return nil
	}
	for i, st := range ws.Streams {
		var err error
		switch {
		case st.ID == "":
			err = fmt.Errorf("without an ID")
		case st.TargetShard == "" || st.SourceShard == "":
			err = fmt.Errorf("target_shard %q and source_shard %q: a stream names both", st.TargetShard, st.SourceShard)
		case slices.ContainsFunc(ws.Streams[:i], func(o workflowStreamSnap) bool { return o.ID == st.ID }):
			err = fmt.Errorf("ID %q appears twice", st.ID)
		case slices.ContainsFunc(ws.Streams[:i], func(o workflowStreamSnap) bool {
			return o.TargetShard == st.TargetShard && o.SourceShard == st.SourceShard
		}):
			err = fmt.Errorf("a second stream into %s from %s", st.TargetShard, st.SourceShard)
		}
		if err != nil {
			return at(err, "streams[%d]", i)
		}
		wf.streams = append(wf.streams, workflowStream{id: st.ID, targetShard: st.TargetShard, sourceShard: st.SourceShard})
	}
	if wf.vr != nil {
		want := wf.vr.streams()
		same := len(want) == len(wf.streams)
		for i := 0; same && i < len(want); i++ {
			same = want[i].targetShard == wf.streams[i].targetShard && want[i].source == wf.streams[i].sourceShard
		}
		if !same {
			return fmt.Errorf("streams are not those of its VReplication workflow (from %v into %v)", wf.vr.sourceShards, wf.vr.targetShards)
		}
	}
	return ld.loadStreamLog(wf, ws.StreamLog)
}

// loadStreamLog loads the log of wf's streams: created (stopped) with the
// workflow, then changes in time order up to now, the last one the state
// and info wf's lifecycle gives them.
func (ld *loader) loadStreamLog(wf *workflowRec, log []streamEventSnap) error {
	if len(log) == 0 {
		return fmt.Errorf("streams without a stream_log")
	}
	for i, e := range log {
		var err error
		switch {
		case !slices.Contains(streamLogKinds, e.Kind):
			err = fmt.Errorf("kind %q is not one of %s", e.Kind, strings.Join(streamLogKinds, ", "))
		case !slices.Contains(streamStates, e.State):
			err = fmt.Errorf("state %q is not one of %s", e.State, strings.Join(streamStates, ", "))
		case (i == 0) != (e.Kind == platform.StreamLogCreated):
			err = fmt.Errorf("kind %s: the log starts with the one %s", e.Kind, platform.StreamLogCreated)
		case i == 0 && (!e.At.Equal(wf.created) || e.State != vrStopped):
			err = fmt.Errorf("created %v %s, not with its workflow (%v) and stopped", e.At, e.State, wf.created)
		case i > 0 && e.At.Before(log[i-1].At):
			err = fmt.Errorf("at %v, before the entry before it (%v)", e.At, log[i-1].At)
		case e.At.After(ld.now):
			err = fmt.Errorf("at %v, after the snapshot's time %v", e.At, ld.now)
		}
		if err != nil {
			return at(err, "stream_log[%d]", i)
		}
		wf.streamLog = append(wf.streamLog, streamEvent{at: e.At, kind: e.Kind, state: e.State, message: e.Message})
	}
	last := log[len(log)-1]
	if state, info, ok := wf.streamsNow(ld.now, &Timings{}); ok && (state != last.State || info != last.Message) {
		return at(fmt.Errorf("the streams are %s (%q); the workflow, %s, has them %s (%q)", last.State, last.Message, wf.state, state, info), "stream_log[%d]", len(log)-1)
	}
	return nil
}

// deriveWorkflowStreams makes the streams of wf, restored from a snapshot
// of a fake that kept none.
func deriveWorkflowStreams(wf *workflowRec, now time.Time) {
	var pairs []vrStream
	if wf.vr != nil {
		pairs = wf.vr.streams()
	} else {
		vw := vrWorkflow{sourceShards: shardNames(wf.source.shards), targetShards: shardNames(wf.target.shards)}
		pairs = vw.streams()
	}
	if len(pairs) == 0 {
		pairs = []vrStream{{id: 1, targetShard: "-", source: "-"}} // a dropped keyspace shows no shards
	}
	for _, p := range pairs {
		wf.streams = append(wf.streams, workflowStream{id: derivedID(wf.id, "stream", p.targetShard, p.source), targetShard: p.targetShard, sourceShard: p.source})
	}
	wf.streamLog = []streamEvent{{at: wf.created, kind: platform.StreamLogCreated, state: vrStopped, message: streamCreatedMessage(wf)}}
	state, info, ok := wf.streamsNow(now, &Timings{}) // the state needs no timings
	if !ok {
		state, info = vrRunning, "" // being cancelled: as they were, running
	}
	if state != vrStopped || info != "" {
		wf.streamLog = append(wf.streamLog, streamEvent{at: wf.updated, kind: streamLogKind(wf, vrStopped, state), state: state, message: info})
	}
}

func saveWorkflowVDiff(vd *workflowVDiff) *workflowVDiffSnap {
	if vd == nil {
		return nil
	}
	out := &workflowVDiffSnap{ID: vd.id, Created: vd.created, Begun: vd.begun, Start: vd.start, Due: vd.due, Ended: vd.ended, State: vd.state, Tables: []vdiffTableShardSnap{}}
	for _, r := range vd.reports {
		out.Tables = append(out.Tables, vdiffTableShardSnap{Table: r.name, Shard: r.shard, Rows: r.rows, Diffs: r.diffs})
	}
	return out
}

// loadWorkflowVDiff loads wf's latest verification: running exactly while
// wf verifies its data, completed only once it has verified it, made
// after wf and begun after it was asked for, comparing each of wf's
// tables once on each target shard of its streams. A snapshot without one
// (of a fake older than them, or of a workflow never verified) derives
// it from the workflow's verification: see deriveWorkflowVDiff.
func (ld *loader) loadWorkflowVDiff(wf *workflowRec, vs *workflowVDiffSnap) error {
	if vs == nil {
		wf.vdiff = deriveWorkflowVDiff(wf)
		return nil
	}
	running := wf.state == platform.WorkflowVerifyingData
	switch {
	case vs.ID == "":
		return fmt.Errorf("without an ID")
	case vs.Created.Before(wf.created) || vs.Begun.Before(vs.Created) || vs.Begun.After(ld.now) || vs.Start.Before(vs.Begun) || vs.Due.Before(vs.Start):
		return fmt.Errorf("created %v, begun %v, start %v and due %v: not in order after its workflow (%v), begun before the snapshot (%v)", vs.Created, vs.Begun, vs.Start, vs.Due, wf.created, ld.now)
	case running && !vs.Due.Equal(wf.stepDue):
		return fmt.Errorf("due %v, not when its workflow's verification step ends (%v)", vs.Due, wf.stepDue)
	case running != (vs.State == ""):
		return fmt.Errorf("state %q while its workflow is %s: a verification runs exactly while its workflow verifies its data", vs.State, wf.state)
	case vs.State != "" && !slices.Contains(workflowVDiffEnds, vs.State):
		return fmt.Errorf("state %q is not how a verification ends (completed, error or stopped)", vs.State)
	case (vs.State == "") != vs.Ended.IsZero():
		return fmt.Errorf("state %q with ended %v", vs.State, vs.Ended)
	case !vs.Ended.IsZero() && (vs.Ended.Before(vs.Begun) || vs.Ended.After(ld.now)):
		return fmt.Errorf("ended %v, not between its beginning (%v) and the snapshot (%v)", vs.Ended, vs.Begun, ld.now)
	case vs.State == platform.VDiffCompleted && wf.verified.IsZero():
		return fmt.Errorf("completed, and its workflow never verified its data")
	}
	vd := &workflowVDiff{id: vs.ID, created: vs.Created, begun: vs.Begun, start: vs.Start, due: vs.Due, ended: vs.Ended, state: vs.State}
	targets, sources := streamShards(wf.streams, false), streamShards(wf.streams, true)
	rows := int64(vrRowsPerTable * len(sources))
	for i, r := range vs.Tables {
		var err error
		switch {
		case !slices.Contains(wf.tables, r.Table):
			err = fmt.Errorf("table %q is not a table of the workflow", r.Table)
		case !slices.Contains(targets, r.Shard):
			err = fmt.Errorf("shard %q is not a target shard of its streams", r.Shard)
		case slices.ContainsFunc(vs.Tables[:i], func(o vdiffTableShardSnap) bool { return o.Table == r.Table && o.Shard == r.Shard }):
			err = fmt.Errorf("table %s on shard %s appears twice", r.Table, r.Shard)
		case r.Rows != rows:
			err = fmt.Errorf("rows %d, not the %d its streams copied (%d from each of %d source shards)", r.Rows, rows, vrRowsPerTable, len(sources))
		default:
			err = checkVDiffDifferences(r.Table, &r.Diffs)
		}
		if err != nil {
			return at(err, "tables[%d]", i)
		}
		vd.reports = append(vd.reports, vdiffTableShard{shard: r.Shard, vdiffTable: vdiffTable{name: r.Table, rows: r.Rows, diffs: r.Diffs}})
	}
	if want := len(wf.tables) * len(targets); len(vd.reports) != want {
		return fmt.Errorf("%d tables compared, want %d: each of the workflow's %d tables on each of its %d target shards", len(vd.reports), want, len(wf.tables), len(targets))
	}
	wf.vdiff = vd
	return nil
}

// deriveWorkflowVDiff makes the latest verification of wf, restored from
// a snapshot of a fake that kept none: none if wf never verified its
// data; else one running since wf entered verifying_data until its step
// ends, or one known only by its end (completed at verify_data_at, or
// failed when wf failed verifying), with no differences and its ID
// derived from the workflow's.
func deriveWorkflowVDiff(wf *workflowRec) *workflowVDiff {
	vd := &workflowVDiff{id: derivedID(wf.id, "vdiff")}
	switch {
	case wf.state == platform.WorkflowVerifyingData:
		vd.begun, vd.due = wf.updated, wf.stepDue
	case wf.failedFrom == platform.WorkflowVerifyingData:
		vd.state, vd.ended = platform.VDiffError, wf.updated
		vd.begun, vd.due = vd.ended, vd.ended
	case !wf.verified.IsZero():
		vd.state, vd.ended = platform.VDiffCompleted, wf.verified
		vd.begun, vd.due = vd.ended, vd.ended
	default:
		return nil
	}
	vd.created, vd.start = vd.begun, vd.begun
	vd.reports = workflowVDiffTables(wf)
	for i := range vd.reports {
		vd.reports[i].diffs = VDiffDifferences{}
	}
	return vd
}

// deriveWorkflowTables makes the copies of the tables of wf, restored from
// a snapshot of a fake that kept none: all rows once the copy is done,
// none before (a copy under way counts on from there). Their IDs come from
// the workflow's and the table's names, so that two restores of one
// snapshot agree, and do not draw on the restored ID generator.
func deriveWorkflowTables(wf *workflowRec) []workflowTable {
	streams := 1 // an ended workflow keeps no streams
	if wf.vr != nil {
		streams = max(len(wf.vr.streams()), 1)
	}
	total := int64(vrRowsPerTable * streams)
	out := make([]workflowTable, len(wf.tables))
	for i, name := range wf.tables {
		sum := sha256.Sum256([]byte(wf.id + "/" + name))
		id := make([]byte, idLen)
		for j := range id {
			id[j] = idAlphabet[int(sum[j])%len(idAlphabet)]
		}
		out[i] = workflowTable{id: string(id), total: total, updated: wf.created}
		if !wf.copied.IsZero() {
			out[i].copied, out[i].updated = total, wf.copied
		}
	}
	return out
}

// loadWorkflowTables loads the copies of ws's tables: one per table, made
// with the workflow, none copied before the copy started, every row once
// it is done.
func loadWorkflowTables(ws workflowSnap) ([]workflowTable, error) {
	if ws.TableCopies == nil {
		return nil, nil
	}
	if len(ws.TableCopies) != len(ws.Tables) {
		return nil, fmt.Errorf("%d table_copies for %d tables", len(ws.TableCopies), len(ws.Tables))
	}
	out := make([]workflowTable, len(ws.TableCopies))
	for i, t := range ws.TableCopies {
		var err error
		switch {
		case t.ID == "":
			err = fmt.Errorf("without an ID")
		case !t.Created.Equal(ws.Created):
			err = fmt.Errorf("created %v, not with its workflow (%v)", t.Created, ws.Created)
		case t.Updated.Before(t.Created):
			err = fmt.Errorf("updated %v before it was created", t.Updated)
		case t.Total < 1:
			err = fmt.Errorf("total %d is not a number of rows", t.Total)
		case t.Copied < 0 || t.Copied > t.Total:
			err = fmt.Errorf("copied %d is not between 0 and total %d", t.Copied, t.Total)
		case ws.Started.IsZero() && t.Copied != 0:
			err = fmt.Errorf("copied %d before the copy started", t.Copied)
		case ws.FailedFrom == platform.WorkflowCopying && t.Copied != 0:
			err = fmt.Errorf("copied %d after its copy failed", t.Copied)
		case !ws.Copied.IsZero() && t.Copied != t.Total:
			err = fmt.Errorf("copied %d of %d after the copy was done", t.Copied, t.Total)
		}
		if err != nil {
			return nil, at(err, "table_copies[%d]", i)
		}
		out[i] = workflowTable{id: t.ID, total: t.Total, copied: t.Copied, updated: t.Updated}
	}
	return out, nil
}

// loadWorkflowKeyspace finds a live keyspace of b, or builds again the
// reference to a dropped one.
func loadWorkflowKeyspace(b *branchRec, ks workflowKeyspaceSnap) (*keyspaceRec, error) {
	if ks.Deleted {
		return &keyspaceRec{stamps: ks.load(), branch: b, name: ks.Name, deleted: true}, nil
	}
	for _, live := range b.keyspaces.All() {
		if live.id == ks.ID {
			return live, nil
		}
	}
	return nil, fmt.Errorf("keyspace %s is not a keyspace of branch %s", ks.ID, b.id)
}

// workflowStates are the states of platform.WorkflowState.
var workflowStates = []platform.WorkflowState{
	platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowRunning, platform.WorkflowStopped,
	platform.WorkflowVerifyingData, platform.WorkflowVerifiedData, platform.WorkflowSwitchingReplicas,
	platform.WorkflowSwitchedReplicas, platform.WorkflowSwitchingPrimaries, platform.WorkflowSwitchedPrimaries,
	platform.WorkflowReversingTraffic, platform.WorkflowReversingTrafficForCancel, platform.WorkflowCuttingOver,
	platform.WorkflowCutover, platform.WorkflowReversedCutover, platform.WorkflowCompleted,
	platform.WorkflowCancelling, platform.WorkflowCancelled, platform.WorkflowError,
}
