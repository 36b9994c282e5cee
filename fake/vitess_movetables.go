package fake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// MoveTables: the pass-through of Vitess's MoveTables on the
// VReplication model (vreplication.go). Each action is checked when it
// is asked for (a refusal is a 422 naming the state or field, and
// changes nothing), then runs as an operation of the control plane
// (vitess.go): pending for Timings.VitessOperationStart, running for
// Timings.MoveTablesAction, then completed with the Vitess response as
// its result, once the action, checked again, applied. An action whose
// check fails by then (the state moved on meanwhile), or whose failure a
// test injected with FailNext, fails and changes nothing. One action at a
// time runs on a workflow.
//
// A MoveTables workflow is a documented workflow (workflows.go): create
// numbers one, owned by the caller; switch and reverse traffic move it
// between running, switched_replicas and switched_primaries (reads are
// replica and rdonly together, writes are primary, and writes switch
// after reads and reverse before them); cancel ends it cancelled
// (refused while traffic is switched), its tables dropped from the
// target keyspace unless keep_data; complete ends it completed, its
// tables dropped from the source keyspace's schema and VSchema. The
// tables are in the target's schema and VSchema from create on
// (createTargetTables), as Vitess copies the schema before the streams
// start.

func vitessMoveTablesRoutes() []route {
	const wfs = "/v1/organizations/{organization}/databases/{database}/branches/{branch}/move-tables/workflows"
	return []route{
		{pattern: "POST " + wfs, op: "move_tables_create", handler: withBody(moveTablesCreate)},
		{pattern: "GET " + wfs + "/{workflow}", op: "move_tables_show", handler: read(moveTablesShow)},
		{pattern: "GET " + wfs + "/{workflow}/status", op: "move_tables_status", handler: read(moveTablesStatus)},
		{pattern: "POST " + wfs + "/{workflow}/switch-traffic", op: "move_tables_switch_traffic", handler: withBody(moveTablesSwitchTraffic)},
		{pattern: "POST " + wfs + "/{workflow}/reverse-traffic", op: "move_tables_reverse_traffic", handler: withBody(moveTablesReverseTraffic)},
		{pattern: "POST " + wfs + "/{workflow}/cancel", op: "move_tables_cancel", handler: withBody(moveTablesCancel)},
		{pattern: "POST " + wfs + "/{workflow}/complete", op: "move_tables_complete", handler: withBody(moveTablesComplete)},
	}
}

// mtActions are the actions of MoveTables operations.
var mtActions = []string{
	platform.VitessActionMoveTablesCreate, platform.VitessActionMoveTablesSwitchTraffic, platform.VitessActionMoveTablesReverseTraffic,
	platform.VitessActionMoveTablesCancel, platform.VitessActionMoveTablesComplete,
}

// opRef is the answer of an action: the operation's reference.
type opRef struct {
	ID string `json:"id"`
}

func moveTablesCreate(c *call, p *platform.CreateMoveTablesParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	mc, err := checkMoveTablesCreate(b, p)
	if err != nil {
		return nil, err
	}
	if err := c.w.mtIdle(b, mc.target, p.Workflow); err != nil {
		return nil, err
	}
	return opRef{c.w.newMoveTablesOp(b, platform.VitessActionMoveTablesCreate, mc.target, p.Workflow, p, c.who.user).id}, nil
}

// moveTablesWorkflow finds the MoveTables workflow of the path's name in
// target keyspace (field names the request's field).
func (c *call) moveTablesWorkflow(field, keyspace string) (*vrWorkflow, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	return c.w.findMoveTables(b, field, keyspace, c.r.PathValue("workflow"))
}

func moveTablesShow(c *call) (any, error) {
	vw, err := c.moveTablesWorkflow("target_keyspace", c.r.URL.Query().Get("target_keyspace"))
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"workflows": []*protoWorkflow{renderVRWorkflow(vw, c.now, &c.w.timing)}}}, nil
}

func moveTablesStatus(c *call) (any, error) {
	vw, err := c.moveTablesWorkflow("target_keyspace", c.r.URL.Query().Get("target_keyspace"))
	if err != nil {
		return nil, err
	}
	return vtctldData{renderMoveTablesStatus(vw, c.now, &c.w.timing)}, nil
}

func moveTablesSwitchTraffic(c *call, p *platform.SwitchTrafficParams) (any, error) {
	return c.moveTablesTraffic(platform.VitessActionMoveTablesSwitchTraffic, p)
}

