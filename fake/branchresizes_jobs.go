package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// branchChangeJob moves a branch resize or change request out of state
// from (queued or resizing) to its next state; it does nothing if the
// request has left from meanwhile (it was canceled).
type branchChangeJob struct {
	r    *branchChangeRec
	from platform.BranchChangeState
}

func (j branchChangeJob) run(w *world) {
	if j.r.state == j.from {
		w.stepChange(j.r)
	}
}

func (j branchChangeJob) save() jobSnap {
	return jobSnap{Kind: "branch_change.step", ID: j.r.id, Step: string(j.from)}
}

func (j branchChangeJob) keep(sv *saver) bool {
	return sv.branchSet[j.r.branch] && j.r.state == j.from
}

func loadBranchChangeJob(ld *loader, js jobSnap) (job, error) {
	from := platform.BranchChangeState(js.Step)
	if from != platform.ChangeQueued && from != platform.ChangeResizing {
		return nil, fmt.Errorf("a branch resize or change request does not leave state %q on the clock", js.Step)
	}
	r, err := refNonNil(ld.branchChanges, js.ID, "branch resize or change request")
	return branchChangeJob{r, from}, err
}
