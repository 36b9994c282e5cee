package fake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The VReplication workflows of a MySQL branch: the replication streams
// that copy tables from a source keyspace into a target keyspace and keep
// them in step. MoveTables, Materialize and lookup-vindex workflows are
// all this model; the vtctld views, the MoveTables, Materialize,
// lookup-vindex and VDiff operations read and change it.
//
// A workflow is found by its target keyspace and name. Each target shard
// has one stream per source shard, numbered from 1 within the target
// shard, as each target tablet numbers its own streams. Streams are
// Copying, then Running once the copy is done, Stopped when stopped, and
// Error when a step failed.
//
// A MoveTables workflow is the documented workflow (workflows.go) seen
// from Vitess: vrWorkflow.doc points to its workflowRec and
// workflowRec.vr back. Its lifecycle (copy, traffic switched, completed,
// cancelled) is the documented workflow's state, the one source of truth:
// its streams copy while the documented workflow is pending or copying
// (Timings.WorkflowStart, then Timings.WorkflowCopy), are Stopped while it
// is stopped, Error in error, and Running otherwise; the documented
// workflow's switched traffic shows in the routing rules
// (syncMoveTablesRules); when it completes or is cancelled the
// VReplication workflow is deleted, as Vitess deletes it. Every documented
// workflow has one, so the vtctld views list it.
//
// Workflows of the other kinds copy for Timings.VReplicationCopy: copyDue
// is when the copy ends while the streams run, copyLeft the copy left
// while they are stopped. Their state follows from the clock; a job at
// copyDue (vreplication_jobs.go) marks the copy's end, so that the
// workflow's time_updated shows it and a waiter's poll can move the clock
// there.
//
// The model's API, for the operations built on it (Materialize, lookup
// vindexes, VDiff):
//
//   - (*world).findVRWorkflow(b, keyspace, name): the workflow a request
//     names: a 422 naming the field for a missing or unknown keyspace, a
//     404 for an unknown workflow.
//   - (*branchVitess).vrWorkflow(target, name): the same lookup, nil when
//     none; (*branchVitess).vrWorkflowsOf(b): all of a branch's, by name.
//   - (*world).newVRWorkflow(b, vrSpec): a new workflow of a kind
//     (vrMaterialize, vrCreateLookupIndex; MoveTables come with their
//     documented workflow), its streams made and copying unless
//     spec.opts.autoStart is false.
//   - (*world).startVRWorkflow(who, vw) / stopVRWorkflow(vw) (changed
//     bool, err): every stream Running (or Copying) / Stopped; changed
//     false when they were already; a 422 naming the state where it
//     cannot (a MoveTables workflow in a step of its documented
//     workflow).
//   - (*world).deleteVRWorkflow: the workflow and its streams gone.
//   - renderVRWorkflow(vw, now): the vtctldata.Workflow document; vw.id()
//     what audit entries name it by.
//   - vw.phase(now): the streams' state ("Copying", "Running", "Stopped",
//     "Error") and the share of rows copied; vw.tableNames(),
//     vw.sourceShards, vw.targetShards, vw.copied(now): what VDiff
//     compares.
type vrWorkflow struct {
	name string
	kind string // vrMoveTables, vrMaterialize, vrCreateLookupIndex
	// source and target are the keyspaces; the target may be the source
	// (a lookup vindex's table).
	source, target *keyspaceRec
	// sourceShards and targetShards are the shards when it was made.
	sourceShards, targetShards []string
	tables                     []vrTable
	created, updated           time.Time
	opts                       vrOptions

	// The copy of a workflow without doc: stopped by stop (updated is
	// when), copyDue when the copy ends while it runs, copyLeft what was
	// left of it when stopped; errMsg the error a failed step left.
	stopped  bool
	copyDue  time.Time
	copyLeft time.Duration
	errMsg   string
	// ranOn marks a workflow that stops after its copy started again
	// after stopping so: it replicates on. frozen marks a lookup vindex's
	// workflow that externalize stopped for good ("FROZEN"), until
	// internalize runs it again (see vitess_lookupvindex.go).
	ranOn, frozen bool

	// doc is a MoveTables workflow's documented workflow.
	doc *workflowRec
}

// The workflow kinds (binlogdata.VReplicationWorkflowType names).
const (
	vrMoveTables        = "MoveTables"
	vrMaterialize       = "Materialize"
	vrCreateLookupIndex = "CreateLookupIndex"
)

// vrKinds are the kinds a workflow may be.
var vrKinds = []string{vrMoveTables, vrMaterialize, vrCreateLookupIndex}

