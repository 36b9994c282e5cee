package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// switchoverJob moves a switchover out of state from (pending or running):
// to its next state, or to failed when a failure was injected. It does
// nothing if the switchover has left from meanwhile (its branch was
// deleted).
type switchoverJob struct {
	sw   *switchoverRec
	from platform.SwitchoverState
}

func (j switchoverJob) run(w *world) {
	sw := j.sw
	if sw.state != j.from {
		return
	}
	now := w.clock.Now()
	if w.takeFailure(sw.id) {
		sw.err = switchoverFailure
		w.settleSwitchover(sw, platform.SwitchoverFailed, now)
		return
	}
	w.advanceSwitchover(sw, now)
}

func (j switchoverJob) save() jobSnap {
	return jobSnap{Kind: "switchover.step", ID: j.sw.id, Step: string(j.from)}
}

func (j switchoverJob) keep(sv *saver) bool {
	return sv.branchSet[j.sw.branch]
}

func loadSwitchoverJob(ld *loader, js jobSnap) (job, error) {
	from := platform.SwitchoverState(js.Step)
	if from != platform.SwitchoverPending && from != platform.SwitchoverRunning {
		return nil, fmt.Errorf("a switchover does not leave state %q on the clock", js.Step)
	}
	sw, err := refNonNil(ld.switchovers, js.ID, "switchover")
	return switchoverJob{sw, from}, err
}
