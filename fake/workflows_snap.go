package fake

import (
	"crypto/sha256"
	"fmt"
	"slices"
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
	for _, ws := range list {
		if err := unique(ld.workflows, ws.ID, "workflow"); err != nil {
			return err
		}
		wf, err := ld.loadWorkflow(db, ws)
		if err != nil {
			return named(err, "workflow %s", ws.ID)
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
	return wf, nil
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