// The states of a workflow's streams.
const (
	vrCopying = "Copying"
	vrRunning = "Running"
	vrStopped = "Stopped"
	vrError   = "Error"
)

// vrTable is a table a workflow copies: into name, from the query filter
// ("" for every row of the source table of the same name).
type vrTable struct {
	name, filter string
}

// vrOptions are a workflow's options as it was made.
type vrOptions struct {
	onDDL              string // IGNORE, STOP, EXEC or EXEC_IGNORE
	deferSecondaryKeys bool
	stopAfterCopy      bool
	autoStart          bool
	atomicCopy         bool
	cells              []string
	tabletTypes        []platform.TabletType
	sourceTimeZone     string
	tenantID           string
	autoIncrement      string // LEAVE, REMOVE or REPLACE ("" for LEAVE)
	globalKeyspace     string
}

// vrSpec is a workflow to make.
type vrSpec struct {
	name           string
	kind           string
	source, target *keyspaceRec
	tables         []vrTable
	opts           vrOptions
	doc            *workflowRec
}

// vrRowsPerTable is how many rows each stream copies of each table.
const vrRowsPerTable = 1000

// vrWorkflow finds the workflow of target named name; nil when none.
func (v *branchVitess) vrWorkflow(target *keyspaceRec, name string) *vrWorkflow {
	for _, vw := range v.workflows {
		if vw.target == target && vw.name == name {
			return vw
		}
	}
	return nil
}

// vrWorkflowsOf lists the workflows of b's live keyspaces, by target
// keyspace and name.
func (v *branchVitess) vrWorkflowsOf(b *branchRec) []*vrWorkflow {
	var out []*vrWorkflow
	for _, vw := range v.workflows {
		if !vw.target.gone() {
			out = append(out, vw)
		}
	}
	slices.SortFunc(out, func(a, c *vrWorkflow) int {
		if d := strings.Compare(a.target.name, c.target.name); d != 0 {
			return d
		}
		return strings.Compare(a.name, c.name)
	})
	return out
}

// findVRWorkflow finds the workflow a request names by its target
// keyspace (field names the request's field) and name.
func (w *world) findVRWorkflow(b *branchRec, field, keyspace, name string) (*vrWorkflow, error) {
	if keyspace == "" {
		return nil, unprocessable("%s is required: the workflow's target keyspace", field)
	}
	ks := b.keyspace(keyspace)
	if ks == nil {
		return nil, unprocessable("%s %q is not a keyspace of branch %s: its keyspaces are %s", field, keyspace, b.name, strings.Join(vitessKeyspaceNames(b), ", "))
	}
	vw := b.more.read().vitess.vrWorkflow(ks, name)
	if vw == nil {
		return nil, notFound()
	}
	return vw, nil
}

// newVRWorkflow makes a workflow and its streams, copying from now unless
// auto_start is off.
func (w *world) newVRWorkflow(b *branchRec, s vrSpec) *vrWorkflow {
	now := w.clock.Now()
	vw := &vrWorkflow{
		name: s.name, kind: s.kind, source: s.source, target: s.target,
		sourceShards: shardNames(s.source.shards), targetShards: shardNames(s.target.shards),
		tables: slices.Clone(s.tables), created: now, updated: now, opts: s.opts, doc: s.doc,
	}
	if s.doc == nil {
		vw.copyLeft = w.timing.VReplicationCopy
		if s.opts.autoStart {
			vw.copyDue, vw.copyLeft = now.Add(vw.copyLeft), 0
			w.clock.After(w.timing.VReplicationCopy, vrCopyJob{b, vw})
		} else {
			vw.stopped = true
		}
	} else {
		s.doc.vr = vw
	}
	v := b.vitess()
	v.workflows = append(v.workflows, vw)
	b.updated = now
	return vw
}

// deleteVRWorkflow deletes vw and its streams.
func (w *world) deleteVRWorkflow(vw *vrWorkflow) {
	w.dropWorkflowVDiffs(vw)
	v := vw.target.branch.vitess()
	v.workflows = slices.DeleteFunc(v.workflows, func(o *vrWorkflow) bool { return o == vw })
	if vw.doc != nil && vw.doc.vr == vw {
		vw.doc.vr = nil
	}
	vw.target.branch.updated = w.clock.Now()
}

// id identifies vw where a record's ID is wanted (an audit entry's
// target): its documented workflow's ID for MoveTables, else its target
// keyspace's ID and its name.
func (vw *vrWorkflow) id() string {
	if vw.doc != nil {
		return vw.doc.id
	}
	return vw.target.id + "/" + vw.name
}