func moveTablesReverseTraffic(c *call, p *platform.SwitchTrafficParams) (any, error) {
	if p.InitializeTargetSequences != nil {
		return nil, unprocessable("initialize_target_sequences is for switch-traffic only")
	}
	return c.moveTablesTraffic(platform.VitessActionMoveTablesReverseTraffic, p)
}

func (c *call) moveTablesTraffic(action string, p *platform.SwitchTrafficParams) (any, error) {
	vw, err := c.moveTablesWorkflow("target_keyspace", p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	if _, err := checkTrafficSwitch(vw, action, p); err != nil {
		return nil, err
	}
	return c.mtOperation(vw, action, p)
}

func moveTablesCancel(c *call, p *platform.CancelMoveTablesParams) (any, error) {
	vw, err := c.moveTablesWorkflow("target_keyspace", p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	if err := checkMoveTablesCancel(vw); err != nil {
		return nil, err
	}
	return c.mtOperation(vw, platform.VitessActionMoveTablesCancel, p)
}

func moveTablesComplete(c *call, p *platform.CompleteMoveTablesParams) (any, error) {
	vw, err := c.moveTablesWorkflow("target_keyspace", p.TargetKeyspace)
	if err != nil {
		return nil, err
	}
	if err := checkMoveTablesComplete(vw, p); err != nil {
		return nil, err
	}
	return c.mtOperation(vw, platform.VitessActionMoveTablesComplete, p)
}

// mtOperation starts the operation of an action on vw, checked.
func (c *call) mtOperation(vw *vrWorkflow, action string, body any) (any, error) {
	b := vw.target.branch
	if err := c.w.mtIdle(b, vw.target, vw.name); err != nil {
		return nil, err
	}
	return opRef{c.w.newMoveTablesOp(b, action, vw.target, vw.name, body, c.who.user).id}, nil
}

// findMoveTables finds a MoveTables workflow: findVRWorkflow's answers,
// and a 422 naming the kind of a workflow of another kind.
func (w *world) findMoveTables(b *branchRec, field, keyspace, name string) (*vrWorkflow, error) {
	vw, err := w.findVRWorkflow(b, field, keyspace, name)
	if err != nil {
		return nil, err
	}
	if vw.kind != vrMoveTables || vw.doc == nil {
		return nil, unprocessable("workflow %s of keyspace %s is a %s workflow, not a MoveTables one", vw.name, keyspace, vw.kind)
	}
	return vw, nil
}

// mtIdle refuses an action on workflow name of target while another
// action runs on it.
func (w *world) mtIdle(b *branchRec, target *keyspaceRec, name string) error {
	for _, op := range b.more.read().vitess.ops.All() {
		if !op.state.Done() && op.workflow == name && op.keyspace == target.id {
			return unprocessable("workflow %s of keyspace %s has operation %s (%s) %s; wait until it finishes", name, target.name, op.id, op.action, op.state)
		}
	}
	return nil
}

// newMoveTablesOp starts the operation of a MoveTables action on workflow
// name of target, asked with body by actor.
func (w *world) newMoveTablesOp(b *branchRec, action string, target *keyspaceRec, name string, body any, actor *userRec) *vitessOpRec {
	now := w.clock.Now()
	text, err := json.Marshal(body)
	if err != nil {
		panic(fmt.Sprintf("newMoveTablesOp: a decoded body marshals: %v", err))
	}
	op := &vitessOpRec{
		stamps: stamps{id: w.newID(), created: now, updated: now},
		branch: b, action: action, state: platform.VitessOperationPending,
		keyspace: target.id, ksName: target.name, workflow: name, body: string(text), actor: actor,
	}
	b.vitess().ops.Add(op)
	w.startFlight(op.id)
	w.clock.After(w.timing.VitessOperationStart, vitessOpJob{op, platform.VitessOperationPending})
	return op
}

// runMoveTablesOp applies a running MoveTables operation's action,
// checked again: the operation completes with the Vitess response, or
// fails with the check's refusal, changing nothing.
func (w *world) runMoveTablesOp(op *vitessOpRec, now time.Time) {
	result, err := w.applyMoveTables(op)
	if err != nil {
		msg := err.Error()
		if e, ok := err.(*apiError); ok {
			msg = e.message
		}
		w.settleVitessOperation(op, platform.VitessOperationFailed, msg, now)
		return
	}
	text, merr := json.Marshal(result)
	if merr != nil {
		panic(fmt.Sprintf("runMoveTablesOp: a result marshals: %v", merr))
	}
	op.result = string(text)
	w.settleVitessOperation(op, platform.VitessOperationCompleted, "", now)
}

// applyMoveTables checks and applies op's action; nil and an error when
// it is refused.
func (w *world) applyMoveTables(op *vitessOpRec) (any, error) {
	b := op.branch
	if op.action == platform.VitessActionMoveTablesCreate {
		var p platform.CreateMoveTablesParams
		if err := json.Unmarshal([]byte(op.body), &p); err != nil {
			return nil, err
		}
		mc, err := checkMoveTablesCreate(b, &p)
		if err != nil {
			return nil, err
		}
		return w.createMoveTables(b, mc, op.actor), nil
	}
	vw, err := w.findMoveTables(b, "target_keyspace", op.ksName, op.workflow)
	if err != nil {
		if e, ok := err.(*apiError); ok && e.status == 404 {
			return nil, unprocessable("workflow %s of keyspace %s no longer exists", op.workflow, op.ksName)
		}
		return nil, err
	}
	switch op.action {
	case platform.VitessActionMoveTablesSwitchTraffic, platform.VitessActionMoveTablesReverseTraffic:
		var p platform.SwitchTrafficParams
		if err := json.Unmarshal([]byte(op.body), &p); err != nil {
			return nil, err
		}
		sw, err := checkTrafficSwitch(vw, op.action, &p)
		if err != nil {
			return nil, err
		}
		return w.switchMoveTablesTraffic(vw, sw, op.actor), nil
	case platform.VitessActionMoveTablesCancel:
		var p platform.CancelMoveTablesParams
		if err := json.Unmarshal([]byte(op.body), &p); err != nil {
			return nil, err
		}
		if err := checkMoveTablesCancel(vw); err != nil {
			return nil, err
		}
		return w.cancelMoveTables(vw, &p, op.actor), nil
	case platform.VitessActionMoveTablesComplete:
		var p platform.CompleteMoveTablesParams
		if err := json.Unmarshal([]byte(op.body), &p); err != nil {
			return nil, err
		}
		if err := checkMoveTablesComplete(vw, &p); err != nil {
			return nil, err
		}
		return w.completeMoveTables(vw, &p, op.actor), nil
	}
	return nil, fmt.Errorf("%s is not a MoveTables action", op.action)
}

// Create.

// mtCreate is a checked move_tables_create.
type mtCreate struct {
	name                   string
	source, target, global *keyspaceRec
	tables                 []string
	opts                   vrOptions
}

// autoIncrementHandlings are the values of sharded_auto_increment_handling.
var autoIncrementHandlings = []string{"LEAVE", "REMOVE", "REPLACE"}

// checkMoveTablesCreate checks a move_tables_create of b.
func checkMoveTablesCreate(b *branchRec, p *platform.CreateMoveTablesParams) (*mtCreate, error) {
	switch {
	case !b.ready:
		return nil, unprocessable("branch %s is not ready yet", b.name)
	case strings.TrimSpace(p.Workflow) == "":
		return nil, unprocessable("workflow is required: the new workflow's name")
	case len(p.Workflow) > maxNameLen:
		return nil, unprocessable("workflow %q is longer than %d characters", p.Workflow, maxNameLen)
	case strings.ContainsAny(p.Workflow, "/ \t\n"):
		return nil, unprocessable("workflow %q: a name has no slash or blank", p.Workflow)
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
		return nil, unprocessable("source_keyspace and target_keyspace are both %q; MoveTables moves tables between two keyspaces", source.name)
	}
	mc := &mtCreate{name: p.Workflow, source: source, target: target}
	all := p.AllTables != nil && *p.AllTables
	switch {
	case all && len(p.Tables) > 0:
		return nil, unprocessable("tables and all_tables: name the tables, or all_tables, not both")
	case !all && len(p.Tables) == 0:
		return nil, unprocessable("tables is required: the tables to move (or all_tables)")
	case !all && len(p.ExcludeTables) > 0:
		return nil, unprocessable("exclude_tables needs all_tables")
	case all:
		for i, t := range p.ExcludeTables {
			if source.tables[t] == "" {
				return nil, unprocessable("exclude_tables[%d] %q is not a table of keyspace %s", i, t, source.name)
			}
		}
		for _, t := range sortedTableNames(source) {
			if !slices.Contains(p.ExcludeTables, t) {
				mc.tables = append(mc.tables, t)
			}
		}
		if len(mc.tables) == 0 {
			return nil, unprocessable("all_tables: keyspace %s has no table to move", source.name)
		}
	default:
		mc.tables = slices.Clone(p.Tables)
	}
	if err := checkWorkflowTables(b, source, target, mc.tables); err != nil {
		return nil, err
	}
	if p.AtomicCopy != nil && *p.AtomicCopy && !all {
		return nil, unprocessable("atomic_copy needs all_tables: an atomic copy moves every table of the keyspace")
	}
	if err := checkMoveTablesName(b, target, p.Workflow, mc.tables); err != nil {
		return nil, err
	}
	o := vrOptions{onDDL: string(platform.OnDDLIgnore), deferSecondaryKeys: true, autoStart: true}
	setIf(&o.deferSecondaryKeys, p.DeferSecondaryKeys)
	setIf(&o.autoStart, p.AutoStart)
	setIf(&o.stopAfterCopy, p.StopAfterCopy)
	setIf(&o.atomicCopy, p.AtomicCopy)
	if p.OnDDL != "" {
		o.onDDL = strings.ToUpper(p.OnDDL)
		if !slices.Contains(workflowOnDDLs, platform.WorkflowOnDDL(o.onDDL)) {
			return nil, unprocessable("on_ddl %q is not one of IGNORE, STOP, EXEC, EXEC_IGNORE", p.OnDDL)
		}
	}
	if p.ShardedAutoIncrementHandling != "" {
		o.autoIncrement = strings.ToUpper(p.ShardedAutoIncrementHandling)
		if !slices.Contains(autoIncrementHandlings, o.autoIncrement) {
			return nil, unprocessable("sharded_auto_increment_handling %q is not one of LEAVE, REMOVE, REPLACE", p.ShardedAutoIncrementHandling)
		}
	}
	if p.GlobalKeyspace != "" {
		if mc.global, err = workflowKeyspace(b, "global_keyspace", p.GlobalKeyspace); err != nil {
			return nil, err
		}
		if mc.global.sharded() {
			return nil, unprocessable("global_keyspace %s is sharded; sequence tables live in an unsharded keyspace", mc.global.name)
		}
		o.globalKeyspace = mc.global.name
	}
	if o.autoIncrement == "REPLACE" && mc.global == nil {
		return nil, unprocessable("global_keyspace is required with sharded_auto_increment_handling REPLACE: the unsharded keyspace of the sequence tables")
	}
	if p.SourceTimeZone != "" {
		if err := checkTimeZone("source_time_zone", p.SourceTimeZone); err != nil {
			return nil, err
		}
		o.sourceTimeZone = p.SourceTimeZone
	}
	o.tenantID = p.TenantID
	if err := checkCells(b, "cells", p.Cells); err != nil {
		return nil, err
	}
	o.cells = slices.Clone(p.Cells)
	for i, s := range p.TabletTypes {
		t, ok := parseTabletType(s)
		if !ok {
			return nil, unprocessable("tablet_types[%d] %q is not primary, replica or rdonly", i, s)
		}
		if !slices.Contains(o.tabletTypes, t) {
			o.tabletTypes = append(o.tabletTypes, t)
		}
	}
	mc.opts = o
	return mc, nil
}

// checkMoveTablesName refuses a workflow name taken in target, or by an
// active documented workflow of b, and tables another active workflow of
// b moves.
func checkMoveTablesName(b *branchRec, target *keyspaceRec, name string, tables []string) error {
	if vw := b.more.read().vitess.vrWorkflow(target, name); vw != nil {
		return unprocessable("workflow %q exists in keyspace %s already (a %s workflow)", name, target.name, vw.kind)
	}
	for _, other := range b.db.workflows.peek().all() {
		if !other.active() || other.branch != b {
			continue
		}
		if other.name == name {
			return unprocessable("workflow %q is taken by workflow #%d, which is %s", name, other.number, other.state)
		}
		for _, t := range tables {
			if slices.Contains(other.tables, t) {
				return unprocessable("table %q is already moving in workflow #%d, which is %s", t, other.number, other.state)
			}
		}
	}
	return nil
}

// sortedTableNames are the tables of ks, by name.
func sortedTableNames(ks *keyspaceRec) []string {
	out := make([]string, 0, len(ks.tables))
	for t := range ks.tables {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// createMoveTables makes a checked MoveTables workflow: a documented
// workflow of b, owned by actor, with its VReplication workflow.
func (w *world) createMoveTables(b *branchRec, mc *mtCreate, actor *userRec) *protoTabletsResponse {
	now := w.clock.Now()
	wf := &workflowRec{
		stamps: stamps{id: w.newID(), created: now, updated: now},
		db:     b.db, number: b.db.workflows.peek().next(), name: mc.name, branch: b,
		source: mc.source, target: mc.target, global: mc.global, tables: mc.tables,
		deferSecondaryKeys: mc.opts.deferSecondaryKeys, onDDL: platform.WorkflowOnDDL(mc.opts.onDDL),
		state: platform.WorkflowPending, actor: actor,
	}
	w.addWorkflow(wf, mc.opts)
	if !mc.opts.autoStart {
		_, _ = w.stopVRWorkflow(wf.vr) // a pending workflow stops
	}
	out := &protoTabletsResponse{Summary: fmt.Sprintf("Successfully created the %s MoveTables workflow on (%d) target primary tablets in the %s keyspace", mc.name, len(shardNames(mc.target.shards)), mc.target.name)}
	for _, a := range targetPrimaries(mc.target, shardNames(mc.target.shards)) {
		out.Details = append(out.Details, protoTabletInfo{Tablet: a, Created: true})
	}
	return out
}

// Traffic.

// The traffic states Vitess names.
const (
	trafficNone  = "Reads Not Switched. Writes Not Switched"
	trafficReads = "All Reads Switched. Writes Not Switched"
	trafficAll   = "All Reads Switched. Writes Switched"
)

// trafficState names the traffic wf's target serves.
func trafficState(wf *workflowRec) string {
	switch {
	case wf.primariesSwitched:
		return trafficAll
	case wf.replicasSwitched:
		return trafficReads
	}
	return trafficNone
}

// mtSwitch is a checked switch or reverse: the traffic the target serves
// after it.
type mtSwitch struct {
	reverse, dryRun bool
	reads, writes   bool // after
	types           []string
}

// checkTrafficSwitch checks a switch (or reverse) of vw's traffic.
func checkTrafficSwitch(vw *vrWorkflow, action string, p *platform.SwitchTrafficParams) (mtSwitch, error) {
	wf := vw.doc
	sw := mtSwitch{reverse: action == platform.VitessActionMoveTablesReverseTraffic, dryRun: p.DryRun != nil && *p.DryRun}
	verb := "switch-traffic"
	if sw.reverse {
		verb = "reverse-traffic"
	}
	var reads, writes, replica, rdonly bool
	if len(p.TabletTypes) == 0 {
		reads, writes, replica, rdonly = true, true, true, true
	}
	for i, s := range p.TabletTypes {
		t, ok := parseTabletType(s)
		if !ok {
			return sw, unprocessable("tablet_types[%d] %q is not primary, replica or rdonly", i, s)
		}
		switch t {
		case platform.TabletPrimary:
			writes = true
		case platform.TabletReplica:
			replica, reads = true, true
		default:
			rdonly, reads = true, true
		}
	}
	switch {
	case replica != rdonly:
		return sw, unprocessable("tablet_types: name replica and rdonly together; reads switch as one")
	case p.MaxReplicationLagAllowed != nil && *p.MaxReplicationLagAllowed < 0:
		return sw, unprocessable("max_replication_lag_allowed must be at least 0 seconds, got %d", *p.MaxReplicationLagAllowed)
	}
	for _, t := range []struct {
		on   bool
		name string
	}{{reads, "REPLICA"}, {reads, "RDONLY"}, {writes, "PRIMARY"}} {
		if t.on {
			sw.types = append(sw.types, t.name)
		}
	}
	allowed := append(slices.Clone(workflowInStep), platform.WorkflowSwitchedReplicas)
	if sw.reverse {
		allowed = []platform.WorkflowState{platform.WorkflowSwitchedReplicas, platform.WorkflowSwitchedPrimaries}
	}
	if !slices.Contains(allowed, wf.state) {
		return sw, unprocessable("workflow %s is %s; %s needs it %s", vw.name, wf.state, verb, joinWorkflowStates(allowed))
	}
	if sw.reverse {
		sw.reads, sw.writes = wf.replicasSwitched && !reads, wf.primariesSwitched && !writes
		if sw.writes && !sw.reads {
			return sw, unprocessable("workflow %s has writes switched; reverse writes (primary) before reads", vw.name)
		}
	} else {
		sw.reads, sw.writes = wf.replicasSwitched || reads, wf.primariesSwitched || writes
		if sw.writes && !sw.reads {
			return sw, unprocessable("workflow %s has reads not switched; switch reads (replica and rdonly) before writes (primary)", vw.name)
		}
	}
	if sw.reads == wf.replicasSwitched && sw.writes == wf.primariesSwitched {
		return sw, unprocessable("workflow %s is %s (%s); %s of %s changes nothing", vw.name, wf.state, trafficState(wf), verb, strings.Join(sw.types, ", "))
	}
	return sw, nil
}

// switchMoveTablesTraffic applies a checked switch or reverse (a dry run
// changes nothing) and answers vtctldata.WorkflowSwitchTrafficResponse.
func (w *world) switchMoveTablesTraffic(vw *vrWorkflow, sw mtSwitch, actor *userRec) *protoSwitchResponse {
	wf := vw.doc
	now := w.clock.Now()
	start := trafficState(wf)
	verb, to := "SwitchTraffic", vw.target.name
	if sw.reverse {
		verb, to = "ReverseTraffic", vw.source.name
	}
	out := &protoSwitchResponse{StartState: start}
	if sw.dryRun {
		tables := "[" + strings.Join(wf.tables, " ") + "]"
		out.Summary = fmt.Sprintf("%s dry run results for workflow %s.%s at %s", verb, vw.target.name, vw.name, now.UTC().Format(time.RFC3339))
		out.CurrentState = start
		out.DryRunResults = []string{
			"Lock keyspace " + vw.source.name,
			fmt.Sprintf("Switch traffic of tablet types [%s] for tables %s to keyspace %s", strings.Join(sw.types, ","), tables, to),
			"Routing rules for tables " + tables + " will be updated",
			"Unlock keyspace " + vw.source.name,
		}
		return out
	}
	if sw.reads && !wf.replicasSwitched {
		wf.switchedReplicas, wf.switchReplicasBy = now, actor
	}
	if sw.writes && !wf.primariesSwitched {
		wf.switchedPrimaries, wf.switchPrimariesBy = now, actor
	}
	if sw.reverse {
		wf.reversed, wf.reversedBy = now, actor
	}
	wf.replicasSwitched, wf.primariesSwitched = sw.reads, sw.writes
	switch {
	case sw.writes:
		wf.state = platform.WorkflowSwitchedPrimaries
	case sw.reads:
		wf.state = platform.WorkflowSwitchedReplicas
	default:
		wf.state = platform.WorkflowRunning
	}
	wf.updated, vw.updated = now, now
	w.syncMoveTablesRules(wf)
	out.CurrentState = trafficState(wf)
	out.Summary = fmt.Sprintf("%s was successful for workflow %s.%s", verb, vw.target.name, vw.name)
	return out
}

// protoSwitchResponse is vtctldata.WorkflowSwitchTrafficResponse.
type protoSwitchResponse struct {
	Summary       string   `json:"summary,omitempty"`
	StartState    string   `json:"start_state,omitempty"`
	CurrentState  string   `json:"current_state,omitempty"`
	DryRunResults []string `json:"dry_run_results,omitempty"`
}

// Cancel and complete.

// checkMoveTablesCancel refuses a cancel of vw with traffic switched, or
// in a step.
func checkMoveTablesCancel(vw *vrWorkflow) error {
	wf := vw.doc
	if wf.replicasSwitched || wf.primariesSwitched {
		return unprocessable("workflow %s is %s (%s); reverse its traffic before cancelling", vw.name, wf.state, trafficState(wf))
	}
	cancellable := []platform.WorkflowState{platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowRunning,
		platform.WorkflowVerifiedData, platform.WorkflowReversedCutover, platform.WorkflowError, platform.WorkflowStopped}
	if !slices.Contains(cancellable, wf.state) {
		return unprocessable("workflow %s is %s; cancel needs it %s", vw.name, wf.state, joinWorkflowStates(cancellable))
	}
	return nil
}

// cancelMoveTables cancels vw, answering vtctldata.WorkflowDeleteResponse:
// its documented workflow is cancelled, its streams go, its tables leave
// the target keyspace unless keep_data, and its routing rules unless
// kept.
func (w *world) cancelMoveTables(vw *vrWorkflow, p *platform.CancelMoveTablesParams, actor *userRec) *protoTabletsResponse {
	wf, b := vw.doc, vw.target.branch
	now := w.clock.Now()
	rules := b.more.read().routingRules
	w.settleTables(wf)
	wf.state, wf.updated, wf.cancelled, wf.cancelledBy = platform.WorkflowCancelled, now, now, actor
	wf.failedFrom, wf.errors = "", ""
	w.endWorkflow(wf)
	if p.KeepData == nil || !*p.KeepData {
		w.dropTargetTables(wf)
	}
	if p.KeepRoutingRules != nil && *p.KeepRoutingRules {
		b.x().routingRules = rules
	}
	out := &protoTabletsResponse{Summary: fmt.Sprintf("Successfully cancelled the %s workflow in the %s keyspace", vw.name, vw.target.name)}
	for _, a := range targetPrimaries(vw.target, vw.targetShards) {
		out.Details = append(out.Details, protoTabletInfo{Tablet: a, Deleted: true})
	}
	return out
}

// checkMoveTablesComplete refuses a complete of vw before its writes are
// switched, or of tables changed since.
func checkMoveTablesComplete(vw *vrWorkflow, p *platform.CompleteMoveTablesParams) error {
	wf := vw.doc
	allowed := []platform.WorkflowState{platform.WorkflowSwitchedPrimaries, platform.WorkflowCutover}
	switch {
	case !slices.Contains(allowed, wf.state):
		return unprocessable("workflow %s is %s (%s); complete needs its traffic switched: %s", vw.name, wf.state, trafficState(wf), joinWorkflowStates(allowed))
	case p.KeepData != nil && *p.KeepData && p.RenameTables != nil && *p.RenameTables:
		return unprocessable("keep_data and rename_tables: the source's tables are kept, or renamed, not both")
	case wf.source.gone() || wf.target.gone():
		// What completeWorkflow refuses too, checked before anything moves.
		return unprocessable("workflow %s: keyspace %s or %s was deleted; cancel the workflow", vw.name, wf.source.name, wf.target.name)
	}
	return checkWorkflowSource(wf)
}

// protoCompleteResponse is vtctldata.MoveTablesCompleteResponse.
type protoCompleteResponse struct {
	Summary       string   `json:"summary,omitempty"`
	DryRunResults []string `json:"dry_run_results,omitempty"`
}

// completeMoveTables completes vw (a dry run changes nothing): its
// documented workflow completes, dropping the tables, which the target
// has had since create, from the source's schema and VSchema; keep_data
// leaves them in the source's schema, rename_tables leaves them there as
// _<table>_old;
// keep_routing_rules keeps the routing rules.
func (w *world) completeMoveTables(vw *vrWorkflow, p *platform.CompleteMoveTablesParams, actor *userRec) *protoCompleteResponse {
	wf, b := vw.doc, vw.target.branch
	now := w.clock.Now()
	keep, rename := p.KeepData != nil && *p.KeepData, p.RenameTables != nil && *p.RenameTables
	if p.DryRun != nil && *p.DryRun {
		out := &protoCompleteResponse{Summary: fmt.Sprintf("Complete dry run results for workflow %s.%s at %s", vw.target.name, vw.name, now.UTC().Format(time.RFC3339))}
		out.DryRunResults = append(out.DryRunResults, "Lock keyspace "+vw.source.name, "Lock keyspace "+vw.target.name)
		what := "Dropping these tables from the database and removing them from the vschema for keyspace " + vw.source.name + ":"
		switch {
		case keep:
			what = "Keeping these tables in the database and removing them from the vschema for keyspace " + vw.source.name + ":"
		case rename:
			what = "Renaming these tables from the database and removing them from the vschema for keyspace " + vw.source.name + ":"
		}
		out.DryRunResults = append(out.DryRunResults, what)
		for _, shard := range vw.sourceShards {
			for _, t := range wf.tables {
				out.DryRunResults = append(out.DryRunResults, fmt.Sprintf("\tKeyspace %s Shard %s DbName vt_%s Table %s", vw.source.name, shard, vw.source.name, t))
			}
		}
		if p.KeepRoutingRules == nil || !*p.KeepRoutingRules {
			out.DryRunResults = append(out.DryRunResults, "Delete routing rules for tables ["+strings.Join(vw.tableNames(), " ")+"]")
		}
		out.DryRunResults = append(out.DryRunResults, "Unlock keyspace "+vw.target.name, "Unlock keyspace "+vw.source.name)
		return out
	}
	rules := b.more.read().routingRules
	moved := map[string]string{}
	for _, t := range wf.tables {
		moved[t] = wf.source.tables[t]
	}
	if wf.cutoverAt.IsZero() || wf.state == platform.WorkflowSwitchedPrimaries {
		wf.cutoverAt, wf.cutoverBy = now, actor
	}
	wf.state = platform.WorkflowCutover
	if err := w.completeWorkflow(&principal{user: actor}, wf); err != nil {
		panic(fmt.Sprintf("completeMoveTables of a checked workflow: %v", err))
	}
	if keep || rename {
		src := cloneMap(wf.source.tables)
		for t, create := range moved {
			name := t
			if rename {
				name = "_" + t + "_old"
				create = strings.Replace(create, "`"+t+"`", "`"+name+"`", 1)
			}
			src[name] = create
		}
		wf.source.tables = src
		w.schemaChanged(b, nil)
	}
	if p.KeepRoutingRules != nil && *p.KeepRoutingRules {
		b.x().routingRules = rules
	}
	return &protoCompleteResponse{Summary: fmt.Sprintf("Successfully completed the %s workflow in the %s keyspace", vw.name, vw.target.name)}
}

// Status: vtctldata.WorkflowStatusResponse.

// protoTableCopyState is vtctldata.WorkflowStatusResponse.TableCopyState.
type protoTableCopyState struct {
	RowsCopied      string  `json:"rows_copied,omitempty"` // int64
	RowsTotal       string  `json:"rows_total,omitempty"`  // int64
	RowsPercentage  float32 `json:"rows_percentage,omitempty"`
	BytesCopied     string  `json:"bytes_copied,omitempty"` // int64
	BytesTotal      string  `json:"bytes_total,omitempty"`  // int64
	BytesPercentage float32 `json:"bytes_percentage,omitempty"`
}

// protoStreamState is vtctldata.WorkflowStatusResponse.ShardStreamState.
type protoStreamState struct {
	ID          int32       `json:"id,omitempty"`
	Tablet      *protoAlias `json:"tablet,omitempty"`
	SourceShard string      `json:"source_shard,omitempty"`
	Position    string      `json:"position,omitempty"`
	Status      string      `json:"status,omitempty"`
	Info        string      `json:"info,omitempty"`
}

// protoShardStreams is vtctldata.WorkflowStatusResponse.ShardStreams.
type protoShardStreams struct {
	Streams []protoStreamState `json:"streams,omitempty"`
}

// protoWorkflowStatus is vtctldata.WorkflowStatusResponse.
type protoWorkflowStatus struct {
	TableCopyState map[string]protoTableCopyState `json:"table_copy_state,omitempty"`
	ShardStreams   map[string]*protoShardStreams  `json:"shard_streams,omitempty"`
	TrafficState   string                         `json:"traffic_state,omitempty"`
}

// vrBytesPerRow is the size of a copied row.
const vrBytesPerRow = 128

// renderMoveTablesStatus renders vw's progress at now: each table still
// copying (tables copy in order), each stream, the traffic switched.
func renderMoveTablesStatus(vw *vrWorkflow, now time.Time, t *Timings) *protoWorkflowStatus {
	state, share := vw.phase(now, t)
	out := &protoWorkflowStatus{ShardStreams: map[string]*protoShardStreams{}, TrafficState: trafficState(vw.doc)}
	streams := vw.streams()
	if !vw.copied(now, t) {
		out.TableCopyState = map[string]protoTableCopyState{}
		for i, tbl := range vw.tables {
			part := copyPart(share, i, len(vw.tables))
			total := int64(vrRowsPerTable * len(streams))
			rows := int64(part * float64(total))
			out.TableCopyState[tbl.name] = protoTableCopyState{
				RowsCopied: fmt.Sprint(rows), RowsTotal: fmt.Sprint(total), RowsPercentage: float32(part * 100),
				BytesCopied: fmt.Sprint(rows * vrBytesPerRow), BytesTotal: fmt.Sprint(total * vrBytesPerRow), BytesPercentage: float32(part * 100),
			}
		}
	}
	info := "VStream Lag: 0s"
	switch state {
	case vrCopying:
		info = "Copy phase: " + fmt.Sprintf("%.0f%%", share*100)
	case vrStopped:
		info = "Stopped"
	case vrError:
		info = vw.doc.errors
	}
	for _, s := range streams {
		key := vw.target.name + "/" + s.targetShard
		ss := out.ShardStreams[key]
		if ss == nil {
			ss = &protoShardStreams{}
			out.ShardStreams[key] = ss
		}
		st := protoStreamState{ID: int32(s.id), SourceShard: vw.source.name + "/" + s.source, Position: vrPosition(vw.source, s.source, vw.created, now), Status: state, Info: info}
		if p := targetPrimaries(vw.target, []string{s.targetShard}); len(p) > 0 {
			st.Tablet = p[0]
		}
		ss.Streams = append(ss.Streams, st)
	}
	return out
}
