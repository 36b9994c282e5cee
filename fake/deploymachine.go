package fake

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// The deployment state machine of decisions.md. Automatic transitions run
// on the clock; actions (deploy, apply, cancel, revert, ...) are the
// handlers in deployrequests.go. Every scheduled transition carries the
// deployment's generation, and every change of state bumps it, so a
// transition scheduled before a state change (closing a pending request,
// skipping the revert window) never fires after it.

// step schedules next after d, unless the deployment moves on first.
func (w *world) step(dr *drRec, d time.Duration, next deployStep) {
	dr.dep.gen++
	w.clock.After(d, deployJob{dr, dr.dep.gen, next})
}

// deployStep names a transition of the deployment state machine.
type deployStep string

// The deployment's transitions, each a method of Server below.
const (
	stepCheck       deployStep = "check"
	stepSubmit      deployStep = "submit"
	stepStart       deployStep = "start"
	stepCopied      deployStep = "copied"
	stepCutoverDone deployStep = "cutover_done"
	stepComplete    deployStep = "complete"
	stepRevert      deployStep = "revert"
	stepCancelled   deployStep = "cancelled"
)

// deploySteps are the transitions by name.
var deploySteps = map[deployStep]func(*world, *drRec){
	stepCheck:       (*world).check,
	stepSubmit:      (*world).submit,
	stepStart:       (*world).start,
	stepCopied:      (*world).copied,
	stepCutoverDone: (*world).cutoverDone,
	stepComplete:    (*world).complete,
	stepRevert:      (*world).revertStep,
	stepCancelled:   (*world).cancelled,
}

// setState moves the deployment to st at the current time, dropping the
// transition scheduled for the state it leaves.
func (w *world) setState(dr *drRec, st platform.DeploymentState) {
	now := w.clock.Now()
	dr.dep.gen++
	dr.dep.state = st
	dr.dep.updated = now
	dr.updated = now
	if st.IsTerminal() {
		w.endFlight(dr.dep.id)
	}
}

// emitDR emits a deploy request event with the deploy request as resource.
func (w *world) emitDR(dr *drRec, name string) {
	w.emit(name, dr.db, w.renderDeployRequest(dr))
}

// failed consumes an injected failure of the deployment's next transition,
// moving it to the failure state of where it is, and reports whether it did.
func (w *world) failed(dr *drRec) bool {
	if !w.takeFailure(dr.dep.id) {
		return false
	}
	now := w.clock.Now()
	switch dr.dep.state {
	case platform.DeploymentPending:
		msg := "the deployment check failed: " + injectedFailure
		dr.dep.checkErrors = &msg
		w.setState(dr, platform.DeploymentError)
	case platform.DeploymentInProgressRevert, platform.DeploymentInProgressRevertVSchema:
		// The changes stay applied: their revert failed.
		for _, op := range dr.dep.ops {
			op.errors, op.updated = "the revert of this operation failed: "+injectedFailure, now
		}
		dr.dep.finished = now
		w.setState(dr, platform.DeploymentCompleteRevertError)
	default:
		for _, op := range dr.dep.ops {
			op.errors = fmt.Sprintf("the operation failed while its deployment was %s: %s", dr.dep.state, injectedFailure)
		}
		dr.dep.finished = now
		w.setOpsState(dr, platform.OperationError)
		w.setState(dr, platform.DeploymentCompleteError)
	}
	w.emitDR(dr, "deploy_request.errored")
	return true
}

// injectedFailure is why a transition that FailNext failed failed.
const injectedFailure = "a failure injected by the fake's FailNext"

// checkDeploymentFailable says why FailNext cannot fail the next
// transition of the deployment with ID id, if id is a deployment's and it
// cannot: in complete_pending_revert, the window's end and skip-revert
// complete the deployment with no step that can fail, and a revert is an
// action still to be asked for (FailNext once it runs fails it). IDs of
// other resources pass. FailNext is rare: it looks the deployment up by
// visiting the deploy requests.
func (w *world) checkDeploymentFailable(id string) error {
	for _, org := range w.orgIdx.All() {
		for _, db := range org.dbs.All() {
			for _, dr := range db.drs.All() {
				if dr.dep.id != id {
					continue
				}
				if dr.in(platform.DeploymentCompletePendingRevert) {
					return fmt.Errorf("the deployment %q of deploy request #%d is %s: it has no transition that can fail in that state "+
						"(the revert window's end and skip-revert cannot fail); FailNext during in_progress_revert fails a revert",
						id, dr.number, dr.dep.state)
				}
				return nil
			}
		}
	}
	return nil
}