// tableNames are the tables vw copies into, in its order.
func (vw *vrWorkflow) tableNames() []string {
	out := make([]string, len(vw.tables))
	for i, t := range vw.tables {
		out[i] = t.name
	}
	return out
}

// phase is the state of vw's streams at now and the share of the rows
// copied (0 to 1).
func (vw *vrWorkflow) phase(now time.Time, t *Timings) (string, float64) {
	if vw.doc != nil {
		return vw.doc.streamPhase(now, t)
	}
	switch {
	case vw.errMsg != "":
		return vrError, copyShare(vw.copyLeft, t.VReplicationCopy)
	case vw.stopped:
		return vrStopped, copyShare(vw.copyLeft, t.VReplicationCopy)
	case now.Before(vw.copyDue):
		return vrCopying, copyShare(vw.copyDue.Sub(now), t.VReplicationCopy)
	case vw.opts.stopAfterCopy && !vw.ranOn:
		return vrStopped, 1
	}
	return vrRunning, 1
}

// streamPhase is the state of the streams of wf, an active documented
// workflow, at now and the share of the rows copied (0 to 1): its
// lifecycle is theirs.
func (wf *workflowRec) streamPhase(now time.Time, t *Timings) (string, float64) {
	switch wf.state {
	case platform.WorkflowPending:
		return vrCopying, 0
	case platform.WorkflowCopying:
		return vrCopying, copyShare(wf.stepDue.Sub(now), t.WorkflowCopy)
	case platform.WorkflowStopped:
		switch wf.resume {
		case platform.WorkflowPending:
			return vrStopped, 0
		case platform.WorkflowCopying:
			return vrStopped, copyShare(wf.stepLeft, t.WorkflowCopy)
		}
		return vrStopped, 1
	case platform.WorkflowError:
		if wf.failedFrom == platform.WorkflowPending || wf.failedFrom == platform.WorkflowCopying {
			return vrError, 0
		}
		return vrError, 1
	}
	return vrRunning, 1
}

// stoppedAfterCopy reports whether vw's streams stopped at the end of
// their copy, as stop_after_copy asks, and were not started since.
func (vw *vrWorkflow) stoppedAfterCopy(now time.Time) bool {
	return vw.doc == nil && vw.opts.stopAfterCopy && !vw.ranOn && !vw.stopped && vw.errMsg == "" && !now.Before(vw.copyDue)
}

// copied reports whether vw's copy is done at now.
func (vw *vrWorkflow) copied(now time.Time, t *Timings) bool {
	_, share := vw.phase(now, t)
	return share >= 1
}

// copyShare is the share of a copy of total done when left remains.
func copyShare(left, total time.Duration) float64 {
	switch {
	case left <= 0:
		return 1
	case total <= 0 || left >= total:
		return 0
	}
	return 1 - float64(left)/float64(total)
}

// copyPart is the share of table i of n copied when share of a copy is
// done: tables copy one after another, in order.
func copyPart(share float64, i, n int) float64 {
	return min(max(share*float64(n)-float64(i), 0), 1)
}

// stopVRWorkflow stops vw's streams: a MoveTables workflow's documented
// workflow goes to stopped, remembering the state to resume and the copy
// left; other kinds keep the copy left.
func (w *world) stopVRWorkflow(vw *vrWorkflow) (bool, error) {
	now := w.clock.Now()
	if wf := vw.doc; wf != nil {
		if wf.state == platform.WorkflowStopped {
			return false, nil
		}
		if !slices.Contains(workflowStoppable, wf.state) {
			return false, unprocessable("workflow %s is %s; stop needs it %s", vw.name, wf.state, joinWorkflowStates(workflowStoppable))
		}
		w.settleTables(wf)
		wf.resume, wf.stepLeft = wf.state, 0
		if wf.state == platform.WorkflowPending || wf.state == platform.WorkflowCopying {
			wf.stepLeft = max(wf.stepDue.Sub(now), 0)
		}
		wf.state, wf.updated = platform.WorkflowStopped, now
		vw.updated = now
		w.noteStreams(wf)
		return true, nil
	}
	if vw.stopped || vw.stoppedAfterCopy(now) {
		return false, nil
	}
	if now.Before(vw.copyDue) {
		vw.copyLeft = vw.copyDue.Sub(now)
	}
	vw.stopped, vw.copyDue, vw.updated = true, time.Time{}, now
	return true, nil
}

