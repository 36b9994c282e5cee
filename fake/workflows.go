package fake

import (
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// workflowRec is a workflow that moves tables between two keyspaces of a
// branch. Its state table is in docs/fake-behaviour.md (Workflows).
type workflowRec struct {
	stamps
	db                     *dbRec
	number                 int
	name                   string
	branch                 *branchRec
	source, target, global *keyspaceRec // global is nil when none was named
	tables                 []string
	// rows are the copy's progress of each of tables, in the same order.
	rows []workflowTable
	// streams are its streams and streamLog their changes, oldest first;
	// vdiff is its latest data verification, nil before the first (see
	// workflows_streams.go).
	streams            []workflowStream
	streamLog          []streamEvent
	vdiff              *workflowVDiff
	deferSecondaryKeys bool
	onDDL              platform.WorkflowOnDDL
	state              platform.WorkflowState
	// failedFrom is the state whose step failed, which retry resumes; ""
	// outside the error state.
	failedFrom platform.WorkflowState
	errors     string
	// stepDue is when the step on the clock that leaves its state ends;
	// a job of that step due earlier was overtaken (the workflow was
	// stopped and started again) and does nothing. While stopped,
	// resume is the state to go back to and stepLeft what was left of
	// its step (see vreplication.go).
	stepDue  time.Time
	stepGen  uint64 // counts the steps scheduled; a job of an older one is stale
	resume   platform.WorkflowState
	stepLeft time.Duration
	// vr is its VReplication workflow while it is active.
	vr *vrWorkflow

	replicasSwitched, primariesSwitched, sequenceTablesApplied bool

	started, copied, verified, switchedReplicas, switchedPrimaries time.Time
	cutoverAt, reversed, retried, completed, cancelled             time.Time

	actor, verifyBy, reversedBy, switchReplicasBy, switchPrimariesBy  *userRec
	cancelledBy, completedBy, retriedBy, cutoverBy, reversedCutoverBy *userRec
}

// workflowTable is the copy of one table of a workflow (its name is the
// workflow's tables at the same index): its rows, as its VReplication
// streams copy them (vrRowsPerTable of each stream, the rows the
// MoveTables status counts), and how many were copied when, as they stood
// when the workflow last left its copy step (see workflowRec.tableCopy).
type workflowTable struct {
	id      string
	total   int64
	copied  int64
	updated time.Time
}

// tableCopy is the copy of table i at now: rows copied and when that last
// changed. While the workflow copies, its tables copy one after another
// over the copy step, as its streams do (copyPart); otherwise they keep
// what they had when it last left the step (settleTables).
func (wf *workflowRec) tableCopy(i int, now time.Time, copyTime time.Duration) (int64, time.Time) {
	t := wf.rows[i]
	if wf.state != platform.WorkflowCopying {
		return t.copied, t.updated
	}
	n := len(wf.rows)
	part := copyPart(copyShare(wf.stepDue.Sub(now), copyTime), i, n)
	copied := int64(part * float64(t.total))
	switch {
	case copied <= t.copied:
		return t.copied, t.updated
	case part < 1:
		return copied, now
	}
	// Copied in this stretch of the step: when its share was reached.
	done := wf.stepDue.Add(-time.Duration(float64(copyTime) * float64(n-i-1) / float64(n)))
	if done.Before(t.updated) {
		done = t.updated
	}
	if done.After(now) {
		done = now
	}
	return copied, done
}

// settleTables keeps the copy of wf's tables as it stands, before wf
// leaves its copy step (done, stopped or cancelled; failed, see
// failTableCopy).
func (w *world) settleTables(wf *workflowRec) {
	now := w.clock.Now()
	for i := range wf.rows {
		wf.rows[i].copied, wf.rows[i].updated = wf.tableCopy(i, now, w.timing.WorkflowCopy)
	}
}

// failTableCopy drops the rows wf's failed copy step copied: the streams
// show none copied (vrWorkflow.phase), and a retry copies every table
// again.
func (w *world) failTableCopy(wf *workflowRec) {
	w.settleTables(wf)
	for i := range wf.rows {
		if wf.rows[i].copied > 0 {
			wf.rows[i].copied, wf.rows[i].updated = 0, w.clock.Now()
		}
	}
}

// newWorkflowTables are the tables of a new workflow wf with its
// VReplication workflow vw, none copied.
func (w *world) newWorkflowTables(wf *workflowRec, vw *vrWorkflow) []workflowTable {
	out := make([]workflowTable, len(wf.tables))
	for i := range out {
		out[i] = workflowTable{id: w.newID(), total: int64(vrRowsPerTable * len(vw.streams())), updated: wf.created}
	}
	return out
}

// workflowStore holds a database's workflows, numbered from 1. A
// database has none until its first workflow (most never have one): its
// store is made then (see lazy), and the methods read a nil store, which
// dbRec.workflows.peek returns before, as empty.
type workflowStore struct {
	list     index[*workflowRec]
	byNumber map[int]*workflowRec
	last     int // the number of the newest
}

// addWorkflow files wf under its number, making db's store if need be.
func (db *dbRec) addWorkflow(wf *workflowRec) {
	st := db.workflows.get()
	if st.byNumber == nil {
		st.byNumber = map[int]*workflowRec{}
	}
	st.list.Add(wf)
	st.byNumber[wf.number] = wf
	st.last = max(st.last, wf.number)
}

// all returns the workflows in list order.
func (st *workflowStore) all() []*workflowRec {
	if st == nil {
		return nil
	}
	return st.list.All()
}

// get finds workflow number n; nil when there is none.
func (st *workflowStore) get(n int) *workflowRec {
	if st == nil {
		return nil
	}
	return st.byNumber[n]
}

// next is the number of the next workflow.
func (st *workflowStore) next() int {
	if st == nil {
		return 1
	}
	return st.last + 1
}

// index is the list to cut pages from.
func (st *workflowStore) index() *index[*workflowRec] {
	if st == nil {
		return &index[*workflowRec]{}
	}
	return &st.list
}

// active reports whether wf has not ended.
func (wf *workflowRec) active() bool { return !wf.state.IsTerminal() }

func workflowRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/workflows", op: "list_workflows", handler: read(listWorkflows)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/workflows", op: "create_workflow", handler: withBody(createWorkflow)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/workflows/{number}", op: "get_workflow", handler: read(onWorkflow(nil))},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/workflows/{number}", op: "workflow_cancel", handler: act(onWorkflow((*world).cancelWorkflow))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/complete", op: "workflow_complete", handler: act(onWorkflow((*world).completeWorkflow))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/cutover", op: "workflow_cutover", handler: act(onWorkflow(cutoverWorkflow.start))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/retry", op: "workflow_retry", handler: act(onWorkflow((*world).retryWorkflow))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/reverse-cutover", op: "workflow_reverse_cutover", handler: act(onWorkflow((*world).reverseCutover))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/reverse-traffic", op: "workflow_reverse_traffic", handler: act(onWorkflow(reverseTraffic.start))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/switch-primaries", op: "workflow_switch_primaries", handler: act(onWorkflow(switchPrimaries.start))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/switch-replicas", op: "workflow_switch_replicas", handler: act(onWorkflow(switchReplicas.start))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/workflows/{number}/verify-data", op: "verify_workflow", handler: act(onWorkflow(verifyWorkflow.start))},
	}
}

