package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// vitessOpJob moves an operation of a branch's control plane out of state
// from (pending or running): to its next state; to failed when a failure
// was injected; to cancelled when its keyspace was deleted meanwhile. It
// does nothing if the operation has left from (its branch was deleted).
type vitessOpJob struct {
	op   *vitessOpRec
	from platform.VitessOperationState
}

func (j vitessOpJob) run(w *world) {
	op := j.op
	if op.state != j.from {
		return
	}
	now := w.clock.Now()
	switch {
	case op.branch.keyspace(op.ksName) == nil || op.branch.keyspace(op.ksName).id != op.keyspace:
		w.settleVitessOperation(op, platform.VitessOperationCancelled, "keyspace "+op.ksName+" was deleted", now)
	case w.takeFailure(op.id):
		msg := reparentFailure
		if op.action != platform.VitessActionPlannedReparent {
			msg = op.action + ": the vtctld call failed: rpc error: code = Unavailable desc = the target keyspace's primary did not answer in time"
		}
		w.settleVitessOperation(op, platform.VitessOperationFailed, msg, now)
	default:
		w.advanceVitessOperation(op, now)
	}
}

func (j vitessOpJob) save() jobSnap {
	return jobSnap{Kind: "vitess_operation.step", ID: j.op.id, Step: string(j.from)}
}

func (j vitessOpJob) keep(sv *saver) bool { return sv.branchSet[j.op.branch] }

func loadVitessOpJob(ld *loader, js jobSnap) (job, error) {
	from := platform.VitessOperationState(js.Step)
	if from != platform.VitessOperationPending && from != platform.VitessOperationRunning {
		return nil, fmt.Errorf("a Vitess operation does not leave state %q on the clock", js.Step)
	}
	op, err := refNonNil(ld.vitessOps, js.ID, "Vitess operation")
	return vitessOpJob{op, from}, err
}