// startVRWorkflow starts vw's streams again: a stopped MoveTables
// workflow's documented workflow resumes the state it was stopped in, its
// step on the clock taking the time it had left; other kinds copy what
// was left. A workflow in error starts again from where it failed.
func (w *world) startVRWorkflow(who *principal, vw *vrWorkflow) (bool, error) {
	now := w.clock.Now()
	if wf := vw.doc; wf != nil {
		switch {
		case wf.state == platform.WorkflowStopped:
		case wf.state == platform.WorkflowError:
			return true, w.retryWorkflow(who, wf)
		case slices.Contains(workflowStoppable, wf.state) || wf.state == platform.WorkflowSwitchedPrimaries:
			return false, nil // running, or copying, already
		default:
			return false, unprocessable("workflow %s is %s; start needs it %s or %s", vw.name, wf.state, platform.WorkflowStopped, platform.WorkflowError)
		}
		to, left := wf.resume, wf.stepLeft
		wf.resume, wf.stepLeft = "", 0
		wf.state, wf.updated, vw.updated = to, now, now
		if to == platform.WorkflowPending || to == platform.WorkflowCopying {
			w.scheduleWorkflowStep(wf, to, left)
		}
		w.noteStreams(wf)
		return true, nil
	}
	if vw.frozen {
		return false, unprocessable("workflow %s is frozen: its lookup vindex is externalized; internalize it to run the workflow again", vw.name)
	}
	if vw.stoppedAfterCopy(now) {
		vw.ranOn, vw.updated = true, now
		return true, nil
	}
	if !vw.stopped && vw.errMsg == "" {
		return false, nil
	}
	vw.stopped, vw.errMsg, vw.updated = false, "", now
	if vw.copyLeft > 0 {
		w.clock.After(vw.copyLeft, vrCopyJob{vw.target.branch, vw})
		vw.copyDue, vw.copyLeft = now.Add(vw.copyLeft), 0
	}
	return true, nil
}

// workflowStoppable are the documented states whose streams stop: those
// that copy or keep the target in step, not a step in progress.
var workflowStoppable = []platform.WorkflowState{
	platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowRunning, platform.WorkflowVerifiedData,
	platform.WorkflowSwitchedReplicas, platform.WorkflowReversedCutover,
}