// onWorkflow adapts a handler of one workflow: it finds the path's
// {number}, runs fn (nil for a read) and renders the workflow fn leaves.
func onWorkflow(fn func(w *world, who *principal, wf *workflowRec) error) func(c *call) (any, error) {
	return func(c *call) (any, error) {
		n, ok := resourceNumber(c.r.PathValue("number"))
		if !ok {
			return nil, notFound()
		}
		wf := c.db.workflows.peek().get(n)
		if wf == nil {
			return nil, notFound()
		}
		if fn != nil {
			if err := fn(c.w, c.who, wf); err != nil {
				return nil, err
			}
		}
		return c.w.renderWorkflow(wf), nil
	}
}

func listWorkflows(c *call) (any, error) {
	from, to, err := rangeQuery(c.r.URL.Query().Get("between"), "between")
	if err != nil {
		return nil, err
	}
	if from.IsZero() {
		return pageOf(c, c.db.workflows.peek().index(), false, c.w.renderWorkflow), nil
	}
	keep := func(wf *workflowRec) bool {
		end := wf.ended()
		return !wf.created.After(to) && (end.IsZero() || !end.Before(from))
	}
	return filteredPageOf(c, c.db.workflows.peek().index(), false, keep, c.w.renderWorkflow), nil
}

// ended is when wf completed or was cancelled; zero while it is active.
func (wf *workflowRec) ended() time.Time {
	if wf.state == platform.WorkflowCompleted {
		return wf.completed
	}
	return wf.cancelled
}

