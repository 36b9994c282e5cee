package fake

import (
	"cmp"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The deployment state machine of decisions.md. Automatic transitions run
// on the clock; actions (deploy, apply, cancel, revert, ...) are the
// handlers in deployrequests.go. Every scheduled transition carries the
// deployment's generation, and every change of state bumps it, so a
// transition scheduled before a state change (closing a pending request,
// skipping the revert window) never fires after it.

// step schedules next after d, unless the deployment moves on first.
func (s *Server) step(dr *drRec, d time.Duration, next deployStep) {
	dr.dep.gen++
	s.clock.After(d, deployJob{dr, dr.dep.gen, next})
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
var deploySteps = map[deployStep]func(*Server, *drRec){
	stepCheck:       (*Server).check,
	stepSubmit:      (*Server).submit,
	stepStart:       (*Server).start,
	stepCopied:      (*Server).copied,
	stepCutoverDone: (*Server).cutoverDone,
	stepComplete:    (*Server).complete,
	stepRevert:      (*Server).revertStep,
	stepCancelled:   (*Server).cancelled,
}

// deployJob runs step of the deployment, scheduled at generation gen.
type deployJob struct {
	dr   *drRec
	gen  int
	step deployStep
}

func (j deployJob) run(s *Server) {
	if j.dr.dep.gen == j.gen && !j.dr.db.deleted {
		deploySteps[j.step](s, j.dr)
	}
}

// setState moves the deployment to st at the current time, dropping the
// transition scheduled for the state it leaves.
func (s *Server) setState(dr *drRec, st platform.DeploymentState) {
	now := s.clock.Now()
	dr.dep.gen++
	dr.dep.state = st
	dr.dep.updated = now
	dr.updated = now
	if st.IsTerminal() {
		s.world.endFlight(dr.dep.id)
	}
}

// emitDR emits a deploy request event with the deploy request as resource.
func (s *Server) emitDR(dr *drRec, name string) {
	s.emit(name, dr.db, s.renderDeployRequest(dr))
}

// failed consumes an injected failure of the deployment's next transition,
// moving it to the failure state of where it is, and reports whether it did.
func (s *Server) failed(dr *drRec) bool {
	if !s.takeFailure(dr.dep.id) {
		return false
	}
	switch dr.dep.state {
	case platform.DeploymentPending:
		msg := "the deployment check failed"
		dr.dep.checkErrors = &msg
		s.setState(dr, platform.DeploymentError)
	case platform.DeploymentInProgressRevert, platform.DeploymentInProgressRevertVSchema:
		dr.dep.finished = s.clock.Now()
		s.setState(dr, platform.DeploymentCompleteRevertError)
	default:
		dr.dep.finished = s.clock.Now()
		s.setOpsState(dr, platform.OperationError)
		s.setState(dr, platform.DeploymentCompleteError)
	}
	s.emitDR(dr, "deploy_request.errored")
	return true
}

// check compares the branches: pending -> ready, no_changes or error.
func (s *Server) check(dr *drRec) {
	if s.failed(dr) {
		return
	}
	dr.dep.ops = diffSchemas(dr.head, dr.into)
	now := s.clock.Now()
	for _, op := range dr.dep.ops {
		op.stamps = stamps{id: s.world.newID(), created: now, updated: now}
		for _, name := range shardNames(shardsOf(op, dr.head, dr.into)) {
			op.shards = append(op.shards, shardRec{id: s.world.newID(), name: name})
		}
	}
	dr.dep.vschema = touchesSharded(dr.dep.ops, dr.head, dr.into)
	dr.dep.eligible = len(dr.dep.ops) > 0 && !dr.dep.vschema
	for _, op := range dr.dep.ops {
		if op.name == platform.OperationDrop {
			dr.dep.eligible = false
		}
	}
	switch {
	case len(dr.head.lint()) > 0:
		dr.dep.lint = dr.head.lint()
		s.setState(dr, platform.DeploymentError)
		s.emitDR(dr, "deploy_request.errored")
	case len(dr.dep.ops) == 0:
		s.setState(dr, platform.DeploymentNoChanges)
	default:
		s.setState(dr, platform.DeploymentReady)
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
func (s *Server) release(dr *drRec) {
	db := dr.db
	db.deployQueue = slices.DeleteFunc(db.deployQueue, func(q *drRec) bool { return q == dr })
	for _, q := range db.deployQueue {
		if q.into == dr.into {
			if q.dep.state == platform.DeploymentQueued && len(db.preceding(q)) == 0 {
				s.step(q, s.timing.DeployStep, stepSubmit)
			}
			return
		}
	}
}

// submit is queued -> submitting, once nothing precedes the deployment.
func (s *Server) submit(dr *drRec) {
	if s.failed(dr) {
		return
	}
	s.setState(dr, platform.DeploymentSubmitting)
	s.setOpsState(dr, platform.OperationQueued)
	s.step(dr, s.timing.DeployStep, stepStart)
}

// start is submitting -> in_progress.
func (s *Server) start(dr *drRec) {
	if s.failed(dr) {
		return
	}
	dr.dep.started = s.clock.Now()
	s.setState(dr, platform.DeploymentInProgress)
	s.setOpsState(dr, platform.OperationInProgress)
	s.emitDR(dr, "deploy_request.in_progress")
	s.step(dr, s.timing.DeployInProgress, stepCopied)
}

// copied ends in_progress: the VSchema step when a sharded keyspace
// changes, then the cutover gate (or the cutover itself).
func (s *Server) copied(dr *drRec) {
	if s.failed(dr) {
		return
	}
	if dr.dep.instant {
		s.applySchema(dr)
		s.complete(dr)
		return
	}
	if dr.dep.vschema && dr.dep.state == platform.DeploymentInProgress {
		s.setState(dr, platform.DeploymentInProgressVSchema)
		s.step(dr, s.timing.DeployStep, stepCopied)
		return
	}
	dr.dep.readyToCutover = s.clock.Now()
	if dr.dep.autoCutover || !dr.dep.forceCutover.IsZero() {
		// Whoever forced the cutover, else the deployer.
		s.cutover(dr, cmp.Or(dr.dep.forceActor, dr.dep.actor))
		return
	}
	s.setState(dr, platform.DeploymentPendingCutover)
	s.emitDR(dr, "deploy_request.pending_cutover")
}

// cutover is -> in_progress_cutover, by actor.
func (s *Server) cutover(dr *drRec, actor *userRec) {
	dr.dep.cutoverActor = actor
	s.setState(dr, platform.DeploymentInProgressCutover)
	s.step(dr, s.timing.DeployStep, stepCutoverDone)
}

// cutoverDone applies the schema and opens the revert window.
func (s *Server) cutoverDone(dr *drRec) {
	if s.failed(dr) {
		return
	}
	s.applySchema(dr)
	s.setState(dr, platform.DeploymentCompletePendingRevert)
	s.emitDR(dr, "deploy_request.schema_applied")
	s.step(dr, s.timing.RevertWindow, stepComplete)
}

// applySchema brings the head's changes into the into branch.
func (s *Server) applySchema(dr *drRec) {
	now := s.clock.Now()
	dr.dep.before = s.world.applyOps(dr.into, dr.head, dr.dep.ops, now)
	dr.into.schemaUpdated, dr.into.updated = now, now
	s.schemaChanged(dr.into, dr)
	dr.dep.cutoverAt, dr.dep.finished, dr.deployedAt = now, now, now
	s.setOpsState(dr, platform.OperationComplete)
	if dr.dep.instant {
		s.emitDR(dr, "deploy_request.schema_applied")
	}
}

// complete ends a deployment: the deploy request closes, the queue moves on,
// and the head branch goes when auto_delete_branch asks for it.
func (s *Server) complete(dr *drRec) {
	s.setState(dr, platform.DeploymentComplete)
	s.closeDR(dr, dr.dep.actor)
	s.release(dr)
	if dr.dep.autoDeleteBranch && !dr.head.deleted && s.checkBranchDeletable(dr.head) == nil {
		s.removeBranch(dr.head)
	}
}

// closeDR closes the deploy request.
func (s *Server) closeDR(dr *drRec, by *userRec) {
	dr.freezeRatios()
	dr.open = false
	dr.closedAt = s.clock.Now()
	dr.closedBy = by
	s.emitDR(dr, "deploy_request.closed")
}

// revertStep runs the revert: in_progress_revert (-> in_progress_revert_vschema)
// -> complete_revert.
func (s *Server) revertStep(dr *drRec) {
	if s.failed(dr) {
		return
	}
	if dr.dep.vschema && dr.dep.state == platform.DeploymentInProgressRevert {
		s.setState(dr, platform.DeploymentInProgressRevertVSchema)
		s.step(dr, s.timing.DeployStep, stepRevert)
		return
	}
	restoreTables(dr.into, dr.dep.before)
	now := s.clock.Now()
	dr.into.schemaUpdated, dr.into.updated = now, now
	s.schemaChanged(dr.into, nil)
	dr.dep.finished = now
	s.setState(dr, platform.DeploymentCompleteRevert)
	s.emitDR(dr, "deploy_request.reverted")
	s.closeDR(dr, dr.dep.revertActor)
	s.release(dr)
}

// cancelled ends a cancel: in_progress_cancel -> complete_cancel.
func (s *Server) cancelled(dr *drRec) {
	if s.failed(dr) {
		return
	}
	dr.dep.finished = s.clock.Now()
	s.setOpsState(dr, platform.OperationCancelled)
	s.setState(dr, platform.DeploymentCompleteCancel)
	s.closeDR(dr, dr.dep.cancelledActor)
	s.release(dr)
}

// setOpsState moves every operation of the deployment to st.
func (s *Server) setOpsState(dr *drRec, st platform.DeployOperationState) {
	now := s.clock.Now()
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
	out := ""
	for i, st := range states {
		switch {
		case i == 0:
		case i == len(states)-1:
			out += " or "
		default:
			out += ", "
		}
		out += string(st)
	}
	return out
}

// in reports whether the deployment's state is one of states.
func (dr *drRec) in(states ...platform.DeploymentState) bool {
	return slices.Contains(states, dr.dep.state)
}