// check compares the branches: pending -> ready, no_changes or error. A
// head branch deleted since the deploy request opened leaves nothing to
// deploy from: error.
func (w *world) check(dr *drRec) {
	if w.failed(dr) {
		return
	}
	if dr.head.deleted {
		msg := "branch " + dr.head.name + " was deleted: there is no branch to deploy from"
		dr.dep.checkErrors = &msg
		w.setState(dr, platform.DeploymentError)
		w.emitDR(dr, "deploy_request.errored")
		return
	}
	plan := planDeploy(dr.head, dr.into)
	dr.dep.ops = plan.ops
	now := w.clock.Now()
	for _, op := range dr.dep.ops {
		op.stamps = stamps{id: w.newID(), created: now, updated: now}
		for _, name := range shardNames(shardsOf(op, dr.head, dr.into)) {
			op.shards = append(op.shards, shardRec{id: w.newID(), name: name})
		}
	}
	dr.dep.vschema = touchesSharded(dr.dep.ops, dr.head, dr.into)
	dr.dep.eligible = len(dr.dep.ops) > 0 && !dr.dep.vschema
	for _, op := range dr.dep.ops {
		if op.name == platform.OperationDrop {
			dr.dep.eligible = false
		}
	}
	if len(plan.conflicts) > 0 {
		msg := fmt.Sprintf("conflicting changes: %s and %s both changed %s since %s's base schema, to different definitions; "+
			"deploying would undo %s's change",
			dr.head.name, dr.into.name, strings.Join(plan.conflicts, ", "), dr.head.name, dr.into.name)
		dr.dep.checkErrors = &msg
	}
	switch {
	case len(dr.head.lint()) > 0 || len(plan.conflicts) > 0:
		dr.dep.lint = dr.head.lint()
		w.setState(dr, platform.DeploymentError)
		w.emitDR(dr, "deploy_request.errored")
	case len(dr.dep.ops) == 0:
		w.setState(dr, platform.DeploymentNoChanges)
	default:
		w.setState(dr, platform.DeploymentReady)
	}
}

// A deployment holds its branch's deploy queue from deploy until it
// completes, is cancelled or reverted, or its error is completed
// (complete-deploy); release lets the next one go.

// preceding returns the deployments ahead of dr in its branch's queue; none
// when dr is not in the queue.
func (db *dbRec) preceding(dr *drRec) []*drRec {
	var out []*drRec
	for _, q := range db.deployQueue {
		if q == dr {
			return out
		}
		if q.into == dr.into {
			out = append(out, q)
		}
	}
	return nil
}

// release takes dr out of the deploy queue and starts the next deployment
// into the same branch.
func (w *world) release(dr *drRec) {
	db := dr.db
	db.deployQueue = slices.DeleteFunc(db.deployQueue, func(q *drRec) bool { return q == dr })
	for _, q := range db.deployQueue {
		if q.into == dr.into {
			if q.dep.state == platform.DeploymentQueued && len(db.preceding(q)) == 0 {
				w.step(q, w.timing.DeployStep, stepSubmit)
			}
			return
		}
	}
}

// submit is queued -> submitting, once nothing precedes the deployment:
// it leaves the queue, and ends in complete_error if a deployment that
// went before changed a table of its operations since its check (see
// conflicted).
func (w *world) submit(dr *drRec) {
	if w.failed(dr) || w.conflicted(dr) {
		return
	}
	w.setState(dr, platform.DeploymentSubmitting)
	w.setOpsState(dr, platform.OperationQueued)
	w.step(dr, w.timing.DeployStep, stepStart)
}

