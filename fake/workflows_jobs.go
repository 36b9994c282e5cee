package fake

import (
	"fmt"
	"slices"

	"github.com/dbplatform/platform-go"
)

// workflowJob takes a workflow out of state from on the clock: to the next
// state, or to error when a failure was injected, from which retry
// resumes the same step. It does nothing if the workflow has left from
// meanwhile (it was cancelled while pending or copying).
type workflowJob struct {
	wf   *workflowRec
	from platform.WorkflowState
	// gen is the step's generation: a job whose step a later one
	// overtook (the workflow was stopped and started again) does nothing.
	gen uint64
}

func (j workflowJob) run(w *world) {
	wf := j.wf
	now := w.clock.Now()
	if wf.state != j.from || j.gen != wf.stepGen {
		return
	}
	if w.takeFailure(wf.id) {
		if j.from == platform.WorkflowCopying {
			w.failTableCopy(wf)
		}
		wf.state, wf.updated = platform.WorkflowError, now
		wf.failedFrom, wf.errors = j.from, workflowFailure(j.from)
		if j.from == platform.WorkflowVerifyingData {
			w.endWorkflowVDiff(wf, platform.VDiffError)
		}
		w.noteStreams(wf)
		return
	}
	w.settleTables(wf)
	w.advanceWorkflow(wf, now)
}

func (j workflowJob) save() jobSnap {
	return jobSnap{Kind: "workflow.step", ID: j.wf.id, Step: string(j.from), Gen: j.gen}
}

func (j workflowJob) keep(sv *saver) bool {
	return sv.dbSet[j.wf.db] && j.wf.state == j.from && j.gen == j.wf.stepGen
}

// workflowClockStates are the states a workflow leaves on the clock.
var workflowClockStates = []platform.WorkflowState{
	platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowVerifyingData,
	platform.WorkflowSwitchingReplicas, platform.WorkflowSwitchingPrimaries, platform.WorkflowReversingTraffic,
	platform.WorkflowCuttingOver, platform.WorkflowReversingTrafficForCancel, platform.WorkflowCancelling,
}

func loadWorkflowJob(ld *loader, js jobSnap) (job, error) {
	from := platform.WorkflowState(js.Step)
	if !slices.Contains(workflowClockStates, from) {
		return nil, fmt.Errorf("a workflow does not leave state %q on the clock", js.Step)
	}
	wf, err := refNonNil(ld.workflows, js.ID, "workflow")
	return workflowJob{wf, from, js.Gen}, err
}
