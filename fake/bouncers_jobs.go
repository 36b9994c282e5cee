package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// bouncerReadyJob makes a new bouncer's servers ready once
// Timings.BouncerReady has passed.
type bouncerReadyJob struct{ bn *bouncerRec }

func (j bouncerReadyJob) run(w *world) { w.bouncerReady(j.bn) }

func (j bouncerReadyJob) save() jobSnap {
	return jobSnap{Kind: "bouncer.ready", ID: j.bn.id}
}

func (j bouncerReadyJob) keep(sv *saver) bool {
	return sv.branchSet[j.bn.branch] && !j.bn.deleted
}

func loadBouncerReadyJob(ld *loader, js jobSnap) (job, error) {
	bn, err := refNonNil(ld.bouncers, js.ID, "bouncer")
	return bouncerReadyJob{bn}, err
}

// bouncerResizeJob moves a bouncer resize request out of state from
// (pending or resizing) to its next state; it does nothing if the request
// has left from meanwhile (it was canceled).
type bouncerResizeJob struct {
	r    *bouncerResizeRec
	from platform.BouncerResizeState
}

func (j bouncerResizeJob) run(w *world) {
	if j.from == platform.BouncerResizePending {
		w.bouncerResizeStarted(j.r)
	} else {
		w.bouncerResized(j.r)
	}
}

func (j bouncerResizeJob) save() jobSnap {
	return jobSnap{Kind: "bouncer_resize.step", ID: j.r.id, Step: string(j.from)}
}

func (j bouncerResizeJob) keep(sv *saver) bool {
	return sv.branchSet[j.r.bouncer.branch] && j.r.state == j.from
}

func loadBouncerResizeJob(ld *loader, js jobSnap) (job, error) {
	from := platform.BouncerResizeState(js.Step)
	if from != platform.BouncerResizePending && from != platform.BouncerResizeResizing {
		return nil, fmt.Errorf("a bouncer resize does not leave state %q on the clock", js.Step)
	}
	r, err := refNonNil(ld.bouncerResizes, js.ID, "bouncer resize")
	return bouncerResizeJob{r, from}, err
}