// joinWorkflowStates names states for a refusal: "a, b or c".
func joinWorkflowStates(states []platform.WorkflowState) string {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newDocVRWorkflow makes the VReplication workflow of a documented
// workflow, with its options.
func (w *world) newDocVRWorkflow(wf *workflowRec, opts vrOptions) *vrWorkflow {
	tables := make([]vrTable, len(wf.tables))
	for i, t := range wf.tables {
		tables[i] = vrTable{name: t}
	}
	opts.deferSecondaryKeys, opts.onDDL = wf.deferSecondaryKeys, string(wf.onDDL)
	if wf.global != nil {
		opts.globalKeyspace = wf.global.name
	}
	vw := w.newVRWorkflow(wf.branch, vrSpec{name: wf.name, kind: vrMoveTables, source: wf.source, target: wf.target, tables: tables, opts: opts, doc: wf})
	w.syncMoveTablesRules(wf)
	return vw
}

// The checks of a workflow's keyspaces and tables, which the documented
// workflows and MoveTables share.

// workflowOnDDLs are the values on_ddl takes.
var workflowOnDDLs = []platform.WorkflowOnDDL{platform.OnDDLIgnore, platform.OnDDLStop, platform.OnDDLExec, platform.OnDDLExecIgnore}

// workflowKeyspace finds the ready keyspace a field of create_workflow
// names.
func workflowKeyspace(b *branchRec, field, name string) (*keyspaceRec, error) {
	if name == "" {
		return nil, unprocessable("%s is required", field)
	}
	ks := b.keyspace(name)
	switch {
	case ks == nil:
		return nil, unprocessable("%s %q is not a keyspace of branch %s", field, name, b.name)
	case !ks.ready:
		return nil, unprocessable("%s %s is not ready yet", field, name)
	}
	return ks, nil
}

// checkWorkflowTables checks the tables a workflow is to move: at least
// one, each once, each in the source keyspace and not in the target.
func checkWorkflowTables(b *branchRec, source, target *keyspaceRec, tables []string) error {
	if len(tables) == 0 {
		return unprocessable("tables: name at least one table to move")
	}
	for i, t := range tables {
		switch {
		case slices.Contains(tables[:i], t):
			return unprocessable("tables: %q is named twice", t)
		case source.tables[t] == "":
			return unprocessable("table %q is not in keyspace %s of branch %s", t, source.name, b.name)
		case target.tables[t] != "":
			return unprocessable("table %q is in keyspace %s already", t, target.name)
		}
	}
	return nil
}

// checkWorkflowSource refuses to complete wf when a table it moves was
// dropped from its source keyspace since it was created.
func checkWorkflowSource(wf *workflowRec) error {
	for _, t := range wf.tables {
		if wf.source.tables[t] == "" {
			return unprocessable("table %q is not in keyspace %s of branch %s: it was dropped since workflow %s was created", t, wf.source.name, wf.branch.name, wf.name)
		}
	}
	return nil
}

// Routing rules of MoveTables.

// syncMoveTablesRules writes the routing rules of a MoveTables workflow
// into its branch's routing-rules document (the one both routing-rule
// endpoints show): while it is active, each table (bare, qualified with
// the source and with the target keyspace, and for @replica and @rdonly)
// routes to the keyspace serving that kind of traffic: the source, the
// target for reads once replicas are switched, the target for all once
// primaries are. When it completes or is cancelled, its rules go. Rules
// of other tables are kept as they are.
func (w *world) syncMoveTablesRules(wf *workflowRec) {
	b := wf.branch
	doc := map[string]any{}
	if err := json.Unmarshal([]byte(b.routingRulesText()), &doc); err != nil {
		return // checked when set and restored; vtctld_get_routing_rules names a defect
	}
	rules, _ := doc["rules"].([]any)
	mine := func(from string) bool {
		name, _, _ := strings.Cut(from, "@")
		if ks, t, ok := strings.Cut(name, "."); ok {
			return (ks == wf.source.name || ks == wf.target.name) && slices.Contains(wf.tables, t)
		}
		return slices.Contains(wf.tables, name)
	}
	kept := []any{}
	for _, r := range rules {
		if m, ok := r.(map[string]any); ok {
			if from, _ := m["from_table"].(string); mine(from) {
				continue
			}
		}
		kept = append(kept, r)
	}
	if wf.active() {
		for _, t := range wf.tables {
			for _, suffix := range []string{"", "@replica", "@rdonly"} {
				to := wf.source.name
				if wf.primariesSwitched || (suffix != "" && wf.replicasSwitched) {
					to = wf.target.name
				}
				for _, from := range []string{t, wf.source.name + "." + t, wf.target.name + "." + t} {
					if from == to+"."+t {
						continue // a keyspace's own table routes to itself
					}
					kept = append(kept, map[string]any{"from_table": from + suffix, "to_tables": []any{to + "." + t}})
				}
			}
		}
	}
	if len(rules) == 0 && len(kept) == 0 {
		return // nothing was routed, nothing is
	}
	doc["rules"] = kept
	b.x().routingRules = marshalIndented(doc)
}

// marshalIndented renders a decoded JSON document as the fake keeps
// documents: indented by two spaces.
func marshalIndented(doc map[string]any) string {
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("marshalIndented of decoded JSON: %v", err))
	}
	return string(out)
}

// VSchema entries of MoveTables: a keyspace with the default VSchema
// follows its tables already; a VSchema of its own gains (the target, at
// create) or loses (the source at complete, the target at cancel) each
// table's entry.

// editVSchema changes ks's VSchema of its own with fn; a default VSchema
// is left as it is.
func (w *world) editVSchema(ks *keyspaceRec, fn func(doc, entries map[string]any)) {
	text := ks.more.read().vschema
	if text == "" {
		return
	}
	doc := map[string]any{}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return // checked when set and restored
	}
	entries, _ := doc["tables"].(map[string]any)
	if entries == nil {
		entries = map[string]any{}
	}
	fn(doc, entries)
	doc["tables"] = entries
	ks.x().vschema = marshalIndented(doc)
	ks.updated = w.clock.Now()
}

// dropVSchemaTables removes tables' entries from ks's VSchema.
func (w *world) dropVSchemaTables(ks *keyspaceRec, tables []string) {
	w.editVSchema(ks, func(_, entries map[string]any) {
		for _, t := range tables {
			delete(entries, t)
		}
	})
}

// addVSchemaTables adds an entry for each of tables that target's
// VSchema lacks: with a hash vindex on the first primary-key column of
// the table in target's schema when target is sharded, as the default
// has, and the hash vindex defined when it is not.
func (w *world) addVSchemaTables(target *keyspaceRec, tables []string) {
	w.editVSchema(target, func(doc, entries map[string]any) {
		for _, t := range tables {
			if _, ok := entries[t]; ok {
				continue
			}
			if !target.sharded() {
				entries[t] = map[string]any{}
				continue
			}
			entries[t] = map[string]any{"column_vindexes": []any{map[string]any{"column": primaryKeyColumn(target.tables[t]), "name": "hash"}}}
			vindexes, _ := doc["vindexes"].(map[string]any)
			if vindexes == nil {
				vindexes = map[string]any{}
				doc["vindexes"] = vindexes
			}
			if _, ok := vindexes["hash"]; !ok {
				vindexes["hash"] = map[string]any{"type": "hash"}
			}
		}
	})
}

