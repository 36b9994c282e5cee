package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// vdiffJob moves a shard of a VDiff on: a pending shard starts comparing
// (or fails, when a failure was injected with FailNext), a started one
// completes. It does nothing when the shard has moved since it was
// scheduled (a stop, a resume, a delete: gen differs); a VDiff goes with
// its workflow (deleteVRWorkflow).
type vdiffJob struct {
	d     *vdiffRec
	shard string
	gen   uint64
}

func (j vdiffJob) run(w *world) {
	sh := j.d.shard(j.shard)
	if sh == nil || sh.gen != j.gen || j.d.branch.vdiffs().list.Get(j.d.id) != j.d {
		return
	}
	now := w.clock.Now()
	switch {
	case sh.state == platform.VDiffPending && w.takeFailure(j.d.id):
		w.failVDiffShard(j.d, sh, now)
	case sh.state == platform.VDiffPending:
		w.startVDiffShard(j.d, sh, now)
	case sh.state == platform.VDiffStarted:
		w.completeVDiffShard(j.d, sh, now)
	}
}

func (j vdiffJob) save() jobSnap {
	return jobSnap{Kind: "vdiff.step", ID: j.d.id, Step: j.shard, Gen: j.gen}
}

// keep leaves out a job whose shard has moved on since it was scheduled.
func (j vdiffJob) keep(sv *saver) bool {
	sh := j.d.shard(j.shard)
	return sv.branchSet[j.d.branch] && j.d.branch.vdiffs().list.Get(j.d.id) == j.d && sh != nil && sh.gen == j.gen &&
		(sh.state == platform.VDiffPending || sh.state == platform.VDiffStarted)
}

func loadVDiffJob(ld *loader, js jobSnap) (job, error) {
	d, err := refNonNil(ld.vdiffs, js.ID, "VDiff")
	if err != nil {
		return nil, err
	}
	sh := d.shard(js.Step)
	switch {
	case sh == nil:
		return nil, fmt.Errorf("VDiff %s has no shard %q", d.id, js.Step)
	case sh.gen != js.Gen:
		return nil, fmt.Errorf("VDiff %s shard %s is at generation %d, not %d", d.id, sh.name, sh.gen, js.Gen)
	case sh.state != platform.VDiffPending && sh.state != platform.VDiffStarted:
		return nil, fmt.Errorf("VDiff %s shard %s is %s: no transition leaves it on the clock", d.id, sh.name, sh.state)
	}
	return vdiffJob{d, sh.name, js.Gen}, nil
}