// conflicted compares the tables the deployment's operations change with
// the into branch as it is now. A table it has as the check found it, or
// as the operation leaves it, is fine; a table changed since to another
// definition (by a deployment that went first) is a conflict: the
// operation would undo that change. On a conflict the deployment ends in
// complete_error, each conflicting operation in error saying why in its
// deploy_errors, the others cancelled, and conflicted reports true.
func (w *world) conflicted(dr *drRec) bool {
	now := w.clock.Now()
	found := false
	for _, op := range dr.dep.ops {
		if op.prev == "" && op.name != platform.OperationCreate {
			continue // an operation of an older snapshot, which did not keep prev
		}
		current := ""
		if ks := dr.into.keyspace(op.keyspace); ks != nil {
			current = ks.tables[op.table]
		}
		if sqltext.SameDDL(current, op.prev) || sqltext.SameDDL(current, op.create) {
			continue
		}
		found = true
		op.state, op.updated = platform.OperationError, now
		op.errors = fmt.Sprintf("conflicting change: %s.%s changed in %s after this deployment's check (a deployment that went first changed it), "+
			"to a definition other than this operation's; applying it would undo that change", op.keyspace, op.table, dr.into.name)
	}
	if !found {
		return false
	}
	for _, op := range dr.dep.ops {
		if op.state != platform.OperationError {
			op.state, op.updated = platform.OperationCancelled, now
		}
	}
	dr.dep.finished = now
	w.setState(dr, platform.DeploymentCompleteError)
	w.emitDR(dr, "deploy_request.errored")
	return true
}

// recheck runs the check again of the open deploy requests from b, whose
// schema changed, that have not been deployed (ready, no_changes or
// error; a pending one's check is still to run): they go back to pending,
// and the check follows on the clock. A deployment queued or further on
// keeps the operations it took. A change of the branch deployed into
// checks nothing again: a deployment compares its operations with that
// branch when it leaves the queue (see conflicted).
func (w *world) recheck(b *branchRec) {
	for _, dr := range b.db.drs.All() {
		if !dr.open || dr.head != b || !dr.in(platform.DeploymentReady, platform.DeploymentNoChanges, platform.DeploymentError) {
			continue
		}
		dr.dep.ops, dr.dep.lint, dr.dep.checkErrors = nil, nil, nil
		dr.dep.eligible, dr.dep.vschema = false, false
		w.setState(dr, platform.DeploymentPending)
		w.startFlight(dr.dep.id)
		w.step(dr, w.timing.DeployStep, stepCheck)
	}
}

// start is submitting -> in_progress.
func (w *world) start(dr *drRec) {
	if w.failed(dr) {
		return
	}
	dr.dep.started = w.clock.Now()
	w.setState(dr, platform.DeploymentInProgress)
	w.setOpsState(dr, platform.OperationInProgress)
	w.emitDR(dr, "deploy_request.in_progress")
	w.step(dr, w.timing.DeployInProgress, stepCopied)
}

// copied ends in_progress: the VSchema step when a sharded keyspace
// changes, then the cutover gate (or the cutover itself).
func (w *world) copied(dr *drRec) {
	if w.failed(dr) {
		return
	}
	if dr.dep.instant {
		w.applySchema(dr)
		w.complete(dr)
		return
	}
	if dr.dep.vschema && dr.dep.state == platform.DeploymentInProgress {
		w.setState(dr, platform.DeploymentInProgressVSchema)
		w.step(dr, w.timing.DeployStep, stepCopied)
		return
	}
	dr.dep.readyToCutover = w.clock.Now()
	if dr.dep.autoCutover || !dr.dep.forceCutover.IsZero() {
		// Whoever forced the cutover, else the deployer.
		w.cutover(dr, cmp.Or(dr.dep.forceActor, dr.dep.actor))
		return
	}
	w.setState(dr, platform.DeploymentPendingCutover)
	w.emitDR(dr, "deploy_request.pending_cutover")
}

// cutover is -> in_progress_cutover, by actor.
func (w *world) cutover(dr *drRec, actor *userRec) {
	dr.dep.cutoverActor = actor
	w.setState(dr, platform.DeploymentInProgressCutover)
	w.step(dr, w.timing.DeployStep, stepCutoverDone)
}

// cutoverDone applies the schema and opens the revert window.
func (w *world) cutoverDone(dr *drRec) {
	if w.failed(dr) {
		return
	}
	w.applySchema(dr)
	w.setState(dr, platform.DeploymentCompletePendingRevert)
	w.emitDR(dr, "deploy_request.schema_applied")
	w.step(dr, w.timing.RevertWindow, stepComplete)
}