// Rendering: vtctldata.Workflow.

// protoLocation is vtctldata.Workflow.ReplicationLocation.
type protoLocation struct {
	Keyspace string   `json:"keyspace,omitempty"`
	Shards   []string `json:"shards,omitempty"`
}

// protoRule is binlogdata.Rule.
type protoRule struct {
	Match  string `json:"match,omitempty"`
	Filter string `json:"filter,omitempty"`
}

// protoFilter is binlogdata.Filter.
type protoFilter struct {
	Rules        []protoRule `json:"rules,omitempty"`
	WorkflowType string      `json:"workflow_type,omitempty"` // int64
	WorkflowName string      `json:"workflow_name,omitempty"`
}

// protoBinlogSource is binlogdata.BinlogSource.
type protoBinlogSource struct {
	Keyspace       string         `json:"keyspace,omitempty"`
	Shard          string         `json:"shard,omitempty"`
	KeyRange       *protoKeyRange `json:"key_range,omitempty"`
	Filter         *protoFilter   `json:"filter,omitempty"`
	OnDDL          string         `json:"on_ddl,omitempty"`
	StopAfterCopy  bool           `json:"stop_after_copy,omitempty"`
	SourceTimeZone string         `json:"source_time_zone,omitempty"`
	TargetTimeZone string         `json:"target_time_zone,omitempty"`
}

// protoCopyState is vtctldata.Workflow.Stream.CopyState.
type protoCopyState struct {
	Table    string `json:"table,omitempty"`
	LastPK   string `json:"last_pk,omitempty"`
	StreamID string `json:"stream_id,omitempty"` // int64
}

// protoStream is vtctldata.Workflow.Stream.
type protoStream struct {
	ID                   string             `json:"id,omitempty"` // int64
	Shard                string             `json:"shard,omitempty"`
	Tablet               *protoAlias        `json:"tablet,omitempty"`
	BinlogSource         *protoBinlogSource `json:"binlog_source,omitempty"`
	Position             string             `json:"position,omitempty"`
	StopPosition         string             `json:"stop_position,omitempty"`
	State                string             `json:"state,omitempty"`
	DBName               string             `json:"db_name,omitempty"`
	TransactionTimestamp *protoTime         `json:"transaction_timestamp,omitempty"`
	TimeUpdated          *protoTime         `json:"time_updated,omitempty"`
	Message              string             `json:"message,omitempty"`
	CopyStates           []protoCopyState   `json:"copy_states,omitempty"`
	Logs                 []protoLog         `json:"logs,omitempty"`
	RowsCopied           string             `json:"rows_copied,omitempty"` // int64
	TabletTypes          []string           `json:"tablet_types,omitempty"`
	Cells                []string           `json:"cells,omitempty"`
}

// protoShardStream is vtctldata.Workflow.ShardStream.
type protoShardStream struct {
	Streams          []protoStream        `json:"streams,omitempty"`
	TabletControls   []protoTabletControl `json:"tablet_controls,omitempty"`
	IsPrimaryServing bool                 `json:"is_primary_serving,omitempty"`
}

// protoWorkflowOptions is vtctldata.WorkflowOptions.
type protoWorkflowOptions struct {
	TenantID                     string `json:"tenant_id,omitempty"`
	ShardedAutoIncrementHandling string `json:"sharded_auto_increment_handling,omitempty"`
	GlobalKeyspace               string `json:"global_keyspace,omitempty"`
}

// protoWorkflow is vtctldata.Workflow.
type protoWorkflow struct {
	Name               string                       `json:"name,omitempty"`
	Source             *protoLocation               `json:"source,omitempty"`
	Target             *protoLocation               `json:"target,omitempty"`
	MaxVReplicationLag string                       `json:"max_v_replication_lag,omitempty"` // int64
	ShardStreams       map[string]*protoShardStream `json:"shard_streams,omitempty"`
	WorkflowType       string                       `json:"workflow_type,omitempty"`
	WorkflowSubType    string                       `json:"workflow_sub_type,omitempty"`
	DeferSecondaryKeys bool                         `json:"defer_secondary_keys,omitempty"`
	Options            *protoWorkflowOptions        `json:"options,omitempty"`
}