// createWorkflowBody is the body of create_workflow: the SDK's params,
// which name the branch branch_name as the service's own clients do, and
// branch, the name earlier versions of the SDK sent.
type createWorkflowBody struct {
	platform.CreateWorkflowParams
	OldBranch *string `json:"branch,omitempty"`
}

// check takes branch for branch_name, and refuses the two naming
// different branches.
func (b *createWorkflowBody) check() *apiError {
	switch {
	case b.OldBranch == nil:
	case b.Branch == nil:
		b.Branch = b.OldBranch
	case *b.Branch != *b.OldBranch:
		return unprocessable("branch_name %q and branch %q name different branches; send branch_name only", *b.Branch, *b.OldBranch)
	}
	return nil
}

func createWorkflow(c *call, body *createWorkflowBody) (any, error) {
	p := &body.CreateWorkflowParams
	db := c.db
	if db.kind != platform.KindMySQL {
		return nil, unprocessable("workflows are for mysql databases; %s is %s", db.name, db.kind)
	}
	branchName := db.defaultBranch
	if p.Branch != nil {
		branchName = *p.Branch
	}
	b := db.branch(branchName)
	switch {
	case b == nil:
		return nil, unprocessable("branch %q is not a branch of %s", branchName, db.name)
	case !b.ready:
		return nil, unprocessable("branch %s is not ready yet", b.name)
	case strings.TrimSpace(p.Name) == "":
		return nil, unprocessable("name is required")
	case len(p.Name) > maxNameLen:
		return nil, unprocessable("name %q is longer than %d characters", p.Name, maxNameLen)
	case p.OnDDL != nil && !slices.Contains(workflowOnDDLs, *p.OnDDL):
		return nil, unprocessable("on_ddl %q is not one of IGNORE, STOP, EXEC, EXEC_IGNORE", *p.OnDDL)
	}
	source, err := workflowKeyspace(b, "source_keyspace", p.SourceKeyspace)
	if err != nil {
		return nil, err
	}
	target, err := workflowKeyspace(b, "target_keyspace", p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	if source == target {
		return nil, unprocessable("source_keyspace and target_keyspace are both %q; a workflow moves tables between two keyspaces", source.name)
	}
	var global *keyspaceRec
	// An empty global keyspace is none: the service's official
	// command-line tool sends "" when --global-keyspace is not given.
	if p.GlobalKeyspace != nil && *p.GlobalKeyspace != "" {
		if global, err = workflowKeyspace(b, "global_keyspace", *p.GlobalKeyspace); err != nil {
			return nil, err
		}
	}
	if err := checkWorkflowTables(b, source, target, p.Tables); err != nil {
		return nil, err
	}
	for _, other := range db.workflows.peek().all() {
		if !other.active() || other.branch != b {
			continue
		}
		if other.name == p.Name {
			return nil, unprocessable("name %q is taken by workflow #%d, which is %s", p.Name, other.number, other.state)
		}
		for _, t := range p.Tables {
			if slices.Contains(other.tables, t) {
				return nil, unprocessable("table %q is already moving in workflow #%d, which is %s", t, other.number, other.state)
			}
		}
	}
	wf := &workflowRec{
		stamps: stamps{id: c.w.newID(), created: c.now, updated: c.now},
		db:     db, number: db.workflows.peek().next(), name: p.Name, branch: b,
		source: source, target: target, global: global,
		tables: slices.Clone(p.Tables),
		onDDL:  platform.OnDDLIgnore,
		state:  platform.WorkflowPending,
		actor:  c.who.user,
	}
	setIf(&wf.deferSecondaryKeys, p.DeferSecondaryKeys)
	setIf(&wf.onDDL, p.OnDDL)
	c.w.addWorkflow(wf, vrOptions{autoStart: true})
	return c.w.renderWorkflow(wf), nil
}

// addWorkflow files a new pending workflow with its VReplication
// workflow (see vreplication.go) and starts it on the clock.
func (w *world) addWorkflow(wf *workflowRec, opts vrOptions) {
	wf.db.addWorkflow(wf)
	w.startFlight(wf.id)
	vw := w.newDocVRWorkflow(wf, opts)
	wf.rows = w.newWorkflowTables(wf, vw)
	w.newWorkflowStreams(wf, vw)
	w.workflowStep(wf, platform.WorkflowPending, w.timing.WorkflowStart)
	w.createTargetTables(wf)
}

// createTargetTables creates the tables of wf, a new workflow, in its
// target keyspace, as Vitess's MoveTables copies the schema before its
// streams start: each table's definition in the source, and its entry in
// the target's VSchema (addVSchemaTables). The branch's schema changes.
func (w *world) createTargetTables(wf *workflowRec) {
	dst := cloneMap(wf.target.tables)
	for _, t := range wf.tables {
		dst[t] = wf.source.tables[t]
	}
	wf.target.tables = dst
	w.addVSchemaTables(wf.target, wf.tables)
	w.workflowSchemaChanged(wf)
}

// dropTargetTables drops the tables of wf, cancelled, from its target
// keyspace's schema and VSchema, as cancelling a MoveTables without
// keep_data does; a table the target no longer has is left alone.
func (w *world) dropTargetTables(wf *workflowRec) {
	dst := cloneMap(wf.target.tables)
	for _, t := range wf.tables {
		delete(dst, t)
	}
	if len(dst) == len(wf.target.tables) {
		return
	}
	wf.target.tables = dst
	w.dropVSchemaTables(wf.target, wf.tables)
	w.workflowSchemaChanged(wf)
}

// workflowSchemaChanged notes that wf changed its branch's schema.
func (w *world) workflowSchemaChanged(wf *workflowRec) {
	now := w.clock.Now()
	wf.branch.schemaUpdated, wf.branch.updated = now, now
	w.schemaChanged(wf.branch, nil)
}

// refuseIn answers an action of wf that its state does not allow, naming
// the state and the states that allow it.
func refuseIn(wf *workflowRec, action string, allowed ...platform.WorkflowState) error {
	names := make([]string, len(allowed))
	for i, st := range allowed {
		names[i] = string(st)
	}
	return unprocessable("workflow #%d is %s; %s needs it %s", wf.number, wf.state, action, strings.Join(names, " or "))
}

// workflowStep moves wf into state to and schedules the step that leaves
// it after d.
func (w *world) workflowStep(wf *workflowRec, to platform.WorkflowState, d time.Duration) {
	wf.state, wf.updated = to, w.clock.Now()
	w.scheduleWorkflowStep(wf, to, d)
	w.noteStreams(wf)
}

// scheduleWorkflowStep schedules the step that takes wf out of state from
// after d; a step scheduled before it is overtaken (see workflowJob).
func (w *world) scheduleWorkflowStep(wf *workflowRec, from platform.WorkflowState, d time.Duration) {
	wf.stepDue = w.clock.Now().Add(d)
	wf.stepGen++
	w.clock.After(d, workflowJob{wf, from, wf.stepGen})
}

// workflowInStep are the states from which traffic may be switched or the
// data verified: every table in step, no traffic switched.
var workflowInStep = []platform.WorkflowState{platform.WorkflowRunning, platform.WorkflowVerifiedData, platform.WorkflowReversedCutover}

// workflowStepAction is an action that starts a step on the clock: allowed in
// the states from, it records its actor in the field by names and moves
// the workflow into state to for the duration dur gives; then, when not
// nil, runs what else the step starts.
type workflowStepAction struct {
	name string
	from []platform.WorkflowState
	to   platform.WorkflowState
	by   func(wf *workflowRec) **userRec
	dur  func(t *Timings) time.Duration
	then func(w *world, wf *workflowRec)
}

// start runs the action for who.
func (a workflowStepAction) start(w *world, who *principal, wf *workflowRec) error {
	if !slices.Contains(a.from, wf.state) {
		return refuseIn(wf, a.name, a.from...)
	}
	*a.by(wf) = who.user
	w.workflowStep(wf, a.to, a.dur(&w.timing))
	if a.then != nil {
		a.then(w, wf)
	}
	return nil
}

// workflowSwitchTime is how long a traffic switch and the like take.
func workflowSwitchTime(t *Timings) time.Duration { return t.WorkflowSwitch }

// The actions that start a step on the clock.
var (
	verifyWorkflow = workflowStepAction{"verify-data", workflowInStep, platform.WorkflowVerifyingData,
		func(wf *workflowRec) **userRec { return &wf.verifyBy }, func(t *Timings) time.Duration { return t.WorkflowVerify }, (*world).newWorkflowVDiff}
	switchReplicas = workflowStepAction{"switch-replicas", workflowInStep, platform.WorkflowSwitchingReplicas,
		func(wf *workflowRec) **userRec { return &wf.switchReplicasBy }, workflowSwitchTime, nil}
	switchPrimaries = workflowStepAction{"switch-primaries", []platform.WorkflowState{platform.WorkflowSwitchedReplicas}, platform.WorkflowSwitchingPrimaries,
		func(wf *workflowRec) **userRec { return &wf.switchPrimariesBy }, workflowSwitchTime, nil}
	reverseTraffic = workflowStepAction{"reverse-traffic", []platform.WorkflowState{platform.WorkflowSwitchedReplicas, platform.WorkflowSwitchedPrimaries}, platform.WorkflowReversingTraffic,
		func(wf *workflowRec) **userRec { return &wf.reversedBy }, workflowSwitchTime, nil}
	cutoverWorkflow = workflowStepAction{"cutover", []platform.WorkflowState{platform.WorkflowSwitchedPrimaries}, platform.WorkflowCuttingOver,
		func(wf *workflowRec) **userRec { return &wf.cutoverBy }, workflowSwitchTime, nil}
)

// reverseCutover sends every kind of traffic back to the source keyspace
// at once; the target stays in step, so the switches may start again.
func (w *world) reverseCutover(who *principal, wf *workflowRec) error {
	if wf.state != platform.WorkflowCutover {
		return refuseIn(wf, "reverse-cutover", platform.WorkflowCutover)
	}
	wf.state, wf.updated = platform.WorkflowReversedCutover, w.clock.Now()
	wf.replicasSwitched, wf.primariesSwitched = false, false
	wf.reversed, wf.reversedCutoverBy = w.clock.Now(), who.user
	w.syncMoveTablesRules(wf)
	return nil
}

// completeWorkflow ends a workflow that has cut over: its tables, which
// the target has had since the workflow was created, go from the source
// keyspace's schema and VSchema. A table dropped from the source since is
// a 422 naming it. A table the target lacks (dropped from it since, or
// restored from a snapshot of a fake that created the tables only at
// completion) gets the source's definition.
func (w *world) completeWorkflow(who *principal, wf *workflowRec) error {
	if wf.state != platform.WorkflowCutover {
		return refuseIn(wf, "complete", platform.WorkflowCutover)
	}
	if wf.source.gone() || wf.target.gone() {
		return unprocessable("workflow #%d: keyspace %s or %s was deleted; cancel the workflow", wf.number, wf.source.name, wf.target.name)
	}
	if err := checkWorkflowSource(wf); err != nil {
		return err
	}
	src, dst := cloneMap(wf.source.tables), cloneMap(wf.target.tables)
	for _, t := range wf.tables {
		if dst[t] == "" {
			dst[t] = src[t]
		}
		delete(src, t)
	}
	wf.source.tables, wf.target.tables = src, dst
	w.dropVSchemaTables(wf.source, wf.tables)
	w.addVSchemaTables(wf.target, wf.tables)
	w.workflowSchemaChanged(wf)
	wf.state, wf.updated = platform.WorkflowCompleted, w.clock.Now()
	wf.completed, wf.completedBy = w.clock.Now(), who.user
	w.endWorkflow(wf)
	return nil
}

// workflowCancellable are the states cancel leaves.
var workflowCancellable = []platform.WorkflowState{
	platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowRunning, platform.WorkflowVerifiedData,
	platform.WorkflowSwitchedReplicas, platform.WorkflowSwitchedPrimaries, platform.WorkflowReversedCutover, platform.WorkflowError,
	platform.WorkflowStopped,
}

// cancelWorkflow cancels wf: straight to cancelling, or through
// reversing_traffic_for_cancel when it has traffic switched.
func (w *world) cancelWorkflow(who *principal, wf *workflowRec) error {
	if !slices.Contains(workflowCancellable, wf.state) {
		return refuseIn(wf, "cancel", workflowCancellable...)
	}
	w.settleTables(wf)
	wf.cancelledBy = who.user
	wf.failedFrom, wf.errors = "", ""
	wf.resume, wf.stepLeft = "", 0
	if wf.replicasSwitched || wf.primariesSwitched {
		w.workflowStep(wf, platform.WorkflowReversingTrafficForCancel, w.timing.WorkflowSwitch)
		return nil
	}
	w.workflowStep(wf, platform.WorkflowCancelling, w.timing.WorkflowSwitch)
	return nil
}

// retryWorkflow resumes wf from the step that failed.
func (w *world) retryWorkflow(who *principal, wf *workflowRec) error {
	if wf.state != platform.WorkflowError {
		return refuseIn(wf, "retry", platform.WorkflowError)
	}
	from := wf.failedFrom
	wf.failedFrom, wf.errors = "", ""
	wf.retried, wf.retriedBy = w.clock.Now(), who.user
	w.workflowStep(wf, from, w.workflowStepTime(from))
	if from == platform.WorkflowVerifyingData && wf.vdiff != nil {
		w.runWorkflowVDiff(wf)
	}
	return nil
}

// workflowStepTime is how long the step that leaves state from takes.
func (w *world) workflowStepTime(from platform.WorkflowState) time.Duration {
	switch from {
	case platform.WorkflowPending:
		return w.timing.WorkflowStart
	case platform.WorkflowCopying:
		return w.timing.WorkflowCopy
	case platform.WorkflowVerifyingData:
		return w.timing.WorkflowVerify
	}
	return w.timing.WorkflowSwitch
}

// advanceWorkflow takes the step on the clock that leaves wf's state.
func (w *world) advanceWorkflow(wf *workflowRec, now time.Time) {
	wf.updated = now
	switch wf.state {
	case platform.WorkflowPending:
		w.workflowStep(wf, platform.WorkflowCopying, w.timing.WorkflowCopy)
		wf.started = now
	case platform.WorkflowCopying:
		wf.state, wf.copied = platform.WorkflowRunning, now
		wf.sequenceTablesApplied = wf.global != nil
		if wf.vr != nil && wf.vr.opts.stopAfterCopy {
			wf.state, wf.resume = platform.WorkflowStopped, platform.WorkflowRunning
		}
	case platform.WorkflowVerifyingData:
		wf.state, wf.verified = platform.WorkflowVerifiedData, now
		w.endWorkflowVDiff(wf, platform.VDiffCompleted)
	case platform.WorkflowSwitchingReplicas:
		wf.state, wf.switchedReplicas, wf.replicasSwitched = platform.WorkflowSwitchedReplicas, now, true
	case platform.WorkflowSwitchingPrimaries:
		wf.state, wf.switchedPrimaries, wf.primariesSwitched = platform.WorkflowSwitchedPrimaries, now, true
	case platform.WorkflowReversingTraffic:
		wf.reversed = now
		if wf.primariesSwitched {
			wf.state, wf.primariesSwitched = platform.WorkflowSwitchedReplicas, false
		} else {
			wf.state, wf.replicasSwitched = platform.WorkflowRunning, false
		}
	case platform.WorkflowCuttingOver:
		wf.state, wf.cutoverAt = platform.WorkflowCutover, now
	case platform.WorkflowReversingTrafficForCancel:
		wf.state, wf.reversed = platform.WorkflowCancelling, now
		wf.replicasSwitched, wf.primariesSwitched = false, false
		w.scheduleWorkflowStep(wf, platform.WorkflowCancelling, w.timing.WorkflowSwitch)
	case platform.WorkflowCancelling:
		wf.state, wf.cancelled = platform.WorkflowCancelled, now
		w.endWorkflow(wf)
		w.dropTargetTables(wf)
		return
	}
	w.syncMoveTablesRules(wf)
	w.noteStreams(wf)
}

// endWorkflow ends wf, completed or cancelled: its VReplication workflow
// and its routing rules go, its streams stop, and a verification still
// running (the branch was deleted) stops.
func (w *world) endWorkflow(wf *workflowRec) {
	wf.resume, wf.stepLeft = "", 0
	w.noteStreams(wf)
	w.endWorkflowVDiff(wf, platform.VDiffStopped)
	if wf.vr != nil {
		w.deleteVRWorkflow(wf.vr)
	}
	w.syncMoveTablesRules(wf)
	w.endFlight(wf.id)
}

// cancelWorkflows cancels the active workflows of b at once, as deleting
// b does.
func (w *world) cancelWorkflows(b *branchRec) {
	now := w.clock.Now()
	for _, wf := range b.db.workflows.peek().all() {
		if wf.branch == b && wf.active() {
			w.settleTables(wf)
			wf.state, wf.updated, wf.cancelled = platform.WorkflowCancelled, now, now
			wf.failedFrom, wf.errors = "", ""
			w.endWorkflow(wf)
		}
	}
}

// activeWorkflow is an active workflow that moves tables from, to or with
// the sequences of ks; nil when none does.
func (ks *keyspaceRec) activeWorkflow() *workflowRec {
	for _, wf := range ks.branch.db.workflows.peek().all() {
		if wf.active() && (wf.source == ks || wf.target == ks || wf.global == ks) {
			return wf
		}
	}
	return nil
}

// workflowFailure is the error of a workflow step whose failure a test
// injected with FailNext.
func workflowFailure(from platform.WorkflowState) string {
	return "the workflow stopped with an error while " + strings.ReplaceAll(string(from), "_", " ")
}

// renderWorkflow renders a workflow as the API shows it now.
func (w *world) renderWorkflow(wf *workflowRec) *platform.Workflow {
	now := w.clock.Now()
	out := &platform.Workflow{
		ID: wf.id, Name: wf.name, Number: wf.number, State: wf.state,
		CreatedAt: platform.NewTimestamp(wf.created), UpdatedAt: platform.NewTimestamp(wf.updated),
		StartedAt: ptrTime(wf.started), CompletedAt: ptrTime(wf.completed), CancelledAt: ptrTime(wf.cancelled),
		ReversedAt: ptrTime(wf.reversed), RetriedAt: ptrTime(wf.retried), DataCopyCompletedAt: ptrTime(wf.copied),
		CutoverAt: ptrTime(wf.cutoverAt), ReplicasSwitched: wf.replicasSwitched, PrimariesSwitched: wf.primariesSwitched,
		SwitchReplicasAt: ptrTime(wf.switchedReplicas), SwitchPrimariesAt: ptrTime(wf.switchedPrimaries),
		VerifyDataAt: ptrTime(wf.verified),

		WorkflowType: platform.WorkflowTypeMoveTables, DeferSecondaryKeys: wf.deferSecondaryKeys, OnDDL: wf.onDDL,
		WorkflowErrors: wf.errors, MayRetry: wf.state == platform.WorkflowError,
		VerifiedDataStale:     !wf.verified.IsZero() && wf.retried.After(wf.verified),
		SequenceTablesApplied: wf.sequenceTablesApplied,

		Actor: renderActor(wf.actor), VerifyDataBy: renderActor(wf.verifyBy), ReversedBy: renderActor(wf.reversedBy),
		SwitchReplicasBy: renderActor(wf.switchReplicasBy), SwitchPrimariesBy: renderActor(wf.switchPrimariesBy),
		CancelledBy: renderActor(wf.cancelledBy), CompletedBy: renderActor(wf.completedBy), RetriedBy: renderActor(wf.retriedBy),
		CutoverBy: renderActor(wf.cutoverBy), ReversedCutoverBy: renderActor(wf.reversedCutoverBy),

		Branch:         renderBranchRef(wf.branch),
		SourceKeyspace: renderKeyspaceRef(wf.source),
		TargetKeyspace: renderKeyspaceRef(wf.target),
	}
	if wf.global != nil {
		out.GlobalKeyspace = renderKeyspaceRef(wf.global)
	}
	out.Streams = w.renderWorkflowStreams(wf, now)
	out.VDiff = w.renderWorkflowVDiff(wf, now)
	out.Tables = make([]platform.WorkflowTable, len(wf.rows))
	for i, t := range wf.rows {
		copied, updated := wf.tableCopy(i, now, w.timing.WorkflowCopy)
		out.Tables[i] = platform.WorkflowTable{
			ID: t.id, Name: wf.tables[i], CreatedAt: platform.NewTimestamp(wf.created), UpdatedAt: platform.NewTimestamp(updated),
			RowsCopied: copied, RowsTotal: t.total, RowsPercentage: int(copied * 100 / max(t.total, 1)),
		}
	}
	return out
}

// renderKeyspaceRef renders the short form of a keyspace.
func renderKeyspaceRef(ks *keyspaceRec) *platform.KeyspaceRef {
	ref := &platform.KeyspaceRef{ID: ks.id, Name: ks.name, CreatedAt: platform.NewTimestamp(ks.created), UpdatedAt: platform.NewTimestamp(ks.updated)}
	if ks.deleted {
		ref.DeletedAt = ptrTime(ks.updated)
	}
	return ref
}