// applySchema brings the head's changes into the into branch.
func (w *world) applySchema(dr *drRec) {
	now := w.clock.Now()
	dr.dep.before = w.applyOps(dr.into, dr.head, dr.dep.ops, now)
	dr.into.schemaUpdated, dr.into.updated = now, now
	w.schemaChanged(dr.into, dr)
	dr.dep.cutoverAt, dr.dep.finished, dr.deployedAt = now, now, now
	w.setOpsState(dr, platform.OperationComplete)
	if dr.dep.instant {
		w.emitDR(dr, "deploy_request.schema_applied")
	}
}

// complete ends a deployment: the deploy request closes, the queue moves on,
// and the head branch goes when auto_delete_branch asks for it and the
// deployment succeeded (it leaves its revert window, or an instant
// deployment applied its schema). Completing a failed deployment
// (complete-deploy of complete_error or complete_revert_error) keeps the
// branch: what it holds was not deployed, or was deployed and not
// reverted as asked.
func (w *world) complete(dr *drRec) {
	succeeded := !dr.dep.state.IsFailure()
	w.setState(dr, platform.DeploymentComplete)
	w.closeDR(dr, dr.dep.actor)
	w.release(dr)
	if succeeded && dr.dep.autoDeleteBranch && !dr.head.deleted && w.checkBranchDeletable(dr.head) == nil {
		w.removeBranch(dr.head, dr.dep.actor)
	}
}

// closeDR closes the deploy request.
func (w *world) closeDR(dr *drRec, by *userRec) {
	dr.freezeRatios()
	dr.open = false
	dr.closedAt = w.clock.Now()
	dr.closedBy = by
	w.emitDR(dr, "deploy_request.closed")
}

// revertStep runs the revert: in_progress_revert (-> in_progress_revert_vschema)
// -> complete_revert.
func (w *world) revertStep(dr *drRec) {
	if w.failed(dr) {
		return
	}
	if dr.dep.vschema && dr.dep.state == platform.DeploymentInProgressRevert {
		w.setState(dr, platform.DeploymentInProgressRevertVSchema)
		w.step(dr, w.timing.DeployStep, stepRevert)
		return
	}
	restoreTables(dr.into, dr.dep.before)
	now := w.clock.Now()
	dr.into.schemaUpdated, dr.into.updated = now, now
	w.schemaChanged(dr.into, nil)
	dr.dep.finished = now
	w.setState(dr, platform.DeploymentCompleteRevert)
	w.emitDR(dr, "deploy_request.reverted")
	w.closeDR(dr, dr.dep.revertActor)
	w.release(dr)
}

// cancelled ends a cancel: in_progress_cancel -> complete_cancel.
func (w *world) cancelled(dr *drRec) {
	if w.failed(dr) {
		return
	}
	dr.dep.finished = w.clock.Now()
	w.setOpsState(dr, platform.OperationCancelled)
	w.setState(dr, platform.DeploymentCompleteCancel)
	w.closeDR(dr, dr.dep.cancelledActor)
	w.release(dr)
}

// setOpsState moves every operation of the deployment to st.
func (w *world) setOpsState(dr *drRec, st platform.DeployOperationState) {
	now := w.clock.Now()
	for _, op := range dr.dep.ops {
		op.state, op.updated = st, now
	}
}

// refuse is the 422 for an action the current state does not allow.
func refuse(dr *drRec, action string, allowed ...platform.DeploymentState) error {
	return unprocessable("cannot %s deploy request #%d: its deployment is %s; %s needs %s",
		action, dr.number, dr.dep.state, action, joinStates(allowed))
}

// joinStates lists states for a message.
func joinStates(states []platform.DeploymentState) string {
	var out strings.Builder
	for i, st := range states {
		switch {
		case i == 0:
		case i == len(states)-1:
			out.WriteString(" or ")
		default:
			out.WriteString(", ")
		}
		out.WriteString(string(st))
	}
	return out.String()
}

// in reports whether the deployment's state is one of states.
func (dr *drRec) in(states ...platform.DeploymentState) bool {
	return slices.Contains(states, dr.dep.state)
}