// protoLog is vtctldata.Workflow.Stream.Log.
type protoLog struct {
	ID        string     `json:"id,omitempty"`        // int64
	StreamID  string     `json:"stream_id,omitempty"` // int64
	Type      string     `json:"type,omitempty"`
	State     string     `json:"state,omitempty"`
	CreatedAt *protoTime `json:"created_at,omitempty"`
	UpdatedAt *protoTime `json:"updated_at,omitempty"`
	Message   string     `json:"message,omitempty"`
	Count     string     `json:"count,omitempty"` // int64
}

// addStreamLogs adds each stream's log to doc, vw's rendering: the
// stream's creation and, once its state changed, the change.
func addStreamLogs(doc *protoWorkflow, vw *vrWorkflow) {
	for _, ss := range doc.ShardStreams {
		for i := range ss.Streams {
			st := &ss.Streams[i]
			created := newProtoTime(vw.created)
			st.Logs = []protoLog{{ID: "1", StreamID: st.ID, Type: "Stream Created", State: vrStopped, CreatedAt: created, UpdatedAt: created, Message: vw.kind + " workflow " + vw.name + " created", Count: "1"}}
			if vw.updated.After(vw.created) || st.State != vrStopped {
				at := newProtoTime(vw.updated)
				st.Logs = append(st.Logs, protoLog{ID: "2", StreamID: st.ID, Type: "State Changed", State: st.State, CreatedAt: at, UpdatedAt: at, Message: st.Message, Count: "1"})
			}
		}
	}
}

// protoTabletInfo is the TabletInfo of a vtctldata create, update or
// delete response.
type protoTabletInfo struct {
	Tablet  *protoAlias `json:"tablet,omitempty"`
	Created bool        `json:"created,omitempty"`
	Changed bool        `json:"changed,omitempty"`
	Deleted bool        `json:"deleted,omitempty"`
}

// protoTabletsResponse is vtctldata.MoveTablesCreateResponse,
// WorkflowUpdateResponse or WorkflowDeleteResponse.
type protoTabletsResponse struct {
	Summary string            `json:"summary,omitempty"`
	Details []protoTabletInfo `json:"details,omitempty"`
}

// targetPrimaries lists the primaries of vw's target shards.
func targetPrimaries(target *keyspaceRec, shards []string) []*protoAlias {
	var out []*protoAlias
	for _, s := range shards {
		for _, t := range shardTablets(target, s) {
			if t.tabletType == platform.TabletPrimary {
				out = append(out, &protoAlias{Cell: t.alias.Cell, UID: t.alias.UID})
			}
		}
	}
	return out
}

// vrStream is one stream of a workflow: into a target shard from a
// source shard.
type vrStream struct {
	id                  int
	targetShard, source string
}

// streams lists vw's streams, by target shard, numbered from 1 within
// each.
func (vw *vrWorkflow) streams() []vrStream {
	var out []vrStream
	for _, ts := range vw.targetShards {
		for i, ss := range vw.sourceShards {
			out = append(out, vrStream{id: i + 1, targetShard: ts, source: ss})
		}
	}
	return out
}

// vrWorkflowTypeNumber is a kind's binlogdata.VReplicationWorkflowType
// number, as binlogdata.Filter shows it.
func vrWorkflowTypeNumber(kind string) string {
	switch kind {
	case vrMoveTables:
		return "1"
	case vrCreateLookupIndex:
		return "2"
	}
	return "" // Materialize is 0, left out
}

// vrPosition is the replication position a stream of source shard has
// reached at now: a GTID set of the source shard's primary server.
func vrPosition(ks *keyspaceRec, shard string, since, now time.Time) string {
	h := fnv.New32a()
	h.Write([]byte(ks.id + "/" + shard))
	u := h.Sum32()
	n := 1 + max(int64(now.Sub(since)/time.Second), 0)
	return fmt.Sprintf("MySQL56/%08x-%04x-%04x-%04x-%012x:1-%d", u, u>>16, u&0xffff, (u>>8)&0xffff, uint64(u)*7919, n)
}

// renderVRWorkflow renders vw as vtctldata.Workflow at now.
func renderVRWorkflow(vw *vrWorkflow, now time.Time, t *Timings) *protoWorkflow {
	state, share := vw.phase(now, t)
	out := &protoWorkflow{
		Name:               vw.name,
		Source:             &protoLocation{Keyspace: vw.source.name, Shards: vw.sourceShards},
		Target:             &protoLocation{Keyspace: vw.target.name, Shards: vw.targetShards},
		ShardStreams:       map[string]*protoShardStream{},
		WorkflowType:       vw.kind,
		WorkflowSubType:    "None",
		DeferSecondaryKeys: vw.opts.deferSecondaryKeys,
	}
	if vw.opts.atomicCopy {
		out.WorkflowSubType = "AtomicCopy"
	}
	if o := vw.opts; o.tenantID != "" || o.autoIncrement != "" && o.autoIncrement != "LEAVE" || o.globalKeyspace != "" {
		out.Options = &protoWorkflowOptions{TenantID: o.tenantID, GlobalKeyspace: o.globalKeyspace}
		if o.autoIncrement != "LEAVE" {
			out.Options.ShardedAutoIncrementHandling = o.autoIncrement
		}
	}
	msg := ""
	switch {
	case state == vrError && vw.doc != nil:
		msg = vw.doc.errors
	case state == vrError:
		msg = vw.errMsg
	case state == vrStopped && vw.frozen:
		msg = "FROZEN"
	case state == vrStopped && !vw.stopped && vw.doc == nil:
		msg = "Stopped after copy"
	case state == vrStopped:
		msg = "Stopped"
	}
	updated := vw.updated
	if state == vrRunning || state == vrCopying {
		updated = now
	}
	refs := vw.target.referenceTables()
	for _, s := range vw.streams() {
		key := vw.target.name + "/" + s.targetShard
		ss := out.ShardStreams[key]
		if ss == nil {
			ss = &protoShardStream{IsPrimaryServing: true}
			for _, tc := range vw.target.branch.more.read().vitess.state(vw.target, s.targetShard).controls {
				if len(tc.deniedTables) > 0 {
					ss.TabletControls = append(ss.TabletControls, protoTabletControl{TabletType: protoTabletType(tc.tabletType), Cells: tc.cells, DeniedTables: tc.deniedTables})
				}
				if tc.tabletType == platform.TabletPrimary && tc.disableQueryService {
					ss.IsPrimaryServing = false
				}
			}
			out.ShardStreams[key] = ss
		}
		st := protoStream{
			ID: itoa(s.id), Shard: s.targetShard, State: state, DBName: "vt_" + vw.target.name,
			BinlogSource: vw.binlogSource(s, refs),
			Position:     vrPosition(vw.source, s.source, vw.created, now),
			TimeUpdated:  newProtoTime(updated), TransactionTimestamp: newProtoTime(updated),
			Message:    msg,
			RowsCopied: vrRows(len(vw.tables), share),
			Cells:      vw.opts.cells,
		}
		if st.RowsCopied == "0" {
			st.RowsCopied = ""
		}
		for _, tt := range vw.opts.tabletTypes {
			st.TabletTypes = append(st.TabletTypes, protoTabletType(tt))
		}
		for _, ta := range shardTablets(vw.target, s.targetShard) {
			if ta.tabletType == platform.TabletPrimary {
				st.Tablet = &protoAlias{Cell: ta.alias.Cell, UID: ta.alias.UID}
			}
		}
		if share < 1 {
			done := int(share * float64(len(vw.tables)))
			for _, tbl := range vw.tables[done:] {
				st.CopyStates = append(st.CopyStates, protoCopyState{Table: tbl.name, StreamID: itoa(s.id)})
			}
		}
		ss.Streams = append(ss.Streams, st)
	}
	return out
}

// vrRows is how many rows a stream copying n tables has copied at share.
func vrRows(n int, share float64) string {
	return fmt.Sprint(int64(share * float64(n*vrRowsPerTable)))
}

// binlogSource is what stream s replicates: its source shard, each
// table's rule (a sharded target's stream keeps the rows of its shard's
// key range, but of the target's reference tables, refs, which every
// shard copies whole).
func (vw *vrWorkflow) binlogSource(s vrStream, refs map[string]bool) *protoBinlogSource {
	src := &protoBinlogSource{
		Keyspace: vw.source.name, Shard: s.source,
		Filter:         &protoFilter{WorkflowType: vrWorkflowTypeNumber(vw.kind), WorkflowName: vw.name},
		StopAfterCopy:  vw.opts.stopAfterCopy,
		SourceTimeZone: vw.opts.sourceTimeZone,
	}
	if vw.opts.onDDL != "" && vw.opts.onDDL != string(platform.OnDDLIgnore) {
		src.OnDDL = vw.opts.onDDL
	}
	if vw.opts.sourceTimeZone != "" {
		src.TargetTimeZone = "UTC"
	}
	for _, t := range vw.tables {
		filter := t.filter
		if filter == "" {
			filter = "select * from `" + t.name + "`"
			// A reference table is whole on every shard.
			if len(vw.targetShards) > 1 && !refs[t.name] {
				filter += " where in_keyrange('" + s.targetShard + "')"
			}
		}
		src.Filter.Rules = append(src.Filter.Rules, protoRule{Match: t.name, Filter: filter})
	}
	return src
}
